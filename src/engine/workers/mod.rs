//! Checks on other machines: CI as the fleet, verdicts back into git.
//!
//! Competing proposals multiply checks, and teams own machines that run them. `apply --on
//! REMOTE` ([`ask`]) pushes the proposals and one check request ([`request`]) to a remote;
//! `git papayu worker` ([`worker`]) on any machine with a clone — a CI job made by
//! `git papayu ci` ([`ci`]) — claims a request by a compare-and-swap push ([`claim`]), runs the
//! same sandboxed differential check `apply` runs, and pushes each verdict as a note under a ref
//! of its own. What comes back is read by the store ([`crate::store::results`]): a verdict
//! counts here only when a worker this repository trusts signed it; until one is back,
//! [`pending`] says the proposal waits. Everything travels through git: any remote that takes
//! branches and refs works, and any system that writes the same lines can be a worker
//! (docs/storage.md).

pub mod ask;
pub mod ci;
pub mod claim;
pub mod identity;
pub mod pending;
pub mod request;
pub mod tidy;
pub mod worker;
