//! Talking to model providers: OpenAI Chat Completions and Responses, any OpenAI-compatible
//! server, Anthropic Messages and Ollama, behind one function, [`complete`].
//!
//! One call is one answer: it streams (reporting text as it arrives), retries what the
//! providers' own SDKs retry (408, 409, 429, 5xx, 529, dropped connections: three tries in all,
//! jittered exponential backoff honouring `Retry-After` up to 60 s), gives up at once on what
//! retrying cannot fix (400, 401, 403, an exhausted quota), and retries once without the
//! structured-output schema when a server says it does not support it. A cut answer is not an
//! error here: it comes back with [`Finish::Length`] and the caller decides. Every try, the
//! first and each retry, is held to the caller's [`Meter`] before it is sent and reports to it
//! what it used, so a cost cap sees every request a provider bills.
//!
//! Keys live only in [`Endpoint::api_key`] and the request headers: never in `Debug` output,
//! errors or events.

pub mod config;
mod error;
mod read;
mod status;
mod wire;

use status::{
    names_context_limit, names_format, names_sampling, parse_retry_after, server_message,
};

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::codes::Problem;
pub use error::LlmError;

/// Which API a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Wire {
    OpenAiChat,
    OpenAiResponses,
    Anthropic,
    Ollama,
}

/// One configured provider.
#[derive(Clone)]
pub struct Endpoint {
    /// The name shown to users and stored in plans (`openai`, `anthropic`, `ollama`, or the
    /// user's name for a server).
    pub name: String,
    pub wire: Wire,
    /// Without a trailing slash; OpenAI-style URLs include `/v1`.
    pub base_url: String,
    pub api_key: Option<String>,
    /// The environment variable the key is read from, set or not (`OPENAI_API_KEY`): what a
    /// refused key's error tells the user to set.
    pub key_var: Option<String>,
    pub model: String,
    /// Longest wait for the next bytes of an answer.
    pub read_timeout: Duration,
    /// Send the JSON schema as the provider's structured-output format.
    pub strict: bool,
    /// The default local Ollama, tried because nothing is configured.
    pub implicit: bool,
    /// First backoff step (doubled per retry, capped at 8 s).
    pub retry_base: Duration,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("name", &self.name)
            .field("wire", &self.wire)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<hidden>"))
            .field("key_var", &self.key_var)
            .field("model", &self.model)
            .field("read_timeout", &self.read_timeout)
            .field("strict", &self.strict)
            .field("implicit", &self.implicit)
            .finish()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub role: Role,
    pub content: String,
    /// The end of the byte-stable prefix: providers that take cache marks get one here.
    pub cache_mark: bool,
}

/// A JSON schema sent as structured output.
#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    pub name: String,
    pub value: serde_json::Value,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub system: String,
    pub messages: Vec<Message>,
    pub schema: Option<Schema>,
    pub max_tokens: u32,
    /// OpenAI `prompt_cache_key`: requests with one prefix share a cache.
    pub cache_key: Option<String>,
    /// `--samples`: the how-manieth extra answer this is (1, 2, …). `None` keeps the seeds'
    /// sampling parameters; a variation samples at [`VARIED_TEMPERATURE`] with its own seed,
    /// so that N answers of one model differ.
    pub variation: Option<u32>,
}

/// The temperature of the extra answers `--samples` asks for.
pub const VARIED_TEMPERATURE: f64 = 0.7;

/// Tokens of one request. `input` counts every prompt token, cached ones included.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    pub cached: u64,
    pub cache_write: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finish {
    Stop,
    /// Cut at the output token limit.
    Length,
    ContentFilter,
    Other(String),
}

#[derive(Debug, Clone)]
pub struct Reply {
    pub text: String,
    pub finish: Finish,
    pub usage: Usage,
    /// The model as the server names it.
    pub model: String,
    pub latency_ms: u64,
    pub tries: u32,
    /// Whether the answer was produced with the schema as structured output.
    pub schema_sent: bool,
}

/// What [`complete`] reports while it works.
#[derive(Debug, Clone)]
pub enum CallEvent {
    Sent {
        attempt: u32,
        input_chars: usize,
        schema: bool,
    },
    Retry {
        status: u16,
        wait: Duration,
        attempt: u32,
    },
    FormatFallback {
        reason: String,
    },
    Received {
        chars: usize,
        tokens: u64,
    },
    Timeout,
}

/// What every try of [`complete`] is held to. It is asked before each try is sent, and a refusal
/// ends the call ([`LlmError::Refused`]); after each try it is told the tokens the provider
/// reported for it, whether the try gave an answer or not — a stream dropped after its usage
/// came, or an error after it, is billed like an answer.
pub trait Meter: Send {
    /// Before a try of `input_chars` prompt characters and an answer budget of `max_tokens`.
    fn before_try(&mut self, input_chars: usize, max_tokens: u32) -> Result<(), Problem>;
    /// After a try, with what it reported using (zeros when it reported nothing).
    fn after_try(&mut self, usage: Usage);
}

/// Most tries of one request.
pub const MAX_TRIES: u32 = 3;
const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);
const MAX_BACKOFF: Duration = Duration::from_secs(8);

/// The HTTP client: rustls, a connect timeout, no total deadline (answers stream for minutes;
/// the per-read timeout is the endpoint's).
#[expect(
    clippy::expect_used,
    reason = "with static settings the builder fails only without a TLS provider, installed here"
)]
pub fn http_client() -> reqwest::Client {
    // The TLS crypto is ring's (see Cargo.toml); installing it twice is harmless, so a second
    // client simply finds it in place.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .user_agent(concat!("git-papayu/", env!("CARGO_PKG_VERSION")))
        .build()
        .expect("the HTTP client builds with static settings")
}

/// Why one try did not give an answer.
enum Try {
    /// Worth another try after `wait` (or the backoff when `None`).
    Again {
        status: u16,
        wait: Option<Duration>,
        error: LlmError,
    },
    /// The server rejected the structured-output format.
    Format(String),
    /// The model refuses the sampling parameters (temperature 0, top_p 1): it takes only its
    /// defaults.
    Sampling(String),
    Fatal(LlmError),
}

/// Asks `ep` for one answer to `req`, every try held to `meter`.
pub async fn complete(
    http: &reqwest::Client,
    ep: &Endpoint,
    req: &Request,
    meter: &mut dyn Meter,
    on_event: &mut (dyn FnMut(CallEvent) + Send),
) -> Result<Reply, LlmError> {
    let ep = &resolve_model(http, ep).await?;
    let started = Instant::now();
    let mut tries = Tries::new(ep.strict && req.schema.is_some());
    loop {
        tries.count += 1;
        meter
            .before_try(prompt_chars(req), req.max_tokens)
            .map_err(LlmError::Refused)?;
        on_event(CallEvent::Sent {
            attempt: tries.count,
            input_chars: prompt_chars(req),
            schema: tries.with_schema,
        });
        let mut used = Usage::default();
        let shape = (tries.with_schema, tries.sampling);
        let tried = attempt(http, ep, req, shape, on_event, &mut used).await;
        meter.after_try(used);
        match tried {
            Ok(acc) => return reply(ep, req, acc, started, &tries),
            Err(failed) => {
                if let Some(wait) = tries.recover(ep, failed, on_event)? {
                    tokio::time::sleep(wait).await;
                }
            }
        }
    }
}

/// How the tries of one call stand: how many were made, and what the next one sends.
struct Tries {
    count: u32,
    with_schema: bool,
    format_fallback_done: bool,
    sampling: bool,
}

impl Tries {
    fn new(with_schema: bool) -> Tries {
        Tries {
            count: 0,
            with_schema,
            format_fallback_done: false,
            sampling: true,
        }
    }

    /// After a try that gave no answer: the error that ends the call, or how long to wait
    /// before the next try (`None`: at once, with the request changed so that it may pass).
    fn recover(
        &mut self,
        ep: &Endpoint,
        failed: Try,
        on_event: &mut (dyn FnMut(CallEvent) + Send),
    ) -> Result<Option<Duration>, LlmError> {
        let rejected = |message: String| LlmError::BadRequest {
            provider: ep.name.clone(),
            status: 400,
            message,
        };
        match failed {
            Try::Sampling(_) if self.sampling => {
                self.sampling = false;
                self.count -= 1;
                Ok(None)
            }
            Try::Sampling(reason) => Err(rejected(reason)),
            Try::Format(reason) if self.with_schema && !self.format_fallback_done => {
                self.format_fallback_done = true;
                self.with_schema = false;
                self.count -= 1;
                on_event(CallEvent::FormatFallback { reason });
                Ok(None)
            }
            Try::Format(reason) => Err(rejected(reason)),
            Try::Fatal(e) => Err(e),
            Try::Again {
                status,
                wait,
                error,
            } => {
                if self.count >= MAX_TRIES {
                    return Err(error);
                }
                let wait = wait
                    .map(|w| w.min(MAX_RETRY_AFTER))
                    .unwrap_or_else(|| backoff(ep.retry_base, self.count));
                on_event(CallEvent::Retry {
                    status,
                    wait,
                    attempt: self.count,
                });
                Ok(Some(wait))
            }
        }
    }
}

/// The reply a successful try gave.
fn reply(
    ep: &Endpoint,
    req: &Request,
    acc: wire::Acc,
    started: Instant,
    tries: &Tries,
) -> Result<Reply, LlmError> {
    if ep.wire == Wire::Ollama {
        check_ollama_window(ep, req, &acc)?;
    }
    Ok(Reply {
        text: acc.text,
        finish: acc.finish.unwrap_or(Finish::Stop),
        usage: acc.usage,
        model: if acc.model.is_empty() {
            ep.model.clone()
        } else {
            acc.model
        },
        latency_ms: started.elapsed().as_millis() as u64,
        tries: tries.count,
        schema_sent: tries.with_schema,
    })
}

/// `base × 2^(try-1)`, capped at 8 s, with up to 25 % jitter.
fn backoff(base: Duration, tries: u32) -> Duration {
    let step = base
        .saturating_mul(1 << (tries - 1).min(10))
        .min(MAX_BACKOFF);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let jitter = step.mul_f64(f64::from(nanos % 1000) / 4000.0);
    step + jitter
}

/// An implicit Ollama with no model takes the first model the server has.
async fn resolve_model(http: &reqwest::Client, ep: &Endpoint) -> Result<Endpoint, LlmError> {
    if !ep.model.is_empty() {
        return Ok(ep.clone());
    }
    if ep.wire != Wire::Ollama {
        return Err(LlmError::ModelMissing {
            provider: ep.name.clone(),
        });
    }
    let url = format!("{}/api/tags", ep.base_url.trim_end_matches('/'));
    let response = match http.get(&url).timeout(ep.read_timeout).send().await {
        Ok(r) => r,
        Err(e) => return Err(connect_error(ep, &e)),
    };
    let tags: serde_json::Value = response.json().await.map_err(|e| LlmError::BadResponse {
        provider: ep.name.clone(),
        reason: format!("reading the model list: {e}"),
    })?;
    let first = tags["models"]
        .as_array()
        .and_then(|m| m.first())
        .and_then(|m| m["name"].as_str().or(m["model"].as_str()));
    match first {
        Some(model) => Ok(Endpoint {
            model: model.to_string(),
            ..ep.clone()
        }),
        None => Err(LlmError::ModelMissing {
            provider: ep.name.clone(),
        }),
    }
}

fn connect_error(ep: &Endpoint, e: &reqwest::Error) -> LlmError {
    if ep.implicit && (e.is_connect() || e.is_timeout()) {
        LlmError::NotConfigured {
            url: ep.base_url.clone(),
        }
    } else {
        LlmError::Unreachable {
            provider: ep.name.clone(),
            url: ep.base_url.clone(),
            reason: without_key(ep, &e.to_string()),
        }
    }
}

/// A server's text, shortened, with the key (should a server echo it) masked.
fn without_key(ep: &Endpoint, text: &str) -> String {
    let mut text: String = text.chars().take(300).collect();
    if let Some(key) = &ep.api_key
        && !key.is_empty()
    {
        text = text.replace(key.as_str(), "[MASKED]");
    }
    crate::context::mask_secrets(&text)
}

/// One try. `used` is set to the tokens the provider reported, even when the try fails.
async fn attempt(
    http: &reqwest::Client,
    ep: &Endpoint,
    req: &Request,
    (with_schema, sampling): (bool, bool),
    on_event: &mut (dyn FnMut(CallEvent) + Send),
    used: &mut Usage,
) -> Result<wire::Acc, Try> {
    let mut builder = http
        .post(wire::url(ep))
        .json(&wire::body(ep, req, with_schema, sampling));
    for (name, value) in wire::headers(ep) {
        builder = builder.header(name, value);
    }
    let caps = read::Caps::for_budget(req.max_tokens);
    let response = match tokio::time::timeout(ep.read_timeout, builder.send()).await {
        Err(_) => {
            on_event(CallEvent::Timeout);
            return Err(cut(ep, read::Cut::Timeout));
        }
        Ok(Err(e)) if ep.implicit && e.is_connect() => {
            return Err(Try::Fatal(connect_error(ep, &e)));
        }
        Ok(Err(e)) => return Err(cut(ep, read::Cut::Broken(e))),
        Ok(Ok(r)) => r,
    };
    let status = response.status().as_u16();
    if !(200..300).contains(&status) {
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(parse_retry_after);
        let body = read::body(ep, response, caps.body, true)
            .await
            .unwrap_or_default();
        let text = String::from_utf8_lossy(&body);
        return Err(classify(ep, req, status, &text, retry_after, with_schema));
    }
    let streamed = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.contains("event-stream") || t.contains("ndjson"));
    if !streamed {
        let body = read::body(ep, response, caps.body, false)
            .await
            .map_err(|c| cut(ep, c))?;
        let acc = match serde_json::from_slice::<serde_json::Value>(&body) {
            Ok(value) => wire::whole(ep.wire, &value),
            // Ollama streams NDJSON under application/json on some versions.
            Err(_) if ep.wire == Wire::Ollama => {
                let mut acc = wire::Acc::default();
                let read = read::lines(ep.wire, &body, caps, &mut acc);
                *used = acc.usage;
                read.map_err(|c| cut(ep, c))?;
                on_event(CallEvent::Received {
                    chars: acc.text.len(),
                    tokens: acc.usage.output,
                });
                return streamed_answer(ep, req, acc);
            }
            Err(e) => return Err(Try::Fatal(bad_response(ep, format!("not JSON: {e}")))),
        };
        *used = acc.usage;
        if acc.text.len() > caps.text {
            return Err(cut(ep, read::Cut::TooLarge { limit: caps.text }));
        }
        return finish(ep, acc);
    }
    let mut acc = wire::Acc::default();
    let read = read::stream(ep, response, caps, on_event, &mut acc).await;
    // A stream cut after its usage came is billed: the usage counts whatever follows.
    *used = acc.usage;
    match read {
        Err(read::Cut::Broken(_)) if acc.text.is_empty() && over_window(req) => {
            return Err(too_long_for_window(
                ep,
                req,
                "it closed the stream before any answer",
            ));
        }
        read => read.map_err(|c| cut(ep, c))?,
    }
    streamed_answer(ep, req, acc)
}

/// Whether a prompt may exceed a local server's window as it starts unless told
/// ([`read::LARGE_PROMPT_TOKENS`]).
fn over_window(req: &Request) -> bool {
    wire::estimated_tokens(req) > read::LARGE_PROMPT_TOKENS
}

/// A stream that ended before any text after a prompt over [`read::LARGE_PROMPT_TOKENS`]: the
/// server's window is smaller than the prompt, which no retry changes.
fn too_long_for_window(ep: &Endpoint, req: &Request, what: &str) -> Try {
    Try::Fatal(LlmError::ContextTooLong {
        provider: ep.name.clone(),
        chars: prompt_chars(req),
        tokens: wire::estimated_tokens(req),
        message: format!(
            "{what}, as a server does when the prompt exceeds its window (Ollama starts with 2,048 to 4,096 tokens unless told)"
        ),
    })
}

/// A streamed answer is one only when it ended with its end marker.
fn streamed_answer(ep: &Endpoint, req: &Request, acc: wire::Acc) -> Result<wire::Acc, Try> {
    if read::ended(&acc) {
        return finish(ep, acc);
    }
    if acc.text.is_empty() && over_window(req) {
        return Err(too_long_for_window(
            ep,
            req,
            "it answered with an empty stream",
        ));
    }
    Err(Try::Again {
        status: 0,
        wait: None,
        error: LlmError::StreamCut {
            provider: ep.name.clone(),
            chars: acc.text.len(),
            tries: MAX_TRIES,
        },
    })
}

/// What a read that stopped early means: worth another try, except an oversized answer.
fn cut(ep: &Endpoint, why: read::Cut) -> Try {
    match why {
        read::Cut::Timeout => Try::Again {
            status: 0,
            wait: None,
            error: LlmError::Timeout {
                provider: ep.name.clone(),
                seconds: ep.read_timeout.as_secs(),
                tries: MAX_TRIES,
            },
        },
        read::Cut::Broken(e) => Try::Again {
            status: 0,
            wait: None,
            error: connect_error(ep, &e),
        },
        read::Cut::TooLarge { limit } => Try::Fatal(LlmError::AnswerTooLarge {
            provider: ep.name.clone(),
            limit,
        }),
    }
}

fn prompt_chars(req: &Request) -> usize {
    req.system.len() + req.messages.iter().map(|m| m.content.len()).sum::<usize>()
}

fn bad_response(ep: &Endpoint, reason: String) -> LlmError {
    LlmError::BadResponse {
        provider: ep.name.clone(),
        reason,
    }
}

fn finish(ep: &Endpoint, acc: wire::Acc) -> Result<wire::Acc, Try> {
    if let Some(error) = &acc.error
        && acc.text.is_empty()
    {
        let lower = error.to_ascii_lowercase();
        if lower.contains("overloaded") || lower.contains("rate") {
            return Err(Try::Again {
                status: 529,
                wait: None,
                error: LlmError::Server {
                    provider: ep.name.clone(),
                    status: 529,
                    tries: MAX_TRIES,
                    message: without_key(ep, error),
                },
            });
        }
        return Err(Try::Fatal(bad_response(ep, without_key(ep, error))));
    }
    if acc.text.is_empty() && acc.finish.is_none() {
        return Err(Try::Fatal(bad_response(
            ep,
            "the answer held no text".to_string(),
        )));
    }
    Ok(acc)
}

/// Decides what an error status means.
fn classify(
    ep: &Endpoint,
    req: &Request,
    status: u16,
    body: &str,
    retry_after: Option<Duration>,
    with_schema: bool,
) -> Try {
    let message = server_message(body);
    let lower = body.to_ascii_lowercase();
    let provider = ep.name.clone();
    if names_context_limit(&lower) {
        return Try::Fatal(LlmError::ContextTooLong {
            provider,
            chars: prompt_chars(req),
            tokens: wire::estimated_tokens(req),
            message: without_key(ep, &message),
        });
    }
    // A server that cannot take the structured-output format may say so with any error
    // status (llama.cpp answers a schema it cannot compile with a 500): one try without it.
    let transient = matches!(status, 408 | 409 | 429 | 529);
    if with_schema && !transient && status >= 400 && names_format(&lower) {
        return Try::Format(without_key(ep, &message));
    }
    let quota = lower.contains("insufficient_quota")
        || lower.contains("exceeded your current quota")
        || lower.contains("spend_limit")
        || lower.contains("spend limit")
        || lower.contains("billing");
    if quota {
        return Try::Fatal(LlmError::Quota {
            provider,
            message: without_key(ep, &message),
        });
    }
    match status {
        401 | 403 => Try::Fatal(LlmError::Auth {
            provider,
            status,
            key_var: ep.key_var.clone(),
            key_sent: ep.api_key.is_some(),
            message: without_key(ep, &message),
        }),
        408 | 409 | 429 | 500..=599 => Try::Again {
            status,
            wait: retry_after,
            error: if status == 429 {
                LlmError::RateLimited {
                    provider,
                    tries: MAX_TRIES,
                    message: without_key(ep, &message),
                }
            } else {
                LlmError::Server {
                    provider,
                    status,
                    tries: MAX_TRIES,
                    message: without_key(ep, &message),
                }
            },
        },
        400..=499 if names_sampling(&lower) => Try::Sampling(without_key(ep, &message)),
        _ => Try::Fatal(LlmError::BadRequest {
            provider,
            status,
            message: without_key(ep, &message),
        }),
    }
}

/// Ollama cuts a prompt longer than its window without an error. The window is sized to the
/// prompt, but a server may cap it; its `prompt_eval_count` then sits at (just under) the cap,
/// a power of two, while far fewer tokens than the prompt holds. A reused prompt cache also
/// lowers the count, but to an arbitrary number, so both conditions must hold.
fn check_ollama_window(ep: &Endpoint, req: &Request, acc: &wire::Acc) -> Result<(), LlmError> {
    let Some(used) = acc.prompt_eval else {
        return Ok(());
    };
    let chars = req.system.len() + req.messages.iter().map(|m| m.content.len()).sum::<usize>();
    let sent = (chars as u64) / 4;
    let at_a_window = (10..=20).any(|p| {
        let window = 1u64 << p;
        used <= window && used + window / 16 >= window
    });
    if used * 2 < sent && at_a_window {
        return Err(LlmError::ContextTruncated {
            provider: ep.name.clone(),
            used,
            sent,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The client starts a TLS handshake (a ClientHello record) with the ring provider: a
    /// build without a crypto provider would panic here instead.
    #[test]
    fn the_client_speaks_tls() {
        use std::io::Read;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut head = [0u8; 3];
            stream.read_exact(&mut head).unwrap();
            head
        });
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let sent = runtime.block_on(async {
            let client = http_client();
            let request = client.get(format!("https://127.0.0.1:{port}/")).send();
            tokio::time::timeout(Duration::from_secs(5), request).await
        });
        let head = server.join().unwrap();
        // 0x16 is a handshake record, 0x03 0x01 the record version every ClientHello carries.
        assert_eq!(head, [0x16, 0x03, 0x01]);
        assert!(
            !matches!(sent, Ok(Ok(_))),
            "no TLS server answered, yet: {sent:?}"
        );
    }

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        assert_eq!(parse_retry_after("2"), Some(Duration::from_secs(2)));
        assert_eq!(
            status::httpdate_secs("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(784_111_777)
        );
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon"), None);
    }

    #[test]
    fn backoff_doubles_and_is_capped() {
        let base = Duration::from_millis(500);
        assert!(backoff(base, 1) >= base && backoff(base, 1) < base * 2);
        assert!(backoff(base, 2) >= base * 2);
        assert!(backoff(base, 9) <= MAX_BACKOFF + MAX_BACKOFF / 4);
    }

    #[test]
    fn debug_never_shows_the_key() {
        let ep = Endpoint {
            name: "x".into(),
            wire: Wire::OpenAiChat,
            base_url: "http://h/v1".into(),
            api_key: Some("sk-secret-123".into()),
            key_var: None,
            model: "m".into(),
            read_timeout: Duration::from_secs(1),
            strict: false,
            implicit: false,
            retry_base: Duration::from_millis(1),
        };
        assert!(!format!("{ep:?}").contains("sk-secret"));
    }
}
