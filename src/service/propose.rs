//! Propose a change in one call: an optional reproduction first, the plan (the agent's own
//! text, or papayu's configured model), applied as a commit on a `papayu/*` branch with the
//! user's own check, and fix rounds while the check leaves tests failing. The MCP server's
//! `papayu_propose` is this operation.

use serde::Serialize;

use crate::ask::session::Ask;
use crate::codes::{Code, Problem, Problems};
use crate::engine::apply::Outcome;
use crate::engine::check::{CheckChoice, CheckReport};
use crate::engine::find::find;
use crate::executor::{ChangeKind, FileChange};
use crate::present::diffstat::diffstat;
use crate::store::Oid;
use crate::store::records::PlanRecord;
use crate::verdict::Verdict;

use super::Service;
use super::apply::Apply;
use super::paste::{self, Kind};
use super::repro::{self, Asking, Attempt, Source};
use super::rounds::{self, Ended, FirstRound};

/// What to propose.
pub struct Propose {
    pub goal: String,
    pub base: Oid,
    /// The agent's own plan text; without it papayu's configured model is asked.
    pub answer: Option<String>,
    /// Who proposes (the agent's name, for the plan's provenance).
    pub agent: String,
    /// Rounds in all, the first included (1: no fix rounds).
    pub rounds: u32,
    /// Where a reproduction comes from, when one is wanted first.
    pub repro: Option<Source>,
    /// Logs or error reports for the model's context, as (name, text): `plan --log`.
    pub logs: Vec<(String, String)>,
}

/// What a proposal came to.
#[derive(Debug, Serialize)]
pub struct Proposal {
    pub id: String,
    pub goal: String,
    /// The proposal branch; `None` when the plan changes nothing or its check failed.
    pub branch: Option<String>,
    pub commit: Option<String>,
    pub diffstat: Diffstat,
    pub check: Option<CheckSummary>,
    pub verdict: Option<Verdict>,
    /// The other plans the same request stored (samples, other providers).
    pub other_plans: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repro: Option<Attempt>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rounds: Option<Ended>,
}

/// The files a proposal changes, and `git diff --stat`'s text of them.
#[derive(Debug, Serialize)]
pub struct Diffstat {
    pub files: Vec<ChangedFile>,
    pub text: String,
}

#[derive(Debug, Serialize)]
pub struct ChangedFile {
    pub path: String,
    pub kind: ChangeKind,
}

/// The check that judged a proposal.
#[derive(Debug, Serialize)]
pub struct CheckSummary {
    pub command: String,
    pub passed: bool,
    pub exit_code: Option<i32>,
    pub output_tail: String,
}

impl From<&CheckReport> for CheckSummary {
    fn from(c: &CheckReport) -> Self {
        CheckSummary {
            command: c.command.clone(),
            passed: c.passed,
            exit_code: c.exit_code,
            output_tail: c.output_tail.clone(),
        }
    }
}

impl Diffstat {
    fn of(changes: &[FileChange]) -> Diffstat {
        Diffstat {
            files: changes
                .iter()
                .map(|c| ChangedFile {
                    path: c.path.clone(),
                    kind: c.kind,
                })
                .collect(),
            text: diffstat(changes, 80),
        }
    }
}

/// Proposes `request`: stores its plans, applies the first with the configured check, and
/// runs its fix rounds. A failed check is an error (the plan stays stored) unless rounds
/// follow to correct it.
pub fn propose(service: &Service<'_>, request: Propose) -> Result<Proposal, Problems> {
    let Propose {
        goal,
        base,
        answer,
        agent,
        rounds,
        repro: source,
        logs,
    } = request;
    let tried = match source {
        None => repro::Repro::default(),
        Some(source) => {
            let asking = Asking {
                provider: None,
                model: None,
                max_cost: None,
                source,
            };
            repro::first(service, (base, &goal), Some(true), &asking)?
        }
    };
    let reproduced = tried.reproduced.as_ref();
    let kind = Kind {
        kind: None,
        repro: reproduced.map(|r| r.record.id.clone()),
    };
    let planned = match answer {
        Some(answer) => vec![paste::agent_answer(
            service,
            (goal.clone(), base),
            &answer,
            (&agent, &kind),
        )?],
        None => {
            let ask = Ask {
                logs,
                ..Ask::plan(goal, base)
            };
            super::ask::ask_and_store(service, ask, reproduced)?
        }
    };
    let first = &planned[0].record;
    let others = planned[1..].iter().map(|p| p.record.id.clone()).collect();
    let (mut proposal, first_round) = apply_first(service, first, others, rounds)?;
    proposal.repro = tried
        .reproduced
        .as_ref()
        .and_then(|_| tried.attempts.last().cloned());
    if rounds > 1
        && let Some(first_round) = first_round
    {
        let ended = rounds::run(service, first_round, rounds, CheckChoice::Configured)?;
        let (ledger, last) = find(service.store, Some(&ended.last))?;
        proposal.branch = ledger.branch(&last.id).map(str::to_string);
        proposal.verdict = Some(ended.verdict.clone());
        proposal.rounds = Some(ended);
    }
    Ok(proposal)
}

/// Applies `first` with the configured check, traced as `git papayu apply` traces it: the
/// proposal, and where fix rounds start when a check judged it.
fn apply_first(
    service: &Service<'_>,
    first: &PlanRecord,
    others: Vec<String>,
    rounds: u32,
) -> Result<(Proposal, Option<FirstRound>), Problems> {
    // Applied and traced as `git papayu apply` applies it, with its warnings.
    let request = Apply {
        plan: Some(first.id.clone()),
        onto: None,
        check: CheckChoice::Configured,
        network: false,
        timeout_secs: None,
    };
    let applied = super::apply::apply(service, request, &mut |_| {});
    let report = applied.report;
    let (record, diffstat) = match applied.outcome? {
        Outcome::CheckFailed {
            record,
            report: check,
            verdict,
            ..
        } if rounds <= 1 => return Err(vec![check_failed(&record, &check, &verdict)]),
        Outcome::NothingToApply { record } => {
            let nothing = Diffstat {
                files: Vec::new(),
                text: "nothing to change: the plan leaves the base as it is\n".to_string(),
            };
            (record, nothing)
        }
        Outcome::Applied { record, .. } | Outcome::CheckFailed { record, .. } => {
            (record, Diffstat::of(&report.changes))
        }
    };
    let proposal = Proposal {
        id: record.id,
        goal: record.goal,
        branch: report.branch.clone(),
        commit: report.commit.clone(),
        diffstat,
        check: report.check.as_ref().map(CheckSummary::from),
        verdict: report.verdict.clone(),
        other_plans: others,
        repro: None,
        rounds: None,
    };
    Ok((proposal, report.first_round()))
}

/// The error of a proposal whose check failed: stored, no branch.
fn check_failed(record: &PlanRecord, report: &CheckReport, verdict: &Verdict) -> Problem {
    let broken = match verdict.broken_passing().as_slice() {
        [] => String::new(),
        broken => format!("; it breaks {}", broken.join(", ")),
    };
    let added = match verdict.added_failing.as_slice() {
        [] => String::new(),
        added => format!("; it adds failing tests: {}", added.join(", ")),
    };
    Problem::new(
        Code::CheckFailed,
        format!(
            "plan {} is stored but its check `{}` failed (exit {}){broken}{added}, so no branch was made; fix the plan and propose again (or pass rounds: N to let papayu's model correct it)",
            record.short_id(),
            report.command,
            report
                .exit_code
                .map_or("none".to_string(), |c| c.to_string()),
        ),
    )
    .with_detail(report.output_tail.clone())
}
