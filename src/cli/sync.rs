//! `git papayu sync`: share plans through a remote.

use clap::Args;
use git_papayu::engine::sync::{self, SyncReport, SyncRequest};
use git_papayu::store::Store;

use super::{CliResult, ui};

/// Fetch a remote's plans, merge them into yours, and push the result back.
///
/// Fetches the remote's refs/notes/papayu into refs/notes/remotes/REMOTE/papayu, merges it into
/// your refs/notes/papayu with notes.papayu.mergeStrategy (cat_sort_uniq unless set otherwise:
/// every line of both sides is kept), and pushes your notes back as a fast-forward. Every line
/// of yours stays, also when the remote removed some; what comes in is bounded, and what is
/// refused is said (see docs/teams.md). When someone pushed meanwhile, the push is rejected and
/// papayu fetches and merges again, a few times at most. It never force-pushes. Teammates'
/// records and events are claims: a record must hash to its id, their undo does not undo
/// anything here, their check verdicts rank and unblock nothing, and a plan's branch is only
/// ever a local one. While you have check requests open (apply --on), it also fetches the
/// workers' result notes (refs/notes/papayu-checks/*): verdicts signed by a key of
/// papayu.trustedWorkers count as your own checks'.
#[derive(Debug, Args)]
pub struct SyncArgs {
    /// The remote (default: the current branch's upstream remote, else origin).
    pub remote: Option<String>,
    /// Only fetch and merge; push nothing.
    #[arg(long)]
    pub no_push: bool,
}

pub fn run(args: SyncArgs) -> CliResult {
    let SyncArgs { remote, no_push } = args;
    let store = Store::open()?;
    let report = sync::sync(
        &store,
        &super::settings(),
        &SyncRequest {
            remote,
            push: !no_push,
        },
    )?;
    ui::data(&report);
    if let Some(warning) = report.refusal() {
        ui::warn(&warning);
    }
    ui::outln(&describe(&report));
    Ok(())
}

/// One line that says what came in and what went out.
pub fn describe(report: &SyncReport) -> String {
    let remote = &report.remote;
    let came = report.plans_after.saturating_sub(report.plans_before);
    let fetched = match (&report.fetched, report.merge) {
        (None, _) => format!("{remote} has no plans yet"),
        (Some(_), "up-to-date") => format!("nothing new from {remote}"),
        (Some(_), _) if came == 1 => format!("1 new plan from {remote}"),
        (Some(_), _) if came > 1 => format!("{came} new plans from {remote}"),
        (Some(_), _) if report.taken > 0 => format!("new lines from {remote}"),
        (Some(_), _) => format!("nothing new from {remote}"),
    };
    let fetched = match report.kept {
        0 => fetched,
        n => format!("{fetched}; merged: {remote} had removed {n} line(s) of yours, kept them"),
    };
    let pushed = match (report.pushed, &report.notes) {
        (true, _) => format!("pushed yours to {remote}"),
        (false, None) => "no plans of yours to push".to_string(),
        (false, notes) if *notes == report.fetched => format!("{remote} has all of yours"),
        (false, _) => "pushed nothing".to_string(),
    };
    let rounds = match report.rounds {
        1 => String::new(),
        n => format!(" ({n} rounds: {remote} moved meanwhile)"),
    };
    let known = match report.plans_after {
        1 => "1 plan".to_string(),
        n => format!("{n} plans"),
    };
    format!("Synced: {fetched}; {pushed}{rounds}. {known} known here.")
}
