//! Attribution written by code: every proposal commit names its assistance in a trailer
//! (`papayu.attribution`), squash merges keep it, and papayu never signs off for anyone.

use crate::common;

use common::TestRepo;
use common::fake_llm::{self, FakeLlm};
use serde_json::json;

fn answer(path: &str) -> String {
    json!({"summary": format!("add {path}"), "actions": [
        {"kind": "CREATE_FILE", "path": path, "content": "x\n"}]})
    .to_string()
}

/// Applies a pasted plan adding `path` with `git -c CONFIG papayu apply`, returns the commit's
/// message.
fn applied_message(repo: &TestRepo, path: &str, config: &[&str]) -> String {
    let id = repo.plan_id(&format!("Add {path}"), &answer(path));
    let mut args: Vec<&str> = Vec::new();
    for c in config {
        args.extend(["-c", c]);
    }
    args.extend(["papayu", "--json", "apply", &id, "--no-check"]);
    let run = repo.git(&args).ok();
    let out: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let branch = out["branch"].as_str().unwrap().to_string();
    repo.git(["log", "-1", "--format=%B", &branch]).ok().stdout
}

fn trailer(repo: &TestRepo, message: &str, key: &str) -> Vec<String> {
    let run = common::run_in(
        repo.path(),
        "git",
        ["interpret-trailers", "--parse"],
        Some(message.as_bytes()),
    )
    .ok();
    run.stdout
        .lines()
        .filter_map(|l| l.strip_prefix(&format!("{key}: ")))
        .map(str::to_string)
        .collect()
}

#[test]
fn proposal_commits_carry_the_assisted_by_trailer_beside_the_plan_trailers() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let message = applied_message(&repo, "b.txt", &[]);
    assert_eq!(
        trailer(&repo, &message, "Assisted-by"),
        ["git-papayu:manual"]
    );
    assert_eq!(
        trailer(&repo, &message, "Papayu-Plan").len(),
        1,
        "{message}"
    );
    assert_eq!(
        trailer(&repo, &message, "Papayu-Trace").len(),
        1,
        "{message}"
    );
    assert!(
        trailer(&repo, &message, "Signed-off-by").is_empty(),
        "{message}"
    );

    // A model's plan names the model as the provider answered it (the fake serves `fake-model`).
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&answer("c.txt"))]);
    let url = format!("{}/v1", fake.url());
    let env = [
        ("PAPAYU_LLM_API_URL", url.as_str()),
        ("PAPAYU_LLM_MODEL", "gpt-5-mini"),
        ("PAPAYU_LLM_TIMEOUT_SEC", "5"),
    ];
    repo.papayu_env(["plan", "Add c"], &env).ok();
    let out = repo.papayu(["--json", "apply", "--no-check"]).ok();
    let branch = serde_json::from_str::<serde_json::Value>(&out.stdout).unwrap()["branch"]
        .as_str()
        .unwrap()
        .to_string();
    let message = repo.git(["log", "-1", "--format=%B", &branch]).ok().stdout;
    assert_eq!(
        trailer(&repo, &message, "Assisted-by"),
        ["git-papayu:fake-model"]
    );
}

#[test]
fn attribution_none_drops_the_trailer_and_co_authored_by_names_a_co_author() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let none = applied_message(&repo, "b.txt", &["papayu.attribution=none"]);
    assert!(trailer(&repo, &none, "Assisted-by").is_empty(), "{none}");
    assert!(trailer(&repo, &none, "Co-authored-by").is_empty(), "{none}");
    assert_eq!(trailer(&repo, &none, "Papayu-Plan").len(), 1, "{none}");
    let co = applied_message(&repo, "c.txt", &["papayu.attribution=co-authored-by"]);
    assert_eq!(
        trailer(&repo, &co, "Co-authored-by"),
        ["git-papayu:manual <git-papayu@localhost>"]
    );
    assert!(trailer(&repo, &co, "Assisted-by").is_empty(), "{co}");
    for message in [&none, &co] {
        assert!(!message.contains("Signed-off-by"), "{message}");
    }
}

#[test]
fn an_unknown_attribution_is_refused_and_changes_nothing() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let id = repo.plan_id("Add b", &answer("b.txt"));
    let before = repo.snapshot();
    repo.git([
        "-c",
        "papayu.attribution=everyone",
        "papayu",
        "apply",
        &id,
        "--no-check",
    ])
    .err("ERR_CONFIG_INVALID");
    assert_eq!(repo.snapshot(), before);
}

#[test]
fn a_squash_merge_keeps_the_trailers_and_signs_off_for_nobody() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.git(["config", "format.signOff", "true"]).ok();
    let id = repo.plan_id("Add b", &answer("b.txt"));
    repo.papayu(["apply", &id, "--no-check"]).ok();
    repo.papayu(["merge", &id, "--squash"]).ok();
    let message = repo.git(["log", "-1", "--format=%B", "main"]).ok().stdout;
    assert_eq!(
        trailer(&repo, &message, "Assisted-by"),
        ["git-papayu:manual"]
    );
    assert_eq!(trailer(&repo, &message, "Papayu-Plan"), [id.as_str()]);
    let all = repo.git(["log", "--format=%B", "--all"]).ok().stdout;
    assert!(!all.contains("Signed-off-by"), "{all}");
}
