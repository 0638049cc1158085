//! What `gc` does with this clone's check requests: once every proposal a request names is
//! merged or discarded, the request has nothing left to ask. Its branch and its claim are
//! deleted on its remote (the branch only while it still holds the request, by a lease) and its
//! local ref goes. A remote that cannot be reached keeps the local ref, for the next gc.

use super::claim::claim_ref;
use super::request::Request;
use crate::codes::Problem;
use crate::store::Store;
use crate::store::checks::{REQUEST_BRANCHES, REQUEST_FILE, REQUESTS};
use crate::store::records::{Ledger, Status};

/// The requests a gc withdrew (or would), and those it could not.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Tidied {
    pub withdrawn: Vec<String>,
    pub kept: Vec<(String, String)>,
}

pub fn tidy(store: &Store, ledger: &Ledger, dry_run: bool) -> Result<Tidied, Problem> {
    let mut out = Tidied::default();
    for (name, commit) in store.refs_under(REQUESTS).map_err(|e| e.to_problem())? {
        let request = store
            .commit_file(commit, REQUEST_FILE)
            .and_then(|t| Request::parse(&t).ok());
        let finished = request.as_ref().is_none_or(|r| {
            r.candidates
                .iter()
                .all(|c| matches!(ledger.status(&c.plan), Status::Merged | Status::Discarded))
        });
        if !finished {
            continue;
        }
        let id = name[REQUESTS.len()..].to_string();
        if dry_run {
            out.withdrawn.push(id);
            continue;
        }
        if let Some(r) = &request {
            let branch = format!("{REQUEST_BRANCHES}{id}");
            let lease = [format!("{branch}:{commit}")];
            if let Err(p) = store.push_refs(&r.remote, &[format!(":{branch}")], &lease, "the request") {
                out.kept.push((id, p.text()));
                continue;
            }
            // A request no worker claimed has no claim to delete: that push fails, harmlessly.
            let _ = store.push_refs(&r.remote, &[format!(":{}", claim_ref(&id))], &[], "the claim");
        }
        store
            .swap_ref(&name, Some(commit), None, "papayu gc: request finished")
            .map_err(|e| e.to_problem())?;
        out.withdrawn.push(id);
    }
    Ok(out)
}
