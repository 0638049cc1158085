//! `git papayu trace`: show, replay and report on the traces of past plans, applies, refines
//! and merges, and turn a trace into a golden case.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use git_papayu::engine::gc;
use git_papayu::store::Store;
use git_papayu::trace::{self, Trace, golden, report};
use git_papayu::{Code, Problem};

use super::{CliError, CliResult, render, ui};

/// Inspect traces (`.git/papayu/traces`): show one, replay it through today's code, report
/// protocol metrics, or make a golden case of it.
#[derive(Debug, Args)]
pub struct TraceArgs {
    #[command(subcommand)]
    pub command: TraceCommand,
}

#[derive(Debug, Subcommand)]
pub enum TraceCommand {
    /// List traces, newest first: id, when, kind, plan, outcome and goal.
    List {
        /// Show at most this many traces.
        #[arg(short = 'n', long, value_name = "N", default_value_t = 20)]
        max_count: usize,
        /// Show every trace.
        #[arg(long, conflicts_with = "max_count")]
        all: bool,
    },
    /// Print a trace (the id or a unique prefix of at least 6 characters; the newest without one).
    Show { trace_id: Option<String> },
    /// Run a trace's recorded answer through today's checks and say "same" or what differs.
    Replay { trace_id: String },
    /// Protocol metrics over the traces, and the verdict on making protocol v2 the only one.
    Report {
        /// Only traces from this date on (YYYY-MM-DD, UTC).
        #[arg(long, value_name = "DATE")]
        since: Option<String>,
    },
    /// Delete traces older than papayu.traceExpire (default 30 days) or --expire.
    Prune {
        /// Delete traces created before this (YYYY-MM-DD in UTC, 7.days.ago, …), or `now` for all.
        #[arg(long, value_name = "DATE")]
        expire: Option<String>,
        /// Only say what would be deleted.
        #[arg(long)]
        dry_run: bool,
    },
    /// Write a golden case (docs/golden_traces/…) from a plan's trace.
    ToGolden {
        trace_id: String,
        /// The case's name (default: the trace id).
        #[arg(long)]
        name: Option<String>,
        /// Write here instead of stdout.
        #[arg(long, short = 'o', value_name = "FILE")]
        output: Option<PathBuf>,
    },
}

impl TraceArgs {
    /// The subcommand's name (`show`, `to-golden`).
    pub fn action_name(&self) -> &'static str {
        match self.command {
            TraceCommand::List { .. } => "list",
            TraceCommand::Show { .. } => "show",
            TraceCommand::Replay { .. } => "replay",
            TraceCommand::Report { .. } => "report",
            TraceCommand::Prune { .. } => "prune",
            TraceCommand::ToGolden { .. } => "to-golden",
        }
    }
}

fn not_found(why: String) -> Problem {
    Problem::new(Code::TraceNotFound, why)
}

/// The trace `id` from this machine's trace files, else from the conversation of a plan in
/// the notes (a teammate's plan, synced).
fn load(store: &Store, id: &str) -> Result<Trace, Problem> {
    match trace::read(store, id) {
        Ok(t) => Ok(t),
        Err(why) => match trace::conversation::find_by_trace(store, id)? {
            Some(c) => Ok(c.trace),
            None => Err(not_found(why)),
        },
    }
}

pub fn run(args: TraceArgs) -> CliResult {
    let store = Store::open()?;
    match args.command {
        TraceCommand::List { max_count, all } => list(&store, (!all).then_some(max_count)),
        TraceCommand::Show { trace_id } => {
            let t = match trace_id {
                Some(id) => load(&store, &id)?,
                None => newest(&store)?,
            };
            ui::data(&serde_json::json!({ "trace": t }));
            ui::paged();
            ui::out(&describe(&t));
            Ok(())
        }
        TraceCommand::Replay { trace_id } => replay(&store, &trace_id),
        TraceCommand::Report { since } => {
            let since = match since
                .as_deref()
                .map(git_papayu::date::parse_day)
                .transpose()
            {
                Ok(since) => since,
                Err(why) => return Err(CliError::Usage(Problem::new(Code::Usage, why))),
            };
            let (traces, unreadable) = trace::all(&store);
            if unreadable > 0 {
                ui::warn(&format!(
                    "{unreadable} trace file(s) could not be read and were skipped"
                ));
            }
            let r = report::report(&traces, since);
            ui::data(&serde_json::json!({ "report": r }));
            ui::out(&render_report(&r));
            Ok(())
        }
        TraceCommand::Prune { expire, dry_run } => {
            let config = super::settings();
            let before = match expire.as_deref() {
                Some(text) => git_papayu::date::cutoff_now(text)
                    .map_err(|why| CliError::Usage(Problem::new(Code::Usage, why)))?,
                None => gc::setting_cutoff(
                    "papayu.traceExpire",
                    config.git("papayu.traceExpire"),
                    gc::DEFAULT_TRACE_EXPIRE,
                )?,
            };
            let (count, bytes) = trace::prune(&store, before, dry_run);
            ui::data(&serde_json::json!({ "dry_run": dry_run, "traces": count, "bytes": bytes }));
            let verb = if dry_run { "would delete" } else { "deleted" };
            ui::outln(&format!(
                "{verb} {}, {}",
                render::count(count, "trace"),
                render::count(bytes as usize, "byte")
            ));
            Ok(())
        }
        TraceCommand::ToGolden {
            trace_id,
            name,
            output,
        } => {
            let t = load(&store, &trace_id)?;
            let name = name.unwrap_or_else(|| t.trace_id.clone());
            let case = golden::to_golden(&store, &t, &name).map_err(not_found)?;
            let text = serde_json::to_string_pretty(&case).map_err(|e| {
                Problem::new(
                    Code::Internal,
                    format!("the golden case does not serialize: {e}"),
                )
            })? + "\n";
            ui::data(&serde_json::json!({ "case": case, "written": output }));
            match output {
                Some(path) => std::fs::write(&path, text).map_err(|e| {
                    Problem::new(Code::Io, format!("writing {}: {e}", path.display()))
                })?,
                None => ui::out_data(&text),
            }
            Ok(())
        }
    }
}

/// `trace replay`: today's code on a trace's recorded answer, against what it made then.
fn replay(store: &Store, trace_id: &str) -> CliResult {
    let t = load(store, trace_id)?;
    let (expected, actual) = golden::replay(store, &t).map_err(not_found)?;
    let diff = golden::compare(&expected, &actual);
    ui::data(&serde_json::json!({
        "trace_id": t.trace_id, "same": diff.is_empty(),
        "differences": diff, "expected": expected, "actual": actual,
    }));
    if diff.is_empty() {
        ui::outln("same");
    } else {
        for line in &diff {
            ui::outln(line);
        }
    }
    if diff.is_empty() {
        Ok(())
    } else {
        Err(Problem::new(
            Code::ReplayDiffers,
            format!(
                "today's code makes something else of trace {}'s answer ({} difference(s))",
                t.trace_id,
                diff.len()
            ),
        )
        .into())
    }
}

/// The newest trace, for `trace show` without an id.
fn newest(store: &Store) -> Result<Trace, Problem> {
    let (mut traces, _) = trace::all(store);
    traces.pop().ok_or_else(|| {
        not_found("there are no traces yet; every plan, apply, refine and merge writes one".into())
    })
}

/// What became of a traced run: `ok`, or its first problem's code.
fn outcome(t: &Trace) -> String {
    match (t.ok, t.problems.first()) {
        (true, _) => "ok".to_string(),
        (false, Some(p)) => p.code.clone(),
        (false, None) => "failed".to_string(),
    }
}

fn list(store: &Store, limit: Option<usize>) -> CliResult {
    let (mut traces, unreadable) = trace::all(store);
    if unreadable > 0 {
        ui::warn(&format!(
            "{unreadable} trace file(s) could not be read and were skipped"
        ));
    }
    traces.reverse();
    let complete = limit.is_none_or(|n| traces.len() <= n);
    traces.truncate(limit.unwrap_or(usize::MAX));
    let rows: Vec<serde_json::Value> = traces
        .iter()
        .map(|t| {
            serde_json::json!({
                "trace_id": t.trace_id, "kind": t.kind, "created_at": t.created_at,
                "plan_id": t.plan_id, "goal": t.goal, "ok": t.ok, "outcome": outcome(t),
            })
        })
        .collect();
    ui::data(&serde_json::json!({ "traces": rows, "complete": complete }));
    if traces.is_empty() {
        ui::status("no traces yet; every plan, apply, refine and merge writes one");
        return Ok(());
    }
    ui::paged();
    let now = git_papayu::store::records::now_millis();
    let outcomes: Vec<String> = traces.iter().map(outcome).collect();
    let width = outcomes.iter().map(|o| o.len()).max().unwrap_or(2);
    for (t, outcome) in traces.iter().zip(&outcomes) {
        let plan = t
            .plan_id
            .as_deref()
            .map_or("-", |p| p.get(..10).unwrap_or(p));
        let goal = t.goal.as_deref().unwrap_or("").lines().next().unwrap_or("");
        let line = format!(
            "{}  {:>8}  {:<7}  {:<10}  {:<width$}  {}",
            t.trace_id.get(..8).unwrap_or(&t.trace_id),
            super::render::age(t.created_at, now),
            t.kind,
            plan,
            outcome,
            goal.trim(),
        );
        ui::outln(line.trim_end());
    }
    if !complete {
        let newest = match traces.len() {
            1 => "the newest trace".to_string(),
            n => format!("the newest {n} traces"),
        };
        ui::status(&format!(
            "{newest}; git papayu trace list --all lists every trace"
        ));
    }
    Ok(())
}

fn describe(t: &Trace) -> String {
    let mut out = format!("trace {}\nkind: {}  ok: {}\n", t.trace_id, t.kind, t.ok);
    for (label, value) in [
        ("plan", &t.plan_id),
        ("base", &t.base),
        ("branch", &t.branch),
        ("goal", &t.goal),
    ] {
        if let Some(v) = value {
            out.push_str(&format!("{label}: {v}\n"));
        }
    }
    let tr = &t.transcript;
    if !tr.provider.is_empty() {
        out.push_str(&format!(
            "provider: {} ({})  protocol: v{} attempts {:?}  repairs: {}  context rounds: {}\n",
            tr.provider,
            tr.model,
            tr.protocol_default,
            tr.protocol_attempts,
            tr.protocol_repair_attempt,
            tr.context_rounds
        ));
    }
    if let Some(reason) = &tr.protocol_fallback_reason {
        out.push_str(&format!(
            "fallback: {reason} at {}\n",
            tr.protocol_fallback_stage.as_deref().unwrap_or("?")
        ));
    }
    for (i, r) in tr.requests.iter().enumerate() {
        out.push_str(&format!(
            "request {}: v{} {} chars in, {} ms, tokens in {} (cached {}, cache write {}) out {}: {}\n",
            i + 1, r.protocol, r.input_chars, r.latency_ms, r.input_tokens, r.cached_tokens, r.cache_write_tokens, r.output_tokens, r.outcome
        ));
    }
    if let Some(usd) = t.cost_usd {
        let group = t
            .group
            .as_deref()
            .map_or(String::new(), |g| format!(" (group {g})"));
        out.push_str(&format!("cost: {}{group}\n", git_papayu::cost::usd(usd)));
    }
    for f in &tr.validation_failures {
        out.push_str(&format!(
            "rejected (v{}): {}: {}\n",
            f.protocol, f.code, f.reason
        ));
    }
    if let Some(check) = &t.check {
        out.push_str(&format!(
            "check: `{}` exit {:?} in {} ms\n",
            check.command, check.exit_status, check.duration_ms
        ));
    }
    // The final problem repeats the last rejection (with the path the answers took), and each
    // rejection has its own VALIDATION_FAILED event: every rejection is said once.
    for p in &t.problems {
        let repeated = tr
            .validation_failures
            .iter()
            .filter(|f| f.code == p.code)
            .find_map(|f| p.reason.strip_prefix(f.reason.as_str()));
        match repeated {
            Some(rest) => out.push_str(&format!("outcome: {}{rest}\n", p.code)),
            None => out.push_str(&format!("{}: {}\n", p.code, p.reason)),
        }
    }
    let said = |e: &str| e.starts_with("VALIDATION_FAILED ") && !tr.validation_failures.is_empty();
    for e in tr.events.iter().filter(|e| !said(e)) {
        out.push_str(&format!("  {e}\n"));
    }
    out
}

fn percent(rate: f64) -> String {
    format!("{:.1} %", rate * 100.0)
}

fn render_report(r: &report::Report) -> String {
    let mut out = format!(
        "traces: {}  plans: {} ({} failed)  applies: {} ({} failed)\n",
        r.traces, r.plans, r.plans_failed, r.applies, r.applies_failed
    );
    out.push_str(&format!(
        "fallback v2→v1: {} ({}; {} excluding ERR_NON_UTF8_FILE)\n",
        r.fallback_count,
        percent(r.fallback_rate),
        percent(r.fallback_rate_excluding_non_utf8)
    ));
    for (reason, n) in &r.fallback_reasons {
        out.push_str(&format!("  {reason}: {n}\n"));
    }
    out.push_str(&format!(
        "repairs: {} ({} succeeded, {})\n",
        r.repairs,
        r.repairs_succeeded,
        percent(r.repair_success_rate)
    ));
    if !r.most_repaired_paths.is_empty() {
        out.push_str("most repaired paths:\n");
        for (path, n) in &r.most_repaired_paths {
            out.push_str(&format!("  {n:>4}  {path}\n"));
        }
    }
    for (name, p) in &r.providers {
        out.push_str(&format!(
            "{name}: {}, tokens in {} (cached {}, {} hit rate) out {}\n",
            super::render::count(p.requests, "request"),
            p.input_tokens,
            p.cached_tokens,
            percent(p.cache_hit_rate),
            p.output_tokens
        ));
    }
    out.push_str(&format!("v2-only: {}\n", r.graduation.verdict));
    for unmet in &r.graduation.unmet {
        out.push_str(&format!("  - {unmet}\n"));
    }
    out
}
