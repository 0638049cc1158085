//! `git papayu apply`: commit a stored plan on its own papayu/* branch.

use clap::Args;
use git_papayu::engine::apply::{self, ApplyRequest, Outcome};
use git_papayu::engine::attribution::Attribution;
use git_papayu::engine::check::{CheckChoice, CheckReport, CheckSettings};
use git_papayu::settings::Settings as Config;
use git_papayu::store::Store;
use git_papayu::{Code, Problem, Problems};

use super::tracing::{self, Tracer};
use super::{CliError, CliResult, render, ui};

/// Apply a plan as one commit on a new branch papayu/<slug>-<id>.
///
/// The commit is built straight from the object database: your working tree, index and current
/// branch are not touched. When a check command is configured (--check, PAPAYU_CHECK_COMMAND,
/// git config papayu.checkCommand, or default_test_command in .papa-yu/project.json at the base)
/// it runs in a reusable worktree under <gitdir>/papayu/worktrees/ first; if it fails, no branch
/// is created and the plan is marked failed. apply never calls a model.
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
    /// branch with its own check.
    #[arg(long, conflicts_with_all = ["plan", "onto"])]
    pub all: bool,
}

pub fn run(args: ApplyArgs) -> CliResult {
    if args.all {
        return run_all(args);
    }
    let (result, outcome) = apply_one(args);
    ui::data(&result);
    outcome
}

/// Applies one plan and reports it: the `--json` fields of the result, and how it ended.
fn apply_one(args: ApplyArgs) -> (serde_json::Value, CliResult) {
    let ApplyArgs {
        plan,
        check,
        no_check,
        check_network,
        check_timeout,
        onto,
        all: _,
    } = args;
    let mut result = serde_json::json!({
        "plan": plan, "branch": null, "commit": null, "changes": [], "check": null,
    });
    let check = match (check, no_check) {
        (Some(cmd), _) => CheckChoice::Command(cmd),
        (None, true) => CheckChoice::Skip,
        (None, false) => CheckChoice::Configured,
    };
    let store = match Store::open() {
        Ok(store) => store,
        Err(e) => return (result, Err(e.into())),
    };
    let config = Config::load(&store);
    let settings = match CheckSettings::resolve(&config, check_network, check_timeout) {
        Ok(settings) => settings,
        Err(e) => return (result, Err(e.into())),
    };
    let attribution = match Attribution::configured(&config) {
        Ok(attribution) => attribution,
        Err(e) => return (result, Err(e.into())),
    };
    let network = settings.network;
    let request = ApplyRequest {
        plan,
        onto,
        check,
        settings,
        attribution,
    };
    let verbose = ui::verbose();
    let mut live = ui::LiveOutput::default();
    let label = format!(
        "apply {}",
        request.plan.as_deref().unwrap_or("HEAD's newest plan")
    );
    let mut spinner = ui::Spinner::new(&label);
    spinner.set_message("building the commit and running the check");
    let mut chosen: Option<String> = None;
    let mut sink = |progress: apply::Progress<'_>| match progress {
        apply::Progress::WaitingForSlot(n) => {
            let line = format!(
                "all {n} check worktrees are busy with other papayu checks; waiting for one"
            );
            spinner.set_message(&line);
            if !spinner.is_visible() {
                ui::status(&line);
            }
        }
        apply::Progress::Output(chunk) if verbose => {
            spinner.clear();
            live.push(chunk);
        }
        apply::Progress::Output(_) => spinner.set_message("running the check"),
        apply::Progress::Chose(why) => {
            spinner.status(why);
            chosen = Some(why.to_string());
        }
    };
    let outcome = apply::apply_with(&store, &request, &mut sink);
    drop(spinner);
    if let Some(why) = chosen {
        result["chosen"] = why.into();
    }
    live.finish();
    trace_apply(&store, request.plan.as_deref(), &outcome);
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(problems) => return (result, Err(problems.into())),
    };
    let report = match &outcome {
        Outcome::Applied { check, .. } => check.as_ref(),
        Outcome::CheckFailed { report, .. } => Some(report),
        Outcome::NothingToApply { .. } => None,
    };
    if let Some(warning) = report.and_then(|r| r.sandbox.warning(network)) {
        ui::warn(&warning);
    }
    match outcome {
        Outcome::Applied {
            record,
            branch,
            commit,
            onto,
            changes,
            check,
        } => {
            if request.onto.is_none() && onto.to_string() != record.base {
                ui::status(&format!(
                    "plan {}'s base {} was rewritten (amend or rebase); applied onto {}",
                    record.short_id(),
                    git_papayu::store::short(&record.base),
                    git_papayu::store::short(onto)
                ));
            }
            let chosen = result.get("chosen").cloned();
            result = serde_json::json!({
                "plan": record.id, "branch": branch, "commit": commit.to_string(),
                "changes": changes, "check": check,
            });
            if let Some(chosen) = chosen {
                result["chosen"] = chosen;
            }
            match &check {
                Some(report) => ui::status(&format!(
                    "Check passed: {} ({:.1}s)",
                    report.command, report.seconds
                )),
                None if matches!(request.check, CheckChoice::Configured) => ui::warn(NO_CHECK),
                None => {}
            }
            if verbose {
                for change in &changes {
                    for hunk in &change.hunks {
                        ui::status(&format!(
                            "{}: hunk {} placed at line {} by {} (offset {:+})",
                            change.path, hunk.hunk, hunk.line, hunk.strategy, hunk.offset
                        ));
                    }
                }
            }
            ui::outln(&format!(
                "Applied plan {} as {branch} ({})",
                record.short_id(),
                git_papayu::store::short(commit)
            ));
            ui::out(&render::diffstat(&changes));
            ui::outln(&format!(
                "Review: git papayu diff {0}   Merge: git papayu merge {0}   Discard: git papayu discard {0}",
                record.short_id()
            ));
            (result, Ok(()))
        }
        Outcome::NothingToApply { record } => {
            result["plan"] = record.id.clone().into();
            ui::outln(&format!(
                "Plan {} changes nothing at its target; no branch was created.",
                record.short_id()
            ));
            (result, Ok(()))
        }
        Outcome::CheckFailed { record, report } => {
            result["plan"] = record.id.clone().into();
            result["check"] = serde_json::to_value(&report).expect("reports serialize");
            if !ui::json_mode() {
                ui::status(&format!(
                    "--- last lines of `{}` ---\n{}\n---",
                    report.command, report.output_tail
                ));
            }
            let failed = failure(&report, record.short_id());
            (result, Err(CliError::from(failed)))
        }
    }
}

/// Writes the trace of an apply (the plan, the branch, how each hunk was placed, the check) and
/// prints its event line when verbose.
fn trace_apply(store: &Store, spec: Option<&str>, outcome: &Result<Outcome, Problems>) {
    let tracer = Tracer::new(store);
    let mut t = tracer.start("apply", None);
    t.plan_id = spec.map(str::to_string);
    match outcome {
        Err(problems) => tracer.write_failed(store, &mut t, problems),
        Ok(Outcome::Applied {
            record,
            branch,
            commit,
            changes,
            check,
            ..
        }) => {
            t.plan_id = Some(record.id.clone());
            t.base = Some(record.base.clone());
            t.branch = Some(branch.clone());
            t.patch_placements = tracing::placements(changes);
            t.check = check.as_ref().map(tracing::check_log);
            let line = format!(
                "APPLY_SUCCESS plan={} branch={branch} commit={commit}",
                record.short_id()
            );
            ui::event(&line);
            t.transcript.events.push(line);
            tracer.write(store, &t);
        }
        Ok(Outcome::NothingToApply { record }) => {
            t.plan_id = Some(record.id.clone());
            tracer.write(store, &t);
        }
        Ok(Outcome::CheckFailed { record, report }) => {
            t.plan_id = Some(record.id.clone());
            t.check = Some(tracing::check_log(report));
            let line = format!("APPLY_ROLLBACK plan={}", record.short_id());
            ui::event(&line);
            t.transcript.events.push(line);
            tracer.write_failed(store, &mut t, &[failure(report, record.short_id())]);
        }
    }
}

/// `apply --all`: each proposed plan on HEAD in turn; a failure does not stop the others. Each
/// plan's problems are reported as it ends; `--json` lists every result with its errors.
fn run_all(args: ApplyArgs) -> CliResult {
    let store = Store::open()?;
    let ids = git_papayu::engine::find::proposed_on_head(&store)?;
    if ids.is_empty() {
        return Err(Problem::new(
            Code::PlanNotFound,
            "no proposed plan on HEAD; make one with git papayu plan \"goal\"",
        )
        .into());
    }
    drop(store);
    let mut failed = Vec::new();
    let mut results = Vec::new();
    for id in ids {
        let (mut result, outcome) = apply_one(ApplyArgs {
            plan: Some(id.clone()),
            onto: None,
            all: false,
            ..args.clone()
        });
        let problems = match outcome {
            Ok(()) => Vec::new(),
            Err(CliError::Problems(problems)) => problems,
            Err(other) => return Err(other),
        };
        if !problems.is_empty() {
            ui::problems(&problems);
            failed.push(id);
        }
        result["errors"] = ui::problems_json(&problems);
        results.push(result);
    }
    ui::data(&serde_json::json!({ "results": results }));
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Problem::new(
            Code::CheckFailed,
            format!(
                "{} of the plans did not apply ({}); the others are on their branches",
                failed.len(),
                failed
                    .iter()
                    .map(git_papayu::store::short)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
        .into())
    }
}

/// Said when a plan is applied with no check at all, so a silent apply is never read as tested.
const NO_CHECK: &str =
    "no check configured: nothing was tested (set papayu.checkCommand or .papa-yu/project.json)";

/// The problem a failed check is reported with.
fn failure(report: &CheckReport, plan: &str) -> Problem {
    if report.timed_out {
        return Problem::new(
            Code::CheckTimeout,
            format!(
                "check `{}` ran past its time limit ({:.0}s) and was killed with everything it started; no branch was created and plan {plan} is marked failed; raise --check-timeout or git config papayu.checkTimeout",
                report.command, report.seconds
            ),
        );
    }
    let exit = report
        .exit_code
        .map_or_else(|| "a signal".to_string(), |c| format!("exit {c}"));
    if let Some(line) = report.sandbox.denial(&report.output_tail) {
        return Problem::new(
            Code::CheckFailed,
            format!(
                "check `{}` failed ({exit}), denied by the sandbox: {line}; no branch was created and plan {plan} is marked failed; see papayu.checkWritable (docs/security.md) to let the check write there",
                report.command
            ),
        );
    }
    Problem::new(
        Code::CheckFailed,
        format!(
            "check `{}` failed ({exit}); no branch was created and plan {plan} is marked failed",
            report.command
        ),
    )
}
