//! The workflows behind the commands: making, applying, reviewing and undoing plans.
//!
//! Each function here is one user-visible operation. It reads through [`crate::store`], decides,
//! and commits its effect as one logged operation; it never prints.

pub mod apply;
pub mod attribution;
pub mod baseline;
pub mod check;
mod check_env;
pub mod compare;
pub mod contain;
pub mod event;
pub mod find;
pub mod gc;
pub mod history;
mod interrupt;
pub mod plan;
pub mod refine;
mod reports;
pub mod repro;
pub mod reproduce;
pub mod results;
pub mod review;
pub mod sandbox;
mod seen;
pub mod setup;
mod stopped;
pub mod sync;
pub mod votes;
pub mod weaken;
pub mod workers;
