//! Refining a proposal: one round with the model on top of its branch (see
//! [`rounds::round`]), then, when more rounds are asked for and a check judged the first, the
//! fix rounds after it. `git papayu refine` and the MCP tool `papayu_refine` both run this.

use serde::Serialize;

use crate::codes::{Code, Problem, Problems};
use crate::engine::check::{CheckChoice, CheckReport};
use crate::engine::refine::{self, Refined};
use crate::executor::FileChange;
use crate::store::records::PlanRecord;
use crate::verdict::Verdict;

use super::Service;
use super::rounds::{self, Ended, FirstRound, round_goal};

/// What to refine and how.
pub struct Refine {
    /// Plan id (a unique prefix) or proposal branch; `None`: the newest plan on `HEAD`.
    pub plan: Option<String>,
    /// What to change in the proposal.
    pub feedback: String,
    /// Provider and model to ask, when not the configured ones.
    pub provider: Option<String>,
    pub model: Option<String>,
    /// The check to run before the branch moves.
    pub choice: CheckChoice,
    /// Rounds in all, this one included (1 to [`rounds::MAX_ROUNDS`]).
    pub rounds: u32,
}

/// How the first round ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The branch moved to (or was created at) the new commit.
    Committed,
    /// The model's answer changes nothing; the branch did not move.
    Unchanged,
    /// The new commit failed its check; the branch did not move and the plan is marked failed.
    CheckFailed,
}

/// What a refinement did: `refine --json`'s document and the `papayu_refine` tool's result.
#[derive(Debug, Serialize)]
pub struct Refinement {
    /// The plan the first round asked for.
    pub plan: PlanRecord,
    /// The plan it refines.
    pub refines: String,
    pub branch: String,
    /// The commit the branch moved to; `None` when nothing changed or the check failed.
    pub commit: Option<String>,
    pub changes: Vec<FileChange>,
    pub check: Option<CheckReport>,
    /// The first round's check, judged against the plan's base; `None` when no check ran.
    pub verdict: Option<Verdict>,
    /// Where the fix rounds after the first stopped, and why, when more than one was asked
    /// for and a check judged the first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rounds: Option<Ended>,
    #[serde(skip)]
    pub outcome: Outcome,
    /// The branch did not exist before: the refined proposal had failed its check.
    #[serde(skip)]
    pub creates: bool,
}

/// Refines the proposal `request.plan` names; the status lines (which plan was chosen, each
/// round) reach the service's observer, and each round writes its trace.
pub fn refine(service: &Service<'_>, request: Refine) -> Result<Refinement, Problems> {
    crate::engine::plan::check_goal("feedback", &request.feedback)?;
    let feedback = request.feedback.trim();
    let (mut target, why) = refine::target_explained(service.store, request.plan.as_deref())?;
    if let Some(why) = why {
        service.observer().status(&why);
    }
    target.feedback = feedback.to_string();
    let goal = round_goal(&target, feedback);
    let how = refine::How::configured(service.config, request.choice.clone())?;
    let refined = rounds::round(
        service,
        &target,
        (goal, request.provider, request.model),
        &how,
    )?;
    let first = first_round(&refined);
    let mut report = Refinement::of(refined, target);
    if request.rounds > 1
        && let Some(first) = first
    {
        service.observer().status(&format!(
            "round 1 of {}: {}",
            request.rounds,
            first.verdict.line()
        ));
        report.rounds = Some(rounds::run(service, first, request.rounds, request.choice)?);
    }
    Ok(report)
}

/// Where a refinement left its proposal, as the first of several rounds; `None` when no check
/// judged it (or it changed nothing).
fn first_round(refined: &Refined) -> Option<FirstRound> {
    let (planned, report, verdict) = match refined {
        Refined::Committed {
            planned,
            check: Some((report, verdict)),
            ..
        } => (planned, report, verdict),
        Refined::CheckFailed {
            planned,
            report,
            verdict,
        } => (planned, report, verdict),
        _ => return None,
    };
    Some(FirstRound::judged(&planned.record.id, report, verdict))
}

impl Refinement {
    /// Why the refinement did not reach its goal, as an error with the check's last output as
    /// its detail: its check failed (the branch did not move), or its fix rounds ended with
    /// tests still failing. `None` when it committed, changed nothing, or its rounds passed.
    pub fn failure(&self) -> Option<Problem> {
        let id = self.plan.short_id();
        if let Some(ended) = &self.rounds {
            let last = &ended.last[..10.min(ended.last.len())];
            return (!ended.reached).then(|| {
                Problem::new(
                    Code::CheckFailed,
                    format!(
                        "after {} rounds the check still leaves tests failing (last round {last}: {})",
                        ended.round, ended.stopped
                    ),
                )
                .with_hint(format!(
                    "see git papayu show {last}; refine it with git papayu refine {last} \"…\""
                ))
            });
        }
        let (Outcome::CheckFailed, Some(report), Some(verdict)) =
            (self.outcome, &self.check, &self.verdict)
        else {
            return None;
        };
        let problem = Problem::new(
            Code::CheckFailed,
            format!(
                "check `{}` failed ({}); {} was not {} and the refinement {id} is marked failed",
                report.command,
                verdict.line(),
                self.branch,
                if self.creates { "created" } else { "moved" },
            ),
        )
        .with_hint(format!(
            "refine it again from where it failed: git papayu refine {id} \"…\""
        ));
        Some(problem.with_detail(report.output_tail.clone()))
    }

    /// The report of `refined`, a round on top of `target`.
    fn of(refined: Refined, target: refine::Target) -> Refinement {
        let (outcome, planned, commit, check) = match refined {
            Refined::Committed {
                planned,
                commit,
                check,
            } => (Outcome::Committed, planned, Some(commit.to_string()), check),
            Refined::NothingChanged { planned } => (Outcome::Unchanged, planned, None, None),
            Refined::CheckFailed {
                planned,
                report,
                verdict,
            } => (Outcome::CheckFailed, planned, None, Some((report, verdict))),
        };
        let (check, verdict) = check.map_or((None, None), |(r, v)| (Some(r), Some(v)));
        Refinement {
            plan: planned.record,
            refines: target.record.id,
            branch: target.branch,
            commit,
            changes: planned.changes,
            check,
            verdict,
            rounds: None,
            outcome,
            creates: target.creates,
        }
    }
}
