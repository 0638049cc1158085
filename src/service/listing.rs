//! The newest plans with their status, as `git papayu list` renders them and `list --json` and
//! the MCP tool `papayu_list` give them. With many plans stored, only the notes about the plans
//! listed are read.

use std::collections::{BTreeSet, HashSet};

use serde::Serialize;

use crate::codes::Problem;
use crate::engine::compare;
use crate::engine::workers::pending::{self, Remote};
use crate::store::records::{Ledger, PlanRecord, PlanStats, Status};
use crate::store::{Oid, Store};
use crate::verdict::{CheckStatus, Verdict};

use super::Service;

/// The plans listed, newest first.
#[derive(Debug, Serialize)]
pub struct Listing {
    pub plans: Vec<Row>,
    /// Whether these are every plan stored (false when a limit cut the list).
    pub complete: bool,
    /// The ledger the rows were read from: exact for every plan listed.
    #[serde(skip)]
    pub ledger: Ledger,
    /// The records listed, in the rows' order.
    #[serde(skip)]
    pub records: Vec<PlanRecord>,
}

/// One plan of the list.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub id: String,
    pub short_id: String,
    pub status: Status,
    pub base: String,
    pub branch: Option<String>,
    pub created_at: i64,
    pub provider: String,
    pub goal: String,
    pub actions: usize,
    pub model: Option<String>,
    pub stats: Option<PlanStats>,
    /// The exit status of the plan's newest event, when this clone vouches for its verdict.
    pub check: Option<i32>,
    /// The newest check verdict, when a check judged the plan against its base.
    pub verdict: Option<Verdict>,
    pub group: Option<String>,
    pub cost_usd: Option<f64>,
    /// Who made the plan, as its record claims.
    pub by: Option<String>,
    /// Published branches (`origin/papayu/…`) holding the plan's proposal.
    pub remote_branches: Vec<String>,
    /// A check asked of workers and not answered yet.
    pub remote_check: Option<Remote>,
}

/// The newest `limit` plans (every plan when `None`), newest first.
pub fn list(service: &Service<'_>, limit: Option<usize>) -> Result<Listing, Problem> {
    let store = service.store;
    let (ledger, records, complete) = newest(store, limit)?;
    let mut remote = store.remote_proposals()?;
    let mut remote_checks = pending::remote_states(store, &ledger);
    let plans = records
        .iter()
        .map(|r| Row {
            id: r.id.clone(),
            short_id: r.short_id().to_string(),
            status: ledger.status(&r.id),
            base: r.base.to_string(),
            branch: ledger.branch(&r.id).map(str::to_string),
            created_at: r.created_at,
            provider: r.provider.clone(),
            goal: r.goal.clone(),
            actions: r.plan.actions.len(),
            model: r.model.clone(),
            stats: r.stats.clone(),
            check: vouched_exit(&ledger, &r.id),
            verdict: verdict_of(&ledger, &r.id),
            group: r.group.clone(),
            cost_usd: r.stats.as_ref().and_then(|s| s.cost_usd),
            by: r.by.clone(),
            remote_branches: remote.remove(&r.id).unwrap_or_default(),
            remote_check: remote_checks.remove(&r.id),
        })
        .collect();
    Ok(Listing {
        plans,
        complete,
        ledger,
        records,
    })
}

/// The newest check verdict of a plan, when a check judged it against its base.
pub fn verdict_of(ledger: &Ledger, id: &str) -> Option<Verdict> {
    let verdict = compare::last_check(ledger, id);
    (verdict.status != CheckStatus::Unchecked).then_some(verdict)
}

/// The exit status of the plan's newest event, when this clone vouches for that event's verdict:
/// a teammate's exit status is a claim, as their verdict is.
fn vouched_exit(ledger: &Ledger, id: &str) -> Option<i32> {
    ledger
        .last_event(id)
        .filter(|e| e.vouched.is_some())
        .and_then(|e| e.exit_code)
}

/// The newest `limit` plans (all when `None`), newest first, with a ledger exact for each of
/// them, and whether that is every plan. Only the notes about those plans are read.
fn newest(store: &Store, limit: Option<usize>) -> Result<(Ledger, Vec<PlanRecord>, bool), Problem> {
    let index = store.plan_index()?;
    let Some(limit) = limit.filter(|n| index.len() > *n) else {
        return everything(store, limit);
    };
    // Some of the newest may have been undone: look at a few more than needed.
    let wanted: Vec<&str> = index.newest(limit + limit / 2 + 8);
    let mut objects = BTreeSet::new();
    for id in &wanted {
        match index.reading(id) {
            Some(reading) => objects.extend(reading.objects(id)),
            None => return everything(store, Some(limit)),
        }
    }
    let objects: Vec<Oid> = objects.into_iter().collect();
    let ids: HashSet<&str> = wanted.iter().copied().collect();
    let ledger = store.ledger_of_plans(&objects, &ids)?;
    let mut records: Vec<PlanRecord> = ledger
        .records
        .iter()
        .rev()
        .filter(|r| wanted.contains(&r.id.as_str()))
        .cloned()
        .collect();
    if records.len() < limit {
        return everything(store, Some(limit));
    }
    records.truncate(limit);
    Ok((ledger, records, false))
}

/// The newest `limit` plans read from the whole ledger.
fn everything(
    store: &Store,
    limit: Option<usize>,
) -> Result<(Ledger, Vec<PlanRecord>, bool), Problem> {
    let ledger = store.ledger()?;
    let mut records: Vec<PlanRecord> = ledger.records.iter().rev().cloned().collect();
    let complete = limit.is_none_or(|n| records.len() <= n);
    records.truncate(limit.unwrap_or(usize::MAX));
    Ok((ledger, records, complete))
}
