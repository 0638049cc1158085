//! `git papayu list`: every plan with its status.

use clap::Args;
use std::collections::BTreeSet;

use git_papayu::store::records::{Ledger, PlanRecord, Status, now_millis};
use git_papayu::store::{Oid, Store};

use super::{CliResult, render, text, ui};

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
    let (ledger, records, complete) = newest(&store, (!all).then_some(max_count))?;
    let now = now_millis();
    let rows: Vec<serde_json::Value> = records
        .iter()
        .map(|r| {
            serde_json::json!({
                "id": r.id,
                "short_id": r.short_id(),
                "status": ledger.status(&r.id),
                "base": r.base,
                "branch": ledger.branch(&r.id),
                "created_at": r.created_at,
                "provider": r.provider,
                "goal": r.goal,
                "actions": r.plan.actions.len(),
                "model": r.model,
                "stats": r.stats,
                "check": ledger.last_event(&r.id).and_then(|e| e.exit_code),
            })
        })
        .collect();
    ui::data(&serde_json::json!({ "plans": rows, "complete": complete }));
    if records.is_empty() {
        ui::status("no plans yet; make one with git papayu plan \"goal\"");
        return Ok(());
    }
    ui::paged();
    let table: Vec<Row> = records
        .iter()
        .map(|r| Row {
            id: r.short_id().to_string(),
            status: ledger.status(&r.id),
            age: render::age(r.created_at, now),
            check: ledger.last_event(&r.id).and_then(|e| e.exit_code),
            provider: text::line(&super::show::provider_label(r)).into_owned(),
            place: ledger.branch(&r.id).map_or_else(
                || format!("base {}", r.base.get(..10).unwrap_or(&r.base)),
                |b| text::line(b).into_owned(),
            ),
            goal: text::line(r.goal.lines().next().unwrap_or("").trim()).into_owned(),
        })
        .collect();
    ui::out_painted(&render_table(&table, ui::columns()));
    if !complete {
        ui::status(&format!(
            "the newest {} plans; git papayu list --all lists every plan",
            records.len()
        ));
    }
    Ok(())
}

/// The newest `limit` plans (all when `None`), newest first, with a ledger exact for each of
/// them, and whether that is every plan. Only the notes about those plans are read.
fn newest(
    store: &Store,
    limit: Option<usize>,
) -> Result<(Ledger, Vec<PlanRecord>, bool), git_papayu::Problem> {
    let index = store.plan_index()?;
    let everything = |store: &Store| -> Result<_, git_papayu::Problem> {
        let ledger = store.ledger()?;
        let mut records: Vec<PlanRecord> = ledger.records.iter().rev().cloned().collect();
        let complete = limit.is_none_or(|n| records.len() <= n);
        records.truncate(limit.unwrap_or(usize::MAX));
        Ok((ledger, records, complete))
    };
    let Some(limit) = limit.filter(|n| index.len() > *n) else {
        return everything(store);
    };
    // Some of the newest may have been undone: look at a few more than needed.
    let wanted: Vec<&str> = index.newest(limit + limit / 2 + 8);
    let mut objects = BTreeSet::new();
    for id in &wanted {
        match index.carriers(id) {
            Some(carriers) => objects.extend(carriers),
            None => return everything(store),
        }
    }
    let objects: Vec<Oid> = objects.into_iter().collect();
    let ledger = store.ledger_of(&objects)?;
    let mut records: Vec<PlanRecord> = ledger
        .records
        .iter()
        .rev()
        .filter(|r| wanted.contains(&r.id.as_str()))
        .cloned()
        .collect();
    if records.len() < limit {
        return everything(store);
    }
    records.truncate(limit);
    Ok((ledger, records, false))
}

/// One plan as `list` shows it; every field is already safe to print.
struct Row {
    id: String,
    status: Status,
    age: String,
    check: Option<i32>,
    provider: String,
    place: String,
    goal: String,
}

/// A branch column is not made narrower than this.
const MIN_BRANCH: usize = 12;

/// A goal shorter than this is not truncated further, even on a narrow terminal.
const MIN_GOAL: usize = 16;

/// The table, each column as wide as its widest cell and the goal last; on a terminal
/// (`columns`) under a header row, and cut with `…` to fit; statuses and checks coloured when
/// stdout is.
fn render_table(rows: &[Row], columns: Option<usize>) -> String {
    let check = |c: Option<i32>| match c {
        None => "-".to_string(),
        Some(0) => "passed".to_string(),
        Some(code) => format!("exit {code}"),
    };
    let header = [
        "PLAN", "STATUS", "AGE", "CHECK", "PROVIDER", "BRANCH", "GOAL",
    ];
    let cells: Vec<[String; 6]> = rows
        .iter()
        .map(|r| {
            [
                r.id.clone(),
                r.status.as_str().to_string(),
                r.age.clone(),
                check(r.check),
                r.provider.clone(),
                r.place.clone(),
            ]
        })
        .collect();
    let mut widths: Vec<usize> = header[..6].iter().map(|h| h.chars().count()).collect();
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
        widths[5] = widths[5].saturating_sub(over).max(MIN_BRANCH);
    }
    let goal_room = columns.map(|c| c.saturating_sub(fixed(&widths)).max(MIN_GOAL));
    let line = |cells: [String; 6], goal: &str, colour: [Option<&str>; 2]| {
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
        let head: [String; 6] = std::array::from_fn(|i| header[i].to_string());
        out.push_str(&line(head, header[6], [None, None]));
    }
    for (row, cells) in rows.iter().zip(cells) {
        let check_colour = match row.check {
            None => None,
            Some(0) => Some("green"),
            Some(_) => Some("red"),
        };
        out.push_str(&line(
            cells,
            &row.goal,
            [Some(render::status_colour(row.status)), check_colour],
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
