//! `git papayu pick`: keep one proposal of a group, drop the others, in one undoable step.

use clap::Args;
use git_papayu::engine::review::MergeStyle;
use git_papayu::service::compare::{self, Pick};
use git_papayu::store::Store;

use super::{CliResult, observer, ui};

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
    let config = super::settings();
    let request = Pick {
        plan,
        style: match squash {
            true => MergeStyle::Squash,
            false => MergeStyle::Merge,
        },
        force,
    };
    let picked = compare::pick(&observer::service(&store, &config), &request)?;
    ui::data(&picked);
    let dropped = match picked.discarded.len() {
        0 => "no other proposal to discard".to_string(),
        n => format!(
            "discarded {n} other{} ({})",
            if n == 1 { "" } else { "s" },
            picked
                .discarded
                .iter()
                .map(git_papayu::store::short)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    ui::outln(&format!(
        "Picked plan {}: merged into {} ({}..{}); {dropped}. Undo all of it with git papayu undo.",
        git_papayu::store::short(&picked.plan),
        picked.into,
        &picked.old[..10],
        &picked.new[..10]
    ));
    Ok(())
}
