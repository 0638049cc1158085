//! `git papayu list`: every plan with its status.

use clap::Args;
use git_papayu::store::Store;
use git_papayu::store::records::now_millis;

use super::{CliResult, render, text, ui};

/// List plans, newest first, with status, age, provider, goal and branch (or base).
#[derive(Debug, Args)]
pub struct ListArgs {}

pub fn run(args: ListArgs) -> CliResult {
    let ListArgs {} = args;
    let store = Store::open()?;
    let ledger = store.ledger()?;
    let now = now_millis();
    let rows: Vec<serde_json::Value> = ledger
        .records
        .iter()
        .rev()
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
    ui::data(&serde_json::json!({ "plans": rows }));
    if ledger.records.is_empty() {
        ui::status("no plans yet; make one with git papayu plan \"goal\"");
        return Ok(());
    }
    ui::paged();
    for r in ledger.records.iter().rev() {
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
    Ok(())
}
