//! What a remote's notes can and cannot do to this clone: a teammate's check verdict is a claim
//! that never ranks, picks or merges; lines a remote removed stay here; junk a remote holds is
//! refused at the door and costs nothing to read; a remote notes ref that is not a commit is an
//! error about that remote. Through the real binary, checked with the real git CLI.

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
    let (home, remote) = common::bare_remote(&origin);
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

/// The objects the papayu notes annotate, as `git notes list` names them.
fn annotated(repo: &TestRepo) -> Vec<String> {
    let list = repo.git(["notes", "--ref=papayu", "list"]).ok().stdout;
    list.lines()
        .filter_map(|l| l.split_whitespace().nth(1))
        .map(str::to_string)
        .collect()
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

#[test]
fn lines_a_remote_removed_stay_and_go_back_with_the_next_push() {
    let team = team(&[("a.txt", "one\n")]);
    let alice = &team.alice;
    let shared = alice.plan_id("Add b", &create("b.txt"));
    let branch = json_of(
        &alice
            .papayu(["--json", "apply", &shared, "--no-check"])
            .ok(),
    )["branch"]
        .as_str()
        .unwrap()
        .to_string();
    let base = alice.rev("main");
    // A plan on a commit only Alice has: `git notes prune` elsewhere removes its note.
    alice.write("c.txt", "c\n");
    let local_commit = alice.commit_all("c");
    let local = alice.plan_id("Add d", &create("d.txt"));
    alice.papayu(["sync"]).ok();
    let before = annotated(alice);
    let lines_before = note(alice, &base);

    // Bob prunes the notes of commits he lacks, rewrites the shared note without the apply, and
    // pushes: his notes descend from Alice's.
    let bob = teammate(&team);
    bob.git(["notes", "--ref=papayu", "prune"]).ok();
    let record = lines_before
        .lines()
        .find(|l| l.contains("schema_hash"))
        .unwrap();
    bob.git(["notes", "--ref=papayu", "add", "-f", "-m", record, &base])
        .ok();
    push_notes(&bob);
    assert!(!annotated(&bob).contains(&local_commit));

    let pruned = note(alice, &local_commit).lines().count();
    // Each plan's own note goes too (the object it annotates is a name, not a stored object):
    // the apply's event is there.
    let own = note(alice, &shared) + &note(alice, &local);
    assert!(own.contains("\"applied\""), "{own}");
    assert!(!annotated(&bob).contains(&shared));
    let dropped = own.lines().count() + lines_before.lines().count() - 1;
    let synced = json_of(&alice.papayu(["--json", "sync"]).ok());
    assert_eq!(synced["merge"], "merged", "{synced}");
    assert_eq!(synced["kept"], pruned + dropped, "{synced}");
    assert_eq!(annotated(alice), before);
    assert_eq!(note(alice, &base), lines_before);
    assert_eq!(note(alice, &shared) + &note(alice, &local), own);
    assert!(note(alice, &local_commit).contains(&local));
    let listed = alice.papayu(["list"]).ok().stdout;
    assert!(
        listed.contains(&shared[..10]) && listed.contains(&local[..10]),
        "{listed}"
    );
    let shown = json_of(&alice.papayu(["--json", "show", &shared]).ok());
    assert_eq!(shown["branch"], branch.as_str(), "{shown}");
    alice.fsck();

    // The push that followed gave the remote its lines back; a sync that finds nothing removed
    // says nothing about it.
    bob.papayu(["sync"]).ok();
    assert_eq!(note(&bob, &base), lines_before);
    let again = alice.papayu(["sync"]).ok().stdout;
    assert!(!again.contains("removed"), "{again}");
    alice.papayu(["discard", &shared]).ok();
    assert_eq!(
        json_of(&alice.papayu(["--json", "show", &shared]).ok())["status"],
        "discarded"
    );
    bob.fsck();
}

#[test]
fn the_text_of_a_sync_says_what_a_remote_removed() {
    let team = team(&[("a.txt", "one\n")]);
    let alice = &team.alice;
    alice.plan_id("Add b", &create("b.txt"));
    alice.papayu(["sync"]).ok();
    let bob = teammate(&team);
    let base = alice.rev("main");
    bob.git(["notes", "--ref=papayu", "remove", &base]).ok();
    push_notes(&bob);
    let out = alice.papayu(["sync"]).ok().stdout;
    assert!(
        out.contains("merged: origin had removed 1 line(s) of yours, kept them"),
        "{out}"
    );
    assert!(!out.contains("new lines"), "{out}");
}

/// `n` event lines about plans that have no record, one a line.
fn junk(n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                "{{\"plan\":\"{:040x}\",\"event\":\"discarded\",\"at\":{i},\"detail\":\"junk\"}}\n",
                i + 1
            )
        })
        .collect()
}

#[test]
fn a_remote_flooded_with_junk_brings_none_of_it_and_stays_cheap_to_read() {
    let team = team(&[("a.txt", "one\n")]);
    let alice = &team.alice;
    let id = alice.plan_id("Add b", &create("b.txt"));
    alice.papayu(["sync"]).ok();
    let base = alice.rev("main");
    let mine = note(alice, &base);

    // A teammate floods the shared note: 20,000 events about no plan, 1,100 about Alice's, and
    // one event as long as a file.
    let bob = teammate(&team);
    let event = |at: usize| json!({"plan": id, "event": "discarded", "at": at}).to_string();
    let mut text = format!("{mine}{}", junk(20_000));
    for at in 0..1_100 {
        text.push_str(&event(at));
        text.push('\n');
    }
    let long = json!({"plan": id, "event": "failed", "at": 1, "output_tail": "x".repeat(70_000)});
    text.push_str(&format!("{long}\n"));
    std::fs::write(bob.path().join("flood"), &text).unwrap();
    bob.git(["notes", "--ref=papayu", "add", "-f", "-F", "flood", &base])
        .ok();
    push_notes(&bob);

    // Read straight from notes that hold it all (a plain fetch into the notes ref), the junk is
    // skipped: only Alice's plan, with the events about it.
    let reader = teammate(&team);
    let listed = json_of(&reader.papayu(["--json", "list"]).ok());
    assert_eq!(
        listed["plans"].as_array().map(Vec::len),
        Some(1),
        "{listed}"
    );

    // A clone without notes of its own is told on stderr what was refused.
    let carol = clone_of(&team.remote);
    let run = carol.papayu(["sync", "--no-push"]).ok();
    assert!(
        run.stderr
            .contains("refused 20101 line(s) of origin's notes (20000 about no plan"),
        "{run:?}"
    );
    assert!(carol.papayu(["list"]).ok().stdout.contains(&id[..10]));
    assert!(!note(&carol, &base).contains("junk"));
    carol.fsck();

    let synced = json_of(&alice.papayu(["--json", "sync"]).ok());
    let refused = &synced["refused"];
    assert_eq!(refused["no_record"], 20_000, "{synced}");
    assert_eq!(refused["too_many_events"], 100, "{synced}");
    assert_eq!(refused["too_long"], 1, "{synced}");
    assert_eq!(synced["taken"], 1_000, "{synced}");
    assert!(
        synced["warnings"]
            .to_string()
            .contains("refused 20101 line(s)"),
        "{synced}"
    );
    let stored = note(alice, &base);
    assert_eq!(stored.lines().count(), mine.lines().count() + 1_000);
    assert!(!stored.contains("junk"));
    let listed = json_of(&alice.papayu(["--json", "list"]).ok());
    assert_eq!(listed["plans"][0]["id"], id.as_str(), "{listed}");
    alice.fsck();
    // What Alice pushes back leaves the junk out of the remote too.
    let remote = run_in(
        &team.remote,
        "git",
        ["notes", "--ref=papayu", "show", &base],
        None,
    )
    .ok();
    assert!(!remote.stdout.contains("junk"));
}

#[test]
fn a_remote_notes_ref_that_is_not_a_commit_is_an_error_about_that_remote() {
    let team = team(&[("a.txt", "one\n")]);
    let alice = &team.alice;
    let id = alice.plan_id("Add b", &create("b.txt"));
    alice.papayu(["sync"]).ok();
    let git = |args: &[&str]| run_in(&team.remote, "git", args, None).ok().stdout;
    let blob = git(&["hash-object", "-w", "--stdin"]);
    let tree = git(&["rev-parse", "HEAD^{tree}"]);
    for (kind, object) in [("blob", blob.trim()), ("tree", tree.trim())] {
        git(&["update-ref", "refs/notes/papayu", object]);
        let before = alice.snapshot();
        let notes_before = alice.git(["notes", "--ref=papayu", "list"]).ok().stdout;
        let failed = alice
            .papayu(["--json", "sync"])
            .json_err("ERR_REMOTE_FAILED");
        let error = failed["errors"][0].to_string();
        assert!(
            error.contains(&format!("origin's refs/notes/papayu points at a {kind}"))
                && error.contains("not a notes commit"),
            "{error}"
        );
        assert!(
            failed["errors"][0]["hint"]
                .as_str()
                .unwrap()
                .contains("git push origin :refs/notes/papayu")
        );
        let text = alice.papayu(["sync"]).err("ERR_REMOTE_FAILED").stderr;
        assert!(
            !text.contains("gc --repair") && !text.contains("ERR_REF_DAMAGED"),
            "{text}"
        );
        assert_eq!(alice.snapshot(), before, "nothing local changes");
        assert_eq!(
            alice.git(["notes", "--ref=papayu", "list"]).ok().stdout,
            notes_before
        );
    }
    assert!(alice.papayu(["list"]).ok().stdout.contains(&id[..10]));
    alice.fsck();
}
