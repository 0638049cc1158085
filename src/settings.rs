//! Every setting papayu reads, resolved once from one layered source.
//!
//! git's configuration (the files, then `git -c`), then `PAPAYU_*` and the providers' own
//! variables, then a command's flags: each command loads one [`Settings`] and every reader —
//! providers, the check, the context diet, line endings, expiry — takes its values from it.
//! `git papayu config` prints this very object, so what it shows is what the commands use.
//! Several readers with their own precedence is how `git -c` once came to be ignored while
//! `config` said it was in force.
//!
//! This module reads; it never writes configuration and never prints.

use std::collections::BTreeMap;

use crate::store::Store;
use crate::store::cmdline::{parse_bool, parse_i64};
use crate::store::config::ConfigEntry;

/// A setting papayu reads: its git config key (if any), its variable (if any), default, meaning,
/// and what its values may be.
pub struct Setting {
    pub key: Option<&'static str>,
    pub env: Option<&'static str>,
    pub default: &'static str,
    pub secret: bool,
    pub about: &'static str,
    pub kind: Kind,
}

/// What values a setting takes. Every command checks the settings in force against their kinds
/// before it does anything ([`Settings::check`]), so a typo is refused the same way whichever
/// setting it is in, naming where the value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Any text (commands, paths, names, dates).
    Text,
    /// A boolean in git's spellings (true/false, yes/no, on/off, 1/0).
    Bool,
    /// A whole number in this range (git's k/m/g suffixes allowed).
    Number { min: i64, max: i64 },
    /// One of these words.
    OneOf(&'static [&'static str]),
    /// An amount of US dollars.
    Usd,
    /// A time: milliseconds since the epoch or RFC 3339 (see [`crate::clock`]).
    Timestamp,
}

impl Kind {
    /// `None` when `value` is one this kind takes, else what it must be.
    fn refuses(self, value: &str) -> Option<String> {
        let value = value.trim();
        match self {
            Kind::Text => None,
            Kind::Bool => parse_bool(Some(value))
                .is_none()
                .then(|| "true or false".to_string()),
            Kind::Number { min, max } => parse_i64(value)
                .filter(|n| (min..=max).contains(n))
                .is_none()
                .then(|| match max {
                    i64::MAX => format!("a whole number from {min}"),
                    _ => format!("a whole number from {min} to {max}"),
                }),
            Kind::OneOf(words) => (!words.contains(&value)).then(|| words.join(", ")),
            Kind::Usd => crate::cost::parse_usd(value)
                .is_none()
                .then(|| "an amount of US dollars, e.g. 0.50".to_string()),
            Kind::Timestamp => crate::clock::parse(value).is_none().then(|| {
                "milliseconds since the epoch or an RFC 3339 time, e.g. 2026-01-01T12:00:00Z"
                    .to_string()
            }),
        }
    }
}

const BOOL: Kind = Kind::Bool;
const UP_FROM_0: Kind = Kind::Number {
    min: 0,
    max: i64::MAX,
};
const COUNT: Kind = Kind::Number {
    min: 1,
    max: i64::MAX,
};

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
        kind: Kind::Text,
    }
}

/// `s(…)` with the values it takes.
const fn t(
    key: Option<&'static str>,
    env: Option<&'static str>,
    default: &'static str,
    about: &'static str,
    kind: Kind,
) -> Setting {
    Setting {
        kind,
        ..s(key, env, default, about)
    }
}

const fn secret(env: &'static str, about: &'static str) -> Setting {
    Setting {
        key: None,
        env: Some(env),
        default: "",
        secret: true,
        about,
        kind: Kind::Text,
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
    t(
        Some("papayu.openai.api"),
        None,
        "chat",
        "OpenAI API: chat or responses",
        Kind::OneOf(&["chat", "responses"]),
    ),
    t(
        Some("papayu.strictJson"),
        Some("PAPAYU_LLM_STRICT_JSON"),
        "false",
        "send the JSON schema as structured output",
        BOOL,
    ),
    t(
        Some("papayu.timeoutSec"),
        Some("PAPAYU_LLM_TIMEOUT_SEC"),
        "90",
        "per-read timeout for model answers, seconds",
        COUNT,
    ),
    t(
        None,
        Some("PAPAYU_LLM_RETRY_BASE_MS"),
        "500",
        "first wait before a retry of a failed request, milliseconds (doubled each try)",
        Kind::Number {
            min: 0,
            max: i64::MAX,
        },
    ),
    t(
        Some("papayu.llmMode"),
        Some("PAPAYU_LLM_MODE"),
        "chat",
        "how the model is asked: chat, fixit, fix-plan",
        Kind::OneOf(&["chat", "fixit", "fix-plan"]),
    ),
    t(
        Some("papayu.protocol"),
        Some("PAPAYU_PROTOCOL_VERSION"),
        "2",
        "protocol asked for",
        Kind::OneOf(&["1", "2"]),
    ),
    t(
        None,
        Some("PAPAYU_PROTOCOL_DEFAULT"),
        "2",
        "protocol asked for when neither PAPAYU_PROTOCOL_VERSION nor papayu.protocol is set",
        Kind::OneOf(&["1", "2"]),
    ),
    t(
        Some("papayu.fallbackToV1"),
        Some("PAPAYU_PROTOCOL_FALLBACK_TO_V1"),
        "true",
        "fall back from v2 to v1 once",
        BOOL,
    ),
    t(
        Some("papayu.trace"),
        Some("PAPAYU_TRACE"),
        "true",
        "write trace files (PAPAYU_TRACE=1 also prints event lines)",
        BOOL,
    ),
    s(
        Some("papayu.traceExpire"),
        None,
        "30.days.ago",
        "trace prune and gc delete traces older than this (now, never, a date, N.days.ago)",
    ),
    s(
        Some("papayu.oplogExpire"),
        None,
        "90.days.ago",
        "gc forgets operations older than this (now, never, a date, N.days.ago)",
    ),
    t(
        None,
        Some("PAPAYU_TRACE_RAW"),
        "0",
        "keep the model's raw answers in traces (masked)",
        BOOL,
    ),
    s(
        Some("papayu.checkCommand"),
        Some("PAPAYU_CHECK_COMMAND"),
        "default_test_command of .papa-yu/project.json",
        "check run before a proposal branch is created",
    ),
    t(
        Some("papayu.checkTimeout"),
        None,
        "600",
        "check timeout, seconds",
        Kind::Number {
            min: 0,
            max: i64::MAX,
        },
    ),
    t(
        Some("papayu.checkNetwork"),
        None,
        "false",
        "let the check open network connections",
        BOOL,
    ),
    t(
        Some("papayu.checkSandbox"),
        None,
        "true",
        "run the check in the sandbox (Landlock, seccomp, namespaces)",
        BOOL,
    ),
    s(
        Some("papayu.checkWritable"),
        None,
        "",
        "more directories the check may write (one per value)",
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
        "/target (with Cargo.toml), node_modules/.cache",
        "build caches kept in the check worktree between checks",
    ),
    s(
        Some("papayu.checkJunit"),
        None,
        "",
        "JUnit XML report the check writes (path from the top of the repository), read per test",
    ),
    t(
        Some("papayu.maxCost"),
        None,
        "",
        "cost cap of one plan command, US dollars (--max-cost); needs papayu.<provider>.price",
        Kind::Usd,
    ),
    t(
        Some("papayu.repro"),
        None,
        "never",
        "plan asks for a reproduction test first: auto (a check is set and the goal names no test), always or never (--repro, --no-repro)",
        Kind::OneOf(&["auto", "always", "never"]),
    ),
    t(
        Some("papayu.rounds"),
        None,
        "1",
        "rounds of apply in all, 1 to 5 (--rounds): a failed check goes back to the model",
        Kind::Number { min: 1, max: 5 },
    ),
    t(
        Some("papayu.attribution"),
        None,
        "assisted-by",
        "trailer naming the assistance on proposal commits: assisted-by, co-authored-by or none",
        Kind::OneOf(&["assisted-by", "co-authored-by", "none"]),
    ),
    t(
        Some("papayu.installMan"),
        Some("PAPAYU_INSTALL_MAN"),
        "true",
        "write the manual where man finds it on the first run without it, so git papayu --help opens it",
        BOOL,
    ),
    s(
        Some("papayu.trustedWorkers"),
        None,
        "",
        "workers whose signed verdicts count as this clone's own, one per value: an SSH public key, or NAME and key as in an allowed-signers file",
    ),
    s(
        Some("papayu.workerKey"),
        None,
        "user.signingKey (with gpg.format ssh)",
        "private SSH key a worker signs its results with",
    ),
    s(
        Some("papayu.workerName"),
        None,
        "from the key, else the host name",
        "a worker's name: its results go to refs/notes/papayu-checks/<name>",
    ),
    t(
        Some("papayu.workerLease"),
        None,
        "300",
        "seconds a worker's claim holds without renewal (renewed every third of it while it checks), 3 or more",
        Kind::Number {
            min: 3,
            max: i64::MAX,
        },
    ),
    s(
        Some("papayu.workerCommands"),
        None,
        "",
        "the only check commands a worker runs, one per value; unset: any a request asks for",
    ),
    t(
        Some("papayu.workerPoll"),
        None,
        "30",
        "seconds a worker --loop waits before fetching again when no request is open",
        COUNT,
    ),
    s(
        Some("notes.papayu.mergeStrategy"),
        None,
        "cat_sort_uniq",
        "how sync merges notes both sides changed: cat_sort_uniq, union, ours or theirs",
    ),
    t(
        None,
        Some("PAPAYU_NORMALIZE_EOL"),
        "",
        "lf: store written files with LF line endings",
        Kind::OneOf(&["lf", "LF"]),
    ),
    t(
        None,
        Some("PAPAYU_CONTEXT_MAX_FILES"),
        "8",
        "context: most file blocks",
        UP_FROM_0,
    ),
    t(
        None,
        Some("PAPAYU_CONTEXT_MAX_FILE_CHARS"),
        "20000",
        "context: characters per file",
        UP_FROM_0,
    ),
    t(
        None,
        Some("PAPAYU_CONTEXT_MAX_TOTAL_CHARS"),
        "120000",
        "context: characters in all",
        UP_FROM_0,
    ),
    t(
        None,
        Some("PAPAYU_CONTEXT_MAX_LOG_CHARS"),
        "12000",
        "context: characters of logs",
        UP_FROM_0,
    ),
    t(
        None,
        Some("PAPAYU_CONTEXT_MAP_CHARS"),
        "6000",
        "context: characters of the repository map",
        UP_FROM_0,
    ),
    t(
        None,
        Some(crate::clock::VARIABLE),
        "",
        "fixes the time papayu stamps on records, events, operations, leases and traces: milliseconds since the epoch or an RFC 3339 time (for tests and reproducible runs); unset, the system clock",
        Kind::Timestamp,
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

/// One resolved setting: its value and where the value came from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Resolved {
    pub name: String,
    pub value: String,
    /// `file:PATH` or `command line:` (git), `env NAME`, `flag --NAME`, or `default`.
    pub origin: String,
    pub about: String,
}

/// The settings of one command: git's configuration as git would read it here (`git -c`
/// included), the environment, and the flags the command was given.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    git: Vec<ConfigEntry>,
    env: BTreeMap<String, String>,
    flags: BTreeMap<String, (String, String)>,
}

impl Settings {
    /// Reads the repository's configuration and this process's environment, once.
    pub fn load(store: &Store) -> Settings {
        Settings::from_parts(store.config_entries(), std::env::vars().collect())
    }

    /// The settings git would read here, before any store is opened: the repository's that the
    /// current directory (and `GIT_DIR`) names, else the global ones, and the environment. What
    /// a command reads its terminal settings (colour, pager) and everything else from.
    pub fn here() -> Settings {
        Settings::from_parts(
            crate::store::config::entries_here(),
            std::env::vars().collect(),
        )
    }

    /// Whether written files are stored with LF endings (`PAPAYU_NORMALIZE_EOL=lf`). Any other
    /// non-empty value is not understood: `Err` carries it, for a warning, and nothing changes.
    pub fn normalize_eol(&self) -> Result<bool, String> {
        match self.env("PAPAYU_NORMALIZE_EOL") {
            None => Ok(false),
            Some(v) if v.eq_ignore_ascii_case("lf") => Ok(true),
            Some(v) => Err(v.to_string()),
        }
    }

    /// Settings from given parts (for tests and front ends that hold their own environment).
    pub fn from_parts(git: Vec<ConfigEntry>, env: BTreeMap<String, String>) -> Settings {
        Settings {
            git,
            env,
            flags: BTreeMap::new(),
        }
    }

    /// Lays a command's flag over `key` (a git key or a variable name): it wins over both.
    pub fn set_flag(&mut self, key: &str, value: impl Into<String>, flag: &str) {
        self.flags.insert(
            key.to_ascii_lowercase(),
            (value.into(), format!("flag {flag}")),
        );
    }

    /// The value of git config `key` in force (the last one set), with a flag over it.
    pub fn git(&self, key: &str) -> Option<&str> {
        let key = key.to_ascii_lowercase();
        if let Some((value, _)) = self.flags.get(&key) {
            return Some(value);
        }
        self.git_entry(&key)
            .map(|e| e.value.as_deref().unwrap_or("true"))
    }

    /// Every value of the multi-valued git config `key`, in order.
    pub fn git_all(&self, key: &str) -> Vec<&str> {
        let key = key.to_ascii_lowercase();
        self.git
            .iter()
            .filter(|e| e.name == key)
            .map(|e| e.value.as_deref().unwrap_or("true"))
            .collect()
    }

    /// The git config values whose names start with `prefix` (lowercased names, last wins).
    pub fn git_with_prefix(&self, prefix: &str) -> BTreeMap<String, String> {
        let prefix = prefix.to_ascii_lowercase();
        let mut out = BTreeMap::new();
        for e in self.git.iter().filter(|e| e.name.starts_with(&prefix)) {
            out.insert(
                e.name.clone(),
                e.value.clone().unwrap_or_else(|| "true".to_string()),
            );
        }
        out
    }

    /// A boolean git setting in git's spellings: `Ok(None)` when unset, `Err(text)` when set to
    /// something that is not a boolean.
    pub fn git_bool(&self, key: &str) -> Result<Option<bool>, String> {
        let key = key.to_ascii_lowercase();
        let given = match self.flags.get(&key) {
            Some((value, _)) => Some(Some(value.as_str())),
            None => self.git_entry(&key).map(|e| e.value.as_deref()),
        };
        match given {
            None => Ok(None),
            Some(text) => parse_bool(text)
                .map(Some)
                .ok_or_else(|| text.unwrap_or_default().to_string()),
        }
    }

    /// A whole-number git setting (`k`, `m`, `g` suffixes as git reads them): `Ok(None)` when
    /// unset, `Err(text)` when not a number.
    pub fn git_i64(&self, key: &str) -> Result<Option<i64>, String> {
        match self.git(key) {
            None => Ok(None),
            Some(text) => parse_i64(text).map(Some).ok_or_else(|| text.to_string()),
        }
    }

    /// A variable of the environment papayu was started with, with a flag over it; an empty
    /// value counts as unset.
    pub fn env(&self, name: &str) -> Option<&str> {
        if let Some((value, _)) = self.flags.get(&name.to_ascii_lowercase()) {
            return Some(value);
        }
        self.env
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// The whole environment papayu was started with.
    pub fn env_map(&self) -> &BTreeMap<String, String> {
        &self.env
    }

    /// Every catalogued setting with its value and origin, then any other `papayu.*` key set
    /// (provider settings and the like): what `git papayu config` prints. A flag wins over a
    /// variable, a variable over git config, git config over the default; keys are hidden.
    pub fn resolved(&self) -> Vec<Resolved> {
        let mut rows = Vec::new();
        let mut known = std::collections::BTreeSet::new();
        for setting in SETTINGS {
            if let Some(key) = setting.key {
                known.insert(key.to_ascii_lowercase());
            }
            let (value, origin) = self.in_force(setting);
            let value = match setting.secret && origin != "default" {
                true => "(set, hidden)".to_string(),
                false => value,
            };
            rows.push(Resolved {
                name: setting.key.or(setting.env).unwrap_or_default().to_string(),
                value,
                origin,
                about: setting.about.to_string(),
            });
        }
        let mut others: BTreeMap<&str, &ConfigEntry> = BTreeMap::new();
        for e in &self.git {
            if e.name.starts_with("papayu.") && !known.contains(&e.name) {
                others.insert(&e.name, e);
            }
        }
        for (name, e) in others {
            let hidden =
                name.ends_with("key") || name.ends_with("token") || name.ends_with("secret");
            rows.push(Resolved {
                name: name.to_string(),
                value: match hidden {
                    true => "(set, hidden)".to_string(),
                    false => e.value.clone().unwrap_or_else(|| "true".to_string()),
                },
                origin: e.origin.clone(),
                about: "provider or other papayu setting".to_string(),
            });
        }
        rows
    }

    /// The value of `setting` in force and where it came from: a flag wins over a variable, a
    /// variable over git config, git config over the default (origin `default`).
    fn in_force(&self, setting: &Setting) -> (String, String) {
        let from_flag = [setting.key, setting.env]
            .into_iter()
            .flatten()
            .find_map(|k| self.flags.get(&k.to_ascii_lowercase()).cloned());
        let from_env = setting
            .env
            .and_then(|v| Some((self.env.get(v)?.clone(), format!("env {v}"))))
            .filter(|(value, _)| !value.is_empty());
        let from_git = setting.key.and_then(|k| {
            let entry = self.git_entry(&k.to_ascii_lowercase())?;
            Some((
                entry.value.clone().unwrap_or_else(|| "true".to_string()),
                entry.origin.clone(),
            ))
        });
        from_flag
            .or(from_env)
            .or(from_git)
            .unwrap_or_else(|| (setting.default.to_string(), "default".to_string()))
    }

    /// The value given for the declared setting `name` (its git key or its variable), checked
    /// against its kind: `None` when only its default holds. A value its kind does not take is
    /// the problem [`Settings::check`] gives.
    pub fn given(&self, name: &str) -> Result<Option<String>, crate::codes::Problem> {
        let setting = declared(name)?;
        let (value, origin) = self.in_force(setting);
        if origin == "default" {
            return Ok(None);
        }
        match refusal(setting, &value, &origin) {
            Some(problem) => Err(problem),
            None => Ok(Some(value.trim().to_string())),
        }
    }

    /// A declared boolean setting, as given (git's spellings).
    pub fn flag(&self, name: &str) -> Result<Option<bool>, crate::codes::Problem> {
        Ok(self.given(name)?.and_then(|v| parse_bool(Some(&v))))
    }

    /// A declared whole-number setting, as given (git's `k`, `m`, `g` suffixes).
    pub fn number(&self, name: &str) -> Result<Option<i64>, crate::codes::Problem> {
        Ok(self.given(name)?.and_then(|v| parse_i64(&v)))
    }

    /// Refuses the first setting in force whose value its declaration does not take, naming
    /// the key, its value and where it came from (a file, `git -c`, a variable).
    pub fn check(&self) -> Result<(), crate::codes::Problem> {
        for setting in SETTINGS {
            let (value, origin) = self.in_force(setting);
            if origin == "default" || origin.starts_with("flag ") {
                continue;
            }
            if let Some(problem) = refusal(setting, &value, &origin) {
                return Err(problem);
            }
        }
        Ok(())
    }

    fn git_entry(&self, lower: &str) -> Option<&ConfigEntry> {
        self.git.iter().rev().find(|e| e.name == lower)
    }
}

/// The declaration of `name`, a git key (any case) or a variable.
fn declared(name: &str) -> Result<&'static Setting, crate::codes::Problem> {
    SETTINGS
        .iter()
        .find(|s| s.key.is_some_and(|k| k.eq_ignore_ascii_case(name)) || s.env == Some(name))
        .ok_or_else(|| {
            crate::codes::Problem::new(
                crate::codes::Code::Internal,
                format!("the setting {name} is read but declared nowhere"),
            )
        })
}

/// Why `value` (from `origin`) is not one `setting` takes, as the problem every command gives:
/// the key, the value, where it came from, and how to fix it.
fn refusal(setting: &Setting, value: &str, origin: &str) -> Option<crate::codes::Problem> {
    let must = setting.kind.refuses(value)?;
    let name = setting.key.or(setting.env).unwrap_or_default();
    let hint = match origin.strip_prefix("env ") {
        Some(var) => format!("set {var} to {must}, or unset it"),
        None => format!(
            "set it with git config {name} VALUE ({must}), or unset it with git config --unset {name}"
        ),
    };
    // The check's settings have their own code (a check that cannot be configured).
    let code = match name.starts_with("papayu.check") {
        true => crate::codes::Code::CheckConfigInvalid,
        false => crate::codes::Code::ConfigInvalid,
    };
    let shown = match setting.secret {
        true => "(set, hidden)",
        false => value,
    };
    Some(
        crate::codes::Problem::new(
            code,
            format!("{name} is {shown:?} ({origin}); it must be {must}"),
        )
        .with_hint(hint),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, value: &str, origin: &str) -> ConfigEntry {
        ConfigEntry {
            name: name.to_string(),
            value: Some(value.to_string()),
            origin: origin.to_string(),
        }
    }

    #[test]
    fn later_layers_win_and_say_where_they_came_from() {
        let git = vec![
            entry("papayu.checktimeout", "7", "file:.git/config"),
            entry("papayu.checktimeout", "2", "command line:"),
            entry("papayu.model", "m1", "file:.git/config"),
            entry("papayu.openai.price", "1,2,0.5", "file:.git/config"),
        ];
        let env = BTreeMap::from([("PAPAYU_LLM_MODEL".to_string(), "m2".to_string())]);
        let mut settings = Settings::from_parts(git, env);
        assert_eq!(settings.git("papayu.checkTimeout"), Some("2"));
        assert_eq!(settings.git_i64("papayu.checkTimeout"), Ok(Some(2)));
        assert_eq!(settings.git_all("papayu.checkTimeout"), vec!["7", "2"]);
        let rows = settings.resolved();
        let row = |name: &str| rows.iter().find(|r| r.name == name).unwrap().clone();
        assert_eq!(row("papayu.checkTimeout").origin, "command line:");
        assert_eq!(row("papayu.model").value, "m2");
        assert_eq!(row("papayu.model").origin, "env PAPAYU_LLM_MODEL");
        assert_eq!(row("papayu.openai.price").value, "1,2,0.5");
        assert_eq!(row("papayu.protocol").origin, "default");
        settings.set_flag("papayu.model", "m3", "--model");
        assert_eq!(settings.resolved()[1].value, "m3");
        assert_eq!(settings.resolved()[1].origin, "flag --model");
    }

    #[test]
    fn numbers_and_booleans_read_as_git_reads_them() {
        let settings = Settings::from_parts(
            vec![entry("papayu.checknetwork", "maybe", "file:x")],
            BTreeMap::new(),
        );
        assert_eq!(
            settings.git_bool("papayu.checkNetwork"),
            Err("maybe".to_string())
        );
        let given = Settings::from_parts(
            vec![
                entry("papayu.checktimeout", "2k", "file:x"),
                ConfigEntry {
                    name: "papayu.checknetwork".into(),
                    value: None,
                    origin: "command line:".into(),
                },
            ],
            BTreeMap::new(),
        );
        assert_eq!(given.git_i64("papayu.checkTimeout"), Ok(Some(2048)));
        assert_eq!(given.git_bool("papayu.checkNetwork"), Ok(Some(true)));
    }

    #[test]
    fn typed_reads_refuse_a_typo_with_its_origin_and_take_declared_names_only() {
        let settings = Settings::from_parts(
            vec![
                entry("papayu.rounds", "3", "file:.git/config"),
                entry("papayu.workerlease", "2", "command line:"),
                entry("papayu.checknetwork", "yes", "file:x"),
            ],
            BTreeMap::from([("PAPAYU_INSTALL_MAN".to_string(), "maybe".to_string())]),
        );
        assert_eq!(settings.number("papayu.rounds"), Ok(Some(3)));
        assert_eq!(settings.flag("papayu.checkNetwork"), Ok(Some(true)));
        // Unset: the default holds, and the reader picks it.
        assert_eq!(settings.number("papayu.checkTimeout"), Ok(None));
        let lease = settings.number("papayu.workerLease").unwrap_err();
        assert_eq!(lease.code, crate::codes::Code::ConfigInvalid);
        assert!(lease.reason.contains("(command line:)"), "{}", lease.reason);
        assert!(lease.reason.contains("from 3"), "{}", lease.reason);
        // The variable wins over git config, and its typo names the variable.
        let man = settings.flag("papayu.installMan").unwrap_err();
        assert!(
            man.reason.contains("(env PAPAYU_INSTALL_MAN)"),
            "{}",
            man.reason
        );
        // A read of a name declared nowhere is a bug, said as one.
        let undeclared = settings.flag("papayu.nothing").unwrap_err();
        assert_eq!(undeclared.code, crate::codes::Code::Internal);
    }
}
