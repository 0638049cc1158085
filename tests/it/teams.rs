//! Teams: plans, their events and their conversations travel between clones through a remote
//! (`sync`, `publish`), teammates' lines stay claims, and concurrent syncs lose nothing.

use crate::common;

use std::path::PathBuf;

use common::fake_llm::{self, FakeLlm};
use common::{TestRepo, clone_of, run_in};
use serde_json::{Value, json};

/// A bare remote and two clones of it.
struct Team {
    _home: tempfile::TempDir,
    remote: PathBuf,
    alice: TestRepo,
    bob: TestRepo,
}

fn team() -> Team {
    let origin = TestRepo::with_files(&[("a.txt", "one\ntwo\n")]);
    let (home, remote) = common::bare_remote(&origin);
    let alice = clone_of(&remote);
    let bob = clone_of(&remote);
    Team {
        _home: home,
        remote,
        alice,
        bob,
    }
}

fn answer(path: &str, content: &str) -> String {
    json!({"summary": format!("add {path}"), "actions": [
        {"kind": "CREATE_FILE", "path": path, "content": content}]})
    .to_string()
}

fn json_of(run: &common::Run) -> Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}\n{run:?}"))
}

/// The remote's ref `name`, or "" when it has none.
fn remote_ref(team: &Team, name: &str) -> String {
    run_in(
        &team.remote,
        "git",
        ["rev-parse", "--verify", "-q", name],
        None,
    )
    .stdout
    .trim()
    .to_string()
}

/// Every line of every note in the papayu notes of `repo`, sorted.
fn note_lines(repo: &TestRepo) -> Vec<String> {
    let list = repo.git(["notes", "--ref=papayu", "list"]).ok().stdout;
    let mut lines = Vec::new();
    for object in list.lines().filter_map(|l| l.split_whitespace().nth(1)) {
        let text = repo
            .git(["notes", "--ref=papayu", "show", object])
            .ok()
            .stdout;
        lines.extend(text.lines().map(str::to_string));
    }
    lines.sort();
    lines
}

#[test]
fn alice_plans_applies_and_syncs_bob_syncs_lists_reads_the_conversation_and_applies() {
    let team = team();
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&answer("b.txt", "b\n"))]);
    let url = format!("{}/v1", fake.url());
    let env = [
        ("PAPAYU_LLM_API_URL", url.as_str()),
        ("PAPAYU_LLM_MODEL", "test-model"),
        ("PAPAYU_LLM_TIMEOUT_SEC", "5"),
    ];
    let alice = &team.alice;
    // Alice prices her provider: the cost travels with the conversation too.
    alice
        .git(["config", "papayu.openai-compatible.price", "2,8,0.5"])
        .ok();
    let planned = json_of(
        &alice
            .papayu_env(["--json", "plan", "Add b after reading a.txt"], &env)
            .ok(),
    );
    let id = planned["plans"][0]["plan"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let trace_id = planned["plans"][0]["plan"]["trace_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(planned["plans"][0]["plan"]["conversation"].is_string());
    alice.papayu(["apply", &id, "--no-check"]).ok();
    let synced = json_of(&alice.papayu(["--json", "sync"]).ok());
    assert_eq!(synced["remote"], "origin");
    assert_eq!(synced["pushed"], true);
    assert_eq!(
        remote_ref(&team, "refs/notes/papayu"),
        alice.rev("refs/notes/papayu")
    );

    let bob = &team.bob;
    let before = bob.logical_snapshot();
    let out = bob.papayu(["sync"]).ok();
    assert!(
        out.stdout
            .contains("1 new plan from origin; origin has all of yours"),
        "{out:?}"
    );
    assert_eq!(
        bob.rev("refs/notes/remotes/origin/papayu"),
        alice.rev("refs/notes/papayu")
    );
    // Only the notes moved: Bob's branch, index and tree are as they were.
    let after = bob.logical_snapshot();
    let without_notes = |s: &str| {
        s.lines()
            .filter(|l| !l.starts_with("refs/notes/"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(without_notes(&before), without_notes(&after));

    let listed = bob.papayu(["list"]).ok().stdout;
    assert!(
        listed.contains(&id[..10]) && listed.contains("proposed"),
        "{listed}"
    );
    let conversation = bob.papayu(["show", &id, "--conversation"]).ok().stdout;
    for expected in [
        "Goal: Add b after reading a.txt",
        "Context:",
        "a.txt",
        "Round 1:",
        "request: protocol v2",
        "b.txt",
        "Repairs: 0",
        "Tokens:",
        " ms, $",
    ] {
        assert!(
            conversation.contains(expected),
            "{expected:?} missing:\n{conversation}"
        );
    }
    let shown = json_of(&bob.papayu(["show", &id, "--conversation", "--json"]).ok());
    assert_eq!(shown["plan"], id.as_str());
    assert_eq!(shown["conversation"]["summarized"], false);
    assert!(
        !shown["conversation"]["answers"][0]["text"]
            .as_str()
            .unwrap()
            .is_empty()
    );
    // Bob has no trace file of Alice's plan; trace show reads it from the conversation.
    let trace = bob.papayu(["trace", "show", &trace_id]).ok().stdout;
    assert!(trace.contains(&format!("trace {trace_id}")), "{trace}");
    assert!(trace.contains("provider:"), "{trace}");

    let applied = json_of(&bob.papayu(["--json", "apply", &id, "--no-check"]).ok());
    let branch = applied["branch"].as_str().unwrap();
    let message = bob.git(["log", "-1", "--format=%B", branch]).ok().stdout;
    assert!(message.contains(&format!("Papayu-Plan: {id}")), "{message}");
    assert!(
        message.contains("Assisted-by: git-papayu:fake-model"),
        "{message}"
    );
    assert_eq!(
        bob.git(["show", &format!("{branch}:b.txt")]).ok().stdout,
        "b\n"
    );
    bob.fsck();
    alice.fsck();
}

#[test]
fn concurrent_syncs_converge_without_losing_a_line() {
    let team = team();
    for (repo, who) in [(&team.alice, "alice"), (&team.bob, "bob")] {
        for n in 0..3 {
            let path = format!("{who}-{n}.txt");
            repo.plan_id(&format!("Add {path}"), &answer(&path, "x\n"));
        }
    }
    let mine = |repo: &TestRepo| note_lines(repo);
    let (alice_lines, bob_lines) = (mine(&team.alice), mine(&team.bob));
    let syncs: Vec<_> = [
        team.alice.path().to_path_buf(),
        team.bob.path().to_path_buf(),
    ]
    .into_iter()
    .map(|dir| std::thread::spawn(move || run_in(&dir, "git", ["papayu", "--json", "sync"], None)))
    .collect();
    for sync in syncs {
        let run = sync.join().unwrap().ok();
        assert_eq!(json_of(&run)["pushed"], true, "{run:?}");
    }
    // Whoever pushed first lacks the other's lines until it syncs again.
    team.alice.papayu(["sync"]).ok();
    team.bob.papayu(["sync"]).ok();
    team.alice.papayu(["sync"]).ok();
    let (alice_now, bob_now) = (mine(&team.alice), mine(&team.bob));
    assert_eq!(alice_now, bob_now, "both clones hold the same notes");
    for line in alice_lines.iter().chain(&bob_lines) {
        assert!(alice_now.contains(line), "lost: {line}");
    }
    assert_eq!(
        team.alice.rev("refs/notes/papayu"),
        remote_ref(&team, "refs/notes/papayu")
    );
    let listed = json_of(&team.bob.papayu(["list", "--json"]).ok());
    assert_eq!(listed["plans"].as_array().unwrap().len(), 6, "{listed}");
    team.alice.fsck();
    team.bob.fsck();
}

#[test]
fn a_push_rejected_because_the_remote_moved_is_fetched_merged_and_pushed_again() {
    let team = team();
    let alice_plan = team.alice.plan_id("Add a1", &answer("a1.txt", "1\n"));
    let bob_plan = team.bob.plan_id("Add b1", &answer("b1.txt", "1\n"));
    // Bob's first push is overtaken: his pre-push hook lets Alice push first.
    let hook = team.bob.path().join(".git/hooks/pre-push");
    let script = format!(
        "#!/bin/sh\nif [ ! -e \"$HOME/overtaken\" ]; then\n  touch \"$HOME/overtaken\"\n  \
         (unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE; cd '{}' && git papayu sync >/dev/null 2>&1)\nfi\nexit 0\n",
        team.alice.path().display()
    );
    std::fs::write(&hook, script).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let synced = json_of(&team.bob.papayu(["--json", "sync"]).ok());
    assert_eq!(synced["pushed"], true, "{synced}");
    assert_eq!(synced["rounds"], 2, "{synced}");
    team.alice.papayu(["sync"]).ok();
    for repo in [&team.alice, &team.bob] {
        let listed = repo.papayu(["list"]).ok().stdout;
        assert!(
            listed.contains(&alice_plan[..10]) && listed.contains(&bob_plan[..10]),
            "{listed}"
        );
    }
}

#[test]
fn forged_lines_from_the_remote_stay_claims() {
    let team = team();
    let alice = &team.alice;
    let id = alice.plan_id("Add b", &answer("b.txt", "b\n"));
    alice.papayu(["apply", &id, "--no-check"]).ok();
    alice.papayu(["sync"]).ok();
    let base = alice.rev("HEAD");
    let record_line = alice
        .git(["notes", "--ref=papayu", "show", &base])
        .ok()
        .stdout
        .lines()
        .find(|l| l.contains("\"schema_hash\""))
        .unwrap()
        .to_string();

    // Mallory, with push access, writes lines under Alice's plan.
    let mallory = clone_of(&team.remote);
    common::fetch_notes(&mallory, "origin");
    let cancel = json!({"plan": id, "event": "undone", "at": 4_102_444_800_000i64,
        "cancels": git_papayu::store::records::line_hash(&record_line)});
    let discarded = json!({"plan": id, "event": "discarded", "at": 4_102_444_800_000i64});
    let mut forged: Value = serde_json::from_str(&record_line).unwrap();
    forged["id"] = json!(id);
    forged["actions"] = json!([{"kind": "DELETE_FILE", "path": "a.txt"}]);
    for line in [
        cancel.to_string(),
        discarded.to_string(),
        forged.to_string(),
    ] {
        mallory
            .git(["notes", "--ref=papayu", "append", "-m", &line, &base])
            .ok();
    }
    mallory
        .git(["push", "-q", "origin", "refs/notes/papayu"])
        .ok();

    let out = alice.papayu(["sync"]).ok();
    assert!(out.stdout.contains("Synced"), "{out:?}");
    let shown = json_of(&alice.papayu(["show", &id, "--json"]).ok());
    assert_eq!(
        shown["status"], "applied",
        "Alice's branch decides: {shown}"
    );
    assert_eq!(
        shown["plan"]["actions"][0]["kind"], "CREATE_FILE",
        "{shown}"
    );
    assert_eq!(shown["claims"].as_array().unwrap().len(), 1, "{shown}");
    assert!(
        shown["warnings"]
            .to_string()
            .contains("does not hash to its id"),
        "the forged record is named: {shown}"
    );
    // Bob, who has no branch of the plan, still sees it, and its actions are Alice's.
    team.bob.papayu(["sync"]).ok();
    let bobs = json_of(&team.bob.papayu(["show", &id, "--json"]).ok());
    assert_eq!(bobs["plan"]["actions"][0]["kind"], "CREATE_FILE", "{bobs}");
    assert_eq!(bobs["claims"].as_array().unwrap().len(), 1, "{bobs}");
}

#[test]
fn publish_pushes_the_branch_and_the_notes_and_never_forces() {
    let team = team();
    let alice = &team.alice;
    let id = alice.plan_id("Add b", &answer("b.txt", "b\n"));
    let applied = json_of(&alice.papayu(["--json", "apply", &id, "--no-check"]).ok());
    let branch = applied["branch"].as_str().unwrap().to_string();
    // The sample pre-push hook refuses proposal branches; publish is the deliberate way.
    alice.papayu(["init", "--hooks"]).ok();
    let published = json_of(&alice.papayu(["--json", "publish", &id]).ok());
    assert_eq!(published["branch"], branch.as_str());
    assert_eq!(
        remote_ref(&team, &format!("refs/heads/{branch}")),
        alice.rev(&branch)
    );
    assert_eq!(
        remote_ref(&team, "refs/notes/papayu"),
        alice.rev("refs/notes/papayu")
    );

    // Bob makes his own commit of the plan under the same branch name: publishing it would
    // replace Alice's, and papayu refuses rather than force.
    let bob = &team.bob;
    bob.papayu(["sync"]).ok();
    bob.git([
        "-c",
        "papayu.attribution=none",
        "papayu",
        "apply",
        &id,
        "--no-check",
    ])
    .ok();
    assert_ne!(bob.rev(&branch), alice.rev(&branch));
    let before = remote_ref(&team, &format!("refs/heads/{branch}"));
    bob.papayu(["publish", &id]).err("ERR_PUSH_REJECTED");
    assert_eq!(remote_ref(&team, &format!("refs/heads/{branch}")), before);

    // A plan without a branch here has nothing to publish.
    let other = bob.plan_id("Add c", &answer("c.txt", "c\n"));
    bob.papayu(["publish", &other]).err("ERR_PLAN_STATE");
}

#[test]
fn sync_refuses_cleanly_and_no_push_only_fetches() {
    let team = team();
    let alice = &team.alice;
    let id = alice.plan_id("Add b", &answer("b.txt", "b\n"));
    let before = alice.snapshot();
    alice.papayu(["sync", "nowhere"]).err("ERR_NO_SUCH_REMOTE");
    alice
        .git(["remote", "add", "broken", "/nonexistent/remote.git"])
        .ok();
    let before_broken = alice.snapshot();
    alice.papayu(["sync", "broken"]).err("ERR_REMOTE_FAILED");
    assert_eq!(alice.snapshot(), before_broken);
    alice.git(["remote", "remove", "broken"]).ok();
    assert_eq!(alice.snapshot(), before);
    alice
        .git(["-c", "notes.papayu.mergeStrategy=manual", "papayu", "sync"])
        .err("ERR_CONFIG_INVALID");
    let fetched = json_of(&alice.papayu(["--json", "sync", "--no-push"]).ok());
    assert_eq!(fetched["pushed"], false);
    assert!(
        fetched["fetched"].is_null(),
        "the remote had no plans: {fetched}"
    );
    assert_eq!(remote_ref(&team, "refs/notes/papayu"), "");
    assert!(alice.papayu(["list"]).ok().stdout.contains(&id[..10]));
}

#[test]
fn init_says_why_and_offers_the_notes_refspec() {
    let team = team();
    let out = team.alice.papayu(["init"]).ok().stdout;
    assert!(out.contains("git commit --amend"), "{out}");
    assert!(out.contains("git papayu init --share origin"), "{out}");
    let shared = json_of(
        &team
            .alice
            .papayu(["--json", "init", "--share", "origin"])
            .ok(),
    );
    for step in shared["steps"].as_array().unwrap() {
        assert!(!step["why"].as_str().unwrap().is_empty(), "{step}");
    }
    let fetch = team
        .alice
        .git(["config", "--get-all", "remote.origin.fetch"])
        .ok()
        .stdout;
    assert!(
        fetch.contains("+refs/notes/papayu:refs/notes/remotes/origin/papayu"),
        "{fetch}"
    );
    // Now a plain git fetch brings Bob's plans.
    team.bob.plan_id("Add c", &answer("c.txt", "c\n"));
    team.bob.papayu(["sync"]).ok();
    team.alice.git(["fetch", "-q", "origin"]).ok();
    assert_eq!(
        team.alice.rev("refs/notes/remotes/origin/papayu"),
        team.bob.rev("refs/notes/papayu")
    );
    let again = json_of(&team.alice.papayu(["--json", "init"]).ok());
    assert!(again["offer"].is_null(), "shared already: {again}");
}

/// `list` and `show` gave no sign that a plan came from a teammate, and a published proposal
/// branch (`origin/papayu/…`) was not shown at all: Bob saw "base 1a2b3c" for Alice's proposal.
#[test]
fn a_teammates_plans_show_who_made_them_and_their_published_branch() {
    let team = team();
    let alice = &team.alice;
    let as_alice = [
        ("GIT_AUTHOR_NAME", "Alice Liddell"),
        ("GIT_AUTHOR_EMAIL", "alice@example.com"),
    ];
    let answer_file = alice.path().join(".git/b.json");
    std::fs::write(&answer_file, answer("b.txt", "b\n")).unwrap();
    let planned = json_of(
        &alice
            .papayu_env(
                [
                    "--json",
                    "plan",
                    "Add b",
                    "--response",
                    answer_file.to_str().unwrap(),
                ],
                &as_alice,
            )
            .ok(),
    );
    let id = planned["plans"][0]["plan"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        planned["plans"][0]["plan"]["by"], "Alice Liddell <alice@example.com>",
        "the record names who made it"
    );
    let applied = json_of(&alice.papayu(["--json", "apply", &id, "--no-check"]).ok());
    let branch = applied["branch"].as_str().unwrap().to_string();
    alice.papayu(["publish", &id]).ok();
    // Alice's own plan is hers: no BY column, no "By:" line.
    let hers = alice.papayu_env(["list"], &as_alice).ok().stdout;
    assert!(!hers.contains("Alice"), "{hers}");
    let hers = alice.papayu_env(["show", &id], &as_alice).ok().stdout;
    assert!(!hers.contains("By:"), "{hers}");

    let bob = &team.bob;
    bob.papayu(["sync"]).ok();
    bob.git(["fetch", "-q", "origin"]).ok();
    let own = bob.plan_id("Add c", &answer("c.txt", "c\n"));
    let listed = bob.papayu(["list"]).ok().stdout;
    let line_of = |id: &str| {
        listed
            .lines()
            .find(|l| l.starts_with(&id[..10]))
            .unwrap_or_default()
            .to_string()
    };
    let hers = line_of(&id);
    assert!(hers.contains("Alice Liddell"), "{listed}");
    assert!(
        hers.contains(&format!("origin/{branch}")),
        "her published branch, as a remote one: {listed}"
    );
    assert!(
        hers.contains("proposed"),
        "her apply is not Bob's: {listed}"
    );
    let mine = line_of(&own);
    assert!(!mine.contains("Alice"), "{listed}");

    let shown = bob.papayu(["show", &id]).ok().stdout;
    assert!(
        shown.contains(
            "By: Alice Liddell <alice@example.com> (a teammate's plan, from the shared notes)"
        ),
        "{shown}"
    );
    assert!(
        shown.contains(&format!(
            "Published: origin/{branch} (review it with git log -p origin/{branch}"
        )),
        "{shown}"
    );
    let json = json_of(&bob.papayu(["--json", "show", &id]).ok());
    assert_eq!(json["by"], "Alice Liddell <alice@example.com>");
    assert_eq!(json["remote_branches"][0], format!("origin/{branch}"));
    let rows = json_of(&bob.papayu(["--json", "list"]).ok());
    let row = rows["plans"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == id.as_str())
        .unwrap()
        .clone();
    assert_eq!(row["by"], "Alice Liddell <alice@example.com>");
    assert_eq!(row["remote_branches"][0], format!("origin/{branch}"));
    assert!(!bob.papayu(["show", &own]).ok().stdout.contains("By:"));
}
