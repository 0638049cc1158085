//! `git papayu config`: every setting papayu reads, its value and where the value came from.

use clap::Args;
use git_papayu::settings::{Resolved, Settings};

use super::{CliResult, ui};

/// List every papayu setting with its value and origin (like git config --show-origin).
///
/// Environment variables override git config; flags override both. Keys and tokens are never
/// printed: a set key shows as "(set, hidden)".
#[derive(Debug, Args)]
pub struct ConfigArgs {}

/// `config --json`: every setting, and the providers a plan would ask now.
#[derive(Debug, serde::Serialize)]
struct Listed<'a> {
    settings: &'a [Resolved],
    provider: &'a InUse,
}

/// A provider a plan would ask: `NAME:MODEL` (or `NAME`) and its URL.
#[derive(Debug, serde::Serialize)]
struct Endpoint {
    provider: String,
    url: String,
}

/// The providers a plan would ask now, as `plan` resolves them, and what decided that.
#[derive(Debug, serde::Serialize)]
struct InUse {
    /// Each provider, in the order asked.
    endpoints: Vec<Endpoint>,
    /// The setting that chose them and where it was set, or `default`.
    origin: String,
    /// Why no provider can be asked, when the settings do not resolve.
    problem: Option<String>,
}

impl InUse {
    fn line(&self) -> String {
        let what = match &self.problem {
            Some(problem) => format!("none: {problem}"),
            None => self
                .endpoints
                .iter()
                .map(|e| format!("{} at {}", e.provider, e.url))
                .collect::<Vec<_>>()
                .join(", "),
        };
        format!("provider in use: {what}  ({})\n\n", self.origin)
    }
}

/// Resolves the providers exactly as `plan` would (without its flags), and names the setting
/// behind them from the rows: `papayu.provider`, else `papayu.apiUrl`, else a key in the
/// environment, else the default.
fn in_use(settings: &Settings, rows: &[Resolved]) -> InUse {
    let sources = git_papayu::llm::config::Sources::from_settings(settings);
    let by_key = git_papayu::llm::config::by_key(&sources);
    let origin = ["papayu.provider", "papayu.apiUrl"]
        .iter()
        .filter_map(|name| rows.iter().find(|r| r.name == *name))
        .find(|r| r.origin != "default")
        .map_or_else(
            || match &by_key {
                Some(chosen) => format!("{} is set and no provider is configured", chosen.var),
                None => "default: nothing configured, so the local Ollama".to_string(),
            },
            |r| format!("{} from {}", r.name, r.origin),
        );
    match git_papayu::llm::config::resolve(&sources) {
        Ok(endpoints) => InUse {
            endpoints: endpoints
                .iter()
                .map(|e| Endpoint {
                    provider: match e.model.is_empty() {
                        true => e.name.clone(),
                        false => format!("{}:{}", e.name, e.model),
                    },
                    url: e.base_url.clone(),
                })
                .collect(),
            origin,
            problem: None,
        },
        Err(p) => InUse {
            endpoints: Vec::new(),
            origin,
            problem: Some(p.text()),
        },
    }
}

pub fn run(args: ConfigArgs) -> CliResult {
    let ConfigArgs {} = args;
    let settings = super::settings();
    let rows = settings.resolved();
    let in_use = in_use(&settings, &rows);
    ui::data(&Listed {
        settings: &rows,
        provider: &in_use,
    });
    ui::paged();
    let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(0);
    let mut out = in_use.line();
    for r in &rows {
        out.push_str(&format!(
            "{:<width$}  {}  ({})\n",
            r.name,
            if r.value.is_empty() { "-" } else { &r.value },
            r.origin
        ));
    }
    ui::out(&out);
    Ok(())
}
