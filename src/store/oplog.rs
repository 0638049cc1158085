//! The operation log: one commit on `refs/papayu/oplog` per papayu operation.
//!
//! Each entry's message holds, after its subject line, the operation as JSON: what it was,
//! every ref it changed (old and new value) and the previous entry. The previous entry is also
//! its first parent, and every commit a changed ref pointed to, before or after, is an extra
//! parent, so nothing papayu ever replaced or deleted becomes unreachable and `git gc` cannot
//! lose it. Each entry also names the note lines it appended (where, for which plan, and the
//! line's hash), because undo never takes lines out of the shared notes: it appends events
//! that cancel them. Undo and redo are operations too: they name the entry they invert and
//! change refs back by compare-and-swap.

use std::collections::HashSet;

use git2::{ObjectType, Oid, Repository};
use serde::{Deserialize, Serialize};

use super::index::PlanIndex;
use super::records::{Trust, carries_verdict, line_hash, line_plan};
use super::refs::{self, RefChange};
use super::{NOTES_REF, OPLOG_REF, Store, StoreError, cache, notes};

mod upkeep;
pub use upkeep::{Forgotten, Repair, forget_before, repair};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpKind {
    Plan,
    Apply,
    Refine,
    Merge,
    Discard,
    Undo,
    Redo,
    /// Written by `gc` when it forgets every operation but cancels must stay in effect: not
    /// an operation to undo.
    Gc,
}

impl OpKind {
    pub fn as_str(self) -> &'static str {
        match self {
            OpKind::Plan => "plan",
            OpKind::Apply => "apply",
            OpKind::Refine => "refine",
            OpKind::Merge => "merge",
            OpKind::Discard => "discard",
            OpKind::Undo => "undo",
            OpKind::Redo => "redo",
            OpKind::Gc => "gc",
        }
    }
}

/// One entry of the log, as stored in its commit message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Operation {
    pub op: OpKind,
    pub description: String,
    pub at: i64,
    pub refs: Vec<RefChange>,
    /// The previous entry of the log (the chain is followed through this, not through parents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<String>,
    /// For undo and redo: the log entry this one inverts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The note lines this operation appended.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<LoggedLine>,
    /// The cancel lines (`undone`, `redone`, by line hash) of operations `gc` forgot: still
    /// in effect, since only cancels this log knows take effect.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kept_cancels: Vec<String>,
    /// The same for the lines of checking operations `gc` forgot: their verdicts still count.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kept_verdicts: Vec<String>,
}

impl Operation {
    /// The hashes of the cancel lines this entry vouches for.
    fn cancels(&self) -> impl Iterator<Item = &str> {
        self.appended(matches!(self.op, OpKind::Undo | OpKind::Redo))
            .chain(self.kept_cancels.iter().map(String::as_str))
    }

    /// The hashes of the verdict lines this entry vouches for: those the operations that run
    /// checks (`apply`, `refine`) appended.
    fn verdicts(&self) -> impl Iterator<Item = &str> {
        let checking = matches!(self.op, OpKind::Apply | OpKind::Refine);
        let lines: &[LoggedLine] = if checking { &self.lines } else { &[] };
        lines
            .iter()
            .filter(|l| l.verdict != Some(false))
            .map(|l| l.hash.as_str())
            .chain(self.kept_verdicts.iter().map(String::as_str))
    }

    fn appended(&self, these: bool) -> impl Iterator<Item = &str> {
        let lines: &[LoggedLine] = if these { &self.lines } else { &[] };
        lines.iter().map(|l| l.hash.as_str())
    }
}

/// One note line an operation appended: enough for undo to cancel it wherever it lives now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoggedLine {
    /// The object whose note the line was appended to.
    pub on: String,
    /// The plan the line is about.
    pub plan: String,
    /// The line's [`line_hash`].
    pub hash: String,
    /// Whether the line carries a check verdict (absent in entries written before this was
    /// recorded: such a line of a checking operation is taken to carry one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<bool>,
}

/// A log entry together with the commit that holds it.
#[derive(Debug, Clone)]
pub struct Entry {
    pub id: Oid,
    pub op: Operation,
}

/// What an operation wants to change, before notes and the log are added.
#[derive(Debug, Clone)]
pub struct Pending {
    pub kind: OpKind,
    pub description: String,
    /// Refs other than the notes and the log, with the values they were computed from.
    pub refs: Vec<RefChange>,
    /// Ref changes already made by git itself (a merge), logged so they can be undone.
    pub recorded: Vec<RefChange>,
    /// Note lines to append: (annotated commit, JSON line).
    pub note_lines: Vec<(Oid, String)>,
    /// Commits no ref points at that must stay reachable (a plan's preview).
    pub keep: Vec<Oid>,
    pub target: Option<String>,
}

impl Pending {
    pub fn new(kind: OpKind, description: impl Into<String>) -> Pending {
        Pending {
            kind,
            description: description.into(),
            refs: Vec::new(),
            recorded: Vec::new(),
            note_lines: Vec::new(),
            keep: Vec::new(),
            target: None,
        }
    }
}

/// Commits an operation: appends its note lines, writes its log entry, and moves every ref by
/// compare-and-swap. When only the notes or the log moved under us (another papayu process
/// appended), the append is rebuilt on top and retried; any other moved ref is an error and
/// nothing is written.
pub fn commit(store: &Store, pending: &Pending) -> Result<Entry, StoreError> {
    const ATTEMPTS: usize = 8;
    let repo = &store.repo;
    let note_lines = super::records::place_lines(&pending.note_lines);
    let mut attempt = 0;
    loop {
        attempt += 1;
        let mut changes = pending.refs.clone();
        let mut notes_moved = None;
        if !note_lines.is_empty() {
            let old = store.ref_value(NOTES_REF)?;
            let message = format!("papayu: {}", pending.description);
            let new = notes::append(repo, old, &note_lines, &message)?;
            changes.push(RefChange::new(NOTES_REF, old, Some(new)));
            notes_moved = Some((old, new));
        }
        let previous = store.ref_value(OPLOG_REF)?;
        let op = Operation {
            op: pending.kind,
            description: pending.description.clone(),
            at: super::records::now_millis(),
            refs: pending.recorded.iter().chain(&changes).cloned().collect(),
            previous: previous.map(|p| p.to_string()),
            target: pending.target.clone(),
            lines: logged_lines(&note_lines),
            kept_cancels: Vec::new(),
            kept_verdicts: Vec::new(),
        };
        let entry = write_entry(repo, previous, &op, &pending.keep)?;
        changes.push(RefChange::new(OPLOG_REF, previous, Some(entry)));
        // The entry reaches every object this operation wrote (new tips, notes, previews): a
        // ref on it keeps them from a concurrent `git gc --prune=now` until the refs move.
        let keep = Keep::new(repo, entry);
        let _ = repo.reference_ensure_log(OPLOG_REF);
        let moved = refs::update(
            repo,
            &changes,
            &format!("papayu {}: {}", op.op.as_str(), op.description),
        );
        let moved = moved.and_then(|()| ensure_present(repo, &changes));
        drop(keep);
        match moved {
            Ok(()) => {
                if let Some((old, new)) = notes_moved {
                    PlanIndex::carry_forward(repo, old, new, &note_lines);
                }
                carry_trust_forward(repo, previous, entry, &op);
                return Ok(Entry { id: entry, op });
            }
            Err(e) if attempt < ATTEMPTS && retryable(&e, pending) => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(other) => return Err(other),
        }
    }
}

/// The plans this clone made: every plan a `plan` or `refine` operation in the log appended a
/// record for (a record from shared notes is not in it).
pub fn plans_made_here(store: &Store) -> Result<HashSet<String>, StoreError> {
    let mut out = HashSet::new();
    for entry in walk(store)? {
        let entry = entry?;
        if matches!(entry.op.op, OpKind::Plan | OpKind::Refine) {
            out.extend(entry.op.lines.iter().map(|l| l.plan.clone()));
        }
    }
    Ok(out)
}

const CANCELS: &str = "cancels";
const VERDICTS: &str = "verdicts";

/// The lines this clone's operations appended that take effect here (see
/// [`super::vouch`]): its cancels (`undone`, `redone`) and the lines of its checks, by line
/// hash. Cached per log entry, carried forward by each commit.
pub fn logged_trust(store: &Store) -> Result<Trust, StoreError> {
    let Some(tip) = store.ref_value(OPLOG_REF)? else {
        return Ok(Trust::nothing());
    };
    let repo = &store.repo;
    if let (Some(cancels), Some(verdicts)) = (
        cached_set(repo, CANCELS, tip),
        cached_set(repo, VERDICTS, tip),
    ) {
        return Ok(Trust::Logged { cancels, verdicts });
    }
    let (mut cancels, mut verdicts) = (HashSet::new(), HashSet::new());
    for entry in walk(store)? {
        let entry = entry?;
        cancels.extend(entry.op.cancels().map(str::to_string));
        verdicts.extend(entry.op.verdicts().map(str::to_string));
    }
    write_set(repo, CANCELS, tip, &cancels);
    write_set(repo, VERDICTS, tip, &verdicts);
    Ok(Trust::Logged { cancels, verdicts })
}

fn cached_set(repo: &Repository, kind: &str, entry: Oid) -> Option<HashSet<String>> {
    let bytes = cache::read(repo, kind, entry)?;
    let text = String::from_utf8(bytes).ok()?;
    let set: HashSet<String> = text.lines().map(str::to_string).collect();
    set.iter().all(|h| super::ids::is_plan_id(h)).then_some(set)
}

fn write_set(repo: &Repository, kind: &str, entry: Oid, set: &HashSet<String>) {
    let mut lines: Vec<&str> = set.iter().map(String::as_str).collect();
    lines.sort_unstable();
    let mut text = lines.join("\n");
    text.push('\n');
    cache::write(repo, kind, entry, text.as_bytes());
}

fn carry_trust_forward(repo: &Repository, previous: Option<Oid>, entry: Oid, op: &Operation) {
    let sets: [(&str, Vec<&str>); 2] = [
        (CANCELS, op.cancels().collect()),
        (VERDICTS, op.verdicts().collect()),
    ];
    for (kind, added) in sets {
        let old = match previous {
            None => Some(HashSet::new()),
            Some(p) => cached_set(repo, kind, p),
        };
        if let Some(mut set) = old {
            set.extend(added.into_iter().map(str::to_string));
            write_set(repo, kind, entry, &set);
        }
    }
}

/// A ref on a log entry while its operation's refs move (`refs/papayu/keep/<pid>`), removed
/// when dropped. A process killed meanwhile leaves it behind: it only keeps objects alive.
struct Keep<'r> {
    repo: &'r Repository,
    name: String,
}

impl<'r> Keep<'r> {
    fn new(repo: &'r Repository, entry: Oid) -> Keep<'r> {
        let name = format!("refs/papayu/keep/{}", std::process::id());
        let _ = repo.reference(&name, entry, true, "papayu: keep until the refs move");
        Keep { repo, name }
    }
}

impl Drop for Keep<'_> {
    fn drop(&mut self) {
        if let Ok(mut r) = self.repo.find_reference(&self.name) {
            let _ = r.delete();
        }
    }
}

/// After the refs moved: every commit they name, and its tree, must still be there. If a
/// concurrent prune removed one before the refs could protect it, the refs are moved back and
/// the operation fails with nothing changed.
fn ensure_present(repo: &Repository, changes: &[RefChange]) -> Result<(), StoreError> {
    let odb = repo
        .odb()
        .map_err(|e| StoreError::git("opening the object database", e))?;
    let present = |oid: Oid| {
        odb.exists(oid)
            && repo
                .find_commit(oid)
                .map_or(true, |c| odb.exists(c.tree_id()))
    };
    let lost: Vec<Oid> = changes
        .iter()
        .filter_map(|c| c.new)
        .filter(|&oid| !present(oid))
        .collect();
    if lost.is_empty() {
        return Ok(());
    }
    let back: Vec<RefChange> = changes.iter().rev().map(RefChange::inverse).collect();
    refs::update(repo, &back, "papayu: objects vanished, moving back")?;
    Err(StoreError::Problem(crate::codes::Problem::new(
        crate::codes::Code::ObjectsVanished,
        format!(
            "{} object(s) papayu had just written were removed before its refs could keep them \
             (a `git gc --prune=now` at the same time?); nothing was changed, run the command \
             again once gc is done",
            lost.len()
        ),
    )))
}

/// The log's view of appended note lines: one per distinct line and object.
fn logged_lines(lines: &[(Oid, String)]) -> Vec<LoggedLine> {
    let mut out: Vec<LoggedLine> = Vec::new();
    for (on, text) in lines {
        let Some(plan) = line_plan(text) else {
            continue;
        };
        let logged = LoggedLine {
            on: on.to_string(),
            plan,
            hash: line_hash(text),
            verdict: Some(carries_verdict(text)),
        };
        if !out.contains(&logged) {
            out.push(logged);
        }
    }
    out
}

/// Whether a failed update may be rebuilt and retried: only when what moved (or is briefly
/// locked) is an append-only log — the operation log, or the notes when this operation only
/// appends to them.
fn retryable(error: &StoreError, pending: &Pending) -> bool {
    let name = match error {
        StoreError::RefMoved { name, .. } | StoreError::Locked { name, .. } => name,
        _ => return false,
    };
    name == OPLOG_REF || (name == NOTES_REF && !pending.note_lines.is_empty())
}

fn write_entry(
    repo: &Repository,
    previous: Option<Oid>,
    op: &Operation,
    keep: &[Oid],
) -> Result<Oid, StoreError> {
    let touched: Vec<Oid> = op
        .refs
        .iter()
        .flat_map(|c| [c.old, c.new])
        .flatten()
        .chain(keep.iter().copied())
        .collect();
    write_commit(repo, previous, op, &touched)
}

/// The entry's commit: `previous` first, then every commit of `extra` as a parent.
fn write_commit(
    repo: &Repository,
    previous: Option<Oid>,
    op: &Operation,
    extra: &[Oid],
) -> Result<Oid, StoreError> {
    // The entry lives in the commit message; the tree is the empty tree (written once, then
    // only found again), so an entry costs one new object.
    let tree = repo
        .treebuilder(None)
        .and_then(|b| b.write())
        .and_then(|t| repo.find_tree(t))
        .map_err(|e| StoreError::git("writing the operation log", e))?;
    let mut parent_ids: Vec<Oid> = previous.into_iter().collect();
    for &oid in extra {
        if !parent_ids.contains(&oid) && is_commit(repo, oid) {
            parent_ids.push(oid);
        }
    }
    let parents = parent_ids
        .iter()
        .map(|id| repo.find_commit(*id))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| StoreError::git("writing the operation log", e))?;
    let parent_refs: Vec<&git2::Commit<'_>> = parents.iter().collect();
    let sig = super::signature(repo);
    #[expect(
        clippy::expect_used,
        reason = "serializing a derived type with string keys cannot fail"
    )]
    let json = serde_json::to_string_pretty(op).expect("operation serializes");
    let message = format!("papayu {}: {}\n\n{json}\n", op.op.as_str(), op.description);
    repo.commit(None, &sig, &sig, &message, &tree, &parent_refs)
        .map_err(|e| StoreError::git("writing the operation log", e))
}

fn is_commit(repo: &Repository, oid: Oid) -> bool {
    repo.find_object(oid, None)
        .is_ok_and(|o| o.kind() == Some(ObjectType::Commit))
}

/// The log, newest entry first.
pub fn entries(store: &Store) -> Result<Vec<Entry>, StoreError> {
    walk(store)?.collect()
}

/// The log, newest entry first, read one entry at a time: a caller that finds what it needs
/// near the top never reads the rest.
pub fn walk(store: &Store) -> Result<Walk<'_>, StoreError> {
    Ok(Walk {
        repo: &store.repo,
        next: store.ref_value(OPLOG_REF)?,
    })
}

/// See [`walk`].
pub struct Walk<'r> {
    repo: &'r Repository,
    next: Option<Oid>,
}

impl Iterator for Walk<'_> {
    type Item = Result<Entry, StoreError>;

    fn next(&mut self) -> Option<Self::Item> {
        let id = self.next.take()?;
        let entry = read_entry(self.repo, id);
        if let Ok(entry) = &entry {
            match entry.op.previous.as_deref().map(Oid::from_str).transpose() {
                Ok(previous) => self.next = previous,
                Err(e) => return Some(Err(StoreError::git("reading the operation log", e))),
            }
        }
        Some(entry)
    }
}

fn read_entry(repo: &Repository, id: Oid) -> Result<Entry, StoreError> {
    let commit = repo
        .find_commit(id)
        .map_err(|e| StoreError::reading(OPLOG_REF, id, "reading the operation log", e))?;
    let message = String::from_utf8_lossy(commit.message_bytes()).into_owned();
    let json = message.split_once("\n\n").map_or("", |(_, body)| body);
    let op: Operation = serde_json::from_str(json).map_err(|e| {
        StoreError::git(
            "reading the operation log",
            git2::Error::from_str(&format!("entry {id} has no readable operation: {e}")),
        )
    })?;
    Ok(Entry { id, op })
}

/// The entry `undo` should invert: the newest operation that is not an undo and has not been
/// undone already. Reads the log only down to that entry.
pub fn undo_target(
    entries: impl IntoIterator<Item = Result<Entry, StoreError>>,
) -> Result<Option<Entry>, StoreError> {
    let mut undone: Vec<String> = Vec::new();
    for entry in entries {
        let entry = entry?;
        if entry.op.op == OpKind::Undo {
            undone.extend(entry.op.target.clone());
            continue;
        }
        if entry.op.op == OpKind::Gc {
            continue;
        }
        if undone.iter().any(|u| *u == entry.id.to_string()) {
            continue;
        }
        return Ok(Some(entry));
    }
    Ok(None)
}

/// The undo entry `redo` should invert: the newest undo not yet redone, provided no new
/// operation happened after it (a new operation clears the redo history, as in any editor).
/// Reads the log only down to that entry.
pub fn redo_target(
    entries: impl IntoIterator<Item = Result<Entry, StoreError>>,
) -> Result<Option<Entry>, StoreError> {
    let mut redone: Vec<String> = Vec::new();
    for entry in entries {
        let entry = entry?;
        match entry.op.op {
            OpKind::Redo => redone.extend(entry.op.target.clone()),
            OpKind::Undo => {
                if !redone.iter().any(|r| *r == entry.id.to_string()) {
                    return Ok(Some(entry));
                }
            }
            _ => return Ok(None),
        }
    }
    Ok(None)
}
