//! Checks asked of other machines, as git keeps them: requests, claims and result notes.
//!
//! A **request** is a commit without parents holding one file, `request.json`, on the branch
//! `papayu/check/<id>` of a remote (CI systems start jobs for pushed branches only); this clone
//! keeps its own requests under `refs/papayu/requests/<id>`. A **claim** is a commit holding
//! `claim.json` under `refs/papayu/claims/<id>`, moved only by a compare-and-swap push, so that
//! of two workers racing for a request exactly one gets it. A **result** is a line of the note
//! on a candidate commit, in the notes ref `refs/notes/papayu-checks/<worker>` that only that
//! worker pushes. What the files and lines say is read above (`engine::workers`) and in
//! [`super::results`]; this module only moves objects and refs, and never force-pushes a ref
//! without a lease on the value it read.

use git2::{FileMode, Oid};

use super::notes;
use super::refs::{self, RefChange};
use super::{Store, StoreError};

/// The branches requests live on, on a remote.
pub const REQUEST_BRANCHES: &str = "refs/heads/papayu/check/";
/// This clone's own requests (what `undo` and `gc` withdraw).
pub const REQUESTS: &str = "refs/papayu/requests/";
/// Claims, on a remote (and as a worker last wrote them here).
pub const CLAIMS: &str = "refs/papayu/claims/";
/// Result notes: one notes ref per worker.
pub const RESULTS: &str = "refs/notes/papayu-checks/";
/// The file of a request commit.
pub const REQUEST_FILE: &str = "request.json";
/// The file of a claim commit.
pub const CLAIM_FILE: &str = "claim.json";

/// Where a remote's requests are fetched to.
pub fn fetched_requests(remote: &str) -> String {
    format!("refs/papayu/remotes/{remote}/check/")
}

/// Where a remote's claims are fetched to.
pub fn fetched_claims(remote: &str) -> String {
    format!("refs/papayu/remotes/{remote}/claims/")
}

/// Where a remote's result notes are fetched to.
pub fn fetched_results(remote: &str) -> String {
    format!("refs/notes/remotes/{remote}/papayu-checks/")
}

/// The refspec that fetches a remote's result notes (every worker's).
pub fn results_refspec(remote: &str) -> String {
    format!("+{RESULTS}*:{}*", fetched_results(remote))
}

/// Whether `name` is usable as one component of a ref (a request id, a worker name).
pub fn is_ref_component(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && !name.starts_with(['.', '-'])
        && !name.ends_with(".lock")
        && !name.contains("..")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

impl Store {
    /// Writes a commit whose tree holds the one file `name` with `text`, on `parent` (none for
    /// a request's first commit), with papayu's bookkeeping identity. No ref is moved.
    pub fn file_commit(
        &self,
        name: &str,
        text: &str,
        parent: Option<Oid>,
        message: &str,
    ) -> Result<Oid, StoreError> {
        let repo = &self.repo;
        let git = |e| StoreError::git("writing a check request or claim", e);
        let blob = repo.blob(text.as_bytes()).map_err(git)?;
        let mut tree = repo.treebuilder(None).map_err(git)?;
        tree.insert(name, blob, FileMode::Blob.into())
            .map_err(git)?;
        let tree = repo.find_tree(tree.write().map_err(git)?).map_err(git)?;
        let parent = match parent {
            Some(p) => Some(repo.find_commit(p).map_err(git)?),
            None => None,
        };
        let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
        repo.commit(
            None,
            &super::author(repo),
            &super::signature(repo),
            message,
            &tree,
            &parents,
        )
        .map_err(git)
    }

    /// The text of the file `name` at the root of `commit`'s tree; `None` when it has none (or
    /// it is not a file, or not UTF-8).
    pub fn commit_file(&self, commit: Oid, name: &str) -> Option<String> {
        let tree = self.repo.find_commit(commit).ok()?.tree().ok()?;
        let entry = tree.get_name(name)?;
        let blob = entry.to_object(&self.repo).ok()?.into_blob().ok()?;
        String::from_utf8(blob.content().to_vec()).ok()
    }

    /// Every ref whose name starts with `prefix`, with the object it names, sorted by name.
    pub fn refs_under(&self, prefix: &str) -> Result<Vec<(String, Oid)>, StoreError> {
        let glob = format!("{prefix}*");
        let refs = self
            .repo
            .references_glob(&glob)
            .map_err(|e| StoreError::git(format!("listing {prefix}"), e))?;
        let mut out: Vec<(String, Oid)> = refs
            .flatten()
            .filter_map(|r| Some((r.name().ok()?.to_string(), r.target()?)))
            .collect();
        out.sort();
        Ok(out)
    }

    /// Moves one ref from `old` to `new` by compare-and-swap (`None`: absent).
    pub fn swap_ref(
        &self,
        name: &str,
        old: Option<Oid>,
        new: Option<Oid>,
        message: &str,
    ) -> Result<(), StoreError> {
        refs::update(&self.repo, &[RefChange::new(name, old, new)], message)
    }

    /// A notes commit on top of `notes` where the note of `on` has `line` appended. No ref is
    /// moved.
    pub fn note_appended(
        &self,
        notes: Option<Oid>,
        on: Oid,
        line: &str,
        message: &str,
    ) -> Result<Oid, StoreError> {
        notes::append(&self.repo, notes, &[(on, line.to_string())], message)
    }

    /// The objects the notes commit `notes` annotates.
    pub fn noted(&self, notes: Oid) -> Result<Vec<Oid>, StoreError> {
        Ok(notes::blobs(&self.repo, notes)?
            .into_iter()
            .filter(|(target, blob)| target != blob)
            .map(|(target, _)| target)
            .collect())
    }

    /// A notes commit on top of `notes` without the notes of `targets`. No ref is moved.
    pub fn notes_without(
        &self,
        notes: Oid,
        targets: &[Oid],
        message: &str,
    ) -> Result<Oid, StoreError> {
        notes::without(&self.repo, notes, targets, message)
    }

    /// The first parent of `commit`, `None` for a root commit or a missing one.
    pub fn first_parent(&self, commit: Oid) -> Option<Oid> {
        self.repo.find_commit(commit).ok()?.parent_id(0).ok()
    }
}
