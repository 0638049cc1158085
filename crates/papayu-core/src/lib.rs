//! The data every layer of papayu shares, and nothing that touches git, a network or a
//! terminal: stable error codes and problems, the normalized plan, verdicts, and what asking a
//! model costs.

pub mod codes;
pub mod cost;
pub mod plan;
pub mod verdict;

pub use codes::{Code, Problem, Problems};
