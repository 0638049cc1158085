//! What a conversation with a model reports as it goes, as data: `Display` gives the stable
//! event line of `-v` and of traces (`LLM_REQUEST_SENT provider=… …`), `Serialize` the same
//! fields for a front end that wants them structured. Text that could break a line (a reason,
//! a problem) is made one token when the event is made, so every line stays one line.

use serde::Serialize;

/// One event of a plan session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "SCREAMING_SNAKE_CASE")]
pub enum LoopEvent {
    /// A request went to a provider.
    LlmRequestSent {
        provider: String,
        model: String,
        schema_version: u8,
        token_budget: u32,
        input_chars: usize,
    },
    /// The provider refused structured output; the request was sent again without it.
    LlmResponseFormatFallback { provider: String, reason: String },
    /// A request timed out.
    LlmRequestTimeout { provider: String },
    /// A try failed and is being retried after `wait_ms` (`status` 0: no HTTP answer).
    LlmRetry {
        provider: String,
        status: u16,
        attempt: u32,
        wait_ms: u64,
    },
    /// An answer arrived whole.
    LlmResponseOk {
        provider: String,
        input_tokens: u64,
        output_tokens: u64,
        cached_tokens: u64,
        latency_ms: u64,
    },
    /// The answer failed a check.
    ValidationFailed {
        provider: String,
        code: String,
        reason: String,
    },
    /// The model is asked once to repair its answer.
    LlmResponseRepair { provider: String, problems: usize },
    /// The conversation starts over under protocol v1.
    ProtocolFallback { reason: String, provider: String },
    /// A plan was stored and its preview is ready.
    PreviewReady { plan: String, changes: usize },
    /// A line of the context layer (cache hits and misses, the diet), as it wrote it.
    Context { line: String },
}

impl std::fmt::Display for LoopEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoopEvent::LlmRequestSent {
                provider,
                model,
                schema_version,
                token_budget,
                input_chars,
            } => write!(
                f,
                "LLM_REQUEST_SENT provider={provider} model={model} schema_version={schema_version} token_budget={token_budget} input_chars={input_chars}"
            ),
            LoopEvent::LlmResponseFormatFallback { provider, reason } => write!(
                f,
                "LLM_RESPONSE_FORMAT_FALLBACK provider={provider} reason={reason}"
            ),
            LoopEvent::LlmRequestTimeout { provider } => {
                write!(f, "LLM_REQUEST_TIMEOUT provider={provider}")
            }
            LoopEvent::LlmRetry {
                provider,
                status,
                attempt,
                wait_ms,
            } => write!(
                f,
                "LLM_RETRY provider={provider} status={status} attempt={attempt} wait_ms={wait_ms}"
            ),
            LoopEvent::LlmResponseOk {
                provider,
                input_tokens,
                output_tokens,
                cached_tokens,
                latency_ms,
            } => write!(
                f,
                "LLM_RESPONSE_OK provider={provider} input_tokens={input_tokens} output_tokens={output_tokens} cached_tokens={cached_tokens} latency_ms={latency_ms}"
            ),
            LoopEvent::ValidationFailed {
                provider,
                code,
                reason,
            } => write!(
                f,
                "VALIDATION_FAILED provider={provider} code={code} reason={reason}"
            ),
            LoopEvent::LlmResponseRepair { provider, problems } => write!(
                f,
                "LLM_RESPONSE_REPAIR provider={provider} problems={problems}"
            ),
            LoopEvent::ProtocolFallback { reason, provider } => write!(
                f,
                "PROTOCOL_FALLBACK from=v2 to=v1 reason={reason} provider={provider}"
            ),
            LoopEvent::PreviewReady { plan, changes } => {
                write!(f, "PREVIEW_READY plan={plan} changes={changes}")
            }
            LoopEvent::Context { line } => f.write_str(line),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_is_one_line_for_people_and_fields_for_programs() {
        let e = LoopEvent::LlmRetry {
            provider: "local".to_string(),
            status: 503,
            attempt: 1,
            wait_ms: 250,
        };
        assert_eq!(
            e.to_string(),
            "LLM_RETRY provider=local status=503 attempt=1 wait_ms=250"
        );
        assert_eq!(
            serde_json::to_value(&e).expect("serializes"),
            serde_json::json!({
                "event": "LLM_RETRY",
                "provider": "local",
                "status": 503,
                "attempt": 1,
                "wait_ms": 250
            })
        );
    }
}
