//! `git papayu list`: every plan with its status.

use clap::Args;

use git_papayu::service::listing;
use git_papayu::store::Store;
use git_papayu::store::records::{EventKind, Ledger, PlanRecord, Status, now_millis};
use git_papayu::verdict::CheckStatus;

use super::{CliResult, observer, render, text, ui};

/// List plans, newest first, with status, age, provider, goal and branch (or base).
///
/// Shows the newest 50 unless told otherwise: with many plans stored, only their notes are read.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Show at most this many plans.
    #[arg(short = 'n', long, value_name = "N", default_value_t = 50)]
    max_count: usize,
    /// Show every plan.
    #[arg(long, conflicts_with = "max_count")]
    all: bool,
}

pub fn run(args: ListArgs) -> CliResult {
    let ListArgs { max_count, all } = args;
    let store = Store::open()?;
    let config = super::settings();
    let listing = listing::list(
        &observer::service(&store, &config),
        (!all).then_some(max_count),
    )?;
    ui::data(&listing);
    let (records, complete) = (&listing.records, listing.complete);
    if records.is_empty() {
        ui::status("no plans yet; make one with git papayu plan \"goal\"");
        return Ok(());
    }
    ui::paged();
    let me = store.user_identity();
    let now = now_millis();
    let table: Vec<Row> = listing
        .plans
        .iter()
        .zip(records)
        .map(|(row, r)| Row {
            id: row.short_id.clone(),
            status: row.status,
            age: render::age(r.created_at, now),
            check: match (&row.remote_check, check_cell(&listing.ledger, r)) {
                (Some(asked), (_, None)) => (asked.cell(), Some("yellow")),
                (_, cell) => cell,
            },
            cost: row.cost_usd,
            provider: text::line(&git_papayu::present::provider_label(r)).into_owned(),
            by: teammate(r, me.as_deref()).map(|who| text::line(name_of(who)).into_owned()),
            place: row
                .branch
                .as_deref()
                .or_else(|| row.remote_branches.first().map(String::as_str))
                .map_or_else(
                    || format!("base {}", git_papayu::store::short(r.base)),
                    |b| text::line(b).into_owned(),
                ),
            goal: text::line(r.goal.lines().next().unwrap_or("").trim()).into_owned(),
        })
        .collect();
    ui::out_painted(&render_table(&table, ui::columns()));
    for line in group_costs(records) {
        ui::outln(&line);
    }
    if !complete {
        let newest = match records.len() {
            1 => "the newest plan".to_string(),
            n => format!("the newest {n} plans"),
        };
        ui::status(&format!("{newest}; git papayu list --all lists every plan"));
    }
    Ok(())
}

/// Who made `record`, when it was someone else than `me`: a teammate's plan, through the notes.
pub fn teammate<'a>(record: &'a PlanRecord, me: Option<&str>) -> Option<&'a str> {
    record.by.as_deref().filter(|by| Some(*by) != me)
}

/// The name part of `Name <email>`.
fn name_of(identity: &str) -> &str {
    identity
        .split_once(" <")
        .map_or(identity, |(name, _)| name)
        .trim()
}

/// A reproduction's CHECK cell: `reproduces N` (its tests that fail at the base), or
/// `no repro` when its run showed no failing test; `None` for a fix.
fn repro_cell(ledger: &Ledger, record: &PlanRecord) -> Option<(String, Option<&'static str>)> {
    record.kind?;
    let event = ledger
        .events_of(&record.id)
        .iter()
        .rev()
        .find(|e| matches!(e.event, EventKind::Applied | EventKind::Failed))?;
    Some(match (event.event, event.check.as_deref()) {
        (EventKind::Applied, Some(v)) => (format!("reproduces {}", v.broken.len()), Some("green")),
        _ => ("no repro".to_string(), Some("yellow")),
    })
}

/// The CHECK cell: the verdict (`partial 1/0/2`: fixes/breaks/still failing), else `passed`
/// or the failed check's exit status, with its colour. A refined plan shows its newest
/// refinement's: the check of what its branch holds now, not its own first failure.
fn check_cell(ledger: &Ledger, record: &PlanRecord) -> (String, Option<&'static str>) {
    if let Some(cell) = repro_cell(ledger, record) {
        return cell;
    }
    let id = newest_refinement(ledger, &record.id);
    let id = id.as_str();
    // Judged test by test: the verdict; by its exit status alone, the exit status as ever.
    let verdict = listing::verdict_of(ledger, id);
    if verdict
        .as_ref()
        .is_some_and(|v| v.status == CheckStatus::DidNotRun)
    {
        return ("did not run".to_string(), Some("red"));
    }
    if let Some(v) = verdict.clone().filter(|v| v.fixes.is_some()) {
        let colour = match v.status {
            CheckStatus::Passed => "green",
            CheckStatus::Partial => "yellow",
            CheckStatus::Unchecked => "normal",
            CheckStatus::Failed | CheckStatus::DidNotRun => "red",
        };
        return (v.cell(), Some(colour));
    }
    let exit = ledger.events_of(id).iter().rev().find_map(|e| {
        (e.event == EventKind::Failed && e.vouched.is_some())
            .then_some(e.exit_code)
            .flatten()
    });
    match (verdict.map(|v| v.status), exit) {
        (Some(CheckStatus::Passed), _) => ("passed".to_string(), Some("green")),
        (Some(_), Some(code)) => (format!("exit {code}"), Some("red")),
        (Some(status), None) => (status.as_str().to_string(), Some("red")),
        (None, _) => ("-".to_string(), None),
    }
}

/// The plan a refined plan's proposal is now: its newest refinement (itself when not refined).
fn newest_refinement(ledger: &Ledger, id: &str) -> String {
    let mut current = id.to_string();
    // A chain is a few refinements; the bound only guards against a cycle in forged notes.
    for _ in 0..64 {
        if ledger.status(&current) != Status::Refined {
            break;
        }
        match git_papayu::engine::find::refined_by(ledger, &current) {
            Some(next) => current = next,
            None => break,
        }
    }
    current
}

/// `group g…: 3 proposals, $0.0123 in all`, for each group of more than one listed plan with a
/// price, oldest group first.
fn group_costs(records: &[PlanRecord]) -> Vec<String> {
    let mut groups: Vec<(&str, usize, f64)> = Vec::new();
    for r in records.iter().rev() {
        let (Some(group), Some(cost)) = (
            r.group.as_deref(),
            r.stats.as_ref().and_then(|s| s.cost_usd),
        ) else {
            continue;
        };
        match groups.iter_mut().find(|g| g.0 == group) {
            Some(g) => {
                g.1 += 1;
                g.2 += cost;
            }
            None => groups.push((group, 1, cost)),
        }
    }
    groups
        .into_iter()
        .filter(|g| g.1 > 1)
        .map(|(group, n, cost)| {
            format!(
                "group {group}: {n} proposals, {} in all",
                git_papayu::cost::usd(cost)
            )
        })
        .collect()
}

/// One plan as `list` shows it; every field is already safe to print.
struct Row {
    id: String,
    status: Status,
    age: String,
    /// The CHECK cell and its colour.
    check: (String, Option<&'static str>),
    /// What asking for the plan cost, when priced: a COST column when any row has one.
    cost: Option<f64>,
    provider: String,
    /// A teammate's name, for a plan someone else made: a BY column when any row has one.
    by: Option<String>,
    place: String,
    goal: String,
}

/// A branch column is not made narrower than this.
const MIN_BRANCH: usize = 12;

/// A goal shorter than this is not truncated further, even on a narrow terminal.
const MIN_GOAL: usize = 16;

/// The table, each column as wide as its widest cell and the goal last; on a terminal
/// (`columns`) under a header row, and cut with `…` to fit; statuses and checks coloured when
/// stdout is. A COST column comes after PROVIDER when any plan has a cost.
fn render_table(rows: &[Row], columns: Option<usize>) -> String {
    let costs = rows.iter().any(|r| r.cost.is_some());
    let teammates = rows.iter().any(|r| r.by.is_some());
    let mut header = vec!["PLAN", "STATUS", "AGE", "CHECK", "PROVIDER"];
    if costs {
        header.push("COST");
    }
    if teammates {
        header.push("BY");
    }
    header.push("BRANCH");
    let branch_col = header.len() - 1;
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let mut cells = vec![
                r.id.clone(),
                r.status.as_str().to_string(),
                r.age.clone(),
                r.check.0.clone(),
                r.provider.clone(),
            ];
            if costs {
                cells.push(r.cost.map_or("-".to_string(), git_papayu::cost::usd));
            }
            if teammates {
                cells.push(r.by.clone().unwrap_or_else(|| "-".to_string()));
            }
            cells.push(r.place.clone());
            cells
        })
        .collect();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in &cells {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    // On a narrow terminal the branch column gives way first (branch names repeat the goal),
    // then the goal.
    let fixed = |widths: &[usize]| widths.iter().map(|w| w + 2).sum::<usize>();
    if let Some(columns) = columns {
        let over = (fixed(&widths) + MIN_GOAL).saturating_sub(columns);
        widths[branch_col] = widths[branch_col].saturating_sub(over).max(MIN_BRANCH);
    }
    let goal_room = columns.map(|c| c.saturating_sub(fixed(&widths)).max(MIN_GOAL));
    let line = |cells: &[String], goal: &str, colour: [Option<&str>; 2]| {
        let mut out = String::new();
        for (i, (cell, w)) in cells.iter().zip(&widths).enumerate() {
            // Padding is counted on the plain text, then the cell is coloured; AGE is
            // right-aligned.
            let cell = fit(cell, Some(*w));
            let pad = " ".repeat(w - cell.chars().count());
            let painted = match (i, colour) {
                (1, [Some(c), _]) | (3, [_, Some(c)]) => ui::paint(c, &cell),
                _ => cell,
            };
            match i {
                2 => out.push_str(&format!("{pad}{painted}  ")),
                _ => out.push_str(&format!("{painted}{pad}  ")),
            }
        }
        out.push_str(&fit(goal, goal_room));
        format!("{}\n", out.trim_end())
    };
    let mut out = String::new();
    // The header is for a reader: a pipe gets one line per plan (`list | head -1`).
    if columns.is_some() {
        let head: Vec<String> = header.iter().map(|h| h.to_string()).collect();
        out.push_str(&line(&head, "GOAL", [None, None]));
    }
    for (row, cells) in rows.iter().zip(cells) {
        out.push_str(&line(
            &cells,
            &row.goal,
            [Some(render::status_colour(row.status)), row.check.1],
        ));
    }
    out
}

/// `text` cut to `room` characters, the last one `…`, when it is longer.
fn fit(text: &str, room: Option<usize>) -> String {
    match room {
        Some(room) if text.chars().count() > room => {
            let kept: String = text.chars().take(room.saturating_sub(1)).collect();
            format!("{kept}…")
        }
        _ => text.to_string(),
    }
}
