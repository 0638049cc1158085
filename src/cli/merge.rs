//! `git papayu merge`: bring a proposal into the current branch with git's own merge.

use clap::Args;
use git_papayu::engine::review::MergeStyle;
use git_papayu::service::review;
use git_papayu::store::{Store, short};

use super::{CliResult, observer, ui};

/// Merge a plan's proposal branch into the current branch (git merge; hooks apply).
///
/// Refuses when tracked files have uncommitted changes. A merge that stops on a conflict, or a
/// commit hook that refuses a squash, is aborted, leaving everything as it was. After the merge
/// the proposal branch is deleted (unless --keep-branch, or it is checked out in another
/// worktree) and the plan is merged. Undo with git papayu undo, which brings the branch back.
/// A proposal whose last check broke tests that pass at its base is refused unless --force.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Plan id (a unique prefix) or proposal branch; default: the newest applied proposal on HEAD.
    pub plan: Option<String>,
    /// Make one commit with the proposal's changes and message instead of a merge.
    #[arg(long, conflicts_with = "ff_only")]
    pub squash: bool,
    /// Only fast-forward; refuse if the branches diverged.
    #[arg(long)]
    pub ff_only: bool,
    /// Keep the proposal branch after merging it.
    #[arg(long)]
    pub keep_branch: bool,
    /// Merge even when the proposal's last check broke tests that pass at its base.
    #[arg(long)]
    pub force: bool,
}

pub fn run(args: MergeArgs) -> CliResult {
    let MergeArgs {
        plan,
        squash,
        ff_only,
        keep_branch,
        force,
    } = args;
    let style = match (squash, ff_only) {
        (true, _) => MergeStyle::Squash,
        (_, true) => MergeStyle::FastForwardOnly,
        _ => MergeStyle::Merge,
    };
    let store = Store::open()?;
    let config = super::settings();
    let service = observer::service(&store, &config);
    let merged = review::merge(&service, plan.as_deref(), style, keep_branch, force);
    if let Some(event) = merged.as_ref().ok().and_then(|m| m.event.as_deref()) {
        ui::event(event);
    }
    let merged = merged?;
    ui::data(&merged);
    let into = &merged.into;
    if let Some(why) = &merged.kept_because {
        ui::warn(&format!("kept {} because {why}", merged.branch));
    }
    if !merged.merged {
        ui::outln(&format!(
            "Plan {} is already contained in {into}; nothing to merge.",
            short(&merged.plan)
        ));
    } else {
        ui::outln(&format!(
            "Merged plan {} into {into} ({}..{}). Undo with git papayu undo.",
            short(&merged.plan),
            short(&merged.old),
            short(&merged.new)
        ));
    }
    if merged.branch_deleted {
        ui::status(&format!("Deleted branch {}.", merged.branch));
    }
    Ok(())
}
