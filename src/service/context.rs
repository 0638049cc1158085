//! What a plan would send a model, gathered without calling one: `git papayu context` and the
//! MCP tool of the same name.

use crate::ask::{self, Question, Settings};
use crate::clock::now_millis;
use crate::codes::Problem;
use crate::context::{self, Budget};
use crate::engine::plan;
use crate::protocol::{Mode, ProtocolVersion};
use crate::store::Oid;

use super::Service;

/// What a plan for a goal would gather, and its rendering as the model would read it.
pub struct Gathered {
    pub question: Question,
    pub prepared: ask::Prepared,
    pub rendered: String,
}

/// Gathers the context a plan for `goal` at `base` would send, asking no model.
pub fn gather(
    service: &Service<'_>,
    goal: String,
    base: Oid,
    logs: Vec<(String, String)>,
    version: ProtocolVersion,
) -> Result<Gathered, Problem> {
    let (store, config) = (service.store, service.config);
    plan::check_goal("goal", &goal)?;
    let env = config.env_map().clone();
    let settings = Settings {
        endpoints: Vec::new(),
        mode: ask::LlmMode::default(),
        protocol: version,
        fallback_to_v1: false,
        phase: Mode::Plan,
        normalize_eol: false,
        budget: Budget::from_env(&env),
        samples: 1,
        spending: crate::cost::Spending::default(),
        notice: None,
    };
    let question = Question {
        goal,
        base,
        logs,
        memory: ask::memory::load(store, base, &env).block(),
        now: now_millis(),
    };
    let prepared = ask::prepare(store, &settings, &question)?;
    let rendered = context::render(&prepared.blocks, version);
    Ok(Gathered {
        question,
        prepared,
        rendered,
    })
}
