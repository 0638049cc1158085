//! Fix rounds: when a proposal's check leaves its target failing, the model is told what failed
//! and asked for a corrected plan against the proposal's files, up to `--rounds N` in all.
//!
//! Each round is a refinement (see [`round`]): a new plan, a new commit on top of
//! the previous round's (kept when it failed), checked against the plan's base test by test,
//! one operation that `undo` takes back. Rounds stop when the check passes with nothing broken
//! and no test weakened; when a round makes no progress (the same tests fail as in the round
//! before, or the answer changes nothing); at the cost cap; at the round cap. Every stop says
//! why, in one line.

use crate::ask::session::Ask;
use crate::codes::{Code, Problem, Problems};
use crate::engine::attribution::Attribution;
use crate::engine::check::{CheckChoice, CheckReport};
use crate::engine::refine::{self, Failure, Refined};
use crate::settings::Settings;
use crate::trace::record;
use crate::verdict::{CheckStatus, Verdict};

use super::Service;

/// The most rounds one command may run, the first included.
pub const MAX_ROUNDS: u32 = 5;

/// `--rounds` when given, else `papayu.rounds`, else 1 (one round: no fix rounds).
pub fn configured(flag: Option<u32>, config: &Settings) -> Result<u32, Problem> {
    if let Some(n) = flag {
        return Ok(n);
    }
    // Its declaration takes 1 to MAX_ROUNDS.
    Ok(config
        .number("papayu.rounds")?
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or(1))
}

/// Whether the round reached its target: the check passed, nothing is broken, no test weakened.
fn met(verdict: &Verdict) -> bool {
    verdict.status == CheckStatus::Passed && !verdict.breaks_any() && !verdict.weakens_tests()
}

/// What failed, as a set to compare rounds by.
fn failing_set(verdict: &Verdict) -> Vec<String> {
    let mut set: Vec<String> = verdict
        .broken
        .iter()
        .chain(&verdict.failing)
        .cloned()
        .chain(verdict.reason.clone())
        .collect();
    set.sort();
    set
}

/// Where a plan's round ended: the first as `apply` reported it, then each fix round.
pub struct FirstRound {
    pub plan: String,
    pub verdict: Verdict,
    pub command: String,
    pub output_tail: String,
}

impl FirstRound {
    /// A plan as its check judged it.
    pub fn judged(plan: &str, report: &CheckReport, verdict: &Verdict) -> FirstRound {
        FirstRound {
            plan: plan.to_string(),
            verdict: verdict.clone(),
            command: report.command.clone(),
            output_tail: report.output_tail.clone(),
        }
    }
}

/// How fix rounds ended.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Ended {
    /// The plan the last round left.
    pub last: String,
    /// Whether its check reached the target: passed, nothing broken, no test weakened.
    pub reached: bool,
    /// The round the rounds stopped after, and why.
    pub round: u32,
    pub stopped: String,
    /// The last round's verdict.
    pub verdict: Verdict,
}

/// Runs rounds 2..=`rounds` after `first`; says where and why they stopped, in one line.
pub fn run(
    service: &Service<'_>,
    first: FirstRound,
    rounds: u32,
    choice: CheckChoice,
) -> Result<Ended, Problems> {
    let how = refine::How::configured(service.config, choice)?;
    let observer = service.observer();
    let mut last = first;
    let mut previous = failing_set(&last.verdict);
    let end = |round: u32, why: String, last: FirstRound| {
        observer.status(&format!("rounds: stopped after round {round}: {why}"));
        Ended {
            last: last.plan,
            reached: met(&last.verdict),
            round,
            stopped: why,
            verdict: last.verdict,
        }
    };
    for round in 2..=rounds {
        if met(&last.verdict) {
            let why = "the check passes and nothing is broken".to_string();
            return Ok(end(round - 1, why, last));
        }
        observer.status(&format!(
            "round {round} of {rounds}: asking for a correction ({})",
            last.verdict.line()
        ));
        let next = match one_round(service, &how, &last, (round, rounds))? {
            Ok(next) => next,
            Err((plan, why)) => {
                if let Some(plan) = plan {
                    last.plan = plan;
                }
                return Ok(end(round, why, last));
            }
        };
        observer.status(&format!("round {round}: {}", next.verdict.line()));
        let now = failing_set(&next.verdict);
        if !met(&next.verdict) && now == previous {
            let why = match (now.is_empty(), next.verdict.weakens.first()) {
                (true, Some(weakened)) => format!("the round weakens tests ({weakened})"),
                _ => format!("no progress: the same tests fail as in round {}", round - 1),
            };
            return Ok(end(round, why, next));
        }
        (previous, last) = (now, next);
    }
    let why = match met(&last.verdict) {
        true => "the check passes and nothing is broken".to_string(),
        false => format!("the round cap ({rounds}) was reached"),
    };
    Ok(end(rounds, why, last))
}

/// Round `round` of `rounds` on top of `last`: where it ended, or why the rounds stop (with
/// the plan it left, when it made one).
fn one_round(
    service: &Service<'_>,
    how: &refine::How,
    last: &FirstRound,
    (round, rounds): (u32, u32),
) -> Result<Result<FirstRound, (Option<String>, String)>, Problems> {
    let mut target = refine::target(service.store, Some(&last.plan))?;
    target.failure = Some(Failure {
        command: Some(last.command.clone()),
        verdict: last.verdict.clone(),
        output_tail: crate::context::mask_secrets(&last.output_tail),
    });
    target.feedback = format!("fix round {round} of {rounds}");
    let goal = round_goal(&target, "make the failing tests pass");
    let refined = match self::round(service, &target, (goal, None, None), how) {
        Err(problems) if problems.iter().any(|p| p.code == Code::CostCap) => {
            return Ok(Err((None, "the cost cap was reached".into())));
        }
        // An answer that could not be used even after its repair ends the rounds, said in one
        // line like every stop; the last round stays as it was.
        Err(problems) if !problems.is_empty() => {
            let first = &problems[0];
            let why = format!(
                "the model's answer could not be used ({}: {})",
                first.code.as_str(),
                first.reason
            );
            return Ok(Err((None, why)));
        }
        other => other?,
    };
    let (planned, report, verdict) = match refined {
        Refined::NothingChanged { .. } => {
            return Ok(Err((None, "the model's answer changes nothing".into())));
        }
        Refined::Committed {
            planned,
            check: Some((report, verdict)),
            ..
        } => (planned, report, verdict),
        Refined::Committed { planned, .. } => {
            let plan = Some(planned.record.id.clone());
            return Ok(Err((plan, "no check ran to judge it".into())));
        }
        Refined::CheckFailed {
            planned,
            report,
            verdict,
        } => (planned, report, verdict),
    };
    Ok(Ok(FirstRound {
        plan: planned.record.id.clone(),
        verdict,
        command: last.command.clone(),
        output_tail: report.output_tail,
    }))
}

/// What the model is asked in a refinement round: the goal, where the proposal stands (on its
/// branch, or the commit whose check failed, with what failed), and the feedback.
pub fn round_goal(target: &refine::Target, feedback: &str) -> String {
    let goal = target.record.goal.trim();
    let files = target.changed.join(", ");
    match &target.failure {
        None => format!(
            "{goal}\n\nThe proposal on branch {} already makes a change for this goal; its files are shown as they are now on that branch ({files}). Review feedback to address: {feedback}",
            target.branch
        ),
        Some(failure) => format!(
            "{goal}\n\nA proposal for this goal was made, but its check failed; its files are shown as the proposal left them ({files}). Correct the plan against these files so that the check passes, without deleting, skipping or loosening any test.\n\n{}\n\nReview feedback to address: {feedback}",
            failure.describe()
        ),
    }
}

/// One refinement round: asks the model with `goal` on top of `target`, checks and commits the
/// answer (see [`refine::advance`]), and writes the round's trace, whatever happened.
pub fn round(
    service: &Service<'_>,
    target: &refine::Target,
    (goal, provider, model): (String, Option<String>, Option<String>),
    how: &refine::How,
) -> Result<Refined, Problems> {
    let (store, config) = (service.store, service.config);
    let ask = Ask {
        provider,
        model,
        ..Ask::plan(goal, target.tip)
    };
    let tracer = service.tracer();
    let mut candidates = super::ask::ask_models(service, ask, &tracer, "refine")?;
    let (candidate, mut provenance, mut trace) = candidates.remove(0);
    // The refined plan keeps the goal; the feedback was only for the model.
    provenance.goal = target.record.goal.clone();
    // It stands for the same proposal: it competes in the same group, in its place.
    provenance.group = target.record.group.clone();
    // A fix of a reproduced problem stays checked against its reproduction.
    provenance.repro = target.record.repro.clone();
    provenance.conversation = Some(crate::trace::conversation::of_trace(&trace));
    trace.branch = Some(target.branch.clone());
    let attribution = Attribution::configured(config)?;
    let refined = refine::advance(store, target, candidate, provenance, how, attribution);
    match &refined {
        Ok(Refined::Committed { planned, check, .. }) => {
            record::plan_stored(&mut trace, planned);
            trace.check = check.as_ref().map(|(report, _)| record::check_log(report));
            tracer.write(store, &trace);
        }
        Ok(Refined::NothingChanged { planned }) => {
            record::plan_stored(&mut trace, planned);
            tracer.write(store, &trace);
        }
        Ok(Refined::CheckFailed {
            planned, report, ..
        }) => {
            record::plan_stored(&mut trace, planned);
            trace.check = Some(record::check_log(report));
            let failed = Problem::new(
                Code::CheckFailed,
                format!("check `{}` failed", report.command),
            );
            tracer.write_failed(store, &mut trace, &[failed]);
        }
        Err(problems) => tracer.write_failed(store, &mut trace, problems),
    }
    refined
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_is_a_pass_with_nothing_broken_or_weakened() {
        let passed = Verdict {
            status: CheckStatus::Passed,
            fixes: Some(1),
            breaks: Some(0),
            still_failing: Some(0),
            ..Verdict::unchecked()
        };
        assert!(met(&passed));
        let weakened = Verdict {
            weakens: vec!["t (skipped)".into()],
            ..passed.clone()
        };
        assert!(!met(&weakened));
        let partial = Verdict {
            status: CheckStatus::Partial,
            failing: vec!["t::b".into()],
            ..passed.clone()
        };
        assert!(!met(&partial));
        assert_eq!(failing_set(&partial), vec!["t::b".to_string()]);
    }
}
