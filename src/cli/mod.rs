//! Command-line front end: one module per subcommand, each an args struct and a short `run`.
//!
//! Exit codes: 0 success; 1 a user or plan error, reported as `ERR_CODE: reason` lines; 2 a
//! usage error (clap's own); 3 an internal failure.

mod apply;
mod asking;
mod config;
mod context;
mod diff;
mod discard;
mod init;
mod list;
mod manual;
mod merge;
mod patch;
mod plan;
mod progress;
mod refine;
mod render;
mod router;
mod show;
mod text;
mod trace;
mod tracing;
mod ui;
mod undo;
mod validate;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use git_papayu::Problem;

/// Ask an LLM for a plan, keep it as a git note, apply it as a commit on a papayu/* branch.
#[derive(Debug, Parser)]
#[command(name = "git papayu", bin_name = "git papayu", version, about, long_about = None)]
#[command(allow_external_subcommands = true)]
struct Cli {
    /// Run as if started in DIR (like git -C).
    #[arg(short = 'C', value_name = "DIR", global = true)]
    directory: Option<std::path::PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Plan(plan::PlanArgs),
    Apply(apply::ApplyArgs),
    List(list::ListArgs),
    Show(show::ShowArgs),
    Diff(diff::DiffArgs),
    Merge(merge::MergeArgs),
    Discard(discard::DiscardArgs),
    Undo(undo::UndoArgs),
    Redo(undo::RedoArgs),
    Init(init::InitArgs),
    Validate(validate::ValidateArgs),
    Patch(patch::PatchArgs),
    Refine(refine::RefineArgs),
    Config(config::ConfigArgs),
    Context(context::ContextArgs),
    Trace(trace::TraceArgs),
    InstallMan(manual::InstallManArgs),
    Completions(manual::CompletionsArgs),
    #[command(name = "__complete", hide = true)]
    Complete(manual::CompleteArgs),
    /// A request in words: `git papayu "fix the failing test"`, `git papayu ok`.
    #[command(external_subcommand)]
    Request(Vec<String>),
}

/// Why a command failed, as far as the exit code is concerned.
#[derive(Debug)]
pub enum CliError {
    /// The user's input or the plan was rejected: print every problem, exit 1.
    Problems(Vec<Problem>),
    /// The command line itself is wrong (an unknown word): print it, exit 2.
    Usage(Problem),
    /// Something broke that is not the user's doing: exit 3.
    Internal(anyhow::Error),
}

impl From<Problem> for CliError {
    fn from(p: Problem) -> Self {
        CliError::Problems(vec![p])
    }
}

impl From<Vec<Problem>> for CliError {
    fn from(p: Vec<Problem>) -> Self {
        CliError::Problems(p)
    }
}

impl From<git_papayu::store::StoreError> for CliError {
    fn from(e: git_papayu::store::StoreError) -> Self {
        CliError::Problems(vec![e.to_problem()])
    }
}

impl From<anyhow::Error> for CliError {
    fn from(e: anyhow::Error) -> Self {
        CliError::Internal(e)
    }
}

pub type CliResult = Result<(), CliError>;

pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    if let Some(dir) = &cli.directory
        && let Err(e) = std::env::set_current_dir(dir)
    {
        ui::problem(&Problem::new(
            git_papayu::Code::Io,
            format!("cannot change to {}: {e}", dir.display()),
        ));
        return ExitCode::from(2);
    }
    match dispatch(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError::Problems(problems)) => {
            for p in &problems {
                ui::problem(p);
            }
            ExitCode::from(1)
        }
        Err(CliError::Usage(p)) => {
            ui::problem(&p);
            ExitCode::from(2)
        }
        Err(CliError::Internal(e)) => {
            ui::status(&format!("error: {e:#}"));
            ExitCode::from(3)
        }
    }
}

fn dispatch(command: Command) -> CliResult {
    match command {
        Command::Plan(args) => plan::run(args),
        Command::Apply(args) => apply::run(args),
        Command::List(args) => list::run(args),
        Command::Show(args) => show::run(args),
        Command::Diff(args) => diff::run(args),
        Command::Merge(args) => merge::run(args),
        Command::Discard(args) => discard::run(args),
        Command::Undo(args) => undo::run_undo(args),
        Command::Redo(args) => undo::run_redo(args),
        Command::Init(args) => init::run(args),
        Command::Validate(args) => validate::run(args),
        Command::Patch(args) => patch::run(args),
        Command::Refine(args) => refine::run(args),
        Command::Config(args) => config::run(args),
        Command::Context(args) => context::run(args),
        Command::Trace(args) => trace::run(args),
        Command::InstallMan(args) => manual::install_man(args),
        Command::Completions(args) => manual::completions(args),
        Command::Complete(args) => manual::complete(args),
        Command::Request(words) => router::run(words),
    }
}
