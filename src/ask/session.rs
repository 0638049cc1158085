//! One plan session, for every front end (the command line, a server, an editor): settings
//! resolved once (git config < `PAPAYU_*` environment < the request), the context gathered from
//! the base commit, the configured providers asked (with repair and fallback), every valid plan
//! stored as one operation, and each conversation handed to a [`Recorder`] — `trace::record`
//! writes them as traces, so a front end that asks through here keeps its traces.
//!
//! It never prints and never waits on a terminal: progress goes to the caller's callback, and
//! what to show (or whether to cancel) is the caller's business.

use std::collections::BTreeMap;

use super::{LlmMode, Outcome, Prepared, Progress, Question, Settings, Transcript, memory};
use crate::codes::{Code, Problem, Problems};
use crate::context::Budget;
use crate::engine::plan::{self, Candidate, Planned, Provenance};
use crate::llm::config::{Flags, Sources};
use crate::protocol::{Mode, ProtocolVersion};
use crate::settings::Settings as Config;
use crate::store::records::now_millis;
use crate::store::{Oid, Store};

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
    /// Logs sent with the goal, as (name, text).
    pub logs: Vec<(String, String)>,
    /// Answers to ask of each provider (`--samples`).
    pub samples: u32,
    /// `--max-cost`, in US dollars.
    pub max_cost: Option<f64>,
}

impl Ask {
    /// A plan for `goal` at `base` as configured: the default protocol, provider and model,
    /// no logs, one answer a provider, no cost cap.
    pub fn plan(goal: String, base: Oid) -> Ask {
        Ask {
            goal,
            base,
            protocol: None,
            phase: Mode::Plan,
            llm_mode: None,
            provider: None,
            model: None,
            logs: Vec::new(),
            samples: 1,
            max_cost: None,
        }
    }
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
    let endpoints = crate::llm::config::resolve(&sources)?;
    let notice = crate::llm::config::by_key(&sources).and_then(|chosen| {
        let model = &endpoints.first()?.model;
        Some(chosen.notice(model))
    });
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
        normalize_eol: config.normalize_eol().unwrap_or(false),
        budget: Budget::from_env(env),
        samples: ask.samples.max(1),
        spending: crate::cost::Spending::new(
            crate::cost::prices(&git)?,
            crate::cost::max_cost(ask.max_cost, &git)?,
        ),
        notice,
    })
}

/// Where a session's conversations are recorded: `trace::record::Tracer` writes them as
/// traces; a front end that keeps none passes [`NoRecords`].
pub trait Recorder {
    /// The record of one provider's conversation, kept with its candidate until it is stored.
    type Record;
    /// Starts the record of one conversation of a session of `kind` (`plan`, `refine`).
    fn begin(
        &self,
        kind: &str,
        question: &Question,
        prepared: &Prepared,
        outcome: OutcomeSummary,
    ) -> Self::Record;
    /// The conversation's plan was stored: the record is complete.
    fn stored(&self, store: &Store, record: &mut Self::Record, planned: &Planned);
    /// The conversation ended in `problems`: the record is complete.
    fn failed(&self, store: &Store, record: &mut Self::Record, problems: &[Problem]);
    /// The id under which the user can look at a record, when records are kept.
    fn shown_id(&self, record: &Self::Record) -> Option<String>;
}

/// What a recorder learns of one conversation when it ends.
pub struct OutcomeSummary {
    pub provider: String,
    /// The plan's trace id, when the conversation produced one.
    pub trace_id: Option<String>,
    pub transcript: Transcript,
}

/// A recorder that keeps nothing.
pub struct NoRecords;

impl Recorder for NoRecords {
    type Record = ();
    fn begin(&self, _: &str, _: &Question, _: &Prepared, _: OutcomeSummary) {}
    fn stored(&self, _: &Store, _: &mut (), _: &Planned) {}
    fn failed(&self, _: &Store, _: &mut (), _: &[Problem]) {}
    fn shown_id(&self, _: &()) -> Option<String> {
        None
    }
}

/// A candidate, where it came from, and its record (completed once it is stored or refused).
pub type Asked<R> = (Candidate, Provenance, R);

/// What the providers answered: at least one candidate, and the problems of those that failed
/// (their records are already complete).
pub struct Answers<R> {
    pub candidates: Vec<Asked<R>>,
    pub failures: Problems,
}

/// A question ready to ask: settings resolved and context gathered.
pub struct Session {
    pub settings: Settings,
    pub question: Question,
    pub prepared: Prepared,
}

impl Session {
    /// Resolves the settings and gathers the context of `ask` (reads the base commit only).
    /// Resolves the session's settings from `config` (see [`crate::settings`]).
    pub fn open(store: &Store, ask: Ask, config: &Config) -> Result<Session, Problem> {
        let settings = settings(config, &ask)?;
        let memory = memory::load(store, ask.base, config.env_map()).block();
        let question = Question {
            goal: ask.goal,
            base: ask.base,
            logs: ask.logs,
            memory,
            now: now_millis(),
        };
        let prepared = super::prepare(store, &settings, &question)?;
        Ok(Session {
            settings,
            question,
            prepared,
        })
    }

    /// The providers that will be asked, as (name, model).
    pub fn providers(&self) -> Vec<(String, String)> {
        self.settings
            .endpoints
            .iter()
            .map(|e| (e.name.clone(), e.model.clone()))
            .collect()
    }

    /// Asks every provider; returns every checked candidate (nothing is stored). Fails (with
    /// every provider's problems) only when no provider produced one. The record of each
    /// provider that failed is completed here; the others travel with their candidates.
    pub async fn ask<R: Recorder>(
        &self,
        store: &Store,
        recorder: &R,
        kind: &str,
        progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<Answers<R::Record>, Problems> {
        let outcomes = super::ask_all(
            store,
            &self.settings,
            &self.question,
            &self.prepared,
            progress,
        )
        .await;
        self.record(store, recorder, kind, outcomes)
    }

    fn record<R: Recorder>(
        &self,
        store: &Store,
        recorder: &R,
        kind: &str,
        outcomes: Vec<Outcome>,
    ) -> Result<Answers<R::Record>, Problems> {
        let several = outcomes.len() > 1;
        let mut candidates = Vec::new();
        let mut failures = Vec::new();
        for outcome in outcomes {
            let summary = OutcomeSummary {
                provider: outcome.provider.clone(),
                trace_id: outcome
                    .result
                    .as_ref()
                    .ok()
                    .map(|(_, p)| p.trace_id.clone()),
                transcript: outcome.transcript,
            };
            let mut record = recorder.begin(kind, &self.question, &self.prepared, summary);
            match outcome.result {
                Ok((candidate, provenance)) => candidates.push((candidate, provenance, record)),
                Err(problems) => {
                    recorder.failed(store, &mut record, &problems);
                    let shown = recorder.shown_id(&record);
                    failures.extend(problems.into_iter().map(|mut p| {
                        if let (Code::NoJson, Some(id)) = (p.code, &shown) {
                            let line = format!("trace {id} (git papayu trace show {id})");
                            let detail = p
                                .detail
                                .take()
                                .map_or(line.clone(), |d| format!("{d}\n{line}"));
                            p = p.with_detail(detail);
                        }
                        let named = p
                            .reason
                            .strip_prefix(outcome.provider.as_str())
                            .is_some_and(|rest| rest.starts_with([' ', ':']));
                        if several && !named {
                            p.reason = format!("{}: {}", outcome.provider, p.reason);
                        }
                        p
                    }));
                }
            }
        }
        if candidates.is_empty() {
            return Err(failures);
        }
        Ok(Answers {
            candidates,
            failures,
        })
    }
}

/// Stores every candidate as one operation and completes their records.
pub fn store_all<R: Recorder>(
    store: &Store,
    recorder: &R,
    candidates: Vec<Asked<R::Record>>,
) -> Result<Vec<Planned>, Problems> {
    let (good, mut records): (Vec<_>, Vec<_>) =
        candidates.into_iter().map(|(c, p, r)| ((c, p), r)).unzip();
    match plan::store_plans(store, good) {
        Ok(planned) => {
            for (r, p) in records.iter_mut().zip(&planned) {
                recorder.stored(store, r, p);
            }
            Ok(planned)
        }
        Err(problems) => {
            for r in &mut records {
                recorder.failed(store, r, &problems);
            }
            Err(problems)
        }
    }
}
