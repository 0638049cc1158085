//! Reading one answer off the wire: a stream (SSE or NDJSON) or a whole JSON body, within a
//! size cap, and deciding whether what arrived is an answer at all.
//!
//! Two rules keep an answer honest. A stream is complete only when its API's end marker came
//! (`finish_reason` or `[DONE]` for Chat Completions, `response.completed` and its siblings for
//! Responses, `message_stop` for Anthropic, `"done": true` for Ollama): a stream that just
//! closes is a dropped connection, whatever its text looks like, because a model may be about
//! to withdraw a draft. And no answer is read past [`Caps`]: a server that ignores the token
//! budget must not fill memory, nor be sent back inside a repair request.
//!
//! Nothing here retries: it reports a [`Cut`] and the caller decides.

use futures_util::StreamExt;

use super::{CallEvent, Endpoint, Wire, wire};

/// Four bytes a token is more than any tokenizer produces for text or code.
const BYTES_PER_TOKEN: usize = 4;
const MARGIN: usize = 64 * 1024;
/// No answer is longer than this, whatever the budget.
const MAX_ANSWER: usize = 4 * 1024 * 1024;
/// An empty stream (or one cut before any text) after a prompt estimated above this many
/// tokens is a prompt the server could not take (llama.cpp streams nothing and closes), not a
/// dropped connection: the smallest window a local server starts with unless told (Ollama's
/// default is 2,048 to 4,096 tokens, llama.cpp's whatever `--ctx-size` says). Below it, the
/// prompt fits every default window and an empty stream is retried as a drop.
pub const LARGE_PROMPT_TOKENS: u64 = 2_048;

/// How much of an answer is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// Characters of answer text.
    pub text: usize,
    /// Bytes of one body or one stream line: text escaped as JSON (a `\uXXXX` for every
    /// non-ASCII character at worst doubles it) with its envelope.
    pub body: usize,
}

impl Caps {
    pub fn for_budget(max_tokens: u32) -> Caps {
        let text = (max_tokens as usize)
            .saturating_mul(BYTES_PER_TOKEN)
            .saturating_add(MARGIN)
            .min(MAX_ANSWER);
        Caps {
            text,
            body: text * 2 + MARGIN,
        }
    }
}

/// Why reading stopped without an answer.
#[derive(Debug)]
pub enum Cut {
    /// No byte arrived within the read timeout.
    Timeout,
    /// The connection failed while reading.
    Broken(reqwest::Error),
    /// More than the cap arrived.
    TooLarge { limit: usize },
}

/// Reads a body of at most `cap` bytes; past it, stops with [`Cut::TooLarge`] or, when
/// `truncate` (error bodies, whose start is all that is shown), returns the start.
pub async fn body(
    ep: &Endpoint,
    response: reqwest::Response,
    cap: usize,
    truncate: bool,
) -> Result<Vec<u8>, Cut> {
    let mut stream = response.bytes_stream();
    let mut body = Vec::new();
    loop {
        let bytes = match tokio::time::timeout(ep.read_timeout, stream.next()).await {
            Err(_) => return Err(Cut::Timeout),
            Ok(None) => return Ok(body),
            Ok(Some(Err(e))) => return Err(Cut::Broken(e)),
            Ok(Some(Ok(bytes))) => bytes,
        };
        body.extend_from_slice(&bytes);
        if body.len() > cap {
            if truncate {
                body.truncate(cap);
                return Ok(body);
            }
            return Err(Cut::TooLarge { limit: cap });
        }
    }
}

/// Reads a stream line by line into `acc`, reporting text as it arrives. What was read before a
/// [`Cut`] stays in `acc` (its usage, above all).
pub async fn stream(
    ep: &Endpoint,
    response: reqwest::Response,
    caps: Caps,
    on_event: &mut (dyn FnMut(CallEvent) + Send),
    acc: &mut wire::Acc,
) -> Result<(), Cut> {
    let mut stream = response.bytes_stream();
    let mut buffer: Vec<u8> = Vec::new();
    loop {
        let chunk = match tokio::time::timeout(ep.read_timeout, stream.next()).await {
            Err(_) => {
                on_event(CallEvent::Timeout);
                return Err(Cut::Timeout);
            }
            Ok(None) => break,
            Ok(Some(Err(e))) => return Err(Cut::Broken(e)),
            Ok(Some(Ok(bytes))) => bytes,
        };
        buffer.extend_from_slice(&chunk);
        while let Some(end) = buffer.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = buffer.drain(..=end).collect();
            if feed_line(ep.wire, acc, &line) > 0 {
                on_event(CallEvent::Received {
                    chars: acc.text.len(),
                    tokens: acc.usage.output,
                });
            }
        }
        check_size(acc, &buffer, caps)?;
    }
    feed_line(ep.wire, acc, &buffer);
    check_size(acc, &[], caps)
}

/// Ollama's NDJSON stream served whole (some versions send it as `application/json`), read
/// into `acc`.
pub fn lines(wire: Wire, body: &[u8], caps: Caps, acc: &mut wire::Acc) -> Result<(), Cut> {
    for line in body.split(|&b| b == b'\n') {
        feed_line(wire, acc, line);
    }
    check_size(acc, &[], caps)
}

fn check_size(acc: &wire::Acc, pending: &[u8], caps: Caps) -> Result<(), Cut> {
    if acc.text.len() > caps.text {
        return Err(Cut::TooLarge { limit: caps.text });
    }
    if pending.len() > caps.body {
        return Err(Cut::TooLarge { limit: caps.body });
    }
    Ok(())
}

/// One line of a stream: SSE (`data: {...}`) or NDJSON. Returns the new text's length.
fn feed_line(wire: Wire, acc: &mut wire::Acc, line: &[u8]) -> usize {
    let line = String::from_utf8_lossy(line);
    let line = line.trim();
    let payload = if wire == Wire::Ollama {
        line
    } else {
        match line.strip_prefix("data:") {
            Some(data) => data.trim(),
            None => return 0,
        }
    };
    if payload == "[DONE]" {
        acc.done = true;
        return 0;
    }
    if payload.is_empty() {
        return 0;
    }
    match serde_json::from_str::<serde_json::Value>(payload) {
        Ok(event) => wire::feed(wire, acc, &event),
        Err(_) => 0,
    }
}

/// Whether a stream said it is complete (an error the server reported ends it too).
pub fn ended(acc: &wire::Acc) -> bool {
    acc.done || acc.error.is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_follow_the_budget_and_stop_at_a_few_megabytes() {
        let small = Caps::for_budget(1_000);
        assert_eq!(small.text, 4_000 + MARGIN);
        assert!(small.body > small.text * 2);
        assert_eq!(Caps::for_budget(u32::MAX).text, MAX_ANSWER);
    }

    #[test]
    fn every_wire_has_an_end_marker() {
        let ends: [(Wire, &str); 5] = [
            (Wire::OpenAiChat, "data: [DONE]"),
            (
                Wire::OpenAiChat,
                r#"data: {"choices":[{"delta":{},"finish_reason":"stop"}]}"#,
            ),
            (
                Wire::OpenAiResponses,
                r#"data: {"type":"response.completed","response":{"status":"completed"}}"#,
            ),
            (Wire::Anthropic, r#"data: {"type":"message_stop"}"#),
            (Wire::Ollama, r#"{"message":{"content":""},"done":true}"#),
        ];
        for (wire, line) in ends {
            let mut acc = wire::Acc::default();
            feed_line(wire, &mut acc, line.as_bytes());
            assert!(acc.done, "{wire:?}: {line}");
        }
        let mut acc = wire::Acc::default();
        feed_line(
            Wire::OpenAiChat,
            &mut acc,
            br#"data: {"choices":[{"delta":{"content":"{}"}}]}"#,
        );
        assert!(!acc.done && acc.text == "{}");
    }
}
