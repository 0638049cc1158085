//! `git papayu show`: one plan in full.

use clap::Args;
use git_papayu::engine::find::find;
use git_papayu::service::view::{self, PlanView};
use git_papayu::store::Store;
use git_papayu::store::records::{Event, EventKind, PlanRecord, PlanStats, Status};
use git_papayu::verdict::{CheckStatus, Verdict};

use super::{CliResult, observer, render, text, ui};

/// Show one plan: goal, summary, steps, risks, questions, actions, status and history.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Plan id (a unique prefix) or proposal branch; default: the newest plan on HEAD.
    pub plan: Option<String>,
    /// Show the conversation that made the plan instead: what the model was shown and why,
    /// each request and answer, repairs, fallbacks and tokens. It travels with the plan's notes,
    /// so it works for a teammate's plan after git papayu sync.
    #[arg(long)]
    pub conversation: bool,
}

pub fn run(args: ShowArgs) -> CliResult {
    let ShowArgs { plan, conversation } = args;
    let store = Store::open()?;
    if conversation {
        let (_, record) = find(&store, plan.as_deref())?;
        let c = git_papayu::trace::conversation::load(&store, &record)?;
        ui::data(&Conversed {
            plan: &record.id,
            conversation: &c,
        });
        ui::paged();
        ui::out(&super::conversation::render(&record, &c));
        return Ok(());
    }
    let config = super::settings();
    let view = view::show(&observer::service(&store, &config), plan.as_deref())?;
    ui::data(&view);
    ui::paged();
    let me = store.user_identity();
    let teammate = view.by.as_deref().filter(|b| Some(*b) != me.as_deref());
    let mut out = describe(&view.plan, Some(view.status), &view.events, teammate);
    match view.plan.kind {
        // A reproduction is meant to fail: what its run showed is said as that.
        Some(_) => out.push_str(&repro_lines(&view.check)),
        None => out.push_str(&check_lines(&view.check, &view.events)),
    }
    out.push_str(&where_checked(&view));
    out.push_str(&group_lines(&view));
    out.push_str(&chain_lines(&view));
    out.push_str(&claims_lines(&view.claims));
    out.push_str(&claimed_lines(&view.claimed_checks));
    ui::out_painted(&paint(&text::block(&out), view.status));
    Ok(())
}

/// Where the plan's proposal is published, a check asked of workers and not answered yet, and
/// the trusted worker whose check is in effect.
fn where_checked(view: &PlanView) -> String {
    let mut out = String::new();
    for branch in &view.remote_branches {
        out.push_str(&format!(
            "Published: {b} (review it with git log -p {b}; git papayu apply {} makes a branch of your own)\n",
            view.plan.short_id(),
            b = text::line(branch)
        ));
    }
    if let Some(asked) = view
        .remote_check
        .as_ref()
        .filter(|_| view.check.status == CheckStatus::Unchecked)
    {
        let why = asked
            .reason
            .as_deref()
            .map_or(String::new(), |r| format!(": {}", text::line(r)));
        out.push_str(&format!(
            "Check: {} (request {}){why}\n",
            asked.cell(),
            asked.request
        ));
    }
    if let Some(by) = &view.checked_by {
        out.push_str(&format!(
            "  {} (a worker papayu.trustedWorkers lists)\n",
            text::line(by)
        ));
    }
    out
}

/// The plan's group, with what it cost in all and how to compare it.
fn group_lines(view: &PlanView) -> String {
    let Some(group) = &view.group else {
        return String::new();
    };
    let cost = group.cost_usd.map_or(String::new(), |c| {
        format!(", {} in all", git_papayu::cost::usd(c))
    });
    format!(
        "Group: {} ({}{cost}; git papayu compare {0})\n",
        group.id,
        render::count(group.plans.len(), "proposal"),
    )
}

/// The refinement chain, one plan a line, this one marked.
fn chain_lines(view: &PlanView) -> String {
    if view.chain.is_empty() {
        return String::new();
    }
    let mut out = "Refinements:\n".to_string();
    for link in &view.chain {
        let short = git_papayu::store::short(&link.plan);
        let this = if link.plan == view.plan.id {
            " (this one)"
        } else {
            ""
        };
        let check = link
            .check
            .as_deref()
            .map_or(String::new(), |c| format!(" [{}]", text::line(c)));
        out.push_str(&match (&link.refined_by, &link.feedback) {
            (Some(by), Some(feedback)) => format!(
                "  {short}{check} refined by {}: \"{}\"{this}\n",
                git_papayu::store::short(by),
                text::line(feedback)
            ),
            (Some(by), None) => format!(
                "  {short}{check} refined by {}{this}\n",
                git_papayu::store::short(by)
            ),
            _ => format!("  {short} {}{check}{this}\n", link.status.as_str()),
        });
    }
    out
}

/// Undo and redo events from shared notes that no operation here made.
fn claims_lines(claims: &[Event]) -> String {
    if claims.is_empty() {
        return String::new();
    }
    let mut out =
        "Claims from shared notes (no operation here made them; not in effect):\n".to_string();
    let now = git_papayu::store::records::now_millis();
    for c in claims {
        out.push_str(&format!(
            "  {:<9} {}  cancels line {}\n",
            if c.event == EventKind::Undone {
                "undone"
            } else {
                "redone"
            },
            render::age(c.at, now),
            c.cancels
                .as_deref()
                .map_or("?", |h| h.get(..10).unwrap_or(h)),
        ));
    }
    out
}

/// The verdicts from shared notes this clone does not act on, one line each, with who brought
/// them; nothing when there are none.
pub fn claimed_lines(claimed: &[git_papayu::engine::compare::ClaimedCheck]) -> String {
    if claimed.is_empty() {
        return String::new();
    }
    let mut out = "Claimed checks from shared notes or untrusted workers (no check here made them; not in effect):\n".to_string();
    let now = git_papayu::store::records::now_millis();
    for c in claimed {
        let event = if c.event == EventKind::Failed {
            "failed"
        } else {
            "applied"
        };
        let by = match (&c.worker, &c.by, &c.notes_commit) {
            (Some(worker), _, _) => format!(
                "by worker {} ({})",
                text::line(worker),
                c.why.as_deref().unwrap_or("not trusted")
            ),
            (None, Some(by), Some(commit)) => {
                format!("by {} (notes commit {})", text::line(by), &commit[..10])
            }
            _ => "by someone unknown (not found in the notes history)".to_string(),
        };
        out.push_str(&format!(
            "  {event:<9} {}  {}  {by}\n",
            render::age(c.at, now),
            c.check.line()
        ));
    }
    out
}

/// Colours a description already made safe, as `git show` colours a commit: the first line in
/// `color.diff.commit` (yellow), and the status in its colour.
fn paint(text: &str, status: Status) -> String {
    let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
    let first = match ui::palette() {
        Some(palette) => palette.paint("commit", first),
        None => first.to_string(),
    };
    let label = format!("Status: {}\n", status.as_str());
    let coloured = format!(
        "Status: {}\n",
        ui::paint(render::status_colour(status), status.as_str())
    );
    format!("{first}\n{}", rest.replacen(&label, &coloured, 1))
}

/// A titled list; `multi_line` items keep their newlines (indented), others show them as `^J`.
fn list(out: &mut String, title: &str, items: &[String], multi_line: bool) {
    if items.is_empty() {
        return;
    }
    out.push_str(&format!("{title}:\n"));
    for item in items {
        let item = match multi_line {
            true => text::block(item).replace('\n', "\n    "),
            false => text::line(item).into_owned(),
        };
        out.push_str(&format!("  - {item}\n"));
    }
}

/// A reproduction's outcome: the tests that fail at the base (its evidence is in its history),
/// or that none did.
fn repro_lines(check: &Verdict) -> String {
    match check.status {
        CheckStatus::Unchecked => String::new(),
        _ if check.broken.is_empty() => {
            "Reproduces: no (no test of its own fails at the base)\n".to_string()
        }
        _ => {
            let names: Vec<String> = check
                .broken
                .iter()
                .map(|n| text::line(n).into_owned())
                .collect();
            format!(
                "Reproduces: yes; failing at the base: {}\n",
                names.join(", ")
            )
        }
    }
}

/// The `Check:` line of a plan's newest check, and the tests it names: the verdict judged test
/// by test, or — by its exit status alone — `passed`, or `failed` with the exit status; nothing
/// when no check ran.
fn check_lines(check: &Verdict, events: &[Event]) -> String {
    if check.status == CheckStatus::Unchecked {
        return String::new();
    }
    if check.fixes.is_none() {
        let exit = events.iter().rev().find_map(|e| {
            (e.event == EventKind::Failed)
                .then_some(e.exit_code)
                .flatten()
        });
        let how = match (check.status, exit) {
            (CheckStatus::Passed, _) => " (by its exit status: no per-test results)".to_string(),
            (CheckStatus::DidNotRun, _) => String::new(),
            (_, Some(code)) => format!(" (exit {code}; no per-test results)"),
            (_, None) => String::new(),
        };
        return format!("Check: {}{how}\n", check.line());
    }
    let mut out = format!("Check: {}\n", check.line());
    let broken: Vec<String> = check
        .broken_passing()
        .into_iter()
        .map(String::from)
        .collect();
    for (what, names) in [
        ("fixed", &check.fixed),
        ("broken", &broken),
        ("added, failing", &check.added_failing),
        ("still failing", &check.failing),
    ] {
        if !names.is_empty() {
            let names: Vec<String> = names.iter().map(|n| text::line(n).into_owned()).collect();
            out.push_str(&format!("  {what}: {}\n", names.join(", ")));
        }
    }
    out
}

/// The human description of a plan shared by `plan` and `show`. Every string in a record or an
/// event came from a model or a note: one-line fields show a newline as `^J`, and no control
/// character reaches the terminal.
pub fn describe(
    record: &PlanRecord,
    status: Option<Status>,
    events: &[Event],
    by: Option<&str>,
) -> String {
    let mut out = heading(record, status, by);
    out.push_str(&contents(record));
    out.push_str(&history(events));
    out
}

/// The plan's id, status, goal, kind and maker.
fn heading(record: &PlanRecord, status: Option<Status>, by: Option<&str>) -> String {
    let plan = &record.plan;
    let mut out = format!(
        "plan {}  (protocol v{}, {} action{}, base {})\n",
        record.short_id(),
        record.schema_version,
        plan.actions.len(),
        if plan.actions.len() == 1 { "" } else { "s" },
        git_papayu::store::short(record.base)
    );
    if !record.verified {
        out.push_str("Id: unverifiable (stored before plan ids were content hashes)\n");
    }
    if let Some(status) = status {
        out.push_str(&format!("Status: {}\n", status.as_str()));
    }
    out.push_str(&format!("Goal: {}\n", text::line(&record.goal)));
    if record.kind.is_some() {
        out.push_str("Kind: a test that reproduces the goal's problem (only test files)\n");
    }
    if let Some(repro) = &record.repro {
        out.push_str(&format!(
            "Reproduction: {} (its tests run in every check of this plan)\n",
            &repro[..repro.len().min(10)]
        ));
    }
    if let Some(by) = by {
        out.push_str(&format!(
            "By: {} (a teammate's plan, from the shared notes)\n",
            text::line(by)
        ));
    }
    out
}

/// What the model wrote: summary, steps, risks, questions, suggested commands, what it cost,
/// and the actions.
fn contents(record: &PlanRecord) -> String {
    let plan = &record.plan;
    let mut out = String::new();
    if let Some(summary) = &plan.summary {
        let summary = text::block(summary.trim_end());
        let mut lines = summary.lines();
        out.push_str(&format!("Summary: {}\n", lines.next().unwrap_or("")));
        for line in lines {
            match line.trim().is_empty() {
                true => out.push('\n'),
                false => out.push_str(&format!("  {line}\n")),
            }
        }
    }
    if !plan.steps.is_empty() {
        out.push_str("Steps:\n");
        for (i, step) in plan.steps.iter().enumerate() {
            let title = text::line(&step.step);
            match &step.details {
                Some(d) => out.push_str(&format!("  {}. {title} — {}\n", i + 1, text::line(d))),
                None => out.push_str(&format!("  {}. {title}\n", i + 1)),
            }
        }
    }
    list(&mut out, "Risks", &plan.risks, true);
    list(&mut out, "Questions", &plan.questions, true);
    list(
        &mut out,
        "Commands suggested (never run by papayu)",
        &plan.commands_to_run,
        false,
    );
    if let Some(stats) = &record.stats {
        out.push_str(&format!(
            "Model: {}\n",
            git_papayu::present::provider_label(record)
        ));
        out.push_str(&format!("Cost: {}\n", cost_line(stats)));
    }
    if !plan.actions.is_empty() {
        out.push_str("Actions:\n");
        for action in &plan.actions {
            out.push_str(&format!(
                "  {:<13} {}\n",
                action.kind.as_str(),
                text::line(&action.path)
            ));
        }
    }
    out
}

/// The plan's events, oldest first, with a check's verdict, its evidence and output's tail.
fn history(events: &[Event]) -> String {
    if events.is_empty() {
        return String::new();
    }
    let mut out = "History:\n".to_string();
    let now = git_papayu::store::records::now_millis();
    for e in events {
        let mut line = format!(
            "  {:<9} {}",
            serde_json::to_value(e.event)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            render::age(e.at, now)
        );
        if let Some(b) = &e.branch {
            line.push_str(&format!("  {}", text::line(b)));
        }
        if let Some(code) = e.exit_code {
            line.push_str(&format!("  exit {code}"));
        }
        if let Some(check) = e.check.as_ref().filter(|c| c.fixes.is_some()) {
            line.push_str(&format!("  {}", check.line()));
        }
        out.push_str(&line);
        out.push('\n');
        if let Some(detail) = e
            .detail
            .as_deref()
            .filter(|d| d.starts_with("does not reproduce"))
        {
            out.push_str(&format!("      {}\n", text::line(detail)));
        }
        for evidence in &e.evidence {
            out.push_str(&format!(
                "      fails at the base: {}\n",
                text::line(evidence)
            ));
        }
        if let Some(tail) = &e.output_tail {
            let tail = text::block(tail);
            let lines: Vec<&str> = tail.lines().collect();
            for l in &lines[lines.len().saturating_sub(10)..] {
                out.push_str(&format!("      | {l}\n"));
            }
        }
    }
    out
}

/// Tokens, cache use, requests and time of a plan, on one line.
pub fn cost_line(stats: &PlanStats) -> String {
    let cached = if stats.input_tokens > 0 {
        format!(
            "{} cached ({:.0}%)",
            stats.cached_tokens,
            100.0 * stats.cached_tokens as f64 / stats.input_tokens as f64
        )
    } else {
        format!("{} cached", stats.cached_tokens)
    };
    let mut line = format!(
        "{} input tokens, {cached}, {} written to cache, {} output tokens; {}, {:.1}s",
        stats.input_tokens,
        stats.cache_write_tokens,
        stats.output_tokens,
        render::count(stats.requests as usize, "request"),
        stats.latency_ms as f64 / 1000.0
    );
    if stats.repairs > 0 {
        line.push_str(&format!(
            ", {}",
            render::count(stats.repairs as usize, "repair")
        ));
    }
    if stats.context_rounds > 0 {
        line.push_str(&format!(
            ", {}",
            render::count(stats.context_rounds as usize, "context round")
        ));
    }
    if let Some(reason) = &stats.fallback {
        line.push_str(&format!(", fell back to v1 ({reason})"));
    }
    if let Some(usd) = stats.cost_usd {
        line.push_str(&format!("; {}", git_papayu::cost::usd(usd)));
    }
    line
}

/// `show --conversation --json`: the plan and the conversation that made it.
#[derive(serde::Serialize)]
struct Conversed<'a> {
    plan: &'a str,
    conversation: &'a git_papayu::trace::conversation::Conversation,
}
