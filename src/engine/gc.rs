//! `git papayu gc`: keep papayu's own storage bounded.
//!
//! Forgets operations older than `papayu.oplogExpire` (default 90 days, as git's reflog), so
//! what only they kept reachable — replaced proposal commits, previews of old plans — becomes
//! collectable by `git gc`; removes idle check worktrees (made again on the next check) and
//! unregisters vanished ones; deletes traces older than `papayu.traceExpire`; empties the
//! derived-data cache. Plans themselves are notes, shared with the team: gc never deletes them.

use crate::codes::{Code, Problem};
use crate::store::{Store, oplog, worktree};

/// Operations older than this are forgotten unless `papayu.oplogExpire` says otherwise.
pub const DEFAULT_OPLOG_EXPIRE: &str = "90.days.ago";

/// Traces older than this are deleted unless `papayu.traceExpire` says otherwise.
pub const DEFAULT_TRACE_EXPIRE: &str = "30.days.ago";

/// What gc is asked to do: cut-offs in milliseconds since the epoch (older is removed).
pub struct GcRequest {
    pub dry_run: bool,
    pub operations_before: i64,
    pub traces_before: i64,
    /// Removes the traces created before a cut-off (or, on a dry run, only counts them) and
    /// returns how many files and bytes that frees: traces sit above the engine, which is
    /// handed their pruning (`trace::prune`) rather than importing it.
    pub prune_traces: fn(&Store, i64, bool) -> (usize, u64),
}

/// What gc kept and freed (or, on a dry run, would free).
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct GcReport {
    pub dry_run: bool,
    /// Plans stored in the notes (never removed by gc).
    pub plans: usize,
    pub operations_kept: usize,
    pub operations_forgotten: usize,
    pub worktrees_removed: usize,
    pub worktree_bytes: u64,
    pub traces_removed: usize,
    pub trace_bytes: u64,
    pub cache_entries_removed: usize,
    pub cache_bytes: u64,
    /// Everything above, in bytes.
    pub bytes_freed: u64,
    /// Check requests (`apply --on`) whose proposals are all merged or discarded: withdrawn
    /// from their remotes, or kept with the reason.
    pub requests: super::workers::tidy::Tidied,
}

/// `gc --repair`: papayu's refs back on intact commits (see [`oplog::repair`]).
pub fn repair(store: &Store, dry_run: bool) -> Result<Vec<oplog::Repair>, Problem> {
    Ok(oplog::repair(store, dry_run)?)
}

pub fn gc(store: &Store, request: &GcRequest) -> Result<GcReport, Problem> {
    let dry_run = request.dry_run;
    let ledger = store.ledger()?;
    let plans = ledger.records.len();
    let requests = super::workers::tidy::tidy(store, &ledger, dry_run)?;
    let ops = oplog::forget_before(store, request.operations_before, dry_run)?;
    let (worktrees_removed, worktree_bytes) = worktree::prune_idle(store, dry_run)?;
    let (traces_removed, trace_bytes) =
        (request.prune_traces)(store, request.traces_before, dry_run);
    let (cache_entries_removed, cache_bytes) = store.clear_cache(dry_run);
    Ok(GcReport {
        dry_run,
        plans,
        operations_kept: ops.kept,
        operations_forgotten: ops.forgotten,
        worktrees_removed,
        worktree_bytes,
        traces_removed,
        trace_bytes,
        cache_entries_removed,
        cache_bytes,
        bytes_freed: worktree_bytes + trace_bytes + cache_bytes,
        requests,
    })
}

/// The cut-off an expiry setting (`papayu.oplogExpire`, `papayu.traceExpire`) names as of now:
/// its `value` when set, else `default`. Both settings read the one grammar of [`crate::date::cutoff`]; a
/// value that does not read is `ERR_CONFIG_INVALID`, never a silent default.
pub fn setting_cutoff(name: &str, value: Option<&str>, default: &str) -> Result<i64, Problem> {
    crate::date::cutoff_now(value.unwrap_or(default))
        .map_err(|why| Problem::new(Code::ConfigInvalid, format!("{name}: {why}")))
}
