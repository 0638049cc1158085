//! `git papayu undo` and `git papayu redo`.

use clap::Args;
use git_papayu::engine::history::{self, Reverted};
use git_papayu::store::Store;

use super::{CliResult, ui};

/// Undo the last papayu operation (plan, apply, merge, discard), refs compare-and-swap.
///
/// Refuses, changing nothing, when a branch the operation moved has moved again since. The
/// shared notes are never moved back: undo appends events that cancel what the operation
/// recorded.
#[derive(Debug, Args)]
pub struct UndoArgs {}

/// Redo the operation the last undo reverted.
#[derive(Debug, Args)]
pub struct RedoArgs {}

fn report(headline: &str, reverted: &Reverted) {
    let refs: Vec<_> = reverted
        .changes
        .iter()
        .map(|c| {
            serde_json::json!({
                "name": c.name,
                "old": c.old.map(|o| o.to_string()),
                "new": c.new.map(|o| o.to_string()),
            })
        })
        .collect();
    ui::data(&serde_json::json!({
        "operation": reverted.target.op.description,
        "refs": refs,
    }));
    ui::outln(headline);
    for change in &reverted.changes {
        let show = |o: Option<git_papayu::store::Oid>| {
            o.map_or_else(|| "(none)".to_string(), git_papayu::store::short)
        };
        ui::status(&format!(
            "  {}: {} -> {}",
            change.name,
            show(change.old),
            show(change.new)
        ));
    }
}

/// The remote side of undoing or redoing an `apply --on`: a request this clone no longer has is
/// withdrawn from its remote, one it has again is sent again. The local undo stands either way;
/// a remote that cannot be reached is said as a warning with what to run.
fn remote_requests(store: &Store, reverted: &Reverted) {
    use git_papayu::engine::workers::ask;
    use git_papayu::store::checks::REQUESTS;
    for change in reverted
        .changes
        .iter()
        .filter(|c| c.name.starts_with(REQUESTS))
    {
        let id = &change.name[REQUESTS.len()..];
        let done = match (change.old, change.new) {
            (Some(request), None) => {
                ask::withdraw(store, request).map(|r| r.map(|r| ("withdrew", r)))
            }
            (None, Some(request)) => {
                ask::resend(store, request).map(|r| r.map(|r| ("sent again", r)))
            }
            _ => Ok(None),
        };
        match done {
            Ok(Some((what, remote))) => {
                ui::status(&format!("{what} check request {id} on {remote}"))
            }
            Ok(None) => {}
            Err(p) => ui::warn(&format!(
                "check request {id} could not be changed on its remote: {}; delete its branch there with git push REMOTE :papayu/check/{id}",
                p.text()
            )),
        }
    }
}

pub fn run_undo(args: UndoArgs) -> CliResult {
    let UndoArgs {} = args;
    let store = Store::open()?;
    let reverted = history::undo(&store)?;
    remote_requests(&store, &reverted);
    report(
        &format!(
            "Undid: {}. Redo with git papayu redo.",
            reverted.target.op.description
        ),
        &reverted,
    );
    Ok(())
}

pub fn run_redo(args: RedoArgs) -> CliResult {
    let RedoArgs {} = args;
    let store = Store::open()?;
    let reverted = history::redo(&store)?;
    remote_requests(&store, &reverted);
    report(
        &format!(
            "Redid: {}. Undo with git papayu undo.",
            reverted.target.op.description.trim_start_matches("undo ")
        ),
        &reverted,
    );
    Ok(())
}
