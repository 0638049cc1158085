//! Refining a proposal: a new round with a model on top of the proposal branch, recorded as
//! a new plan (a note on the branch tip) and a new commit on the same branch, in one operation.
//!
//! The branch moves only if its tip is still a commit papayu made for this plan (or for one of
//! its earlier refinements), only after the new commit passed the check, and by
//! compare-and-swap, so a teammate's commit on the branch or a concurrent command is never
//! overwritten. Undo moves the branch back.

use super::apply::commit_message;
use super::attribution::Attribution;
use super::check::{self, CheckChoice, CheckReport, CheckSettings};
use super::plan::{Candidate, Planned, Provenance, prepare};
use crate::codes::{Code, Problem, Problems};
use crate::store::oplog::{self, OpKind, Pending};
use crate::store::records::{Event, EventKind, PlanRecord};
use crate::store::refs::RefChange;
use crate::store::{Oid, Store, worktree};
use crate::verdict::{CheckStatus, Verdict};

/// The proposal a refinement builds on.
#[derive(Debug, Clone)]
pub struct Target {
    pub record: PlanRecord,
    pub branch: String,
    pub tip: Oid,
    /// Paths the proposal changed relative to the plan's base.
    pub changed: Vec<String>,
    /// The review feedback this refinement addresses (kept on the `refined` event).
    pub feedback: String,
}

/// How a refinement ended.
pub enum Refined {
    Committed {
        planned: Planned,
        commit: Oid,
        check: Option<CheckReport>,
    },
    NothingChanged {
        planned: Planned,
    },
    CheckFailed {
        planned: Planned,
        report: CheckReport,
    },
}

/// Finds the applied proposal named by `spec` (plan id or branch) and checks that papayu may
/// move its branch: the branch's tip must be papayu's own commit for the plan that owns it (a
/// refined branch belongs to its newest refinement), with no commit of anyone else on top.
pub fn target(store: &Store, spec: Option<&str>) -> Result<Target, Problem> {
    let (mut ledger, mut record) = super::find::find(store, spec)?;
    // A branch named by a plan that no longer owns it: its newest refinement does.
    if ledger.proposal(&record.id).is_none()
        && let Some(name) = spec.map(|s| s.trim().trim_start_matches("refs/heads/"))
        && let Some(owner) = ledger
            .local
            .iter()
            .find(|(_, branches)| branches.iter().any(|b| b.name == name))
            .map(|(id, _)| id.clone())
        && let Ok(found) = super::find::find(store, Some(&owner))
    {
        (ledger, record) = found;
    }
    let Some(branch) = ledger.proposal(&record.id).cloned() else {
        return Err(Problem::new(
            Code::PlanState,
            format!(
                "plan {} has no proposal branch here ({}); apply it first with git papayu apply {}",
                record.short_id(),
                ledger.status(&record.id).as_str(),
                record.short_id()
            ),
        ));
    };
    if !branch.is_pristine() {
        return Err(Problem::new(
            Code::ForeignCommits,
            format!(
                "{} holds commits papayu did not make (newest {}); refine only papayu's own proposals, or move your commits to another branch",
                branch.name,
                crate::store::short(branch.tip)
            ),
        ));
    }
    let base = record.base;
    let changed = store.changed_paths(base, branch.tip)?;
    Ok(Target {
        record,
        branch: branch.name,
        tip: branch.tip,
        changed,
        feedback: String::new(),
    })
}

/// Records the refined plan, commits it on the branch after its check, as one operation.
pub fn advance(
    store: &Store,
    target: &Target,
    candidate: Candidate,
    provenance: Provenance,
    choice: &CheckChoice,
    settings: &CheckSettings,
    attribution: Attribution,
) -> Result<Refined, Problems> {
    let planned = prepare(store, candidate, provenance)?;
    let record = &planned.record;
    let preview = record.preview.expect("prepared plans have a preview");
    let tree = store.commit_tree(preview)?;
    let tip_tree = store.commit_tree(target.tip)?;
    let line = record.to_line();
    if tree == tip_tree {
        let mut pending = Pending::new(
            OpKind::Refine,
            format!("refine {} (no change)", target.record.short_id()),
        );
        pending.note_lines.push((target.tip, line));
        pending.note_lines.extend(planned.conversation.clone());
        pending.keep.push(preview);
        oplog::commit(store, &pending)?;
        return Ok(Refined::NothingChanged { planned });
    }
    let commit = store.commit_for_user(target.tip, tree, &commit_message(record, attribution))?;
    let mut report = None;
    let base = target.record.base;
    if let Some(resolved) = check::resolve(store, choice, settings, base)? {
        let slot = worktree::acquire(store, worktree::SlotKind::Proposal, &mut |_| {})?;
        let result = check::run(
            store,
            &slot,
            commit,
            (&resolved, None),
            &record.id,
            settings,
            &mut |_: &[u8]| {},
        )?;
        if !result.passed {
            let mut failed = Event::new(&record.id, EventKind::Failed);
            failed.commit = Some(commit);
            failed.exit_code = result.exit_code;
            failed.output_tail = Some(crate::context::mask_secrets(&result.output_tail));
            failed.check = Some(Box::new(by_exit_status(&result)));
            let mut pending = Pending::new(
                OpKind::Refine,
                format!("refine {} (check failed)", target.record.short_id()),
            );
            pending.note_lines.push((target.tip, line));
            pending.note_lines.push((target.tip, failed.to_line()));
            pending.note_lines.extend(planned.conversation.clone());
            pending.keep.extend([preview, commit]);
            oplog::commit(store, &pending)?;
            return Ok(Refined::CheckFailed {
                planned,
                report: result,
            });
        }
        report = Some(result);
    }
    let mut event = Event::new(&target.record.id, EventKind::Refined);
    event.branch = Some(target.branch.clone());
    event.commit = Some(commit);
    event.detail = Some(record.id.clone());
    // Notes are shared: a key pasted into the feedback must not travel with them.
    event.feedback =
        Some(crate::context::mask_secrets(target.feedback.trim())).filter(|f| !f.is_empty());
    let mut pending = Pending::new(
        OpKind::Refine,
        format!("refine {} on {}", target.record.short_id(), target.branch),
    );
    pending.refs.push(RefChange::new(
        format!("refs/heads/{}", target.branch),
        Some(target.tip),
        Some(commit),
    ));
    pending.note_lines.push((target.tip, line));
    // The refinement is the proposal on the branch now: its own `applied` event carries its
    // check, so list, show and compare say how it fared.
    let mut applied = Event::new(&record.id, EventKind::Applied);
    applied.branch = Some(target.branch.clone());
    applied.commit = Some(commit);
    applied.check = report.as_ref().map(|r| Box::new(by_exit_status(r)));
    pending.note_lines.push((target.tip, applied.to_line()));
    let parent_base = target.record.base;
    pending.note_lines.push((parent_base, event.to_line()));
    pending.keep.push(preview);
    oplog::commit(store, &pending)?;
    Ok(Refined::Committed {
        planned,
        commit,
        check: report,
    })
}

/// A refinement's check as a verdict: by its exit status (a refinement is not judged against
/// its base test by test).
fn by_exit_status(report: &CheckReport) -> Verdict {
    Verdict {
        status: match report.passed && !report.timed_out {
            true => CheckStatus::Passed,
            false => CheckStatus::Failed,
        },
        ..Verdict::unchecked()
    }
}
