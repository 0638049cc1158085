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
pub mod event;
pub mod memory;
pub mod prompt;
pub mod session;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::codes::{Code, Problem, Problems};
use crate::context::{self, Block, Budget};
use crate::engine::plan::{self, Candidate, CheckOptions, Provenance, Seen};
use crate::llm::{self, Endpoint, Finish, Message, Request, Role, Schema};
use crate::protocol::{self, Mode, ParseOptions, ProtocolVersion};
use crate::store::records::PlanStats;
use crate::store::{Oid, Store};

pub use added::{ContextRound, Given};
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

/// One provider's conversation, with everything it has been shown.
struct Conversation<'a> {
    store: &'a Store,
    settings: &'a Settings,
    question: &'a Question,
    ep: &'a Endpoint,
    sink: &'a (dyn Fn(Progress) + Sync),
    version: ProtocolVersion,
    /// Every block sent so far (initial context and context rounds).
    blocks: Vec<Block>,
    messages: Vec<Message>,
    cache: context::Cache,
    stats: PlanStats,
    repaired: bool,
    fell_back: bool,
    schema_sent: bool,
    served_model: Option<String>,
    transcript: Transcript,
    /// Each rejected answer as `v2: ERR_…`, `repaired: ERR_…`, in order.
    path: Vec<String>,
    /// The problems of the first rejected answer: the root cause when later ones fail too.
    first_cause: Vec<Problem>,
    /// Which of `--samples` answers this conversation gives (1 keeps the seeds' parameters).
    sample: Option<u32>,
}

/// What to do with an answer.
enum Next {
    Done(Box<Candidate>),
    Again,
}

impl<'a> Conversation<'a> {
    fn new(
        store: &'a Store,
        settings: &'a Settings,
        question: &'a Question,
        prepared: &'a Prepared,
        ep: &'a Endpoint,
        sink: &'a (dyn Fn(Progress) + Sync),
    ) -> Self {
        let mut talk = Conversation {
            store,
            settings,
            question,
            ep,
            sink,
            version: settings.protocol,
            blocks: prepared.blocks.clone(),
            messages: Vec::new(),
            cache: context::Cache::default(),
            stats: PlanStats::default(),
            repaired: false,
            fell_back: false,
            schema_sent: false,
            served_model: None,
            transcript: Transcript {
                provider: ep.name.clone(),
                model: ep.model.clone(),
                protocol_default: u8::from(settings.protocol),
                events: prepared.events.clone(),
                ..Transcript::default()
            },
            path: Vec::new(),
            first_cause: Vec::new(),
            sample: None,
        };
        talk.start(&prepared.withheld, None);
        talk
    }

    /// The opening messages: the context (end of the cached prefix), then the goal.
    fn start(&mut self, withheld: &[String], note: Option<String>) {
        let mut context_text = context::render(&self.blocks, self.version);
        for line in withheld {
            context_text.push_str(&format!("withheld: {line}\n"));
        }
        if context_text.trim().is_empty() {
            context_text = "CONTEXT: none gathered; ask with context_requests.\n".to_string();
        }
        let mut goal = prompt::goal(&self.question.goal, self.settings.phase);
        if let Some(note) = note {
            goal = format!("{note}\n\n{goal}");
        }
        self.messages = vec![
            Message {
                role: Role::User,
                content: context_text,
                cache_mark: true,
            },
            Message {
                role: Role::User,
                content: goal,
                cache_mark: false,
            },
        ];
    }

    fn event(&mut self, event: LoopEvent) {
        self.transcript.events.push(event.to_string());
        (self.sink)(Progress::Event(event));
    }

    /// Says, for the spinner, that the provider is asked again and why.
    fn again(&mut self, message: String) {
        (self.sink)(Progress::Again {
            provider: self.ep.name.clone(),
            message,
        });
    }

    async fn run(&mut self, http: &reqwest::Client) -> Result<(Candidate, Provenance), Problems> {
        loop {
            let answer = self.ask(http).await?;
            match self.judge(&answer) {
                Ok(Next::Done(candidate)) => return Ok((*candidate, self.provenance())),
                Ok(Next::Again) => continue,
                Err(problems) => return Err(self.for_the_user(problems)),
            }
        }
    }

    /// The final problems as the user reads them: after a fallback over what the dry run found,
    /// the first cause first; the path the conversation took when it took several steps; an answer without JSON quoted; no hint to
    /// try a protocol version the loop already tried.
    fn for_the_user(&self, problems: Vec<Problem>) -> Vec<Problem> {
        let tried: Vec<String> = self
            .transcript
            .protocol_attempts
            .iter()
            .map(|v| format!("`--protocol {v}`"))
            .collect();
        let shown = |p: Problem| {
            let p = without_hints_naming(p, &tried);
            match p.code {
                Code::NoJson => self.no_json(),
                _ => p,
            }
        };
        let problems = problems.into_iter().map(shown);
        if self.path.len() < 2 {
            return problems.collect();
        }
        // After a fallback for what the dry run found (a stale base, a patch that does not
        // apply), the later failures follow from that one: the model keeps answering the change
        // it could not make. A repair alone, or a fallback over the protocol's form, just
        // replaces the answer.
        let root = self.transcript.protocol_fallback_stage.as_deref() == Some("preview");
        let mut out: Vec<Problem> = match root {
            true => self.first_cause.iter().cloned().map(shown).collect(),
            false => Vec::new(),
        };
        for p in problems {
            if !out.contains(&p) {
                out.push(p);
            }
        }
        if let Some(first) = out.first_mut() {
            // The path ends the line, after the hint when there is one.
            let path = format!(" (path: {})", self.path.join(", "));
            match &mut first.hint {
                Some(hint) => hint.push_str(&path),
                None => first.reason.push_str(&path),
            }
        }
        out
    }

    /// `ERR_NO_JSON` for the user: what the model said, not what to tell the model.
    fn no_json(&self) -> Problem {
        let said = self
            .transcript
            .answers
            .last()
            .map(String::as_str)
            .unwrap_or("");
        let lines: Vec<&str> = said
            .lines()
            .filter(|l| !l.trim().is_empty())
            .take(6)
            .collect();
        let mut detail = String::from("it said:");
        for line in &lines {
            let short: String = line.chars().take(160).collect();
            detail.push_str(&format!("\n  | {short}"));
        }
        if lines.is_empty() {
            detail.push_str(" (nothing)");
        }
        let again = if self.repaired {
            " even when asked again"
        } else {
            ""
        };
        Problem::new(
            Code::NoJson,
            format!(
                "{}'s answer holds no JSON plan{again}; the model may not follow instructions for JSON output: try strict mode (PAPAYU_LLM_STRICT_JSON=1) or another model",
                self.ep.name
            ),
        )
        .with_detail(detail)
    }

    fn request(&self) -> Request {
        let system = prompt::system(self.settings.mode, self.version, &self.question.memory);
        let input_chars =
            system.len() + self.messages.iter().map(|m| m.content.len()).sum::<usize>();
        let max_tokens = if input_chars > LONG_INPUT_CHARS {
            MAX_TOKENS_LONG_INPUT
        } else {
            MAX_TOKENS
        };
        let cache_key = format!(
            "papayu-{}",
            &protocol::sha256_hex(format!("{system}\n{}", self.messages[0].content).as_bytes())
                [..16]
        );
        Request {
            system,
            messages: self.messages.clone(),
            schema: self.ep.strict.then(|| Schema {
                name: format!("papayu_plan_v{}", u8::from(self.version)),
                value: protocol::request_schema(self.version),
            }),
            max_tokens,
            cache_key: Some(cache_key),
            variation: self.sample.filter(|&n| n > 1).map(|n| n - 1),
        }
    }

    /// Sends the conversation so far and returns the answer's text.
    async fn ask(&mut self, http: &reqwest::Client) -> Result<String, Problems> {
        let request = self.request();
        let input_chars = request.system.len()
            + request
                .messages
                .iter()
                .map(|m| m.content.len())
                .sum::<usize>();
        // Said when the first try goes out: one the cost cap refuses is never sent.
        let mut announce = Some(LoopEvent::LlmRequestSent {
            provider: self.ep.name.clone(),
            model: self.ep.model.clone(),
            schema_version: u8::from(self.version),
            token_budget: request.max_tokens,
            input_chars,
        });
        // Each try is refused before it is sent when it could pass the cost cap, and what each
        // reported using is counted.
        let mut meter = Metered::new(&self.settings.spending, &self.ep.name);
        let provider = self.ep.name.clone();
        let sink = self.sink;
        let mut lines = Vec::new();
        let mut on_event = |e: llm::CallEvent| {
            let event = match e {
                llm::CallEvent::Received { chars, tokens } => {
                    sink(Progress::Received {
                        provider: provider.clone(),
                        chars,
                        tokens,
                    });
                    return;
                }
                llm::CallEvent::FormatFallback { reason } => LoopEvent::LlmResponseFormatFallback {
                    provider: provider.clone(),
                    reason: one_token(&reason),
                },
                llm::CallEvent::Timeout => LoopEvent::LlmRequestTimeout {
                    provider: provider.clone(),
                },
                llm::CallEvent::Retry {
                    status,
                    wait,
                    attempt,
                } => {
                    sink(Progress::Retrying {
                        provider: provider.clone(),
                        status,
                        next: attempt + 1,
                        of: llm::MAX_TRIES,
                        wait,
                    });
                    LoopEvent::LlmRetry {
                        provider: provider.clone(),
                        status,
                        attempt,
                        wait_ms: wait.as_millis() as u64,
                    }
                }
                llm::CallEvent::Sent { .. } => {
                    if let Some(sent) = announce.take() {
                        lines.push(sent.to_string());
                        sink(Progress::Event(sent));
                    }
                    sink(Progress::Sent {
                        provider: provider.clone(),
                    });
                    return;
                }
            };
            lines.push(event.to_string());
            sink(Progress::Event(event));
        };
        let result = llm::complete(http, self.ep, &request, &mut meter, &mut on_event).await;
        self.transcript.events.append(&mut lines);
        let Metered { cost, usage, .. } = meter;
        if let Some(cost) = cost {
            self.stats.cost_usd = Some(self.stats.cost_usd.unwrap_or(0.0) + cost);
        }
        let mut log = RequestLog {
            protocol: u8::from(self.version),
            input_chars,
            max_tokens: request.max_tokens,
            cost_usd: cost,
            input_tokens: usage.input,
            output_tokens: usage.output,
            cached_tokens: usage.cached,
            cache_write_tokens: usage.cache_write,
            ..RequestLog::default()
        };
        // Every try's tokens are counted, an answered one's or not, as its cost is.
        self.stats.input_tokens += usage.input;
        self.stats.output_tokens += usage.output;
        self.stats.cached_tokens += usage.cached;
        self.stats.cache_write_tokens += usage.cache_write;
        self.transcript.protocol_attempts.push(log.protocol);
        let reply = match result {
            Ok(reply) => reply,
            Err(e) => {
                let problem = e.to_problem();
                log.outcome = problem.code.to_string();
                self.transcript.requests.push(log);
                return Err(vec![problem]);
            }
        };
        log.latency_ms = reply.latency_ms;
        log.outcome = if reply.finish == Finish::Length {
            Code::LlmTruncated.to_string()
        } else {
            "ok".to_string()
        };
        self.transcript.requests.push(log);
        self.transcript.answers.push(reply.text.clone());
        self.stats.requests += 1;
        self.stats.latency_ms += reply.latency_ms;
        self.schema_sent = reply.schema_sent;
        if !reply.model.is_empty() {
            self.served_model = Some(reply.model.clone());
        }
        if reply.finish == Finish::Length {
            return Err(vec![Problem::new(
                Code::LlmTruncated,
                format!(
                    "{}'s answer was cut off at its {} token limit; ask for a smaller change or split the goal",
                    self.ep.name, request.max_tokens
                ),
            )]);
        }
        self.event(LoopEvent::LlmResponseOk {
            provider: self.ep.name.clone(),
            input_tokens: reply.usage.input,
            output_tokens: reply.usage.output,
            cached_tokens: reply.usage.cached,
            latency_ms: reply.latency_ms,
        });
        Ok(reply.text)
    }

    /// Checks an answer and decides: a plan, a context round, a repair, a fallback, or failure.
    fn judge(&mut self, answer: &str) -> Result<Next, Problems> {
        let sent = context::fingerprints(&self.blocks);
        let how = CheckOptions {
            protocol: Some(self.version),
            mode: self.settings.phase,
            normalize_eol: self.settings.normalize_eol,
            allowlist: None,
            seen: Seen::Sent(&sent),
        };
        let checked = plan::check_answer(self.store, self.question.base, answer.as_bytes(), &how);
        let requests = match &checked {
            Ok(c) if c.plan.actions.is_empty() => c.plan.context_requests.clone(),
            Ok(_) => Vec::new(),
            Err(_) => self.context_requests_of(answer),
        };
        if !requests.is_empty() {
            return self.context_round(answer, &requests).map(|()| Next::Again);
        }
        match checked {
            Ok(candidate) => Ok(Next::Done(Box::new(candidate))),
            Err(problems) => self.recover(answer, problems).map(|()| Next::Again),
        }
    }

    /// The context requests of an answer that failed its checks, if it is otherwise readable.
    fn context_requests_of(&self, answer: &str) -> Vec<protocol::ContextRequest> {
        let options = ParseOptions {
            protocol: Some(self.version),
            mode: Mode::Plan,
            ..ParseOptions::default()
        };
        protocol::parse_answer(answer.as_bytes(), &options)
            .map(|p| p.plan.context_requests)
            .unwrap_or_default()
    }

    fn context_round(
        &mut self,
        answer: &str,
        requests: &[protocol::ContextRequest],
    ) -> Result<(), Problems> {
        if self.stats.context_rounds >= MAX_CONTEXT_ROUNDS {
            return Err(vec![Problem::new(
                Code::LlmContextRounds,
                format!(
                    "{} still asked for context after {MAX_CONTEXT_ROUNDS} rounds without proposing a change; name the files in the goal or pass --log",
                    self.ep.name
                ),
            )]);
        }
        self.stats.context_rounds += 1;
        let files: Vec<&str> = requests
            .iter()
            .filter_map(|r| match r {
                protocol::ContextRequest::ReadFile { path, .. } => Some(path.as_str()),
                _ => None,
            })
            .collect();
        self.again(format!(
            "the model asked for {}; sending them (context round {}/{MAX_CONTEXT_ROUNDS})",
            match files.as_slice() {
                [] => "more context".to_string(),
                [one] => (*one).to_string(),
                [first, rest @ ..] => format!("{first} and {} more", rest.len()),
            },
            self.stats.context_rounds
        ));
        let snap = self.store.snapshot(self.question.base)?;
        let fulfilled = context::fulfil(&snap, requests, &self.question.logs, &mut self.cache);
        for line in fulfilled.events {
            self.event(LoopEvent::Context { line });
        }
        let used: usize = self.blocks.iter().map(|b| b.body.len()).sum();
        let mut budget = self.settings.budget.clone();
        budget.max_total_chars = budget.max_total_chars.saturating_sub(used);
        let (fresh, report) = context::diet(fulfilled.blocks, &budget);
        if report.applied() {
            self.event(LoopEvent::Context {
                line: report.event_line(),
            });
        }
        let withheld: Vec<String> = fulfilled
            .withheld
            .into_iter()
            .map(|(path, why)| format!("{path}: {why}"))
            .collect();
        let rendered = context::render(&fresh, self.version);
        self.transcript.context_added.push(ContextRound::of(
            self.transcript.requests.len(),
            requests,
            &fresh,
            &withheld,
        ));
        self.blocks.extend(fresh);
        let left = MAX_CONTEXT_ROUNDS - self.stats.context_rounds;
        self.push_turn(answer, prompt::context_round(&rendered, &withheld, left));
        Ok(())
    }

    /// A rejected answer: one repair round, then (under v2, for the codes the seeds name) one
    /// fallback to v1, then failure.
    fn recover(&mut self, answer: &str, problems: Vec<Problem>) -> Result<(), Problems> {
        for p in &problems {
            self.transcript
                .validation_failures
                .push(FailureLog::of(p, u8::from(self.version)));
            self.event(LoopEvent::ValidationFailed {
                provider: self.ep.name.clone(),
                code: p.code.to_string(),
                reason: one_token(&p.text()),
            });
        }
        let codes: Vec<&str> = problems.iter().map(|p| p.code.as_str()).collect();
        let step = match self.repaired {
            true => "repaired".to_string(),
            false => format!("v{}", u8::from(self.version)),
        };
        self.path.push(format!("{step}: {}", codes.join("+")));
        if self.first_cause.is_empty() {
            self.first_cause = problems.clone();
        }
        let has = |code: Code| problems.iter().any(|p| p.code == code);
        let can_fall_back =
            self.version == ProtocolVersion::V2 && self.settings.fallback_to_v1 && !self.fell_back;
        if can_fall_back && has(Code::NonUtf8File) {
            return self.fall_back(Code::NonUtf8File);
        }
        if !self.repaired {
            self.repaired = true;
            self.stats.repairs += 1;
            self.transcript.protocol_repair_attempt += 1;
            self.event(LoopEvent::LlmResponseRepair {
                provider: self.ep.name.clone(),
                problems: problems.len(),
            });
            self.again(format!(
                "answer rejected ({}); asking again (repair 1/1)",
                short_reason(&problems)
            ));
            self.push_turn(answer, prompt::repair(&problems));
            return Ok(());
        }
        if can_fall_back {
            let trigger = [
                Code::PatchApplyFailed,
                Code::BaseMismatch,
                Code::V2UpdateExistingForbidden,
            ]
            .into_iter()
            .find(|c| has(*c));
            if let Some(code) = trigger {
                return self.fall_back(code);
            }
        }
        Err(problems)
    }

    /// Starts over under protocol v1 with everything shown so far (a new prefix, by necessity).
    fn fall_back(&mut self, reason: Code) -> Result<(), Problems> {
        let stage = match reason {
            Code::V2UpdateExistingForbidden => "validate",
            _ => "preview",
        };
        self.transcript.protocol_fallback_attempted = true;
        self.transcript.protocol_fallback_reason = Some(reason.to_string());
        self.transcript.protocol_fallback_stage = Some(stage.to_string());
        self.event(LoopEvent::ProtocolFallback {
            reason: reason.to_string(),
            provider: self.ep.name.clone(),
        });
        self.again(format!(
            "the answer does not apply as protocol v2 ({reason}); asking again under v1"
        ));
        self.fell_back = true;
        self.repaired = false;
        self.stats.fallback = Some(reason.as_str().to_string());
        self.version = ProtocolVersion::V1;
        self.start(&[], Some(prompt::fallback(reason.as_str())));
        Ok(())
    }

    /// Appends the model's answer and our reply, keeping every earlier byte as it was.
    fn push_turn(&mut self, answer: &str, reply: String) {
        self.messages.push(Message {
            role: Role::Assistant,
            content: answer.to_string(),
            cache_mark: false,
        });
        self.messages.push(Message {
            role: Role::User,
            content: reply,
            cache_mark: false,
        });
    }

    fn provenance(&self) -> Provenance {
        Provenance {
            goal: self.question.goal.clone(),
            provider: self.ep.name.clone(),
            model: Some(
                self.served_model
                    .clone()
                    .unwrap_or_else(|| self.ep.model.clone()),
            ),
            trace_id: uuid::Uuid::new_v4().to_string(),
            created_at: self.question.now,
            schema_hash: Some(protocol::schema_hash(
                self.version,
                self.ep.strict && self.schema_sent,
            )),
            stats: Some(self.stats.clone()),
            group: None,
            sample: self.sample,
            conversation: None,
            kind: None,
            repro: None,
        }
    }
}

/// One request's tries held to the cost cap: each try's estimate is reserved before it is sent
/// (a retry that could pass the cap is refused with `ERR_COST_CAP`), and replaced by what its
/// reported usage cost once it is over; the tries' tokens and cost add up here.
struct Metered<'a> {
    spending: &'a crate::cost::Spending,
    provider: &'a str,
    held: Option<crate::cost::Reservation>,
    usage: llm::Usage,
    /// `None` while the provider has no price.
    cost: Option<f64>,
}

impl<'a> Metered<'a> {
    fn new(spending: &'a crate::cost::Spending, provider: &'a str) -> Self {
        Metered {
            spending,
            provider,
            held: None,
            usage: llm::Usage::default(),
            cost: None,
        }
    }
}

impl llm::Meter for Metered<'_> {
    fn before_try(&mut self, input_chars: usize, max_tokens: u32) -> Result<(), Problem> {
        self.held = Some(
            self.spending
                .reserve(self.provider, input_chars, max_tokens)?,
        );
        Ok(())
    }

    fn after_try(&mut self, u: llm::Usage) {
        // A try that reported nothing is not known to have cost anything.
        let reported = u != llm::Usage::default();
        let cost = reported
            .then(|| {
                self.spending
                    .cost(self.provider, u.input, u.output, u.cached)
            })
            .flatten();
        if let Some(held) = self.held.take() {
            held.settle(cost.unwrap_or(0.0));
        }
        if let Some(cost) = cost {
            self.cost = Some(self.cost.unwrap_or(0.0) + cost);
        }
        self.usage.input += u.input;
        self.usage.output += u.output;
        self.usage.cached += u.cached;
        self.usage.cache_write += u.cache_write;
    }
}

/// `p` without the hint lines of its detail that name one of `tried`.
fn without_hints_naming(mut p: Problem, tried: &[String]) -> Problem {
    if let Some(detail) = p.detail.take() {
        let kept: Vec<&str> = detail
            .lines()
            .filter(|l| !(l.starts_with("hint:") && tried.iter().any(|t| l.contains(t.as_str()))))
            .collect();
        p = p.with_detail(kept.join("\n"));
    }
    p
}

/// A reason as an event line's value: at most 120 characters, secrets masked, quoted when it
/// is more than one word.
fn one_token(text: &str) -> String {
    let short: String = text.chars().take(120).collect();
    crate::context::event_value(&crate::context::mask_secrets(&short))
}

/// The environment as a map (read once by the caller, passed down).
pub fn env_map() -> BTreeMap<String, String> {
    std::env::vars().collect()
}

/// The first problem's reason, cut to one short line, for a spinner.
fn short_reason(problems: &[Problem]) -> String {
    let Some(first) = problems.first() else {
        return "no reason given".to_string();
    };
    let line = first.reason.lines().next().unwrap_or_default();
    let mut shown: String = line.chars().take(80).collect();
    if shown.len() < line.len() {
        shown.push('…');
    }
    match problems.len() {
        1 => shown,
        n => format!("{shown}; {} more", n - 1),
    }
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
