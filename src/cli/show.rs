//! `git papayu show`: one plan in full.

use clap::Args;
use git_papayu::engine::find::{find, refined_by};
use git_papayu::store::Store;
use git_papayu::store::records::{Event, EventKind, Ledger, PlanRecord, PlanStats, Status};
use git_papayu::verdict::{CheckStatus, Verdict};

use super::{CliError, CliResult, render, text, ui};

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

#[expect(clippy::too_many_lines, reason = "older than the limit; to be split")]
pub fn run(args: ShowArgs) -> CliResult {
    let ShowArgs { plan, conversation } = args;
    let store = Store::open()?;
    let (ledger, record) = find(&store, plan.as_deref())?;
    if conversation {
        let c = git_papayu::trace::conversation::load(&store, &record)?;
        ui::data(&serde_json::json!({ "plan": record.id, "conversation": c }));
        ui::paged();
        ui::out(&super::conversation::render(&record, &c));
        return Ok(());
    }
    let status = ledger.status(&record.id);
    let events = ledger.events_of(&record.id);
    let claims = ledger.claims.get(&record.id).map_or(&[][..], Vec::as_slice);
    let chain = chain(&store, &record.id)?;
    let check = git_papayu::engine::compare::last_check(&ledger, &record.id);
    let checked_by = git_papayu::engine::compare::last_check_by(&ledger, &record.id);
    let remote_check =
        git_papayu::engine::workers::pending::remote_states(&store, &ledger).remove(&record.id);
    let claimed = git_papayu::engine::compare::claimed_checks(&store, &ledger, &record.id);
    let group = group_of(&store, &record)?;
    let by = made_by(&store, &record);
    let teammate = by
        .as_deref()
        .filter(|b| Some(*b) != store.user_identity().as_deref());
    let remote = store
        .remote_proposals()?
        .remove(&record.id)
        .unwrap_or_default();
    ui::data(&serde_json::json!({
        "plan": record,
        "verified": record.verified,
        "status": status,
        "branch": ledger.branch(&record.id),
        "events": events,
        "claims": claims,
        "check": check,
        "checked_by": checked_by,
        "remote_check": remote_check,
        "claimed_checks": claimed,
        "group": group,
        "by": by,
        "remote_branches": remote,
        "chain": chain.iter().map(|l| serde_json::json!({
            "plan": l.id,
            "status": l.status,
            "refined_by": l.refined_by,
            "feedback": l.feedback,
            "check": l.check,
        })).collect::<Vec<_>>(),
    }));
    ui::paged();
    let mut out = describe(&record, Some(status), events, teammate);
    match record.kind {
        // A reproduction is meant to fail: what its run showed is said as that.
        Some(_) => out.push_str(&repro_lines(&check)),
        None => out.push_str(&check_lines(&check, events)),
    }
    for branch in &remote {
        out.push_str(&format!(
            "Published: {b} (review it with git log -p {b}; git papayu apply {} makes a branch of your own)\n",
            record.short_id(),
            b = text::line(branch)
        ));
    }
    if let Some(asked) = remote_check
        .as_ref()
        .filter(|_| check.status == CheckStatus::Unchecked)
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
    if let Some(by) = &checked_by {
        out.push_str(&format!(
            "  {} (a worker papayu.trustedWorkers lists)\n",
            text::line(by)
        ));
    }
    if let Some(group) = &group {
        let cost = group["cost_usd"].as_f64().map_or(String::new(), |c| {
            format!(", {} in all", git_papayu::cost::usd(c))
        });
        out.push_str(&format!(
            "Group: {} ({}{cost}; git papayu compare {0})\n",
            group["id"].as_str().unwrap_or_default(),
            render::count(group["plans"].as_array().map_or(0, Vec::len), "proposal"),
        ));
    }
    if !chain.is_empty() {
        out.push_str(
            "Refinements:
",
        );
        for link in &chain {
            let short = git_papayu::store::short(&link.id);
            let this = if link.id == record.id {
                " (this one)"
            } else {
                ""
            };
            let check = link
                .check
                .as_deref()
                .map_or(String::new(), |c| format!(" [{}]", text::line(c)));
            match (&link.refined_by, &link.feedback) {
                (Some(by), Some(feedback)) => out.push_str(&format!(
                    "  {short}{check} refined by {}: \"{}\"{this}\n",
                    git_papayu::store::short(by),
                    text::line(feedback)
                )),
                (Some(by), None) => out.push_str(&format!(
                    "  {short}{check} refined by {}{this}\n",
                    git_papayu::store::short(by)
                )),
                _ => out.push_str(&format!(
                    "  {short} {}{check}{this}\n",
                    link.status.as_str()
                )),
            }
        }
    }
    if !claims.is_empty() {
        out.push_str("Claims from shared notes (no operation here made them; not in effect):\n");
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
    }
    out.push_str(&claimed_lines(&claimed));
    ui::out_painted(&paint(&text::block(&out), status));
    Ok(())
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

/// The plan's group: its id, its plans (oldest first) and what they cost in all (`null` when
/// none was priced); `None` for a plan made alone. One command made them all on one base: only
/// the lines of that base's note that name the group are read.
fn group_of(store: &Store, record: &PlanRecord) -> Result<Option<serde_json::Value>, CliError> {
    let Some(group) = &record.group else {
        return Ok(None);
    };
    let on_base = store.plans_mentioning(&[record.base], &format!("\"group\":\"{group}\""))?;
    let members: Vec<&PlanRecord> = on_base
        .records
        .iter()
        .filter(|r| r.group.as_ref() == Some(group))
        .collect();
    let costs: Vec<f64> = members
        .iter()
        .filter_map(|r| r.stats.as_ref().and_then(|s| s.cost_usd))
        .collect();
    Ok(Some(serde_json::json!({
        "id": group,
        "plans": members.iter().map(|r| &r.id).collect::<Vec<_>>(),
        "cost_usd": (!costs.is_empty()).then(|| costs.iter().sum::<f64>()),
    })))
}

/// One plan of a refinement chain.
struct Link {
    id: String,
    status: Status,
    refined_by: Option<String>,
    feedback: Option<String>,
    /// Its newest check, as `show` says it (`failed: fixes 1, breaks 1, …`), when one ran.
    check: Option<String>,
}

/// Reads the plans of a refinement chain one at a time, each from the notes about it alone
/// (through the plan index), so a chain costs what its plans cost, not what the notes hold.
struct Rounds<'s> {
    store: &'s Store,
    index: git_papayu::store::index::PlanIndex,
    read: std::collections::HashMap<String, Option<Ledger>>,
}

impl<'s> Rounds<'s> {
    fn new(store: &'s Store) -> Result<Rounds<'s>, CliError> {
        Ok(Rounds {
            store,
            index: store.plan_index()?,
            read: Default::default(),
        })
    }

    /// The ledger exact for plan `id`, `None` when it has no record in effect.
    fn ledger(&mut self, id: &str) -> Result<Option<&Ledger>, CliError> {
        if !self.read.contains_key(id) {
            let ledger = self.store.ledger_about(&self.index, id)?;
            let found = ledger.records.iter().any(|r| r.id == id);
            self.read.insert(id.to_string(), found.then_some(ledger));
        }
        Ok(self.read[id].as_ref())
    }

    /// The plan refined from `id`: the one its `refined` event names, or — when its check
    /// failed and a round went on from the commit that failed (`refine` of a failed plan,
    /// `--rounds`) — the plan of the same goal asked on that commit.
    fn next(&mut self, id: &str) -> Result<Option<String>, CliError> {
        let Some(ledger) = self.ledger(id)? else {
            return Ok(None);
        };
        if let Some(child) = refined_by(ledger, id) {
            return Ok(Some(child));
        }
        let Some(record) = ledger.records.iter().find(|r| r.id == id) else {
            return Ok(None);
        };
        let goal = record.goal.clone();
        let failed: Vec<_> = ledger
            .events_of(id)
            .iter()
            .filter(|e| e.event == EventKind::Failed)
            .filter_map(|e| e.commit)
            .collect();
        for commit in failed {
            let on = self.store.plans_on(&[commit])?;
            if let Some(r) = on
                .records
                .iter()
                .find(|r| r.id != id && r.goal == goal && r.base == commit)
            {
                return Ok(Some(r.id.clone()));
            }
        }
        Ok(None)
    }

    /// The plan `id` was refined from: a round is based on the commit of the round before,
    /// which names its plan in its `Papayu-Plan:` trailer.
    fn previous(&mut self, id: &str) -> Result<Option<String>, CliError> {
        let Some(base) = self
            .ledger(id)?
            .and_then(|l| l.records.iter().find(|r| r.id == id))
            .map(|r| r.base)
        else {
            return Ok(None);
        };
        let Ok(message) = self.store.commit_message(base) else {
            return Ok(None);
        };
        let Some(parent) = git_papayu::store::proposals::trailer_plan(&message) else {
            return Ok(None);
        };
        let parent = parent.to_string();
        Ok((self.next(&parent)?.as_deref() == Some(id)).then_some(parent))
    }
}

/// The refinement chain a plan is part of, oldest first (empty when it is not refined and
/// refines nothing): each plan, its status, its refinement and the feedback that refinement
/// addressed.
fn chain(store: &Store, id: &str) -> Result<Vec<Link>, CliError> {
    let mut rounds = Rounds::new(store)?;
    let mut ids = vec![id.to_string()];
    while let Some(parent) = rounds.previous(&ids[0])? {
        if ids.contains(&parent) || ids.len() > 64 {
            break;
        }
        ids.insert(0, parent);
    }
    while let Some(child) = match ids.last() {
        Some(last) => rounds.next(&last.clone())?,
        None => None,
    } {
        if ids.contains(&child) || ids.len() > 64 {
            break;
        }
        ids.push(child);
    }
    if ids.len() < 2 {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for id in ids {
        let refined_by = rounds.next(&id)?;
        let Some(ledger) = rounds.ledger(&id)? else {
            continue;
        };
        let refined = ledger
            .events_of(&id)
            .iter()
            .rev()
            .find(|e| e.event == EventKind::Refined);
        let check = git_papayu::engine::compare::last_check(ledger, &id);
        out.push(Link {
            status: ledger.status(&id),
            refined_by,
            feedback: refined.and_then(|e| e.feedback.clone()),
            check: (check.status != CheckStatus::Unchecked).then(|| check.line()),
            id,
        });
    }
    Ok(out)
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
/// Who made the plan, as a claim: the identity its record names, else (a record made before
/// records named one) the author of the notes commit that brought the record in.
fn made_by(store: &Store, record: &PlanRecord) -> Option<String> {
    if let Some(by) = &record.by {
        return Some(by.clone());
    }
    let hash = git_papayu::store::records::line_hash(&record.to_line());
    store
        .line_origin(record.base, &hash)
        .map(|origin| git_papayu::context::mask_secrets(&origin.author))
}

#[expect(clippy::too_many_lines, reason = "older than the limit; to be split")]
pub fn describe(
    record: &PlanRecord,
    status: Option<Status>,
    events: &[Event],
    by: Option<&str>,
) -> String {
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
        out.push_str(&format!("Model: {}\n", provider_label(record)));
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
    if !events.is_empty() {
        out.push_str("History:\n");
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
    }
    out
}

/// `provider:model`, or the provider alone.
pub fn provider_label(record: &PlanRecord) -> String {
    match &record.model {
        Some(model) => format!("{}:{model}", record.provider),
        None => record.provider.clone(),
    }
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
