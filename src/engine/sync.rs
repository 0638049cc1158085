//! Sharing plans through a remote: `sync` (fetch, merge and push the notes) and `publish` (a
//! proposal branch and the notes).
//!
//! The notes only ever grow, on every side: each clone appends lines, and merging two sides
//! keeps every local line and every line of the remote's within bounds (see
//! [`crate::store::intake`]). So a sync never loses a line of this clone's, a remote that
//! removed lines gets them back with the next push, a remote flooded with junk brings none of it
//! here, and two clones that sync in turn converge on the same notes. What arrives is
//! a *claim*: the ledger reads a teammate's records and events under the trust rules of
//! [`crate::store::records`] (a record must hash to its id; a cancel counts only when this
//! clone's operation log wrote it; a proposal branch is only ever a local one).
//!
//! A sync is not an operation to undo: it only adds lines a later sync would bring back.
//! Nothing here ever force-pushes: a rejected push means someone pushed meanwhile, and is
//! answered by fetching and merging again, a bounded number of times.

use serde::Serialize;

use crate::codes::{Code, Problem};
use crate::settings::Settings;
use crate::store::checks::{REQUESTS, results_refspec};
use crate::store::intake::{Merged, Refused, Strategy};
use crate::store::remote::{Pushed, tracking_ref};
use crate::store::{NOTES_REF, Store};

/// How many times a push rejected because the remote moved is answered with another fetch and
/// merge before giving up: enough for a team pushing at once, bounded so that a remote that
/// always moves cannot keep papayu busy.
pub const PUSH_ATTEMPTS: u32 = 5;

pub struct SyncRequest {
    /// `None`: the current branch's upstream remote, else `origin`.
    pub remote: Option<String>,
    pub push: bool,
}

/// What a sync did.
#[derive(Debug, Clone, Serialize)]
pub struct SyncReport {
    pub remote: String,
    /// The remote's notes commit as fetched last (`None`: it has no papayu notes yet).
    pub fetched: Option<String>,
    /// `up-to-date`, `fast-forward` or `merged`: what the last fetch did to the local notes.
    pub merge: &'static str,
    /// The merge strategy for notes both sides changed.
    pub strategy: &'static str,
    /// Whether the local notes were pushed (false with `--no-push`, or with nothing to push).
    pub pushed: bool,
    /// Fetch-merge-push rounds taken (more than one when a push was rejected).
    pub rounds: u32,
    /// Lines of the remote's notes taken in.
    pub taken: usize,
    /// Local lines the remote's notes had removed, kept (and pushed back with the notes).
    pub kept: usize,
    /// Lines of the remote's notes not taken, by reason: they stay out of the local notes and
    /// of what is pushed.
    pub refused: Refused,
    /// Plans known here before and after.
    pub plans_before: usize,
    pub plans_after: usize,
    /// The local notes commit after the sync.
    pub notes: Option<String>,
}

impl SyncReport {
    /// What the merge did not take from the remote, said once; `None` when it took everything.
    pub fn refusal(&self) -> Option<String> {
        let r = &self.refused;
        if r.lines() == 0 {
            return None;
        }
        let reasons: Vec<String> = [
            (r.no_record, "about no plan with a record"),
            (r.too_long, "too long"),
            (
                r.too_many_events,
                "past the events one plan may have in a note",
            ),
            (r.note_full, "past the size a note may reach"),
        ]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, why)| format!("{n} {why}"))
        .collect();
        Some(format!(
            "refused {} line(s) of {}'s notes ({}; {} KB in all): they stay out of your notes and \
             of what you push (limits: docs/teams.md)",
            r.lines(),
            self.remote,
            reasons.join(", "),
            r.bytes.div_ceil(1024)
        ))
    }
}

pub fn sync(
    store: &Store,
    settings: &Settings,
    request: &SyncRequest,
) -> Result<SyncReport, Problem> {
    let remote = request
        .remote
        .clone()
        .unwrap_or_else(|| store.default_remote());
    store.require_remote(&remote)?;
    let strategy = notes_strategy(settings)?;
    let plans_before = store.plan_index().map_err(|e| e.to_problem())?.len();
    let mut report = SyncReport {
        remote: remote.clone(),
        fetched: None,
        merge: "up-to-date",
        strategy: strategy.as_str(),
        pushed: false,
        rounds: 0,
        taken: 0,
        kept: 0,
        refused: Refused::default(),
        plans_before,
        plans_after: plans_before,
        notes: None,
    };
    loop {
        report.rounds += 1;
        let fetched = store.fetch_notes(&remote)?;
        report.fetched = fetched.map(|f| f.to_string());
        report.merge = match fetched {
            None => "up-to-date",
            Some(theirs) => merge(store, &mut report, theirs, strategy)?,
        };
        let local = store.ref_value(NOTES_REF).map_err(|e| e.to_problem())?;
        if !request.push || local.is_none() || local == fetched {
            break;
        }
        match store.push_notes(&remote)? {
            Pushed::Done => {
                report.pushed = true;
                break;
            }
            Pushed::Rejected if report.rounds < PUSH_ATTEMPTS => continue,
            Pushed::Rejected => {
                return Err(Problem::new(
                    Code::PushRejected,
                    format!(
                        "{remote}'s plans moved on {PUSH_ATTEMPTS} times while papayu merged them; \
                         your notes are merged here, run git papayu sync again"
                    ),
                ));
            }
        }
    }
    // Verdicts workers pushed for this clone's check requests (`apply --on`), while it has any:
    // read as claims unless a trusted worker signed them (see `crate::store::results`).
    if !store
        .refs_under(REQUESTS)
        .map_err(|e| e.to_problem())?
        .is_empty()
    {
        store.fetch_refs(&remote, &[results_refspec(&remote)])?;
    }
    report.notes = store
        .ref_value(NOTES_REF)
        .map_err(|e| e.to_problem())?
        .map(|n| n.to_string());
    report.plans_after = store.plan_index().map_err(|e| e.to_problem())?.len();
    Ok(report)
}

/// Merges the fetched notes commit `theirs` into the local notes, adding what it did to the
/// report; returns what became of the local notes.
fn merge(
    store: &Store,
    report: &mut SyncReport,
    theirs: crate::store::Oid,
    strategy: Strategy,
) -> Result<&'static str, Problem> {
    let merge = store.merge_notes(theirs, strategy, &report.remote)?;
    report.taken += merge.taken;
    report.kept += merge.kept;
    report.refused.add(&merge.refused);
    Ok(match merge.merged {
        Merged::UpToDate => "up-to-date",
        Merged::FastForward(_) => "fast-forward",
        Merged::Commit(_) => "merged",
    })
}

/// What `publish` did.
#[derive(Debug, Clone, Serialize)]
pub struct Published {
    pub plan: String,
    pub remote: String,
    /// The proposal branch pushed, and its tip.
    pub branch: String,
    pub commit: String,
    pub sync: SyncReport,
}

/// Pushes plan `spec`'s local proposal branch to the same name on the remote (never forced),
/// then syncs the notes so the plan's record, events and conversation travel with it.
pub fn publish(
    store: &Store,
    settings: &Settings,
    spec: &str,
    remote: Option<String>,
) -> Result<Published, Problem> {
    let remote = remote.unwrap_or_else(|| store.default_remote());
    store.require_remote(&remote)?;
    let (ledger, record) = super::find::find(store, Some(spec))?;
    let Some(proposal) = ledger.proposal(&record.id) else {
        return Err(Problem::new(
            Code::PlanState,
            format!(
                "plan {} has no proposal branch here to publish; apply it first (git papayu apply {})",
                record.short_id(),
                record.short_id()
            ),
        ));
    };
    let refname = proposal.refname();
    let branch = refname.trim_start_matches("refs/heads/").to_string();
    let commit = proposal.tip.to_string();
    match store.push_branch(&remote, &refname)? {
        Pushed::Done => {}
        Pushed::Rejected => {
            return Err(Problem::new(
                Code::PushRejected,
                format!(
                    "{remote} has another {branch}; papayu never force-pushes: look at it with \
                     git fetch {remote} and git log {remote}/{branch}"
                ),
            ));
        }
    }
    let sync = sync(
        store,
        settings,
        &SyncRequest {
            remote: Some(remote.clone()),
            push: true,
        },
    )?;
    Ok(Published {
        plan: record.id.clone(),
        remote,
        branch,
        commit,
        sync,
    })
}

/// The fetch refspec `init --share` adds, so that a plain `git fetch REMOTE` brings the
/// remote's plans too.
pub fn fetch_refspec(remote: &str) -> String {
    format!("+{NOTES_REF}:{}", tracking_ref(remote))
}

/// The strategy for notes both sides changed: `notes.papayu.mergeStrategy`, else
/// `notes.mergeStrategy` (as `git notes merge` reads them), else `cat_sort_uniq`.
pub fn notes_strategy(settings: &Settings) -> Result<Strategy, Problem> {
    let key = ["notes.papayu.mergeStrategy", "notes.mergeStrategy"]
        .into_iter()
        .find_map(|k| settings.git(k).map(|v| (k, v)));
    match key {
        None => Ok(Strategy::CatSortUniq),
        Some((key, value)) => Strategy::parse(value).ok_or_else(|| {
            Problem::new(
                Code::ConfigInvalid,
                format!(
                    "{key} is '{value}', which would leave teammates' plan lines to be merged by hand; \
                     set it to cat_sort_uniq (git papayu init does)"
                ),
            )
        }),
    }
}
