//! Which plan a command is about, and where it applies: a plan named by id or branch, the
//! newest plan on `HEAD` (its own or one a rewrite carried over), or the plan `HEAD` carries
//! out after a merge.

use git2::Oid;

use crate::codes::{Code, Problem};
use crate::store::records::{Ledger, PlanRecord, Status};
use crate::store::{Store, StoreError};

/// Finds the plan a command is about: the one named; else the newest plan based on `HEAD`;
/// else the plan `HEAD` itself carries out (a merged proposal's `Papayu-Plan:` trailer, on
/// `HEAD` or on the merged side of a merge commit).
pub fn find_plan(
    store: &Store,
    ledger: &Ledger,
    spec: Option<&str>,
) -> Result<PlanRecord, Problem> {
    if let Some(spec) = spec {
        return ledger.resolve(spec).cloned();
    }
    let head = store.resolve_commit("HEAD").map_err(|_| {
        Problem::new(
            Code::PlanNotFound,
            "HEAD has no commit, so it has no plan; name one (git papayu list)",
        )
    })?;
    if let Some(record) = ledger.newest_on(head) {
        return Ok(record.clone());
    }
    let commit = store
        .repo
        .find_commit(head)
        .map_err(|e| Problem::new(Code::Git, e.message().to_string()))?;
    let carriers = std::iter::once(commit.clone()).chain(commit.parent(1).ok());
    for carrier in carriers {
        let message = String::from_utf8_lossy(carrier.message_bytes()).into_owned();
        let id = message
            .lines()
            .rev()
            .find_map(|l| l.strip_prefix("Papayu-Plan:"))
            .map(str::trim);
        if let Some(record) = id.and_then(|id| ledger.records.iter().find(|r| r.id == id)) {
            return Ok(record.clone());
        }
    }
    Err(Problem::new(
        Code::PlanNotFound,
        "no plan on HEAD; name one (git papayu list)",
    ))
}

/// Ids of the plans based on `HEAD` that are still proposed, oldest first.
pub fn proposed_on_head(store: &Store) -> Result<Vec<String>, Problem> {
    let ledger = store.ledger()?;
    let Ok(head) = store.resolve_commit("HEAD") else {
        return Ok(Vec::new());
    };
    Ok(ledger
        .records
        .iter()
        .filter(|r| ledger.is_on(r, head) && ledger.status(&r.id) == Status::Proposed)
        .map(|r| r.id.clone())
        .collect())
}

/// Where a plan applies by default: its base — unless a rewrite (`commit --amend`, `rebase`)
/// copied its note to another commit and the base is no longer where the user works. Then the
/// copy on `HEAD`, else the newest copy in `HEAD`'s history, else the newest copy at all when
/// the base is not in `HEAD`'s history either. The plan is checked again there like any
/// `--onto` target.
pub fn target_of(store: &Store, ledger: &Ledger, record: &PlanRecord) -> Result<Oid, StoreError> {
    let base = record.base_oid()?;
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
