//! The plan loop through the real binary against in-process fake providers that speak each
//! provider's wire format. Every test checks what was sent, what was stored, and (on failure)
//! that nothing was.

use crate::common;
use common::{compat_env, create_answer, run_with_env as run};

use common::TestRepo;
use common::fake_llm::{self, FakeLlm};
use serde_json::Value;
use sha2::{Digest, Sha256};

const LIB: &str = "def total(items):\n    return sum(items)\n\n\ndef mean(items):\n    return total(items) / len(items)\n";

fn repo() -> TestRepo {
    TestRepo::with_files(&[
        ("src/stats.py", LIB),
        (
            "tests/test_stats.py",
            "from src.stats import mean\n\ndef test_empty():\n    assert mean([]) == 0\n",
        ),
        ("README.md", "# stats\n"),
    ])
}

fn sha(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The v2 fix of `mean([])`, as a patch pinned to the file's hash; `context_line` is the
/// second line of context (the real one, or a wrong one that cannot apply).
fn patch_answer(context_line: &str) -> String {
    let patch = format!(
        "@@ -5,2 +5,4 @@\n def mean(items):\n+    if not items:\n+        return 0\n {context_line}\n"
    );
    serde_json::json!({
        "summary": "mean([]) returns 0",
        "actions": [{"kind": "PATCH_FILE", "path": "src/stats.py", "patch": patch, "base_sha256": sha(LIB)}]
    })
    .to_string()
}

fn fixed_lib() -> String {
    LIB.replace(
        "def mean(items):\n",
        "def mean(items):\n    if not items:\n        return 0\n",
    )
}

fn v1_answer() -> String {
    serde_json::json!({
        "summary": "mean([]) returns 0",
        "actions": [{"kind": "UPDATE_FILE", "path": "src/stats.py", "content": fixed_lib()}]
    })
    .to_string()
}

fn context_only(path: &str) -> String {
    serde_json::json!({
        "summary": "need to see the code",
        "actions": [],
        "context_requests": [{"type": "read_file", "path": path}]
    })
    .to_string()
}

fn traceback_log(repo: &TestRepo) -> std::path::PathBuf {
    let log = "Traceback (most recent call last):\n  File \"/home/ci/checkout/tests/test_stats.py\", line 4, in test_empty\n    assert mean([]) == 0\n  File \"/home/ci/checkout/src/stats.py\", line 6, in mean\n    return total(items) / len(items)\nZeroDivisionError: division by zero\n";
    let path = repo.path().join("failure.log");
    std::fs::write(&path, log).unwrap();
    path
}

fn notes(repo: &TestRepo) -> Vec<Value> {
    let run = repo.git(["notes", "--ref=papayu", "show", "HEAD"]);
    if run.status != Some(0) {
        return Vec::new();
    }
    run.stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("note lines are JSON"))
        .filter(|v: &Value| v.get("event").is_none())
        .collect()
}

fn user_texts(body: &Value) -> String {
    body["messages"]
        .as_array()
        .map(|m| {
            m.iter()
                .map(|x| x["content"].as_str().unwrap_or("").to_string())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

#[test]
fn a_clean_plan_from_an_openai_compatible_server() {
    let repo = repo();
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&create_answer(
        "CHANGELOG.md",
        "# Changes\n",
    ))]);
    let out = run(
        &repo,
        &["plan", "Add a changelog", "--json"],
        &compat_env(&fake),
    )
    .ok();
    let stored: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(stored["plans"][0]["plan"]["provider"], "openai-compatible");
    let records = notes(&repo);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["stats"]["requests"], 1);
    let requests = fake.requests();
    assert_eq!(requests.len(), 1);
    let req = &requests[0];
    assert_eq!(req.path, "/v1/chat/completions");
    assert!(
        req.header("authorization").is_none(),
        "no key, no Authorization"
    );
    assert_eq!(req.json["model"], "test-model");
    assert_eq!(req.json["temperature"], 0.0);
    assert_eq!(req.json["messages"][0]["role"], "system");
    assert!(
        req.json.get("response_format").is_none(),
        "not strict by default"
    );
    assert!(user_texts(&req.json).contains("Add a changelog"));
    assert!(
        req.json["prompt_cache_key"].as_str().is_some(),
        "a cache key groups requests: {}",
        req.json
    );
    repo.fsck();
}

#[test]
fn json_in_a_fence_or_inside_prose_is_read() {
    for wrap in [
        |a: &str| format!("Here you go:\n```json\n{a}\n```\n"),
        |a: &str| format!("I propose {a} — hope it helps."),
    ] {
        let repo = repo();
        let fake = FakeLlm::start(vec![fake_llm::openai_chat(&wrap(&create_answer(
            "NOTES.md", "notes\n",
        )))]);
        run(&repo, &["plan", "Add notes"], &compat_env(&fake)).ok();
        assert_eq!(notes(&repo).len(), 1);
    }
}

#[test]
fn invalid_json_then_a_good_repair_keeps_the_prefix() {
    let repo = repo();
    let fake = FakeLlm::start(vec![
        fake_llm::openai_chat("{\"actions\": [ oops"),
        fake_llm::openai_chat(&create_answer("NOTES.md", "notes\n")),
    ]);
    let out = run(&repo, &["plan", "Add notes"], &compat_env(&fake)).ok();
    // What happens is said while it happens, with the first problem's reason.
    let said = out
        .stderr
        .lines()
        .find(|l| l.contains("answer rejected ("))
        .unwrap_or_else(|| panic!("no repair line: {}", out.stderr));
    assert!(said.ends_with("; asking again (repair 1/1)"), "{said}");
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    let first = requests[0].json["messages"].as_array().unwrap().clone();
    let second = requests[1].json["messages"].as_array().unwrap().clone();
    assert_eq!(second.len(), first.len() + 2);
    assert_eq!(
        &second[..first.len()],
        &first[..],
        "the repair resends the prefix byte for byte"
    );
    assert_eq!(second[first.len()]["role"], "assistant");
    let repair = second[first.len() + 1]["content"].as_str().unwrap();
    assert!(
        repair.contains("ERR_"),
        "the repair names the problem: {repair}"
    );
    assert_eq!(notes(&repo)[0]["stats"]["repairs"], 1);
}

#[test]
fn invalid_twice_fails_and_stores_nothing() {
    let repo = repo();
    let before = repo.snapshot();
    let fake = FakeLlm::start(vec![
        fake_llm::openai_chat("no json here"),
        fake_llm::openai_chat("still none"),
    ]);
    let out = run(&repo, &["plan", "Add notes"], &compat_env(&fake)).code(1);
    assert!(out.stderr.contains("ERR_NO_JSON"), "{}", out.stderr);
    assert_eq!(fake.requests().len(), 2);
    assert_eq!(repo.snapshot(), before, "nothing was written");
}

#[test]
fn structured_output_rejected_falls_back_without_it() {
    let repo = repo();
    let fake = FakeLlm::start(vec![
        fake_llm::status(
            400,
            r#"{"error":{"message":"Invalid schema for response_format 'papayu_plan_v2'","type":"invalid_request_error","param":"response_format"}}"#,
        ),
        fake_llm::openai_chat(&create_answer("NOTES.md", "notes\n")),
    ]);
    let mut env = compat_env(&fake);
    env.push(("PAPAYU_LLM_STRICT_JSON".into(), "1".into()));
    env.push(("PAPAYU_TRACE".into(), "1".into()));
    let out = run(&repo, &["plan", "Add notes"], &env).ok();
    assert!(
        out.stderr.contains("LLM_RESPONSE_FORMAT_FALLBACK"),
        "{}",
        out.stderr
    );
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    assert!(requests[0].json.get("response_format").is_some());
    assert!(requests[1].json.get("response_format").is_none());
}

#[test]
fn rate_limited_then_served() {
    let repo = repo();
    let fake = FakeLlm::start(vec![
        fake_llm::status(429, r#"{"error":{"message":"slow down"}}"#).header("retry-after", "1"),
        fake_llm::openai_chat(&create_answer("NOTES.md", "notes\n")),
    ]);
    let started = std::time::Instant::now();
    run(&repo, &["plan", "Add notes"], &compat_env(&fake)).ok();
    assert!(
        started.elapsed() >= std::time::Duration::from_millis(900),
        "Retry-After is honoured"
    );
    assert_eq!(fake.requests().len(), 2);
}

#[test]
fn server_errors_three_times_fail_clearly_and_store_nothing() {
    let repo = repo();
    let before = repo.snapshot();
    let fake = FakeLlm::start(vec![fake_llm::status(
        500,
        r#"{"error":{"message":"boom"}}"#,
    )]);
    let out = run(&repo, &["plan", "Add notes"], &compat_env(&fake)).code(1);
    assert!(out.stderr.contains("ERR_LLM_SERVER"), "{}", out.stderr);
    assert_eq!(fake.requests().len(), 3);
    assert_eq!(repo.snapshot(), before);
}

#[test]
fn a_silent_server_times_out() {
    let repo = repo();
    let fake = FakeLlm::start(vec![
        fake_llm::openai_chat(&create_answer("NOTES.md", "n\n"))
            .delay(std::time::Duration::from_secs(4)),
    ]);
    let mut env = compat_env(&fake);
    env.retain(|(k, _)| k != "PAPAYU_LLM_TIMEOUT_SEC");
    env.push(("PAPAYU_LLM_TIMEOUT_SEC".into(), "1".into()));
    let out = run(&repo, &["plan", "Add notes"], &env).code(1);
    assert!(out.stderr.contains("ERR_LLM_TIMEOUT"), "{}", out.stderr);
    assert!(notes(&repo).is_empty());
}

#[test]
fn a_truncated_answer_is_reported_not_repaired() {
    let repo = repo();
    let fake = FakeLlm::start(vec![fake_llm::openai_chat_truncated(
        "{\"actions\": [{\"kind\": \"CREATE_FILE\"",
    )]);
    let out = run(&repo, &["plan", "Add notes"], &compat_env(&fake)).code(1);
    assert!(out.stderr.contains("ERR_LLM_TRUNCATED"), "{}", out.stderr);
    assert_eq!(fake.requests().len(), 1, "no repair round for a cut answer");
    assert!(notes(&repo).is_empty());
}

#[test]
fn a_context_round_trip_then_a_patch() {
    let repo = repo();
    let fake = FakeLlm::start(vec![
        fake_llm::openai_chat(&context_only("src/stats.py")),
        fake_llm::openai_chat(&patch_answer("    return total(items) / len(items)")),
    ]);
    let out = run(
        &repo,
        &["plan", "Make mean of an empty list 0", "--json"],
        &compat_env(&fake),
    )
    .ok();
    assert!(
        out.stderr
            .contains("the model asked for src/stats.py; sending them (context round 1/"),
        "{}",
        out.stderr
    );
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    let second = user_texts(&requests[1].json);
    assert!(second.contains("FILE[src/stats.py]"), "{second}");
    assert!(
        second.contains(&sha(LIB)),
        "v2 FILE blocks carry the sha256"
    );
    let stored: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(stored["plans"][0]["plan"]["stats"]["context_rounds"], 1);
    let context = stored["plans"][0]["plan"]["context"].as_array().unwrap();
    assert!(
        context.iter().any(|f| f["path"] == "src/stats.py"),
        "the fingerprint records what was sent"
    );
}

/// `show --conversation` printed each answer as one line of JSON with the patch's newlines
/// escaped, and said nothing of what a context round sent; `trace show` masked the round's
/// cache key (`key=read_file:src/stats.py`) as if it were a credential.
#[test]
fn the_conversation_reads_out_context_rounds_and_patches() {
    let repo = repo();
    let fake = FakeLlm::start(vec![
        fake_llm::openai_chat(&context_only("src/stats.py")),
        fake_llm::openai_chat(&patch_answer("    return total(items) / len(items)")),
    ]);
    let out = run(
        &repo,
        &["plan", "Make mean of an empty list 0", "--json"],
        &compat_env(&fake),
    )
    .ok();
    let stored: Value = serde_json::from_str(&out.stdout).unwrap();
    let id = stored["plans"][0]["plan"]["id"].as_str().unwrap();
    let trace_id = stored["plans"][0]["plan"]["trace_id"].as_str().unwrap();

    let shown = repo.papayu(["show", id, "--conversation"]).ok().stdout;
    let round1 = shown.split("Round 1:").nth(1).unwrap_or_default();
    let round1 = round1.split("Round 2:").next().unwrap_or_default();
    for expected in [
        "    asks for context:\n      read_file src/stats.py\n",
        "  context added:\n    asked  read_file:src/stats.py\n    given  file   src/stats.py (",
    ] {
        assert!(round1.contains(expected), "{expected:?} in\n{shown}");
    }
    let round2 = shown.split("Round 2:").nth(1).unwrap_or_default();
    for expected in [
        "    summary: mean([]) returns 0\n",
        "    PATCH_FILE src/stats.py (base sha256 ",
        "      @@ -5,2 +5,4 @@\n       def mean(items):\n      +    if not items:\n      +        return 0\n",
    ] {
        assert!(round2.contains(expected), "{expected:?} in\n{shown}");
    }
    assert!(!shown.contains("\\n"), "no escaped newlines:\n{shown}");

    let json: Value = serde_json::from_str(
        &repo
            .papayu(["show", id, "--conversation", "--json"])
            .ok()
            .stdout,
    )
    .unwrap();
    let added = &json["conversation"]["trace"]["context_added"][0];
    assert_eq!(added["after_request"], 1);
    assert_eq!(added["asked"][0], "read_file:src/stats.py");
    assert_eq!(added["given"][0]["title"], "src/stats.py");

    let trace = repo.papayu(["trace", "show", trace_id]).ok().stdout;
    assert!(
        trace.contains("key=read_file:src/stats.py"),
        "a cache key is no secret:\n{trace}"
    );
    assert!(!trace.contains("[MASKED]"), "{trace}");
}

#[test]
fn a_model_that_only_asks_for_context_is_stopped() {
    let repo = repo();
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&context_only("README.md"))]);
    let out = run(&repo, &["plan", "Do something"], &compat_env(&fake)).code(1);
    assert!(
        out.stderr.contains("ERR_LLM_CONTEXT_ROUNDS"),
        "{}",
        out.stderr
    );
    assert_eq!(
        fake.requests().len(),
        3,
        "the first answer and two context rounds"
    );
    assert!(notes(&repo).is_empty());
}

#[test]
fn a_v2_patch_that_fails_is_repaired_then_falls_back_to_v1() {
    let repo = repo();
    let bad = patch_answer("    return something_else(items)");
    let fake = FakeLlm::start(vec![
        fake_llm::openai_chat(&bad),
        fake_llm::openai_chat(&bad),
        fake_llm::openai_chat(&v1_answer()),
    ]);
    let log = traceback_log(&repo);
    let mut env = compat_env(&fake);
    env.push(("PAPAYU_TRACE".into(), "1".into()));
    let out = run(
        &repo,
        &["plan", "Fix mean", "--log", log.to_str().unwrap(), "--json"],
        &env,
    )
    .ok();
    assert!(
        out.stderr
            .contains("PROTOCOL_FALLBACK from=v2 to=v1 reason=ERR_PATCH_APPLY_FAILED"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains(
            "the answer does not apply as protocol v2 (ERR_PATCH_APPLY_FAILED); asking again under v1"
        ),
        "{}",
        out.stderr
    );
    let requests = fake.requests();
    assert_eq!(requests.len(), 3);
    assert!(user_texts(&requests[1].json).contains("ERR_PATCH_APPLY_FAILED"));
    let system = requests[2].json["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("Protocol v1"), "{system}");
    let stored: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(stored["plans"][0]["plan"]["schema_version"], 1);
    assert_eq!(
        stored["plans"][0]["plan"]["stats"]["fallback"],
        "ERR_PATCH_APPLY_FAILED"
    );
    let preview = stored["plans"][0]["plan"]["preview"].as_str().unwrap();
    assert_eq!(
        repo.git(["show", &format!("{preview}:src/stats.py")])
            .ok()
            .stdout,
        fixed_lib()
    );
}

#[test]
fn an_update_of_a_file_never_shown_is_sent_back() {
    let repo = repo();
    let fake = FakeLlm::start(vec![
        fake_llm::openai_chat(&v1_answer()),
        fake_llm::openai_chat(&v1_answer()),
    ]);
    // No room for files: the model is shown the map only.
    let mut env = compat_env(&fake);
    env.push(("PAPAYU_CONTEXT_MAX_FILES".into(), "0".into()));
    let out = run(&repo, &["plan", "Fix mean", "--protocol", "1"], &env).code(1);
    assert!(
        out.stderr.contains("ERR_UPDATE_WITHOUT_BASE"),
        "{}",
        out.stderr
    );
    assert!(user_texts(&fake.requests()[1].json).contains("ERR_UPDATE_WITHOUT_BASE"));
    assert!(notes(&repo).is_empty());
}

#[test]
fn two_providers_give_two_plans_in_one_operation() {
    let repo = repo();
    let a = FakeLlm::start(vec![fake_llm::openai_chat(&create_answer("A.md", "a\n"))]);
    let b = FakeLlm::start(vec![fake_llm::openai_chat(&create_answer("B.md", "b\n"))]);
    for (name, fake) in [("alpha", &a), ("beta", &b)] {
        common::openai_provider(&repo, name, fake, None);
    }
    let env = vec![
        ("PAPAYU_LLM_PROVIDERS".to_string(), "alpha,beta".to_string()),
        ("PAPAYU_LLM_RETRY_BASE_MS".to_string(), "1".to_string()),
    ];
    run(&repo, &["plan", "Add docs"], &env).ok();
    let records = notes(&repo);
    assert_eq!(records.len(), 2);
    let mut providers: Vec<&str> = records
        .iter()
        .map(|r| r["provider"].as_str().unwrap())
        .collect();
    providers.sort();
    assert_eq!(providers, ["alpha", "beta"]);
    let list = repo.papayu(["list"]).ok().stdout;
    assert!(list.contains("alpha") && list.contains("beta"), "{list}");
    repo.papayu(["apply", "--all", "--no-check"]).ok();
    let branches = repo
        .git(["for-each-ref", "--format=%(refname)", "refs/heads/papayu/"])
        .ok()
        .stdout;
    assert_eq!(branches.lines().count(), 2, "{branches}");
    repo.fsck();
}

#[test]
fn ollama_gets_a_window_sized_to_the_prompt_and_a_cut_prompt_is_refused() {
    let repo = repo();
    let fake = FakeLlm::start(vec![fake_llm::ollama_with_eval(
        &create_answer("N.md", "n\n"),
        2048,
    )]);
    let big = "x".repeat(40_000);
    std::fs::write(repo.path().join("big.log"), format!("Traceback:\n{big}\n")).unwrap();
    let env = vec![
        ("PAPAYU_LLM_PROVIDERS".to_string(), "ollama".to_string()),
        ("OLLAMA_HOST".to_string(), fake.url()),
        ("PAPAYU_LLM_MODEL".to_string(), "llama3".to_string()),
        ("PAPAYU_LLM_RETRY_BASE_MS".to_string(), "1".to_string()),
        (
            "PAPAYU_CONTEXT_MAX_LOG_CHARS".to_string(),
            "50000".to_string(),
        ),
        (
            "PAPAYU_CONTEXT_MAX_FILE_CHARS".to_string(),
            "50000".to_string(),
        ),
    ];
    let out = run(&repo, &["plan", "Add notes", "--log", "big.log"], &env).code(1);
    assert!(
        out.stderr.contains("ERR_LLM_CONTEXT_TRUNCATED"),
        "{}",
        out.stderr
    );
    let req = &fake.requests()[0];
    assert_eq!(req.path, "/api/chat");
    let num_ctx = req.json["options"]["num_ctx"].as_u64().unwrap();
    assert!(
        num_ctx > 8192,
        "num_ctx sized to a ~40k-char prompt: {num_ctx}"
    );
    assert!(notes(&repo).is_empty());
}

#[test]
fn anthropic_marks_the_prefix_for_caching_and_keys_never_leak() {
    let repo = repo();
    let key = "sk-ant-test-0123456789abcdef";
    let fake = FakeLlm::start(vec![fake_llm::anthropic(&create_answer("N.md", "n\n"))]);
    let env = vec![
        ("PAPAYU_LLM_PROVIDERS".to_string(), "anthropic".to_string()),
        ("ANTHROPIC_BASE_URL".to_string(), fake.url()),
        ("ANTHROPIC_API_KEY".to_string(), key.to_string()),
        ("PAPAYU_LLM_MODEL".to_string(), "claude-test".to_string()),
        ("PAPAYU_TRACE".to_string(), "1".to_string()),
    ];
    let out = run(&repo, &["plan", "Add notes"], &env).ok();
    let req = &fake.requests()[0];
    assert_eq!(req.path, "/v1/messages");
    assert_eq!(req.header("x-api-key").as_deref(), Some(key));
    assert!(req.body.contains("cache_control"), "{}", req.body);
    let notes_text = repo.git(["log", "-p", "refs/notes/papayu"]).ok().stdout;
    let oplog = repo.git(["log", "refs/papayu/oplog"]).ok().stdout;
    for text in [&out.stdout, &out.stderr, &notes_text, &oplog] {
        assert!(!text.contains(key), "the key leaked: {text}");
    }
}

#[test]
fn a_whole_session_in_words() {
    let repo = repo();
    let fake = FakeLlm::start(vec![
        fake_llm::openai_chat(&context_only("src/stats.py")),
        fake_llm::openai_chat(&patch_answer("    return total(items) / len(items)")),
    ]);
    let mut env = compat_env(&fake);
    env.push((
        "PAPAYU_CHECK_COMMAND".into(),
        "grep -q 'if not items' src/stats.py".into(),
    ));
    let planned = run(&repo, &["fix the failing test"], &env).ok();
    assert!(
        planned.stdout.contains("mean([]) returns 0"),
        "{}",
        planned.stdout
    );
    let system = fake.requests()[0].json["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(system.contains("fixit"), "fix verbs ask in fixit mode");
    let applied = run(&repo, &["ok"], &env).ok();
    assert!(
        applied.stdout.contains("Applied plan"),
        "{}",
        applied.stdout
    );
    let branch = repo
        .git([
            "for-each-ref",
            "--format=%(refname:short)",
            "refs/heads/papayu/",
        ])
        .ok()
        .stdout;
    let branch = branch.trim();
    assert!(
        branch.starts_with("papayu/fix-the-failing-test-"),
        "{branch}"
    );
    assert_eq!(
        repo.git(["show", &format!("{branch}:src/stats.py")])
            .ok()
            .stdout,
        fixed_lib()
    );
    run(&repo, &["undo"], &env).ok();
    assert!(
        repo.git(["for-each-ref", "refs/heads/papayu/"])
            .ok()
            .stdout
            .is_empty()
    );
    repo.fsck();
}

#[test]
fn with_no_provider_configured_the_key_in_the_environment_chooses_it() {
    let repo = repo();
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&create_answer(
        "NOTES.md", "n\n",
    ))]);
    let env = vec![
        (
            "OPENAI_API_KEY".to_string(),
            "sk-test-from-env-0000".to_string(),
        ),
        ("OPENAI_BASE_URL".to_string(), format!("{}/v1", fake.url())),
        ("PAPAYU_LLM_RETRY_BASE_MS".to_string(), "1".to_string()),
    ];
    let out = run(&repo, &["plan", "Add notes"], &env).ok();
    let notice = "no provider is configured and OPENAI_API_KEY is set: asking openai:gpt-5-mini \
                  (choose with git config --global papayu.provider NAME:MODEL)";
    assert_eq!(
        out.stderr.matches(notice).count(),
        1,
        "said once: {}",
        out.stderr
    );
    let request = &fake.requests()[0];
    assert_eq!(request.json["model"], "gpt-5-mini");
    assert_eq!(
        request.header("authorization").as_deref(),
        Some("Bearer sk-test-from-env-0000")
    );
    // git papayu config says where the provider comes from.
    let config = run(&repo, &["config"], &env).ok();
    assert!(
        config.stdout.starts_with(&format!(
            "provider in use: openai:gpt-5-mini at {}/v1  (OPENAI_API_KEY is set and no provider \
             is configured)",
            fake.url()
        )),
        "{}",
        config.stdout
    );
    // A configured provider is asked without a word about keys.
    repo.git(["config", "papayu.provider", "openai:gpt-configured"])
        .ok();
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&create_answer(
        "TODO.md", "t\n",
    ))]);
    let env = vec![
        (
            "OPENAI_API_KEY".to_string(),
            "sk-test-from-env-0000".to_string(),
        ),
        ("OPENAI_BASE_URL".to_string(), format!("{}/v1", fake.url())),
    ];
    let out = run(&repo, &["plan", "Add todo"], &env).ok();
    assert!(
        !out.stderr.contains("no provider is configured"),
        "{}",
        out.stderr
    );
    assert_eq!(fake.requests()[0].json["model"], "gpt-configured");
}

#[test]
fn a_request_that_applies_does_not_first_say_apply_with() {
    let repo = repo();
    let fake = FakeLlm::start(vec![
        fake_llm::openai_chat(&create_answer("NOTES.md", "notes\n")),
        fake_llm::openai_chat(&create_answer("TODO.md", "todo\n")),
    ]);
    let mut env = compat_env(&fake);
    env.push(("PAPAYU_CHECK_COMMAND".into(), "true".into()));
    let applied = run(&repo, &["create NOTES.md with notes"], &env).ok();
    assert!(
        applied.stdout.contains("Applied plan"),
        "{}",
        applied.stdout
    );
    assert!(
        !applied.stdout.contains("Apply with:"),
        "the plan is applied next: {}",
        applied.stdout
    );
    // A plan that waits for the user still says how to apply it.
    let planned = run(&repo, &["plan: add a todo list"], &env).ok();
    assert!(
        planned.stdout.contains("Apply with: git papayu apply "),
        "{}",
        planned.stdout
    );
}

#[test]
fn an_unknown_single_word_is_a_usage_error() {
    let repo = repo();
    let out = repo.papayu(["bogus-command"]).code(2);
    assert!(out.stderr.contains("ERR_UNKNOWN_COMMAND"), "{}", out.stderr);
}

#[test]
fn checks_passed_by_exit_status_and_refinements_show_in_list_and_show() {
    let repo = repo();
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&create_answer(
        "NOTES.md", "n\n",
    ))]);
    run(&repo, &["plan", "Add notes"], &compat_env(&fake)).ok();
    let first = repo.papayu(["--json", "list"]).ok().stdout;
    let first: Value = serde_json::from_str(&first).unwrap();
    let first = first["plans"][0]["id"].as_str().unwrap().to_string();
    // Failed first, kept anyway, then refined into a proposal whose check passes.
    repo.papayu(["apply", "--check", "false"])
        .err("ERR_CHECK_FAILED");
    let cell = |list: &str, id: &str| {
        list.lines()
            .find(|l| l.starts_with(&id[..10]))
            .unwrap_or_else(|| panic!("{id} in {list}"))
            .to_string()
    };
    assert!(cell(&repo.papayu(["list"]).ok().stdout, &first).contains(" exit 1 "));
    repo.papayu(["apply", &first, "--no-check"]).ok();
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&create_answer(
        "TODO.md", "t\n",
    ))]);
    let refined = run(
        &repo,
        &[
            "--json",
            "refine",
            &first,
            "add a todo list",
            "--check",
            "true",
        ],
        &compat_env(&fake),
    )
    .ok();
    let refined: Value = serde_json::from_str(&refined.stdout).unwrap();
    let refinement = refined["plan"]["id"].as_str().unwrap().to_string();
    let list = repo.papayu(["list"]).ok().stdout;
    assert!(cell(&list, &refinement).contains(" passed "), "{list}");
    assert!(
        cell(&list, &first).contains(" passed "),
        "the refined plan shows its refinement's check, not its first failure: {list}"
    );
    let shown = repo.papayu(["show", &refinement]).ok().stdout;
    assert!(
        shown.contains("Check: passed (by its exit status: no per-test results)\n"),
        "{shown}"
    );
    let compared = repo.papayu(["--json", "show", &refinement]).ok().stdout;
    let compared: Value = serde_json::from_str(&compared).unwrap();
    assert_eq!(compared["check"]["status"], "passed", "{compared}");
    // A plan applied after a check that passed by its exit status.
    let other = repo.plan_id("Add a license", &create_answer("LICENSE", "MIT\n"));
    repo.papayu(["apply", &other, "--check", "true"]).ok();
    assert!(cell(&repo.papayu(["list"]).ok().stdout, &other).contains(" passed "));
    assert!(
        repo.papayu(["show", &other])
            .ok()
            .stdout
            .contains("Check: passed")
    );
}

#[test]
fn refine_adds_a_commit_on_the_proposal_branch_and_undo_takes_it_back() {
    let repo = repo();
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&create_answer(
        "NOTES.md", "first\n",
    ))]);
    run(&repo, &["plan", "Add notes"], &compat_env(&fake)).ok();
    repo.papayu(["apply", "--no-check"]).ok();
    let branch = repo.proposal_branch();
    let tip = repo.rev(&branch);
    let second = serde_json::json!({
        "summary": "Say more",
        "actions": [{"kind": "PATCH_FILE", "path": "NOTES.md", "base_sha256": sha("first\n"),
                     "patch": "@@ -1 +1,2 @@\n first\n+second\n"}]
    })
    .to_string();
    let fake2 = FakeLlm::start(vec![
        fake_llm::openai_chat(&context_only("NOTES.md")),
        fake_llm::openai_chat(&second),
    ]);
    run(
        &repo,
        &["refine", &branch, "add a second line", "--no-check"],
        &compat_env(&fake2),
    )
    .ok();
    let new_tip = repo.rev(&branch);
    assert_ne!(new_tip, tip);
    assert_eq!(
        repo.rev(&format!("{new_tip}^")),
        tip,
        "a new commit on the same branch"
    );
    assert_eq!(
        repo.git(["show", &format!("{branch}:NOTES.md")])
            .ok()
            .stdout,
        "first\nsecond\n"
    );
    let third = serde_json::json!({
        "summary": "And a third",
        "actions": [{"kind": "PATCH_FILE", "path": "NOTES.md", "base_sha256": sha("first\nsecond\n"),
                     "patch": "@@ -2 +2,2 @@\n second\n+third\n"}]
    })
    .to_string();
    let fake3 = FakeLlm::start(vec![
        fake_llm::openai_chat(&context_only("NOTES.md")),
        fake_llm::openai_chat(&third),
    ]);
    run(
        &repo,
        &["refine", &branch, "and a third", "--no-check"],
        &compat_env(&fake3),
    )
    .ok();
    assert_eq!(
        repo.git(["show", &format!("{branch}:NOTES.md")])
            .ok()
            .stdout,
        "first\nsecond\nthird\n"
    );
    let list = repo.papayu(["list"]).ok().stdout;
    assert!(
        list.contains("Add notes"),
        "refined plans keep the goal: {list}"
    );
    run(&repo, &["undo"], &compat_env(&fake3)).ok();
    assert_eq!(
        repo.rev(&branch),
        new_tip,
        "undo moves the branch back one refinement"
    );
    run(&repo, &["undo"], &compat_env(&fake3)).ok();
    assert_eq!(
        repo.rev(&branch),
        tip,
        "and the next undo to the applied plan"
    );
    repo.fsck();
}

#[test]
fn refine_without_a_plan_id_refines_the_newest_proposal_and_ends_like_apply() {
    let repo = repo();
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&create_answer(
        "NOTES.md", "first\n",
    ))]);
    run(&repo, &["plan", "Add notes"], &compat_env(&fake)).ok();
    repo.papayu(["apply", "--no-check"]).ok();
    let second = serde_json::json!({
        "summary": "Say more",
        "actions": [{"kind": "PATCH_FILE", "path": "NOTES.md", "base_sha256": sha("first\n"),
                     "patch": "@@ -1 +1,2 @@\n first\n+second\n"}]
    })
    .to_string();
    let fake2 = FakeLlm::start(vec![
        fake_llm::openai_chat(&context_only("NOTES.md")),
        fake_llm::openai_chat(&second),
    ]);
    let refined = run(
        &repo,
        &["refine", "add a second line", "--check", "true"],
        &compat_env(&fake2),
    )
    .ok();
    assert!(
        refined.stderr.contains("is the only plan on HEAD"),
        "says which plan it chose: {}",
        refined.stderr
    );
    assert!(
        refined.stderr.contains("Check passed: true"),
        "{}",
        refined.stderr
    );
    let out = &refined.stdout;
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("Refined plan "), "{out}");
    let id = lines[0].split_whitespace().nth(4).unwrap();
    assert!(lines[1].contains("NOTES.md | 1 +"), "{out}");
    assert!(lines[2].contains("1 file changed, 1 insertion(+)"), "{out}");
    assert_eq!(
        lines[3],
        format!(
            "Review: git papayu diff {id}   Merge: git papayu merge {id}   Discard: git papayu discard {id}"
        ),
        "{out}"
    );
    repo.papayu(["merge", id]).ok();
    assert_eq!(
        std::fs::read_to_string(repo.path().join("NOTES.md")).unwrap(),
        "first\nsecond\n"
    );
}

#[test]
fn the_responses_api_and_a_forced_anthropic_tool_and_ollama_streams() {
    // OpenAI Responses, strict: the schema goes in text.format.
    let repo = repo();
    let fake = FakeLlm::start(vec![fake_llm::responses(&create_answer("R.md", "r\n"))]);
    repo.git(["config", "papayu.openai.api", "responses"]).ok();
    repo.git(["config", "papayu.openai.url", &format!("{}/v1", fake.url())])
        .ok();
    let env = vec![
        (
            "PAPAYU_LLM_PROVIDERS".to_string(),
            "openai:gpt-test".to_string(),
        ),
        (
            "OPENAI_API_KEY".to_string(),
            "sk-test-responses-0000".to_string(),
        ),
        ("PAPAYU_LLM_STRICT_JSON".to_string(), "1".to_string()),
    ];
    let out = run(&repo, &["plan", "Add R", "--json"], &env).ok();
    let req = &fake.requests()[0];
    assert_eq!(req.path, "/v1/responses");
    assert_eq!(req.json["text"]["format"]["type"], "json_schema");
    assert!(
        req.json["instructions"]
            .as_str()
            .unwrap()
            .contains("Protocol v2")
    );
    assert_eq!(
        req.header("authorization").as_deref(),
        Some("Bearer sk-test-responses-0000")
    );
    let stored: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(stored["plans"][0]["plan"]["stats"]["cached_tokens"], 1024);

    // Anthropic, strict: a forced tool whose input is the plan.
    let repo = self::repo();
    let fake = FakeLlm::start(vec![fake_llm::anthropic_tool(&create_answer(
        "A.md", "a\n",
    ))]);
    let env = vec![
        (
            "PAPAYU_LLM_PROVIDERS".to_string(),
            "anthropic:claude-test".to_string(),
        ),
        ("ANTHROPIC_BASE_URL".to_string(), fake.url()),
        (
            "ANTHROPIC_API_KEY".to_string(),
            "sk-ant-tool-000000".to_string(),
        ),
        ("PAPAYU_LLM_STRICT_JSON".to_string(), "1".to_string()),
    ];
    let out = run(&repo, &["plan", "Add A", "--json"], &env).ok();
    let req = &fake.requests()[0];
    assert_eq!(req.json["tool_choice"]["type"], "tool");
    let stored: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        stored["plans"][0]["plan"]["stats"]["cache_write_tokens"],
        76
    );
    assert_eq!(
        stored["plans"][0]["plan"]["stats"]["input_tokens"],
        100 + 1024 + 76
    );

    // Ollama, implicit model from /api/tags, NDJSON stream.
    let repo = self::repo();
    let fake = FakeLlm::start(vec![fake_llm::ollama(&create_answer("O.md", "o\n"))]);
    let env = vec![("OLLAMA_HOST".to_string(), fake.url())];
    let out = run(&repo, &["plan", "Add O", "--json"], &env).ok();
    let req = &fake.requests()[0];
    assert_eq!(req.json["model"], "fake-model:latest");
    assert_eq!(req.json["format"], "json");
    assert!(req.json["options"]["num_ctx"].as_u64().unwrap() >= 4096);
    let stored: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(stored["plans"][0]["plan"]["provider"], "ollama");
}

#[test]
fn nothing_configured_and_no_local_ollama_says_what_to_set() {
    let repo = repo();
    // A port nothing listens on stands in for a local Ollama that is not running.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let before = repo.snapshot();
    let out = run(
        &repo,
        &["plan", "Add notes"],
        &[("OLLAMA_HOST".to_string(), format!("127.0.0.1:{port}"))],
    )
    .code(1);
    assert!(
        out.stderr.contains("ERR_LLM_NOT_CONFIGURED"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("--response"), "{}", out.stderr);
    assert_eq!(repo.snapshot(), before);
}

#[test]
fn planted_secrets_never_reach_the_model_or_the_context_command() {
    let secrets = [
        "sk-proj-PLANTEDabcdefghijklmnop",
        "AKIAPLANTEDABCDEFGHI",
        "ghp_PLANTEDabcdefghijklmnopqrstuvwx",
        "q8Zr2LmX9vTkPLANTED3PwY",
        "MIIEPLANTEDKEYBODY",
    ];
    let repo = TestRepo::with_files(&[
        (".env", &format!("OPENAI_API_KEY={}\n", secrets[0])),
        (
            "config/id_rsa",
            &format!(
                "-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----\n",
                secrets[4]
            ),
        ),
        ("deploy/secrets/aws.txt", &format!("{}\n", secrets[1])),
        (
            "src/app.py",
            &format!(
                "GITHUB = \"{}\"\nDB_PASSWORD = \"{}\"\n\ndef run():\n    return 1\n",
                secrets[2], secrets[3]
            ),
        ),
    ]);
    let goal = "fix src/app.py and .env and config/id_rsa, see deploy/secrets/aws.txt";
    let context = repo.papayu(["context", goal, "--json"]).ok();
    let fake = FakeLlm::start(vec![
        fake_llm::openai_chat(
            &serde_json::json!({"summary": "need more", "actions": [], "context_requests": [
            {"type": "read_file", "path": ".env"}, {"type": "search", "query": "PLANTED"},
            {"type": "read_file", "path": "deploy/secrets/aws.txt"}]})
            .to_string(),
        ),
        fake_llm::openai_chat(&create_answer("NOTES.md", "n\n")),
    ]);
    let out = run(&repo, &["plan", goal], &compat_env(&fake)).ok();
    let bodies: Vec<String> = fake.requests().iter().map(|r| r.body.clone()).collect();
    assert_eq!(bodies.len(), 2);
    for secret in secrets {
        for (what, text) in [
            ("context", &context.stdout),
            ("request 1", &bodies[0]),
            ("request 2", &bodies[1]),
            ("stderr", &out.stderr),
        ] {
            assert!(!text.contains(secret), "{secret} leaked in {what}");
        }
    }
    assert!(bodies[0].contains("def run()"), "the ordinary code is sent");
    assert!(
        bodies[1].contains("withheld: .env: protected path"),
        "{}",
        bodies[1]
    );
    let json: Value = serde_json::from_str(&context.stdout).unwrap();
    let withheld = json["withheld"].to_string();
    assert!(
        withheld.contains(".env") && withheld.contains("config/id_rsa"),
        "{withheld}"
    );
}

#[test]
fn a_server_that_ignores_stream_true_is_read_whole() {
    let repo = repo();
    let fake = FakeLlm::start(vec![
        fake_llm::openai_chat(&create_answer("W.md", "w\n")).whole(),
    ]);
    let out = run(&repo, &["plan", "Add W", "--json"], &compat_env(&fake)).ok();
    assert_eq!(fake.requests()[0].json["stream"], true);
    let stored: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(stored["plans"][0]["plan"]["stats"]["output_tokens"], 80);
    assert_eq!(stored["plans"][0]["plan"]["model"], "fake-model");
}

#[test]
fn papayu_private_files_are_withheld_and_never_searched() {
    let repo = TestRepo::with_files(&[
        (".gitattributes", "internal/*.cfg papayu-private\n"),
        ("internal/prod.cfg", "endpoint = PRIVATE-MARKER\n"),
        ("src/app.py", "print('PRIVATE-MARKER is a word here too')\n"),
    ]);
    let fake = FakeLlm::start(vec![
        fake_llm::openai_chat(&serde_json::json!({"actions": [], "context_requests": [
            {"type": "read_file", "path": "internal/prod.cfg"}, {"type": "search", "query": "PRIVATE-MARKER"}]}).to_string()),
        fake_llm::openai_chat(&create_answer("N.md", "n\n")),
    ]);
    run(&repo, &["plan", "Tidy up"], &compat_env(&fake)).ok();
    let second = &fake.requests()[1].body;
    assert!(
        second.contains("withheld: internal/prod.cfg: protected path"),
        "{second}"
    );
    assert!(
        second.contains("src/app.py:1:"),
        "ordinary files are searched: {second}"
    );
    assert!(!second.contains("endpoint ="), "{second}");
}

#[test]
fn a_model_that_refuses_temperature_is_asked_again_with_its_defaults() {
    let repo = repo();
    let fake = FakeLlm::start(vec![
        fake_llm::status(
            400,
            r#"{"error":{"message":"Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}"#,
        ),
        fake_llm::openai_chat(&create_answer("N.md", "n\n")),
    ]);
    run(&repo, &["plan", "Add notes"], &compat_env(&fake)).ok();
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].json["temperature"], 0);
    assert!(
        requests[1].json.get("temperature").is_none(),
        "{}",
        requests[1].body
    );
    assert!(requests[1].json.get("top_p").is_none());
    assert_eq!(notes(&repo).len(), 1);
}

#[test]
fn an_answer_without_json_is_quoted_for_the_user_with_its_trace() {
    let repo = repo();
    let before = repo.snapshot();
    let prose =
        "I would change stats.py so that mean handles empty lists.\n\x07Let me know\nif you agree.";
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(prose)]);
    let out = run(&repo, &["plan", "Fix mean"], &compat_env(&fake)).err("ERR_NO_JSON");
    assert!(out.stderr.contains("it said:"), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("| I would change stats.py so that mean handles empty lists."),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("| ^GLet me know") && !out.stderr.contains('\x07'),
        "terminal-safe: {}",
        out.stderr
    );
    assert!(
        !out.stderr.contains("reply with the plan as JSON only"),
        "the reason speaks to the user, not the model: {}",
        out.stderr
    );
    let id = out
        .stderr
        .split("git papayu trace show ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .unwrap_or_else(|| panic!("a trace id on stderr: {}", out.stderr))
        .to_string();
    assert_eq!(repo.snapshot(), before, "nothing stored");
    let trace = repo.papayu(["trace", "show", &id]).ok();
    assert!(trace.stdout.contains("ERR_NO_JSON"), "{}", trace.stdout);
}

#[test]
fn a_failure_after_a_fallback_leads_with_the_root_cause_and_the_path() {
    let repo = repo();
    let before = repo.snapshot();
    let stale =
        patch_answer("    return total(items) / len(items)").replace(&sha(LIB), &sha("old"));
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&stale)]);
    let out = run(&repo, &["plan", "Fix mean"], &compat_env(&fake)).code(1);
    let first = out
        .stderr
        .lines()
        .find(|l| l.starts_with("ERR_"))
        .unwrap_or_else(|| panic!("an error line: {}", out.stderr));
    assert!(first.starts_with("ERR_BASE_MISMATCH"), "{}", out.stderr);
    assert!(
        first.contains(
            "path: v2: ERR_BASE_MISMATCH, repaired: ERR_BASE_MISMATCH, v1: ERR_V1_KIND_NOT_ALLOWED"
        ),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("ERR_V1_KIND_NOT_ALLOWED"));
    assert!(
        !out.stderr.contains("--protocol 2"),
        "no hint to try what already failed: {}",
        out.stderr
    );
    assert_eq!(repo.snapshot(), before);
}

#[test]
fn options_after_the_free_text_are_options() {
    let repo = repo();
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&v1_answer())]);
    traceback_log(&repo);
    let out = run(
        &repo,
        &["fix the failing test", "--log", "failure.log", "--json"],
        &compat_env(&fake),
    )
    .ok();
    let stored: Value = serde_json::from_str(&out.stdout).expect("--json after the text");
    assert_eq!(stored["plans"][0]["plan"]["goal"], "fix the failing test");
    let sent = user_texts(&fake.requests()[0].json);
    assert!(sent.contains("ZeroDivisionError"), "the log: {sent}");
    assert!(
        sent.contains("from src.stats import mean"),
        "the test file: {sent}"
    );
    assert!(!sent.contains("--log"), "{sent}");
}

#[test]
fn a_near_miss_of_a_command_is_refused_before_a_model_is_asked() {
    let repo = repo();
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&v1_answer())]);
    let env = compat_env(&fake);
    let out = run(&repo, &["lst", "plans"], &env).code(2);
    assert!(out.stderr.contains("ERR_UNKNOWN_COMMAND"), "{}", out.stderr);
    assert!(
        out.stderr.contains("did you mean 'list'?"),
        "{}",
        out.stderr
    );
    let out = run(&repo, &["lst"], &env).code(2);
    assert!(
        out.stderr.contains("did you mean 'list'?"),
        "{}",
        out.stderr
    );
    let out = run(&repo, &["fix the test", "--bogus"], &env).code(2);
    assert!(out.stderr.contains("ERR_USAGE"), "{}", out.stderr);
    assert!(fake.requests().is_empty());
    assert!(notes(&repo).is_empty());
}

#[test]
fn a_refined_plan_its_refinement_and_its_branch_all_name_the_proposal() {
    let repo = repo();
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&create_answer(
        "NOTES.md", "first\n",
    ))]);
    let planned = run(&repo, &["plan", "Add notes", "--json"], &compat_env(&fake)).ok();
    let planned: Value = serde_json::from_str(&planned.stdout).unwrap();
    let a = planned["plans"][0]["plan"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    repo.papayu(["apply", "--no-check"]).ok();
    let second = serde_json::json!({
        "summary": "Say more",
        "actions": [{"kind": "PATCH_FILE", "path": "NOTES.md", "base_sha256": sha("first\n"),
                     "patch": "@@ -1 +1,2 @@\n first\n+second\n"}]
    })
    .to_string();
    let fake2 = FakeLlm::start(vec![
        fake_llm::openai_chat(&context_only("NOTES.md")),
        fake_llm::openai_chat(&second),
    ]);
    let refined = run(
        &repo,
        &[
            "refine",
            &a[..7],
            "also support csv",
            "--no-check",
            "--json",
        ],
        &compat_env(&fake2),
    )
    .ok();
    let refined: Value = serde_json::from_str(&refined.stdout).unwrap();
    let b = refined["plan"]["id"].as_str().unwrap().to_string();
    let branch = refined["branch"].as_str().unwrap().to_string();
    let tip = repo.rev(&branch);
    // An unapplied plan on HEAD made later: merge without an id must not take it.
    repo.papayu_stdin(
        ["plan", "Add other notes", "--response", "-"],
        create_answer("OTHER.md", "other\n").as_bytes(),
    )
    .ok();

    let list: Value = serde_json::from_str(&repo.papayu(["list", "--json"]).ok().stdout).unwrap();
    let status = |id: &str| {
        list["plans"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == id)
            .map(|p| p["status"].clone())
            .unwrap()
    };
    assert_eq!(status(&a), "refined");
    assert_eq!(status(&b), "applied");

    for spec in [&a[..7], &b[..7], branch.as_str()] {
        let shown: Value =
            serde_json::from_str(&repo.papayu(["show", spec, "--json"]).ok().stdout).unwrap();
        assert_eq!(shown["plan"]["id"], b.as_str(), "show {spec}");
        assert_eq!(shown["branch"], branch.as_str(), "show {spec}");
        assert_eq!(shown["chain"][0]["plan"], a.as_str());
        assert_eq!(shown["chain"][0]["status"], "refined");
        assert_eq!(shown["chain"][0]["refined_by"], b.as_str());
        assert_eq!(shown["chain"][0]["feedback"], "also support csv");
        repo.papayu(["diff", spec]).ok();
    }
    let again = repo.papayu(["apply", &a[..7], "--no-check"]).code(1);
    assert!(
        again
            .stderr
            .contains(&format!("already applied as {branch}")),
        "{}",
        again.stderr
    );
    let text = repo.papayu(["show", &a[..7]]).ok().stdout;
    assert!(
        text.contains(&format!("refined by {}: \"also support csv\"", &b[..10])),
        "{text}"
    );

    let merged: Value =
        serde_json::from_str(&repo.papayu(["merge", "--json"]).ok().stdout).unwrap();
    assert_eq!(
        merged["plan"],
        b.as_str(),
        "the refined proposal, not the unapplied plan"
    );
    assert_eq!(repo.rev("main"), tip);
    repo.papayu(["undo"]).ok();
    let merged: Value =
        serde_json::from_str(&repo.papayu(["merge", &a[..7], "--json"]).ok().stdout).unwrap();
    assert_eq!(
        merged["plan"],
        b.as_str(),
        "the refined plan's id merges its proposal"
    );
    assert_eq!(repo.rev("main"), tip);
    let shown: Value =
        serde_json::from_str(&repo.papayu(["show", &a[..7], "--json"]).ok().stdout).unwrap();
    assert_eq!(shown["status"], "merged");
    assert_eq!(shown["chain"][0]["status"], "refined");
    repo.fsck();
}

#[test]
fn verbose_event_values_are_quoted_and_never_none() {
    let repo = repo();
    let fake = FakeLlm::start(vec![
        fake_llm::openai_chat(&context_only("README.md")),
        fake_llm::openai_chat(&patch_answer("    return something_else(items)")),
        fake_llm::openai_chat(&patch_answer("    return total(items) / len(items)")),
    ]);
    let out = run(&repo, &["plan", "Fix mean", "-v"], &compat_env(&fake)).ok();
    let events: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.starts_with(|c: char| c.is_ascii_uppercase()) && l.contains('='))
        .collect();
    assert!(
        events
            .iter()
            .any(|l| l.starts_with("CONTEXT_CACHE_MISS type=read_file key=read_file:README.md")),
        "{}",
        out.stderr
    );
    let failed = events
        .iter()
        .find(|l| l.starts_with("VALIDATION_FAILED"))
        .unwrap_or_else(|| panic!("{}", out.stderr));
    let reason = failed.split_once("reason=").unwrap().1;
    assert!(reason.starts_with('"') && reason.ends_with('"'), "{failed}");
    assert!(reason.contains(' '), "spaces stay spaces: {failed}");
    for line in &events {
        assert!(!line.contains("None"), "{line}");
    }
}

#[test]
fn no_provider_is_said_in_two_short_lines() {
    let repo = repo();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = run(
        &repo,
        &["plan", "Add notes"],
        &[("OLLAMA_HOST".to_string(), format!("127.0.0.1:{port}"))],
    )
    .code(1);
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{}", out.stderr);
    assert!(
        lines[0].starts_with("ERR_LLM_NOT_CONFIGURED: "),
        "{}",
        out.stderr
    );
    assert!(
        lines.iter().all(|l| l.chars().count() <= 100),
        "{}",
        out.stderr
    );
    assert!(lines[1].contains("--response"), "{}", out.stderr);
}
