//! `git papayu gc`: keep papayu's own storage bounded.
//!
//! Forgets operations older than `papayu.oplogExpire` (default 90 days, as git's reflog), so
//! what only they kept reachable — replaced proposal commits, previews of old plans — becomes
//! collectable by `git gc`; removes idle check worktrees (made again on the next check) and
//! unregisters vanished ones; deletes traces older than `papayu.traceExpire`; empties the
//! derived-data cache. Plans themselves are notes, shared with the team: gc never deletes them.

use crate::codes::{Code, Problem};
use crate::store::records::now_millis;
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
}

/// `gc --repair`: papayu's refs back on intact commits (see [`oplog::repair`]).
pub fn repair(store: &Store, dry_run: bool) -> Result<Vec<oplog::Repair>, Problem> {
    Ok(oplog::repair(store, dry_run)?)
}

pub fn gc(store: &Store, request: &GcRequest) -> Result<GcReport, Problem> {
    let dry_run = request.dry_run;
    let plans = store.ledger()?.records.len();
    let ops = oplog::forget_before(store, request.operations_before, dry_run)?;
    let (worktrees_removed, worktree_bytes) = worktree::prune_idle(store, dry_run)?;
    let (traces_removed, trace_bytes) = crate::trace::prune(store, request.traces_before, dry_run);
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
    })
}

/// The cut-off an expiry setting names, in milliseconds since the epoch; what is older goes.
///
/// Accepts what git's `gc.reflogExpire` users write: `now` (everything goes), `never` or
/// `false` (nothing goes), `N.UNIT.ago` / `N UNIT ago` / `N.UNIT` with UNIT one of seconds,
/// minutes, hours, days, weeks, months (30 days) or years (365 days), a bare number of days,
/// a date `YYYY-MM-DD`, and `@SECONDS` since the epoch. Anything else is an error: a typo must
/// never expire everything.
pub fn cutoff(text: &str, now: i64) -> Result<i64, String> {
    let t = text.trim().to_ascii_lowercase();
    let bad = || {
        format!("{text:?} is not an expiry; use now, never, a date YYYY-MM-DD or e.g. 90.days.ago")
    };
    match t.as_str() {
        "now" | "all" => return Ok(i64::MAX),
        "never" | "false" => return Ok(i64::MIN),
        _ => {}
    }
    if let Ok(days) = crate::trace::parse_date(&t) {
        return Ok(days);
    }
    if let Some(secs) = t.strip_prefix('@') {
        let secs: i64 = secs.parse().map_err(|_| bad())?;
        return Ok(secs.saturating_mul(1000));
    }
    let words: Vec<&str> = t
        .split(['.', ' '])
        .filter(|w| !w.is_empty() && *w != "ago")
        .collect();
    let (number, unit) = match words.as_slice() {
        [n] => (n, "days"),
        [n, unit] => (n, *unit),
        _ => return Err(bad()),
    };
    let n: i64 = number.parse().ok().filter(|n| *n >= 0).ok_or_else(bad)?;
    let unit_ms: i64 = match unit.trim_end_matches('s') {
        "second" | "sec" => 1_000,
        "minute" | "min" => 60_000,
        "hour" => 3_600_000,
        "day" => 86_400_000,
        "week" => 7 * 86_400_000,
        "month" => 30 * 86_400_000,
        "year" => 365 * 86_400_000,
        _ => return Err(bad()),
    };
    Ok(now.saturating_sub(n.saturating_mul(unit_ms)))
}

/// [`cutoff`] as of now.
pub fn cutoff_now(text: &str) -> Result<i64, String> {
    cutoff(text, now_millis())
}

/// The cut-off an expiry setting (`papayu.oplogExpire`, `papayu.traceExpire`) names as of now:
/// its `value` when set, else `default`. Both settings read the one grammar of [`cutoff`]; a
/// value that does not read is `ERR_CONFIG_INVALID`, never a silent default.
pub fn setting_cutoff(name: &str, value: Option<&str>, default: &str) -> Result<i64, Problem> {
    cutoff_now(value.unwrap_or(default))
        .map_err(|why| Problem::new(Code::ConfigInvalid, format!("{name}: {why}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expiries_read_like_git_and_typos_are_errors() {
        let now = 1_000_000_000_000;
        let day = 86_400_000;
        assert_eq!(cutoff("now", now), Ok(i64::MAX));
        assert_eq!(cutoff("never", now), Ok(i64::MIN));
        assert_eq!(cutoff("90.days.ago", now), Ok(now - 90 * day));
        assert_eq!(cutoff("90 days ago", now), Ok(now - 90 * day));
        assert_eq!(cutoff("2.weeks", now), Ok(now - 14 * day));
        assert_eq!(cutoff("30", now), Ok(now - 30 * day));
        assert_eq!(cutoff("1.hour.ago", now), Ok(now - 3_600_000));
        assert_eq!(cutoff("1970-01-02", now), Ok(day));
        assert_eq!(cutoff("@86400", now), Ok(day));
        for typo in ["bogus", "90.dayz.ago", "-3.days", "", "1 2 3"] {
            assert!(cutoff(typo, now).is_err(), "{typo}");
        }
    }
}
