//! A plan's conversation, shared: the reasoning behind a plan, travelling with it.
//!
//! A trace file stays on the machine that made it. A plan's *conversation* — its trace, masked
//! as traces are, plus the model's answers — is stored in the notes as a self-note (see
//! [`crate::store::notes::self_note`]) and named by the plan's record, whose id is the hash of
//! its content. So the conversation is fetched with the notes, kept as long as they are, and no
//! one can swap another conversation under a plan without changing the plan's id.
//!
//! It is capped: when the whole would exceed [`CAP`] bytes, each round is kept as a summary
//! (its request's numbers and the start of its answer) instead of in full.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Trace, mask};
use crate::codes::{Code, Problem};
use crate::store::Store;
use crate::store::records::PlanRecord;

/// The most a conversation takes in the notes: past this, rounds are summarized.
pub const CAP: usize = 256 * 1024;
/// The most of one answer kept when nothing needs summarizing.
pub const ANSWER_CAP: usize = 16 * 1024;
/// The most of one answer kept in a summarized round.
pub const SUMMARY_ANSWER_CAP: usize = 1024;
/// What the self-note's one line starts with, so no reader of plan lines takes it for one.
pub const PREFIX: &str = "papayu-conversation ";

/// The shared form of a plan's trace.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Conversation {
    pub version: u32,
    /// The trace of the command that made the plan, masked; without the validated plan (the
    /// record holds it) and without raw answers (they are below, capped).
    pub trace: Trace,
    /// The model's answers in order.
    pub answers: Vec<Answer>,
    /// The rounds were summarized to stay under [`CAP`].
    pub summarized: bool,
}

/// One answer of the model.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Answer {
    pub text: String,
    /// Characters of the whole answer.
    pub chars: usize,
    /// `text` is only the start of it.
    pub cut: bool,
}

impl Answer {
    fn of(text: &str, cap: usize) -> Answer {
        let chars = text.chars().count();
        match text.len() <= cap {
            true => Answer {
                text: text.to_string(),
                chars,
                cut: false,
            },
            false => {
                let end = (0..=cap)
                    .rev()
                    .find(|i| text.is_char_boundary(*i))
                    .unwrap_or(0);
                Answer {
                    text: text[..end].to_string(),
                    chars,
                    cut: true,
                }
            }
        }
    }
}

/// The self-note text of `trace`'s conversation, with `answers` (the model's, in order), masked
/// with `env`'s secret values and every credential pattern, at most [`CAP`] bytes.
pub fn encode(trace: &Trace, answers: &[String], env: &BTreeMap<String, String>) -> String {
    let mut shared = trace.clone();
    shared.validated_json = None;
    shared.raw_answers = Vec::new();
    let answers: Vec<String> = answers.iter().map(|a| mask(a, env)).collect();
    let mut c = Conversation {
        version: 1,
        trace: shared,
        answers: answers.iter().map(|a| Answer::of(a, ANSWER_CAP)).collect(),
        summarized: false,
    };
    let fits = |c: &Conversation| line(c, env).len() <= CAP;
    if fits(&c) {
        return line(&c, env);
    }
    c.summarized = true;
    c.answers = answers
        .iter()
        .map(|a| Answer::of(a, SUMMARY_ANSWER_CAP))
        .collect();
    c.trace.patch_placements = None;
    if fits(&c) {
        return line(&c, env);
    }
    // Still too large (thousands of rounds or events): the numbers of each round only.
    for a in &mut c.answers {
        a.text.clear();
        a.cut = true;
    }
    let t = &mut c.trace;
    t.transcript.events.truncate(200);
    t.transcript.validation_failures.truncate(200);
    t.transcript.sent.truncate(500);
    if let Some(stats) = &mut t.context_stats {
        stats.blocks.truncate(500);
    }
    line(&c, env)
}

/// [`encode`] of a trace with the answers its conversation kept in memory, masked with the
/// secrets of this process's environment.
pub fn of_trace(trace: &Trace) -> String {
    encode(trace, &trace.transcript.answers, &crate::ask::env_map())
}

fn line(c: &Conversation, env: &BTreeMap<String, String>) -> String {
    #[expect(
        clippy::expect_used,
        reason = "serializing a derived type with string keys cannot fail"
    )]
    let json = serde_json::to_string(c).expect("a conversation serializes");
    format!("{PREFIX}{}", mask(&json, env))
}

/// Reads a self-note's text back; `None` when it is not a conversation this version reads.
pub fn decode(text: &str) -> Option<Conversation> {
    let json = text.trim_end().strip_prefix(PREFIX)?;
    serde_json::from_str(json).ok()
}

/// The conversation of `record`, from the local notes. A plan stored without one, or whose
/// conversation is not here (its notes were not fetched), is `ERR_TRACE_NOT_FOUND` with what to
/// do.
pub fn load(store: &Store, record: &PlanRecord) -> Result<Conversation, Problem> {
    let short = record.short_id();
    let Some(oid) = record.conversation else {
        return Err(Problem::new(
            Code::TraceNotFound,
            format!(
                "plan {short} was stored without its conversation (made before conversations were kept); \
                 its trace may still be here: git papayu trace show {}",
                record.trace_id
            ),
        ));
    };
    let missing = || {
        Problem::new(
            Code::TraceNotFound,
            format!(
                "the conversation of plan {short} ({oid}) is not in this clone's notes; \
                 fetch them with git papayu sync"
            ),
        )
    };
    let text = store
        .self_note(oid)
        .map_err(|e| e.to_problem())?
        .ok_or_else(missing)?;
    let mut c = decode(&text).ok_or_else(|| {
        Problem::new(
            Code::TraceNotFound,
            format!("the conversation of plan {short} is in a format this papayu does not read; upgrade papayu"),
        )
    })?;
    // What the record holds was left out of the shared trace: put it back, so the trace reads
    // (and replays) as the one on the machine that made the plan.
    let t = &mut c.trace;
    t.plan_id.get_or_insert_with(|| record.id.clone());
    t.base.get_or_insert_with(|| record.base.to_string());
    t.goal.get_or_insert_with(|| record.goal.clone());
    t.schema_version.get_or_insert(record.schema_version);
    t.schema_hash
        .get_or_insert_with(|| record.schema_hash.clone());
    if t.validated_json.is_none() {
        t.validated_json = serde_json::to_value(&record.plan).ok();
    }
    Ok(c)
}

/// The conversation whose trace id is `id` or starts with it (6 characters at least), among
/// the plans in the notes: how `trace show` finds a teammate's trace.
pub fn find_by_trace(store: &Store, id: &str) -> Result<Option<Conversation>, Problem> {
    if id.len() < 6 {
        return Ok(None);
    }
    let ledger = store.ledger().map_err(|e| e.to_problem())?;
    let found: Vec<&PlanRecord> = ledger
        .records
        .iter()
        .filter(|r| r.trace_id.starts_with(id) && r.conversation.is_some())
        .collect();
    match found.as_slice() {
        [] => Ok(None),
        [one] => load(store, one).map(Some),
        many if many.iter().all(|r| r.trace_id == many[0].trace_id) => {
            load(store, many[0]).map(Some)
        }
        many => Err(Problem::new(
            Code::TraceNotFound,
            format!(
                "{id} names {} plans' traces; give more of the id",
                many.len()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace_with(requests: usize) -> Trace {
        let mut t = Trace::new("plan", Some("t-1".to_string()), 0);
        t.goal = Some("fix the parser".to_string());
        for _ in 0..requests {
            t.transcript.requests.push(Default::default());
            t.transcript
                .events
                .push("LLM_REQUEST_SENT provider=p".to_string());
        }
        t
    }

    #[test]
    fn a_conversation_reads_back_masked_and_on_one_line() {
        let env = BTreeMap::new();
        let answer = r#"{"actions":[],"summary":"key sk-proj-abcdefghijklmnopqrstuvwx"}"#;
        let text = encode(&trace_with(1), &[answer.to_string()], &env);
        assert!(text.starts_with(PREFIX) && !text.contains('\n'));
        assert!(!text.contains("sk-proj-abcdefghijklmnopqrstuvwx"), "{text}");
        let back = decode(&text).expect("decodes");
        assert_eq!(back.trace.goal.as_deref(), Some("fix the parser"));
        assert_eq!(back.answers.len(), 1);
        assert!(!back.summarized);
    }

    #[test]
    fn a_large_conversation_is_summarized_per_round_under_the_cap() {
        let env = BTreeMap::new();
        // Each answer fits its own cap, but thirty of them do not fit the whole's.
        let big = "x".repeat(20 * 1024);
        let answers = vec![big.clone(); 30];
        let text = encode(&trace_with(30), &answers, &env);
        assert!(text.len() <= CAP, "{} bytes", text.len());
        let back = decode(&text).unwrap();
        assert!(back.summarized);
        assert_eq!(back.answers.len(), 30);
        for a in &back.answers {
            assert!(a.cut && a.chars == big.len() && a.text.len() <= SUMMARY_ANSWER_CAP);
        }
        assert_eq!(
            back.trace.transcript.requests.len(),
            30,
            "every round's numbers stay"
        );
    }

    #[test]
    fn answers_are_cut_on_a_character_boundary() {
        let a = Answer::of(&"é".repeat(10), 5);
        assert_eq!(a.text, "éé");
        assert!(a.cut && a.chars == 10);
    }
}
