//! Which plan a command is about, and where it applies: a plan named by id or branch, the
//! newest plan on `HEAD` (its own or one a rewrite carried over), or the plan `HEAD` carries
//! out after a merge.

use crate::codes::{Code, Problem};
use crate::store::oplog;
use crate::store::records::{
    EventKind, Ledger, PlanRecord, Status, now_millis, one_of, spec_prefix,
};
use crate::store::{Oid, Store, StoreError};

/// Finds the plan a command is about: the one named (an id prefix or a proposal branch); else
/// the newest plan on `HEAD`; else the plan `HEAD` itself carries out (a merged proposal's
/// `Papayu-Plan:` trailer, on `HEAD` or on the merged side of a merge commit).
///
/// Only the notes that concern it are read (found through the plan index), so the cost does not
/// grow with the number of plans stored. The ledger returned is exact for that plan — its
/// record, events, status and copies — and holds every local proposal branch.
pub fn find(store: &Store, spec: Option<&str>) -> Result<(Ledger, PlanRecord), Problem> {
    find_explained(store, spec).map(|(ledger, record, _)| (ledger, record))
}

/// [`find`], and when no plan was named, one sentence saying which plan was chosen and why.
pub fn find_explained(
    store: &Store,
    spec: Option<&str>,
) -> Result<(Ledger, PlanRecord, Option<String>), Problem> {
    let index = store.plan_index()?;
    let about = |id: &str| -> Result<Option<(Ledger, PlanRecord)>, Problem> {
        let ledger = store.ledger_about(&index, id)?;
        let record = ledger.records.iter().find(|r| r.id == id).cloned();
        Ok(record.map(|r| (ledger, r)))
    };
    if let Some(spec) = spec {
        let prefix = spec_prefix(spec)?;
        let mut found = Vec::new();
        for id in index.ids_with_prefix(&prefix) {
            found.extend(about(id)?);
        }
        let records: Vec<&PlanRecord> = found.iter().map(|(_, r)| r).collect();
        let i = one_of(&prefix, &records)?;
        let (ledger, record) = found.swap_remove(i);
        let (ledger, record) = follow_refinements(&about, ledger, record)?;
        return Ok((ledger, record, None));
    }
    let head = head_commit(store)?;
    // The plans on HEAD are on HEAD's own note, copies included.
    let on_head = store.plans_on(&[head])?;
    let candidates: Vec<&PlanRecord> = on_head
        .records
        .iter()
        .filter(|r| on_head.is_on(r, head))
        .collect();
    if let Some((id, why)) = newest(store, &candidates)?
        && let Some((ledger, record)) = about(&id)?
    {
        let (ledger, record) = follow_refinements(&about, ledger, record)?;
        return Ok((ledger, record, Some(why)));
    }
    for id in carried_out(store, head)? {
        if let Some((ledger, record)) = about(&id)? {
            let why = format!(
                "plan {} is the plan HEAD carries out (its Papayu-Plan: trailer)",
                record.short_id()
            );
            return Ok((ledger, record, Some(why)));
        }
    }
    Err(no_plan_on_head())
}

/// Reads the ledger exact for one plan, and its record (`None` when no note holds it).
type About<'a> = dyn Fn(&str) -> Result<Option<(Ledger, PlanRecord)>, Problem> + 'a;

/// The proposal a plan stands for: the plan itself while it has its branch, else — when it was
/// refined — the refinement that carries the branch now, followed through every refinement
/// (a refined proposal's branch tip belongs to its newest refinement).
fn follow_refinements(
    about: &About<'_>,
    ledger: Ledger,
    record: PlanRecord,
) -> Result<(Ledger, PlanRecord), Problem> {
    let mut current = (ledger, record);
    // A chain is a few refinements; the bound only guards against a cycle in forged notes.
    for _ in 0..64 {
        let (ledger, record) = &current;
        if ledger.proposal(&record.id).is_some() {
            break;
        }
        let Some(next) = refined_by(ledger, &record.id) else {
            break;
        };
        match about(&next)? {
            Some(found) => current = found,
            None => break,
        }
    }
    Ok(current)
}

/// The plan's refinement, from its newest `refined` event (an undone refinement's event is
/// cancelled and not listed).
pub fn refined_by(ledger: &Ledger, id: &str) -> Option<String> {
    ledger
        .events_of(id)
        .iter()
        .rev()
        .find(|e| e.event == EventKind::Refined)
        .and_then(|e| e.detail.clone())
        .filter(|child| child != id)
}

/// The newest of `candidates` by local evidence: a plan this clone's operation log made wins
/// over any from shared notes, whatever their `created_at` says; a teammate's time counts no
/// later than the notes' newest commit (and now), so a record dated in the future cannot win.
fn newest(store: &Store, candidates: &[&PlanRecord]) -> Result<Option<(String, String)>, Problem> {
    let [first, ..] = candidates else {
        return Ok(None);
    };
    let here = oplog::plans_made_here(store)?;
    let ceiling = store.notes_time()?.min(now_millis());
    let chosen = candidates
        .iter()
        .max_by_key(|r| {
            let local = here.contains(&r.id);
            let at = if local {
                r.created_at
            } else {
                r.created_at.min(ceiling)
            };
            (local, at, r.id.as_str())
        })
        .unwrap_or(first);
    let why = match (here.contains(&chosen.id), candidates.len()) {
        (true, 1) => format!("plan {} is the only plan on HEAD", chosen.short_id()),
        (true, n) => format!(
            "plan {} is the newest plan on HEAD made in this clone ({n} plans on HEAD in all)",
            chosen.short_id()
        ),
        (false, 1) => format!(
            "plan {} is the only plan on HEAD; it comes from shared notes, not from this clone",
            chosen.short_id()
        ),
        (false, n) => format!(
            "plan {} is the newest of {n} plans on HEAD, none made in this clone (times from \
             shared notes count no later than the notes' last commit)",
            chosen.short_id()
        ),
    };
    Ok(Some((chosen.id.clone(), why)))
}

fn head_commit(store: &Store) -> Result<Oid, Problem> {
    store.resolve_commit("HEAD").map_err(|_| {
        Problem::new(
            Code::PlanNotFound,
            "HEAD has no commit, so it has no plan; name one (git papayu list)",
        )
    })
}

fn no_plan_on_head() -> Problem {
    Problem::new(
        Code::PlanNotFound,
        "no plan on HEAD; name one (git papayu list)",
    )
}

/// The plans `HEAD` carries out: the `Papayu-Plan:` trailer of `HEAD`, or of the merged side
/// of a merge commit.
fn carried_out(store: &Store, head: Oid) -> Result<Vec<String>, Problem> {
    let mut carriers = vec![head];
    carriers.extend(store.commit_parents(head)?.get(1).copied());
    let mut ids = Vec::new();
    for carrier in carriers {
        let message = store.commit_message(carrier)?;
        ids.extend(
            message
                .lines()
                .rev()
                .find_map(|l| l.strip_prefix("Papayu-Plan:"))
                .map(|id| id.trim().to_string()),
        );
    }
    Ok(ids)
}

/// Ids of the plans based on `HEAD` whose status is `status`, oldest first.
pub fn on_head(store: &Store, status: Status) -> Result<Vec<String>, Problem> {
    let Ok(head) = store.resolve_commit("HEAD") else {
        return Ok(Vec::new());
    };
    // The plans on HEAD have their records on HEAD's own note; each one's status comes from
    // every note that holds a line about it.
    let on_head = store.plans_on(&[head])?;
    let index = store.plan_index()?;
    let mut out = Vec::new();
    for record in on_head.records.iter().filter(|r| on_head.is_on(r, head)) {
        let ledger = store.ledger_about(&index, &record.id)?;
        if ledger.status(&record.id) == status {
            out.push(record.id.clone());
        }
    }
    Ok(out)
}

/// Where a plan applies by default: its base — unless a rewrite (`commit --amend`, `rebase`)
/// copied its note to another commit and the base is no longer where the user works. Then the
/// copy on `HEAD`, else the newest copy in `HEAD`'s history, else the newest copy at all when
/// the base is not in `HEAD`'s history either. The plan is checked again there like any
/// `--onto` target.
pub fn target_of(store: &Store, ledger: &Ledger, record: &PlanRecord) -> Result<Oid, StoreError> {
    let base = record.base;
    let copies = ledger.copies_of(&record.id);
    if copies.is_empty() {
        return Ok(base);
    }
    let head = store.resolve_commit("HEAD").ok();
    if head == Some(base) {
        return Ok(base);
    }
    if let Some(head) = head.filter(|h| copies.contains(h)) {
        return Ok(head);
    }
    let in_history = |c: Oid| head.is_some_and(|h| store.is_ancestor(c, h));
    if in_history(base) {
        return Ok(base);
    }
    let on_head: Vec<Oid> = copies.iter().copied().filter(|&c| in_history(c)).collect();
    let candidates = if on_head.is_empty() { copies } else { &on_head };
    Ok(store.newest_commit(candidates).unwrap_or(base))
}

/// Which open plans a command without a plan id acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Open {
    /// Applied, with a local proposal branch (`merge`).
    Applied,
    /// Proposed or applied (`discard`).
    Any,
}

impl Open {
    fn admits(self, ledger: &Ledger, id: &str) -> bool {
        match (self, ledger.status(id)) {
            (_, Status::Applied) => ledger.proposal(id).is_some(),
            (Open::Any, Status::Proposed) => true,
            _ => false,
        }
    }
}

/// The plan named by `spec`, as [`find`]; without one, the newest open proposal on `HEAD` —
/// never a merged, discarded or failed plan, and never the plan `HEAD` carries out after a
/// merge. Refuses when `HEAD` has no open proposal, naming the open ones elsewhere.
pub fn find_open(
    store: &Store,
    spec: Option<&str>,
    open: Open,
) -> Result<(Ledger, PlanRecord), Problem> {
    if spec.is_some() {
        return find(store, spec);
    }
    let head = head_commit(store)?;
    let on_head = store.plans_on(&[head])?;
    let index = store.plan_index()?;
    let about = |id: &str| -> Result<Option<(Ledger, PlanRecord)>, Problem> {
        let ledger = store.ledger_about(&index, id)?;
        let record = ledger.records.iter().find(|r| r.id == id).cloned();
        Ok(record.map(|r| (ledger, r)))
    };
    // Each plan on HEAD stands for its proposal (a refined plan for its newest refinement);
    // the newest plan on HEAD whose proposal is open wins.
    let mut candidates = Vec::new();
    let mut proposals = Vec::new();
    for record in on_head.records.iter().filter(|r| on_head.is_on(r, head)) {
        let Some((ledger, found)) = about(&record.id)? else {
            continue;
        };
        let (ledger, proposal) = follow_refinements(&about, ledger, found)?;
        if open.admits(&ledger, &proposal.id) {
            candidates.push(record);
            proposals.push((record.id.clone(), (ledger, proposal)));
        }
    }
    if let Some((id, _)) = newest(store, &candidates)?
        && let Some(i) = proposals.iter().position(|(on_head, _)| *on_head == id)
    {
        return Ok(proposals.swap_remove(i).1);
    }
    Err(nothing_open(store, open))
}

/// `ERR_PLAN_NOT_FOUND` for a command without a plan id when `HEAD` has no open proposal,
/// listing the open plans elsewhere (newest first, at most five).
fn nothing_open(store: &Store, open: Open) -> Problem {
    let what = match open {
        Open::Applied => "no applied proposal on HEAD",
        Open::Any => "no open proposal on HEAD",
    };
    let Ok(ledger) = store.ledger() else {
        return Problem::new(
            Code::PlanNotFound,
            format!("{what}; name one (git papayu list)"),
        );
    };
    let elsewhere: Vec<String> = ledger
        .records
        .iter()
        .rev()
        .filter(|r| open.admits(&ledger, &r.id))
        .map(|r| match ledger.branch(&r.id) {
            Some(branch) => format!("{} ({branch})", r.short_id()),
            None => format!("{} ({})", r.short_id(), ledger.status(&r.id).as_str()),
        })
        .collect();
    if elsewhere.is_empty() {
        return Problem::new(
            Code::PlanNotFound,
            format!("{what}, and none elsewhere; see git papayu list"),
        );
    }
    let shown: Vec<&str> = elsewhere.iter().take(5).map(String::as_str).collect();
    let more = match elsewhere.len() - shown.len() {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    Problem::new(
        Code::PlanNotFound,
        format!(
            "{what}; open: {}{more}; name one (git papayu list)",
            shown.join(", ")
        ),
    )
}
