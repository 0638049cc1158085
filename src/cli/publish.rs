//! `git papayu publish`: put one proposal where teammates can review it.

use clap::Args;
use git_papayu::engine::sync;
use git_papayu::store::Store;

use super::{CliResult, ui};

/// Push a plan's proposal branch and the plans to a remote, for teammates to review.
///
/// Pushes the plan's local papayu/* branch to the same name on REMOTE (only as a fast-forward:
/// papayu never force-pushes a branch), then runs git papayu sync, so the plan's record, events
/// and conversation travel with it. Teammates see it with git papayu sync and git papayu list.
#[derive(Debug, Args)]
pub struct PublishArgs {
    /// Plan id (a unique prefix) or proposal branch.
    pub plan: String,
    /// The remote (default: the current branch's upstream remote, else origin).
    pub remote: Option<String>,
}

pub fn run(args: PublishArgs) -> CliResult {
    let PublishArgs { plan, remote } = args;
    let store = Store::open()?;
    let published = sync::publish(&store, &super::settings(), &plan, remote)?;
    ui::data(&published);
    ui::outln(&format!(
        "Published {} to {} ({}).",
        published.branch,
        published.remote,
        &published.commit[..10]
    ));
    ui::outln(&super::sync::describe(&published.sync));
    Ok(())
}
