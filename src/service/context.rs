//! What a plan would send a model, gathered without calling one: `git papayu context` and the
//! MCP tool of the same name.

use crate::ask::{self, Question, Settings};
use crate::clock::now_millis;
use crate::codes::Problem;
use crate::context::{self, Block, Budget};
use crate::engine::plan;
use crate::protocol::{Mode, ProtocolVersion};
use crate::store::Oid;
use crate::store::records::Fingerprint;
use serde::Serialize;

use super::Service;

/// What a plan for a goal would gather, and its rendering as the model would read it: the
/// document `git papayu context --json` prints and the `papayu_context` tool returns.
#[derive(Debug, Serialize)]
pub struct Gathered {
    /// Every block the diet kept, in the order the model reads them.
    pub blocks: Vec<Block>,
    /// What was held back (private files, secrets' files), each with why.
    pub withheld: Vec<String>,
    /// What the diet did: blocks truncated or dropped, and why.
    pub events: Vec<String>,
    /// The engineering memory sent with the goal (may be empty).
    pub memory: String,
    /// Characters of the rendered context.
    pub total_chars: usize,
    /// Each file block's path, blob and hash, as a plan's record keeps them.
    pub fingerprint: Vec<Fingerprint>,
    /// The context as the model reads it.
    pub text: String,
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
    let text = context::render(&prepared.blocks, version);
    Ok(Gathered {
        fingerprint: context::fingerprints(&prepared.blocks),
        total_chars: text.chars().count(),
        blocks: prepared.blocks,
        withheld: prepared.withheld,
        events: prepared.events,
        memory: question.memory,
        text,
    })
}
