//! `git papayu refine`: a new model round on top of a proposal branch.

use clap::Args;
use git_papayu::engine::check::CheckChoice;
use git_papayu::service::refine::{self, Outcome, Refine, Refinement};
use git_papayu::service::rounds::Ended;
use git_papayu::store::Store;

use super::plan::non_empty;
use super::{CliError, CliResult, ui};

/// Ask the model to improve an applied proposal; the result is a new commit on its branch.
///
/// The model sees the goal, your feedback and the files as the proposal branch has them. The new
/// answer is validated and dry-run on the branch tip, checked like apply (against the plan's
/// base, test by test), recorded as a new plan (a note on the old tip), and committed on the
/// same branch: one operation, undone by git papayu undo. The branch moves only if its tip is
/// still papayu's own commit. A plan whose check failed can be refined too: the round starts
/// from the commit that failed, the model is told what failed, and the branch is created once
/// the check passes.
///
/// Without a plan id it refines the newest proposal on HEAD, as apply, merge and discard choose
/// theirs, and says which one it chose.
#[derive(Debug, Args)]
#[command(allow_missing_positional = true)]
pub struct RefineArgs {
    /// Plan id (a unique prefix) or proposal branch; default: the newest plan on HEAD.
    pub plan: Option<String>,
    /// What to change in the proposal.
    #[arg(value_parser = non_empty)]
    pub feedback: String,
    /// Run this check command (through sh -c) before moving the branch.
    #[arg(long, value_name = "CMD", conflicts_with = "no_check", value_parser = non_empty)]
    pub check: Option<String>,
    /// Do not run any check.
    #[arg(long)]
    pub no_check: bool,
    /// Provider to ask (NAME or NAME:MODEL); default as for plan.
    #[arg(long, value_name = "P")]
    pub provider: Option<String>,
    /// Model to ask for.
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,
    /// Up to N rounds in all, this one included (1 to 5; default 1): while the check leaves
    /// tests failing, the model is told what failed and asked for another correction.
    #[arg(long, value_name = "N", conflicts_with = "no_check",
          value_parser = clap::value_parser!(u32).range(1..=5))]
    pub rounds: Option<u32>,
}

pub fn run(args: RefineArgs) -> CliResult {
    let RefineArgs {
        plan,
        feedback,
        check,
        no_check,
        provider,
        model,
        rounds,
    } = args;
    let choice = match (check, no_check) {
        (Some(cmd), _) => CheckChoice::Command(cmd),
        (None, true) => CheckChoice::Skip,
        (None, false) => CheckChoice::Configured,
    };
    let configured = matches!(choice, CheckChoice::Configured);
    let store = Store::open()?;
    let config = super::settings();
    let request = Refine {
        plan,
        feedback,
        provider,
        model,
        choice,
        rounds: rounds.unwrap_or(1),
    };
    let refined = refine::refine(&super::observer::service(&store, &config), request)?;
    ui::data(&refined);
    match &refined.rounds {
        Some(ended) => rounds_ended(&refined, ended),
        None => closing(&refined, configured),
    }
}

/// How a refinement of one round ended, on the terminal.
fn closing(refined: &Refinement, configured: bool) -> CliResult {
    let id = refined.plan.short_id();
    let refines = git_papayu::store::short(&refined.refines);
    match refined.outcome {
        Outcome::Committed => {
            super::closing::check_line(
                refined.check.as_ref(),
                refined.verdict.as_ref(),
                configured,
            );
            let commit = refined.commit.as_deref().unwrap_or_default();
            super::closing::closing(
                &format!(
                    "Refined plan {refines} as {id} on {} ({})",
                    refined.branch,
                    git_papayu::store::short(commit)
                ),
                &refined.changes,
                id,
            );
            Ok(())
        }
        Outcome::Unchanged => {
            ui::outln(&format!(
                "The model's answer changes nothing on {}; the branch was not moved.",
                refined.branch
            ));
            Ok(())
        }
        Outcome::CheckFailed => {
            if let (Some(report), false) = (&refined.check, ui::json_mode()) {
                ui::status(&format!(
                    "--- last lines of `{}` ---\n{}\n---",
                    report.command, report.output_tail
                ));
            }
            failed(refined)
        }
    }
}

/// The refinement's failure as the command's error; the check's output was shown already.
fn failed(refined: &Refinement) -> CliResult {
    match refined.failure() {
        Some(mut problem) => {
            problem.detail = None;
            Err(CliError::from(problem))
        }
        None => Ok(()),
    }
}

/// How `refine --rounds N` ended, on the terminal.
fn rounds_ended(refined: &Refinement, ended: &Ended) -> CliResult {
    if ended.reached {
        let last = &ended.last[..10.min(ended.last.len())];
        ui::outln(&format!(
            "Rounds ended with plan {last}: {}",
            ended.verdict.line()
        ));
    }
    failed(refined)
}
