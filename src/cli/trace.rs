//! `git papayu trace`: show, replay and report on the traces of past plans, applies, refines
//! and merges, and turn a trace into a golden case.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use git_papayu::service::{Service, traces};
use git_papayu::store::Store;
use git_papayu::trace::{Trace, report};
use git_papayu::{Code, Problem};

use super::{CliResult, render, ui};

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

pub fn run(args: TraceArgs) -> CliResult {
    let store = Store::open()?;
    let config = super::settings();
    let service = super::observer::service(&store, &config);
    match args.command {
        TraceCommand::List { max_count, all } => list(&service, (!all).then_some(max_count)),
        TraceCommand::Show { trace_id } => {
            let shown = traces::show(&service, trace_id.as_deref())?;
            ui::data(&shown);
            ui::paged();
            ui::out(&describe(&shown.trace));
            Ok(())
        }
        TraceCommand::Replay { trace_id } => replay(&service, &trace_id),
        TraceCommand::Report { since } => {
            let reported = traces::report(&service, since.as_deref())?;
            ui::data(&reported);
            ui::out(&render_report(&reported.report));
            Ok(())
        }
        TraceCommand::Prune { expire, dry_run } => {
            let pruned = traces::prune(&service, expire.as_deref(), dry_run)?;
            ui::data(&pruned);
            let verb = if dry_run { "would delete" } else { "deleted" };
            ui::outln(&format!(
                "{verb} {}, {}",
                render::count(pruned.traces, "trace"),
                render::count(pruned.bytes as usize, "byte")
            ));
            Ok(())
        }
        TraceCommand::ToGolden {
            trace_id,
            name,
            output,
        } => {
            let golden = traces::to_golden(&service, &trace_id, name, output)?;
            let text = serde_json::to_string_pretty(&golden.case).map_err(|e| {
                Problem::new(
                    Code::Internal,
                    format!("the golden case does not serialize: {e}"),
                )
            })? + "\n";
            ui::data(&golden);
            match &golden.written {
                Some(path) => std::fs::write(path, text).map_err(|e| {
                    Problem::new(Code::Io, format!("writing {}: {e}", path.display()))
                })?,
                None => ui::out_data(&text),
            }
            Ok(())
        }
    }
}

/// `trace replay`: today's code on a trace's recorded answer, against what it made then.
fn replay(service: &Service<'_>, trace_id: &str) -> CliResult {
    let replayed = traces::replay(service, trace_id)?;
    ui::data(&replayed);
    if replayed.same {
        ui::outln("same");
        return Ok(());
    }
    for line in &replayed.differences {
        ui::outln(line);
    }
    Err(Problem::new(
        Code::ReplayDiffers,
        format!(
            "today's code makes something else of trace {}'s answer ({} difference(s))",
            replayed.trace_id,
            replayed.differences.len()
        ),
    )
    .into())
}

fn list(service: &Service<'_>, limit: Option<usize>) -> CliResult {
    let listing = traces::list(service, limit);
    ui::data(&listing);
    let rows = &listing.traces;
    if rows.is_empty() {
        ui::status("no traces yet; every plan, apply, refine and merge writes one");
        return Ok(());
    }
    ui::paged();
    let now = git_papayu::store::records::now_millis();
    let width = rows.iter().map(|t| t.outcome.len()).max().unwrap_or(2);
    for t in rows {
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
            t.outcome,
            goal.trim(),
        );
        ui::outln(line.trim_end());
    }
    if !listing.complete {
        let newest = match rows.len() {
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
