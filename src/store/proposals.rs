//! Which local `papayu/*` branches carry out which plan, judged by the commits themselves.
//!
//! Notes are shared data: an event line saying "plan X lives on branch Y" may come from a
//! teammate or from anyone who could write to the notes ref. So papayu never takes a branch
//! name from a note. A branch belongs to a plan when it is under `refs/heads/papayu/` and its
//! history, followed from the tip by first parents, reaches a commit carrying that plan's
//! `Papayu-Plan:` trailer. Commits above that one are *foreign*: papayu did not make them (the
//! user committed on the proposal, or merged into it). This module only reads (what a tip's
//! history says is remembered by `super::owners`).

use std::collections::BTreeMap;

use git2::{Oid, Repository};

use super::{BRANCH_PREFIX, StoreError, owners};

/// How far below a branch tip the plan's own commit is looked for: a proposal is a commit or
/// a few; a branch that needs more is not one papayu made.
const MAX_FOREIGN: usize = 64;

/// A local proposal branch of one plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalBranch {
    /// The branch name without `refs/heads/` (`papayu/<slug>-<id>`).
    pub name: String,
    pub tip: Oid,
    /// The newest commit on the branch carrying the plan's `Papayu-Plan:` trailer.
    pub own: Oid,
    /// Commits above `own`, newest first: on the branch, but not made by papayu.
    pub foreign: Vec<Oid>,
}

impl LocalBranch {
    /// The full ref name.
    pub fn refname(&self) -> String {
        format!("refs/heads/{}", self.name)
    }

    /// Whether papayu may move or delete this branch on its own: its tip is the plan's commit.
    pub fn is_pristine(&self) -> bool {
        self.foreign.is_empty()
    }
}

/// The plan id a commit message names in its `Papayu-Plan:` trailer (the last one), if it is a
/// well-formed id.
pub fn trailer_plan(message: &str) -> Option<&str> {
    message
        .lines()
        .rev()
        .filter_map(|l| l.strip_prefix("Papayu-Plan:"))
        .map(str::trim)
        .find(|id| super::ids::is_plan_id(id))
}

/// Every local proposal branch, grouped by the plan it carries out. Within a plan, branches
/// without foreign commits come first, then by name, so the choice of "the" branch is stable.
pub fn scan(repo: &Repository) -> Result<BTreeMap<String, Vec<LocalBranch>>, StoreError> {
    let mut out: BTreeMap<String, Vec<LocalBranch>> = BTreeMap::new();
    let refs = repo
        .references_glob(&format!("{BRANCH_PREFIX}*"))
        .map_err(|e| StoreError::git("listing proposal branches", e))?;
    // What each tip's history says is remembered by commit id: only new tips are read.
    let remembered = owners::load(repo);
    let mut found = Vec::new();
    let mut current = Vec::new();
    for reference in refs.flatten() {
        let (Some(name), Some(tip)) = (reference.name().ok(), reference.target()) else {
            continue; // Symbolic or not UTF-8: not a branch papayu made.
        };
        let name = name.trim_start_matches("refs/heads/").to_string();
        let owner = remembered.owners.get(&tip).cloned().or_else(|| {
            let owner = owner(repo, tip)?;
            found.push((tip, owner.clone()));
            Some(owner)
        });
        // Unknown (a commit could not be read): neither a proposal nor remembered.
        let Some(owner) = owner else { continue };
        current.push(tip);
        if let Some((plan, own, foreign)) = owner {
            out.entry(plan).or_default().push(LocalBranch {
                name,
                tip,
                own,
                foreign,
            });
        }
    }
    owners::remember(repo, &remembered, &found, &current);
    for branches in out.values_mut() {
        branches.sort_by(|a, b| (!a.is_pristine(), &a.name).cmp(&(!b.is_pristine(), &b.name)));
    }
    Ok(out)
}

/// Remote-tracking proposal branches (`refs/remotes/<remote>/papayu/…`), as `<remote>/papayu/…`,
/// grouped by the plan their commits carry out: a teammate's published proposal. Only ever
/// shown — papayu never moves, deletes or merges a remote-tracking branch.
pub fn scan_remote(repo: &Repository) -> Result<BTreeMap<String, Vec<String>>, StoreError> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let refs = repo
        .references_glob("refs/remotes/*")
        .map_err(|e| StoreError::git("listing remote-tracking branches", e))?;
    for reference in refs.flatten() {
        let (Some(name), Some(tip)) = (reference.name().ok(), reference.target()) else {
            continue;
        };
        let Some(short) = name.strip_prefix("refs/remotes/") else {
            continue;
        };
        let is_proposal = short
            .split_once('/')
            .is_some_and(|(_, branch)| branch.starts_with("papayu/"));
        if !is_proposal {
            continue;
        }
        if let Some(Some((plan, _, _))) = owner(repo, tip) {
            out.entry(plan).or_default().push(short.to_string());
        }
    }
    for names in out.values_mut() {
        names.sort();
    }
    Ok(out)
}

/// Follows first parents from `tip` to the first commit with a plan trailer. `None` when a
/// commit on the way cannot be read (a shallow or damaged history): not known, so not
/// remembered.
fn owner(repo: &Repository, tip: Oid) -> Option<owners::Owner> {
    let mut foreign = Vec::new();
    let mut current = repo.find_commit(tip).ok()?;
    loop {
        let message = String::from_utf8_lossy(current.message_bytes()).into_owned();
        if let Some(plan) = trailer_plan(&message) {
            return Some(Some((plan.to_string(), current.id(), foreign)));
        }
        if foreign.len() >= MAX_FOREIGN || current.parent_count() == 0 {
            return Some(None);
        }
        foreign.push(current.id());
        current = current.parent(0).ok()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_well_formed_trailer_names_the_plan() {
        let id = "a".repeat(40);
        let message = format!("fix\n\nPapayu-Plan: {id}\nPapayu-Trace: t\n");
        assert_eq!(trailer_plan(&message), Some(id.as_str()));
        assert_eq!(trailer_plan("Papayu-Plan: release\n"), None);
        assert_eq!(trailer_plan("no trailer"), None);
    }
}
