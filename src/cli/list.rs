//! `git papayu list`: every plan with its status.

use clap::Args;
use std::collections::BTreeSet;

use git_papayu::store::records::{Ledger, PlanRecord, now_millis};
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
    for r in &records {
        let status = ledger.status(&r.id);
        let place = ledger.branch(&r.id).map_or_else(
            || format!("base {}", r.base.get(..10).unwrap_or(&r.base)),
            |b| text::line(b).into_owned(),
        );
        let provider = super::show::provider_label(r);
        let cost = r.stats.as_ref().map_or_else(String::new, |s| {
            format!(
                "  {}→{} tok, {} cached, {:.1}s",
                s.input_tokens,
                s.output_tokens,
                s.cached_tokens,
                s.latency_ms as f64 / 1000.0
            )
        });
        ui::outln(&format!(
            "{}  {:<9}  {:>8}  {:<8}  {}  ({place}){cost}",
            r.short_id(),
            status.as_str(),
            render::age(r.created_at, now),
            text::line(&provider),
            text::line(&r.goal_line()),
        ));
    }
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
