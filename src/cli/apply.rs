//! `git papayu apply`: commit a stored plan on its own papayu/* branch.

use clap::Args;
use git_papayu::engine::apply::{self, Outcome};
use git_papayu::engine::attribution::Attribution;
use git_papayu::engine::baseline::Sources;
use git_papayu::engine::check::{CheckChoice, CheckSettings};
use git_papayu::engine::{find, workers};
use git_papayu::service::{self, apply::Apply, apply::ApplyReport, apply::WithRounds};
use git_papayu::store::records::Status;
use git_papayu::store::{Store, worktree};
use git_papayu::{Code, Problem};

use super::{CliError, CliResult, render, ui};

/// Apply a plan as one commit on a new branch papayu/<slug>-<id>.
///
/// The commit is built straight from the object database: your working tree, index and current
/// branch are not touched. When a check command is configured (--check, PAPAYU_CHECK_COMMAND,
/// git config papayu.checkCommand, or default_test_command in .papa-yu/project.json at the base)
/// it runs in a reusable worktree under <gitdir>/papayu/worktrees/ first. When it reports its
/// tests one by one (pytest -rA, cargo test, go test -v, unittest -v, node's test runner, or a
/// JUnit XML report named by papayu.checkJunit), it runs on the base too (once per base tree
/// and command, then cached) and the plan is judged as fixes N, breaks M, still failing K. A
/// plan whose check fails is rolled back (no branch, marked failed) unless it breaks no test
/// and either fixes one or fails only by tests that already fail at the base: then it is kept
/// as partial. apply never calls a model.
///
/// The check runs code a model wrote, so it runs sandboxed where the kernel has Landlock: it may
/// write only inside its worktree and a private temporary directory, and may not use the
/// network (unless --check-network). Credentials (*_API_KEY, *_TOKEN, *_SECRET, ...) are
/// removed from its environment, and it is killed with everything it started after
/// --check-timeout seconds.
#[derive(Debug, Clone, Args)]
pub struct ApplyArgs {
    /// Plan id (a unique prefix); default: the newest plan on HEAD.
    pub plan: Option<String>,
    /// Run this check command (through sh -c) in the proposal's worktree.
    #[arg(long, value_name = "CMD", conflicts_with = "no_check", value_parser = super::plan::non_empty)]
    pub check: Option<String>,
    /// Do not run any check.
    #[arg(long)]
    pub no_check: bool,
    /// Let the check use the network (default: git config papayu.checkNetwork, else no).
    #[arg(long)]
    pub check_network: bool,
    /// Kill the check and everything it started after this many seconds; 0 means no limit
    /// (default: git config papayu.checkTimeout, else 600).
    #[arg(long, value_name = "SECS")]
    pub check_timeout: Option<u64>,
    /// Apply onto this revision instead of the plan's base; every file the plan touches must be
    /// unchanged there.
    #[arg(long, value_name = "REV")]
    pub onto: Option<String>,
    /// Apply every plan still proposed on HEAD (several providers' answers), each on its own
    /// branch with its own check; the checks run side by side in the check worktrees.
    #[arg(long, conflicts_with_all = ["plan", "onto"])]
    pub all: bool,
    /// Up to N rounds in all (1 to 5; default papayu.rounds, else 1): while the check leaves
    /// tests failing, the model is told what failed and asked for a corrected plan on top of
    /// the proposal. Each round is a commit of its own, and one undo step.
    #[arg(long, value_name = "N", conflicts_with_all = ["all", "no_check"],
          value_parser = clap::value_parser!(u32).range(1..=5))]
    pub rounds: Option<u32>,
    /// Check on other machines: apply without checking here, push the proposal branches and a
    /// check request (branch papayu/check/<id>) to REMOTE, and return at once; a
    /// `git papayu worker` there (or a CI job from `git papayu ci`) checks them, and
    /// `git papayu sync` brings the verdicts back (docs/teams.md).
    #[arg(long, value_name = "REMOTE", conflicts_with_all = ["no_check", "rounds", "onto"])]
    pub on: Option<String>,
}

pub fn run(args: ApplyArgs) -> CliResult {
    if args.on.is_some() {
        return run_on(args);
    }
    if args.all {
        return run_all(args);
    }
    let choice = match (&args.check, args.no_check) {
        (Some(cmd), _) => CheckChoice::Command(cmd.clone()),
        (None, true) => CheckChoice::Skip,
        (None, false) => CheckChoice::Configured,
    };
    let rounds = service::rounds::configured(args.rounds, &super::settings())?;
    let (report, mut outcome) = apply_one(args, false, &mut false);
    let first = report.first_round();
    let mut ended = None;
    if let (true, Some(first)) = (rounds > 1, first) {
        ui::status(&format!("round 1 of {rounds}: {}", first.verdict.line()));
        let first_plan = first.plan.clone();
        let store = Store::open()?;
        let config = super::settings();
        let service = super::observer::service(&store, &config);
        let rounds_run = git_papayu::service::rounds::run(&service, first, rounds, choice)?;
        let (plan, reached) = (rounds_run.last.clone(), rounds_run.reached);
        ended = Some(rounds_run);
        outcome = match reached {
            true => Ok(()),
            false => Err(Problem::new(
                Code::CheckFailed,
                format!(
                    "after the fix rounds the check still leaves tests failing (plan {}, last round {})",
                    &first_plan[..10.min(first_plan.len())],
                    &plan[..10.min(plan.len())]
                ),
            )
            .with_hint(format!(
                "see git papayu show {}; refine it with git papayu refine {} \"…\"",
                &plan[..10.min(plan.len())],
                &plan[..10.min(plan.len())]
            ))
            .into()),
        };
    }
    ui::data(&WithRounds {
        report: &report,
        rounds: ended.as_ref(),
    });
    outcome
}

/// Applies one plan and reports it: the `--json` fields of the result, and how it ended.
/// `side_by_side` (one of several applies running at once) draws no spinner and no live output.
/// `like_base` is set when its check failed the same way on the base.
/// `apply --all --json`: each plan's report with its own errors, in the order of the plans.
#[derive(serde::Serialize)]
struct AllResults<'a> {
    results: Vec<PlanResult<'a>>,
}

#[derive(serde::Serialize)]
struct PlanResult<'a> {
    #[serde(flatten)]
    report: &'a ApplyReport,
    errors: Vec<ui::ErrorDoc<'a>>,
}

fn apply_one(
    args: ApplyArgs,
    side_by_side: bool,
    like_base: &mut bool,
) -> (ApplyReport, CliResult) {
    let request = Apply {
        check: match (args.check, args.no_check) {
            (Some(cmd), _) => CheckChoice::Command(cmd),
            (None, true) => CheckChoice::Skip,
            (None, false) => CheckChoice::Configured,
        },
        plan: args.plan,
        onto: args.onto,
        network: args.check_network,
        timeout_secs: args.check_timeout,
    };
    let unapplied = |e: CliError| {
        let report = ApplyReport {
            plan: request.plan.clone(),
            ..ApplyReport::default()
        };
        (report, Err(e))
    };
    let store = match Store::open() {
        Ok(store) => store,
        Err(e) => return unapplied(e.into()),
    };
    let config = super::settings();
    let service = super::observer::service(&store, &config);
    let verbose = ui::verbose() && !side_by_side;
    let (configured, onto) = (
        matches!(request.check, CheckChoice::Configured),
        request.onto.is_some(),
    );
    let label = format!(
        "apply {}",
        request.plan.as_deref().unwrap_or("HEAD's newest plan")
    );
    let mut shown = Shown::new(&label, side_by_side, verbose);
    let applied = service::apply::apply(&service, request, &mut |p| shown.progress(p));
    shown.finish();
    if let Some(event) = &applied.event {
        ui::event(&event.to_string());
    }
    let ended = match applied.outcome {
        Ok(outcome) => outcome,
        Err(problems) => return (applied.report, Err(problems.into())),
    };
    let how = Closing {
        configured,
        onto,
        verbose,
    };
    (applied.report, closing(ended, &how, like_base))
}

/// How an apply is told on the terminal as it ends.
struct Closing {
    /// The check was the configured one (not `--check` or `--no-check`).
    configured: bool,
    /// `--onto` was given.
    onto: bool,
    verbose: bool,
}

/// The lines that close an apply on the terminal, and its result.
fn closing(outcome: Outcome, how: &Closing, like_base: &mut bool) -> CliResult {
    match outcome {
        Outcome::Applied {
            record,
            branch,
            commit,
            onto,
            changes,
            check,
            verdict,
        } => {
            if !how.onto && onto != record.base && record.repro.is_none() {
                ui::status(&format!(
                    "plan {}'s base {} was rewritten (amend or rebase); applied onto {}",
                    record.short_id(),
                    git_papayu::store::short(record.base),
                    git_papayu::store::short(onto)
                ));
            }
            super::closing::check_line(check.as_ref(), verdict.as_ref(), how.configured);
            if how.verbose {
                for change in &changes {
                    for hunk in &change.hunks {
                        ui::status(&format!(
                            "{}: hunk {} placed at line {} by {} (offset {:+})",
                            change.path, hunk.hunk, hunk.line, hunk.strategy, hunk.offset
                        ));
                    }
                }
            }
            super::closing::closing(
                &format!(
                    "Applied plan {} as {branch} ({})",
                    record.short_id(),
                    git_papayu::store::short(commit)
                ),
                &changes,
                record.short_id(),
            );
            Ok(())
        }
        Outcome::NothingToApply { record } => {
            ui::outln(&format!(
                "Plan {} changes nothing at its target; no branch was created.",
                record.short_id()
            ));
            Ok(())
        }
        Outcome::CheckFailed {
            record,
            report,
            verdict,
            like_base: alike,
        } => {
            *like_base = alike;
            if !ui::json_mode() {
                ui::status(&format!(
                    "--- last lines of `{}` ---\n{}\n---",
                    report.command, report.output_tail
                ));
            }
            let failed = apply::check_failure(&report, &verdict, record.short_id(), alike);
            Err(CliError::from(failed))
        }
    }
}

/// An apply's progress on the terminal: a spinner saying what runs, the check's output as it
/// arrives under `-v`, and the choice of plan when none was named.
struct Shown {
    spinner: ui::Spinner,
    live: ui::LiveOutput,
    verbose: bool,
}

impl Shown {
    fn new(label: &str, side_by_side: bool, verbose: bool) -> Shown {
        let spinner = match side_by_side {
            true => ui::Spinner::hidden(),
            false => ui::Spinner::new(label),
        };
        spinner.set_message("building the commit and running the check");
        Shown {
            spinner,
            live: ui::LiveOutput::default(),
            verbose,
        }
    }

    fn progress(&mut self, progress: apply::Progress<'_>) {
        let spinner = &mut self.spinner;
        match progress {
            apply::Progress::CheckingBase => {
                spinner.set_message("running the check on the base (once per base)");
            }
            apply::Progress::CheckingFlaky(n) => {
                let tests = if n == 1 { "test" } else { "tests" };
                spinner.set_message(&format!(
                    "{n} {tests} changed result; running the proposal and the base again to tell flaky tests"
                ));
            }
            apply::Progress::BaseCached(millis) if self.verbose => {
                ui::status(&format!(
                    "the check's run on the base is cached ({:.1}s saved)",
                    millis as f64 / 1000.0
                ));
            }
            apply::Progress::BaseCached(_) => {}
            apply::Progress::WaitingForSlot(n) => {
                let line = format!(
                    "all {n} check worktrees are busy with other papayu checks; waiting for one"
                );
                spinner.set_message(&line);
                if !spinner.is_visible() {
                    ui::status(&line);
                }
            }
            apply::Progress::Output(chunk) if self.verbose => {
                spinner.clear();
                self.live.push(chunk);
            }
            apply::Progress::Output(_) => spinner.set_message("running the check"),
            apply::Progress::Chose(why) => spinner.status(why),
        }
    }

    /// Clears the spinner and ends the live output.
    fn finish(&mut self) {
        self.spinner.clear();
        self.live.finish();
    }
}

/// `apply --all`: every proposed plan on HEAD, checked side by side in as many check worktrees
/// as there are ([`worktree::MAX_SLOTS`]); the first to need the check's run on their base makes
/// it while the others wait for it. A failure does not stop the others. Once all have ended,
/// each plan's problems are reported, then the plans that did not apply with the command that
/// checks them again; `--json` lists every result, in the order of the plans, with its errors.
fn run_all(args: ApplyArgs) -> CliResult {
    let store = Store::open()?;
    let ids = find::on_head(&store, Status::Proposed)?;
    if ids.is_empty() {
        return Err(nothing_proposed(&store)?.into());
    }
    drop(store);
    let queue = std::sync::Mutex::new(ids.iter().cloned().enumerate().rev().collect::<Vec<_>>());
    let done = std::sync::Mutex::new(Vec::new());
    let slots = ids.len().min(worktree::MAX_SLOTS);
    std::thread::scope(|scope| {
        for _ in 0..slots {
            scope.spawn(|| {
                loop {
                    let next = queue.lock().ok().and_then(|mut q| q.pop());
                    let Some((i, id)) = next else { break };
                    let mut like_base = false;
                    let (result, outcome) = apply_one(
                        ApplyArgs {
                            plan: Some(id.clone()),
                            onto: None,
                            all: false,
                            ..args.clone()
                        },
                        slots > 1,
                        &mut like_base,
                    );
                    if let Ok(mut done) = done.lock() {
                        done.push((i, id, result, outcome, like_base));
                    }
                }
            });
        }
    });
    let mut done = done.into_inner().unwrap_or_default();
    done.sort_by_key(|d| d.0);
    let mut failed = Vec::new();
    let mut results = Vec::new();
    for (_, id, report, outcome, like_base) in done {
        let problems = match outcome {
            Ok(()) => Vec::new(),
            Err(CliError::Problems(problems)) => problems,
            Err(other) => return Err(other),
        };
        if !problems.is_empty() {
            ui::problems(&problems);
            failed.push(NotApplied::new(&id, &report, &problems, like_base));
        }
        results.push((report, problems));
    }
    let documents: Vec<PlanResult<'_>> = results
        .iter()
        .map(|(report, problems)| PlanResult {
            report,
            errors: ui::errors(problems),
        })
        .collect();
    ui::data(&AllResults { results: documents });
    match failed.is_empty() {
        true => Ok(()),
        false => Err(group_failure(&failed, results.len()).into()),
    }
}

/// `apply --on REMOTE`: the plans (one, or `--all` on HEAD) applied without a check here and
/// asked of REMOTE's workers in one request.
fn run_on(args: ApplyArgs) -> CliResult {
    let ApplyArgs {
        plan,
        check,
        no_check: _,
        check_network,
        check_timeout,
        onto: _,
        all,
        rounds: _,
        on,
    } = args;
    let remote = on.unwrap_or_default();
    let store = Store::open()?;
    let plans = match (all, plan) {
        (true, _) => find::on_head(&store, Status::Proposed)?,
        (false, spec) => vec![find::find(&store, spec.as_deref())?.1.id],
    };
    if plans.is_empty() {
        return Err(nothing_proposed(&store)?.into());
    }
    let config = super::settings();
    let ask = workers::ask::Ask {
        remote,
        plans,
        check: check.map_or(CheckChoice::Configured, CheckChoice::Command),
        settings: CheckSettings::resolve(&config, check_network, check_timeout)?,
        sources: Sources::resolve(&config)?,
        attribution: Attribution::configured(&config)?,
    };
    let asked = workers::ask::ask(&store, &ask)?;
    ui::data(&asked);
    let request = &asked.request;
    for c in &request.candidates {
        ui::status(&format!(
            "  {} on {} ({})",
            git_papayu::store::short(&c.plan),
            c.branch,
            git_papayu::store::short(&c.commit)
        ));
    }
    ui::outln(&format!(
        "Asked {} to check {} with `{}` (request {}, branch {}); git papayu sync brings the verdicts back.",
        request.remote,
        render::count(request.candidates.len(), "proposal"),
        request.check.command,
        request.id,
        asked.branch
    ));
    Ok(())
}

/// A plan of `apply --all` that did not apply: its short id, how it ended (the check's verdict,
/// else the error's code), and the check command when one ran.
struct NotApplied {
    id: String,
    how: String,
    command: Option<String>,
    like_base: bool,
}

impl NotApplied {
    fn new(id: &str, report: &ApplyReport, problems: &[Problem], like_base: bool) -> Self {
        let how = match report.verdict.as_ref().map(|v| v.status) {
            Some(status) => status.as_str().to_string(),
            None => problems
                .first()
                .map_or_else(String::new, |p| p.code.as_str().to_string()),
        };
        NotApplied {
            id: git_papayu::store::short(id),
            how,
            command: report.check.as_ref().map(|c| c.command.clone()),
            like_base,
        }
    }
}

/// The closing error of an `apply --all` where `failed` of `total` plans did not apply: which,
/// and the command that checks them again — asking first whether the check command is right
/// when every one failed the same way as the base.
fn group_failure(failed: &[NotApplied], total: usize) -> Problem {
    let named = failed
        .iter()
        .map(|f| format!("{} ({})", f.id, f.how))
        .collect::<Vec<_>>()
        .join(", ");
    let reason = match (failed.len() == total, total) {
        (true, 1) => format!("the plan did not apply: {named}; no branch was created"),
        (true, _) => format!("none of the {total} plans applied: {named}; no branch was created"),
        (false, _) => format!(
            "{} of the {total} plans did not apply: {named}; the others are on their branches",
            failed.len()
        ),
    };
    let again = failed
        .iter()
        .map(|f| format!("git papayu apply {} --check \"CMD\"", f.id))
        .collect::<Vec<_>>()
        .join(" and ");
    let command = failed.iter().find_map(|f| f.command.as_deref());
    let hint = match command {
        Some(command) if failed.iter().all(|f| f.like_base) => format!(
            "the check failed the same way on the base without any plan: is `{command}` the right check command? Run it by hand; once it runs, check the plans again with {again}"
        ),
        _ => format!("each error above says what to run next; check a plan again with {again}"),
    };
    Problem::new(Code::CheckFailed, reason).with_hint(hint)
}

/// The refusal of `apply --all` when no plan on HEAD is proposed: the failed ones are named
/// with the command that checks them again (a failed plan applies again by id).
fn nothing_proposed(store: &Store) -> Result<Problem, CliError> {
    let failed = find::on_head(store, Status::Failed)?;
    let none = Problem::new(Code::PlanNotFound, "no proposed plan on HEAD");
    if failed.is_empty() {
        return Ok(none.with_hint("make one with git papayu plan \"goal\""));
    }
    let ids: Vec<String> = failed.iter().map(git_papayu::store::short).collect();
    Ok(Problem::new(
        Code::PlanNotFound,
        format!(
            "no proposed plan on HEAD; {} failed there: {}",
            render::count(ids.len(), "plan"),
            ids.join(", ")
        ),
    )
    .with_hint(format!(
        "check it again by id with git papayu apply {} --check \"CMD\" (or --no-check to keep it anyway), or make a new plan with git papayu plan \"goal\"",
        ids[0]
    )))
}
