//! Undo and redo: invert the newest operation in the log.
//!
//! Branches go back by compare-and-swap: every branch the operation changed must still hold the
//! value the operation left there; if the user (or anyone) moved one since, undo refuses and
//! changes nothing. When the operation moved the branch that is checked out (a merge), the
//! working tree follows with `git reset --keep`, which refuses rather than overwrite local
//! changes.
//!
//! The notes ref is never moved back: teammates' merged notes, `git commit --amend` with notes
//! rewriting and fetches move it too, and rewinding it would throw their lines away. Instead,
//! for every note line the operation appended, undo appends an `undone` event that cancels it
//! (redo an `redone` event that cancels the `undone`), on the note where the line was written
//! and on every note that holds a copy of it now.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::codes::{Code, Problem};
use crate::store::oplog::{self, Entry, LoggedLine, OpKind, Operation, Pending};
use crate::store::records::{Event, EventKind, line_hash, line_plan, record_of_line};
use crate::store::refs::RefChange;
use crate::store::{NOTES_REF, OPLOG_REF, Oid, Store, StoreError};

/// What undo or redo did.
pub struct Reverted {
    /// The operation that was inverted (for redo: the undo that was inverted).
    pub target: Entry,
    pub changes: Vec<RefChange>,
}

pub fn undo(store: &Store) -> Result<Reverted, Problem> {
    let target = oplog::undo_target(oplog::walk(store)?)?
        .ok_or_else(|| Problem::new(Code::NothingToUndo, "no papayu operation left to undo"))?;
    revert(store, target, OpKind::Undo)
}

pub fn redo(store: &Store) -> Result<Reverted, Problem> {
    let target = oplog::redo_target(oplog::walk(store)?)?.ok_or_else(|| {
        Problem::new(
            Code::NothingToRedo,
            "nothing to redo (redo follows undo, before any new operation)",
        )
    })?;
    revert(store, target, OpKind::Redo)
}

fn revert(store: &Store, target: Entry, kind: OpKind) -> Result<Reverted, Problem> {
    let changes: Vec<RefChange> = target
        .op
        .refs
        .iter()
        .rev()
        .filter(|c| c.name != OPLOG_REF && c.name != NOTES_REF)
        .map(RefChange::inverse)
        .collect();
    for change in &changes {
        let current = store.ref_value(&change.name)?;
        if current != change.old {
            return Err(Problem::new(
                Code::RefMoved,
                format!(
                    "{} moved since '{}' (now {}); {} would lose that, so nothing was changed",
                    change.name,
                    target.op.description,
                    current.map_or_else(|| "deleted".to_string(), |o| o.to_string()),
                    kind.as_str()
                ),
            ));
        }
    }
    // Branches checked out in a worktree (this one or another) move with `git reset --keep`
    // there, which keeps local changes or refuses; the others move by compare-and-swap.
    let head = store.head_branch();
    let here = store.workdir().map(Path::to_path_buf);
    let mut moved_in_place: Vec<(RefChange, PathBuf)> = Vec::new();
    let mut others = Vec::new();
    for change in changes.iter().cloned() {
        let dir = match (&here, Some(&change.name) == head.as_ref()) {
            (Some(here), true) => Some(here.clone()),
            _ => store.checked_out_elsewhere(&change.name),
        };
        match dir {
            Some(dir) => moved_in_place.push((change, dir)),
            None => others.push(change),
        }
    }
    let description = match kind {
        OpKind::Redo => format!("redo {}", target.op.description.trim_start_matches("undo ")),
        _ => format!("undo {}", target.op.description),
    };
    let mut pending = Pending::new(kind, description.clone());
    pending.target = Some(target.id.to_string());
    pending.refs = others;
    pending.note_lines = cancel_lines(store, &target.op, kind, &description)?;
    if moved_in_place
        .iter()
        .any(|(_, dir)| Some(dir) == here.as_ref())
    {
        super::review::require_clean(store)?;
    }
    let mut done: Vec<&(RefChange, PathBuf)> = Vec::new();
    for moved in &moved_in_place {
        if let Err(e) = move_checked_out(store, &moved.1, &moved.0) {
            put_back(store, &done);
            return Err(e);
        }
        done.push(moved);
        pending.recorded.push(moved.0.clone());
    }
    if let Err(e) = oplog::commit(store, &pending) {
        // Put the checked-out branches back so the failure leaves everything as it was.
        put_back(store, &done);
        return Err(e.into());
    }
    Ok(Reverted { target, changes })
}

/// The note lines that cancel every line `op` appended: one event per line, appended where the
/// line was written and wherever a copy of it lives now.
fn cancel_lines(
    store: &Store,
    op: &Operation,
    kind: OpKind,
    description: &str,
) -> Result<Vec<(Oid, String)>, StoreError> {
    let logged = if op.lines.is_empty() {
        legacy_lines(store, op)?
    } else {
        op.lines.clone()
    };
    if logged.is_empty() {
        return Ok(Vec::new());
    }
    let wanted: BTreeSet<&str> = logged.iter().map(|l| l.hash.as_str()).collect();
    // Copies of a line live on notes that hold lines about its plan: read only those.
    let index = store.plan_index()?;
    let notes_ref = store.ref_value(NOTES_REF)?;
    let mut objects: BTreeSet<Oid> = BTreeSet::new();
    // Notes that hold only a plan's sealed record all hold the same line, and are not read:
    // where a note read holds that record, so do they.
    let mut record_only: BTreeMap<&str, Vec<Oid>> = BTreeMap::new();
    for line in &logged {
        objects.extend(Oid::from_str(&line.on).ok());
        match index.reading(&line.plan) {
            Some(reading) => {
                objects.extend(reading.objects(&line.plan));
                record_only.insert(line.plan.as_str(), reading.record_only);
            }
            // A damaged index entry: look at every note.
            None => objects.extend(store.all_notes(notes_ref)?.into_iter().map(|(on, _)| on)),
        }
    }
    let mut copies: BTreeMap<String, BTreeSet<Oid>> = BTreeMap::new();
    for annotated in objects {
        let Some(text) = store.note(notes_ref, annotated)? else {
            continue;
        };
        // A line about a plan names it: only those can be the lines wanted.
        let about = |line: &str| logged.iter().any(|l| line.contains(l.plan.as_str()));
        for line in text.lines().filter(|l| about(l)) {
            let hash = line_hash(line);
            if wanted.contains(hash.as_str()) {
                let plan = logged
                    .iter()
                    .find(|l| l.hash == hash)
                    .map(|l| l.plan.as_str());
                let holding = plan
                    .filter(|p| record_of_line(line).is_some_and(|r| r.id == *p))
                    .and_then(|p| record_only.get(p));
                let places = copies.entry(hash).or_default();
                places.insert(annotated);
                places.extend(holding.into_iter().flatten());
            }
        }
    }
    let event_kind = match kind {
        OpKind::Redo => EventKind::Redone,
        _ => EventKind::Undone,
    };
    let mut out = Vec::new();
    let mut done: BTreeSet<&str> = BTreeSet::new();
    for line in &logged {
        if !done.insert(line.hash.as_str()) {
            continue;
        }
        let mut event = Event::new(&line.plan, event_kind);
        event.cancels = Some(line.hash.clone());
        event.detail = Some(description.to_string());
        let text = event.to_line();
        let mut places: BTreeSet<Oid> = copies.remove(&line.hash).unwrap_or_default();
        places.extend(
            logged
                .iter()
                .filter(|l| l.hash == line.hash)
                .filter_map(|l| Oid::from_str(&l.on).ok()),
        );
        out.extend(places.into_iter().map(|on| (on, text.clone())));
    }
    Ok(out)
}

/// The lines appended by an entry written before entries named their lines: what its notes
/// change added, note by note.
fn legacy_lines(store: &Store, op: &Operation) -> Result<Vec<LoggedLine>, StoreError> {
    let Some(change) = op.refs.iter().find(|c| c.name == NOTES_REF) else {
        return Ok(Vec::new());
    };
    let before: BTreeMap<Oid, String> = store.all_notes(change.old)?.into_iter().collect();
    let mut out = Vec::new();
    for (on, text) in store.all_notes(change.new)? {
        let old: BTreeSet<&str> = before
            .get(&on)
            .map_or_else(BTreeSet::new, |t| t.lines().collect());
        for line in text.lines().filter(|l| !old.contains(l)) {
            if let Some(plan) = line_plan(line) {
                out.push(LoggedLine {
                    on: on.to_string(),
                    plan,
                    hash: line_hash(line),
                    verdict: None,
                });
            }
        }
    }
    Ok(out)
}

/// Moves branches already moved in their worktrees back where they were.
fn put_back(store: &Store, done: &[&(RefChange, PathBuf)]) {
    for (change, dir) in done.iter().rev() {
        let _ = move_checked_out(store, dir, &change.inverse());
    }
}

/// Moves a branch checked out in the worktree at `dir`, and that working tree, with `git reset
/// --keep` run there: git's own safety checks for that worktree apply.
fn move_checked_out(store: &Store, dir: &Path, change: &RefChange) -> Result<(), Problem> {
    let short = change.name.trim_start_matches("refs/heads/");
    let Some(new) = change.new else {
        return Err(Problem::new(
            Code::PlanState,
            format!(
                "{short} is checked out in {}; check out another branch there first",
                dir.display()
            ),
        ));
    };
    let out = store.git_in(dir, &["reset", "--keep", "--quiet", &new.to_string()])?;
    if !out.status.success() {
        return Err(Problem::new(
            Code::DirtyWorktree,
            format!(
                "git reset --keep in {} refused to move {short} ({}); commit or stash the \
                 changes there first",
                dir.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        ));
    }
    Ok(())
}
