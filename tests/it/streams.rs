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
