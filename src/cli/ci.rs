//! `git papayu ci`: print a workflow that makes a CI system a papayu worker.

use clap::{Args, ValueEnum};
use git_papayu::engine::workers::ci::{self, System};

use super::{CliResult, ui};

/// Print a workflow file that makes a CI system check papayu's requests.
///
/// The workflow runs on pushes of papayu/check/** branches (the requests git papayu apply --on
/// pushes); its one papayu step runs git papayu worker --once for the pushed request and pushes
/// the signed verdicts back. Save it where the system reads it (the path is printed on stderr),
/// put the worker's private SSH key in the secret PAPAYU_WORKER_KEY, and list its public key in
/// papayu.trustedWorkers on the clones that should count its verdicts (docs/teams.md).
#[derive(Debug, Args)]
pub struct CiArgs {
    /// The CI system.
    #[arg(value_enum)]
    pub system: CiSystem,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum CiSystem {
    Github,
    Gitlab,
    Forgejo,
}

/// `ci --json`: where the workflow goes, its text, and the name of its papayu step.
#[derive(serde::Serialize)]
struct Workflow<'a> {
    path: &'a str,
    workflow: &'a str,
    step: &'a str,
}

pub fn run(args: CiArgs) -> CliResult {
    let CiArgs { system } = args;
    let system = match system {
        CiSystem::Github => System::Github,
        CiSystem::Gitlab => System::Gitlab,
        CiSystem::Forgejo => System::Forgejo,
    };
    let (path, text) = ci::workflow(system);
    ui::data(&Workflow {
        path,
        workflow: &text,
        step: ci::STEP,
    });
    ui::status(&format!("save this as {path}"));
    ui::out_data(&text);
    Ok(())
}
