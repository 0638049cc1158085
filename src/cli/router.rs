//! `git papayu "<free text>"`: the seeds' router from words to commands.
//!
//! - `plan: …` → plan; `apply: …` → plan, then apply;
//! - `ok`, `ок`, `apply`, `применяй`, `да` → apply the newest plan on HEAD;
//! - a request starting with a fix verb (`fix`, `исправь`, `почини`) → plan, in fixit mode;
//! - a request starting with a create verb (`create`, `создай`, `сгенерируй`) → plan, then apply;
//! - any other request of several words → plan.
//!
//! A single unknown word is a mistyped command, not a request: it is a usage error.

use std::path::PathBuf;

use git_papayu::protocol::Mode;
use git_papayu::store::Store;
use git_papayu::{Code, Problem};

use super::asking::{self, Ask};
use super::{CliError, CliResult, apply, plan};

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

/// `git papayu ok --no-check`: a confirmation followed only by options takes apply's options
/// (and `--json`), never a goal.
#[derive(Debug, clap::Parser)]
#[command(name = "git papayu ok", no_binary_name = true)]
struct OkArgs {
    #[command(flatten)]
    apply: apply::ApplyArgs,
    /// Print one JSON document on stdout.
    #[arg(long)]
    json: bool,
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

/// Whether a request asks for `--json` (`git papayu ok --json`).
pub fn wants_json(words: &[String]) -> bool {
    confirm_options(words).is_some_and(|rest| rest.iter().any(|w| w == "--json"))
}

/// Runs a free-text request (the words after `git papayu`).
pub fn run(words: Vec<String>) -> CliResult {
    if let Some(options) = confirm_options(&words) {
        use clap::Parser;
        let args = OkArgs::try_parse_from(options).map_err(|e| {
            let rendered = e.render().to_string();
            let reason = rendered
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("invalid options")
                .trim_start_matches("error: ")
                .to_string();
            CliError::Usage(Problem::new(Code::Usage, reason))
        })?;
        return apply::run(args.apply);
    }
    let text = words.join(" ");
    match route(&text) {
        Route::Unknown(word) => Err(CliError::Usage(Problem::new(
            Code::UnknownCommand,
            format!(
                "'{}' is not a papayu command; see git papayu help, or write a request in words: git papayu \"fix the failing test\"",
                word.escape_debug()
            ),
        ))),
        Route::ApplyLatest => apply_plans(None),
        Route::Plan { goal, fix } => {
            plan_only(goal, fix)?;
            Ok(())
        }
        Route::PlanAndApply { goal } => {
            let ids = plan_only(goal, false)?;
            for id in ids {
                apply_plans(Some(id))?;
            }
            Ok(())
        }
    }
}

fn plan_only(goal: String, fix: bool) -> Result<Vec<String>, CliError> {
    if goal.trim().is_empty() {
        return Err(CliError::Usage(Problem::new(
            Code::UnknownCommand,
            "the request has no goal; write what you want after 'plan:' or 'apply:'",
        )));
    }
    let store = Store::open()?;
    let base = git_papayu::engine::plan::resolve_base(&store, "HEAD")?;
    let ask = Ask {
        goal,
        base,
        protocol: None,
        phase: Mode::Plan,
        llm_mode: fix.then(|| "fixit".to_string()),
        provider: None,
        model: None,
        logs: Vec::<PathBuf>::new(),
    };
    let planned = asking::ask_and_store(&store, ask)?;
    plan::show_planned(&planned);
    asking::offer_memory(&store, &planned, false)?;
    Ok(planned.iter().map(|p| p.record.id.clone()).collect())
}

fn apply_plans(id: Option<String>) -> CliResult {
    apply::run(apply::ApplyArgs {
        plan: id,
        check: None,
        no_check: false,
        check_network: false,
        check_timeout: None,
        onto: None,
        all: false,
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
