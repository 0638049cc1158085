//! Answers that never lie: a stream that closes without its end marker, an answer past its size
//! cap, a server refusing the structured-output format with a 5xx, and a prompt longer than the
//! server's window, each through the real binary against a fake server speaking all four wire
//! formats. Every failure must leave the repository as it was.

use crate::common;

use common::TestRepo;
use common::fake_llm::{self, FakeLlm, Reply, Wire};
use serde_json::Value;

const WIRES: [Wire; 4] = [Wire::Chat, Wire::Responses, Wire::Anthropic, Wire::Ollama];

fn repo() -> TestRepo {
    TestRepo::with_files(&[("README.md", "# demo\n"), ("src/lib.rs", "pub fn f() {}\n")])
}

fn answer(path: &str) -> String {
    serde_json::json!({
        "summary": format!("Add {path}"),
        "actions": [{"kind": "CREATE_FILE", "path": path, "content": "text\n"}]
    })
    .to_string()
}

fn reply(wire: Wire, text: &str) -> Reply {
    match wire {
        Wire::Chat => fake_llm::openai_chat(text),
        Wire::Responses => fake_llm::responses(text),
        Wire::Anthropic => fake_llm::anthropic(text),
        Wire::Ollama => fake_llm::ollama(text),
    }
}

/// Points the repository at `fake` as a named provider speaking `wire`.
fn configure(repo: &TestRepo, fake: &FakeLlm, wire: Wire) {
    let (name, url) = match wire {
        Wire::Chat => ("openai", format!("{}/v1", fake.url())),
        Wire::Responses => ("responses", format!("{}/v1", fake.url())),
        Wire::Anthropic => ("anthropic", fake.url()),
        Wire::Ollama => ("ollama", fake.url()),
    };
    repo.git(["config", "papayu.fake.url", &url]).ok();
    repo.git(["config", "papayu.fake.wire", name]).ok();
    repo.git(["config", "papayu.fake.model", "fake-model"]).ok();
    repo.git(["config", "papayu.provider", "fake"]).ok();
}

fn plan(repo: &TestRepo, args: &[&str], extra: &[(&str, &str)]) -> common::Run {
    let mut env = vec![
        ("PAPAYU_LLM_TIMEOUT_SEC", "5"),
        ("PAPAYU_LLM_RETRY_BASE_MS", "1"),
    ];
    env.extend_from_slice(extra);
    let mut all = vec!["plan"];
    all.extend_from_slice(args);
    repo.papayu_env(&all, &env)
}

/// Paths the stored plans create, read back through git.
fn planned_paths(repo: &TestRepo, out: &common::Run) -> Vec<String> {
    let doc: Value = serde_json::from_str(&out.stdout).expect("one JSON document");
    let preview = doc["plans"][0]["plan"]["preview"]
        .as_str()
        .expect("a preview commit")
        .to_string();
    repo.git(["diff", "--name-only", "HEAD", &preview])
        .ok()
        .stdout
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn a_stream_without_its_end_marker_is_a_dropped_connection_on_every_wire() {
    for wire in WIRES {
        // The draft the model was about to withdraw is complete JSON, yet never stored.
        let repo = repo();
        let fake = FakeLlm::start(vec![
            reply(wire, &answer("DRAFT.md")).cut(),
            reply(wire, &answer("FINAL.md")),
        ]);
        configure(&repo, &fake, wire);
        let out = plan(&repo, &["Add a file", "--json"], &[]).ok();
        assert_eq!(fake.requests().len(), 2, "{wire:?}: one retry\n{out:?}");
        assert_eq!(planned_paths(&repo, &out), ["FINAL.md"], "{wire:?}");
        let second = &fake.requests()[1].body;
        assert!(
            !second.contains("DRAFT.md"),
            "{wire:?}: the draft is not sent back"
        );
    }
}

#[test]
fn a_stream_cut_every_time_fails_and_stores_nothing() {
    for wire in WIRES {
        let repo = repo();
        let before = repo.snapshot();
        // Cut inside the JSON: a dropped connection, not something to repair.
        let fake = FakeLlm::start(vec![
            reply(wire, r#"{"summary": "Add", "actions": [{"#).cut(),
        ]);
        configure(&repo, &fake, wire);
        let out = plan(&repo, &["Add a file"], &[]).err("ERR_LLM_STREAM_CUT");
        assert_eq!(
            fake.requests().len(),
            3,
            "{wire:?}: three tries, no repair\n{out:?}"
        );
        assert!(
            out.stderr.contains("end marker"),
            "{wire:?}: {}",
            out.stderr
        );
        assert_eq!(repo.snapshot(), before, "{wire:?}: nothing stored");
    }
}

#[test]
fn a_whole_json_body_instead_of_a_stream_still_works() {
    for wire in WIRES {
        let repo = repo();
        let fake = FakeLlm::start(vec![reply(wire, &answer("WHOLE.md")).whole()]);
        configure(&repo, &fake, wire);
        let out = plan(&repo, &["Add a file", "--json"], &[]).ok();
        assert_eq!(planned_paths(&repo, &out), ["WHOLE.md"], "{wire:?}");
        assert_eq!(fake.requests().len(), 1);
    }
}

#[test]
fn an_oversized_stream_is_not_read_whole_nor_repaired() {
    for wire in WIRES {
        let repo = repo();
        let before = repo.snapshot();
        // Far past the cap for the answer budget (16,384 tokens: 128 KiB of text).
        let fake = FakeLlm::start(vec![fake_llm::flood(wire, 64 * 1024 * 1024)]);
        configure(&repo, &fake, wire);
        let started = std::time::Instant::now();
        let out = plan(&repo, &["Add a file"], &[]).err("ERR_LLM_ANSWER_TOO_LARGE");
        assert_eq!(
            fake.requests().len(),
            1,
            "{wire:?}: no retry, no repair\n{out:?}"
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "{wire:?}: reading stopped at the cap"
        );
        assert_eq!(repo.snapshot(), before, "{wire:?}: nothing stored");
    }
}

#[test]
fn an_oversized_whole_body_is_refused_too() {
    let repo = repo();
    let before = repo.snapshot();
    let huge = "y".repeat(400 * 1024);
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&huge).whole()]);
    configure(&repo, &fake, Wire::Chat);
    plan(&repo, &["Add a file"], &[]).err("ERR_LLM_ANSWER_TOO_LARGE");
    assert_eq!(fake.requests().len(), 1);
    assert_eq!(repo.snapshot(), before);
}

#[test]
fn a_server_error_naming_the_format_is_a_format_refusal() {
    // llama.cpp's answer to a json_schema it cannot compile.
    let body = r#"{"error":{"code":500,"message":"JSON schema conversion failed: unsupported response_format json_schema","type":"server_error"}}"#;
    let repo = repo();
    let fake = FakeLlm::start(vec![
        fake_llm::status(500, body),
        fake_llm::openai_chat(&answer("NOTES.md")),
    ]);
    configure(&repo, &fake, Wire::Chat);
    let out = plan(
        &repo,
        &["Add notes", "--json"],
        &[("PAPAYU_LLM_STRICT_JSON", "1"), ("PAPAYU_TRACE", "1")],
    )
    .ok();
    assert!(
        out.stderr.contains("LLM_RESPONSE_FORMAT_FALLBACK"),
        "{}",
        out.stderr
    );
    let requests = fake.requests();
    assert_eq!(requests.len(), 2, "one try without the format, no retries");
    assert!(requests[0].json.get("response_format").is_some());
    assert!(requests[1].json.get("response_format").is_none());
    assert_eq!(planned_paths(&repo, &out), ["NOTES.md"]);
}

#[test]
fn a_server_error_not_naming_the_format_is_still_retried() {
    let repo = repo();
    let fake = FakeLlm::start(vec![
        fake_llm::status(500, r#"{"error":{"message":"boom"}}"#),
        fake_llm::openai_chat(&answer("NOTES.md")),
    ]);
    configure(&repo, &fake, Wire::Chat);
    let out = plan(
        &repo,
        &["Add notes"],
        &[("PAPAYU_LLM_STRICT_JSON", "1"), ("PAPAYU_TRACE", "1")],
    )
    .ok();
    assert!(!out.stderr.contains("LLM_RESPONSE_FORMAT_FALLBACK"));
    let requests = fake.requests();
    assert!(requests[1].json.get("response_format").is_some());
}

#[test]
fn a_prompt_over_the_window_is_named_as_such() {
    let repo = repo();
    let before = repo.snapshot();
    let body = r#"{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}"#;
    let fake = FakeLlm::start(vec![fake_llm::status(400, body)]);
    configure(&repo, &fake, Wire::Chat);
    let out = plan(&repo, &["Add notes"], &[]).err("ERR_LLM_CONTEXT_TOO_LONG");
    assert!(
        out.stderr.contains("PAPAYU_CONTEXT_MAX_TOTAL_CHARS") && out.stderr.contains("characters"),
        "{}",
        out.stderr
    );
    assert_eq!(fake.requests().len(), 1);
    assert_eq!(repo.snapshot(), before);
}

#[test]
fn a_refused_key_names_the_variable_to_set() {
    let repo = repo();
    let body = r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#;
    let fake = FakeLlm::start(vec![fake_llm::status(401, body)]);
    let url = format!("{}/v1", fake.url());
    repo.git(["config", "papayu.openai.url", &url]).ok();
    repo.git(["config", "papayu.provider", "openai:gpt-test"])
        .ok();
    let before = repo.snapshot();
    let out = plan(
        &repo,
        &["Add notes"],
        &[("OPENAI_API_KEY", "sk-wrong-key-123456")],
    )
    .err("ERR_LLM_AUTH");
    assert!(
        out.stderr
            .contains("the key came from OPENAI_API_KEY: set OPENAI_API_KEY to a valid key"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("sk-wrong-key"), "{}", out.stderr);
    assert_eq!(fake.requests().len(), 1, "a refused key is not retried");
    assert_eq!(repo.snapshot(), before);

    // A server of the user's own that wants a key none was given for: the variable it reads.
    let fake = FakeLlm::start(vec![fake_llm::status(401, body)]);
    configure(&repo, &fake, Wire::Chat);
    let out = plan(&repo, &["Add notes"], &[]).err("ERR_LLM_AUTH");
    assert!(
        out.stderr
            .contains("fake refused the request without a key (401)")
            && out.stderr.contains("set PAPAYU_LLM_API_KEY to fake's key"),
        "{}",
        out.stderr
    );
}

#[test]
fn an_empty_stream_after_a_large_prompt_is_a_prompt_too_long() {
    let repo = repo();
    let log = repo.path().join("build.log");
    let lines: String = (0..600)
        .map(|i| format!("error[E0599]: no method named `frobnicate_{i}` found in src/lib.rs\n"))
        .collect();
    std::fs::write(&log, lines).unwrap();
    let before = repo.snapshot();
    let fake = FakeLlm::start(vec![fake_llm::empty_stream(Wire::Chat)]);
    configure(&repo, &fake, Wire::Chat);
    let out = plan(
        &repo,
        &["Fix the build", "--log", log.to_str().unwrap()],
        &[],
    )
    .err("ERR_LLM_CONTEXT_TOO_LONG");
    assert!(out.stderr.contains("empty stream"), "{}", out.stderr);
    assert_eq!(fake.requests().len(), 1, "not retried");
    assert_eq!(repo.snapshot(), before);
}

/// llama.cpp's server with a small window streams nothing for a prompt of a few thousand
/// tokens: the error names the window and how to raise it, once, instead of three dropped
/// connections.
#[test]
fn an_empty_stream_after_a_prompt_over_a_small_window_names_the_window() {
    let repo = repo();
    let log = repo.path().join("build.log");
    let lines: String = (0..100)
        .map(|i| format!("error[E0599]: no method named `frobnicate_{i}` found in src/lib.rs\n"))
        .collect();
    std::fs::write(&log, lines).unwrap();
    let before = repo.snapshot();
    let fake = FakeLlm::start(vec![
        fake_llm::empty_stream(Wire::Chat),
        fake_llm::empty_stream(Wire::Chat),
        fake_llm::empty_stream(Wire::Chat),
    ]);
    configure(&repo, &fake, Wire::Chat);
    let out = plan(
        &repo,
        &["Fix the build", "--log", log.to_str().unwrap()],
        &[],
    )
    .err("ERR_LLM_CONTEXT_TOO_LONG");
    let tokens: u64 = out
        .stderr
        .split("about ")
        .nth(1)
        .and_then(|rest| rest.split(" tokens").next())
        .and_then(|n| n.replace(',', "").parse().ok())
        .unwrap_or_else(|| panic!("the prompt's estimated tokens: {}", out.stderr));
    assert!(
        (2_048..4_096).contains(&tokens),
        "a prompt within Ollama's default windows: {tokens}"
    );
    for said in ["empty stream", "window", "num_ctx", "--ctx-size"] {
        assert!(out.stderr.contains(said), "{said}: {}", out.stderr);
    }
    assert!(!out.stderr.contains("ERR_LLM_STREAM_CUT"), "{}", out.stderr);
    assert_eq!(fake.requests().len(), 1, "not retried");
    assert_eq!(repo.snapshot(), before);
}

#[test]
fn an_empty_stream_after_a_small_prompt_is_a_dropped_connection() {
    let repo = repo();
    let fake = FakeLlm::start(vec![
        fake_llm::empty_stream(Wire::Chat),
        fake_llm::openai_chat(&answer("NOTES.md")),
    ]);
    configure(&repo, &fake, Wire::Chat);
    let out = plan(&repo, &["Add notes", "--json"], &[]).ok();
    assert_eq!(fake.requests().len(), 2);
    assert_eq!(planned_paths(&repo, &out), ["NOTES.md"]);
}

#[test]
fn a_retry_says_what_it_waits_for() {
    let repo = repo();
    let fake = FakeLlm::start(vec![
        fake_llm::status(429, r#"{"error":{"message":"slow down"}}"#).header("retry-after", "1"),
        fake_llm::status(503, r#"{"error":{"message":"overloaded"}}"#).header("retry-after", "0"),
        fake_llm::openai_chat(&answer("NOTES.md")),
    ]);
    configure(&repo, &fake, Wire::Chat);
    let out = plan(&repo, &["Add notes"], &[]).ok();
    assert!(
        out.stderr
            .contains("fake: rate limited (429), retry 2/3 in 1 s"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("fake: server error (503), retry 3/3 in 0 ms"),
        "{}",
        out.stderr
    );
}

#[test]
fn an_oversized_error_body_is_cut_not_read_whole() {
    let repo = repo();
    let before = repo.snapshot();
    let huge = format!("{{\"error\":{{\"message\":\"{}\"}}}}", "z".repeat(16 << 20));
    let fake = FakeLlm::start(vec![fake_llm::status(400, &huge)]);
    configure(&repo, &fake, Wire::Chat);
    let out = plan(&repo, &["Add a file"], &[]).code(1);
    assert!(
        out.stderr.contains("ERR_LLM"),
        "{}",
        &out.stderr[..out.stderr.len().min(2000)]
    );
    assert!(
        out.stderr.len() < 256 * 1024,
        "the error body is cut, not echoed whole: {} bytes",
        out.stderr.len()
    );
    assert_eq!(repo.snapshot(), before);
}

// ---------------------------------------------------------------------------------------------
// The cost cap counts every try.

/// Dollars per million input, output and cached tokens the cost tests price the fake at.
const PRICE: &str = "1,2,0.5";

/// What one request of the fake's usage costs at [`PRICE`]: 176 uncached and 1,024 cached
/// prompt tokens, and `output` answer tokens.
fn fake_cost(output: u64) -> f64 {
    (176.0 + 1024.0 * 0.5 + output as f64 * 2.0) / 1_000_000.0
}

#[test]
fn a_stream_cut_after_its_usage_is_counted_with_the_retry() {
    // Chat Completions sends its usage as a chunk of its own; Anthropic's comes at the start
    // (`message_start`, one output token so far).
    let cases = [
        (
            Wire::Chat,
            reply(Wire::Chat, &answer("DRAFT.md")).cut_after_usage(),
            fake_cost(80) * 2.0,
        ),
        (
            Wire::Anthropic,
            reply(Wire::Anthropic, &answer("DRAFT.md")).cut(),
            fake_cost(1) + fake_cost(80),
        ),
    ];
    for (wire, cut, both) in cases {
        let repo = repo();
        let fake = FakeLlm::start(vec![cut, reply(wire, &answer("FINAL.md"))]);
        configure(&repo, &fake, wire);
        repo.git(["config", "papayu.fake.price", PRICE]).ok();
        let out = plan(&repo, &["Add a file", "--json"], &[]).ok();
        assert_eq!(fake.requests().len(), 2, "{wire:?}: one retry\n{out:?}");
        assert_eq!(planned_paths(&repo, &out), ["FINAL.md"], "{wire:?}");
        let doc: Value = serde_json::from_str(&out.stdout).unwrap();
        let stats = &doc["plans"][0]["plan"]["stats"];
        let recorded = stats["cost_usd"].as_f64().expect("a cost");
        assert!(
            (recorded - both).abs() < 1e-9,
            "{wire:?}: both tries cost {both}, recorded {recorded}"
        );
        assert_eq!(stats["input_tokens"], 2400, "{wire:?}: {stats}");
    }
}

/// The most the fake's first request of a plan for `goal` in [`repo`] can cost at [`PRICE`],
/// as the cap estimates it: every prompt character a third of a token, plus the answer budget.
fn estimate_of_first_request(goal: &str) -> f64 {
    let repo = repo();
    let fake = FakeLlm::start(vec![reply(Wire::Chat, &answer("NOTES.md"))]);
    configure(&repo, &fake, Wire::Chat);
    plan(&repo, &[goal], &[]).ok();
    let sent = &fake.requests()[0].json;
    let chars: usize = sent["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().expect("text content").len())
        .sum();
    let max_tokens = sent["max_tokens"].as_u64().unwrap();
    (chars.div_ceil(3) as f64 + max_tokens as f64 * 2.0) / 1_000_000.0
}

#[test]
fn a_cap_that_allows_one_try_refuses_the_retry() {
    let estimate = estimate_of_first_request("Add a file");
    let repo = repo();
    let before = repo.snapshot();
    let fake = FakeLlm::start(vec![
        reply(Wire::Chat, &answer("DRAFT.md")).cut_after_usage(),
        reply(Wire::Chat, &answer("FINAL.md")),
    ]);
    configure(&repo, &fake, Wire::Chat);
    repo.git(["config", "papayu.fake.price", PRICE]).ok();
    // Room for one try's estimate, not for a second after the first one's usage.
    let cap = format!("{:.6}", estimate + fake_cost(80) / 2.0);
    let out = plan(&repo, &["Add a file", "--max-cost", &cap], &[]).err("ERR_COST_CAP");
    assert_eq!(fake.requests().len(), 1, "the retry is not sent\n{out:?}");
    assert!(
        out.stderr.contains("would pass the cost cap"),
        "{}",
        out.stderr
    );
    assert_eq!(repo.snapshot(), before, "nothing stored");
}
