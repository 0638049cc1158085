//! `git papayu discard`: drop a proposal (undoable).

use clap::Args;
use git_papayu::service::review;
use git_papayu::store::Store;

use super::{CliResult, observer, ui};

/// Delete a plan's proposal branch and check worktree and mark the plan discarded.
///
/// The branch tip stays reachable from the operation log, so git papayu undo brings it back
/// even after git gc. A proposal branch you added commits to is kept unless you pass --force.
#[derive(Debug, Args)]
pub struct DiscardArgs {
    /// Plan id (a unique prefix) or proposal branch; default: the newest open (proposed or
    /// applied) plan on HEAD.
    pub plan: Option<String>,
    /// Delete the proposal branch even when it holds commits papayu did not make.
    #[arg(long)]
    pub force: bool,
}

pub fn run(args: DiscardArgs) -> CliResult {
    let DiscardArgs { plan, force } = args;
    let store = Store::open()?;
    let config = super::settings();
    let dropped = review::discard(&observer::service(&store, &config), plan.as_deref(), force)?;
    ui::data(&dropped);
    let what = match dropped.deleted_branches.as_slice() {
        [] => "it had no branch".to_string(),
        names => format!("deleted {}", names.join(", ")),
    };
    ui::outln(&format!(
        "Discarded plan {} ({what}). Undo with git papayu undo.",
        git_papayu::store::short(&dropped.plan)
    ));
    Ok(())
}
