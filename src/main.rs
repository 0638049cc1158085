//! The `git-papayu` binary: parses the command line and hands over to `cli`.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
