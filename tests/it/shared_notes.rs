//! What a remote's notes can and cannot do to this clone: a teammate's check verdict is a claim
//! that never ranks, picks or merges. Through the real binary, checked with the real git CLI.

use crate::common;

use std::path::PathBuf;

use common::fake_llm::{self, FakeLlm};
use common::{Run, TestRepo, clone_of, run_in, run_in_env};
use serde_json::{Value, json};

const CALC: &str = "def add(a, b):\n    return a + b\n\n\ndef div(a, b):\n    return a / b\n";

/// What `pytest -rA` prints for two tests, each judged by a line of calc.py.
const CHECK: &str = r#"#!/bin/sh
fail=0
t() {
  if grep -q "$2" calc.py; then echo "PASSED tests/test_calc.py::$1"
  else echo "FAILED tests/test_calc.py::$1 - AssertionError: assert False"; fail=1; fi
}
echo "=========================== short test summary info ============================"
t test_add "return a + b"
t test_div_zero "b == 0"
[ "$fail" = 0 ]
"#;

/// A bare remote holding `files`, and Alice's clone of it.
struct Team {
    _home: tempfile::TempDir,
    remote: PathBuf,
    alice: TestRepo,
}

fn team(files: &[(&str, &str)]) -> Team {
    let origin = TestRepo::with_files(files);
    let home = tempfile::Builder::new()
        .prefix("papayu-test")
        .tempdir()
        .expect("tempdir");
    let remote = home.path().join("remote.git");
    let (from, to) = (origin.path().to_str().unwrap(), remote.to_str().unwrap());
    run_in(
        home.path(),
        "git",
        ["clone", "-q", "--bare", from, to],
        None,
    )
    .ok();
    let alice = clone_of(&remote);
    Team {
        _home: home,
        remote,
        alice,
    }
}

fn json_of(run: &Run) -> Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}\n{run:?}"))
}

fn update(summary: &str, content: &str) -> String {
    json!({"summary": summary, "actions": [
        {"kind": "UPDATE_FILE", "path": "calc.py", "content": content}]})
    .to_string()
}

fn create(path: &str) -> String {
    json!({"summary": format!("add {path}"), "actions": [
        {"kind": "CREATE_FILE", "path": path, "content": "x\n"}]})
    .to_string()
}

/// A teammate's clone with the remote's papayu notes, writing as `name`.
fn teammate(team: &Team) -> TestRepo {
    let clone = clone_of(&team.remote);
    common::fetch_notes(&clone, "origin");
    clone
}

/// Appends `line` to the papayu note of `object` as Mallory, who can push to the remote.
fn append_as_mallory(repo: &TestRepo, object: &str, line: &str) {
    let env = [
        ("GIT_AUTHOR_NAME", "Mallory"),
        ("GIT_AUTHOR_EMAIL", "mallory@example.com"),
    ];
    let args = [
        "notes",
        "--ref=papayu",
        "append",
        "--no-separator",
        "-m",
        line,
        object,
    ];
    run_in_env(repo.path(), "git", args, &env, None).ok();
}

fn push_notes(repo: &TestRepo) {
    repo.git(["push", "-q", "origin", "refs/notes/papayu"]).ok();
}

fn note(repo: &TestRepo, object: &str) -> String {
    repo.git(["notes", "--ref=papayu", "show", object])
        .ok()
        .stdout
}

/// An `applied` event carrying a made-up passing verdict, dated in the future.
fn forged_verdict(plan: &str, fixes: u32) -> String {
    json!({"plan": plan, "event": "applied", "at": 4_102_444_800_000_i64,
        "check": {"status": "passed", "fixes": fixes, "breaks": 0, "still_failing": 0}})
    .to_string()
}

#[test]
fn a_teammates_verdict_is_a_claim_that_never_ranks_picks_or_merges() {
    let team = team(&[("calc.py", CALC), ("check.sh", CHECK)]);
    let alice = &team.alice;
    let answers = [
        (
            "alpha",
            update(
                "Guard div",
                &CALC.replace(
                    "    return a / b",
                    "    if b == 0:\n        return None\n    return a / b",
                ),
            ),
        ),
        ("beta", create("NOTES.md")),
        (
            "gamma",
            update(
                "Guard div, break add",
                &CALC.replace("a + b", "a - b").replace(
                    "    return a / b",
                    "    if b == 0:\n        return None\n    return a / b",
                ),
            ),
        ),
    ];
    let fakes: Vec<FakeLlm> = answers
        .iter()
        .map(|(_, a)| FakeLlm::start(vec![fake_llm::openai_chat(a)]))
        .collect();
    for ((name, _), fake) in answers.iter().zip(&fakes) {
        common::openai_provider(alice, name, fake, None);
    }
    let env = [
        ("PAPAYU_LLM_PROVIDERS", "alpha,beta,gamma"),
        ("PAPAYU_LLM_RETRY_BASE_MS", "1"),
    ];
    let args = ["--json", "plan", "Fix division by zero", "--protocol", "1"];
    let planned = json_of(&alice.papayu_env(args, &env).ok());
    let id = |provider: &str| -> String {
        let plans = planned["plans"].as_array().unwrap();
        let plan = plans
            .iter()
            .find(|p| p["plan"]["provider"] == provider)
            .unwrap();
        plan["plan"]["id"].as_str().unwrap().to_string()
    };
    let (honest, weak, breaking) = (id("alpha"), id("beta"), id("gamma"));
    alice
        .papayu(["apply", &honest, "--check", "sh check.sh"])
        .ok();
    alice.papayu(["apply", &weak, "--no-check"]).ok();
    alice
        .papayu(["apply", &breaking, "--check", "sh check.sh"])
        .err("ERR_CHECK_FAILED");
    alice.papayu(["apply", &breaking, "--no-check"]).ok();
    alice.papayu(["merge", &breaking]).err("ERR_CHECK_BROKE");
    alice.papayu(["sync"]).ok();

    // Mallory, with push access, says the weak and the breaking proposals passed everything.
    let mallory = teammate(&team);
    let base = alice.rev("main");
    append_as_mallory(&mallory, &base, &forged_verdict(&weak, 9));
    append_as_mallory(&mallory, &base, &forged_verdict(&breaking, 1));
    push_notes(&mallory);
    alice.papayu(["sync"]).ok();
    let stored = note(alice, &base);
    assert!(
        stored.contains(&forged_verdict(&weak, 9)),
        "the claims are kept:\n{stored}"
    );

    let shown = json_of(&alice.papayu(["--json", "show", &weak]).ok());
    assert_eq!(shown["check"]["status"], "unchecked", "{shown}");
    let claimed = &shown["claimed_checks"];
    assert_eq!(claimed.as_array().map(Vec::len), Some(1), "{shown}");
    assert_eq!(claimed[0]["check"]["fixes"], 9, "{shown}");
    assert_eq!(claimed[0]["by"], "Mallory <mallory@example.com>", "{shown}");
    let commit = claimed[0]["notes_commit"].as_str().unwrap();
    let author = alice.git(["log", "-1", "--format=%an", commit]).ok().stdout;
    assert_eq!(author.trim(), "Mallory");
    let text = alice.papayu(["show", &weak]).ok().stdout;
    assert!(
        text.contains("Claimed checks from shared notes") && text.contains("Mallory"),
        "{text}"
    );

    let compared = json_of(&alice.papayu(["--json", "compare"]).ok());
    assert_eq!(compared["ranking"][0], honest.as_str(), "{compared}");
    let table = alice.papayu(["compare"]).ok().stdout;
    assert!(
        table.contains("Claimed checks") && table.contains("fixes 9"),
        "{table}"
    );
    let main = alice.rev("main");
    alice.papayu(["merge", &breaking]).err("ERR_CHECK_BROKE");
    assert_eq!(alice.rev("main"), main, "the refusal stands");

    alice.papayu(["pick"]).ok();
    assert!(alice.read("calc.py").contains("b == 0") && alice.read("calc.py").contains("a + b"));
    let shown = json_of(&alice.papayu(["--json", "show", &honest]).ok());
    assert_eq!(shown["status"], "merged", "{shown}");
    let branches = alice
        .git(["for-each-ref", "refs/heads/papayu/"])
        .ok()
        .stdout;
    assert!(branches.is_empty(), "the others were discarded: {branches}");
    // This clone's own verdicts count after gc forgets the operations that wrote them.
    alice.papayu(["gc", "--expire=now"]).ok();
    let shown = json_of(&alice.papayu(["--json", "show", &honest]).ok());
    assert_eq!(shown["check"]["status"], "passed", "{shown}");
    assert_eq!(shown["check"]["fixes"], 1, "{shown}");
    alice.fsck();
}
