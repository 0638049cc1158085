//! `git papayu worker`: take open check requests from a remote, run them, push the verdicts.
//!
//! One round fetches the remote's requests, claims and result notes, then for each open request
//! claims it (see [`super::claim`]), refuses it as stale when a candidate branch moved since it
//! was asked, and otherwise runs the very check `apply` runs here — the proposal in a proposal
//! worktree, its base in a base worktree (cached per base tree and command, so the candidates
//! of one base share one base run), sandboxed, judged test by test. Each verdict becomes one
//! result line on the candidate commit's note in `refs/notes/papayu-checks/<worker>`, signed
//! when the worker has a key, pushed with a lease on the value fetched (so a worker never
//! overwrites another's or its own lines from elsewhere). A check the worker cannot run — the
//! command or a toolchain missing, failing alike on the base — is reported `cannot-run`, never
//! as a verdict on the proposal. A worker's results are not operations to undo: like a sync,
//! they only add lines.

use std::path::PathBuf;
use std::sync::{Mutex, mpsc};
use std::time::Duration;

use serde::Serialize;

use super::claim::{self, Claim, ClaimState};
use super::request::{Candidate, Request, VERSION};
use crate::codes::{Code, Problem};
use crate::context::mask_secrets;
use crate::engine::apply::{self, Progress};
use crate::engine::baseline::Sources;
use crate::engine::check::{CheckSettings, ResolvedCheck};
use crate::store::checks::{
    REQUEST_BRANCHES, REQUEST_FILE, RESULTS, fetched_claims, fetched_requests, fetched_results,
    results_refspec,
};
use crate::store::records::now_millis;
use crate::store::remote::Pushed;
use crate::store::results::{CheckResult, OUTPUT_KEPT, RESULT_FORMAT, ResultOutcome, result_line};
use crate::store::worktree;
use crate::store::{Oid, Store, sshsig};
use crate::verdict::CheckStatus;

/// How often a worker pushes its results again when the remote moved meanwhile.
const PUSH_ATTEMPTS: u32 = 5;

/// Who the worker is and how it works.
#[derive(Debug, Clone)]
pub struct Setup {
    pub remote: String,
    /// Its name: its results go to `refs/notes/papayu-checks/<name>`.
    pub name: String,
    /// The SSH key results are signed with (`papayu.workerKey`, else `user.signingKey`).
    pub key: Option<PathBuf>,
    /// How long a claim holds without renewal.
    pub lease: Duration,
    /// The worker's own check settings (sandbox, writable directories, caches); the request
    /// sets the command, time limit, network and variables.
    pub settings: CheckSettings,
    /// The only check commands this worker runs (`papayu.workerCommands`); empty: any.
    pub commands: Vec<String>,
}

/// What one request came to.
#[derive(Debug, Clone, Serialize)]
pub struct Worked {
    pub request: String,
    pub outcome: WorkOutcome,
    /// The results written (for `checked`).
    pub results: Vec<CheckResult>,
    /// Why it was refused (for `stale`, `refused`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<Problem>,
    /// The worker holding it (for `taken`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub holder: Option<String>,
}

impl Worked {
    fn new(request: &str, outcome: WorkOutcome) -> Worked {
        Worked {
            request: request.to_string(),
            outcome,
            results: Vec::new(),
            problem: None,
            holder: None,
        }
    }

    fn with_problem(mut self, problem: Problem) -> Worked {
        self.problem = Some(problem);
        self
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WorkOutcome {
    /// Claimed and checked: its results are pushed.
    Checked,
    /// Claimed, and refused because a candidate branch moved since the request.
    Stale,
    /// Not run: malformed, or from a newer papayu.
    Refused,
    /// Another worker holds an unexpired claim on it (or won the race for it).
    Taken,
}

/// What a round reports while it runs.
pub enum Step<'a> {
    /// This many requests are open on the remote.
    Open(usize),
    /// Claimed request `.0`, taking over from worker `.1` whose claim expired.
    Claimed(&'a str, Option<&'a str>),
    /// Checking candidate `n` of `of` (plan id) of a request.
    Checking { plan: &'a str, n: usize, of: usize },
    /// Output of the check.
    Output(&'a [u8]),
}

/// One round: fetch, then claim and run open requests — only `only` when given (an error when
/// the remote has no such request), and at most `max` of them.
pub fn round(
    store: &Store,
    setup: &Setup,
    only: Option<&str>,
    max: Option<usize>,
    step: &mut dyn FnMut(Step<'_>),
) -> Result<Vec<Worked>, Problem> {
    store.require_remote(&setup.remote)?;
    fetch(store, &setup.remote)?;
    let prefix = fetched_requests(&setup.remote);
    let mut open: Vec<(String, Oid)> = store
        .refs_under(&prefix)
        .map_err(|e| e.to_problem())?
        .into_iter()
        .map(|(name, oid)| (name[prefix.len()..].to_string(), oid))
        .collect();
    if let Some(id) = only {
        open.retain(|(name, _)| name == id);
        if open.is_empty() {
            return Err(Problem::new(
                Code::RequestNotFound,
                format!("{} has no open check request {id}", setup.remote),
            )
            .with_hint(format!(
                "list them with git ls-remote {} 'refs/heads/papayu/check/*'",
                setup.remote
            )));
        }
    }
    let claims = fetched_claims(&setup.remote);
    let mut waiting = Vec::new();
    for (id, commit) in open {
        let held = store
            .ref_value(&format!("{claims}{id}"))
            .map_err(|e| e.to_problem())?
            .map(|c| claim::read(store, c));
        if held
            .as_ref()
            .and_then(|h| h.claim.as_ref())
            .is_some_and(|c| c.state != ClaimState::Running)
        {
            continue;
        }
        waiting.push((id, commit, held));
    }
    step(Step::Open(waiting.len()));
    let mut done = Vec::new();
    for (id, commit, held) in waiting {
        if max.is_some_and(|m| {
            done.iter()
                .filter(|w: &&Worked| w.outcome != WorkOutcome::Taken)
                .count()
                >= m
        }) {
            break;
        }
        let worked = take(store, setup, &id, commit, held, step)?;
        let refused = matches!(worked.outcome, WorkOutcome::Refused | WorkOutcome::Stale);
        if only.is_some()
            && let Some(problem) = worked.problem.clone().filter(|_| refused)
        {
            return Err(problem);
        }
        done.push(worked);
    }
    Ok(done)
}

/// Fetches the remote's requests, claims and result notes, pruning what it no longer has.
fn fetch(store: &Store, remote: &str) -> Result<(), Problem> {
    store.fetch_refs(
        remote,
        &[
            format!("+{REQUEST_BRANCHES}*:{}*", fetched_requests(remote)),
            format!(
                "+{}*:{}*",
                crate::store::checks::CLAIMS,
                fetched_claims(remote)
            ),
            results_refspec(remote),
        ],
    )
}

/// Reads, claims and runs one request.
fn take(
    store: &Store,
    setup: &Setup,
    id: &str,
    commit: Oid,
    held: Option<claim::Held>,
    step: &mut dyn FnMut(Step<'_>),
) -> Result<Worked, Problem> {
    let request = match read_request(store, setup, id, commit) {
        Ok(request) => request,
        Err(p) => return Ok(Worked::new(id, WorkOutcome::Refused).with_problem(p)),
    };
    let (old, before) = match &held {
        None => (None, None),
        Some(h) => match &h.claim {
            Some(c) if !c.open_at(now_millis()) => {
                let mut taken = Worked::new(id, WorkOutcome::Taken);
                taken.holder = Some(c.worker.clone());
                return Ok(taken);
            }
            Some(c) => (Some(h.commit), Some(c.worker.clone())),
            None => (Some(h.commit), None),
        },
    };
    let lease_ms = i64::try_from(setup.lease.as_millis()).unwrap_or(i64::MAX);
    let mine = claim::running(id, &setup.name, lease_ms);
    let Some(claimed) = claim::push(store, &setup.remote, &mine, old)? else {
        return Ok(Worked::new(id, WorkOutcome::Taken));
    };
    step(Step::Claimed(id, before.as_deref()));
    let worked = run_claimed(store, setup, &request, (&mine, claimed), step);
    forget_candidates(store, &setup.remote, &request);
    worked
}

/// The request on `commit`, which must name itself `id` and ask for a command this worker runs.
fn read_request(store: &Store, setup: &Setup, id: &str, commit: Oid) -> Result<Request, Problem> {
    let text = store.commit_file(commit, REQUEST_FILE).unwrap_or_default();
    let request = Request::parse(&text)?;
    let command = &request.check.command;
    if !setup.commands.is_empty() && !setup.commands.iter().any(|c| c == command) {
        return Err(Problem::new(
            Code::RequestCommandRefused,
            format!(
                "check request {id} asks for `{command}`, which is not among the commands this worker runs (papayu.workerCommands); nothing was run and nothing claimed"
            ),
        )
        .with_hint(format!(
            "leave it to another worker, or allow it here with git config --add papayu.workerCommands \"{command}\""
        )));
    }
    if request.id != id {
        return Err(Problem::new(
            Code::RequestMalformed,
            format!(
                "the check request on papayu/check/{id} names itself {}; nothing was run",
                request.id
            ),
        ));
    }
    Ok(request)
}

/// Runs a request this worker holds the claim `claimed` on: refused as stale, or checked and
/// its results pushed; the claim ends `stale` or `done`, or is given back when something here
/// failed.
fn run_claimed(
    store: &Store,
    setup: &Setup,
    request: &Request,
    (mine, claimed): (&Claim, Oid),
    step: &mut dyn FnMut(Step<'_>),
) -> Result<Worked, Problem> {
    let finish = |state: ClaimState, reason: Option<String>, on: Oid| {
        let mut last = mine.clone();
        last.state = state;
        last.at = now_millis();
        last.reason = reason;
        claim::push(store, &setup.remote, &last, Some(on))
    };
    match stale(store, &setup.remote, request) {
        Ok(None) => {}
        Ok(Some(problem)) => {
            finish(ClaimState::Stale, Some(problem.reason.clone()), claimed)?;
            return Ok(Worked::new(&request.id, WorkOutcome::Stale).with_problem(problem));
        }
        Err(problem) => {
            give_back(store, setup, mine, claimed, &problem);
            return Err(problem);
        }
    }
    let renewal = Renewal::start(store, setup, mine, claimed);
    let checked = check_all(store, setup, request, step);
    let claimed = renewal.stop();
    let published = checked.and_then(|results| publish(store, setup, &results).map(|()| results));
    match published {
        Ok(results) => {
            finish(ClaimState::Done, None, claimed)?;
            let mut worked = Worked::new(&request.id, WorkOutcome::Checked);
            worked.results = results;
            Ok(worked)
        }
        Err(problem) => {
            give_back(store, setup, mine, claimed, &problem);
            Err(problem)
        }
    }
}

/// Hands a claimed request back when its check or its results could not be finished here: the
/// claim is left running but expired, so the next worker takes it over at once instead of
/// waiting out the lease.
fn give_back(store: &Store, setup: &Setup, mine: &Claim, claimed: Oid, problem: &Problem) {
    let mut back = mine.clone();
    back.expires = now_millis();
    back.at = back.expires;
    back.reason = Some(format!("given back: {}", problem.text()));
    let _ = claim::push(store, &setup.remote, &back, Some(claimed));
}

/// Where a request's candidate branches are fetched to while it is checked.
fn candidate_ref(remote: &str, request: &str, i: usize) -> String {
    format!("refs/papayu/remotes/{remote}/candidates/{request}/{i}")
}

/// Drops the refs that held a request's candidates while it was checked.
fn forget_candidates(store: &Store, remote: &str, request: &Request) {
    for i in 0..request.candidates.len() {
        let name = candidate_ref(remote, &request.id, i);
        if let Ok(Some(tip)) = store.ref_value(&name) {
            let _ = store.swap_ref(&name, Some(tip), None, "papayu worker: request done");
        }
    }
}

/// Why the request is stale, if it is: a candidate branch that is gone or moved on the remote,
/// or a candidate commit whose parent is not the base the request names.
fn stale(store: &Store, remote: &str, request: &Request) -> Result<Option<Problem>, Problem> {
    let tracking = |i: usize| candidate_ref(remote, &request.id, i);
    let specs: Vec<String> = request
        .candidates
        .iter()
        .enumerate()
        .map(|(i, c)| format!("+refs/heads/{}:{}", c.branch, tracking(i)))
        .collect();
    let gone = |branch: &str, why: &str| {
        Problem::new(
            Code::RequestStale,
            format!(
                "check request {} is stale: {branch} {why} since it was asked; nothing was run",
                request.id
            ),
        )
        .with_hint("ask again from the requesting clone with git papayu apply --on REMOTE")
    };
    if let Err(problem) = store.fetch_refs(remote, &specs) {
        if problem.reason.contains("couldn't find remote ref") {
            return Ok(Some(gone("a proposal branch", "was deleted")));
        }
        return Err(problem);
    }
    for (i, c) in request.candidates.iter().enumerate() {
        let tip = store.ref_value(&tracking(i)).map_err(|e| e.to_problem())?;
        if tip.map(|t| t.to_string()).as_deref() != Some(c.commit.as_str()) {
            return Ok(Some(gone(&c.branch, "moved")));
        }
        let parent = tip.and_then(|t| store.first_parent(t));
        if parent.map(|p| p.to_string()).as_deref() != Some(c.base.as_str()) {
            return Ok(Some(gone(&c.branch, "is no longer on the base it names")));
        }
    }
    Ok(None)
}

/// How a request's check runs: the command, the settings (the worker's own, with the request's
/// command, time limit and network, the request's variables beside the worker's
/// `papayu.checkEnv`; the sandbox always on) and where results come from.
struct How {
    check: ResolvedCheck,
    settings: CheckSettings,
    sources: Sources,
}

fn how(setup: &Setup, request: &Request) -> How {
    How {
        check: ResolvedCheck {
            command: request.check.command.clone(),
            source: format!("check request {}", request.id),
        },
        settings: CheckSettings {
            network: request.check.network,
            timeout: request
                .check
                .timeout_secs
                .filter(|s| *s > 0)
                .map(Duration::from_secs),
            sandbox: setup.settings.sandbox || request.sandbox.confine,
            // The request's names, and those the worker's own machine needs (a toolchain's).
            env: request
                .check
                .env
                .iter()
                .chain(&setup.settings.env)
                .cloned()
                .collect(),
            configured: None,
            ..setup.settings.clone()
        },
        sources: Sources {
            junit: request.check.junit.as_ref().map(PathBuf::from),
        },
    }
}

/// Runs the check on every candidate: one alone with its output streamed, several side by side
/// in as many check worktrees as there are, as `apply --all` runs them. The base runs are shared
/// through the base-run cache (one per base tree and command: the first candidate to need it
/// makes it while the others wait). Results come back in the request's order.
fn check_all(
    store: &Store,
    setup: &Setup,
    request: &Request,
    step: &mut dyn FnMut(Step<'_>),
) -> Result<Vec<CheckResult>, Problem> {
    let how = how(setup, request);
    let of = request.candidates.len();
    for (n, c) in request.candidates.iter().enumerate() {
        step(Step::Checking {
            plan: &c.plan,
            n: n + 1,
            of,
        });
    }
    let slots = of.min(worktree::MAX_SLOTS);
    if slots <= 1 {
        return request
            .candidates
            .iter()
            .map(|c| check_one(store, setup, request, c, &how, step))
            .collect();
    }
    let dir = store.git_dir().to_path_buf();
    let queue = Mutex::new(
        request
            .candidates
            .iter()
            .enumerate()
            .rev()
            .collect::<Vec<_>>(),
    );
    let done = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..slots {
            scope.spawn(|| {
                // git2's repository is not shared between threads: each opens its own.
                let store = Store::open_at(&dir).map_err(|e| e.to_problem());
                loop {
                    let next = queue.lock().ok().and_then(|mut q| q.pop());
                    let Some((i, c)) = next else { break };
                    let result = match &store {
                        Ok(store) => check_one(store, setup, request, c, &how, &mut |_| {}),
                        Err(p) => Err(p.clone()),
                    };
                    if let Ok(mut done) = done.lock() {
                        done.push((i, result));
                    }
                }
            });
        }
    });
    let mut done = done.into_inner().unwrap_or_default();
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// The check of one candidate against its base, as a result.
fn check_one(
    store: &Store,
    setup: &Setup,
    request: &Request,
    c: &Candidate,
    how: &How,
    step: &mut dyn FnMut(Step<'_>),
) -> Result<CheckResult, Problem> {
    let oid = |s: &str| {
        Oid::from_str(s).map_err(|_| Problem::new(Code::RequestMalformed, "bad object id"))
    };
    let (commit, base) = (oid(&c.commit)?, oid(&c.base)?);
    let changes =
        crate::engine::weaken::changes_between(store, base, commit).map_err(|e| e.to_problem())?;
    let mut progress = |p: Progress<'_>| {
        if let Progress::Output(chunk) = p {
            step(Step::Output(chunk));
        }
    };
    let (report, verdict, base_run) = apply::check_proposal(
        store,
        (base, commit),
        (&how.check, &changes),
        (&how.settings, &how.sources),
        &c.plan,
        &mut progress,
    )
    .map_err(|e| e.to_problem())?;
    let like_base = apply::fails_like_base(&base_run, &report, &verdict);
    let missing = matches!(report.exit_code, Some(126 | 127));
    let cannot_run =
        !report.passed && like_base && (missing || verdict.status == CheckStatus::DidNotRun);
    let tail: String = report
        .output_tail
        .chars()
        .rev()
        .take(OUTPUT_KEPT)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let reason = cannot_run.then(|| {
        let last = report
            .output_tail
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty());
        mask_secrets(
            verdict
                .reason
                .as_deref()
                .or(last)
                .unwrap_or("the check fails the same way on the base"),
        )
    });
    Ok(CheckResult {
        format: RESULT_FORMAT,
        request: request.id.clone(),
        plan: c.plan.clone(),
        commit: c.commit.clone(),
        base: c.base.clone(),
        worker: setup.name.clone(),
        at: now_millis(),
        outcome: match cannot_run {
            true => ResultOutcome::CannotRun,
            false => ResultOutcome::Checked,
        },
        check: apply::shared(&verdict),
        command: report.command.clone(),
        exit_code: report.exit_code,
        seconds: report.seconds,
        sandbox: serde_json::to_value(report.sandbox).ok(),
        reason,
        output_tail: mask_secrets(&tail),
        papayu: VERSION.to_string(),
    })
}

/// Signs and pushes the results: appended to the remote's notes of this worker as fetched,
/// with a lease on that value; when the remote moved meanwhile (another run of this worker),
/// fetched and appended again.
fn publish(store: &Store, setup: &Setup, results: &[CheckResult]) -> Result<(), Problem> {
    let mut lines = Vec::new();
    for r in results {
        #[expect(
            clippy::expect_used,
            reason = "serializing a derived type with string keys cannot fail"
        )]
        let payload = serde_json::to_string(r).expect("a result serializes");
        let signature = match &setup.key {
            Some(key) => Some(sshsig::sign(key, payload.as_bytes())?),
            None => None,
        };
        let on = Oid::from_str(&r.commit)
            .map_err(|_| Problem::new(Code::Internal, "a result names no commit"))?;
        lines.push((on, result_line(&payload, signature.as_deref())));
    }
    let name = format!("{RESULTS}{}", setup.name);
    let tracking = format!("{}{}", fetched_results(&setup.remote), setup.name);
    let message = format!("papayu worker {}: results", setup.name);
    for attempt in 0..PUSH_ATTEMPTS {
        if attempt > 0 {
            store.fetch_refs(&setup.remote, &[results_refspec(&setup.remote)])?;
        }
        let theirs = store.ref_value(&tracking).map_err(|e| e.to_problem())?;
        let mut tip = match theirs {
            Some(notes) => Some(without_finished(store, setup, notes, &lines)?),
            None => None,
        };
        for (on, line) in &lines {
            tip = Some(
                store
                    .note_appended(tip, *on, line, &message)
                    .map_err(|e| e.to_problem())?,
            );
        }
        let Some(tip) = tip else {
            // No result to add and none on the remote: nothing to push.
            return Ok(());
        };
        let lease = format!(
            "{name}:{}",
            theirs.map(|o| o.to_string()).unwrap_or_default()
        );
        match store.push_refs(
            &setup.remote,
            &[format!("{tip}:{name}")],
            &[lease],
            "the results",
        )? {
            Pushed::Done => {
                let ours = store.ref_value(&name).map_err(|e| e.to_problem())?;
                let set = |r: &str, old| store.swap_ref(r, old, Some(tip), &message);
                set(&name, ours).map_err(|e| e.to_problem())?;
                set(&tracking, theirs).map_err(|e| e.to_problem())?;
                return Ok(());
            }
            Pushed::Rejected => continue,
        }
    }
    Err(Problem::new(
        Code::PushRejected,
        format!(
            "{}'s {name} moved at every one of {PUSH_ATTEMPTS} tries; the results are not pushed",
            setup.remote
        ),
    )
    .with_hint(
        "is another worker running under the same name? Give each its own papayu.workerName",
    ))
}

/// `notes` (this worker's results as the remote holds them) without the results of
/// candidates no open request names any more: a request is withdrawn once its proposals are
/// merged or discarded, and its results go with the worker's next push. What is being pushed
/// now always stays.
fn without_finished(
    store: &Store,
    setup: &Setup,
    notes: Oid,
    pushing: &[(Oid, String)],
) -> Result<Oid, Problem> {
    let mut open: Vec<Oid> = pushing.iter().map(|(on, _)| *on).collect();
    let requests = store
        .refs_under(&fetched_requests(&setup.remote))
        .map_err(|e| e.to_problem())?;
    for (_, commit) in requests {
        let text = store.commit_file(commit, REQUEST_FILE).unwrap_or_default();
        // A request this worker cannot read keeps nothing alive, and is refused when taken.
        let Ok(request) = Request::parse(&text) else {
            continue;
        };
        open.extend(
            request
                .candidates
                .iter()
                .filter_map(|c| Oid::from_str(&c.commit).ok()),
        );
    }
    let finished: Vec<Oid> = store
        .noted(notes)
        .map_err(|e| e.to_problem())?
        .into_iter()
        .filter(|on| !open.contains(on))
        .collect();
    if finished.is_empty() {
        return Ok(notes);
    }
    let message = format!(
        "papayu worker {}: results of finished requests dropped",
        setup.name
    );
    store
        .notes_without(notes, &finished, &message)
        .map_err(|e| e.to_problem())
}

/// The lease, renewed from a thread of its own while the checks run.
struct Renewal {
    stop: mpsc::Sender<()>,
    handle: std::thread::JoinHandle<Oid>,
}

impl Renewal {
    fn start(store: &Store, setup: &Setup, claim: &Claim, current: Oid) -> Renewal {
        let (stop, stopped) = mpsc::channel::<()>();
        let dir = store.git_dir().to_path_buf();
        let (remote, name, request) = (
            setup.remote.clone(),
            setup.name.clone(),
            claim.request.clone(),
        );
        let lease = setup.lease;
        let handle = std::thread::spawn(move || {
            let mut current = current;
            let Ok(store) = Store::open_at(&dir) else {
                return current;
            };
            let every = (lease / 3).max(Duration::from_millis(200));
            let lease_ms = i64::try_from(lease.as_millis()).unwrap_or(i64::MAX);
            while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                let renewed = claim::running(&request, &name, lease_ms);
                if let Ok(Some(new)) = claim::push(&store, &remote, &renewed, Some(current)) {
                    current = new;
                }
            }
            current
        });
        Renewal { stop, handle }
    }

    /// Stops renewing; returns the claim's newest commit.
    fn stop(self) -> Oid {
        let _ = self.stop.send(());
        // A panic in the renewal thread goes on here, as if it had happened in this one.
        self.handle
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    }
}
