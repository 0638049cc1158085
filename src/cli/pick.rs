//! `git papayu pick`: keep one proposal of a group, drop the others, in one undoable step.

use clap::Args;
use git_papayu::engine::compare;
use git_papayu::engine::find::find;
use git_papayu::engine::review::{self, MergeStyle};
use git_papayu::store::Store;
use git_papayu::store::records::Status;
use git_papayu::{Code, Problem};

use super::{CliResult, ui};
use git_papayu::trace::record::Tracer;

/// Merge one proposal of a group and discard the group's others, as one operation.
///
/// The proposal is merged as git papayu merge merges it (git merge, hooks apply); every other
/// open proposal of its group (same plan command) is discarded and its branch deleted. One
/// git papayu undo reverses all of it. Without an id, the top of the ranking of the newest
/// group on HEAD (git papayu compare) is picked, and said so.
#[derive(Debug, Args)]
pub struct PickArgs {
    /// Plan id (a unique prefix) or proposal branch; default: the top of git papayu compare.
    pub plan: Option<String>,
    /// Make one commit with the proposal's changes and message instead of a merge.
    #[arg(long)]
    pub squash: bool,
    /// Merge even when the proposal's last check broke tests, and discard proposal branches
    /// holding commits papayu did not make.
    #[arg(long)]
    pub force: bool,
}

pub fn run(args: PickArgs) -> CliResult {
    let PickArgs {
        plan,
        squash,
        force,
    } = args;
    let store = Store::open()?;
    let comparison = ranked(&store, plan.as_deref())?;
    let chosen = comparison.ranking.first().cloned().ok_or_else(|| {
        Problem::new(
            Code::PlanNotFound,
            "every proposal of the group is discarded; nothing to pick",
        )
    })?;
    if plan.is_none()
        && let Some(p) = comparison.get(&chosen)
    {
        ui::status(&format!(
            "Picking {} ({}, {}): the top of the ranking of {}",
            p.record.short_id(),
            super::show::provider_label(&p.record),
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
    let style = match squash {
        true => MergeStyle::Squash,
        false => MergeStyle::Merge,
    };
    let picked = review::pick(&store, &chosen, &others, style, force);
    trace(&store, &chosen, &picked);
    let (merged, discarded) = picked?;
    let into = merged.into.trim_start_matches("refs/heads/");
    let deleted: Vec<&String> = discarded.iter().flat_map(|d| &d.branches).collect();
    ui::data(&serde_json::json!({
        "plan": merged.record.id,
        "group": comparison.group,
        "into": into,
        "old": merged.old.to_string(),
        "new": merged.new.to_string(),
        "merged": merged.old != merged.new,
        "branch": merged.branch,
        "discarded": discarded.iter().map(|d| &d.record.id).collect::<Vec<_>>(),
        "deleted_branches": deleted,
    }));
    let dropped = match discarded.len() {
        0 => "no other proposal to discard".to_string(),
        n => format!(
            "discarded {n} other{} ({})",
            if n == 1 { "" } else { "s" },
            discarded
                .iter()
                .map(|d| d.record.short_id())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    ui::outln(&format!(
        "Picked plan {}: merged into {into} ({}..{}); {dropped}. Undo all of it with git papayu undo.",
        merged.record.short_id(),
        &merged.old.to_string()[..10],
        &merged.new.to_string()[..10]
    ));
    Ok(())
}

/// The proposals ranked for a pick: the group of `plan` with it first, or the newest group.
fn ranked(store: &Store, plan: Option<&str>) -> Result<compare::Comparison, Problem> {
    Ok(match plan {
        Some(spec) => {
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
            c
        }
        None => compare::select(store, &[])?,
    })
}

/// The pick's trace: what was merged and how many others were discarded, or why it failed.
fn trace(
    store: &Store,
    chosen: &str,
    picked: &Result<(review::Merged, Vec<review::Discarded>), Problem>,
) {
    let tracer = Tracer::new(&super::settings(), ui::warn);
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
            tracer.write(store, &t);
        }
        Err(problem) => tracer.write_failed(store, &mut t, std::slice::from_ref(problem)),
    }
}
