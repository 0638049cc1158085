//! The `git-papayu` binary: parses the command line and hands over to `cli`.

// A ratchet: no function of the product grows past 79 lines (clippy.toml); the few that
// were longer carry an `expect` until they are split.
#![deny(clippy::too_many_lines)]
// No panics on a value that can be missing: each `unwrap`/`expect` left carries an `expect`
// attribute that says why it cannot fail.
#![deny(clippy::unwrap_used, clippy::expect_used)]

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
