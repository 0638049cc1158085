//! `git papayu merge`: bring a proposal into the current branch with git's own merge.

use clap::Args;
use git_papayu::engine::review::{self, MergeStyle};
use git_papayu::store::Store;
use git_papayu::trace::outcome;
use git_papayu::trace::record::Tracer;

use super::{CliResult, ui};

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
    let merged = review::merge(&store, plan.as_deref(), style, keep_branch, force);
    let tracer = Tracer::new(&super::settings(), ui::warn);
    if let Some(event) = outcome::merge(&tracer, &store, plan.as_deref(), &merged) {
        ui::event(&event.to_string());
    }
    let merged = merged?;
    let into = merged.into.trim_start_matches("refs/heads/");
    ui::data(&serde_json::json!({
        "plan": merged.record.id,
        "into": into,
        "old": merged.old.to_string(),
        "new": merged.new.to_string(),
        "merged": merged.old != merged.new,
        "branch": merged.branch,
        "branch_deleted": merged.branch_deleted,
    }));
    if let Some(why) = &merged.kept_because {
        ui::warn(&format!("kept {} because {why}", merged.branch));
    }
    if merged.old == merged.new {
        ui::outln(&format!(
            "Plan {} is already contained in {into}; nothing to merge.",
            merged.record.short_id()
        ));
    } else {
        ui::outln(&format!(
            "Merged plan {} into {into} ({}..{}). Undo with git papayu undo.",
            merged.record.short_id(),
            git_papayu::store::short(merged.old),
            git_papayu::store::short(merged.new)
        ));
    }
    if merged.branch_deleted {
        ui::status(&format!("Deleted branch {}.", merged.branch));
    }
    Ok(())
}
