//! A merge papayu was stopped in the middle of.
//!
//! `git papayu merge` runs git's own merge, then records it (the `merged` event, the log entry,
//! the proposal branch's deletion). If papayu is killed while git merges, git still finishes and
//! the branch moves, but nothing is recorded and `undo` could not take it back. So the merge is
//! announced first, in `<gitdir>/papayu-merge.intent`; the next papayu command that finds the
//! announcement looks at what happened: when the current branch moved from where the merge
//! started to a commit that holds the proposal (or its squashed copy), it records the merge as
//! the operation it was; otherwise it drops the announcement. It never touches a branch that
//! moved in any other way.

use git2::Oid;
use serde::{Deserialize, Serialize};

use super::oplog::{self, OpKind, Pending};
use super::records::{Event, EventKind};
use super::refs::RefChange;
use super::{Store, StoreError};

/// What a merge is about to do, written before git's merge runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MergeIntent {
    pub plan: String,
    /// The plan's base: its events go on that note.
    pub base: String,
    /// The proposal branch (`papayu/…`) and its tip.
    pub branch: String,
    pub tip: String,
    /// The branch merged into (`refs/heads/…`) and its value before the merge.
    pub into: String,
    pub old: String,
    pub squash: bool,
    pub keep_branch: bool,
    /// The papayu process merging: while it runs, the merge is its own to record.
    pub pid: u32,
}

const FILE: &str = "papayu-merge.intent";

impl Store {
    fn merge_intent_path(&self) -> std::path::PathBuf {
        self.repo.path().join(FILE)
    }

    /// Announces a merge before git's merge runs (see the module docs).
    pub fn announce_merge(&self, intent: &MergeIntent) -> Result<(), StoreError> {
        use std::io::Write;
        let path = self.merge_intent_path();
        #[expect(
            clippy::expect_used,
            reason = "serializing a derived type with string keys cannot fail"
        )]
        let text = serde_json::to_vec(intent).expect("intent serializes");
        let mut file =
            std::fs::File::create(&path).map_err(|e| StoreError::io("announcing the merge", e))?;
        file.write_all(&text)
            .and_then(|()| file.sync_all())
            .map_err(|e| StoreError::io("announcing the merge", e))
    }

    /// The merge was recorded, or did not happen: the announcement goes.
    pub fn merge_settled(&self) {
        let _ = std::fs::remove_file(self.merge_intent_path());
    }

    /// Records a merge an interrupted `git papayu merge` left unrecorded; returns a sentence
    /// saying so when it did. Leaves the announcement while git may still be merging.
    pub(crate) fn reconcile_merge(&self) -> Result<Option<String>, StoreError> {
        let path = self.merge_intent_path();
        let Ok(text) = std::fs::read(&path) else {
            return Ok(None);
        };
        let Ok(intent) = serde_json::from_slice::<MergeIntent>(&text) else {
            self.merge_settled();
            return Ok(None);
        };
        let (Ok(tip), Ok(old)) = (Oid::from_str(&intent.tip), Oid::from_str(&intent.old)) else {
            self.merge_settled();
            return Ok(None);
        };
        let gitdir = self.repo.path();
        if super::process_alive(intent.pid)
            || gitdir.join("MERGE_HEAD").exists()
            || gitdir.join("index.lock").exists()
        {
            return Ok(None); // papayu or git is still at it, or git stopped for the user.
        }
        let Some(current) = self.ref_value(&intent.into)? else {
            self.merge_settled();
            return Ok(None);
        };
        if current == old
            || !self.carries(current, old, tip, intent.squash)
            || self.logged(&intent, current)?
        {
            self.merge_settled();
            return Ok(None);
        }
        self.record_merge(&intent, tip, old, current)?;
        self.merge_settled();
        Ok(Some(format!(
            "recorded the merge of {} into {} that an interrupted git papayu merge left \
             unrecorded; git papayu undo takes it back",
            intent.branch,
            intent.into.trim_start_matches("refs/heads/")
        )))
    }

    /// `current` is `old` plus the proposal: a merge holding `tip`, or the squashed copy of it.
    fn carries(&self, current: Oid, old: Oid, tip: Oid, squash: bool) -> bool {
        match squash {
            false => self.is_ancestor(tip, current) && self.is_ancestor(old, current),
            true => {
                let parent_is_old = self
                    .commit_parents(current)
                    .ok()
                    .and_then(|p| p.first().copied())
                    == Some(old);
                let same_message =
                    self.commit_message(current).ok() == self.commit_message(tip).ok();
                parent_is_old && same_message
            }
        }
    }

    /// The newest log entry already records this very merge (papayu died after logging it).
    fn logged(&self, intent: &MergeIntent, current: Oid) -> Result<bool, StoreError> {
        let Some(newest) = oplog::walk(self)?.next().transpose()? else {
            return Ok(false);
        };
        let old = Oid::from_str(&intent.old).ok();
        Ok(newest.op.op == OpKind::Merge
            && newest
                .op
                .refs
                .iter()
                .any(|c| c.name == intent.into && c.old == old && c.new == Some(current)))
    }

    fn record_merge(
        &self,
        intent: &MergeIntent,
        tip: Oid,
        old: Oid,
        current: Oid,
    ) -> Result<(), StoreError> {
        let base = Oid::from_str(&intent.base)
            .map_err(|e| StoreError::git("reading the merge announcement", e))?;
        let into = intent.into.trim_start_matches("refs/heads/");
        let mut event = Event::new(&intent.plan, EventKind::Merged);
        event.branch = Some(intent.branch.clone());
        event.commit = Some(current);
        event.detail = Some(format!("into {}", intent.into));
        let mut pending = Pending::new(
            OpKind::Merge,
            format!(
                "merge {} into {into} (recorded after papayu was stopped)",
                intent.branch
            ),
        );
        pending.recorded.push(RefChange::new(
            intent.into.clone(),
            Some(old),
            Some(current),
        ));
        let branch_ref = format!("refs/heads/{}", intent.branch);
        let delete = !intent.keep_branch
            && self.ref_value(&branch_ref)? == Some(tip)
            && self.checked_out_elsewhere(&branch_ref).is_none();
        if delete {
            pending
                .refs
                .push(RefChange::new(branch_ref, Some(tip), None));
            pending.keep.push(tip);
        }
        pending.note_lines.push((base, event.to_line()));
        oplog::commit(self, &pending)?;
        Ok(())
    }
}
