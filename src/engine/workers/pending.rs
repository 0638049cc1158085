//! Where this clone's requests stand: which proposals wait for a worker, which a worker could
//! not check. What `list` and `compare` show beside a proposal until its verdict is back.

use std::collections::BTreeMap;

use serde::Serialize;

use super::request::Request;
use crate::store::Store;
use crate::store::checks::{REQUEST_FILE, REQUESTS};
use crate::store::records::Ledger;
use crate::store::results::ResultOutcome;

/// A proposal asked about on a remote, with no verdict back yet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Remote {
    pub remote: String,
    pub request: String,
    /// `pending`, or `cannot-run` when a worker lacked what the check needs.
    pub state: &'static str,
    /// For `cannot-run`: the worker and its reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worker: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Remote {
    /// The CHECK cell of `list`: `pending on origin`, `cannot run on w1`.
    pub fn cell(&self) -> String {
        match (self.state, &self.worker) {
            ("cannot-run", Some(worker)) => format!("cannot run on {worker}"),
            _ => format!("pending on {}", self.remote),
        }
    }
}

/// For each plan whose proposal (as it is now) is named by one of this clone's requests and has
/// no verdict from a worker yet: where it stands. A proposal that moved since is not listed.
pub fn remote_states(store: &Store, ledger: &Ledger) -> BTreeMap<String, Remote> {
    let mut out = BTreeMap::new();
    let Ok(requests) = store.refs_under(REQUESTS) else {
        return out;
    };
    for (_, commit) in requests {
        let Some(request) = store
            .commit_file(commit, REQUEST_FILE)
            .and_then(|t| Request::parse(&t).ok())
        else {
            continue;
        };
        for c in &request.candidates {
            let current = ledger.proposal(&c.plan).map(|b| b.tip.to_string());
            if current.as_deref() != Some(c.commit.as_str()) {
                continue;
            }
            let Some(state) = state_of(store, &request, &c.plan, &c.commit) else {
                continue;
            };
            out.insert(c.plan.clone(), state);
        }
    }
    out
}

/// Where one candidate stands: `None` once a worker's verdict on it is here (trusted or not,
/// it is shown as a verdict or a claim then).
fn state_of(store: &Store, request: &Request, plan: &str, commit: &str) -> Option<Remote> {
    let oid = crate::store::Oid::from_str(commit).ok()?;
    let found = store.results_on(oid).unwrap_or_default();
    let about: Vec<_> = found
        .iter()
        .filter(|f| f.result.plan == plan && f.result.commit == commit)
        .collect();
    if about
        .iter()
        .any(|f| f.result.outcome == ResultOutcome::Checked)
    {
        return None;
    }
    let cannot = about.last();
    Some(Remote {
        remote: request.remote.clone(),
        request: request.id.clone(),
        state: match cannot {
            Some(_) => "cannot-run",
            None => "pending",
        },
        worker: cannot.map(|f| f.result.worker.clone()),
        reason: cannot.and_then(|f| f.result.reason.clone()),
    })
}
