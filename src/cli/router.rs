//! `git papayu "<free text>"`: the seeds' router from words to commands.
//!
//! - `plan: …` → plan; `apply: …` → plan, then apply;
//! - `ok`, `ок`, `apply`, `применяй`, `да` → apply the newest plan on HEAD;
//! - a request starting with a fix verb (`fix`, `исправь`, `почини`) → plan, in fixit mode;
//! - a request starting with a create verb (`create`, `создай`, `сгенерируй`) → plan, then apply;
//! - any other request of several words → plan.
//!
//! The free text is one quoted argument, or bare words up to the first option; options after it
//! are options (`git papayu "fix the failing test" --log test.log --json`). A single unknown
//! word is a mistyped command, not a request: it is a usage error, with the command it is a
//! near miss of; so are several bare words whose first is a near miss of a command
//! (`git papayu lst plans`). Both are refused before any model is asked.

use std::path::PathBuf;

use git_papayu::ask::session::Ask;
use git_papayu::store::Store;
use git_papayu::{Code, Problem};

use super::{CliError, CliResult, apply, asking, plan, ui};

/// What a request asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    Plan { goal: String, fix: bool },
    PlanAndApply { goal: String },
    ApplyLatest,
    Unknown(String),
}

const CONFIRM: &[&str] = &[
    "ok",
    "ок",
    "okay",
    "apply",
    "применяй",
    "примени",
    "да",
    "yes",
];
const FIX_VERBS: &[&str] = &["fix", "исправь", "почини"];
const CREATE_VERBS: &[&str] = &["create", "создай", "сгенерируй"];

/// Decides where free text goes.
pub fn route(text: &str) -> Route {
    let text = text.trim();
    let lower = text.to_lowercase();
    for (prefix, apply) in [("plan:", false), ("apply:", true)] {
        if lower.starts_with(prefix) {
            let goal = text[prefix.len()..].trim().to_string();
            return match apply {
                true => Route::PlanAndApply { goal },
                false => Route::Plan { goal, fix: false },
            };
        }
    }
    let bare = lower.trim_end_matches(['.', '!', ' ']);
    if CONFIRM.contains(&bare) {
        return Route::ApplyLatest;
    }
    let first = lower
        .split(|c: char| c.is_whitespace() || c == ':' || c == ',')
        .next()
        .unwrap_or("");
    if CREATE_VERBS.contains(&first) {
        return Route::PlanAndApply {
            goal: text.to_string(),
        };
    }
    if FIX_VERBS.contains(&first) {
        return Route::Plan {
            goal: text.to_string(),
            fix: true,
        };
    }
    if text.split_whitespace().count() < 2 {
        return Route::Unknown(text.to_string());
    }
    Route::Plan {
        goal: text.to_string(),
        fix: false,
    }
}

/// The global options, when they come after the free text (`git papayu "…" --json -v`).
#[derive(Debug, Default, clap::Args)]
pub struct Globals {
    /// Run as if started in DIR (like git -C).
    #[arg(short = 'C', value_name = "DIR")]
    pub directory: Option<PathBuf>,
    /// Print one JSON document on stdout.
    #[arg(long)]
    pub json: bool,
    /// Show more.
    #[arg(short, long, conflicts_with = "quiet")]
    pub verbose: bool,
    /// Show less.
    #[arg(short, long)]
    pub quiet: bool,
    /// When to colour output.
    #[arg(long, value_name = "WHEN", value_enum)]
    pub color: Option<ui::When>,
    /// Never page output.
    #[arg(long)]
    pub no_pager: bool,
}

/// `git papayu ok --no-check`: a confirmation followed only by options takes apply's options
/// (and the global ones), never a goal.
#[derive(Debug, clap::Parser)]
#[command(name = "git papayu ok", no_binary_name = true)]
struct OkArgs {
    #[command(flatten)]
    apply: apply::ApplyArgs,
    #[command(flatten)]
    globals: Globals,
}

/// The options after a request's text: plan's options for asking, and the global ones.
#[derive(Debug, clap::Parser)]
#[command(name = "git papayu \"<request>\"", no_binary_name = true)]
struct RequestArgs {
    /// A log or error report to send with the goal ('-' for stdin); may be repeated.
    #[arg(long = "log", visible_alias = "error-report", value_name = "FILE|-")]
    logs: Vec<PathBuf>,
    /// Provider(s) to ask, comma-separated, each NAME or NAME:MODEL.
    #[arg(long, value_name = "P")]
    provider: Option<String>,
    /// Model to ask for.
    #[arg(long, value_name = "MODEL")]
    model: Option<String>,
    /// How the model is asked to work: chat, fixit or fix-plan.
    #[arg(long, value_name = "MODE")]
    llm_mode: Option<String>,
    /// Write an accepted memory_patch without asking.
    #[arg(long)]
    accept_memory: bool,
    /// When the request applies: up to N rounds in all (1 to 5; default papayu.rounds): while
    /// the check leaves tests failing, the model is told what failed and asked again.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=5))]
    rounds: Option<u32>,
    #[command(flatten)]
    globals: Globals,
}

/// A request taken apart: where it goes, with which options.
#[derive(Debug)]
pub struct Request {
    pub globals: Globals,
    action: Action,
}

#[derive(Debug)]
enum Action {
    Confirm(apply::ApplyArgs),
    Route {
        route: Route,
        logs: Vec<PathBuf>,
        provider: Option<String>,
        model: Option<String>,
        llm_mode: Option<String>,
        accept_memory: bool,
        rounds: Option<u32>,
    },
}

/// The options after a confirmation word, when that is all the request holds.
fn confirm_options(words: &[String]) -> Option<&[String]> {
    let (first, rest) = words.split_first()?;
    let bare = first.to_lowercase();
    (CONFIRM.contains(&bare.as_str())
        && !rest.is_empty()
        && rest.iter().all(|w| w.starts_with('-')))
    .then_some(rest)
}

/// Whether the words ask for `--json` anywhere before a `--` (for errors found while taking a
/// request apart, before its options are known).
pub fn wants_json(words: &[String]) -> bool {
    words
        .iter()
        .take_while(|w| w.as_str() != "--")
        .any(|w| w == "--json")
}

/// Whether the first word of bare free text is one the router knows (`plan:`, `apply:`, a
/// confirmation, a fix or create verb).
fn starts_with_router_word(first: &str) -> bool {
    let lower = first.to_lowercase();
    if lower.starts_with("plan:") || lower.starts_with("apply:") {
        return true;
    }
    let bare = lower.trim_end_matches([':', ',', '.', '!']);
    CONFIRM.contains(&bare) || FIX_VERBS.contains(&bare) || CREATE_VERBS.contains(&bare)
}

/// Edit distance counting a swap of neighbours as one edit.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// The command a word is a near miss of, if any (`lst` → `list`).
pub fn suggestion(word: &str) -> Option<String> {
    use clap::CommandFactory;
    let word = word.to_lowercase();
    if word.chars().count() < 2 {
        return None;
    }
    let most = if word.chars().count() <= 4 { 1 } else { 2 };
    let cli = super::Cli::command();
    let mut names: Vec<String> = cli
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(|c| c.get_name().to_string())
        .collect();
    names.push("help".to_string());
    names
        .into_iter()
        .map(|name| (distance(&word, &name), name))
        .filter(|(d, _)| *d <= most)
        .min_by_key(|(d, _)| *d)
        .map(|(_, name)| name)
}

fn unknown_command(raw: &str, several: bool) -> CliError {
    let word = raw.escape_debug().to_string();
    let reason = match suggestion(raw) {
        Some(name) if several => format!(
            "'{word}' is not a papayu command; did you mean '{name}'? To send the words as a request, quote them: git papayu \"{word} …\""
        ),
        Some(name) => {
            format!("'{word}' is not a papayu command; did you mean '{name}'? see git papayu help")
        }
        None => format!(
            "'{word}' is not a papayu command; see git papayu help, or write a request in words: git papayu \"fix the failing test\""
        ),
    };
    CliError::Usage(Problem::new(Code::UnknownCommand, reason))
}

/// A clap error in the options after a request, as papayu's usage error.
fn options_error(e: clap::Error) -> CliError {
    let rendered = e.render().to_string();
    let reason = rendered
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("invalid options")
        .trim_start_matches("error: ")
        .to_string();
    CliError::Usage(Problem::new(
        Code::Usage,
        format!("{reason}; see git papayu help plan"),
    ))
}

/// Takes the words after `git papayu` apart: the free text (one quoted argument, or bare words
/// up to the first option), then the options. Nothing is asked of a model here, so a mistyped
/// command or a bad option costs nothing.
pub fn parse(words: &[String]) -> Result<Request, CliError> {
    use clap::Parser;
    if let Some(options) = confirm_options(words) {
        let args = OkArgs::try_parse_from(options).map_err(options_error)?;
        return Ok(Request {
            globals: args.globals,
            action: Action::Confirm(args.apply),
        });
    }
    let split = words
        .iter()
        .position(|w| w.len() > 1 && w.starts_with('-'))
        .unwrap_or(words.len());
    let (text, options) = words.split_at(split);
    if let [first, _, ..] = text
        && !first.chars().any(char::is_whitespace)
        && !starts_with_router_word(first)
        && suggestion(first).is_some()
    {
        return Err(unknown_command(first, true));
    }
    let route = route(&text.join(" "));
    if let Route::Unknown(word) = &route {
        return Err(unknown_command(word, false));
    }
    let args = RequestArgs::try_parse_from(options).map_err(options_error)?;
    Ok(Request {
        globals: args.globals,
        action: Action::Route {
            route,
            logs: args.logs,
            provider: args.provider,
            model: args.model,
            llm_mode: args.llm_mode,
            accept_memory: args.accept_memory,
            rounds: args.rounds,
        },
    })
}

/// Runs a request taken apart by [`parse`].
pub fn run(request: Request) -> CliResult {
    let (route, how) = match request.action {
        Action::Confirm(args) => return apply::run(args),
        Action::Route {
            route,
            logs,
            provider,
            model,
            llm_mode,
            accept_memory,
            rounds,
        } => (
            route,
            How {
                logs,
                provider,
                model,
                llm_mode,
                accept_memory,
                rounds,
            },
        ),
    };
    match route {
        Route::Unknown(word) => Err(unknown_command(&word, false)),
        Route::ApplyLatest => apply_plans(None, how.rounds),
        Route::Plan { goal, fix } => {
            if let Some(n) = how.rounds {
                return Err(CliError::Usage(
                    Problem::new(
                        Code::Usage,
                        "--rounds runs when a check judges a proposal, and this request only plans; nothing was asked",
                    )
                    .with_hint(format!(
                        "plan it, then apply it with rounds: git papayu ok --rounds {n} (or write \"apply: …\")"
                    )),
                ));
            }
            plan_only(goal, fix, how, false)?;
            Ok(())
        }
        Route::PlanAndApply { goal } => {
            let rounds = how.rounds;
            let ids = plan_only(goal, false, how, true)?;
            for id in ids {
                apply_plans(Some(id), rounds)?;
            }
            Ok(())
        }
    }
}

/// How to ask, from the options after the text.
struct How {
    logs: Vec<PathBuf>,
    provider: Option<String>,
    model: Option<String>,
    llm_mode: Option<String>,
    accept_memory: bool,
    rounds: Option<u32>,
}

/// Asks for plans and stores them; `applying` when they are applied next (no "Apply with:").
fn plan_only(goal: String, fix: bool, how: How, applying: bool) -> Result<Vec<String>, CliError> {
    if goal.trim().is_empty() {
        return Err(CliError::Usage(Problem::new(
            Code::UnknownCommand,
            "the request has no goal; write what you want after 'plan:' or 'apply:'",
        )));
    }
    git_papayu::engine::plan::check_goal("goal", &goal)?;
    let store = Store::open()?;
    let base = git_papayu::engine::plan::resolve_base(&store, "HEAD")?;
    let config = super::settings();
    let service = super::observer::service(&store, &config);
    // papayu.repro holds for a request as for plan: the reproduction first, when it asks.
    let asking_repro = git_papayu::service::repro::Asking {
        provider: how.provider.clone(),
        model: how.model.clone(),
        max_cost: None,
        source: git_papayu::service::repro::Source::Model,
    };
    let reproduced = super::repro::first(&service, (base, &goal), None, &asking_repro)?;
    let ask = Ask {
        llm_mode: how.llm_mode.or_else(|| fix.then(|| "fixit".to_string())),
        provider: how.provider,
        model: how.model,
        logs: plan::read_logs(&how.logs)?,
        ..Ask::plan(goal, base)
    };
    let planned = git_papayu::service::ask::ask_and_store(&service, ask, reproduced.as_ref())?;
    plan::show_planned(&planned, applying);
    asking::offer_memory(&store, &config, &planned, how.accept_memory)?;
    Ok(planned.iter().map(|p| p.record.id.clone()).collect())
}

fn apply_plans(id: Option<String>, rounds: Option<u32>) -> CliResult {
    apply::run(apply::ApplyArgs {
        plan: id,
        check: None,
        no_check: false,
        check_network: false,
        check_timeout: None,
        onto: None,
        all: false,
        rounds,
        on: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_follow_the_seeds() {
        assert_eq!(route("ok"), Route::ApplyLatest);
        assert_eq!(route("Ок"), Route::ApplyLatest);
        assert_eq!(route("применяй!"), Route::ApplyLatest);
        assert_eq!(route("да"), Route::ApplyLatest);
        assert_eq!(
            route("plan: add a flag"),
            Route::Plan {
                goal: "add a flag".into(),
                fix: false
            }
        );
        assert_eq!(
            route("apply: add a flag"),
            Route::PlanAndApply {
                goal: "add a flag".into()
            }
        );
        assert!(matches!(
            route("fix the failing test"),
            Route::Plan { fix: true, .. }
        ));
        assert!(matches!(
            route("почини тест"),
            Route::Plan { fix: true, .. }
        ));
        assert!(matches!(
            route("create a README"),
            Route::PlanAndApply { .. }
        ));
        assert!(matches!(route("создай README"), Route::PlanAndApply { .. }));
        assert!(matches!(
            route("add logging to the parser"),
            Route::Plan { fix: false, .. }
        ));
        assert_eq!(
            route("bogus-command"),
            Route::Unknown("bogus-command".into())
        );
    }
}
