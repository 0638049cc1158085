//! Undo and redo: invert the newest operation in the log, by compare-and-swap.
//!
//! Every ref the operation changed must still hold the value the operation left there; if the
//! user (or anyone) moved one since, undo refuses and changes nothing. When the operation moved
//! the branch that is checked out (a merge), the working tree follows with `git reset --keep`,
//! which refuses rather than overwrite local changes.

use crate::codes::{Code, Problem};
use crate::store::oplog::{self, Entry, OpKind, Pending};
use crate::store::refs::RefChange;
use crate::store::{OPLOG_REF, Store};

/// What undo or redo did.
pub struct Reverted {
    /// The operation that was inverted (for redo: the undo that was inverted).
    pub target: Entry,
    pub changes: Vec<RefChange>,
}

pub fn undo(store: &Store) -> Result<Reverted, Problem> {
    let entries = oplog::entries(store)?;
    let target = oplog::undo_target(&entries)
        .cloned()
        .ok_or_else(|| Problem::new(Code::NothingToUndo, "no papayu operation left to undo"))?;
    revert(store, target, OpKind::Undo)
}

pub fn redo(store: &Store) -> Result<Reverted, Problem> {
    let entries = oplog::entries(store)?;
    let target = oplog::redo_target(&entries).cloned().ok_or_else(|| {
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
        .filter(|c| c.name != OPLOG_REF)
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
    let head = store.head_branch();
    let (checked_out, others): (Vec<RefChange>, Vec<RefChange>) = changes
        .iter()
        .cloned()
        .partition(|c| Some(&c.name) == head.as_ref() && store.repo.workdir().is_some());
    let description = match kind {
        OpKind::Redo => format!("redo {}", target.op.description.trim_start_matches("undo ")),
        _ => format!("undo {}", target.op.description),
    };
    let mut pending = Pending::new(kind, description);
    pending.target = Some(target.id.to_string());
    pending.refs = others;
    if let Some(change) = checked_out.first() {
        super::review::require_clean(store)?;
        move_checked_out(store, change)?;
        pending.recorded.push(change.clone());
    }
    if let Err(e) = oplog::commit(store, &pending) {
        // Put the checked-out branch back so the failure leaves everything as it was.
        if let Some(change) = checked_out.first() {
            let _ = move_checked_out(store, &change.inverse());
        }
        return Err(e.into());
    }
    Ok(Reverted { target, changes })
}

/// Moves the checked-out branch and its working tree with `git reset --keep`.
fn move_checked_out(store: &Store, change: &RefChange) -> Result<(), Problem> {
    let Some(new) = change.new else {
        return Err(Problem::new(
            Code::PlanState,
            format!(
                "{} is checked out; check out another branch first",
                change.name
            ),
        ));
    };
    let mut cmd = super::review::git_here(store)?;
    cmd.args(["reset", "--keep", "--quiet"])
        .arg(new.to_string());
    let out = cmd
        .output()
        .map_err(|e| Problem::new(Code::Io, format!("running git reset: {e}")))?;
    if !out.status.success() {
        return Err(Problem::new(
            Code::DirtyWorktree,
            format!(
                "git reset --keep refused ({}); commit or stash your changes first",
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        ));
    }
    Ok(())
}
