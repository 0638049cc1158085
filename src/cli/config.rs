//! `git papayu config`: every setting papayu reads, its value and where the value came from.

use std::collections::BTreeMap;

use clap::Args;
use git_papayu::store::Store;

use super::{CliResult, ui};

/// List every papayu setting with its value and origin (like git config --show-origin).
///
/// Environment variables override git config; flags override both. Keys and tokens are never
/// printed: a set key shows as "(set, hidden)".
#[derive(Debug, Args)]
pub struct ConfigArgs {}

/// A setting papayu reads: its git config key (if any), its variable (if any), default, meaning.
pub struct Setting {
    pub key: Option<&'static str>,
    pub env: Option<&'static str>,
    pub default: &'static str,
    pub secret: bool,
    pub about: &'static str,
}

const fn s(
    key: Option<&'static str>,
    env: Option<&'static str>,
    default: &'static str,
    about: &'static str,
) -> Setting {
    Setting {
        key,
        env,
        default,
        secret: false,
        about,
    }
}

const fn secret(env: &'static str, about: &'static str) -> Setting {
    Setting {
        key: None,
        env: Some(env),
        default: "",
        secret: true,
        about,
    }
}

/// Every setting, in the order of docs/config.md.
pub const SETTINGS: &[Setting] = &[
    s(
        Some("papayu.provider"),
        Some("PAPAYU_LLM_PROVIDERS"),
        "ollama (local)",
        "providers to ask, comma-separated, NAME or NAME:MODEL",
    ),
    s(
        Some("papayu.model"),
        Some("PAPAYU_LLM_MODEL"),
        "",
        "model to ask for",
    ),
    s(
        Some("papayu.apiUrl"),
        Some("PAPAYU_LLM_API_URL"),
        "",
        "base URL of an OpenAI-compatible server",
    ),
    secret("PAPAYU_LLM_API_KEY", "key for PAPAYU_LLM_API_URL"),
    secret("OPENAI_API_KEY", "OpenAI key"),
    s(
        None,
        Some("OPENAI_BASE_URL"),
        "https://api.openai.com/v1",
        "OpenAI base URL",
    ),
    secret("ANTHROPIC_API_KEY", "Anthropic key"),
    s(
        None,
        Some("ANTHROPIC_BASE_URL"),
        "https://api.anthropic.com",
        "Anthropic base URL",
    ),
    s(
        None,
        Some("OLLAMA_HOST"),
        "http://127.0.0.1:11434",
        "Ollama server",
    ),
    s(
        Some("papayu.openai.api"),
        None,
        "chat",
        "OpenAI API: chat or responses",
    ),
    s(
        Some("papayu.strictJson"),
        Some("PAPAYU_LLM_STRICT_JSON"),
        "false",
        "send the JSON schema as structured output",
    ),
    s(
        Some("papayu.timeoutSec"),
        Some("PAPAYU_LLM_TIMEOUT_SEC"),
        "90",
        "per-read timeout for model answers, seconds",
    ),
    s(
        Some("papayu.llmMode"),
        Some("PAPAYU_LLM_MODE"),
        "chat",
        "how the model is asked: chat, fixit, fix-plan",
    ),
    s(
        Some("papayu.protocol"),
        Some("PAPAYU_PROTOCOL_VERSION"),
        "2",
        "protocol asked for",
    ),
    s(
        Some("papayu.fallbackToV1"),
        Some("PAPAYU_PROTOCOL_FALLBACK_TO_V1"),
        "true",
        "fall back from v2 to v1 once",
    ),
    s(
        Some("papayu.trace"),
        Some("PAPAYU_TRACE"),
        "true",
        "write trace files (PAPAYU_TRACE=1 also prints event lines)",
    ),
    s(
        Some("papayu.traceExpire"),
        None,
        "30",
        "days after which trace prune and gc delete a trace",
    ),
    s(
        Some("papayu.oplogExpire"),
        None,
        "90.days.ago",
        "gc forgets operations older than this (now, never, a date, N.days.ago)",
    ),
    s(
        None,
        Some("PAPAYU_TRACE_RAW"),
        "0",
        "keep the model's raw answers in traces (masked)",
    ),
    s(
        Some("papayu.checkCommand"),
        Some("PAPAYU_CHECK_COMMAND"),
        "default_test_command of .papa-yu/project.json",
        "check run before a proposal branch is created",
    ),
    s(
        Some("papayu.checkTimeout"),
        None,
        "600",
        "check timeout, seconds",
    ),
    s(
        Some("papayu.checkNetwork"),
        None,
        "false",
        "let the check open network connections",
    ),
    s(
        Some("papayu.checkEnv"),
        None,
        "",
        "variables passed to the check beyond PATH, LANG, LC_*, TERM, TZ (NAME or PREFIX*)",
    ),
    s(
        Some("papayu.checkCache"),
        None,
        "/target (with Cargo.toml), node_modules/.cache, .pytest_cache, __pycache__, .gradle",
        "build caches kept in the check worktree between checks",
    ),
    s(
        Some("papayu.attribution"),
        None,
        "assisted-by",
        "trailer naming the assistance on proposal commits: assisted-by, co-authored-by or none",
    ),
    s(
        Some("notes.papayu.mergeStrategy"),
        None,
        "cat_sort_uniq",
        "how sync merges notes both sides changed: cat_sort_uniq, union, ours or theirs",
    ),
    s(
        None,
        Some("PAPAYU_NORMALIZE_EOL"),
        "",
        "lf: store written files with LF line endings",
    ),
    s(
        None,
        Some("PAPAYU_CONTEXT_MAX_FILES"),
        "8",
        "context: most file blocks",
    ),
    s(
        None,
        Some("PAPAYU_CONTEXT_MAX_FILE_CHARS"),
        "20000",
        "context: characters per file",
    ),
    s(
        None,
        Some("PAPAYU_CONTEXT_MAX_TOTAL_CHARS"),
        "120000",
        "context: characters in all",
    ),
    s(
        None,
        Some("PAPAYU_CONTEXT_MAX_LOG_CHARS"),
        "12000",
        "context: characters of logs",
    ),
    s(
        None,
        Some("PAPAYU_CONTEXT_MAP_CHARS"),
        "6000",
        "context: characters of the repository map",
    ),
    s(
        Some("color.papayu"),
        None,
        "color.ui",
        "colour papayu's output: auto, always, never",
    ),
    s(
        Some("color.ui"),
        None,
        "auto",
        "colour, for papayu as for git",
    ),
    s(
        Some("color.diff"),
        None,
        "color.papayu",
        "colour diffs (a plan's preview)",
    ),
    s(
        Some("color.diff.meta"),
        None,
        "bold",
        "diff colour: file headers",
    ),
    s(
        Some("color.diff.frag"),
        None,
        "cyan",
        "diff colour: hunk headers",
    ),
    s(
        Some("color.diff.old"),
        None,
        "red",
        "diff colour: removed lines",
    ),
    s(
        Some("color.diff.new"),
        None,
        "green",
        "diff colour: added lines",
    ),
    s(
        Some("color.diff.context"),
        None,
        "normal",
        "diff colour: context lines",
    ),
    s(
        None,
        Some("NO_COLOR"),
        "",
        "set: no colour unless --color or a color.* setting says always",
    ),
    s(
        Some("pager.papayu"),
        None,
        "",
        "false: never page; a command: page with it (git starts it)",
    ),
    s(
        Some("core.pager"),
        Some("GIT_PAGER"),
        "PAGER, else less",
        "pager for long output on a terminal",
    ),
];

/// The providers a plan would ask now, as `plan` resolves them, and what decided that.
#[derive(Debug, serde::Serialize)]
struct InUse {
    /// `NAME:MODEL` (or `NAME`) and URL of each provider, in the order asked.
    endpoints: Vec<serde_json::Value>,
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
                .map(|e| {
                    format!(
                        "{} at {}",
                        e["provider"].as_str().unwrap_or(""),
                        e["url"].as_str().unwrap_or("")
                    )
                })
                .collect::<Vec<_>>()
                .join(", "),
        };
        format!("provider in use: {what}  ({})\n\n", self.origin)
    }
}

/// Resolves the providers exactly as `plan` would (without its flags), and names the setting
/// behind them from the rows: `papayu.provider`, else `papayu.apiUrl`, else the default.
fn in_use(store: &Store, rows: &[Row]) -> InUse {
    let sources = git_papayu::llm::config::Sources {
        git: store.config_values("papayu."),
        env: git_papayu::ask::env_map(),
        flags: Default::default(),
    };
    let origin = ["papayu.provider", "papayu.apiUrl"]
        .iter()
        .filter_map(|name| rows.iter().find(|r| r.name == *name))
        .find(|r| r.origin != "default")
        .map_or_else(
            || "default: nothing configured, so the local Ollama".to_string(),
            |r| format!("{} from {}", r.name, r.origin),
        );
    match git_papayu::llm::config::resolve(&sources) {
        Ok(endpoints) => InUse {
            endpoints: endpoints
                .iter()
                .map(|e| {
                    let provider = match e.model.is_empty() {
                        true => e.name.clone(),
                        false => format!("{}:{}", e.name, e.model),
                    };
                    serde_json::json!({ "provider": provider, "url": e.base_url })
                })
                .collect(),
            origin,
            problem: None,
        },
        Err(p) => InUse {
            endpoints: Vec::new(),
            origin,
            problem: Some(p.reason),
        },
    }
}

#[derive(Debug, serde::Serialize)]
struct Row {
    name: String,
    value: String,
    origin: String,
    about: String,
}

pub fn run(args: ConfigArgs) -> CliResult {
    let ConfigArgs {} = args;
    let store = Store::open()?;
    let git: BTreeMap<String, (String, String)> = store
        .config_with_origins("")?
        .into_iter()
        .map(|(name, value, origin)| (name.to_ascii_lowercase(), (value, origin)))
        .collect();
    let mut rows = Vec::new();
    let mut known = std::collections::BTreeSet::new();
    for setting in SETTINGS {
        let from_env = setting
            .env
            .and_then(|v| std::env::var(v).ok().map(|value| (v, value)))
            .filter(|(_, value)| !value.is_empty());
        let from_git = setting.key.and_then(|k| {
            known.insert(k.to_ascii_lowercase());
            git.get(&k.to_ascii_lowercase()).cloned()
        });
        let (value, origin) = match (from_env, from_git) {
            (Some((var, value)), _) => (value, format!("env {var}")),
            (None, Some((value, origin))) => (value, origin),
            (None, None) => (setting.default.to_string(), "default".to_string()),
        };
        let value = if setting.secret && origin != "default" {
            "(set, hidden)".to_string()
        } else {
            value
        };
        rows.push(Row {
            name: setting.key.or(setting.env).unwrap_or_default().to_string(),
            value,
            origin,
            about: setting.about.to_string(),
        });
    }
    for (name, (value, origin)) in &git {
        if known.contains(name) || !name.starts_with("papayu.") {
            continue;
        }
        let hidden = name.ends_with("key") || name.ends_with("token") || name.ends_with("secret");
        rows.push(Row {
            name: name.clone(),
            value: if hidden {
                "(set, hidden)".to_string()
            } else {
                value.clone()
            },
            origin: origin.clone(),
            about: "provider or other papayu setting".to_string(),
        });
    }
    let in_use = in_use(&store, &rows);
    ui::data(&serde_json::json!({ "settings": rows, "provider": in_use }));
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
