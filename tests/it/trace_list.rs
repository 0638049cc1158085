//! Finding traces: `trace list` (newest first), `trace show` without an id, and a failed plan's
//! trace saying each rejection once.

use crate::common;
use common::run_with_env as run;

use common::TestRepo;
use common::fake_llm::{self, FakeLlm};

fn env(fake: &FakeLlm) -> Vec<(String, String)> {
    vec![
        ("PAPAYU_LLM_API_URL".into(), format!("{}/v1", fake.url())),
        ("PAPAYU_LLM_MODEL".into(), "trace-model".into()),
        ("PAPAYU_LLM_RETRY_BASE_MS".into(), "1".into()),
    ]
}

const ANSWER: &str = r#"{"summary": "add b", "actions": [{"kind": "CREATE_FILE", "path": "b.txt", "content": "b\n"}]}"#;

#[test]
fn traces_are_listed_newest_first_and_the_newest_is_shown_without_an_id() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let none = repo.papayu(["trace", "show"]).code(1);
    assert!(
        none.stderr.contains("ERR_TRACE_NOT_FOUND"),
        "{}",
        none.stderr
    );
    let empty = repo.papayu(["trace", "list"]).ok();
    assert_eq!(empty.stdout, "");

    let escape = r#"{"summary": "escape", "actions": [{"kind": "CREATE_FILE", "path": "../b.txt", "content": "b\n"}]}"#;
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(escape); 4]);
    // Papayu's clock, fixed a second apart: the failed plan's trace is the older.
    let mut env = env(&fake);
    env.push(("PAPAYU_TIMESTAMP".into(), "2026-01-01T00:00:00Z".into()));
    let failed = run(&repo, &["plan", "Fail to add b"], &env).code(1);
    assert!(failed.stderr.contains("ERR_"), "{}", failed.stderr);
    repo.write(".git/answer.json", ANSWER);
    repo.papayu_env(
        ["plan", "Add b", "--response", ".git/answer.json"],
        &[("PAPAYU_TIMESTAMP", "2026-01-01T00:00:01Z")],
    )
    .ok();

    let list = repo.papayu(["trace", "list"]).ok();
    let lines: Vec<&str> = list.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", list.stdout);
    assert!(
        lines[0].ends_with("Add b") && lines[0].contains(" ok "),
        "{}",
        list.stdout
    );
    assert!(lines[1].ends_with("Fail to add b"), "{}", list.stdout);
    assert!(
        lines[1].contains(" ERR_"),
        "the outcome is the error's code: {}",
        list.stdout
    );
    assert!(
        lines[1].contains("  -  "),
        "a failed plan has no plan id: {}",
        list.stdout
    );
    let one = repo.papayu(["trace", "list", "-n", "1"]).ok();
    assert_eq!(one.stdout.lines().count(), 1, "{}", one.stdout);
    assert!(one.stderr.contains("--all"), "{}", one.stderr);

    let newest = repo.papayu(["trace", "show"]).ok();
    assert!(newest.stdout.contains("goal: Add b"), "{}", newest.stdout);
    let failed_id = lines[1].split_whitespace().next().unwrap();
    let shown = repo.papayu(["trace", "show", failed_id, "-v"]).ok();
    let json = repo.papayu(["trace", "show", failed_id, "--json"]).ok();
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let rejections = doc["trace"]["validation_failures"]
        .as_array()
        .unwrap()
        .len();
    assert!(rejections >= 2, "{doc}");
    let reason = "path has a '..' segment";
    assert_eq!(
        shown.stdout.matches(reason).count(),
        rejections,
        "each rejection is said once: {}",
        shown.stdout
    );
    assert!(
        !shown.stdout.contains("VALIDATION_FAILED"),
        "{}",
        shown.stdout
    );
    assert!(
        shown.stdout.contains("outcome: ERR_PATH_DOTDOT (path: "),
        "{}",
        shown.stdout
    );
}
