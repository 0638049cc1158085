//! The four wire formats: how a [`Request`] becomes a provider's JSON body, and how its answer —
//! streamed (SSE or NDJSON) or whole — becomes text, a finish reason and token counts.
//!
//! Pure functions over `serde_json::Value`: no I/O here, so every format is tested on its own.

use serde_json::{Value, json};

use super::{Endpoint, Finish, Request, Role, Usage, Wire};

/// What has been read of an answer so far.
#[derive(Debug, Default, Clone)]
pub struct Acc {
    pub text: String,
    pub finish: Option<Finish>,
    pub usage: Usage,
    pub model: String,
    /// An error the server reported inside a successful stream.
    pub error: Option<String>,
    /// Ollama: prompt tokens the server actually evaluated.
    pub prompt_eval: Option<u64>,
    /// Set when the stream said it is complete.
    pub done: bool,
}

/// Where to send a request, with which headers (the key among them) and body.
pub fn url(ep: &Endpoint) -> String {
    let base = ep.base_url.trim_end_matches('/');
    match ep.wire {
        Wire::OpenAiChat => format!("{base}/chat/completions"),
        Wire::OpenAiResponses => format!("{base}/responses"),
        Wire::Anthropic => format!("{base}/v1/messages"),
        Wire::Ollama => format!("{base}/api/chat"),
    }
}

pub fn headers(ep: &Endpoint) -> Vec<(&'static str, String)> {
    let mut out = vec![("content-type", "application/json".to_string())];
    match (ep.wire, &ep.api_key) {
        (Wire::Anthropic, key) => {
            out.push(("anthropic-version", "2023-06-01".to_string()));
            if let Some(key) = key {
                out.push(("x-api-key", key.clone()));
            }
        }
        (_, Some(key)) => out.push(("authorization", format!("Bearer {key}"))),
        (_, None) => {}
    }
    out
}

/// Prompt size estimate in tokens (about three characters a token for code and prose).
pub fn estimated_tokens(req: &Request) -> u64 {
    let chars = req.system.len() + req.messages.iter().map(|m| m.content.len()).sum::<usize>();
    (chars as u64).div_ceil(3)
}

/// Ollama's window: the prompt estimate rounded up to 1,024 plus the answer budget, at least
/// 4,096, so the server never cuts the prompt to its own default.
pub fn ollama_num_ctx(req: &Request) -> u64 {
    let prompt = estimated_tokens(req).div_ceil(1024) * 1024;
    (prompt + u64::from(req.max_tokens)).max(4096)
}

fn role(r: Role) -> &'static str {
    match r {
        Role::User => "user",
        Role::Assistant => "assistant",
    }
}

fn plain_messages(req: &Request, system_first: bool) -> Vec<Value> {
    let mut out = Vec::new();
    if system_first {
        out.push(json!({"role": "system", "content": req.system}));
    }
    out.extend(
        req.messages
            .iter()
            .map(|m| json!({"role": role(m.role), "content": m.content})),
    );
    out
}

/// Anthropic messages: consecutive turns of one role become one message of several text
/// blocks; a block marked as the end of the prefix carries `cache_control`.
fn anthropic_messages(req: &Request) -> Vec<Value> {
    let mut turns: Vec<(&str, Vec<Value>)> = Vec::new();
    for m in &req.messages {
        let mut block = json!({"type": "text", "text": m.content});
        if m.cache_mark {
            block["cache_control"] = json!({"type": "ephemeral"});
        }
        match turns.last_mut() {
            Some((last, blocks)) if *last == role(m.role) => blocks.push(block),
            _ => turns.push((role(m.role), vec![block])),
        }
    }
    turns
        .into_iter()
        .map(|(role, blocks)| json!({"role": role, "content": blocks}))
        .collect()
}

/// Sampling parameters some models refuse (OpenAI's reasoning models take only the defaults).
const SAMPLING: &[&str] = &[
    "temperature",
    "top_p",
    "frequency_penalty",
    "presence_penalty",
];

/// The JSON body for `ep`, with the structured-output schema when `with_schema`, and without
/// the seeds' sampling parameters when `sampling` is false.
pub fn body(ep: &Endpoint, req: &Request, with_schema: bool, sampling: bool) -> Value {
    let mut b = body_with_sampling(ep, req, with_schema);
    if let Some(n) = req.variation {
        vary(ep.wire, &mut b, n);
    }
    if !sampling && let Some(map) = b.as_object_mut() {
        for key in SAMPLING {
            map.remove(*key);
        }
    }
    b
}

/// Makes the `n`th extra answer differ from the first: a higher temperature and, where the
/// wire has one, a seed of its own.
fn vary(wire: Wire, b: &mut Value, n: u32) {
    let temperature = json!(super::VARIED_TEMPERATURE);
    match wire {
        Wire::OpenAiChat => {
            b["temperature"] = temperature;
            b["seed"] = json!(n);
        }
        Wire::OpenAiResponses | Wire::Anthropic => b["temperature"] = temperature,
        Wire::Ollama => {
            b["options"]["temperature"] = temperature;
            b["options"]["seed"] = json!(n);
        }
    }
}

fn body_with_sampling(ep: &Endpoint, req: &Request, with_schema: bool) -> Value {
    let schema = req.schema.as_ref().filter(|_| with_schema);
    match ep.wire {
        Wire::OpenAiChat => {
            let mut b = json!({
                "model": ep.model,
                "messages": plain_messages(req, true),
                "temperature": 0,
                "top_p": 1,
                "frequency_penalty": 0,
                "presence_penalty": 0,
                "stream": true,
                "stream_options": {"include_usage": true},
            });
            // OpenAI's own API names the limit max_completion_tokens; compatible servers
            // still read max_tokens.
            let limit = if ep.base_url.contains("api.openai.com") {
                "max_completion_tokens"
            } else {
                "max_tokens"
            };
            b[limit] = json!(req.max_tokens);
            if let Some(key) = &req.cache_key {
                b["prompt_cache_key"] = json!(key);
            }
            if let Some(s) = schema {
                b["response_format"] = json!({"type": "json_schema", "json_schema": {"name": s.name, "strict": true, "schema": s.value}});
            }
            b
        }
        Wire::OpenAiResponses => {
            let mut b = json!({
                "model": ep.model,
                "instructions": req.system,
                "input": plain_messages(req, false),
                "max_output_tokens": req.max_tokens,
                "temperature": 0,
                "top_p": 1,
                "stream": true,
            });
            if let Some(key) = &req.cache_key {
                b["prompt_cache_key"] = json!(key);
            }
            if let Some(s) = schema {
                b["text"] = json!({"format": {"type": "json_schema", "name": s.name, "schema": s.value, "strict": true}});
            }
            b
        }
        Wire::Anthropic => {
            let mut b = json!({
                "model": ep.model,
                "max_tokens": req.max_tokens,
                "system": [{"type": "text", "text": req.system, "cache_control": {"type": "ephemeral"}}],
                "messages": anthropic_messages(req),
                "temperature": 0,
                "stream": true,
            });
            if let Some(s) = schema {
                b["tools"] = json!([{"name": s.name, "description": "Return the plan.", "input_schema": s.value}]);
                b["tool_choice"] = json!({"type": "tool", "name": s.name});
            }
            b
        }
        Wire::Ollama => {
            let format = match schema {
                Some(s) => s.value.clone(),
                None => json!("json"),
            };
            json!({
                "model": ep.model,
                "messages": plain_messages(req, true),
                "stream": true,
                "format": format,
                "options": {
                    "temperature": 0,
                    "top_p": 1,
                    "num_ctx": ollama_num_ctx(req),
                    "num_predict": req.max_tokens,
                },
            })
        }
    }
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

fn finish_openai(reason: &str) -> Finish {
    match reason {
        "length" => Finish::Length,
        "content_filter" => Finish::ContentFilter,
        "stop" | "tool_calls" | "function_call" => Finish::Stop,
        other => Finish::Other(other.to_string()),
    }
}

fn finish_anthropic(reason: &str) -> Finish {
    match reason {
        "max_tokens" => Finish::Length,
        "end_turn" | "tool_use" | "stop_sequence" => Finish::Stop,
        "refusal" => Finish::ContentFilter,
        other => Finish::Other(other.to_string()),
    }
}

fn openai_usage(acc: &mut Acc, usage: &Value) {
    if usage.is_object() {
        acc.usage.input = u(&usage["prompt_tokens"]);
        acc.usage.output = u(&usage["completion_tokens"]);
        acc.usage.cached = u(&usage["prompt_tokens_details"]["cached_tokens"]);
    }
}

fn responses_final(acc: &mut Acc, response: &Value) {
    if let Some(m) = response["model"].as_str() {
        acc.model = m.to_string();
    }
    let usage = &response["usage"];
    if usage.is_object() {
        acc.usage.input = u(&usage["input_tokens"]);
        acc.usage.output = u(&usage["output_tokens"]);
        acc.usage.cached = u(&usage["input_tokens_details"]["cached_tokens"]);
    }
    acc.finish = Some(match response["status"].as_str() {
        Some("incomplete") if response["incomplete_details"]["reason"] == "content_filter" => {
            Finish::ContentFilter
        }
        Some("incomplete") => Finish::Length,
        Some("failed") => Finish::Other("failed".to_string()),
        _ => Finish::Stop,
    });
    if response["status"] == "failed" {
        acc.error = Some(
            response["error"]["message"]
                .as_str()
                .unwrap_or("the response failed")
                .to_string(),
        );
    }
    acc.done = true;
}

fn anthropic_usage(acc: &mut Acc, usage: &Value) {
    if !usage.is_object() {
        return;
    }
    let plain = u(&usage["input_tokens"]);
    let read = u(&usage["cache_read_input_tokens"]);
    let write = u(&usage["cache_creation_input_tokens"]);
    if plain + read + write > 0 {
        // Anthropic counts cached and cache-writing tokens apart from input_tokens; the record
        // counts every prompt token as input, cached ones included.
        acc.usage.input = plain + read + write;
        acc.usage.cached = read;
        acc.usage.cache_write = write;
    }
    if usage.get("output_tokens").is_some() {
        acc.usage.output = u(&usage["output_tokens"]);
    }
}

/// Reads one streamed event (an SSE `data:` payload or an NDJSON line). Returns the number of
/// new text characters.
pub fn feed(wire: Wire, acc: &mut Acc, ev: &Value) -> usize {
    let before = acc.text.len();
    match wire {
        Wire::OpenAiChat => feed_openai_chat(acc, ev),
        Wire::OpenAiResponses => feed_openai_responses(acc, ev),
        Wire::Anthropic => feed_anthropic(acc, ev),
        Wire::Ollama => feed_ollama(acc, ev),
    }
    acc.text.len() - before
}

fn feed_openai_chat(acc: &mut Acc, ev: &Value) {
    if let Some(m) = ev["model"].as_str() {
        acc.model = m.to_string();
    }
    if let Some(e) = ev["error"]["message"].as_str() {
        acc.error = Some(e.to_string());
    }
    if let Some(choice) = ev["choices"].get(0) {
        if let Some(t) = choice["delta"]["content"].as_str() {
            acc.text.push_str(t);
        }
        if let Some(r) = choice["finish_reason"].as_str() {
            acc.finish = Some(finish_openai(r));
            acc.done = true;
        }
    }
    openai_usage(acc, &ev["usage"]);
}

fn feed_openai_responses(acc: &mut Acc, ev: &Value) {
    match ev["type"].as_str().unwrap_or("") {
        "response.output_text.delta" => {
            acc.text.push_str(ev["delta"].as_str().unwrap_or(""));
        }
        "response.completed" | "response.incomplete" | "response.failed" => {
            responses_final(acc, &ev["response"]);
        }
        "error" => {
            acc.error = Some(
                ev["message"]
                    .as_str()
                    .or(ev["error"]["message"].as_str())
                    .unwrap_or("error")
                    .to_string(),
            );
        }
        _ => {}
    }
}

fn feed_anthropic(acc: &mut Acc, ev: &Value) {
    match ev["type"].as_str().unwrap_or("") {
        "message_start" => {
            if let Some(m) = ev["message"]["model"].as_str() {
                acc.model = m.to_string();
            }
            anthropic_usage(acc, &ev["message"]["usage"]);
        }
        "content_block_delta" => {
            let d = &ev["delta"];
            let t = d["text"].as_str().or(d["partial_json"].as_str());
            acc.text.push_str(t.unwrap_or(""));
        }
        "message_delta" => {
            if let Some(r) = ev["delta"]["stop_reason"].as_str() {
                acc.finish = Some(finish_anthropic(r));
            }
            anthropic_usage(acc, &ev["usage"]);
        }
        "message_stop" => acc.done = true,
        "error" => {
            acc.error = Some(
                ev["error"]["message"]
                    .as_str()
                    .unwrap_or("error")
                    .to_string(),
            );
        }
        _ => {}
    }
}

fn feed_ollama(acc: &mut Acc, ev: &Value) {
    if let Some(m) = ev["model"].as_str() {
        acc.model = m.to_string();
    }
    if let Some(e) = ev["error"].as_str() {
        acc.error = Some(e.to_string());
    }
    acc.text
        .push_str(ev["message"]["content"].as_str().unwrap_or(""));
    if ev["done"] == true {
        acc.done = true;
        acc.finish = Some(match ev["done_reason"].as_str() {
            Some("length") => Finish::Length,
            _ => Finish::Stop,
        });
        acc.prompt_eval = ev["prompt_eval_count"].as_u64();
        acc.usage.input = u(&ev["prompt_eval_count"]);
        acc.usage.output = u(&ev["eval_count"]);
    }
}

/// Reads a whole (non-streamed) answer.
pub fn whole(wire: Wire, body: &Value) -> Acc {
    let mut acc = Acc::default();
    match wire {
        Wire::OpenAiChat => {
            acc.model = body["model"].as_str().unwrap_or("").to_string();
            let choice = &body["choices"][0];
            acc.text = choice["message"]["content"]
                .as_str()
                .unwrap_or("")
                .to_string();
            acc.finish = choice["finish_reason"].as_str().map(finish_openai);
            openai_usage(&mut acc, &body["usage"]);
            if let Some(e) = body["error"]["message"].as_str() {
                acc.error = Some(e.to_string());
            }
        }
        Wire::OpenAiResponses => {
            for item in body["output"].as_array().into_iter().flatten() {
                for part in item["content"].as_array().into_iter().flatten() {
                    if part["type"] == "output_text" {
                        acc.text.push_str(part["text"].as_str().unwrap_or(""));
                    }
                }
            }
            responses_final(&mut acc, body);
        }
        Wire::Anthropic => {
            acc.model = body["model"].as_str().unwrap_or("").to_string();
            for block in body["content"].as_array().into_iter().flatten() {
                match block["type"].as_str() {
                    Some("text") => acc.text.push_str(block["text"].as_str().unwrap_or("")),
                    Some("tool_use") => acc.text.push_str(&block["input"].to_string()),
                    _ => {}
                }
            }
            acc.finish = body["stop_reason"].as_str().map(finish_anthropic);
            anthropic_usage(&mut acc, &body["usage"]);
            if let Some(e) = body["error"]["message"].as_str() {
                acc.error = Some(e.to_string());
            }
        }
        Wire::Ollama => {
            feed(Wire::Ollama, &mut acc, body);
        }
    }
    acc.done = true;
    acc
}
