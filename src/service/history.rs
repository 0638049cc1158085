//! Taking back papayu's last operation and doing it again: `git papayu undo` and `redo`, with
//! the remote side of an `apply --on` (its check request withdrawn or sent again).

use serde::Serialize;

use crate::codes::Problem;
use crate::engine::history::{self, Reverted};
use crate::engine::workers::ask;
use crate::store::checks::REQUESTS;

use super::Service;

/// What an undo or redo did.
#[derive(Debug, Clone, Serialize)]
pub struct Undone {
    /// The operation reverted, as the oplog describes it (`apply 1a2b3c4d`; for redo, the undo).
    pub operation: String,
    /// Every ref moved back, with its tip before and after (`null`: absent).
    pub refs: Vec<RefMove>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RefMove {
    pub name: String,
    pub old: Option<String>,
    pub new: Option<String>,
}

/// Undoes the last papayu operation.
pub fn undo(service: &Service<'_>) -> Result<Undone, Problem> {
    let reverted = history::undo(service.store)?;
    Ok(finish(service, &reverted))
}

/// Redoes what the last undo reverted.
pub fn redo(service: &Service<'_>) -> Result<Undone, Problem> {
    let reverted = history::redo(service.store)?;
    Ok(finish(service, &reverted))
}

fn finish(service: &Service<'_>, reverted: &Reverted) -> Undone {
    remote_requests(service, reverted);
    Undone {
        operation: reverted.target.op.description.clone(),
        refs: reverted
            .changes
            .iter()
            .map(|c| RefMove {
                name: c.name.clone(),
                old: c.old.map(|o| o.to_string()),
                new: c.new.map(|o| o.to_string()),
            })
            .collect(),
    }
}

/// The remote side of undoing or redoing an `apply --on`: a request this clone no longer has is
/// withdrawn from its remote, one it has again is sent again. The local undo stands either way;
/// a remote that cannot be reached is said as a warning with what to run.
fn remote_requests(service: &Service<'_>, reverted: &Reverted) {
    let store = service.store;
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
            Ok(Some((what, remote))) => service
                .observer
                .status(&format!("{what} check request {id} on {remote}")),
            Ok(None) => {}
            Err(p) => service.observer.warn(&format!(
                "check request {id} could not be changed on its remote: {}; delete its branch there with git push REMOTE :papayu/check/{id}",
                p.text()
            )),
        }
    }
}
