//! Apply one plan: its commit on a proposal branch, the check against the base, the trace, and
//! the warnings a front end must pass on. The front end hears the check's progress through its
//! own sink and renders the report; `--json` and MCP serialize it as it is.

use serde::Serialize;

use crate::codes::Problems;
use crate::engine::apply::{self, ApplyRequest, Outcome, Progress};
use crate::engine::attribution::Attribution;
use crate::engine::baseline::Sources;
use crate::engine::check::{CheckChoice, CheckReport, CheckSettings};
use crate::engine::event::OutcomeEvent;
use crate::executor::FileChange;
use crate::trace::outcome;
use crate::verdict::Verdict;

use super::Service;

/// What to apply, and how to check it.
#[derive(Debug, Clone)]
pub struct Apply {
    /// A plan id or branch; `None` for the newest plan on HEAD.
    pub plan: Option<String>,
    /// A revision to apply onto instead of the plan's base.
    pub onto: Option<String>,
    pub check: CheckChoice,
    /// `--check-network`: the check may reach the network.
    pub network: bool,
    /// `--check-timeout`, in seconds.
    pub timeout_secs: Option<u64>,
}

/// An apply with the fix rounds that followed it: `apply --json`'s document, the apply's
/// report with the rounds' (as `papayu_propose` gives them) beside it.
#[derive(Debug, Serialize)]
pub struct WithRounds<'a> {
    #[serde(flatten)]
    pub report: &'a ApplyReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rounds: Option<&'a super::rounds::Ended>,
}

/// What an apply left: `--json`'s result document.
#[derive(Debug, Default, Serialize)]
pub struct ApplyReport {
    /// The plan applied (as asked, until it is found).
    pub plan: Option<String>,
    pub branch: Option<String>,
    pub commit: Option<String>,
    pub changes: Vec<FileChange>,
    pub check: Option<CheckReport>,
    pub verdict: Option<Verdict>,
    /// Whether the check's run on the base came from the cache; `None` when none was needed.
    pub base: Option<BaseRun>,
    /// Why this plan was chosen, when none was named.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chosen: Option<String>,
}

impl ApplyReport {
    /// Where fix rounds start: the plan as its check judged it; `None` when no check did.
    pub fn first_round(&self) -> Option<super::rounds::FirstRound> {
        let (plan, check, verdict) = (
            self.plan.as_ref()?,
            self.check.as_ref()?,
            self.verdict.as_ref()?,
        );
        Some(super::rounds::FirstRound::judged(plan, check, verdict))
    }
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct BaseRun {
    pub cached: bool,
}

/// An apply's report, how it ended, and its event line (for `-v`).
pub struct Applied {
    pub report: ApplyReport,
    pub outcome: Result<Outcome, Problems>,
    pub event: Option<OutcomeEvent>,
}

/// Applies `request` with the settings in force; `progress` hears the check as it runs. Warns
/// (through the observer) of a sandbox weaker than asked and of a reproduction whose commit is
/// missing; writes the apply's trace.
pub fn apply(
    service: &Service<'_>,
    request: Apply,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Applied {
    let mut report = ApplyReport {
        plan: request.plan.clone(),
        ..ApplyReport::default()
    };
    let built = match engine_request(service, request) {
        Ok(built) => built,
        Err(problems) => {
            return Applied {
                report,
                outcome: Err(problems),
                event: None,
            };
        }
    };
    let mut sink = |p: Progress<'_>| {
        match &p {
            Progress::CheckingBase => report.base = Some(BaseRun { cached: false }),
            Progress::BaseCached(_) => report.base = Some(BaseRun { cached: true }),
            Progress::Chose(why) => report.chosen = Some(why.to_string()),
            _ => {}
        }
        progress(p);
    };
    let outcome = apply::apply_with(service.store, &built, &mut sink);
    let event = outcome::apply(
        &service.tracer(),
        service.store,
        built.plan.as_deref(),
        &outcome,
    );
    if let Ok(outcome) = &outcome {
        warn(service, outcome, built.settings.network);
        fill(&mut report, outcome);
    }
    Applied {
        report,
        outcome,
        event,
    }
}

/// The engine's request: the settings in force with the command's own.
fn engine_request(service: &Service<'_>, request: Apply) -> Result<ApplyRequest, Problems> {
    let config = service.config;
    Ok(ApplyRequest {
        plan: request.plan,
        onto: request.onto,
        check: request.check,
        settings: CheckSettings::resolve(config, request.network, request.timeout_secs)?,
        sources: Sources::resolve(config)?,
        attribution: Attribution::configured(config)?,
    })
}

/// The report's fields from how the apply ended.
fn fill(report: &mut ApplyReport, outcome: &Outcome) {
    match outcome {
        Outcome::Applied {
            record,
            branch,
            commit,
            changes,
            check,
            verdict,
            ..
        } => {
            report.plan = Some(record.id.clone());
            report.branch = Some(branch.clone());
            report.commit = Some(commit.to_string());
            report.changes = changes.clone();
            report.check = check.clone();
            report.verdict = verdict.clone();
        }
        Outcome::NothingToApply { record } => report.plan = Some(record.id.clone()),
        Outcome::CheckFailed {
            record,
            report: check,
            verdict,
            ..
        } => {
            report.plan = Some(record.id.clone());
            report.check = Some(check.clone());
            report.verdict = Some(verdict.clone());
        }
    }
}

/// A sandbox weaker than asked; a reproduction named but missing from this clone.
fn warn(service: &Service<'_>, outcome: &Outcome, network: bool) {
    let observer = service.observer();
    let (record, check, verdict) = match outcome {
        Outcome::Applied {
            record,
            check,
            verdict,
            ..
        } => (record, check.as_ref(), verdict.as_ref()),
        Outcome::CheckFailed {
            record,
            report,
            verdict,
            ..
        } => (record, Some(report), Some(verdict)),
        Outcome::NothingToApply { .. } => return,
    };
    if let Some(warning) = check.and_then(|r| r.sandbox.warning(network)) {
        observer.warn(&warning);
    }
    if let (Some(repro), Some(None)) = (&record.repro, verdict.map(|v| v.reproduction)) {
        let id = &repro[..repro.len().min(10)];
        observer.warn(&format!(
            "plan {} names reproduction {id}, whose commit is not in this repository: it was checked without it; fetch its papayu/repro-* branch (git fetch origin 'refs/heads/papayu/*:refs/heads/papayu/*') and apply again to check it with the reproduction",
            record.short_id()
        ));
    }
}
