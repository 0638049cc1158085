//! What `gc` does with this clone's check requests: once every proposal a request names is
//! merged or discarded, the request has nothing left to ask. Its branch and its claim are
//! deleted on its remote (the branch only while it still holds the request, by a lease) and its
//! local ref goes. A remote that cannot be reached keeps the local ref, for the next gc. Once no
//! request of this clone is left, the result notes fetched for them go too (`sync` fetches
//! them only while there are requests).

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
    /// Fetched result notes refs removed (`refs/notes/remotes/<remote>/papayu-checks/*`).
    pub results_dropped: usize,
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
            if let Err(p) =
                store.push_refs(&r.remote, &[format!(":{branch}")], &lease, "the request")
            {
                out.kept.push((id, p.text()));
                continue;
            }
            // A request no worker claimed has no claim to delete: that push fails, harmlessly.
            let _ = store.push_refs(
                &r.remote,
                &[format!(":{}", claim_ref(&id))],
                &[],
                "the claim",
            );
        }
        store
            .swap_ref(&name, Some(commit), None, "papayu gc: request finished")
            .map_err(|e| e.to_problem())?;
        out.withdrawn.push(id);
    }
    // A dry run withdrew nothing: what it would withdraw is still listed.
    let listed = store
        .refs_under(REQUESTS)
        .map_err(|e| e.to_problem())?
        .len();
    let left = match dry_run {
        true => listed.saturating_sub(out.withdrawn.len()),
        false => listed,
    };
    if left == 0 {
        for (name, tip) in store
            .refs_under("refs/notes/remotes/")
            .map_err(|e| e.to_problem())?
        {
            if !name.contains("/papayu-checks/") {
                continue;
            }
            if !dry_run {
                store
                    .swap_ref(&name, Some(tip), None, "papayu gc: no request left")
                    .map_err(|e| e.to_problem())?;
            }
            out.results_dropped += 1;
        }
    }
    Ok(out)
}
