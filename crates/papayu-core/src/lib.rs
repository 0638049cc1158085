//! The data every layer of papayu shares, and nothing that touches git, a network or a
//! terminal: stable error codes and problems, the normalized plan, verdicts, and what asking a
//! model costs.

// A ratchet: no function of the product grows past 79 lines (clippy.toml); the few that
// were longer carry an `expect` until they are split.
#![deny(clippy::too_many_lines)]
// Another: no unwrap or expect outside tests; a true invariant carries an `expect` that says
// why it holds.
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod codes;
pub mod cost;
pub mod plan;
pub mod verdict;

pub use codes::{Code, Problem, Problems};
