//! git-papayu turns a model's JSON plan into a reviewable commit on a `papayu/*` branch.
//!
//! The library is layered so that each layer can be trusted on its own:
//!
//! - [`protocol`] reads a model's answer into a validated [`protocol::Plan`]; it is pure.
//! - [`patch`] applies model-written diffs to text; it is pure and all-or-nothing.
//! - [`store`] is the only module that touches git: notes, refs, the operation log, worktrees.
//!
//! Nothing in the library prints; the binary's `cli` module owns the terminal.

pub mod ask;
pub mod codes;
pub mod context;
pub mod cost;
pub mod engine;
pub mod llm;
pub mod patch;
pub mod protocol;
pub mod store;
pub mod trace;

pub use codes::{Code, Problem};
