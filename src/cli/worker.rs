//! `git papayu worker`: check other clones' proposals on this machine.

use clap::Args;
use git_papayu::engine::workers::identity;
use git_papayu::engine::workers::worker::{self, Step, WorkOutcome, Worked};
use git_papayu::store::Store;
use git_papayu::store::results::ResultOutcome;

use super::{CliResult, ui};

/// Take check requests from a remote, run them here, and push the verdicts back.
///
/// Fetches REMOTE's open check requests (branches papayu/check/*, pushed by git papayu apply
/// --on), claims one by a compare-and-swap push of refs/papayu/claims/<id> — of two workers
/// racing, exactly one gets it; a claim whose lease (papayu.workerLease, 300 s, renewed while
/// the check runs) expired is taken over — and runs the same sandboxed differential check apply
/// runs, on each proposal and its base. Each verdict is a note on the proposal's commit under
/// refs/notes/papayu-checks/<worker> (papayu.workerName), signed with papayu.workerKey (or
/// user.signingKey with gpg.format ssh); clones that list the key in papayu.trustedWorkers
/// count it as their own. A request whose proposal branches moved is refused as stale; a check
/// this machine cannot run (a missing command or toolchain) is reported as `cannot run`, never
/// as a failure of the proposal. Without --once or --loop, every open request is taken once.
#[derive(Debug, Args)]
pub struct WorkerArgs {
    /// The remote to take requests from (default: the current branch's upstream remote, else
    /// origin).
    pub remote: Option<String>,
    /// Take at most one request, then stop (with --loop: wait for one, take it, stop).
    #[arg(long)]
    pub once: bool,
    /// Keep taking requests, fetching again every papayu.workerPoll seconds (30) when none is
    /// open, until interrupted.
    #[arg(long = "loop")]
    pub repeat: bool,
    /// Take only this request (its id, as in papayu/check/<id>).
    #[arg(long, value_name = "ID")]
    pub request: Option<String>,
}

pub fn run(args: WorkerArgs) -> CliResult {
    let WorkerArgs {
        remote,
        once,
        repeat,
        request,
    } = args;
    let store = Store::open()?;
    let config = super::settings();
    let remote = remote.unwrap_or_else(|| store.default_remote());
    let setup = identity::setup(&config, remote)?;
    let poll = config
        .number("papayu.workerPoll")?
        .and_then(|n| u64::try_from(n).ok())
        .unwrap_or(30);
    if setup.key.is_none() {
        ui::warn(&format!(
            "worker {} has no key (papayu.workerKey): its results are unsigned, and no clone counts them as more than a claim",
            setup.name
        ));
    }
    let verbose = ui::verbose();
    let mut all = Vec::new();
    loop {
        let mut step = |s: Step<'_>| match s {
            Step::Open(n) if n > 0 => ui::status(&format!(
                "{} open on {}",
                super::render::count(n, "request"),
                setup.remote
            )),
            Step::Open(_) => {}
            Step::Claimed(id, Some(from)) => ui::status(&format!(
                "claimed {id}, taking it over from {from} (its lease expired)"
            )),
            Step::Claimed(id, None) => ui::status(&format!("claimed {id}")),
            Step::Checking { plan, n, of } => ui::status(&format!(
                "checking {} ({n} of {of})",
                git_papayu::store::short(plan)
            )),
            Step::Output(chunk) if verbose => ui::status(String::from_utf8_lossy(chunk).trim_end()),
            Step::Output(_) => {}
        };
        let max = once.then_some(1);
        let worked = worker::round(&store, &setup, request.as_deref(), max, &mut step)?;
        let took = worked.iter().any(|w| w.outcome != WorkOutcome::Taken);
        for w in &worked {
            describe(w);
        }
        all.extend(worked);
        if !repeat || (once && took) {
            break;
        }
        if !took {
            std::thread::sleep(std::time::Duration::from_secs(poll));
        }
    }
    ui::data(&Rounds {
        worker: &setup.name,
        remote: &setup.remote,
        requests: &all,
    });
    if all.iter().all(|w| w.outcome == WorkOutcome::Taken) {
        ui::outln(&format!(
            "No open check request on {} for worker {}.",
            setup.remote, setup.name
        ));
    }
    Ok(())
}

/// One line per request, one per result.
fn describe(w: &Worked) {
    match w.outcome {
        WorkOutcome::Checked => {
            ui::outln(&format!(
                "Request {}: checked {}, results pushed.",
                w.request,
                super::render::count(w.results.len(), "proposal")
            ));
            for r in &w.results {
                let what = match r.outcome {
                    ResultOutcome::Checked => r.check.line(),
                    ResultOutcome::CannotRun => format!(
                        "cannot run: {}",
                        r.reason
                            .as_deref()
                            .unwrap_or("the check fails the same way on the base")
                    ),
                };
                ui::outln(&format!(
                    "  {} {}",
                    git_papayu::store::short(&r.plan),
                    super::text::line(&what)
                ));
            }
        }
        WorkOutcome::Taken => ui::status(&format!(
            "request {} is held by {}",
            w.request,
            w.holder.as_deref().unwrap_or("another worker")
        )),
        WorkOutcome::Stale | WorkOutcome::Refused => {
            if let Some(p) = &w.problem {
                ui::warn(&format!("request {}: {}: {}", w.request, p.code, p.text()));
            }
        }
    }
}

/// `worker --json`: who worked, for which remote, and what became of each request.
#[derive(serde::Serialize)]
struct Rounds<'a> {
    worker: &'a str,
    remote: &'a str,
    requests: &'a [Worked],
}
