//! `git papayu refine`: a new model round on top of a proposal branch.

use clap::Args;
use git_papayu::engine::check::CheckChoice;
use git_papayu::engine::refine::{self, Refined};
use git_papayu::store::Store;
use git_papayu::{Code, Problem};

use super::plan::non_empty;
use super::{CliError, CliResult, ui};
use git_papayu::service::rounds::{self, FirstRound, Refinement, round_goal};

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
    git_papayu::engine::plan::check_goal("feedback", &feedback)?;
    let store = Store::open()?;
    let (mut target, why) = refine::target_explained(&store, plan.as_deref())?;
    if let Some(why) = why {
        ui::status(&why);
    }
    target.feedback = feedback.trim().to_string();
    let goal = round_goal(&target, feedback.trim());
    let config = super::settings();
    let service = super::observer::service(&store, &config);
    let how = refine::How::configured(&config, choice)?;
    let refined = rounds::round(&service, &target, (goal, provider, model), &how)?;
    let rounds = rounds.unwrap_or(1);
    if rounds > 1
        && let Some(first) = first_round(&refined)
    {
        return more_rounds(&service, first, rounds, how.choice);
    }
    closing(refined, &target, &how.choice)
}

/// How a refinement ended, on the terminal and in `--json`.
fn closing(refined: Refined, target: &refine::Target, choice: &CheckChoice) -> CliResult {
    ui::data(&Refinement::of(&refined, target));
    match refined {
        Refined::Committed {
            planned,
            commit,
            check,
        } => {
            let (report, verdict) = check.map_or((None, None), |(r, v)| (Some(r), Some(v)));
            super::closing::check_line(
                report.as_ref(),
                verdict.as_ref(),
                matches!(choice, CheckChoice::Configured),
            );
            super::closing::closing(
                &format!(
                    "Refined plan {} as {} on {} ({})",
                    target.record.short_id(),
                    planned.record.short_id(),
                    target.branch,
                    git_papayu::store::short(commit)
                ),
                &planned.changes,
                planned.record.short_id(),
            );
            Ok(())
        }
        Refined::NothingChanged { .. } => {
            ui::outln(&format!(
                "The model's answer changes nothing on {}; the branch was not moved.",
                target.branch
            ));
            Ok(())
        }
        Refined::CheckFailed {
            planned,
            report,
            verdict,
        } => {
            if !ui::json_mode() {
                ui::status(&format!(
                    "--- last lines of `{}` ---\n{}\n---",
                    report.command, report.output_tail
                ));
            }
            Err(CliError::from(Problem::new(
                Code::CheckFailed,
                format!(
                    "check `{}` failed ({}); {} was not {} and the refinement {} is marked failed",
                    report.command,
                    verdict.line(),
                    target.branch,
                    if target.creates { "created" } else { "moved" },
                    planned.record.short_id()
                ),
            )
            .with_hint(format!(
                "refine it again from where it failed: git papayu refine {} \"…\"",
                planned.record.short_id()
            ))))
        }
    }
}

/// Where a refinement left its proposal, as the first of several rounds; `None` when no check
/// judged it (or it changed nothing).
fn first_round(refined: &Refined) -> Option<FirstRound> {
    let (planned, report, verdict) = match refined {
        Refined::Committed {
            planned,
            check: Some((report, verdict)),
            ..
        } => (planned, report, verdict),
        Refined::CheckFailed {
            planned,
            report,
            verdict,
        } => (planned, report, verdict),
        _ => return None,
    };
    Some(FirstRound::judged(&planned.record.id, report, verdict))
}

/// `refine --rounds N`: the rounds after this refinement, as `apply --rounds` runs them.
fn more_rounds(
    service: &git_papayu::service::Service<'_>,
    first: FirstRound,
    rounds: u32,
    choice: CheckChoice,
) -> CliResult {
    ui::status(&format!("round 1 of {rounds}: {}", first.verdict.line()));
    let ended = rounds::run(service, first, rounds, choice)?;
    ui::data(&serde_json::json!({ "plan": ended.last, "rounds": ended }));
    let last = &ended.last[..10.min(ended.last.len())];
    if ended.reached {
        ui::outln(&format!(
            "Rounds ended with plan {last}: {}",
            ended.verdict.line()
        ));
        return Ok(());
    }
    Err(Problem::new(
        Code::CheckFailed,
        format!(
            "after {} rounds the check still leaves tests failing (last round {last}: {})",
            ended.round, ended.stopped
        ),
    )
    .with_hint(format!(
        "see git papayu show {last}; refine it with git papayu refine {last} \"…\""
    ))
    .into())
}
