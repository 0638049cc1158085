//! The plan loop: ask one or several models for a plan, check every answer, repair, fetch
//! context, fall back from protocol v2 to v1, and hand the checked candidates to the store.
//!
//! Per provider, one conversation:
//!
//! 1. the context is gathered once from the base commit and laid out as the byte-stable prefix;
//! 2. an answer that only asks for context gets it (at most [`MAX_CONTEXT_ROUNDS`] rounds);
//! 3. an answer that fails a check gets **one** repair round with every problem;
//! 4. under v2, a patch that does not apply (after the repair) or a non-UTF-8 file (at once)
//!    makes **one** fallback to v1; nothing ever loops;
//! 5. a truncated answer is reported as truncated, never "repaired".
//!
//! Providers are asked concurrently on one thread: HTTP overlaps, while checks (which need the
//! repository, not `Sync`) run between awaits. Nothing is written to the repository here: the
//! caller stores whatever succeeded as one operation. Nothing here prints: progress and event
//! lines go to the caller's sink.

mod added;
mod conversation;
pub mod event;
pub mod memory;
pub mod prompt;
pub mod session;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::codes::{Problem, Problems};
use crate::context::{self, Block, Budget};
use crate::engine::plan::{Candidate, Provenance};
use crate::llm::{self, Endpoint};
use crate::protocol::{Mode, ProtocolVersion};
use crate::store::{Oid, Store};

pub use added::{ContextRound, Given};
use conversation::Conversation;
pub use event::LoopEvent;
pub use prompt::LlmMode;

/// Most rounds of `context_requests` one conversation answers.
pub const MAX_CONTEXT_ROUNDS: u32 = 2;
/// The seeds' answer budget, and the smaller one for very long prompts.
pub const MAX_TOKENS: u32 = 16_384;
pub const MAX_TOKENS_LONG_INPUT: u32 = 4_096;
/// Input size (characters) above which the smaller answer budget is used.
pub const LONG_INPUT_CHARS: usize = 80_000;

/// Everything the loop needs to know, resolved once by the caller.
#[derive(Debug, Clone)]
pub struct Settings {
    pub endpoints: Vec<Endpoint>,
    pub mode: LlmMode,
    /// The protocol asked for first (v2 unless configured).
    pub protocol: ProtocolVersion,
    /// Whether a failed v2 answer may fall back to v1 once.
    pub fallback_to_v1: bool,
    pub phase: Mode,
    pub normalize_eol: bool,
    pub budget: Budget,
    /// Answers asked of each provider (`--samples`, at least 1).
    pub samples: u32,
    /// Prices, the cost cap and what this command spent (shared by its conversations).
    pub spending: crate::cost::Spending,
    /// How the provider was chosen, when the user did not choose it (a key in the
    /// environment, see [`crate::llm::config::by_key`]): a front end says it once.
    pub notice: Option<String>,
}

/// What the user asked.
#[derive(Debug, Clone)]
pub struct Question {
    pub goal: String,
    pub base: Oid,
    /// Logs the user named (`--log`), as (name, text).
    pub logs: Vec<(String, String)>,
    /// The `ENGINEERING_MEMORY` block (may be empty).
    pub memory: String,
    /// When the plans are made (milliseconds since the epoch), for their records.
    pub now: i64,
}

/// What the loop reports while it works.
#[derive(Debug, Clone)]
pub enum Progress {
    /// One event (its line, `LLM_REQUEST_SENT provider=… …`, is for `-v` and traces).
    Event(LoopEvent),
    /// A try failed and another follows after `wait`: `status` 0 is a dropped connection or a
    /// timeout; `next` is the try about to be made, of `of`.
    Retrying {
        provider: String,
        status: u16,
        next: u32,
        of: u32,
        wait: std::time::Duration,
    },
    /// A request went out to a provider (each try; one refused before sending, by the cost
    /// cap, never does).
    Sent { provider: String },
    /// Text is arriving from a provider.
    Received {
        provider: String,
        chars: usize,
        tokens: u64,
    },
    /// The loop asks the provider again, and why, in words for the spinner: `answer rejected
    /// (hunk 2 not found in x.py); asking again (repair 1/1)`, a context round, a fallback.
    Again { provider: String, message: String },
}

/// How one provider's conversation ended, and what it did on the way (for its trace).
pub struct Outcome {
    pub provider: String,
    /// Which of the provider's `--samples` answers this is (1 to N); `None` for one.
    pub sample: Option<u32>,
    pub result: Result<(Candidate, Provenance), Problems>,
    pub transcript: Transcript,
}

/// What one conversation did: every request, the protocol path it took, the context rounds'
/// cache, the event lines, and the model's raw answers (kept in a trace only on request).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Transcript {
    pub provider: String,
    pub model: String,
    pub protocol_default: u8,
    /// The protocol version of each request, in order.
    pub protocol_attempts: Vec<u8>,
    pub protocol_fallback_reason: Option<String>,
    pub protocol_fallback_attempted: bool,
    /// Where the failure that caused the fallback was found: `preview` (the dry run: a patch
    /// that does not apply, a base mismatch, a non-UTF-8 file) or `validate` (the rules).
    pub protocol_fallback_stage: Option<String>,
    /// Repair rounds taken (0 or 1 per protocol version).
    pub protocol_repair_attempt: u32,
    pub requests: Vec<RequestLog>,
    pub validation_failures: Vec<FailureLog>,
    pub context_rounds: u32,
    /// Context-request cache hits and misses per request type.
    pub cache_hits: BTreeMap<String, u32>,
    pub cache_misses: BTreeMap<String, u32>,
    pub events: Vec<String>,
    /// What the model was shown, as the plan's fingerprint records it.
    pub sent: Vec<crate::store::records::Fingerprint>,
    /// What each context round asked for and was given.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub context_added: Vec<ContextRound>,
    #[serde(skip)]
    pub answers: Vec<String>,
}

/// One request to a model.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RequestLog {
    pub protocol: u8,
    pub input_chars: usize,
    pub max_tokens: u32,
    pub latency_ms: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cached_tokens: u64,
    pub cache_write_tokens: u64,
    /// What the request cost in US dollars, when its provider has a price.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// `ok`, or the error code the request ended with.
    pub outcome: String,
}

/// One validation failure of an answer.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct FailureLog {
    pub code: String,
    pub reason: String,
    pub protocol: u8,
    /// The path of the action the problem is about, when it names one.
    pub path: Option<String>,
}

impl FailureLog {
    pub fn of(problem: &Problem, protocol: u8) -> FailureLog {
        FailureLog {
            code: problem.code.to_string(),
            reason: crate::context::mask_secrets(&problem.text()),
            protocol,
            path: problem.path.clone(),
        }
    }
}

/// The context every provider is shown, gathered once.
pub struct Prepared {
    pub blocks: Vec<Block>,
    pub withheld: Vec<String>,
    pub events: Vec<String>,
}

/// Gathers and diets the context of a question (reads the base commit only).
pub fn prepare(
    store: &Store,
    settings: &Settings,
    question: &Question,
) -> Result<Prepared, Problem> {
    let snap = store.snapshot(question.base).map_err(|e| e.to_problem())?;
    let input = context::Input {
        goal: question.goal.clone(),
        logs: question.logs.clone(),
        protocol: settings.protocol,
    };
    let gathered = context::gather(&snap, &input, &settings.budget);
    let (blocks, report) = context::diet(gathered.blocks, &settings.budget);
    let mut events = Vec::new();
    if report.applied() {
        events.push(report.event_line());
    }
    Ok(Prepared {
        blocks,
        withheld: gathered
            .withheld
            .into_iter()
            .map(|(path, why)| format!("{path}: {why}"))
            .collect(),
        events,
    })
}

/// Asks every configured provider concurrently. Each outcome is independent: one provider's
/// failure does not stop another's plan.
pub async fn ask_all(
    store: &Store,
    settings: &Settings,
    question: &Question,
    prepared: &Prepared,
    sink: &(dyn Fn(Progress) + Sync),
) -> Vec<Outcome> {
    for line in &prepared.events {
        sink(Progress::Event(LoopEvent::Context { line: line.clone() }));
    }
    let http = llm::http_client();
    let samples = settings.samples.max(1);
    let asked = settings
        .endpoints
        .iter()
        .flat_map(|ep| (1..=samples).map(move |n| (ep, (samples > 1).then_some(n))));
    let conversations = asked.map(|(ep, sample)| {
        let http = &http;
        async move {
            let mut talk = Conversation::new(store, settings, question, prepared, ep, sink);
            talk.sample = sample;
            let result = talk.run(http).await;
            talk.transcript.cache_hits = talk.cache.hits.clone();
            talk.transcript.cache_misses = talk.cache.misses.clone();
            talk.transcript.context_rounds = talk.stats.context_rounds;
            talk.transcript.sent = context::fingerprints(&talk.blocks);
            Outcome {
                provider: ep.name.clone(),
                sample,
                result,
                transcript: talk.transcript,
            }
        }
    });
    futures_util::future::join_all(conversations).await
}

/// The environment as a map (read once by the caller, passed down).
pub fn env_map() -> BTreeMap<String, String> {
    std::env::vars().collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_path_of_an_action_problem_is_its_own_field() {
        use crate::codes::{Code, Problem};
        let about = Problem::new(Code::PatchApplyFailed, "the hunk does not apply")
            .about("action 2 (PATCH_FILE src/a b.py)")
            .at_path("src/a b.py");
        assert_eq!(
            super::FailureLog::of(&about, 2).path.as_deref(),
            Some("src/a b.py")
        );
        // A reason that reads like one about an action names no path unless it carries one.
        let prose = Problem::new(Code::Usage, "action 1 (CREATE_FILE x): not really");
        assert_eq!(super::FailureLog::of(&prose, 2).path, None);
    }
}
