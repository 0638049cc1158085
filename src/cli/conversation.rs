//! `git papayu show --conversation`: the reasoning behind a plan, read from the notes, so a
//! teammate who synced sees what the author's model was shown and said.

use git_papayu::ask::{ContextRound, FailureLog};
use git_papayu::store::records::PlanRecord;
use git_papayu::trace::ContextStats;
use git_papayu::trace::conversation::{Answer, Conversation};

use super::text;

/// The conversation as a reader goes through it: goal, what the model was shown and why, each
/// request with its answer, the repairs and fallbacks, and what it cost.
pub fn render(record: &PlanRecord, c: &Conversation) -> String {
    let t = &c.trace;
    let tr = &t.transcript;
    let mut out = format!("plan {}  trace {}\n", record.short_id(), t.trace_id);
    out.push_str(&format!("Goal: {}\n", text::line(&record.goal)));
    let model = record.model.as_deref().unwrap_or("");
    out.push_str(&format!(
        "Asked: {} {}\n",
        text::line(&record.provider),
        text::line(model)
    ));
    if c.summarized {
        out.push_str(
            "(summarized: the whole conversation was over 256 KB; each round is cut short)\n",
        );
    }
    out.push_str("\nContext:\n");
    match &t.context_stats {
        Some(stats) if !stats.blocks.is_empty() => out.push_str(&context_sent(stats)),
        _ => out.push_str(&context_read(record)),
    }
    out.push_str(&rounds(c));
    out.push_str(&rejected(&tr.validation_failures));
    out.push_str(&format!("\nRepairs: {}\n", tr.protocol_repair_attempt));
    if let Some(reason) = &tr.protocol_fallback_reason {
        out.push_str(&format!(
            "Fallback to v1: {} (found at {})\n",
            text::line(reason),
            tr.protocol_fallback_stage.as_deref().unwrap_or("?")
        ));
    }
    out.push_str(&cost(record, c));
    out
}

/// The blocks the model was shown, each with why, and what was withheld.
fn context_sent(stats: &ContextStats) -> String {
    let mut out = String::new();
    for b in &stats.blocks {
        let cut = if b.truncated { ", cut" } else { "" };
        let why = match b.source.is_empty() {
            true => String::new(),
            false => format!(" — {}", text::line(&b.source)),
        };
        out.push_str(&format!(
            "  {:<6} {}{why} ({} chars{cut})\n",
            b.kind,
            text::line(&b.title),
            b.chars
        ));
    }
    for w in &stats.withheld {
        out.push_str(&format!("  withheld {}\n", text::line(w)));
    }
    out
}

/// Without the trace's context: the files the plan says it read.
fn context_read(record: &PlanRecord) -> String {
    let mut out = String::new();
    for f in &record.context {
        out.push_str(&format!(
            "  file   {} — read by the plan\n",
            text::line(&f.path)
        ));
    }
    if record.context.is_empty() {
        out.push_str("  (none recorded: the answer was pasted)\n");
    }
    out
}

/// Each request with its answer and the context added after it.
fn rounds(c: &Conversation) -> String {
    let tr = &c.trace.transcript;
    let mut out = String::new();
    let rounds = tr.requests.len().max(c.answers.len());
    for i in 0..rounds {
        out.push_str(&format!("\nRound {}:\n", i + 1));
        if let Some(r) = tr.requests.get(i) {
            out.push_str(&format!(
                "  request: protocol v{}, {} chars, {} ms, tokens in {} (cached {}) out {}: {}\n",
                r.protocol,
                r.input_chars,
                r.latency_ms,
                r.input_tokens,
                r.cached_tokens,
                r.output_tokens,
                text::line(&r.outcome)
            ));
        }
        if let Some(a) = c.answers.get(i) {
            out.push_str(&answer(a));
        }
        for round in tr.context_added.iter().filter(|r| r.after_request == i + 1) {
            out.push_str(&added(round));
        }
    }
    out
}

/// The answers the protocol rejected, and why.
fn rejected(failures: &[FailureLog]) -> String {
    if failures.is_empty() {
        return String::new();
    }
    let mut out = String::from("\nRejected answers:\n");
    for f in failures {
        out.push_str(&format!(
            "  v{} {}: {}\n",
            f.protocol,
            f.code,
            text::line(&f.reason)
        ));
    }
    out
}

/// An answer read out (see [`super::answer`]); as it was written when it holds no JSON, or was
/// cut short (the JSON would not read).
fn answer(a: &Answer) -> String {
    let mut out = String::from("  answer:\n");
    match super::answer::readable(&a.text, "    ").filter(|_| !a.cut) {
        Some(readable) => out.push_str(&readable),
        None => {
            for l in text::block(&a.text).lines() {
                out.push_str(&format!("    {l}\n"));
            }
        }
    }
    if a.cut {
        out.push_str(&format!("    … ({} characters in all)\n", a.chars));
    }
    out
}

/// What a context round added after an answer: what it asked for, what was sent back.
fn added(round: &ContextRound) -> String {
    let mut out = String::from("  context added:\n");
    for asked in &round.asked {
        out.push_str(&format!("    asked  {}\n", text::line(asked)));
    }
    for g in &round.given {
        let lines: Vec<String> = g.ranges.iter().map(|(a, b)| format!("{a}-{b}")).collect();
        let lines = match lines.is_empty() {
            true => String::new(),
            false => format!("lines {}, ", lines.join(", ")),
        };
        let cut = if g.truncated { ", cut" } else { "" };
        out.push_str(&format!(
            "    given  {:<6} {} ({lines}{} chars{cut})\n",
            g.kind,
            text::line(&g.title),
            g.chars
        ));
    }
    for w in &round.withheld {
        out.push_str(&format!("    withheld {}\n", text::line(w)));
    }
    if round.given.is_empty() && round.withheld.is_empty() {
        out.push_str("    given  nothing\n");
    }
    out
}

/// Tokens (and requests, time) over the whole conversation.
fn cost(record: &PlanRecord, c: &Conversation) -> String {
    let requests = &c.trace.transcript.requests;
    let (input, output, cached): (u64, u64, u64) = match &record.stats {
        Some(s) => (s.input_tokens, s.output_tokens, s.cached_tokens),
        None => requests.iter().fold((0, 0, 0), |(i, o, k), r| {
            (i + r.input_tokens, o + r.output_tokens, k + r.cached_tokens)
        }),
    };
    let latency: u64 = requests.iter().map(|r| r.latency_ms).sum();
    let spent = record
        .stats
        .as_ref()
        .and_then(|s| s.cost_usd)
        .map_or(String::new(), |usd| {
            format!(", {}", git_papayu::cost::usd(usd))
        });
    format!(
        "Tokens: {input} in ({cached} cached), {output} out, over {} in {latency} ms{spent}\n",
        super::render::count(requests.len(), "request")
    )
}
