//! `git papayu gc`: forget old operations, remove idle check worktrees, old traces and the cache.

use clap::Args;
use git_papayu::engine::gc::{self, GcReport, GcRequest};
use git_papayu::store::Store;
use git_papayu::{Code, Problem};

use super::{CliError, CliResult, ui};

/// Keep papayu's storage bounded: forget old operations, prune check worktrees, traces, cache.
///
/// Forgets operations older than papayu.oplogExpire (default 90.days.ago, like git's reflog),
/// so the commits only they kept alive — replaced proposals, previews of old plans — can be
/// collected by git gc; undo stops at the oldest operation kept. Removes idle check worktrees
/// (made again by the next check), traces older than papayu.traceExpire (default 30 days) and
/// the derived-data cache. Plans are notes shared with your team and are never removed. Reports
/// what it keeps and frees; --dry-run only reports.
#[derive(Debug, Args)]
pub struct GcArgs {
    /// Only say what would be removed.
    #[arg(long)]
    dry_run: bool,
    /// Forget operations older than this (now, never, 2026-01-01, 30.days.ago, …) instead of
    /// papayu.oplogExpire; `now` forgets them all.
    #[arg(long, value_name = "DATE")]
    expire: Option<String>,
    /// Only repair: move refs/notes/papayu and refs/papayu/oplog back to their last intact
    /// commits when objects they need are missing (after a `git gc --prune=now` that raced a
    /// papayu command), and say what was lost.
    #[arg(long, conflicts_with = "expire")]
    repair: bool,
}

/// `gc --repair --json`: each ref moved back (or that would be), and what was lost.
#[derive(serde::Serialize)]
struct Repaired<'a> {
    repair: &'a [git_papayu::store::oplog::Repair],
    dry_run: bool,
}

/// `gc --json`.
#[derive(serde::Serialize)]
struct Collected<'a> {
    gc: &'a gc::GcReport,
}

fn repair(store: &Store, dry_run: bool) -> CliResult {
    let done = gc::repair(store, dry_run)?;
    ui::data(&Repaired {
        repair: &done,
        dry_run,
    });
    if done.is_empty() {
        ui::outln("papayu's refs are intact: nothing to repair");
    }
    let verb = if dry_run { "would move" } else { "moved" };
    for r in &done {
        let show = |o: Option<git_papayu::store::Oid>| {
            o.map_or_else(|| "nothing (deleted)".to_string(), git_papayu::store::short)
        };
        ui::outln(&format!(
            "{}: {verb} from {} to {}; lost: {}",
            r.name,
            show(r.from),
            show(r.to),
            r.lost
        ));
    }
    Ok(())
}

pub fn run(args: GcArgs) -> CliResult {
    let store = Store::open()?;
    if args.repair {
        return repair(&store, args.dry_run);
    }
    let (operations_before, traces_before) = cutoffs(args.expire.as_deref())?;
    let request = GcRequest {
        dry_run: args.dry_run,
        operations_before,
        traces_before,
        prune_traces: git_papayu::trace::prune,
    };
    let report = gc::gc(&store, &request)?;
    ui::data(&Collected { gc: &report });
    show(&report);
    Ok(())
}

/// What is older than forgotten: operations (`--expire`, else papayu.oplogExpire) and traces
/// (papayu.traceExpire).
fn cutoffs(expire: Option<&str>) -> Result<(i64, i64), CliError> {
    let config = super::settings();
    let operations_before = match expire {
        Some(text) => git_papayu::date::cutoff_now(text).map_err(|why| {
            CliError::Usage(Problem::new(Code::Usage, format!("--expire: {why}")))
        })?,
        None => gc::setting_cutoff(
            "papayu.oplogExpire",
            config.git("papayu.oplogExpire"),
            gc::DEFAULT_OPLOG_EXPIRE,
        )?,
    };
    let traces_before = gc::setting_cutoff(
        "papayu.traceExpire",
        config.git("papayu.traceExpire"),
        gc::DEFAULT_TRACE_EXPIRE,
    )?;
    Ok((operations_before, traces_before))
}

/// What gc kept and freed (or would), one line for each kind of storage.
fn show(report: &GcReport) {
    let (verb, forgot) = match report.dry_run {
        true => ("would remove", "would forget"),
        false => ("removed", "forgot"),
    };
    ui::outln(&format!(
        "plans: {} kept (plans are never removed)",
        report.plans
    ));
    ui::outln(&format!(
        "operations: {} kept, {forgot} {}",
        report.operations_kept, report.operations_forgotten
    ));
    ui::outln(&format!(
        "check worktrees: {verb} {} ({})",
        report.worktrees_removed,
        bytes(report.worktree_bytes)
    ));
    ui::outln(&format!(
        "traces: {verb} {} ({})",
        report.traces_removed,
        bytes(report.trace_bytes)
    ));
    ui::outln(&format!(
        "cache: {verb} {} ({})",
        super::render::count_as(report.cache_entries_removed, "entry", "entries"),
        bytes(report.cache_bytes)
    ));
    show_check_requests(report, verb);
    ui::outln(&format!("total: {}", bytes(report.bytes_freed)));
    if report.operations_forgotten > 0 && !report.dry_run {
        ui::status("the commits only those operations kept are collected by your next git gc");
    }
}

/// The check requests gc withdrew or kept, and the worker results it dropped.
fn show_check_requests(report: &GcReport, verb: &str) {
    if !report.requests.withdrawn.is_empty() {
        let verb = if report.dry_run {
            "would withdraw"
        } else {
            "withdrew"
        };
        ui::outln(&format!(
            "check requests: {verb} {} ({}): their proposals are merged or discarded",
            report.requests.withdrawn.len(),
            report.requests.withdrawn.join(", ")
        ));
    }
    if report.requests.results_dropped > 0 {
        ui::outln(&format!(
            "worker results: {verb} {} fetched notes ref(s): no check request is left",
            report.requests.results_dropped
        ));
    }
    for (id, why) in &report.requests.kept {
        ui::warn(&format!("check request {id} is kept: {why}"));
    }
}

/// `12.3 MB`, `456 bytes`.
fn bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 30 => format!("{:.1} GB", n as f64 / (1u64 << 30) as f64),
        n if n >= 1 << 20 => format!("{:.1} MB", n as f64 / (1u64 << 20) as f64),
        n if n >= 1 << 10 => format!("{:.1} kB", n as f64 / (1u64 << 10) as f64),
        n => format!("{n} bytes"),
    }
}
