//! Secrets through the real binary: a model's search cannot crash papayu, `papayu-private`
//! matches what git matches, a mask is never written back over the real text, and nothing secret
//! reaches the notes, the operation log or a model request.

mod common;

use common::TestRepo;
use common::fake_llm::{self, FakeLlm};
use serde_json::json;

/// An environment pointing papayu at an OpenAI-compatible fake server.
fn compat_env(fake: &FakeLlm) -> Vec<(String, String)> {
    vec![
        ("PAPAYU_LLM_API_URL".into(), format!("{}/v1", fake.url())),
        ("PAPAYU_LLM_MODEL".into(), "test-model".into()),
        ("PAPAYU_LLM_TIMEOUT_SEC".into(), "5".into()),
        ("PAPAYU_LLM_RETRY_BASE_MS".into(), "1".into()),
    ]
}

fn run(repo: &TestRepo, args: &[&str], env: &[(String, String)]) -> common::Run {
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    repo.papayu_env(args, &env)
}

fn create_answer(path: &str, content: &str) -> String {
    json!({
        "summary": format!("Add {path}"),
        "actions": [{"kind": "CREATE_FILE", "path": path, "content": content}]
    })
    .to_string()
}

// ---------------------------------------------------------------------------------------------
// A model's search.

#[test]
fn a_megabyte_search_query_is_answered_query_too_long_not_a_panic() {
    let repo = TestRepo::with_files(&[("src/app.py", "def run():\n    return 1\n")]);
    // As large as an answer within its token budget can carry.
    let huge = "(".repeat(100_000);
    let fake = FakeLlm::start(vec![
        fake_llm::openai_chat(
            &json!({"summary": "look", "actions": [], "context_requests": [
                {"type": "search", "query": huge}]})
            .to_string(),
        ),
        fake_llm::openai_chat(&create_answer("NOTES.md", "n\n")),
    ]);
    let out = run(&repo, &["plan", "Tidy up"], &compat_env(&fake)).ok();
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    let requests = fake.requests();
    assert_eq!(requests.len(), 2, "{}", out.stderr);
    let second = &requests[1].body;
    assert!(second.contains("query too long"), "{second}");
    assert!(second.contains("at most 1000"), "{second}");
}

#[test]
fn a_megabyte_query_finds_nothing_instead_of_panicking() {
    let repo = TestRepo::with_files(&[("a.txt", "((((\n")]);
    let store = git_papayu::store::Store::open_at(repo.path()).unwrap();
    let commit = store.resolve_commit("HEAD").unwrap();
    let snap = store.snapshot(commit).unwrap();
    assert!(git_papayu::context::search(&snap, &"(".repeat(1 << 20), None).is_empty());
    assert_eq!(
        git_papayu::context::search(&snap, "((((", None).len(),
        1,
        "a short literal still finds its line"
    );
}

#[test]
fn a_long_search_query_is_refused_by_the_rules_and_the_schema() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    for version in ["1", "2"] {
        let long = "x".repeat(1001);
        let answer =
            json!({"actions": [], "context_requests": [{"type": "search", "query": long}]});
        let run = repo.papayu_stdin(
            ["validate", "-", "--protocol", version],
            answer.to_string().as_bytes(),
        );
        let run = run.err("ERR_SCHEMA_VIOLATION");
        assert!(run.stderr.contains("query too long"), "{}", run.stderr);
        assert_eq!(
            run.stderr.matches("ERR_SCHEMA_VIOLATION").count(),
            1,
            "one problem, not a schema error beside it: {}",
            run.stderr
        );
        let fits = json!({"actions": [], "context_requests": [{"type": "search", "query": "x".repeat(1000)}]});
        repo.papayu_stdin(
            ["validate", "-", "--protocol", version],
            fits.to_string().as_bytes(),
        )
        .ok();
    }
}
