//! The traces of past runs (`.git/papayu/traces`): list them, read one, report on them, prune
//! them, replay one through today's code, or make a golden case of it. `git papayu trace` renders
//! these reports; `--json` prints them.

use std::path::PathBuf;

use serde::Serialize;

use crate::codes::{Code, Problem};
use crate::engine::gc;
use crate::trace::golden::{self, Case, CaseResult};
use crate::trace::report::{self, Report};
use crate::trace::{self, Trace};

use super::Service;

/// One trace in a listing.
#[derive(Debug, Serialize)]
pub struct Row {
    pub trace_id: String,
    pub kind: String,
    pub created_at: i64,
    pub plan_id: Option<String>,
    pub goal: Option<String>,
    pub ok: bool,
    /// `ok`, or the code of the run's first problem.
    pub outcome: String,
}

/// `trace list`: newest first.
#[derive(Debug, Serialize)]
pub struct Listing {
    pub traces: Vec<Row>,
    /// Whether every trace is listed (false when a limit left some out).
    pub complete: bool,
}

/// `trace show`.
#[derive(Debug, Serialize)]
pub struct Shown {
    pub trace: Trace,
}

/// `trace report`.
#[derive(Debug, Serialize)]
pub struct Reported {
    pub report: Report,
}

/// `trace prune`: what was deleted, or would be.
#[derive(Debug, Serialize)]
pub struct Pruned {
    pub dry_run: bool,
    pub traces: usize,
    pub bytes: u64,
}

/// `trace replay`: today's code on a trace's recorded answer, against what it made then.
#[derive(Debug, Serialize)]
pub struct Replayed {
    pub trace_id: String,
    pub same: bool,
    pub differences: Vec<String>,
    pub expected: CaseResult,
    pub actual: CaseResult,
}

/// `trace to-golden`: the case, and where it is written (`None`: standard output).
#[derive(Debug, Serialize)]
pub struct Golden {
    pub case: Case,
    pub written: Option<PathBuf>,
}

fn not_found(why: String) -> Problem {
    Problem::new(Code::TraceNotFound, why)
}

/// Every readable trace, oldest first; unreadable files are skipped with a warning.
fn readable(service: &Service<'_>) -> Vec<Trace> {
    let (traces, unreadable) = trace::all(service.store);
    if unreadable > 0 {
        service.observer().warn(&format!(
            "{unreadable} trace file(s) could not be read and were skipped"
        ));
    }
    traces
}

/// What became of a traced run: `ok`, or its first problem's code.
fn outcome(t: &Trace) -> String {
    match (t.ok, t.problems.first()) {
        (true, _) => "ok".to_string(),
        (false, Some(p)) => p.code.clone(),
        (false, None) => "failed".to_string(),
    }
}

/// The newest `limit` traces (all of them with `None`), newest first.
pub fn list(service: &Service<'_>, limit: Option<usize>) -> Listing {
    let mut traces = readable(service);
    traces.reverse();
    let complete = limit.is_none_or(|n| traces.len() <= n);
    traces.truncate(limit.unwrap_or(usize::MAX));
    let traces = traces
        .into_iter()
        .map(|t| Row {
            outcome: outcome(&t),
            trace_id: t.trace_id,
            kind: t.kind,
            created_at: t.created_at,
            plan_id: t.plan_id,
            goal: t.goal,
            ok: t.ok,
        })
        .collect();
    Listing { traces, complete }
}

/// The trace `id` (a unique prefix of at least 6 characters) from this machine's trace files,
/// else from the conversation of a plan in the notes (a teammate's plan, synced); the newest
/// trace without an id.
pub fn show(service: &Service<'_>, id: Option<&str>) -> Result<Shown, Problem> {
    let trace = match id {
        Some(id) => load(service, id)?,
        None => readable(service).pop().ok_or_else(|| {
            not_found(
                "there are no traces yet; every plan, apply, refine and merge writes one".into(),
            )
        })?,
    };
    Ok(Shown { trace })
}

fn load(service: &Service<'_>, id: &str) -> Result<Trace, Problem> {
    match trace::read(service.store, id) {
        Ok(t) => Ok(t),
        Err(why) => match trace::conversation::find_by_trace(service.store, id)? {
            Some(c) => Ok(c.trace),
            None => Err(not_found(why)),
        },
    }
}

/// Protocol metrics over the traces from `since` (a `YYYY-MM-DD` day, UTC) on.
pub fn report(service: &Service<'_>, since: Option<&str>) -> Result<Reported, Problem> {
    let since = since
        .map(crate::date::parse_day)
        .transpose()
        .map_err(|why| Problem::new(Code::Usage, why))?;
    let traces = readable(service);
    Ok(Reported {
        report: report::report(&traces, since),
    })
}

/// Deletes the traces created before `expire` (a date, `7.days.ago`, `now`), else before
/// `papayu.traceExpire`; with `dry_run`, only counts them.
pub fn prune(
    service: &Service<'_>,
    expire: Option<&str>,
    dry_run: bool,
) -> Result<Pruned, Problem> {
    let before = match expire {
        Some(text) => {
            crate::date::cutoff_now(text).map_err(|why| Problem::new(Code::Usage, why))?
        }
        None => gc::setting_cutoff(
            "papayu.traceExpire",
            service.config.git("papayu.traceExpire"),
            gc::DEFAULT_TRACE_EXPIRE,
        )?,
    };
    let (traces, bytes) = trace::prune(service.store, before, dry_run);
    Ok(Pruned {
        dry_run,
        traces,
        bytes,
    })
}

/// Runs trace `id`'s recorded answer through today's code and compares what it makes with what
/// it made then.
pub fn replay(service: &Service<'_>, id: &str) -> Result<Replayed, Problem> {
    let t = load(service, id)?;
    let (expected, actual) = golden::replay(service.store, &t).map_err(not_found)?;
    let differences = golden::compare(&expected, &actual);
    Ok(Replayed {
        trace_id: t.trace_id,
        same: differences.is_empty(),
        differences,
        expected,
        actual,
    })
}

/// A golden case named `name` (default: the trace id) from trace `id`; `written` is where the
/// front end writes it.
pub fn to_golden(
    service: &Service<'_>,
    id: &str,
    name: Option<String>,
    written: Option<PathBuf>,
) -> Result<Golden, Problem> {
    let t = load(service, id)?;
    let name = name.unwrap_or_else(|| t.trace_id.clone());
    let case = golden::to_golden(service.store, &t, &name).map_err(not_found)?;
    Ok(Golden { case, written })
}
