//! `apply --on REMOTE`: apply proposals without checking them here, and ask the remote's
//! workers to check them.
//!
//! Everything that can be refused is refused first (the remote, the check command, the plans),
//! so bad input changes nothing. Then each plan is applied as `--no-check` would (a plan already
//! on its branch is taken as it is), and one atomic push sends the proposal branches and the
//! request branch `papayu/check/<id>`; the request is recorded here as
//! `refs/papayu/requests/<id>` by an operation of its own, which `undo` inverts and withdraws.
//! When the push is refused, the applies made for it are undone and nothing is requested.

use super::request::{Candidate, CheckSpec, REQUEST_FORMAT, Request, SandboxSpec, VERSION, new_id};
use crate::codes::{Code, Problem, Problems};
use crate::engine::apply::{self, ApplyRequest, Outcome};
use crate::engine::attribution::Attribution;
use crate::engine::baseline::Sources;
use crate::engine::check::{self, CheckChoice, CheckSettings};
use crate::engine::{find, history};
use crate::store::checks::{REQUEST_BRANCHES, REQUEST_FILE, REQUESTS};
use crate::store::oplog::{self, OpKind, Pending};
use crate::store::records::now_millis;
use crate::store::refs::RefChange;
use crate::store::remote::Pushed;
use crate::store::{Oid, Store};

/// What to ask for.
pub struct Ask {
    pub remote: String,
    /// Full plan ids.
    pub plans: Vec<String>,
    pub check: CheckChoice,
    pub settings: CheckSettings,
    pub sources: Sources,
    pub attribution: Attribution,
}

/// What was asked.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Asked {
    pub request: Request,
    /// The request's branch on the remote.
    pub branch: String,
    /// Plans that change nothing at their target: not asked about.
    pub nothing_to_apply: Vec<String>,
}

pub fn ask(store: &Store, ask: &Ask) -> Result<Asked, Problems> {
    store.require_remote(&ask.remote)?;
    if ask.check == CheckChoice::Skip {
        return Err(no_check(&ask.remote).into());
    }
    let first = ask
        .plans
        .first()
        .ok_or_else(|| Problem::new(Code::PlanNotFound, "no plan to ask a check for"))?;
    let (ledger, record) = find::find(store, Some(first))?;
    let target = find::target_of(store, &ledger, &record)?;
    let resolved = check::resolve(store, &ask.check, &ask.settings, target)?
        .ok_or_else(|| no_check(&ask.remote))?;
    let mut applied = 0;
    let mut candidates = Vec::new();
    let mut nothing = Vec::new();
    for plan in &ask.plans {
        match candidate(store, ask, plan) {
            Ok((Some(c), fresh)) => {
                applied += usize::from(fresh);
                candidates.push(c);
            }
            Ok((None, _)) => nothing.push(plan.clone()),
            Err(problems) => {
                take_back(store, applied);
                return Err(problems);
            }
        }
    }
    if candidates.is_empty() {
        return Err(Problem::new(
            Code::PlanState,
            "every plan changes nothing at its target: there is nothing to check",
        )
        .into());
    }
    let request = Request {
        format: REQUEST_FORMAT,
        papayu: VERSION.to_string(),
        id: new_id(),
        requested_at: now_millis(),
        remote: ask.remote.clone(),
        candidates,
        check: CheckSpec {
            command: resolved.command.clone(),
            source: resolved.source.clone(),
            timeout_secs: ask.settings.timeout.map(|t| t.as_secs()),
            network: ask.settings.network,
            junit: ask
                .sources
                .junit
                .as_ref()
                .map(|p| p.to_string_lossy().into_owned()),
            env: ask.settings.env.clone(),
        },
        sandbox: SandboxSpec {
            confine: ask.settings.sandbox,
            no_credentials: true,
        },
    };
    match send(store, &request) {
        Ok(branch) => Ok(Asked {
            request,
            branch,
            nothing_to_apply: nothing,
        }),
        Err(problem) => {
            take_back(store, applied);
            Err(problem.into())
        }
    }
}

/// The candidate of one plan: its proposal branch as it is, or a new one applied without a
/// check (`true`: applied now). `None` when it changes nothing at its target.
fn candidate(store: &Store, ask: &Ask, plan: &str) -> Result<(Option<Candidate>, bool), Problems> {
    let (ledger, record) = find::find(store, Some(plan))?;
    if let Some(branch) = ledger.proposal(&record.id) {
        let base = store.first_parent(branch.tip).unwrap_or(record.base);
        return Ok((
            Some(Candidate {
                plan: record.id.clone(),
                branch: branch.name.clone(),
                commit: branch.tip.to_string(),
                base: base.to_string(),
            }),
            false,
        ));
    }
    let outcome = apply::apply(
        store,
        &ApplyRequest {
            plan: Some(record.id.clone()),
            onto: None,
            check: CheckChoice::Skip,
            settings: ask.settings.clone(),
            sources: ask.sources.clone(),
            attribution: ask.attribution,
        },
    )?;
    match outcome {
        Outcome::Applied {
            record,
            branch,
            commit,
            onto,
            ..
        } => Ok((
            Some(Candidate {
                plan: record.id,
                branch,
                commit: commit.to_string(),
                base: onto.to_string(),
            }),
            true,
        )),
        Outcome::NothingToApply { .. } => Ok((None, false)),
        Outcome::CheckFailed { .. } => unreachable!("an apply without a check cannot fail one"),
    }
}

/// Writes the request commit, pushes it with the proposal branches in one atomic push, and
/// records it here. Returns the request's branch.
fn send(store: &Store, request: &Request) -> Result<String, Problem> {
    let commit = store
        .file_commit(REQUEST_FILE, &request.to_text(), None, &request.message())
        .map_err(|e| e.to_problem())?;
    let branch = format!("{REQUEST_BRANCHES}{}", request.id);
    let mut refspecs: Vec<String> = request
        .candidates
        .iter()
        .map(|c| format!("refs/heads/{0}:refs/heads/{0}", c.branch))
        .collect();
    refspecs.push(format!("{commit}:{branch}"));
    let lease = vec![format!("{branch}:")];
    match store.push_refs(&request.remote, &refspecs, &lease, "the check request")? {
        Pushed::Done => {}
        Pushed::Rejected => {
            return Err(Problem::new(
                Code::PushRejected,
                format!(
                    "{} has other commits under a proposal branch's name; nothing was requested",
                    request.remote
                ),
            )
            .with_hint(format!(
                "papayu never force-pushes: look at them with git fetch {} and git log {}/papayu/…",
                request.remote, request.remote
            )));
        }
    }
    let mut pending = Pending::new(
        OpKind::Apply,
        format!(
            "ask {} to check {} proposal(s) (request {})",
            request.remote,
            request.candidates.len(),
            request.id
        ),
    );
    pending.refs.push(RefChange::new(
        format!("{REQUESTS}{}", request.id),
        None,
        Some(commit),
    ));
    oplog::commit(store, &pending).map_err(|e| e.to_problem())?;
    Ok(branch.trim_start_matches("refs/heads/").to_string())
}

/// Undoes the `count` applies made for a request that was not sent.
fn take_back(store: &Store, count: usize) {
    for _ in 0..count {
        if history::undo(store).is_err() {
            break;
        }
    }
}

fn no_check(remote: &str) -> Problem {
    Problem::new(
        Code::RequestNoCheck,
        format!("--on {remote} asks for a check, and no check command is configured; nothing was applied or pushed"),
    )
    .with_hint("name one with --check \"CMD\", or git config papayu.checkCommand \"CMD\"")
}

/// Withdraws request `id` (its commit `commit`) from `remote`: deletes its branch there, only
/// if it still holds that commit. What `undo` of an `apply --on` calls.
pub fn withdraw(store: &Store, request: Oid) -> Result<Option<String>, Problem> {
    let Some(text) = store.commit_file(request, REQUEST_FILE) else {
        return Ok(None);
    };
    let request_data = Request::parse(&text)?;
    let branch = format!("{REQUEST_BRANCHES}{}", request_data.id);
    let lease = vec![format!("{branch}:{request}")];
    match store.push_refs(
        &request_data.remote,
        &[format!(":{branch}")],
        &lease,
        "the withdrawal",
    )? {
        Pushed::Done | Pushed::Rejected => Ok(Some(request_data.remote)),
    }
}

/// Sends request `request` (a commit) again: what `redo` of an `apply --on` calls.
pub fn resend(store: &Store, request: Oid) -> Result<Option<String>, Problem> {
    let Some(text) = store.commit_file(request, REQUEST_FILE) else {
        return Ok(None);
    };
    let data = Request::parse(&text)?;
    let branch = format!("{REQUEST_BRANCHES}{}", data.id);
    store.push_refs(
        &data.remote,
        &[format!("{request}:{branch}")],
        &[format!("{branch}:")],
        "the check request",
    )?;
    Ok(Some(data.remote))
}
