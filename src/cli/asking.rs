//! Asking models, shared by `plan`, the free-text router and `refine`: settings are resolved
//! once (git config < `PAPAYU_*` environment < flags), the plan loop runs with progress on
//! stderr, and every plan that came back valid is stored as one operation.

use std::collections::BTreeMap;
use std::path::PathBuf;

use git_papayu::ask::{self, LlmMode, Question, Settings, memory};
use git_papayu::context::Budget;
use git_papayu::engine::plan::{self, Candidate, Planned, Provenance};
use git_papayu::llm::config::{Flags, Sources};
use git_papayu::protocol::{Mode, ProtocolVersion};
use git_papayu::settings::Settings as Config;
use git_papayu::store::records::now_millis;
use git_papayu::store::{Oid, Store};
use git_papayu::trace::{BlockStat, ContextStats, Trace};
use git_papayu::{Code, Problem};

use super::progress::Spinners;
use super::tracing::{self, Tracer};
use super::{CliError, ui};

/// One request to ask models.
pub struct Ask {
    pub goal: String,
    pub base: Oid,
    /// A protocol forced by the user (no fallback then); `None` = configured default.
    pub protocol: Option<ProtocolVersion>,
    pub phase: Mode,
    pub llm_mode: Option<String>,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub logs: Vec<PathBuf>,
}

fn flag(
    env: &BTreeMap<String, String>,
    git: &BTreeMap<String, String>,
    var: &str,
    key: &str,
) -> Option<String> {
    env.get(var)
        .or_else(|| git.get(key))
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

fn truthy(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

/// Resolves everything the plan loop needs from config, environment and flags.
pub fn settings(config: &Config, ask: &Ask) -> Result<Settings, Problem> {
    let env = config.env_map();
    let git = config.git_with_prefix("papayu.");
    let sources = Sources {
        git: git.clone(),
        env: env.clone(),
        flags: Flags {
            provider: ask.provider.clone(),
            model: ask.model.clone(),
        },
    };
    let endpoints = git_papayu::llm::config::resolve(&sources)?;
    let mode_text = ask
        .llm_mode
        .clone()
        .or_else(|| flag(env, &git, "PAPAYU_LLM_MODE", "papayu.llmmode"));
    let mode = match mode_text {
        None => LlmMode::default(),
        Some(text) => LlmMode::parse(&text).ok_or_else(|| {
            Problem::new(
                Code::ConfigInvalid,
                format!("unknown LLM mode '{text}'; use chat, fixit or fix-plan"),
            )
        })?,
    };
    let configured = flag(env, &git, "PAPAYU_PROTOCOL_VERSION", "papayu.protocol")
        .or_else(|| env.get("PAPAYU_PROTOCOL_DEFAULT").cloned());
    let protocol = match (ask.protocol, configured.as_deref().map(str::trim)) {
        (Some(v), _) => v,
        (None, Some("1")) => ProtocolVersion::V1,
        (None, Some("2") | None) => ProtocolVersion::V2,
        (None, Some(other)) => {
            return Err(Problem::new(
                Code::ConfigInvalid,
                format!("PAPAYU_PROTOCOL_VERSION / papayu.protocol is '{other}'; use 1 or 2"),
            ));
        }
    };
    let fallback_to_v1 = ask.protocol.is_none()
        && flag(
            env,
            &git,
            "PAPAYU_PROTOCOL_FALLBACK_TO_V1",
            "papayu.fallbacktov1",
        )
        .and_then(|v| truthy(&v))
        .unwrap_or(true);
    Ok(Settings {
        endpoints,
        mode,
        protocol,
        fallback_to_v1,
        phase: ask.phase,
        normalize_eol: env
            .get("PAPAYU_NORMALIZE_EOL")
            .is_some_and(|v| v.eq_ignore_ascii_case("lf")),
        budget: Budget::from_env(env),
    })
}

pub fn read_logs(paths: &[PathBuf]) -> Result<Vec<(String, String)>, Problem> {
    paths
        .iter()
        .map(|path| {
            let bytes = super::plan::read_input(path)?;
            let name = if path.as_os_str() == "-" {
                "stdin".to_string()
            } else {
                path.display().to_string()
            };
            Ok((name, String::from_utf8_lossy(&bytes).into_owned()))
        })
        .collect()
}

/// Asks the configured providers and stores every valid plan as one operation. Fails (with
/// every provider's problems) only when no provider produced a plan.
pub fn ask_and_store(store: &Store, ask: Ask) -> Result<Vec<Planned>, CliError> {
    let tracer = Tracer::new(store);
    let asked = ask_models(store, ask, &tracer, "plan")?;
    let (good, mut traces): (Vec<_>, Vec<_>) = asked
        .into_iter()
        .map(|(c, mut p, t)| {
            p.conversation = Some(git_papayu::trace::conversation::of_trace(&t));
            ((c, p), t)
        })
        .unzip();
    match plan::store_plans(store, good) {
        Ok(planned) => {
            for (t, p) in traces.iter_mut().zip(&planned) {
                tracing::plan_stored(t, p);
                tracer.write(store, t);
            }
            Ok(planned)
        }
        Err(problems) => {
            for t in &mut traces {
                tracer.write_failed(store, t, &problems);
            }
            Err(problems.into())
        }
    }
}

/// A candidate, where it came from, and its trace (written once it is stored or refused).
pub type Asked = (Candidate, Provenance, Trace);

/// Asks the configured providers; returns every checked candidate (nothing is stored). Fails
/// (with every provider's problems) only when no provider produced one. The trace of each
/// provider that failed is written here; the others travel with their candidates.
pub fn ask_models(
    store: &Store,
    ask: Ask,
    tracer: &Tracer,
    kind: &str,
) -> Result<Vec<Asked>, CliError> {
    let config = Config::load(store);
    let env = config.env_map().clone();
    let settings = settings(&config, &ask)?;
    let logs = read_logs(&ask.logs)?;
    let memory = memory::load(store, ask.base, &env).block();
    let question = Question {
        goal: ask.goal.clone(),
        base: ask.base,
        logs,
        memory,
        now: now_millis(),
    };
    let prepared = ask::prepare(store, &settings, &question)?;
    let context_stats = context_stats(&prepared);
    let names: Vec<(String, String)> = settings
        .endpoints
        .iter()
        .map(|e| (e.name.clone(), e.model.clone()))
        .collect();
    let spinners = Spinners::new(&names);
    let sink = |p| spinners.report(p);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Internal(e.into()))?;
    let outcomes = runtime.block_on(async {
        tokio::select! {
            outcomes = ask::ask_all(store, &settings, &question, &prepared, &sink) => Some(outcomes),
            _ = tokio::signal::ctrl_c() => None,
        }
    });
    spinners.clear();
    let Some(outcomes) = outcomes else {
        return Err(Problem::new(
            Code::Cancelled,
            "cancelled while waiting for the model; nothing was stored",
        )
        .into());
    };
    let several = outcomes.len() > 1;
    let mut good = Vec::new();
    let mut failures = Vec::new();
    for outcome in outcomes {
        let id = outcome
            .result
            .as_ref()
            .ok()
            .map(|(_, p)| p.trace_id.clone());
        let mut t = tracer.start(kind, id);
        t.goal = Some(ask.goal.clone());
        t.base = Some(ask.base.to_string());
        t.context_stats = Some(context_stats.clone());
        tracer.conversation(&mut t, outcome.transcript);
        match outcome.result {
            Ok((candidate, provenance)) => good.push((candidate, provenance, t)),
            Err(problems) => {
                tracer.write_failed(store, &mut t, &problems);
                let trace_id = tracer.is_on().then_some(t.trace_id.as_str());
                failures.extend(problems.into_iter().map(|mut p| {
                    if let (Code::NoJson, Some(id)) = (p.code, trace_id) {
                        let line = format!("trace {id} (git papayu trace show {id})");
                        let detail = p
                            .detail
                            .take()
                            .map_or(line.clone(), |d| format!("{d}\n{line}"));
                        p = p.with_detail(detail);
                    }
                    if several {
                        p.reason = format!("{}: {}", outcome.provider, p.reason);
                    }
                    p
                }));
            }
        }
    }
    if good.is_empty() {
        return Err(CliError::Problems(failures));
    }
    for p in &failures {
        ui::warn(&format!("no plan from this provider: {p}"));
    }
    Ok(good)
}

/// What the model was shown before its first answer, for traces.
fn context_stats(prepared: &ask::Prepared) -> ContextStats {
    ContextStats {
        blocks: prepared
            .blocks
            .iter()
            .map(|b| BlockStat {
                kind: format!("{:?}", b.kind).to_lowercase(),
                title: b.title.clone(),
                source: b.source.clone(),
                chars: b.body.chars().count(),
                full_chars: b.full_chars,
                truncated: b.truncated,
            })
            .collect(),
        total_chars: prepared.blocks.iter().map(|b| b.body.chars().count()).sum(),
        withheld: prepared.withheld.clone(),
    }
}

/// Shows a plan's `memory_patch` and writes it when the user accepts: with `--accept-memory`,
/// or a `y` at the prompt when stdin and stderr are terminals. Never written otherwise.
pub fn offer_memory(store: &Store, planned: &[Planned], accept: bool) -> Result<(), CliError> {
    let json = ui::json_mode();
    let Some(patch) = planned
        .iter()
        .map(|p| &p.record.plan.memory_patch)
        .find(|m| !m.is_empty())
    else {
        return Ok(());
    };
    if !json {
        // The preview may still be in the pager, which owns the terminal: the proposal and
        // its question come once the user has left it.
        ui::end_paging();
        ui::status("The model proposes to remember:");
        for (key, value) in patch {
            ui::status(&format!("  {key} = {value}"));
        }
    }
    let yes = accept || (!json && ui::ask_yes("Remember this? [y/N] "));
    if !yes {
        if !json {
            ui::status("Not remembered (use --accept-memory to accept).");
        }
        return Ok(());
    }
    let env = Config::load(store).env_map().clone();
    let written = memory::accept(store, &env, patch)?;
    ui::data(&serde_json::json!({ "memory_written": written }));
    if !json {
        ui::status(&format!("Remembered: {}", written.join(", ")));
    }
    Ok(())
}
