//! An in-process fake model provider: a small HTTP/1.1 server on 127.0.0.1 that records every
//! request and answers from a script in each provider's real wire format — OpenAI Chat
//! Completions and Responses (SSE), Anthropic Messages (SSE) and Ollama (NDJSON) when the
//! request asks to stream, whole JSON otherwise. The last reply repeats when the script runs out.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

/// Which API an answer is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    Chat,
    Responses,
    Anthropic,
    Ollama,
}

#[derive(Debug, Clone)]
enum Content {
    /// A body sent as it is (errors, odd servers).
    Raw(String),
    /// A model's answer, rendered for the wire and the request's `stream` flag.
    Answer {
        wire: Wire,
        text: String,
        truncated: bool,
        prompt_eval: Option<u64>,
        tool: bool,
        /// Ends without the wire's end marker, as a dropped connection does.
        cut: bool,
        /// With `cut`, the usage chunk still goes out first (Chat Completions sends it as a
        /// chunk of its own; Anthropic's `message_start` carries it anyway).
        keep_usage: bool,
    },
    /// A stream that keeps sending text deltas until `bytes` of text went out or the client
    /// stops reading; it never ends with its end marker.
    Flood { wire: Wire, bytes: usize },
    /// An answer written for each request from its body, as a model reads its prompt.
    Computed { wire: Wire, model: Model },
}

/// A function from a request's body to the model's answer.
#[derive(Clone)]
pub struct Model(Arc<dyn Fn(&str) -> String + Send + Sync>);

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Model")
    }
}

/// One scripted reply.
#[derive(Debug, Clone)]
pub struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    content: Content,
    delay: Duration,
    never_stream: bool,
}

impl Reply {
    fn answer(wire: Wire, text: &str) -> Reply {
        Reply {
            status: 200,
            headers: Vec::new(),
            content: Content::Answer {
                wire,
                text: text.to_string(),
                truncated: false,
                prompt_eval: None,
                tool: false,
                cut: false,
                keep_usage: false,
            },
            delay: Duration::ZERO,
            never_stream: false,
        }
    }

    /// Adds a response header.
    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    /// Waits this long before sending anything.
    pub fn delay(mut self, delay: Duration) -> Reply {
        self.delay = delay;
        self
    }

    /// Answers with one JSON body even when the request asked to stream.
    pub fn whole(mut self) -> Reply {
        self.never_stream = true;
        self
    }

    /// Ends the stream without its end marker (no `finish_reason`/`[DONE]`, `message_stop`,
    /// `response.completed` or `"done": true`), as when the connection drops; the text sent so
    /// far is everything given.
    pub fn cut(mut self) -> Reply {
        if let Content::Answer { cut, .. } = &mut self.content {
            *cut = true;
        }
        self
    }

    /// [`Reply::cut`], after the stream's usage went out: a connection dropped just before the
    /// end marker, whose tokens the provider bills.
    pub fn cut_after_usage(mut self) -> Reply {
        if let Content::Answer {
            cut, keep_usage, ..
        } = &mut self.content
        {
            *cut = true;
            *keep_usage = true;
        }
        self
    }

    /// Marks the answer as cut at the token limit.
    pub fn truncated(mut self) -> Reply {
        if let Content::Answer { truncated, .. } = &mut self.content {
            *truncated = true;
        }
        self
    }
}

pub fn openai_chat(text: &str) -> Reply {
    Reply::answer(Wire::Chat, text)
}

pub fn openai_chat_truncated(text: &str) -> Reply {
    Reply::answer(Wire::Chat, text).truncated()
}

pub fn responses(text: &str) -> Reply {
    Reply::answer(Wire::Responses, text)
}

pub fn anthropic(text: &str) -> Reply {
    Reply::answer(Wire::Anthropic, text)
}

/// An Anthropic answer given through a forced tool (`tool_use` / `input_json_delta`).
pub fn anthropic_tool(json_text: &str) -> Reply {
    let mut r = Reply::answer(Wire::Anthropic, json_text);
    if let Content::Answer { tool, .. } = &mut r.content {
        *tool = true;
    }
    r
}

pub fn ollama(text: &str) -> Reply {
    Reply::answer(Wire::Ollama, text)
}

/// An Ollama answer whose `prompt_eval_count` is `n`.
pub fn ollama_with_eval(text: &str, n: u64) -> Reply {
    let mut r = Reply::answer(Wire::Ollama, text);
    if let Content::Answer { prompt_eval, .. } = &mut r.content {
        *prompt_eval = Some(n);
    }
    r
}

/// An answer in `wire`'s format that streams `bytes` of text and never ends.
pub fn flood(wire: Wire, bytes: usize) -> Reply {
    Reply {
        status: 200,
        headers: Vec::new(),
        content: Content::Flood { wire, bytes },
        delay: Duration::ZERO,
        never_stream: false,
    }
}

/// A 200 stream in `wire`'s format with no event at all, closed at once (llama.cpp's answer
/// to a prompt longer than its window when streaming).
pub fn empty_stream(wire: Wire) -> Reply {
    Reply::answer(wire, "").cut()
}

/// A status with a raw body (errors).
/// Answers every request with what `model` writes from the request's body (the raw JSON), in
/// `wire`'s format: a scripted model that reads the files it is shown.
pub fn computed(wire: Wire, model: impl Fn(&str) -> String + Send + Sync + 'static) -> Reply {
    Reply {
        status: 200,
        headers: Vec::new(),
        content: Content::Computed {
            wire,
            model: Model(Arc::new(model)),
        },
        delay: Duration::ZERO,
        never_stream: false,
    }
}

pub fn status(code: u16, body: &str) -> Reply {
    Reply {
        status: code,
        headers: Vec::new(),
        content: Content::Raw(body.to_string()),
        delay: Duration::ZERO,
        never_stream: false,
    }
}

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Header names lowercased.
    pub headers: Vec<(String, String)>,
    pub body: String,
    pub json: Value,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .iter()
            .find(|(n, _)| n == &name.to_ascii_lowercase())
            .map(|(_, v)| v.clone())
    }
}

pub struct FakeLlm {
    port: u16,
    requests: Arc<Mutex<Vec<Recorded>>>,
}

impl FakeLlm {
    /// Starts serving `script` on a free port of 127.0.0.1.
    pub fn start(script: Vec<Reply>) -> FakeLlm {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().expect("local addr").port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&requests);
        std::thread::spawn(move || {
            let mut next = 0;
            for stream in listener.incoming() {
                let Ok(stream) = stream else { break };
                let reply = script
                    .get(next)
                    .or_else(|| script.last())
                    .cloned()
                    .expect("a non-empty script");
                let seen = Arc::clone(&seen);
                let served = serve(stream, reply, seen);
                if served {
                    next += 1;
                }
            }
        });
        FakeLlm { port, requests }
    }

    /// `http://127.0.0.1:PORT` (no trailing slash).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every chat request so far, in order (model-list requests are answered but not scripted).
    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().expect("not poisoned").clone()
    }
}

/// Reads one request and answers it; `false` for requests outside the script (`GET /api/tags`).
fn serve(stream: TcpStream, reply: Reply, seen: Arc<Mutex<Vec<Recorded>>>) -> bool {
    let mut reader = BufReader::new(stream.try_clone().expect("clone stream"));
    let mut first = String::new();
    if reader.read_line(&mut first).is_err() || first.is_empty() {
        return false;
    }
    let mut parts = first.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let path = parts.next().unwrap_or("").to_string();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).is_err() {
            return false;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((n, v)) = line.split_once(':') {
            headers.push((n.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let header = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    let body = if header("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        read_chunked(&mut reader)
    } else {
        let len: usize = header("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let mut buf = vec![0; len];
        let _ = reader.read_exact(&mut buf);
        buf
    };
    let mut stream = stream;
    if method == "GET" && path.ends_with("/api/tags") {
        let body = json!({"models": [{"name": "fake-model:latest", "model": "fake-model:latest"}]})
            .to_string();
        write_response(&mut stream, 200, "application/json", &[], body.as_bytes());
        return false;
    }
    let body = String::from_utf8_lossy(&body).into_owned();
    let json: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let wants_stream = json["stream"] == true && !reply.never_stream;
    seen.lock().expect("not poisoned").push(Recorded {
        method,
        path,
        headers: headers.clone(),
        body,
        json,
    });
    std::thread::sleep(reply.delay);
    let (content_type, body) = match &reply.content {
        Content::Raw(text) => ("application/json", text.clone().into_bytes()),
        Content::Computed { wire, model } => {
            let text = (model.0)(
                &seen
                    .lock()
                    .expect("not poisoned")
                    .last()
                    .expect("recorded")
                    .body,
            );
            render(*wire, &text, false, None, false, wants_stream)
        }
        Content::Answer {
            wire,
            text,
            truncated,
            prompt_eval,
            tool,
            cut,
            keep_usage,
        } => {
            let (kind, body) = render(*wire, text, *truncated, *prompt_eval, *tool, wants_stream);
            match *cut && wants_stream {
                true => (
                    kind,
                    without_end(*wire, &body, text.is_empty(), *keep_usage),
                ),
                false => (kind, body),
            }
        }
        Content::Flood { wire, bytes } => {
            flood_out(&mut stream, *wire, *bytes);
            return true;
        }
    };
    write_response(
        &mut stream,
        reply.status,
        content_type,
        &reply.headers,
        &body,
    );
    true
}

fn read_chunked(reader: &mut BufReader<TcpStream>) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let mut size = String::new();
        if reader.read_line(&mut size).is_err() {
            return out;
        }
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            let mut end = String::new();
            let _ = reader.read_line(&mut end);
            return out;
        }
        let mut chunk = vec![0; n + 2];
        if reader.read_exact(&mut chunk).is_err() {
            return out;
        }
        out.extend_from_slice(&chunk[..n]);
    }
}

fn write_response(
    stream: &mut TcpStream,
    status: u16,
    content_type: &str,
    headers: &[(String, String)],
    body: &[u8],
) {
    let mut head = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (n, v) in headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
    let _ = stream.flush();
}

/// A rendered stream with its end marker (and everything after the text, but the usage chunk
/// with `keep_usage`) removed; with `empty`, nothing at all.
fn without_end(wire: Wire, body: &[u8], empty: bool, keep_usage: bool) -> Vec<u8> {
    if empty {
        return Vec::new();
    }
    let text = String::from_utf8_lossy(body);
    let separator = if wire == Wire::Ollama { "\n" } else { "\n\n" };
    let is_end = |event: &str| match wire {
        Wire::Chat => {
            event.contains("[DONE]")
                || event.contains("\"finish_reason\":\"")
                || (event.contains("\"usage\"") && !keep_usage)
        }
        Wire::Responses => {
            event.contains("response.output_text.done")
                || event.contains("response.completed")
                || event.contains("response.incomplete")
        }
        Wire::Anthropic => {
            event.contains("content_block_stop")
                || event.contains("message_delta")
                || event.contains("message_stop")
        }
        Wire::Ollama => event.contains("\"done\":true"),
    };
    let kept: Vec<&str> = text
        .split_inclusive(separator)
        .filter(|event| !is_end(event))
        .collect();
    kept.concat().into_bytes()
}

/// Streams text deltas in `wire`'s format, without a length, until `bytes` of text went out or
/// the client hung up; then closes without an end marker.
fn flood_out(stream: &mut TcpStream, wire: Wire, bytes: usize) {
    let kind = if wire == Wire::Ollama {
        "application/x-ndjson"
    } else {
        "text/event-stream"
    };
    let head = format!("HTTP/1.1 200 OK\r\ncontent-type: {kind}\r\nconnection: close\r\n\r\n");
    if stream.write_all(head.as_bytes()).is_err() {
        return;
    }
    let piece = "x".repeat(4096);
    let event = match wire {
        Wire::Chat => format!(
            "data: {}\n\n",
            json!({"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": null}]})
        ),
        Wire::Responses => format!(
            "event: response.output_text.delta\ndata: {}\n\n",
            json!({"type": "response.output_text.delta", "delta": piece})
        ),
        Wire::Anthropic => format!(
            "event: content_block_delta\ndata: {}\n\n",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}})
        ),
        Wire::Ollama => format!(
            "{}\n",
            json!({"model": "fake-model", "message": {"role": "assistant", "content": piece}, "done": false})
        ),
    };
    let mut sent = 0;
    while sent < bytes {
        if stream.write_all(event.as_bytes()).is_err() {
            return;
        }
        sent += piece.len();
    }
    let _ = stream.flush();
}

/// Splits text into a few chunks, as a server streams it.
fn chunks(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let size = chars.len().div_ceil(3).max(1);
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

fn sse(events: &[Value], done: bool) -> Vec<u8> {
    let mut out = String::new();
    for e in events {
        if let Some(t) = e["type"].as_str() {
            out.push_str(&format!("event: {t}\n"));
        }
        out.push_str(&format!("data: {e}\n\n"));
    }
    if done {
        out.push_str("data: [DONE]\n\n");
    }
    out.into_bytes()
}

const USAGE_IN: u64 = 1200;
const USAGE_OUT: u64 = 80;
const CACHED: u64 = 1024;

fn render(
    wire: Wire,
    text: &str,
    truncated: bool,
    prompt_eval: Option<u64>,
    tool: bool,
    stream: bool,
) -> (&'static str, Vec<u8>) {
    match (wire, stream) {
        (Wire::Chat, false) => {
            let body = json!({
                "id": "chatcmpl-1", "object": "chat.completion", "model": "fake-model",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                             "finish_reason": if truncated { "length" } else { "stop" }}],
                "usage": {"prompt_tokens": USAGE_IN, "completion_tokens": USAGE_OUT,
                          "prompt_tokens_details": {"cached_tokens": CACHED}}
            });
            ("application/json", body.to_string().into_bytes())
        }
        (Wire::Chat, true) => {
            let mut events = vec![
                json!({"id": "c1", "object": "chat.completion.chunk", "model": "fake-model",
                "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": null}]}),
            ];
            for c in chunks(text) {
                events.push(
                    json!({"id": "c1", "object": "chat.completion.chunk", "model": "fake-model",
                    "choices": [{"index": 0, "delta": {"content": c}, "finish_reason": null}]}),
                );
            }
            events.push(json!({"id": "c1", "object": "chat.completion.chunk", "model": "fake-model",
                "choices": [{"index": 0, "delta": {}, "finish_reason": if truncated { "length" } else { "stop" }}]}));
            events.push(json!({"id": "c1", "object": "chat.completion.chunk", "model": "fake-model", "choices": [],
                "usage": {"prompt_tokens": USAGE_IN, "completion_tokens": USAGE_OUT,
                          "prompt_tokens_details": {"cached_tokens": CACHED}}}));
            let events: Vec<Value> = events
                .into_iter()
                .map(|mut e| {
                    e.as_object_mut().expect("object").remove("type");
                    e
                })
                .collect();
            ("text/event-stream", sse(&events, true))
        }
        (Wire::Responses, false) => {
            let body = json!({
                "id": "resp_1", "object": "response", "model": "fake-model",
                "status": if truncated { "incomplete" } else { "completed" },
                "incomplete_details": if truncated { json!({"reason": "max_output_tokens"}) } else { Value::Null },
                "output": [{"type": "message", "role": "assistant",
                            "content": [{"type": "output_text", "text": text}]}],
                "usage": {"input_tokens": USAGE_IN, "output_tokens": USAGE_OUT,
                          "input_tokens_details": {"cached_tokens": CACHED}}
            });
            ("application/json", body.to_string().into_bytes())
        }
        (Wire::Responses, true) => {
            let mut events = vec![
                json!({"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}}),
            ];
            for c in chunks(text) {
                events.push(json!({"type": "response.output_text.delta", "delta": c}));
            }
            events.push(json!({"type": "response.output_text.done", "text": text}));
            let status = if truncated { "incomplete" } else { "completed" };
            events.push(json!({"type": format!("response.{status}"), "response": {
                "id": "resp_1", "model": "fake-model", "status": status,
                "incomplete_details": if truncated { json!({"reason": "max_output_tokens"}) } else { Value::Null },
                "usage": {"input_tokens": USAGE_IN, "output_tokens": USAGE_OUT,
                          "input_tokens_details": {"cached_tokens": CACHED}}}}));
            ("text/event-stream", sse(&events, false))
        }
        (Wire::Anthropic, false) => {
            let content = if tool {
                json!([{"type": "tool_use", "id": "t1", "name": "papayu_plan", "input": serde_json::from_str::<Value>(text).unwrap_or(Value::Null)}])
            } else {
                json!([{"type": "text", "text": text}])
            };
            let body = json!({
                "id": "msg_1", "type": "message", "role": "assistant", "model": "fake-claude",
                "content": content,
                "stop_reason": if truncated { "max_tokens" } else if tool { "tool_use" } else { "end_turn" },
                "usage": {"input_tokens": 100, "cache_read_input_tokens": CACHED, "cache_creation_input_tokens": 76, "output_tokens": USAGE_OUT}
            });
            ("application/json", body.to_string().into_bytes())
        }
        (Wire::Anthropic, true) => {
            let mut events = vec![json!({"type": "message_start", "message": {
                "id": "msg_1", "type": "message", "role": "assistant", "model": "fake-claude", "content": [],
                "usage": {"input_tokens": 100, "cache_read_input_tokens": CACHED, "cache_creation_input_tokens": 76, "output_tokens": 1}}})];
            let block = if tool {
                json!({"type": "tool_use", "id": "t1", "name": "papayu_plan", "input": {}})
            } else {
                json!({"type": "text", "text": ""})
            };
            events.push(json!({"type": "content_block_start", "index": 0, "content_block": block}));
            events.push(json!({"type": "ping"}));
            for c in chunks(text) {
                let delta = if tool {
                    json!({"type": "input_json_delta", "partial_json": c})
                } else {
                    json!({"type": "text_delta", "text": c})
                };
                events.push(json!({"type": "content_block_delta", "index": 0, "delta": delta}));
            }
            events.push(json!({"type": "content_block_stop", "index": 0}));
            let stop = if truncated {
                "max_tokens"
            } else if tool {
                "tool_use"
            } else {
                "end_turn"
            };
            events.push(json!({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": USAGE_OUT}}));
            events.push(json!({"type": "message_stop"}));
            ("text/event-stream", sse(&events, false))
        }
        (Wire::Ollama, stream) => {
            let last = |content: &str| {
                let mut v = json!({"model": "fake-model", "created_at": "2026-01-01T00:00:00Z",
                    "message": {"role": "assistant", "content": content}, "done": true,
                    "done_reason": if truncated { "length" } else { "stop" },
                    "eval_count": USAGE_OUT});
                v["prompt_eval_count"] = json!(prompt_eval.unwrap_or(USAGE_IN));
                v
            };
            if !stream {
                return ("application/json", last(text).to_string().into_bytes());
            }
            let mut out = String::new();
            for c in chunks(text) {
                out.push_str(&json!({"model": "fake-model", "message": {"role": "assistant", "content": c}, "done": false}).to_string());
                out.push('\n');
            }
            out.push_str(&last("").to_string());
            out.push('\n');
            ("application/x-ndjson", out.into_bytes())
        }
    }
}
