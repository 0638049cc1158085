//! Which providers to ask, from git config, the environment and flags (in that order of
//! precedence, later wins). Pure: the caller passes every source in, so it is tested without
//! touching the process environment.
//!
//! Keys are read only from environment variables, never from git config (which is often
//! shared, printed and committed to dotfile repositories).

use std::collections::BTreeMap;
use std::time::Duration;

use super::{Endpoint, Wire};
use crate::codes::{Code, Problem};
use crate::settings::Settings;

/// Everything configuration is made from.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// `papayu.*` git config values, names lowercased (`papayu.provider`, `papayu.alpha.url`).
    pub git: BTreeMap<String, String>,
    pub env: BTreeMap<String, String>,
    pub flags: Flags,
}

impl Sources {
    /// The sources as one command's [`Settings`] hold them, before any flag.
    pub fn from_settings(settings: &Settings) -> Sources {
        Sources {
            git: settings.git_with_prefix("papayu."),
            env: settings.env_map().clone(),
            flags: Flags::default(),
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Flags {
    /// `--provider`: comma-separated `NAME` or `NAME:MODEL`.
    pub provider: Option<String>,
    pub model: Option<String>,
}

pub const DEFAULT_OLLAMA: &str = "http://127.0.0.1:11434";
pub const DEFAULT_OPENAI: &str = "https://api.openai.com/v1";
pub const DEFAULT_ANTHROPIC: &str = "https://api.anthropic.com";
/// The environment variables that hold provider keys by default.
pub const KEY_VARS: &[&str] = &["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "PAPAYU_LLM_API_KEY"];
/// The providers a key in the environment chooses when none is configured, in the order they
/// are tried: (provider, its key's default variable, the model asked unless one is configured).
pub const BY_KEY: &[(&str, &str, &str)] = &[
    ("openai", "OPENAI_API_KEY", "gpt-5-mini"),
    ("anthropic", "ANTHROPIC_API_KEY", "claude-sonnet-4-5"),
];

/// The provider chosen by a key in the environment: with no provider configured
/// (`--provider`, `PAPAYU_LLM_PROVIDERS`, `papayu.provider`) and no server URL
/// (`PAPAYU_LLM_API_URL`, `papayu.apiUrl`), the first of [`BY_KEY`] whose key variable is set —
/// as aider does — rather than a local Ollama that is likely not there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ByKey {
    pub provider: &'static str,
    /// The variable that holds its key.
    pub var: String,
    /// The other providers whose keys are set too (not asked).
    pub others: Vec<&'static str>,
}

impl ByKey {
    /// The one line that says so, for stderr: which provider, why, and how to choose another.
    pub fn notice(&self, model: &str) -> String {
        let mut line = format!(
            "no provider is configured and {} is set: asking {}:{model} (choose with git config --global papayu.provider NAME:MODEL)",
            self.var, self.provider
        );
        if !self.others.is_empty() {
            let all: Vec<&str> = std::iter::once(self.provider)
                .chain(self.others.iter().copied())
                .collect();
            line.push_str(&format!(
                "; keys for {} are set too, --provider {} asks all",
                self.others.join(", "),
                all.join(",")
            ));
        }
        line
    }
}

/// See [`ByKey`]; `None` when a provider or server is configured, or no key is set.
pub fn by_key(src: &Sources) -> Option<ByKey> {
    let configured = src.flags.provider.is_some()
        || src
            .setting("papayu.provider", "PAPAYU_LLM_PROVIDERS")
            .is_some()
        || src.setting("papayu.apiurl", "PAPAYU_LLM_API_URL").is_some();
    if configured {
        return None;
    }
    let mut set = BY_KEY.iter().filter_map(|(name, default_var, _)| {
        let (var, key) = key_from(src, name, default_var);
        key.map(|_| (*name, var))
    });
    let (provider, var) = set.next()?;
    Some(ByKey {
        provider,
        var,
        others: set.map(|(name, _)| name).collect(),
    })
}

impl Sources {
    fn env(&self, name: &str) -> Option<&str> {
        self.env
            .get(name)
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
    }

    fn git(&self, key: &str) -> Option<&str> {
        self.git
            .get(&key.to_ascii_lowercase())
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
    }

    /// git config `key` < environment `var`.
    fn setting(&self, key: &str, var: &str) -> Option<&str> {
        self.env(var).or_else(|| self.git(key))
    }
}

fn truthy(text: &str) -> bool {
    matches!(
        text.trim().to_ascii_lowercase().as_str(),
        "1" | "true" | "yes" | "on"
    )
}

fn invalid(reason: String) -> Problem {
    Problem::new(Code::ConfigInvalid, reason)
}

/// The providers to ask, each fully resolved. Nothing configured: one implicit local Ollama.
pub fn resolve(src: &Sources) -> Result<Vec<Endpoint>, Problem> {
    refuse_keys_in_git_config(src)?;
    let common = common_endpoint(src)?;
    let model = src.flags.model.clone().or_else(|| {
        src.setting("papayu.model", "PAPAYU_LLM_MODEL")
            .map(str::to_string)
    });
    let specs = src.flags.provider.clone().or_else(|| {
        src.setting("papayu.provider", "PAPAYU_LLM_PROVIDERS")
            .map(str::to_string)
    });
    match specs {
        Some(specs) => named_providers(src, &specs, model, &common),
        None => unnamed_provider(src, model, common).map(|e| vec![e]),
    }
}

fn refuse_keys_in_git_config(src: &Sources) -> Result<(), Problem> {
    for key in src.git.keys() {
        let last = key.rsplit('.').next().unwrap_or("");
        if matches!(last, "key" | "apikey" | "token" | "secret") {
            return Err(invalid(format!(
                "git config {key} holds a key; papayu reads keys only from environment variables: remove it and set papayu.<name>.keyEnv to the variable's name"
            )));
        }
    }
    Ok(())
}

/// What every provider shares: timeouts, retries, strict JSON.
fn common_endpoint(src: &Sources) -> Result<Endpoint, Problem> {
    let retry_base = src
        .env("PAPAYU_LLM_RETRY_BASE_MS")
        .and_then(|v| v.parse::<u64>().ok())
        .map_or(Duration::from_millis(500), Duration::from_millis);
    let strict = src
        .setting("papayu.strictjson", "PAPAYU_LLM_STRICT_JSON")
        .is_some_and(truthy);
    Ok(Endpoint {
        name: String::new(),
        wire: Wire::OpenAiChat,
        base_url: String::new(),
        api_key: None,
        key_var: None,
        model: String::new(),
        read_timeout: read_timeout(src)?,
        strict,
        implicit: false,
        retry_base,
    })
}

fn read_timeout(src: &Sources) -> Result<Duration, Problem> {
    let Some(t) = src.setting("papayu.timeoutsec", "PAPAYU_LLM_TIMEOUT_SEC") else {
        return Ok(Duration::from_secs(90));
    };
    t.parse::<u64>()
        .ok()
        .filter(|&s| s > 0)
        .map(Duration::from_secs)
        .ok_or_else(|| {
            invalid(format!(
                "PAPAYU_LLM_TIMEOUT_SEC / papayu.timeoutSec is '{t}'; give whole seconds"
            ))
        })
}

/// With no provider named: a configured server URL, else the provider a key in the
/// environment chooses, else an implicit local Ollama.
fn unnamed_provider(
    src: &Sources,
    model: Option<String>,
    common: Endpoint,
) -> Result<Endpoint, Problem> {
    if let Some(url) = src.setting("papayu.apiurl", "PAPAYU_LLM_API_URL") {
        return Ok(Endpoint {
            name: "openai-compatible".to_string(),
            base_url: url.trim_end_matches('/').to_string(),
            api_key: src.env("PAPAYU_LLM_API_KEY").map(str::to_string),
            key_var: Some("PAPAYU_LLM_API_KEY".to_string()),
            model: model.ok_or_else(|| missing_model("openai-compatible"))?,
            ..common
        });
    }
    if let Some(chosen) = by_key(src) {
        let name = chosen.provider;
        let model = src
            .git(&format!("papayu.{name}.model"))
            .map(str::to_string)
            .or(model)
            .or_else(|| {
                BY_KEY
                    .iter()
                    .find(|(n, _, _)| *n == name)
                    .map(|(_, _, m)| m.to_string())
            });
        return endpoint(src, name, model, common);
    }
    Ok(Endpoint {
        name: "ollama".to_string(),
        wire: Wire::Ollama,
        base_url: ollama_url(src),
        model: model.unwrap_or_default(),
        // No provider was chosen: a server that is not there means "not configured".
        implicit: true,
        ..common
    })
}

/// The providers `specs` names (`NAME` or `NAME:MODEL`, comma-separated), each once.
fn named_providers(
    src: &Sources,
    specs: &str,
    model: Option<String>,
    common: &Endpoint,
) -> Result<Vec<Endpoint>, Problem> {
    // `--provider openai` names a provider the configuration may already give a model
    // (`papayu.provider openai:gpt-5-mini`): that model is the one meant.
    let configured = src
        .setting("papayu.provider", "PAPAYU_LLM_PROVIDERS")
        .map(str::to_string)
        .unwrap_or_default();
    let mut out: Vec<Endpoint> = Vec::new();
    for spec in specs.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (name, spec_model) = split_spec(spec);
        let name = name.to_ascii_lowercase();
        if out.iter().any(|e| e.name == name) {
            continue;
        }
        let model = spec_model
            .or_else(|| src.git(&format!("papayu.{name}.model")).map(str::to_string))
            .or_else(|| configured_model(&configured, &name))
            .or_else(|| model.clone());
        out.push(endpoint(src, &name, model, common.clone())?);
    }
    if out.is_empty() {
        return Err(invalid(
            "PAPAYU_LLM_PROVIDERS / papayu.provider names no provider; give NAME or NAME:MODEL, comma-separated".to_string(),
        ));
    }
    Ok(out)
}

/// `NAME:MODEL` or `NAME` (a URL-like name with `/` keeps its colon).
fn split_spec(spec: &str) -> (&str, Option<String>) {
    match spec.split_once(':') {
        Some((n, m)) if !m.is_empty() && !n.contains('/') => (n, Some(m.to_string())),
        _ => (spec, None),
    }
}

/// The model the configured provider list gives `name`, if it gives one.
fn configured_model(configured: &str, name: &str) -> Option<String> {
    configured
        .split(',')
        .map(|spec| split_spec(spec.trim()))
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .and_then(|(_, model)| model)
}

fn ollama_url(src: &Sources) -> String {
    let host = src
        .git("papayu.ollama.url")
        .or_else(|| src.env("OLLAMA_HOST"))
        .unwrap_or(DEFAULT_OLLAMA);
    let host = if host.contains("://") {
        host.to_string()
    } else {
        format!("http://{host}")
    };
    host.trim_end_matches('/').to_string()
}

fn missing_model(name: &str) -> Problem {
    super::LlmError::ModelMissing {
        provider: name.to_string(),
    }
    .to_problem()
}

/// The variable `name`'s key is read from (`papayu.<name>.keyEnv`, else `default_var`), and
/// its value when set.
fn key_from(src: &Sources, name: &str, default_var: &str) -> (String, Option<String>) {
    let var = src
        .git(&format!("papayu.{name}.keyenv"))
        .unwrap_or(default_var);
    (var.to_string(), src.env(var).map(str::to_string))
}

fn wire_named(text: &str) -> Option<Wire> {
    match text.to_ascii_lowercase().as_str() {
        "openai" | "chat" | "openai-compatible" | "compatible" => Some(Wire::OpenAiChat),
        "responses" => Some(Wire::OpenAiResponses),
        "anthropic" => Some(Wire::Anthropic),
        "ollama" => Some(Wire::Ollama),
        _ => None,
    }
}

fn endpoint(
    src: &Sources,
    name: &str,
    model: Option<String>,
    common: Endpoint,
) -> Result<Endpoint, Problem> {
    let strict = src
        .git(&format!("papayu.{name}.strict"))
        .map_or(common.strict, truthy);
    let url = src.git(&format!("papayu.{name}.url"));
    let Route {
        wire,
        base,
        key: (key_var, key),
    } = route(src, name, url)?;
    let needs_key = matches!(name, "openai" | "anthropic")
        && url.is_none()
        && (base == DEFAULT_OPENAI || base == DEFAULT_ANTHROPIC);
    if needs_key && key.is_none() {
        return Err(Problem::new(
            Code::LlmAuth,
            format!(
                "{name} needs a key: set {key_var} (or papayu.{name}.keyEnv to the variable holding it)"
            ),
        ));
    }
    let model = match (model, wire) {
        (Some(m), _) => m,
        (None, Wire::Ollama) => String::new(),
        (None, _) => return Err(missing_model(name)),
    };
    Ok(Endpoint {
        name: name.to_string(),
        wire,
        base_url: base.trim_end_matches('/').to_string(),
        api_key: key,
        key_var: Some(key_var),
        model,
        strict,
        ..common
    })
}

/// How a provider is reached.
struct Route {
    wire: Wire,
    base: String,
    /// The variable its key is read from, and the key when that is set.
    key: (String, Option<String>),
}

/// How provider `name` is reached: its wire, base URL (`url` when configured) and key.
fn route(src: &Sources, name: &str, url: Option<&str>) -> Result<Route, Problem> {
    let configured_wire = configured_wire(src, name)?;
    let (wire, base, key) = match name {
        "openai" => {
            let base = url
                .or_else(|| src.env("OPENAI_BASE_URL"))
                .unwrap_or(DEFAULT_OPENAI);
            (
                openai_wire(src, configured_wire)?,
                base.to_string(),
                key_from(src, name, "OPENAI_API_KEY"),
            )
        }
        "anthropic" => {
            let base = url
                .or_else(|| src.env("ANTHROPIC_BASE_URL"))
                .unwrap_or(DEFAULT_ANTHROPIC);
            (
                configured_wire.unwrap_or(Wire::Anthropic),
                base.to_string(),
                key_from(src, name, "ANTHROPIC_API_KEY"),
            )
        }
        "ollama" => (
            configured_wire.unwrap_or(Wire::Ollama),
            ollama_url(src),
            key_from(src, name, "OLLAMA_API_KEY"),
        ),
        other => {
            let base = url
                .or_else(|| src.setting("papayu.apiurl", "PAPAYU_LLM_API_URL"))
                .ok_or_else(|| {
                    invalid(format!(
                        "provider '{other}' has no URL; set git config papayu.{other}.url (and papayu.{other}.wire, papayu.{other}.keyEnv)"
                    ))
                })?;
            (
                configured_wire.unwrap_or(Wire::OpenAiChat),
                base.to_string(),
                key_from(src, other, "PAPAYU_LLM_API_KEY"),
            )
        }
    };
    Ok(Route { wire, base, key })
}

/// `papayu.<name>.wire`, when set.
fn configured_wire(src: &Sources, name: &str) -> Result<Option<Wire>, Problem> {
    let Some(w) = src.git(&format!("papayu.{name}.wire")) else {
        return Ok(None);
    };
    wire_named(w).map(Some).ok_or_else(|| {
        invalid(format!(
            "papayu.{name}.wire is '{w}'; use openai, responses, anthropic or ollama"
        ))
    })
}

/// OpenAI's wire: `papayu.openai.api` (responses or chat) wins over `papayu.openai.wire`.
fn openai_wire(src: &Sources, configured_wire: Option<Wire>) -> Result<Wire, Problem> {
    match src.git("papayu.openai.api") {
        Some(api) if api.eq_ignore_ascii_case("responses") => Ok(Wire::OpenAiResponses),
        Some(api) if api.eq_ignore_ascii_case("chat") => Ok(Wire::OpenAiChat),
        Some(other) => Err(invalid(format!(
            "papayu.openai.api is '{other}'; use responses or chat"
        ))),
        None => Ok(configured_wire.unwrap_or(Wire::OpenAiChat)),
    }
}

/// Every key value the sources hold, for masking.
pub fn secret_values(src: &Sources) -> Vec<String> {
    src.env
        .iter()
        .filter(|(k, v)| is_secret_name(k) && v.len() >= 8)
        .map(|(_, v)| v.clone())
        .collect()
}

/// Whether a variable's name says it holds a credential.
pub fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    KEY_VARS.contains(&upper.as_str())
        || upper.ends_with("_API_KEY")
        || upper.ends_with("_TOKEN")
        || upper.ends_with("_SECRET")
        || upper.ends_with("_KEY")
        || upper.contains("PASSWORD")
}

/// Names of the variables to remove from a child's environment (the check runs code a model
/// wrote): provider keys and anything named like a credential.
pub fn scrub_env_names(env: &BTreeMap<String, String>) -> Vec<String> {
    env.keys().filter(|k| is_secret_name(k)).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(git: &[(&str, &str)], env: &[(&str, &str)]) -> Sources {
        Sources {
            git: git
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            flags: Flags::default(),
        }
    }

    #[test]
    fn nothing_configured_is_an_implicit_local_ollama() {
        let eps = resolve(&src(&[], &[])).unwrap();
        assert_eq!(eps.len(), 1);
        assert_eq!(eps[0].wire, Wire::Ollama);
        assert_eq!(eps[0].base_url, DEFAULT_OLLAMA);
        assert!(eps[0].implicit);
        let eps = resolve(&src(&[], &[("OLLAMA_HOST", "10.0.0.5:11434")])).unwrap();
        assert_eq!(eps[0].base_url, "http://10.0.0.5:11434");
    }

    #[test]
    fn with_nothing_configured_a_key_in_the_environment_chooses_the_provider() {
        let s = src(&[], &[("OPENAI_API_KEY", "sk-1")]);
        let eps = resolve(&s).unwrap();
        assert_eq!(
            (eps[0].name.as_str(), eps[0].model.as_str()),
            ("openai", "gpt-5-mini")
        );
        let chosen = by_key(&s).unwrap();
        assert_eq!(
            (chosen.provider, chosen.var.as_str()),
            ("openai", "OPENAI_API_KEY")
        );
        let s = src(
            &[("papayu.model", "claude-x")],
            &[("ANTHROPIC_API_KEY", "k")],
        );
        let eps = resolve(&s).unwrap();
        assert_eq!(
            (eps[0].name.as_str(), eps[0].model.as_str()),
            ("anthropic", "claude-x")
        );
        let both = src(&[], &[("OPENAI_API_KEY", "a"), ("ANTHROPIC_API_KEY", "b")]);
        let chosen = by_key(&both).unwrap();
        assert_eq!(
            (chosen.provider, chosen.others.clone()),
            ("openai", vec!["anthropic"])
        );
        assert!(
            chosen
                .notice("m")
                .contains("--provider openai,anthropic asks all")
        );
        // A configured provider or server wins; no key leaves the local Ollama.
        for configured in [
            src(&[("papayu.provider", "ollama")], &[("OPENAI_API_KEY", "a")]),
            src(
                &[],
                &[
                    ("PAPAYU_LLM_API_URL", "http://h/v1"),
                    ("OPENAI_API_KEY", "a"),
                ],
            ),
        ] {
            assert_eq!(by_key(&configured), None);
        }
        assert_eq!(resolve(&src(&[], &[])).unwrap()[0].name, "ollama");
    }

    #[test]
    fn environment_overrides_git_config_and_flags_override_both() {
        let s = src(
            &[
                ("papayu.provider", "anthropic"),
                ("papayu.model", "from-git"),
            ],
            &[
                ("PAPAYU_LLM_PROVIDERS", "openai"),
                ("OPENAI_API_KEY", "sk-1"),
                ("PAPAYU_LLM_MODEL", "from-env"),
            ],
        );
        let eps = resolve(&s).unwrap();
        assert_eq!(eps[0].name, "openai");
        assert_eq!(eps[0].model, "from-env");
        let mut s = s;
        s.flags.model = Some("from-flag".into());
        assert_eq!(resolve(&s).unwrap()[0].model, "from-flag");
    }

    #[test]
    fn several_providers_with_models_and_compatible_servers() {
        let s = src(
            &[
                ("papayu.provider", "openai:gpt-x, local"),
                ("papayu.local.url", "http://127.0.0.1:8080/v1/"),
                ("papayu.local.model", "qwen"),
                ("papayu.local.keyenv", "LOCAL_KEY"),
                ("papayu.openai.api", "responses"),
            ],
            &[("OPENAI_API_KEY", "sk-a"), ("LOCAL_KEY", "k-local")],
        );
        let eps = resolve(&s).unwrap();
        assert_eq!(eps.len(), 2);
        assert_eq!(
            (eps[0].wire, eps[0].model.as_str()),
            (Wire::OpenAiResponses, "gpt-x")
        );
        assert_eq!(eps[1].base_url, "http://127.0.0.1:8080/v1");
        assert_eq!(eps[1].api_key.as_deref(), Some("k-local"));
        assert_eq!(eps[1].model, "qwen");
    }

    /// `papayu.provider openai:gpt-5-mini`, then `--provider openai,anthropic` on one command:
    /// openai was refused for want of a model the configuration had just given it.
    #[test]
    fn a_provider_named_by_the_flag_keeps_its_configured_model() {
        let mut s = src(
            &[("papayu.provider", "openai:gpt-5-mini")],
            &[("OPENAI_API_KEY", "sk-a"), ("ANTHROPIC_API_KEY", "k")],
        );
        s.flags.provider = Some("openai,anthropic:claude-x".to_string());
        let eps = resolve(&s).unwrap();
        assert_eq!(eps[0].model, "gpt-5-mini");
        assert_eq!(eps[1].model, "claude-x");
        s.flags.provider = Some("openai:gpt-other".to_string());
        assert_eq!(resolve(&s).unwrap()[0].model, "gpt-other");
    }

    #[test]
    fn an_api_url_alone_is_an_openai_compatible_server() {
        let s = src(
            &[],
            &[
                ("PAPAYU_LLM_API_URL", "http://h/v1"),
                ("PAPAYU_LLM_MODEL", "m"),
            ],
        );
        let eps = resolve(&s).unwrap();
        assert_eq!(eps[0].name, "openai-compatible");
        assert_eq!(eps[0].wire, Wire::OpenAiChat);
        assert!(eps[0].api_key.is_none());
    }

    #[test]
    fn mistakes_get_codes() {
        let no_key = resolve(&src(&[("papayu.provider", "openai:m")], &[])).unwrap_err();
        assert_eq!(no_key.code, Code::LlmAuth);
        assert!(no_key.reason.contains("OPENAI_API_KEY"));
        let key_in_git = resolve(&src(&[("papayu.openai.apikey", "sk-x")], &[])).unwrap_err();
        assert_eq!(key_in_git.code, Code::ConfigInvalid);
        assert!(!key_in_git.reason.contains("sk-x"));
        let no_model = resolve(&src(
            &[],
            &[
                ("PAPAYU_LLM_PROVIDERS", "anthropic"),
                ("ANTHROPIC_API_KEY", "k"),
            ],
        ))
        .unwrap_err();
        assert_eq!(no_model.code, Code::LlmModelMissing);
        let bad_timeout = resolve(&src(&[], &[("PAPAYU_LLM_TIMEOUT_SEC", "soon")])).unwrap_err();
        assert_eq!(bad_timeout.code, Code::ConfigInvalid);
        let no_url = resolve(&src(&[("papayu.provider", "mine")], &[])).unwrap_err();
        assert!(no_url.reason.contains("papayu.mine.url"));
    }

    #[test]
    fn credential_variables_are_recognised() {
        let env: BTreeMap<String, String> = [
            ("OPENAI_API_KEY", "sk-aaaaaaaaaa"),
            ("GITHUB_TOKEN", "ghp_x"),
            ("AWS_SECRET", "x"),
            ("PATH", "/bin"),
            ("HOME", "/h"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let names = scrub_env_names(&env);
        assert_eq!(names, ["AWS_SECRET", "GITHUB_TOKEN", "OPENAI_API_KEY"]);
        assert_eq!(
            secret_values(&Sources {
                env,
                ..Sources::default()
            }),
            ["sk-aaaaaaaaaa"]
        );
    }
}
