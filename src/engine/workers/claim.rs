//! Claims: which worker runs a request, decided by a compare-and-swap push.
//!
//! A claim is a commit holding `claim.json` (worker, state, expiry) on the remote's
//! `refs/papayu/claims/<request>`. A worker takes a request by pushing a claim with a lease on
//! the value it read — no claim at all, or an expired one — so of two workers racing, the
//! remote takes exactly one push and refuses the other. While it checks, the worker renews its
//! lease by the same kind of push; a worker that died stops renewing, and once its claim
//! expires another worker takes the request over. At the end the claim says `done` (or `stale`),
//! which no worker takes again.

use serde::{Deserialize, Serialize};

use crate::codes::Problem;
use crate::store::checks::{CLAIM_FILE, CLAIMS};
use crate::store::records::now_millis;
use crate::store::remote::Pushed;
use crate::store::{Oid, Store};

/// Where a claim stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClaimState {
    /// A worker is checking; the claim holds until `expires`.
    Running,
    /// The worker wrote its results.
    Done,
    /// The worker refused the request: a candidate branch moved since it was asked.
    Stale,
}

/// What `claim.json` holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claim {
    pub request: String,
    pub worker: String,
    pub state: ClaimState,
    /// Milliseconds since the epoch at which a `running` claim may be taken over.
    pub expires: i64,
    pub at: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Claim {
    /// Whether another worker may take the request: the claim is running and expired.
    pub fn open_at(&self, now: i64) -> bool {
        self.state == ClaimState::Running && self.expires <= now
    }
}

/// A claim as read from a ref: its commit and what it says (`None`: unreadable, which is
/// taken as expired).
#[derive(Debug, Clone)]
pub struct Held {
    pub commit: Oid,
    pub claim: Option<Claim>,
}

/// Reads the claim commit `commit`.
pub fn read(store: &Store, commit: Oid) -> Held {
    let claim = store
        .commit_file(commit, CLAIM_FILE)
        .and_then(|text| serde_json::from_str(&text).ok());
    Held { commit, claim }
}

/// The remote ref of a request's claim.
pub fn claim_ref(request: &str) -> String {
    format!("{CLAIMS}{request}")
}

/// Pushes `claim` to the remote as the new value of the request's claim ref, with a lease on
/// `old` (`None`: there must be none). `Ok(None)` when the remote refused because the claim
/// moved meanwhile: someone else holds it.
pub fn push(
    store: &Store,
    remote: &str,
    claim: &Claim,
    old: Option<Oid>,
) -> Result<Option<Oid>, Problem> {
    #[expect(
        clippy::expect_used,
        reason = "serializing a derived type with string keys cannot fail"
    )]
    let text = serde_json::to_string_pretty(claim).expect("a claim serializes");
    let message = format!(
        "papayu: {} {} by {}",
        match claim.state {
            ClaimState::Running => "claim",
            ClaimState::Done => "done",
            ClaimState::Stale => "stale",
        },
        claim.request,
        claim.worker
    );
    let commit = store
        .file_commit(CLAIM_FILE, &text, old, &message)
        .map_err(|e| e.to_problem())?;
    let name = claim_ref(&claim.request);
    let lease = format!("{name}:{}", old.map(|o| o.to_string()).unwrap_or_default());
    match store.push_refs(remote, &[format!("{commit}:{name}")], &[lease], "the claim")? {
        Pushed::Done => Ok(Some(commit)),
        Pushed::Rejected => Ok(None),
    }
}

/// A running claim for `request` by `worker`, valid for `lease_ms` from now.
pub fn running(request: &str, worker: &str, lease_ms: i64) -> Claim {
    let now = now_millis();
    Claim {
        request: request.to_string(),
        worker: worker.to_string(),
        state: ClaimState::Running,
        expires: now.saturating_add(lease_ms),
        at: now,
        reason: None,
    }
}
