//! Competing proposals ranked (`git papayu compare`, `compare --json`, the MCP tool
//! `papayu_compare`), and keeping the best of them (`git papayu pick`).

use serde::Serialize;

use crate::codes::{Code, Problem};
use crate::engine::compare::{self, ClaimedCheck, Comparison, Diffstat};
use crate::engine::find::find;
use crate::engine::review::{self, Discarded, MergeStyle, Merged};
use crate::engine::workers::pending::Remote;
use crate::store::records::Status;
use crate::verdict::CheckStatus;

use super::Service;

/// The proposals compared and their ranking.
#[derive(Debug, Clone, Serialize)]
pub struct Ranked {
    /// The group, when every proposal is of one.
    pub group: Option<String>,
    pub proposals: Vec<Entry>,
    /// Every proposal not discarded nor refined, best first.
    pub ranking: Vec<String>,
    /// What the ranking stands on, for a front end that draws it.
    #[serde(skip)]
    pub comparison: Comparison,
}

/// One proposal compared.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    pub id: String,
    pub provider: String,
    pub model: Option<String>,
    pub check: Check,
    /// Verdicts from shared notes nobody here vouches for: shown, never ranked.
    pub claimed_checks: Vec<ClaimedCheck>,
    /// A check asked of workers and not answered yet.
    pub remote_check: Option<Remote>,
    /// How many ranked proposals are the same answer, itself included.
    pub votes: usize,
    pub diffstat: Diffstat,
    pub tokens: Tokens,
    pub cost_usd: Option<f64>,
}

/// A proposal's newest check this clone trusts.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub status: CheckStatus,
    pub fixes: Option<u32>,
    pub breaks: Option<u32>,
    pub still_failing: Option<u32>,
    pub reason: Option<String>,
    pub weakens: Vec<String>,
}

/// The tokens asking for a proposal took.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
    pub cached: u64,
}

/// The proposals `specs` name (a group id or plan ids; none: the newest group on HEAD), ranked.
pub fn compare(service: &Service<'_>, specs: &[String]) -> Result<Ranked, Problem> {
    Ok(ranked(compare::select(service.store, specs)?))
}

fn ranked(comparison: Comparison) -> Ranked {
    let proposals = comparison
        .proposals
        .iter()
        .map(|p| {
            let stats = p.record.stats.clone().unwrap_or_default();
            Entry {
                id: p.record.id.clone(),
                provider: p.record.provider.clone(),
                model: p.record.model.clone(),
                check: Check {
                    status: p.check.status,
                    fixes: p.check.fixes,
                    breaks: p.check.breaks,
                    still_failing: p.check.still_failing,
                    reason: p.check.reason.clone(),
                    weakens: p.check.weakens.clone(),
                },
                claimed_checks: p.claims.clone(),
                remote_check: comparison.remote.get(&p.record.id).cloned(),
                votes: p.votes,
                diffstat: p.diffstat,
                tokens: Tokens {
                    input: stats.input_tokens,
                    output: stats.output_tokens,
                    cached: stats.cached_tokens,
                },
                cost_usd: stats.cost_usd,
            }
        })
        .collect();
    Ranked {
        group: comparison.group.clone(),
        proposals,
        ranking: comparison.ranking.clone(),
        comparison,
    }
}

/// What to pick.
pub struct Pick {
    /// A plan id or proposal branch; `None`: the top of the ranking of the newest group on HEAD.
    pub plan: Option<String>,
    pub style: MergeStyle,
    /// Merge even when the proposal's last check broke tests, and discard proposal branches
    /// holding commits papayu did not make.
    pub force: bool,
}

/// What a pick did.
#[derive(Debug, Clone, Serialize)]
pub struct Picked {
    pub plan: String,
    pub group: Option<String>,
    /// The branch merged into.
    pub into: String,
    pub old: String,
    pub new: String,
    pub merged: bool,
    pub branch: String,
    pub discarded: Vec<String>,
    pub deleted_branches: Vec<String>,
}

/// Merges one proposal of a group and discards the group's other open ones, as one undoable
/// operation, and traces it.
pub fn pick(service: &Service<'_>, request: &Pick) -> Result<Picked, Problem> {
    let store = service.store;
    let comparison = candidates(service, request.plan.as_deref())?;
    let chosen = comparison.ranking.first().cloned().ok_or_else(|| {
        Problem::new(
            Code::PlanNotFound,
            "every proposal of the group is discarded; nothing to pick",
        )
    })?;
    if request.plan.is_none()
        && let Some(p) = comparison.get(&chosen)
    {
        service.observer().status(&format!(
            "Picking {} ({}, {}): the top of the ranking of {}",
            p.record.short_id(),
            crate::present::provider_label(&p.record),
            p.check.line(),
            comparison.group.as_deref().unwrap_or("the proposals")
        ));
    }
    let others: Vec<String> = comparison
        .proposals
        .iter()
        .filter(|p| p.record.id != chosen)
        .filter(|p| {
            matches!(
                p.status,
                Status::Proposed | Status::Applied | Status::Failed
            )
        })
        .map(|p| p.record.id.clone())
        .collect();
    let picked = review::pick(store, &chosen, &others, request.style, request.force);
    trace(service, &chosen, &picked);
    let (merged, discarded) = picked?;
    Ok(report(comparison.group, &merged, &discarded))
}

fn report(group: Option<String>, merged: &Merged, discarded: &[Discarded]) -> Picked {
    Picked {
        plan: merged.record.id.clone(),
        group,
        into: merged.into.trim_start_matches("refs/heads/").to_string(),
        old: merged.old.to_string(),
        new: merged.new.to_string(),
        merged: merged.old != merged.new,
        branch: merged.branch.clone(),
        discarded: discarded.iter().map(|d| d.record.id.clone()).collect(),
        deleted_branches: discarded
            .iter()
            .flat_map(|d| d.branches.iter().cloned())
            .collect(),
    }
}

/// The proposals ranked for a pick: the group of `plan` with it first, or the newest group.
fn candidates(service: &Service<'_>, plan: Option<&str>) -> Result<Comparison, Problem> {
    let store = service.store;
    let Some(spec) = plan else {
        return compare::select(store, &[]);
    };
    let (_, record) = find(store, Some(spec))?;
    let group = record.group.clone().ok_or_else(|| {
        Problem::new(
            Code::PlanState,
            format!(
                "plan {} is not one of a group of proposals; merge it with git papayu merge {0}",
                record.short_id()
            ),
        )
    })?;
    let mut c = compare::select(store, &[group])?;
    c.ranking.retain(|id| *id == record.id);
    c.ranking.insert(0, record.id.clone());
    c.ranking.dedup();
    Ok(c)
}

/// The pick's trace: what was merged and how many others were discarded, or why it failed.
fn trace(service: &Service<'_>, chosen: &str, picked: &Result<(Merged, Vec<Discarded>), Problem>) {
    let tracer = service.tracer();
    let mut t = tracer.start("pick", None);
    t.plan_id = Some(chosen.to_string());
    match picked {
        Ok((m, discarded)) => {
            t.branch = Some(m.into.clone());
            t.transcript.events.push(format!(
                "PICK_SUCCESS plan={} into={} old={} new={} discarded={}",
                m.record.short_id(),
                m.into,
                m.old,
                m.new,
                discarded.len()
            ));
            tracer.write(service.store, &t);
        }
        Err(problem) => {
            tracer.write_failed(service.store, &mut t, std::slice::from_ref(problem));
        }
    }
}
