//! git-papayu turns a model's JSON plan into a reviewable commit on a `papayu/*` branch.
//!
//! The library is layered so that each layer can be trusted on its own. The pure layers are
//! crates of their own (`crates/`), so Cargo itself keeps them from reaching up:
//!
//! - [`plan`], [`codes`], [`verdict`] and [`cost`] (`papayu-core`) are the data every layer
//!   shares: what every accepted answer becomes, errors, verdicts, prices; they are pure.
//! - [`protocol`] (`papayu-protocol`) reads a model's answer into a validated [`plan::Plan`];
//!   it is pure.
//! - [`patch`] (`papayu-patch`) applies model-written diffs to text; it is pure and
//!   all-or-nothing.
//! - [`store`] is the only module that touches git: notes, refs, the operation log, worktrees,
//!   and object-level reads and writes of trees. It keeps plans in records but knows nothing
//!   of how answers are read or patches applied.
//! - [`executor`] decides what a plan does to a base tree (paths, protection, patches, line
//!   endings), reading through the store's snapshot and handing it the edits to write.
//!
//! Above them sit `context` (what the model is shown), `llm`, `engine` (plan, apply, review),
//! `ask` and `trace`, and at the top [`service`], the operations every front end drives; a
//! module uses only those below it (`tests/it/layout.rs` holds the order). [`present`] is the
//! text every front end shows (diffstats, safe terminal text).
//!
//! Nothing in the library prints; the binary's `cli` module owns the terminal.

// A ratchet: no function of the product grows past 79 lines (clippy.toml); the few that
// were longer carry an `expect` until they are split.
#![deny(clippy::too_many_lines)]
// No panics on a value that can be missing: each `unwrap`/`expect` left carries an `expect`
// attribute that says why it cannot fail.
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod ask;
pub mod clock;
pub mod context;
pub mod date;
pub mod engine;
pub mod executor;
pub mod llm;
pub mod present;
pub mod service;
pub mod settings;
pub mod store;
pub mod trace;

pub use papayu_core::{codes, cost, plan, verdict};
pub use papayu_patch as patch;
pub use papayu_protocol as protocol;

pub use codes::{Code, Problem, Problems};
