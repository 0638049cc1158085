//! One provider's conversation: the prompt, the answer checked, one repair, context rounds,
//! the fallback from v2 to v1, and what it cost, as the plan loop runs it.

use crate::codes::{Code, Problem, Problems};
use crate::context::{self, Block};
use crate::engine::plan::{self, Candidate, CheckOptions, Provenance, Seen};
use crate::llm::{self, Endpoint, Finish, Message, Request, Role, Schema};
use crate::protocol::{self, Mode, ParseOptions, ProtocolVersion};
use crate::store::Store;
use crate::store::records::PlanStats;

use super::{
    ContextRound, FailureLog, LONG_INPUT_CHARS, LoopEvent, MAX_CONTEXT_ROUNDS, MAX_TOKENS,
    MAX_TOKENS_LONG_INPUT, Prepared, Progress, Question, RequestLog, Settings, Transcript, prompt,
};

/// One provider's conversation, with everything it has been shown.
pub(super) struct Conversation<'a> {
    pub(super) store: &'a Store,
    pub(super) settings: &'a Settings,
    pub(super) question: &'a Question,
    pub(super) ep: &'a Endpoint,
    pub(super) sink: &'a (dyn Fn(Progress) + Sync),
    pub(super) version: ProtocolVersion,
    /// Every block sent so far (initial context and context rounds).
    pub(super) blocks: Vec<Block>,
    pub(super) messages: Vec<Message>,
    pub(super) cache: context::Cache,
    pub(super) stats: PlanStats,
    pub(super) repaired: bool,
    pub(super) fell_back: bool,
    pub(super) schema_sent: bool,
    pub(super) served_model: Option<String>,
    pub(super) transcript: Transcript,
    /// Each rejected answer as `v2: ERR_…`, `repaired: ERR_…`, in order.
    pub(super) path: Vec<String>,
    /// The problems of the first rejected answer: the root cause when later ones fail too.
    pub(super) first_cause: Vec<Problem>,
    /// Which of `--samples` answers this conversation gives (1 keeps the seeds' parameters).
    pub(super) sample: Option<u32>,
}

/// What to do with an answer.
enum Next {
    Done(Box<Candidate>),
    Again,
}

impl<'a> Conversation<'a> {
    pub(super) fn new(
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

    pub(super) async fn run(
        &mut self,
        http: &reqwest::Client,
    ) -> Result<(Candidate, Provenance), Problems> {
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
        let mut events = CallEvents {
            provider: self.ep.name.clone(),
            sink: self.sink,
            announce: Some(LoopEvent::LlmRequestSent {
                provider: self.ep.name.clone(),
                model: self.ep.model.clone(),
                schema_version: u8::from(self.version),
                token_budget: request.max_tokens,
                input_chars,
            }),
            lines: Vec::new(),
        };
        // Each try is refused before it is sent when it could pass the cost cap, and what each
        // reported using is counted.
        let mut meter = Metered::new(&self.settings.spending, &self.ep.name);
        let mut on_event = |e: llm::CallEvent| events.on(e);
        let result = llm::complete(http, self.ep, &request, &mut meter, &mut on_event).await;
        self.transcript.events.append(&mut events.lines);
        let Metered { cost, usage, .. } = meter;
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
        self.count_spent(cost, &usage);
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
        self.record_reply(log, &reply);
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

    /// Adds a request's cost and tokens to the stats. Every try's tokens are counted, an
    /// answered one's or not, as its cost is.
    fn count_spent(&mut self, cost: Option<f64>, usage: &llm::Usage) {
        if let Some(cost) = cost {
            self.stats.cost_usd = Some(self.stats.cost_usd.unwrap_or(0.0) + cost);
        }
        self.stats.input_tokens += usage.input;
        self.stats.output_tokens += usage.output;
        self.stats.cached_tokens += usage.cached;
        self.stats.cache_write_tokens += usage.cache_write;
    }

    /// Keeps an answered request: its `log`, the answer, and what the provider said it served.
    fn record_reply(&mut self, mut log: RequestLog, reply: &llm::Reply) {
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

/// What one request's tries tell as they go: progress for the user, events for the trace.
struct CallEvents<'a> {
    provider: String,
    sink: &'a (dyn Fn(Progress) + Sync),
    /// The request's announcement, said when its first try goes out.
    announce: Option<LoopEvent>,
    /// The trace's event lines.
    lines: Vec<String>,
}

impl CallEvents<'_> {
    fn on(&mut self, e: llm::CallEvent) {
        let provider = self.provider.clone();
        let event = match e {
            llm::CallEvent::Received { chars, tokens } => {
                (self.sink)(Progress::Received {
                    provider,
                    chars,
                    tokens,
                });
                return;
            }
            llm::CallEvent::FormatFallback { reason } => LoopEvent::LlmResponseFormatFallback {
                provider,
                reason: one_token(&reason),
            },
            llm::CallEvent::Timeout => LoopEvent::LlmRequestTimeout { provider },
            llm::CallEvent::Retry {
                status,
                wait,
                attempt,
            } => {
                (self.sink)(Progress::Retrying {
                    provider: provider.clone(),
                    status,
                    next: attempt + 1,
                    of: llm::MAX_TRIES,
                    wait,
                });
                LoopEvent::LlmRetry {
                    provider,
                    status,
                    attempt,
                    wait_ms: wait.as_millis() as u64,
                }
            }
            llm::CallEvent::Sent { .. } => {
                if let Some(sent) = self.announce.take() {
                    self.lines.push(sent.to_string());
                    (self.sink)(Progress::Event(sent));
                }
                (self.sink)(Progress::Sent { provider });
                return;
            }
        };
        self.lines.push(event.to_string());
        (self.sink)(Progress::Event(event));
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
