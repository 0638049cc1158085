//! `git papayu refine`: a new model round on top of a proposal branch.

use clap::Args;
use git_papayu::ask::session::Ask;
use git_papayu::engine::attribution::Attribution;
use git_papayu::engine::check::{CheckChoice, CheckSettings};
use git_papayu::engine::refine::{self, Refined};
use git_papayu::store::Store;
use git_papayu::trace::record::{self, Tracer};
use git_papayu::{Code, Problem};

use super::asking;
use super::plan::non_empty;
use super::{CliError, CliResult, render, ui};

/// Ask the model to improve an applied proposal; the result is a new commit on its branch.
///
/// The model sees the goal, your feedback and the files as the proposal branch has them. The new
/// answer is validated and dry-run on the branch tip, checked like apply, recorded as a new
/// plan (a note on the old tip), and committed on the same branch: one operation, undone by
/// git papayu undo. The branch moves only if its tip is still papayu's own commit.
#[derive(Debug, Args)]
pub struct RefineArgs {
    /// Plan id (a unique prefix) or proposal branch.
    pub plan: String,
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
}

pub fn run(args: RefineArgs) -> CliResult {
    let RefineArgs {
        plan,
        feedback,
        check,
        no_check,
        provider,
        model,
    } = args;
    let choice = match (check, no_check) {
        (Some(cmd), _) => CheckChoice::Command(cmd),
        (None, true) => CheckChoice::Skip,
        (None, false) => CheckChoice::Configured,
    };
    git_papayu::engine::plan::check_goal("feedback", &feedback)?;
    let store = Store::open()?;
    let mut target = refine::target(&store, Some(&plan))?;
    target.feedback = feedback.trim().to_string();
    let goal = format!(
        "{}\n\nThe proposal on branch {} already makes a change for this goal; its files are shown as they are now on that branch ({}). Review feedback to address: {}",
        target.record.goal.trim(),
        target.branch,
        target.changed.join(", "),
        feedback.trim()
    );
    let ask = Ask {
        provider,
        model,
        ..Ask::plan(goal, target.tip)
    };
    let config = super::settings();
    let tracer = Tracer::new(&config, ui::warn);
    let mut candidates = asking::ask_models(&store, &config, ask, &tracer, "refine")?;
    let (candidate, mut provenance, mut trace) = candidates.remove(0);
    // The refined plan keeps the goal; the feedback was only for the model.
    provenance.goal = target.record.goal.clone();
    // It stands for the same proposal: it competes in the same group, in its place.
    provenance.group = target.record.group.clone();
    provenance.conversation = Some(git_papayu::trace::conversation::of_trace(&trace));
    trace.branch = Some(target.branch.clone());
    let settings = CheckSettings::resolve(&config, false, None)?;
    let attribution = Attribution::configured(&config)?;
    let refined = refine::advance(
        &store,
        &target,
        candidate,
        provenance,
        &choice,
        &settings,
        attribution,
    );
    match &refined {
        Ok(Refined::Committed { planned, check, .. }) => {
            record::plan_stored(&mut trace, planned);
            trace.check = check.as_ref().map(record::check_log);
            tracer.write(&store, &trace);
        }
        Ok(Refined::NothingChanged { planned }) => {
            record::plan_stored(&mut trace, planned);
            tracer.write(&store, &trace);
        }
        Ok(Refined::CheckFailed { planned, report }) => {
            record::plan_stored(&mut trace, planned);
            trace.check = Some(record::check_log(report));
            let failed = Problem::new(
                Code::CheckFailed,
                format!("check `{}` failed", report.command),
            );
            tracer.write_failed(&store, &mut trace, &[failed]);
        }
        Err(problems) => tracer.write_failed(&store, &mut trace, problems),
    }
    match refined? {
        Refined::Committed {
            planned,
            commit,
            check,
        } => {
            ui::data(&serde_json::json!({
                "plan": planned.record, "refines": target.record.id, "branch": target.branch,
                "commit": commit.to_string(), "changes": planned.changes, "check": check,
            }));
            ui::outln(&format!(
                "Refined plan {} as {} on {} ({})",
                target.record.short_id(),
                planned.record.short_id(),
                target.branch,
                git_papayu::store::short(commit)
            ));
            ui::out(&render::diffstat(
                &planned.changes,
                ui::columns().unwrap_or(80),
            ));
            if let Some(report) = &check {
                ui::status(&format!(
                    "Check passed: {} ({:.1}s)",
                    report.command, report.seconds
                ));
            }
            Ok(())
        }
        Refined::NothingChanged { planned } => {
            ui::data(&serde_json::json!({
                "plan": planned.record, "refines": target.record.id, "branch": target.branch,
                "commit": null, "changes": planned.changes, "check": null,
            }));
            ui::outln(&format!(
                "The model's answer changes nothing on {}; the branch was not moved.",
                target.branch
            ));
            Ok(())
        }
        Refined::CheckFailed { planned, report } => {
            ui::data(&serde_json::json!({
                "plan": planned.record, "refines": target.record.id, "branch": target.branch,
                "commit": null, "changes": planned.changes, "check": report,
            }));
            if !ui::json_mode() {
                ui::status(&format!(
                    "--- last lines of `{}` ---\n{}\n---",
                    report.command, report.output_tail
                ));
            }
            Err(CliError::from(
                Problem::new(
                    Code::CheckFailed,
                    format!(
                        "check `{}` failed; {} was not moved and the refinement {} is marked failed",
                        report.command,
                        target.branch,
                        planned.record.short_id()
                    ),
                )
                .with_hint(format!(
                    "try other feedback with git papayu refine {} \"…\", or review the proposal as it is with git papayu diff {}",
                    target.record.short_id(),
                    target.record.short_id()
                )),
            ))
        }
    }
}
