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
mod gc;
mod init;
mod linediff;
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
    /// Print one JSON document on stdout, errors included (shape: docs/json.md).
    #[arg(long, global = true)]
    json: bool,
    /// Show more: event lines, how each patch hunk was placed, a check's output as it runs.
    #[arg(short, long, global = true, conflicts_with = "quiet")]
    verbose: bool,
    /// Show less: no progress and no status lines (warnings and errors still show).
    #[arg(short, long, global = true)]
    quiet: bool,
    /// When to colour output (default: color.papayu, color.ui, else auto).
    #[arg(long, value_name = "WHEN", value_enum, global = true)]
    color: Option<ui::When>,
    /// Never page output (git --no-pager and pager.papayu=false do the same).
    #[arg(long, global = true)]
    no_pager: bool,
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
    Gc(gc::GcArgs),
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
    let mut cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    let json = match &mut cli.command {
        Command::Request(words) => cli.json || router::wants_json(words),
        Command::Diff(args) => args.take_json() || cli.json,
        _ => cli.json,
    };
    ui::init(ui::Settings {
        json,
        verbose: cli.verbose,
        quiet: cli.quiet,
        color: cli.color,
        no_pager: cli.no_pager,
    });
    ui::set_command(&command_name(&cli.command));
    if let Some(dir) = &cli.directory
        && let Err(e) = std::env::set_current_dir(dir)
    {
        return ui::finish(Err(CliError::Usage(Problem::new(
            git_papayu::Code::Io,
            format!("cannot change to {}: {e}", dir.display()),
        ))));
    }
    ui::finish(dispatch(cli.command))
}

/// clap's own errors (and --help, --version). Under `--json` a usage error is a JSON document
/// too, with clap's first line as its reason.
fn usage_error(e: clap::Error) -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let json = args
        .iter()
        .take_while(|a| a.as_str() != "--")
        .any(|a| a == "--json");
    if !json || !e.use_stderr() {
        let _ = e.print();
        return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
    }
    ui::init(ui::Settings {
        json: true,
        ..ui::Settings::default()
    });
    let command = args.iter().find(|a| !a.starts_with('-')).cloned();
    ui::set_command(command.as_deref().unwrap_or_default());
    let rendered = e.render().to_string();
    let reason = rendered
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("invalid command line")
        .trim_start_matches("error: ")
        .to_string();
    ui::finish(Err(CliError::Usage(Problem::new(
        git_papayu::Code::Usage,
        reason,
    ))))
}

/// The command's name as the `--json` document gives it.
fn command_name(command: &Command) -> String {
    match command {
        Command::Trace(args) => format!("trace {}", args.action_name()),
        Command::Request(_) => "request".to_string(),
        other => {
            let debug = format!("{other:?}");
            let variant = debug.split(['(', ' ']).next().unwrap_or_default();
            let mut name = String::new();
            for (i, c) in variant.chars().enumerate() {
                if c.is_uppercase() && i > 0 {
                    name.push('-');
                }
                name.push(c.to_ascii_lowercase());
            }
            name
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
        Command::Gc(args) => gc::run(args),
        Command::InstallMan(args) => manual::install_man(args),
        Command::Completions(args) => manual::completions(args),
        Command::Complete(args) => manual::complete(args),
        Command::Request(words) => router::run(words),
    }
}
