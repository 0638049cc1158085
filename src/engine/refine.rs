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
use crate::executor::FileChange;
use crate::store::oplog::{self, OpKind, Pending};
use crate::store::records::{Event, EventKind, PlanRecord};
use crate::store::refs::RefChange;
use crate::store::{Oid, Store};
use crate::verdict::{BaseRun, Verdict};

/// The proposal a refinement builds on.
#[derive(Debug, Clone)]
pub struct Target {
    pub record: PlanRecord,
    pub branch: String,
    pub tip: Oid,
    /// The branch does not exist yet: the proposal failed its check, and `tip` is the commit
    /// that failed (kept as the failed round); the refinement creates the branch on success.
    pub creates: bool,
    /// The base of the plan the refinement chain started from (see [`chain_base`]): what every
    /// round is judged against, unless a reproduction stands under it.
    pub base: Oid,
    /// The newest check's verdict and output, when the proposal failed it: what the model is
    /// told went wrong.
    pub failure: Option<Failure>,
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
        /// The check and its verdict against the plan's base, when one ran.
        check: Option<(CheckReport, crate::verdict::Verdict)>,
    },
    NothingChanged {
        planned: Planned,
    },
    CheckFailed {
        planned: Planned,
        report: CheckReport,
        verdict: crate::verdict::Verdict,
    },
}

/// How a refinement is checked: the check to run, its settings, where its per-test results
/// come from.
pub struct How {
    pub choice: CheckChoice,
    pub settings: CheckSettings,
    pub sources: super::baseline::Sources,
}

impl How {
    /// `choice` with the check's settings and result sources as configured.
    pub fn configured(
        config: &crate::settings::Settings,
        choice: CheckChoice,
    ) -> Result<How, Problem> {
        Ok(How {
            choice,
            settings: CheckSettings::resolve(config, false, None)?,
            sources: super::baseline::Sources::resolve(config)?,
        })
    }
}

/// What a failed check said, for the next round.
#[derive(Debug, Clone)]
pub struct Failure {
    pub command: Option<String>,
    pub verdict: crate::verdict::Verdict,
    /// The last lines of the check's output, masked.
    pub output_tail: String,
}

/// The most characters of a failed check's output sent to the model: its first and last lines
/// within this budget, the middle cut.
pub const FAILURE_OUTPUT_BUDGET: usize = 3000;

impl Failure {
    /// The failure as the model is told it: the tests that matter, and the output's head and
    /// tail within [`FAILURE_OUTPUT_BUDGET`] characters.
    pub fn describe(&self) -> String {
        let v = &self.verdict;
        let mut lines = vec![match &self.command {
            Some(c) => format!("The check `{c}` failed ({}).", v.line()),
            None => format!("The check failed ({}).", v.line()),
        }];
        for (label, names) in [
            ("Tests it broke", &v.broken),
            ("Tests still failing", &v.failing),
        ] {
            if !names.is_empty() {
                lines.push(format!("{label}: {}.", names.join(", ")));
            }
        }
        lines.push(format!(
            "Its output (trimmed):\n{}",
            trim_middle(&self.output_tail, FAILURE_OUTPUT_BUDGET)
        ));
        lines.join("\n")
    }
}

/// `text` within `budget` characters: its head and tail, the middle replaced by a marker.
pub fn trim_middle(text: &str, budget: usize) -> String {
    let count = text.chars().count();
    if count <= budget {
        return text.to_string();
    }
    let half = budget / 2;
    let head: String = text.chars().take(half).collect();
    let tail: String = text.chars().skip(count - half).collect();
    format!("{head}\n[… {} characters cut …]\n{tail}", count - 2 * half)
}

/// Finds the applied proposal named by `spec` (plan id or branch) and checks that papayu may
/// move its branch: the branch's tip must be papayu's own commit for the plan that owns it (a
/// refined branch belongs to its newest refinement), with no commit of anyone else on top.
pub fn target(store: &Store, spec: Option<&str>) -> Result<Target, Problem> {
    target_explained(store, spec).map(|(target, _)| target)
}

/// [`target`], and when no plan was named, one sentence saying which plan was chosen and why
/// (the newest plan on `HEAD`, as `apply` chooses it).
pub fn target_explained(
    store: &Store,
    spec: Option<&str>,
) -> Result<(Target, Option<String>), Problem> {
    let (mut ledger, mut record, why) = super::find::find_explained(store, spec)?;
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
    if ledger.proposal(&record.id).is_none()
        && let Some(target) = failed_target(store, &ledger, &record)?
    {
        return Ok((target, why));
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
    let base = chain_base(store, &record)?;
    let changed = store.changed_paths(base, branch.tip)?;
    let target = Target {
        record,
        branch: branch.name,
        tip: branch.tip,
        creates: false,
        base,
        failure: None,
        changed,
        feedback: String::new(),
    };
    Ok((target, why))
}

/// A plan whose newest check failed: the refinement starts from the commit that failed, told
/// what failed, and creates the proposal branch when it passes.
fn failed_target(
    store: &Store,
    ledger: &crate::store::records::Ledger,
    record: &PlanRecord,
) -> Result<Option<Target>, Problem> {
    if ledger.status(&record.id) != crate::store::records::Status::Failed {
        return Ok(None);
    }
    let Some(event) = ledger
        .events_of(&record.id)
        .iter()
        .rev()
        .find(|e| e.event == EventKind::Failed)
    else {
        return Ok(None);
    };
    let Some(tip) = event.commit.filter(|c| store.commit_tree(*c).is_ok()) else {
        return Ok(None);
    };
    let verdict = event
        .check
        .as_deref()
        .cloned()
        .unwrap_or_else(|| crate::verdict::Verdict {
            status: crate::verdict::CheckStatus::Failed,
            ..crate::verdict::Verdict::unchecked()
        });
    let base = chain_base(store, record)?;
    Ok(Some(Target {
        record: record.clone(),
        branch: super::apply::branch_name(record),
        tip,
        creates: true,
        base,
        failure: Some(Failure {
            command: None,
            verdict,
            output_tail: event.output_tail.clone().unwrap_or_default(),
        }),
        changed: store.changed_paths(base, tip)?,
        feedback: String::new(),
    }))
}

/// The base a refinement chain is judged against: the base of the plan the chain started from.
/// Each round's record is based on the commit of the round before, which names its plan in its
/// `Papayu-Plan:` trailer; the walk stops at a commit that names no plan of the same goal (or a
/// reproduction, which is judged through its own link).
pub fn chain_base(store: &Store, record: &PlanRecord) -> Result<Oid, Problem> {
    // By id as stored: `find` would follow a refined plan to its newest refinement.
    let ledger = store.ledger()?;
    let mut current = record;
    for _ in 0..64 {
        let message = store.commit_message(current.base)?;
        let Some(id) = crate::store::proposals::trailer_plan(&message) else {
            break;
        };
        let Some(parent) = ledger.records.iter().find(|r| r.id == id) else {
            break;
        };
        if parent.goal != current.goal || parent.kind.is_some() || parent.id == current.id {
            break;
        }
        current = parent;
    }
    Ok(current.base)
}

/// Records the refined plan, commits it on the branch after its check, as one operation.
pub fn advance(
    store: &Store,
    target: &Target,
    candidate: Candidate,
    provenance: Provenance,
    how: &How,
    attribution: Attribution,
) -> Result<Refined, Problems> {
    let planned = prepare(store, candidate, provenance)?;
    let record = &planned.record;
    let preview = record
        .preview
        .ok_or_else(|| Problem::new(Code::Internal, "the refined plan has no preview commit"))?;
    let tree = store.commit_tree(preview)?;
    let tip_tree = store.commit_tree(target.tip)?;
    if tree == tip_tree {
        record_unchanged(store, target, &planned, preview)?;
        return Ok(Refined::NothingChanged { planned });
    }
    let commit = store.commit_for_user(target.tip, tree, &commit_message(record, attribution))?;
    match check_round(store, target, how, &planned, commit)? {
        Some((report, verdict)) if !verdict.kept() => {
            record_failed_check(
                store,
                target,
                &planned,
                (preview, commit),
                (&report, &verdict),
            )?;
            Ok(Refined::CheckFailed {
                planned,
                report,
                verdict,
            })
        }
        check => {
            let verdict = check.as_ref().map(|(_, verdict)| verdict);
            record_committed(store, target, &planned, (preview, commit), verdict)?;
            Ok(Refined::Committed {
                planned,
                commit,
                check,
            })
        }
    }
}

/// Records a round that changed nothing: the plan, kept beside the proposal it left as it was.
fn record_unchanged(
    store: &Store,
    target: &Target,
    planned: &Planned,
    preview: Oid,
) -> Result<(), Problems> {
    let mut pending = Pending::new(
        OpKind::Refine,
        format!("refine {} (no change)", target.record.short_id()),
    );
    pending
        .note_lines
        .push((target.tip, planned.record.to_line()));
    pending.note_lines.extend(planned.conversation.clone());
    pending.keep.push(preview);
    oplog::commit(store, &pending)?;
    Ok(())
}

/// Runs the check on the round's `commit`, when one is configured. It is judged against the
/// plan's base, or — for a fix of a reproduced problem — against the reproduction's commit,
/// whose tests the round must make pass.
fn check_round(
    store: &Store,
    target: &Target,
    how: &How,
    planned: &Planned,
    commit: Oid,
) -> Result<Option<(CheckReport, Verdict)>, Problems> {
    let repro = super::repro::link(store, &target.record)?;
    let base = match &repro {
        Some(link) => link.commit,
        None => target.base,
    };
    let Some(resolved) = check::resolve(store, &how.choice, &how.settings, base)? else {
        return Ok(None);
    };
    let (result, mut verdict, base_run) = super::apply::check_proposal(
        store,
        (base, commit),
        (&resolved, &planned.changes),
        (&how.settings, &how.sources),
        &planned.record.id,
        &mut |_| {},
    )?;
    // Whether tests are weakened is judged on what the chain changed since the base, not on
    // this round alone: a round that puts back what an earlier one loosened weakens nothing.
    let since_base = super::weaken::changes_between(store, base, commit)?;
    verdict.weakens = weakened_since_base(&since_base, &base_run);
    if let Some(link) = &repro {
        link.judge(&mut verdict, &since_base);
    }
    Ok(Some((result, verdict)))
}

/// The tests failing at the base (`base_run`) that the changes `since_base` weaken, as the
/// verdict lists them.
fn weakened_since_base(since_base: &[FileChange], base_run: &BaseRun) -> Vec<String> {
    let failing: Vec<String> = base_run
        .tests
        .iter()
        .filter(|(_, passed)| !**passed)
        .map(|(name, _)| name.clone())
        .collect();
    super::weaken::weakened(since_base, &failing)
        .iter()
        .map(super::weaken::Weakened::line)
        .take(crate::verdict::NAMES_KEPT)
        .collect()
}

/// Records a round whose check failed: the plan and its `failed` event; the branch stays.
fn record_failed_check(
    store: &Store,
    target: &Target,
    planned: &Planned,
    (preview, commit): (Oid, Oid),
    (result, verdict): (&CheckReport, &Verdict),
) -> Result<(), Problems> {
    let mut failed = Event::new(&planned.record.id, EventKind::Failed);
    failed.commit = Some(commit);
    failed.exit_code = result.exit_code;
    failed.check = Some(Box::new(super::apply::shared(verdict)));
    failed.output_tail = Some(crate::context::mask_secrets(&result.output_tail));
    let mut pending = Pending::new(
        OpKind::Refine,
        format!("refine {} (check failed)", target.record.short_id()),
    );
    pending
        .note_lines
        .push((target.tip, planned.record.to_line()));
    pending.note_lines.push((target.tip, failed.to_line()));
    pending.note_lines.extend(planned.conversation.clone());
    pending.keep.extend([preview, commit]);
    oplog::commit(store, &pending)?;
    Ok(())
}

/// Moves the branch to the round's `commit` and records the plan, its `applied` event (with
/// the check's `verdict`, when one ran) and the parent's `refined` event.
fn record_committed(
    store: &Store,
    target: &Target,
    planned: &Planned,
    (preview, commit): (Oid, Oid),
    verdict: Option<&Verdict>,
) -> Result<(), Problems> {
    let record = &planned.record;
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
        (!target.creates).then_some(target.tip),
        Some(commit),
    ));
    pending.note_lines.push((target.tip, record.to_line()));
    // The refinement is the proposal on the branch now: its own `applied` event carries its
    // check, so list, show and compare say how it fared.
    let mut applied = Event::new(&record.id, EventKind::Applied);
    applied.branch = Some(target.branch.clone());
    applied.commit = Some(commit);
    applied.check = verdict.map(|verdict| Box::new(super::apply::shared(verdict)));
    pending.note_lines.push((target.tip, applied.to_line()));
    pending
        .note_lines
        .push((target.record.base, event.to_line()));
    pending.keep.push(preview);
    oplog::commit(store, &pending)?;
    Ok(())
}
