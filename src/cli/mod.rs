//! Command-line front end: one module per subcommand, each an args struct and a short `run`.
//!
//! Exit codes: 0 success; 1 a user or plan error, reported as `ERR_CODE: reason` lines; 2 a
//! usage error (clap's own); 3 an internal failure.

mod answer;
mod apply;
mod asking;
mod ci;
mod closing;
mod compare;
mod config;
mod context;
mod conversation;
mod diff;
mod discard;
mod gc;
mod init;
mod list;
mod manual;
#[cfg(feature = "mcp")]
mod mcp;
mod merge;
mod observer;
mod pasted;
mod patch;
mod pick;
mod plan;
mod progress;
mod publish;
mod refine;
mod render;
mod repro;
mod router;
mod show;
mod sync;
mod trace;
mod ui;
mod undo;
mod validate;
mod worker;

use std::process::ExitCode;

pub use git_papayu::present::text;

use clap::{Parser, Subcommand};
use git_papayu::Problem;
use git_papayu::settings::Settings;

/// The settings of this command, resolved once — after `-C`, before anything is printed — from
/// git's configuration here (`git -c` included) and the environment: the terminal's colour and
/// pager and every command read this one object, as `git papayu config` prints it.
fn settings() -> Settings {
    static SETTINGS: std::sync::OnceLock<Settings> = std::sync::OnceLock::new();
    SETTINGS.get_or_init(Settings::here).clone()
}

/// The heading the global options are listed under, apart from each command's own.
const GLOBAL: &str = "Global options";

/// Ask an LLM for a plan, keep it as a git note, apply it as a commit on a papayu/* branch.
#[derive(Debug, Parser)]
#[command(name = "git papayu", bin_name = "git papayu", version, about, long_about = None)]
#[command(allow_external_subcommands = true)]
struct Cli {
    /// Run as if started in DIR (like git -C).
    #[arg(short = 'C', value_name = "DIR", global = true, help_heading = GLOBAL)]
    directory: Option<std::path::PathBuf>,
    /// Print one JSON document on stdout, errors included (shape: docs/json.md).
    #[arg(long, global = true, help_heading = GLOBAL)]
    json: bool,
    /// Show more: event lines, how each patch hunk was placed, a check's output as it runs.
    #[arg(short, long, global = true, conflicts_with = "quiet", help_heading = GLOBAL)]
    verbose: bool,
    /// Show less: nothing on success but what you asked to see (warnings and errors still show).
    #[arg(short, long, global = true, help_heading = GLOBAL)]
    quiet: bool,
    /// When to colour output (default: color.papayu, color.ui, else auto).
    #[arg(long, value_name = "WHEN", value_enum, global = true, help_heading = GLOBAL)]
    color: Option<ui::When>,
    /// Never page output (git --no-pager and pager.papayu=false do the same).
    #[arg(long, global = true, help_heading = GLOBAL)]
    no_pager: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
#[command(defer = true)]
enum Command {
    Plan(plan::PlanArgs),
    Apply(apply::ApplyArgs),
    List(list::ListArgs),
    Show(show::ShowArgs),
    Diff(diff::DiffArgs),
    Merge(merge::MergeArgs),
    Compare(compare::CompareArgs),
    Pick(pick::PickArgs),
    Discard(discard::DiscardArgs),
    Undo(undo::UndoArgs),
    Redo(undo::RedoArgs),
    Init(init::InitArgs),
    Sync(sync::SyncArgs),
    Publish(publish::PublishArgs),
    #[cfg(feature = "mcp")]
    Mcp(mcp::McpArgs),
    Validate(validate::ValidateArgs),
    Patch(patch::PatchArgs),
    Refine(refine::RefineArgs),
    Config(config::ConfigArgs),
    Context(context::ContextArgs),
    Trace(trace::TraceArgs),
    Gc(gc::GcArgs),
    Worker(worker::WorkerArgs),
    Ci(ci::CiArgs),
    InstallMan(manual::InstallManArgs),
    Completions(manual::CompletionsArgs),
    #[command(name = "__complete", hide = true)]
    Complete(manual::CompleteArgs),
    /// A request in words: `git papayu "fix the failing test"`, `git papayu ok`.
    #[command(external_subcommand)]
    Request(Vec<String>),
}

impl Command {
    /// `git papayu mcp`: the server reads the settings per tool call and installs no manual.
    fn serves_mcp(&self) -> bool {
        #[cfg(feature = "mcp")]
        return matches!(self, Command::Mcp(_));
        #[cfg(not(feature = "mcp"))]
        false
    }
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
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(status) = manual::help_page(&args).and_then(|page| manual::open_page(&page)) {
        return ExitCode::from(status);
    }
    let mut cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    let request = match &cli.command {
        Command::Request(words) => Some(router::parse(words)),
        _ => None,
    };
    let after = match &request {
        Some(Ok(request)) => &request.globals,
        _ => &router::Globals::default(),
    };
    let json = match &mut cli.command {
        Command::Request(words) => cli.json || after.json || router::wants_json(words),
        Command::Diff(args) => args.take_json() || cli.json,
        _ => cli.json,
    };
    // `-C` first: colour and pager settings are read from the repository it names.
    let moved = match after.directory.as_ref().or(cli.directory.as_ref()) {
        Some(dir) => std::env::set_current_dir(dir).map_err(|e| (dir.clone(), e)),
        None => Ok(()),
    };
    ui::init(
        ui::Flags {
            json,
            verbose: cli.verbose || after.verbose,
            quiet: cli.quiet || after.quiet,
            color: after.color.or(cli.color),
            no_pager: cli.no_pager || after.no_pager,
        },
        &settings(),
    );
    ui::set_command(&command_name(&cli.command));
    if let Err((dir, e)) = moved {
        return ui::finish(Err(CliError::Usage(Problem::new(
            git_papayu::Code::Io,
            format!("cannot change to {}: {e}", dir.display()),
        ))));
    }
    // A typo in any setting is refused before the command does anything; `config` (which
    // shows it) and the commands that read no setting still run, and the MCP server checks
    // at each tool call (it reads the settings again there, so a fix needs no restart).
    let reads_settings = !(matches!(
        cli.command,
        Command::Config(_)
            | Command::InstallMan(_)
            | Command::Completions(_)
            | Command::Complete(_)
    ) || cli.command.serves_mcp());
    if reads_settings && let Err(problem) = settings().check() {
        return ui::finish(Err(problem.into()));
    }
    if !(matches!(cli.command, Command::InstallMan(_) | Command::Complete(_))
        || cli.command.serves_mcp())
    {
        manual::install_if_missing(&settings());
    }
    if let Some(request) = request {
        return ui::finish(request.and_then(router::run));
    }
    ui::finish(dispatch(cli.command))
}

/// clap's own errors (and --help, --version). A usage error is papayu's like every other:
/// `ERR_USAGE: <what is wrong>; see git papayu help <command>` on stderr, exit 2 — or, under
/// `--json`, a JSON document with that reason.
fn usage_error(e: clap::Error) -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = || args.iter().take_while(|a| a.as_str() != "--");
    if !e.use_stderr() {
        return built_in_help(&e, options().any(|a| a == "--no-pager"));
    }
    let json = options().any(|a| a == "--json");
    ui::init(
        ui::Flags {
            json,
            ..ui::Flags::default()
        },
        &settings(),
    );
    let command = args.iter().find(|a| !a.starts_with('-')).cloned();
    ui::set_command(command.as_deref().unwrap_or_default());
    ui::finish(Err(CliError::Usage(Problem::new(
        git_papayu::Code::Usage,
        usage_reason(&e, command.as_deref()),
    ))))
}

/// clap's help (when `man` has no page for it), paged on a terminal as other long output is:
/// `git papayu help plan` is a hundred lines. `--version` is one line and printed as it is.
fn built_in_help(e: &clap::Error, no_pager: bool) -> ExitCode {
    use clap::error::ErrorKind;
    if !matches!(
        e.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    ui::init(
        ui::Flags {
            no_pager,
            ..ui::Flags::default()
        },
        &settings(),
    );
    manual::install_if_missing(&settings());
    ui::paged();
    ui::out(&e.render().to_string());
    ui::finish(Ok(()))
}

/// clap's message in one line, without its usage and tips, and where to read more.
fn usage_reason(e: &clap::Error, command: Option<&str>) -> String {
    use clap::CommandFactory;
    let rendered = e.render().to_string();
    let what: Vec<&str> = rendered
        .lines()
        .map(str::trim)
        .skip_while(|l| l.is_empty())
        .take_while(|l| !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("tip:"))
        .collect();
    let what = what.join(" ");
    let what = what.trim_start_matches("error: ");
    let what = if what.is_empty() {
        "invalid command line"
    } else {
        what
    };
    let known = command.filter(|c| Cli::command().find_subcommand(c).is_some());
    match known {
        Some(c) => format!("{what}; see git papayu help {c}"),
        None => format!("{what}; see git papayu help"),
    }
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
        Command::Compare(args) => compare::run(args),
        Command::Pick(args) => pick::run(args),
        Command::Discard(args) => discard::run(args),
        Command::Undo(args) => undo::run_undo(args),
        Command::Redo(args) => undo::run_redo(args),
        Command::Init(args) => init::run(args),
        Command::Sync(args) => sync::run(args),
        Command::Publish(args) => publish::run(args),
        #[cfg(feature = "mcp")]
        Command::Mcp(args) => mcp::run(args),
        Command::Validate(args) => validate::run(args),
        Command::Patch(args) => patch::run(args),
        Command::Refine(args) => refine::run(args),
        Command::Config(args) => config::run(args),
        Command::Context(args) => context::run(args),
        Command::Trace(args) => trace::run(args),
        Command::Gc(args) => gc::run(args),
        Command::Worker(args) => worker::run(args),
        Command::Ci(args) => ci::run(args),
        Command::InstallMan(args) => manual::install_man(args),
        Command::Completions(args) => manual::completions(args),
        Command::Complete(args) => manual::complete(args),
        Command::Request(_) => unreachable!("requests are run from main"),
    }
}
