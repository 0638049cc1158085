//! One plan in full, as `git papayu show` renders it and `show --json` and the MCP tool
//! `papayu_show` give it: its record, status and history, its newest check and who vouched for
//! it, the claims shared notes make about it, its group and its refinement chain.

use std::collections::HashMap;

use serde::Serialize;

use crate::codes::Problem;
use crate::engine::compare::{self, ClaimedCheck};
use crate::engine::find::{find, refined_by};
use crate::engine::workers::pending::{self, Remote};
use crate::store::index::PlanIndex;
use crate::store::records::{Event, EventKind, Ledger, PlanRecord, Status};
use crate::store::{Store, proposals};
use crate::verdict::{CheckStatus, Verdict};

use super::Service;

/// A refinement chain longer than this is cut: rounds are capped far below it.
const CHAIN_LIMIT: usize = 64;

/// One plan, everything `show` says of it.
#[derive(Debug, Clone, Serialize)]
pub struct PlanView {
    pub plan: PlanRecord,
    /// Whether the record hashes to its id (always true for a record read here).
    pub verified: bool,
    pub status: Status,
    pub branch: Option<String>,
    pub events: Vec<Event>,
    /// Undo and redo events shared notes carry that no operation here made: shown, not in effect.
    pub claims: Vec<Event>,
    /// The newest check in effect (this clone's, or a trusted worker's).
    pub check: Verdict,
    /// The trusted worker that ran [`PlanView::check`], when one did.
    pub checked_by: Option<String>,
    /// A check asked of workers and not yet answered.
    pub remote_check: Option<Remote>,
    /// Verdicts from shared notes nobody here vouches for.
    pub claimed_checks: Vec<ClaimedCheck>,
    pub group: Option<Group>,
    /// Who made the plan, as a claim.
    pub by: Option<String>,
    /// Published branches (`origin/papayu/…`) that hold the plan's proposal.
    pub remote_branches: Vec<String>,
    /// The refinement chain the plan is part of, oldest first; empty when it has none.
    pub chain: Vec<Link>,
}

/// The proposals one command made on one base.
#[derive(Debug, Clone, Serialize)]
pub struct Group {
    pub id: String,
    /// Oldest first.
    pub plans: Vec<String>,
    /// What they cost in all; `None` when none was priced.
    pub cost_usd: Option<f64>,
}

/// One plan of a refinement chain.
#[derive(Debug, Clone, Serialize)]
pub struct Link {
    pub plan: String,
    pub status: Status,
    pub refined_by: Option<String>,
    /// The feedback the refinement addressed.
    pub feedback: Option<String>,
    /// Its newest check, as `show` says it (`failed: fixes 1, breaks 1, …`), when one ran.
    pub check: Option<String>,
}

/// The plan `spec` names (an id prefix or a proposal branch; `None`: the newest on HEAD).
pub fn show(service: &Service<'_>, spec: Option<&str>) -> Result<PlanView, Problem> {
    let store = service.store;
    let (ledger, record) = find(store, spec)?;
    let id = &record.id;
    Ok(PlanView {
        verified: record.verified,
        status: ledger.status(id),
        branch: ledger.branch(id).map(str::to_string),
        events: ledger.events_of(id).to_vec(),
        claims: ledger.claims.get(id).cloned().unwrap_or_default(),
        check: compare::last_check(&ledger, id),
        checked_by: compare::last_check_by(&ledger, id),
        remote_check: pending::remote_states(store, &ledger).remove(id),
        claimed_checks: compare::claimed_checks(store, &ledger, id),
        group: group_of(store, &record)?,
        by: made_by(store, &record),
        remote_branches: store.remote_proposals()?.remove(id).unwrap_or_default(),
        chain: chain(store, id)?,
        plan: record,
    })
}

/// The plan's group; `None` for a plan made alone. One command made them all on one base: only
/// the lines of that base's note that name the group are read.
fn group_of(store: &Store, record: &PlanRecord) -> Result<Option<Group>, Problem> {
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
    Ok(Some(Group {
        id: group.clone(),
        plans: members.iter().map(|r| r.id.clone()).collect(),
        cost_usd: (!costs.is_empty()).then(|| costs.iter().sum::<f64>()),
    }))
}

/// Who made the plan, as a claim: the identity its record names, else (a record made before
/// records named one) the author of the notes commit that brought the record in.
fn made_by(store: &Store, record: &PlanRecord) -> Option<String> {
    if let Some(by) = &record.by {
        return Some(by.clone());
    }
    let hash = crate::store::records::line_hash(&record.to_line());
    store
        .line_origin(record.base, &hash)
        .map(|origin| crate::context::mask_secrets(&origin.author))
}

/// The refinement chain a plan is part of, oldest first (empty when it is not refined and
/// refines nothing): each plan, its status, its refinement and the feedback that refinement
/// addressed.
fn chain(store: &Store, id: &str) -> Result<Vec<Link>, Problem> {
    let mut rounds = Rounds::new(store)?;
    let ids = rounds.ids(id)?;
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
        let check = compare::last_check(ledger, &id);
        out.push(Link {
            status: ledger.status(&id),
            refined_by,
            feedback: refined.and_then(|e| e.feedback.clone()),
            check: (check.status != CheckStatus::Unchecked).then(|| check.line()),
            plan: id,
        });
    }
    Ok(out)
}

/// Reads the plans of a refinement chain one at a time, each from the notes about it alone
/// (through the plan index), so a chain costs what its plans cost, not what the notes hold.
struct Rounds<'s> {
    store: &'s Store,
    index: PlanIndex,
    read: HashMap<String, Option<Ledger>>,
}

impl<'s> Rounds<'s> {
    fn new(store: &'s Store) -> Result<Rounds<'s>, Problem> {
        Ok(Rounds {
            store,
            index: store.plan_index()?,
            read: HashMap::new(),
        })
    }

    /// The ids of the chain through `id`, oldest first.
    fn ids(&mut self, id: &str) -> Result<Vec<String>, Problem> {
        let mut ids = vec![id.to_string()];
        while let Some(parent) = self.previous(&ids[0])? {
            if ids.contains(&parent) || ids.len() > CHAIN_LIMIT {
                break;
            }
            ids.insert(0, parent);
        }
        while let Some(child) = match ids.last() {
            Some(last) => self.next(&last.clone())?,
            None => None,
        } {
            if ids.contains(&child) || ids.len() > CHAIN_LIMIT {
                break;
            }
            ids.push(child);
        }
        Ok(ids)
    }

    /// The ledger exact for plan `id`, `None` when it has no record in effect.
    fn ledger(&mut self, id: &str) -> Result<Option<&Ledger>, Problem> {
        if !self.read.contains_key(id) {
            let ledger = self.store.ledger_about(&self.index, id)?;
            let found = ledger.records.iter().any(|r| r.id == id);
            self.read.insert(id.to_string(), found.then_some(ledger));
        }
        Ok(self.read.get(id).and_then(Option::as_ref))
    }

    /// The plan refined from `id`: the one its `refined` event names, or — when its check
    /// failed and a round went on from the commit that failed (`refine` of a failed plan,
    /// `--rounds`) — the plan of the same goal asked on that commit.
    fn next(&mut self, id: &str) -> Result<Option<String>, Problem> {
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
    fn previous(&mut self, id: &str) -> Result<Option<String>, Problem> {
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
        let Some(parent) = proposals::trailer_plan(&message) else {
            return Ok(None);
        };
        let parent = parent.to_string();
        Ok((self.next(&parent)?.as_deref() == Some(id)).then_some(parent))
    }
}
