//! The git-native core through the real binary: plan → apply → review → merge/discard → undo.
//! Every test checks the result with the real git CLI.

use crate::common;
use common::{PARSER, parser_repo as repo};

use common::TestRepo;
use serde_json::Value;

fn fix_answer() -> String {
    serde_json::json!({
        "summary": "Handle None in parse\n\nparse(None) now returns an empty string.",
        "plan": [{"step": "Guard None", "details": "return '' early"}],
        "risks": ["callers relying on the exception"],
        "questions": ["Should None be logged?"],
        "actions": [
            {"kind": "UPDATE_FILE", "path": "src/parser.py",
             "content": "def parse(value):\n    if value is None:\n        return ''\n    return value.strip()\n"},
            {"kind": "CREATE_FILE", "path": "tests/test_parser.py", "content": "from src.parser import parse\n"}
        ]
    })
    .to_string()
}

/// Stores `answer` as a plan and returns its full id.
fn plan(repo: &TestRepo, goal: &str, answer: &str, extra: &[&str]) -> String {
    let mut args = vec!["plan", goal, "--response", "-", "--json"];
    args.extend_from_slice(extra);
    let run = repo.papayu_stdin(args, answer.as_bytes()).ok();
    let out: Value = serde_json::from_str(&run.stdout).expect("plan --json prints JSON");
    out["plans"][0]["plan"]["id"]
        .as_str()
        .expect("plan id")
        .to_string()
}

fn apply_json(repo: &TestRepo, args: &[&str]) -> Value {
    let mut all = vec!["apply", "--json"];
    all.extend_from_slice(args);
    let run = repo.papayu(all).ok();
    serde_json::from_str(&run.stdout).expect("apply --json prints JSON")
}

fn note_lines(repo: &TestRepo, commit: &str) -> Vec<Value> {
    let run = repo.git(["notes", "--ref=papayu", "show", commit]).ok();
    run.stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("each note line is JSON"))
        .collect()
}

/// The notes and the operation log: what plan and a failed apply may change.
const PAPAYU_LOGS: &[&str] = &["refs/notes/papayu", "refs/papayu/oplog"];
/// Everything papayu owns, proposal branches included.
const PAPAYU_REFS: &[&str] = &["refs/notes/papayu", "refs/papayu/", "refs/heads/papayu/"];

/// A snapshot without the lines of refs under `prefixes`.
fn without(snapshot: &str, prefixes: &[&str]) -> String {
    snapshot
        .lines()
        .filter(|l| !prefixes.iter().any(|p| l.starts_with(p)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The content of `path` in the tree of `rev`.
fn file_at(repo: &TestRepo, rev: &str, path: &str) -> String {
    repo.git(["show", &format!("{rev}:{path}")]).ok().stdout
}

fn has_notes(repo: &TestRepo) -> bool {
    repo.git(["rev-parse", "-q", "--verify", "refs/notes/papayu"])
        .status
        == Some(0)
}

fn branches(repo: &TestRepo) -> String {
    repo.git(["for-each-ref", "--format=%(refname)", "refs/heads/papayu/"])
        .ok()
        .stdout
}

#[test]
fn plan_stores_one_note_line_and_touches_nothing_else() {
    let repo = repo();
    let base = repo.rev("HEAD");
    let before = repo.snapshot();
    let run = repo
        .papayu_stdin(
            ["plan", "Fix parse on None", "--response", "-"],
            fix_answer().as_bytes(),
        )
        .ok();
    assert!(
        run.stdout.contains("Summary: Handle None in parse"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("Guard None"),
        "steps are printed: {}",
        run.stdout
    );
    assert!(
        run.stdout.contains("callers relying on the exception"),
        "risks are printed"
    );
    assert!(
        run.stdout.contains("Should None be logged?"),
        "questions are printed"
    );
    assert!(
        run.stdout.contains("+    if value is None:"),
        "the preview diff is printed: {}",
        run.stdout
    );
    assert!(
        !run.stderr.contains("PREVIEW_READY"),
        "event lines are shown only when verbose: {}",
        run.stderr
    );

    let lines = note_lines(&repo, &base);
    assert_eq!(lines.len(), 1);
    let record = &lines[0];
    assert_eq!(record["base"], base.as_str());
    assert_eq!(record["goal"], "Fix parse on None");
    assert_eq!(record["actions"].as_array().map(Vec::len), Some(2));
    let context = record["context"].as_array().expect("context fingerprint");
    assert_eq!(
        context.len(),
        1,
        "only the existing file it touches counts as read"
    );
    assert_eq!(context[0]["path"], "src/parser.py");
    assert_eq!(
        context[0]["blob_oid"],
        repo.rev("HEAD:src/parser.py").as_str()
    );

    // Everything but the notes and the operation log is as it was.
    let after = repo.snapshot();
    assert_eq!(without(&before, PAPAYU_LOGS), without(&after, PAPAYU_LOGS));
    repo.fsck();

    // A second plan on the same commit appends a line.
    plan(&repo, "Second idea", &fix_answer(), &[]);
    assert_eq!(note_lines(&repo, &base).len(), 2);
}

#[test]
fn invalid_plan_stores_nothing() {
    let repo = repo();
    let before = repo.snapshot();
    let answer = r#"{"actions":[{"kind":"CREATE_FILE","path":"../escape.txt","content":"x"}]}"#;
    repo.papayu_stdin(["plan", "escape", "--response", "-"], answer.as_bytes())
        .err("ERR_PATH_DOTDOT");
    let answer = r#"{"actions":[{"kind":"DELETE_FILE","path":"missing.txt"}]}"#;
    repo.papayu_stdin(["plan", "delete", "--response", "-"], answer.as_bytes())
        .err("ERR_TARGET_MISSING");
    assert_eq!(repo.snapshot(), before);
    assert!(!has_notes(&repo), "nothing was stored");
}

/// A rejection says what happened and, apart from it, what to do: on one line on stderr, as
/// `reason` and `hint` under `--json`.
#[test]
fn a_rejection_carries_its_hint() {
    let repo = repo();
    let answer = r#"{"actions":[{"kind":"DELETE_FILE","path":"missing.txt"}]}"#;
    let run = repo
        .papayu_stdin(["plan", "delete", "--response", "-"], answer.as_bytes())
        .err("ERR_TARGET_MISSING");
    assert!(
        run.stderr.contains(
            "ERR_TARGET_MISSING: action 1 (DELETE_FILE missing.txt): no such file in the commit \
             the plan applies to; create it with CREATE_FILE"
        ),
        "{}",
        run.stderr
    );
    let doc = repo
        .papayu_stdin(
            ["--json", "plan", "delete", "--response", "-"],
            answer.as_bytes(),
        )
        .json_err("ERR_TARGET_MISSING");
    let error = &doc["errors"][0];
    assert_eq!(
        error["reason"],
        "action 1 (DELETE_FILE missing.txt): no such file in the commit the plan applies to"
    );
    assert!(
        error["hint"]
            .as_str()
            .is_some_and(|h| h.starts_with("create it with CREATE_FILE")),
        "{doc:#}"
    );
    assert!(!has_notes(&repo), "nothing was stored");
}

#[test]
fn apply_commits_on_its_own_branch_with_trailers() {
    let repo = repo();
    std::fs::write(repo.path().join("untracked.txt"), "mine\n").unwrap();
    repo.write("README.md", "# demo, edited but not committed\n");
    let id = plan(&repo, "Fix parse on None", &fix_answer(), &[]);
    let before = repo.snapshot();
    let out = apply_json(&repo, &["--no-check"]);
    let branch = out["branch"].as_str().expect("branch").to_string();
    assert!(branch.starts_with("papayu/fix-parse-on-none-"), "{branch}");
    assert!(branch.ends_with(&id[..10]));

    let body = repo.git(["log", "-1", "--format=%B", &branch]).ok().stdout;
    assert!(body.starts_with("Handle None in parse\n"), "{body}");
    assert!(body.contains(&format!("Papayu-Plan: {id}")), "{body}");
    assert!(body.contains("Papayu-Trace: "), "{body}");
    let trailers = repo
        .git([
            "log",
            "-1",
            "--format=%(trailers:key=Papayu-Plan,valueonly)",
            &branch,
        ])
        .ok()
        .stdout;
    assert_eq!(trailers.trim(), id);
    assert_eq!(
        file_at(&repo, &branch, "tests/test_parser.py"),
        "from src.parser import parse\n"
    );
    assert!(file_at(&repo, &branch, "src/parser.py").contains("if value is None"));
    assert_eq!(repo.rev(&format!("{branch}^")), repo.rev("HEAD"));

    // The user's working tree, index, HEAD and uncommitted edits are untouched.
    let after = repo.snapshot();
    assert_eq!(without(&before, PAPAYU_REFS), without(&after, PAPAYU_REFS));
    assert_eq!(repo.read("README.md"), "# demo, edited but not committed\n");
    assert_eq!(repo.read("untracked.txt"), "mine\n");

    // Events go on the plan's own note (the note of the object its id names).
    let events = note_lines(&repo, &id);
    assert!(
        events
            .iter()
            .any(|e| e["event"] == "applied" && e["branch"] == branch.as_str())
    );
    repo.fsck();

    // A second apply of the same plan is refused, changing nothing.
    let again = repo.snapshot();
    repo.papayu(["apply", "--no-check"]).err("ERR_PLAN_STATE");
    assert_eq!(repo.snapshot(), again);
}

#[test]
fn a_long_summary_gives_a_subject_of_at_most_72_characters_cut_at_a_word() {
    let repo = repo();
    let summary = "Handle None in parse by returning an empty string early, and cover the \
                   new branch with a test";
    let mut answer: Value = serde_json::from_str(&fix_answer()).unwrap();
    answer["summary"] = summary.into();
    let id = plan(&repo, "Fix parse on None", &answer.to_string(), &[]);
    let out = apply_json(&repo, &["--no-check"]);
    let branch = out["branch"].as_str().unwrap();

    let subject = repo.git(["log", "-1", "--format=%s", branch]).ok().stdout;
    let subject = subject.trim_end();
    assert_eq!(
        subject,
        "Handle None in parse by returning an empty string early, and cover the"
    );
    assert!(subject.chars().count() <= 72);
    let body = repo.git(["log", "-1", "--format=%b", branch]).ok().stdout;
    assert!(body.starts_with(&format!("{summary}\n")), "{body}");
    let trailers = repo
        .git([
            "log",
            "-1",
            "--format=%(trailers:key=Papayu-Plan,valueonly)",
            branch,
        ])
        .ok()
        .stdout;
    assert_eq!(trailers.trim(), id);
}

#[test]
fn diff_passes_git_diff_options_without_a_double_dash() {
    let repo = repo();
    let id = plan(&repo, "Fix parse on None", &fix_answer(), &[]);
    for args in [
        vec!["diff", &id[..6], "--stat"],
        vec!["diff", "--stat"],
        vec!["diff", &id[..6], "--", "--stat"],
    ] {
        let stat = repo.papayu(&args).ok().stdout;
        assert!(stat.contains("2 files changed"), "{args:?}: {stat}");
        assert!(!stat.contains("+    if value is None:"), "{args:?}: {stat}");
    }
    let names = repo
        .papayu(["diff", &id[..6], "--name-only", "--", "tests"])
        .ok()
        .stdout;
    assert_eq!(names, "tests/test_parser.py\n");
    let out: Value = serde_json::from_str(
        &repo
            .papayu(["diff", &id[..6], "--stat", "--json"])
            .ok()
            .stdout,
    )
    .unwrap();
    assert!(
        out["diff"].as_str().unwrap().contains("2 files changed"),
        "{out:#}"
    );
}

#[test]
fn apply_without_a_check_says_nothing_was_tested() {
    const NOTHING_TESTED: &str = "no check configured: nothing was tested \
                                  (set papayu.checkCommand or .papa-yu/project.json)";
    let repo = repo();
    plan(&repo, "Fix parse on None", &fix_answer(), &[]);
    let run = repo.papayu(["ok"]).ok();
    assert!(run.stderr.contains(NOTHING_TESTED), "{}", run.stderr);

    // Under --json it is a warning in the document.
    let repo = self::repo();
    plan(&repo, "Fix parse on None", &fix_answer(), &[]);
    let out = apply_json(&repo, &[]);
    assert_eq!(out["warnings"][0], NOTHING_TESTED, "{out:#}");

    // Asked for no check, or a check that ran: nothing to say.
    for args in [&["--no-check"][..], &["--check", "true"]] {
        let repo = self::repo();
        plan(&repo, "Fix parse on None", &fix_answer(), &[]);
        let mut all = vec!["apply"];
        all.extend_from_slice(args);
        let run = repo.papayu(all).ok();
        assert!(!run.stderr.contains("nothing was tested"), "{}", run.stderr);
    }
}

#[test]
fn list_show_and_diff_describe_the_plan() {
    let repo = repo();
    let id = plan(&repo, "Fix parse on None", &fix_answer(), &[]);
    let list = repo.papayu(["list"]).ok().stdout;
    assert!(
        list.contains(&id[..10]) && list.contains("proposed") && list.contains("Fix parse on None"),
        "{list}"
    );
    let listed: Value = serde_json::from_str(&repo.papayu(["list", "--json"]).ok().stdout).unwrap();
    assert_eq!(listed["plans"][0]["id"], id.as_str());
    assert_eq!(listed["plans"][0]["status"], "proposed");

    let diff = repo.papayu(["diff", &id[..6]]).ok().stdout;
    assert!(diff.contains("+    if value is None:"), "{diff}");
    assert!(diff.contains("tests/test_parser.py"), "{diff}");
    let stat = repo.papayu(["diff", &id[..6], "--", "--stat"]).ok().stdout;
    assert!(stat.contains("2 files changed"), "{stat}");

    apply_json(&repo, &["--no-check"]);
    let show: Value =
        serde_json::from_str(&repo.papayu(["show", &id[..8], "--json"]).ok().stdout).unwrap();
    assert_eq!(show["status"], "applied");
    assert_eq!(
        show["plan"]["summary"]
            .as_str()
            .map(|s| s.starts_with("Handle None")),
        Some(true)
    );
    let text = repo.papayu(["show"]).ok().stdout;
    assert!(
        text.contains("Status: applied")
            && text.contains("UPDATE_FILE")
            && text.contains("History:"),
        "{text}"
    );
    let diff = repo.papayu(["diff"]).ok().stdout;
    assert!(
        diff.contains("+    if value is None:"),
        "diff of the applied branch: {diff}"
    );

    repo.papayu(["show", "ffff"]).err("ERR_PLAN_NOT_FOUND");
    repo.papayu(["show", "zz"]).err("ERR_PLAN_NOT_FOUND");
}

#[test]
fn base_mismatch_on_onto_leaves_everything_alone() {
    let repo = repo();
    let id = plan(&repo, "Fix parse on None", &fix_answer(), &[]);
    repo.write(
        "src/parser.py",
        "def parse(value):\n    return value.strip().lower()\n",
    );
    repo.commit_all("parser moved on");
    let before = repo.snapshot();
    repo.papayu(["apply", "--no-check", "--onto", "HEAD", &id])
        .err("ERR_BASE_MISMATCH");
    assert_eq!(repo.snapshot(), before);
    repo.fsck();
}

#[test]
fn apply_onto_a_newer_commit_when_the_files_did_not_move() {
    let repo = repo();
    let id = plan(&repo, "Fix parse on None", &fix_answer(), &[]);
    repo.write("README.md", "# demo\n\nmore\n");
    let newer = repo.commit_all("docs");
    let out = apply_json(&repo, &[&id, "--no-check", "--onto", "HEAD"]);
    let branch = out["branch"].as_str().unwrap();
    assert_eq!(repo.rev(&format!("{branch}^")), newer);
    assert_eq!(file_at(&repo, branch, "README.md"), "# demo\n\nmore\n");
}

#[test]
fn failing_check_rolls_back_and_records_why() {
    let repo = repo();
    let id = plan(&repo, "Fix parse on None", &fix_answer(), &[]);
    let before = repo.snapshot();
    let run = repo
        .papayu([
            "apply",
            "-v",
            "--check",
            "echo checking; grep -q 'is None' src/parser.py && exit 7",
        ])
        .err("ERR_CHECK_FAILED");
    assert!(run.stderr.contains("APPLY_ROLLBACK"), "{}", run.stderr);
    assert!(
        run.stderr.contains("checking"),
        "the output tail is shown: {}",
        run.stderr
    );
    assert_eq!(branches(&repo), "");
    let failed = note_lines(&repo, &id)
        .into_iter()
        .find(|e| e["event"] == "failed")
        .expect("failed event");
    assert_eq!(failed["exit_code"], 7);
    let failed_commit = failed["commit"]
        .as_str()
        .expect("the failed commit is named");
    repo.git(["gc", "--prune=now", "--quiet"]).ok();
    assert!(
        repo.git(["show", "--stat", failed_commit])
            .ok()
            .stdout
            .contains("tests/test_parser.py")
    );
    assert!(failed["output_tail"].as_str().unwrap().contains("checking"));
    assert_eq!(
        without(&repo.snapshot(), PAPAYU_LOGS),
        without(&before, PAPAYU_LOGS)
    );
    repo.fsck();

    // The check ran in a registered worktree under the git dir, which the next apply reuses.
    let worktrees = repo.git(["worktree", "list", "--porcelain"]).ok().stdout;
    assert!(
        worktrees.contains("papayu/worktrees/check-1"),
        "{worktrees}"
    );
    let out = apply_json(&repo, &[&id, "--check", "test -f tests/test_parser.py"]);
    assert_eq!(out["check"]["passed"], true);
    assert_eq!(
        out["check"]["fresh_worktree"], false,
        "the worktree is reused, not re-created"
    );
    assert!(out["branch"].as_str().is_some());
}

#[test]
fn check_comes_from_config_or_the_committed_project_file_never_the_plan() {
    let repo = TestRepo::with_files(&[
        ("app.txt", "v1\n"),
        (
            ".papa-yu/project.json",
            "{\"default_test_command\": \"grep -q v2 app.txt\"}\n",
        ),
    ]);
    // The plan tries to weaken its own check; the base's project file is what counts.
    let answer = serde_json::json!({"actions": [
        {"kind": "UPDATE_FILE", "path": "app.txt", "content": "v3\n"},
        {"kind": "UPDATE_FILE", "path": ".papa-yu/project.json", "content": "{\"default_test_command\": \"true\"}\n"}
    ]}).to_string();
    plan(&repo, "weaken", &answer, &["--protocol", "1"]);
    repo.papayu(["apply"]).err("ERR_CHECK_FAILED");

    let good = serde_json::json!({"actions": [{"kind": "UPDATE_FILE", "path": "app.txt", "content": "v2\n"}]}).to_string();
    plan(&repo, "good", &good, &["--protocol", "1"]);
    let out = apply_json(&repo, &[]);
    assert_eq!(out["check"]["command"], "grep -q v2 app.txt");

    // git config wins over the project file.
    repo.git(["config", "papayu.checkCommand", "exit 4"]).ok();
    let other = serde_json::json!({"actions": [{"kind": "CREATE_FILE", "path": "new.txt", "content": "x\n"}]}).to_string();
    plan(&repo, "other", &other, &["--protocol", "1"]);
    let run = repo.papayu(["apply"]).err("ERR_CHECK_FAILED");
    assert!(run.stderr.contains("exit 4"), "{}", run.stderr);
}

#[test]
fn merge_discard_undo_redo_round_trip() {
    let repo = repo();
    let id = plan(&repo, "Fix parse on None", &fix_answer(), &[]);
    let main0 = repo.rev("main");
    let out = apply_json(&repo, &["--no-check"]);
    let branch = out["branch"].as_str().unwrap().to_string();
    let tip = repo.rev(&branch);

    // discard → undo → redo → undo
    let clean = repo.snapshot();
    repo.papayu(["discard", &id[..7]]).ok();
    assert_eq!(branches(&repo), "");
    assert!(
        repo.papayu(["show", &id, "--json"])
            .ok()
            .stdout
            .contains("\"discarded\"")
    );
    repo.papayu(["undo"]).ok();
    assert_eq!(repo.rev(&branch), tip);
    // The log moved on and the notes gained an event cancelling the discard (undo never moves
    // the shared notes back); everything else is exactly as before the discard.
    assert_eq!(
        without(&repo.snapshot(), PAPAYU_LOGS),
        without(&clean, PAPAYU_LOGS)
    );
    assert!(
        repo.papayu(["show", &id, "--json"])
            .ok()
            .stdout
            .contains("\"applied\"")
    );
    repo.papayu(["redo"]).ok();
    assert_eq!(branches(&repo), "");
    repo.papayu(["undo"]).ok();
    assert_eq!(repo.rev(&branch), tip);

    // merge → undo → redo
    repo.papayu(["merge", &id[..7]]).ok();
    assert_eq!(repo.rev("main"), tip, "a fast-forward");
    assert!(
        repo.read("src/parser.py").contains("is None"),
        "the working tree follows the merge"
    );
    assert!(
        repo.papayu(["show", "--json"])
            .ok()
            .stdout
            .contains("\"merged\"")
    );
    repo.papayu(["undo"]).ok();
    assert_eq!(repo.rev("main"), main0);
    assert_eq!(
        repo.read("src/parser.py"),
        PARSER,
        "undo of a merge restores the working tree"
    );
    assert_eq!(repo.git(["status", "--porcelain"]).ok().stdout, "");
    repo.papayu(["redo"]).ok();
    assert_eq!(repo.rev("main"), tip);
    repo.fsck();

    // Once the user commits on top, undoing the merge would lose that: refused.
    repo.write("README.md", "# mine\n");
    let mine = repo.commit_all("mine");
    let before = repo.snapshot();
    repo.papayu(["undo"]).err("ERR_REF_MOVED");
    assert_eq!(repo.snapshot(), before);
    assert_eq!(repo.rev("main"), mine);
}

#[test]
fn discarded_branch_survives_gc_and_comes_back() {
    let repo = repo();
    plan(&repo, "Fix parse on None", &fix_answer(), &[]);
    let out = apply_json(&repo, &["--no-check"]);
    let branch = out["branch"].as_str().unwrap().to_string();
    let tip = repo.rev(&branch);
    repo.papayu(["discard"]).ok();
    repo.git(["reflog", "expire", "--expire=now", "--all"]).ok();
    repo.git(["gc", "--prune=now", "--quiet"]).ok();
    repo.git(["cat-file", "-e", &tip]).ok();
    repo.papayu(["undo"]).ok();
    assert_eq!(repo.rev(&branch), tip);
    repo.fsck();
}

#[test]
fn merge_refuses_dirty_tree_and_aborts_failed_merges() {
    let repo = repo();
    let id = plan(&repo, "Fix parse on None", &fix_answer(), &[]);
    apply_json(&repo, &["--no-check"]);
    repo.write("src/parser.py", "dirty\n");
    let before = repo.snapshot();
    repo.papayu(["merge", &id]).err("ERR_DIRTY_WORKTREE");
    assert_eq!(repo.snapshot(), before);
    repo.git(["checkout", "--", "src/parser.py"]).ok();

    // Diverge main with a conflicting change: --ff-only and a conflicting merge both refuse.
    repo.write("src/parser.py", "def parse(value):\n    return value\n");
    repo.commit_all("conflicting");
    let before = repo.logical_snapshot();
    let diverged = repo
        .papayu(["merge", &id, "--ff-only"])
        .err("ERR_MERGE_FAILED");
    assert_eq!(repo.logical_snapshot(), before);
    let branch = repo.proposal_branch();
    assert!(
        diverged.stderr.contains(&format!(
            "main has commits that {branch} does not, so --ff-only cannot fast-forward; nothing changed"
        )),
        "{}",
        diverged.stderr
    );
    assert!(
        diverged
            .stderr
            .contains(&format!("git papayu merge {}", &id[..10])),
        "the merge that works is named: {}",
        diverged.stderr
    );
    let conflict = repo.papayu(["merge", &id]).err("ERR_MERGE_FAILED");
    assert_eq!(
        repo.logical_snapshot(),
        before,
        "a conflicted merge is aborted"
    );
    assert!(!repo.path().join(".git/MERGE_HEAD").exists());
    let first = conflict.stderr.lines().next().unwrap_or_default();
    assert!(
        first.starts_with(&format!(
            "ERR_MERGE_FAILED: {branch} conflicts with main in src/parser.py: main changed since plan"
        )) && first.contains("the merge was aborted and nothing changed"),
        "which files, and that nothing changed: {}",
        conflict.stderr
    );
    assert!(
        first.contains("git papayu plan 'Fix parse on None'")
            && first.contains(&format!("git merge {branch}")),
        "the next commands: {}",
        conflict.stderr
    );
}

#[test]
fn merge_keeps_unrelated_local_changes_as_git_merge_does() {
    for style in [&[][..], &["--ff-only"], &["--squash"]] {
        let repo = repo();
        let id = plan(&repo, "Fix parse on None", &fix_answer(), &[]);
        let applied = apply_json(&repo, &["--no-check"]);
        repo.write("README.md", "# demo, edited but not committed\n");
        std::fs::write(repo.path().join("notes.txt"), "untracked\n").unwrap();
        let mut args = vec!["merge", &id[..]];
        args.extend_from_slice(style);
        repo.papayu(&args).ok();
        assert!(repo.read("src/parser.py").contains("is None"), "{style:?}");
        assert_eq!(repo.read("README.md"), "# demo, edited but not committed\n");
        assert_eq!(
            repo.git(["status", "--porcelain"]).ok().stdout,
            " M README.md\n?? notes.txt\n",
            "{style:?}"
        );
        if style.is_empty() {
            assert_eq!(repo.rev("HEAD"), applied["commit"].as_str().unwrap());
        }
        // The proposal commit holds only the plan's files, never the local edit.
        let files = repo
            .git(["show", "--name-only", "--format=", "HEAD"])
            .ok()
            .stdout;
        assert!(!files.contains("README.md"), "{style:?}: {files}");
    }

    // Staged changes are refused, as git merge refuses them: they would go into the merge.
    let repo = repo();
    let id = plan(&repo, "Fix parse on None", &fix_answer(), &[]);
    apply_json(&repo, &["--no-check"]);
    repo.write("README.md", "# staged\n");
    repo.git(["add", "README.md"]).ok();
    let before = repo.snapshot();
    repo.papayu(["merge", &id, "--squash"])
        .err("ERR_DIRTY_WORKTREE");
    assert_eq!(repo.snapshot(), before);
}

#[test]
fn squash_merge_makes_one_commit_with_the_plan_message() {
    let repo = repo();
    let id = plan(&repo, "Fix parse on None", &fix_answer(), &[]);
    apply_json(&repo, &["--no-check"]);
    repo.write("README.md", "# demo\nunrelated\n");
    let main1 = repo.commit_all("unrelated");
    repo.papayu(["merge", &id, "--squash"]).ok();
    assert_eq!(repo.rev("HEAD^"), main1);
    assert_eq!(
        repo.git(["rev-list", "--count", "--parents", "-1", "HEAD"])
            .ok()
            .stdout
            .split_whitespace()
            .count(),
        1
    );
    let body = repo.git(["log", "-1", "--format=%B"]).ok().stdout;
    assert!(body.contains(&format!("Papayu-Plan: {id}")), "{body}");
    assert!(repo.read("src/parser.py").contains("is None"));
    repo.papayu(["undo"]).ok();
    assert_eq!(repo.rev("HEAD"), main1);
    assert_eq!(repo.read("src/parser.py"), PARSER);
}

#[test]
fn symlinks_and_file_directory_flips_are_refused() {
    let repo = repo();
    std::os::unix::fs::symlink("src", repo.path().join("link")).unwrap();
    repo.commit_all("link");
    let through = r#"{"actions":[{"kind":"CREATE_FILE","path":"link/evil.py","content":"x\n"}]}"#;
    repo.papayu_stdin(
        ["plan", "through a link", "--response", "-"],
        through.as_bytes(),
    )
    .err("ERR_PATH_THROUGH_SYMLINK");
    let onto_link = r#"{"actions":[{"kind":"UPDATE_FILE","path":"link","content":"x\n"}]}"#;
    repo.papayu_stdin(
        ["plan", "write a link", "--response", "-", "--protocol", "1"],
        onto_link.as_bytes(),
    )
    .err("ERR_PATH_THROUGH_SYMLINK");
    let file_to_dir =
        r#"{"actions":[{"kind":"CREATE_FILE","path":"README.md/inner.txt","content":"x\n"}]}"#;
    repo.papayu_stdin(["plan", "flip", "--response", "-"], file_to_dir.as_bytes())
        .err("ERR_FILE_DIR_CONFLICT");
    let dir_to_file = r#"{"actions":[{"kind":"CREATE_FILE","path":"src","content":"x\n"}]}"#;
    repo.papayu_stdin(["plan", "flip", "--response", "-"], dir_to_file.as_bytes())
        .err("ERR_FILE_DIR_CONFLICT");
    let exists = r#"{"actions":[{"kind":"CREATE_FILE","path":"README.md","content":"x\n"}]}"#;
    repo.papayu_stdin(["plan", "exists", "--response", "-"], exists.as_bytes())
        .err("ERR_TARGET_EXISTS");
    // Deleting the link itself is fine: it removes the link, not its target.
    let unlink = r#"{"actions":[{"kind":"DELETE_FILE","path":"link"}]}"#;
    plan(&repo, "unlink", unlink, &[]);
    let out = apply_json(&repo, &["--no-check"]);
    let branch = out["branch"].as_str().unwrap();
    assert_eq!(
        repo.git(["ls-tree", "--name-only", branch]).ok().stdout,
        "README.md\nsrc\n"
    );
}

#[test]
fn v2_patch_and_replace_range_apply_and_pin_the_base() {
    let repo = repo();
    let sha = sha256(PARSER.as_bytes());
    let answer = serde_json::json!({
        "summary": "v2 edits",
        "actions": [
            {"kind": "PATCH_FILE", "path": "src/parser.py", "base_sha256": sha,
             "patch": "--- a/src/parser.py\n+++ b/src/parser.py\n@@ -1,2 +1,4 @@\n def parse(value):\n+    if value is None:\n+        return ''\n     return value.strip()\n"},
            {"kind": "REPLACE_RANGE", "path": "README.md", "start_line": 1, "end_line": 1,
             "base_sha256": sha256(b"# demo\n"), "content": "# Demo project\n"},
            {"kind": "CREATE_FILE", "path": "NEW.md", "content": "new\n"}
        ]
    }).to_string();
    let id = plan(&repo, "v2", &answer, &[]);
    let record = &note_lines(&repo, &repo.rev("HEAD"))[0];
    assert_eq!(record["schema_version"], 2);
    let out = apply_json(&repo, &[&id, "--no-check"]);
    let branch = out["branch"].as_str().unwrap();
    assert!(file_at(&repo, branch, "src/parser.py").contains("if value is None"));
    assert_eq!(file_at(&repo, branch, "README.md"), "# Demo project\n");

    let wrong = answer.replace(&sha, &"0".repeat(64));
    repo.papayu_stdin(["plan", "wrong base", "--response", "-"], wrong.as_bytes())
        .err("ERR_BASE_MISMATCH");
    let update_existing =
        r#"{"actions":[{"kind":"UPDATE_FILE","path":"README.md","content":"x\n"}]}"#;
    repo.papayu_stdin(
        ["plan", "v2 update", "--response", "-", "--protocol", "2"],
        update_existing.as_bytes(),
    )
    .err("ERR_V2_UPDATE_EXISTING_FORBIDDEN");
}

fn sha256(bytes: &[u8]) -> String {
    git_papayu::protocol::sha256_hex(bytes)
}

#[test]
fn delete_dir_and_create_dir_and_executable_bits() {
    let repo = TestRepo::with_files(&[
        ("old/a.txt", "a\n"),
        ("old/sub/b.txt", "b\n"),
        ("run.sh", "echo 1\n"),
    ]);
    repo.git(["update-index", "--chmod=+x", "run.sh"]).ok();
    repo.git(["commit", "-qm", "exec"]).ok();
    let answer = r#"{"actions":[
        {"kind":"DELETE_DIR","path":"old"},
        {"kind":"CREATE_DIR","path":"empty"},
        {"kind":"UPDATE_FILE","path":"run.sh","content":"echo 2\n"}]}"#;
    plan(&repo, "dirs", answer, &["--protocol", "1"]);
    let out = apply_json(&repo, &["--no-check"]);
    let branch = out["branch"].as_str().unwrap();
    let tree = repo.git(["ls-tree", "-r", branch]).ok().stdout;
    assert!(!tree.contains("old/"), "{tree}");
    assert!(tree.contains("empty/.gitkeep"), "{tree}");
    assert!(
        tree.contains("100755 blob") && tree.contains("run.sh"),
        "mode is kept: {tree}"
    );
}

#[test]
fn crlf_files_keep_their_line_endings() {
    let repo = TestRepo::with_files(&[("win.txt", "a\r\nb\r\n")]);
    let answer = r#"{"actions":[{"kind":"UPDATE_FILE","path":"win.txt","content":"a\nc\n"}]}"#;
    plan(&repo, "crlf", answer, &["--protocol", "1"]);
    let out = apply_json(&repo, &["--no-check"]);
    let branch = out["branch"].as_str().unwrap();
    assert_eq!(
        repo.git(["cat-file", "blob", &format!("{branch}:win.txt")])
            .ok()
            .stdout,
        "a\r\nc\r\n"
    );
}

#[test]
fn no_repository_and_no_commits_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    common::run_in(dir.path(), "git", ["papayu", "list"], None).err("ERR_NOT_A_REPOSITORY");
    let repo = TestRepo::empty();
    repo.papayu_stdin(["plan", "x", "--response", "-"], fix_answer().as_bytes())
        .err("ERR_BAD_REVISION");
    repo.papayu(["apply"]).err("ERR_PLAN_NOT_FOUND");
    repo.papayu(["undo"]).err("ERR_NOTHING_TO_UNDO");
    repo.papayu(["redo"]).err("ERR_NOTHING_TO_REDO");
    repo.papayu(["bogus-command"]).code(2);
}

#[test]
fn concurrent_plans_both_land() {
    let repo = repo();
    let answer = fix_answer();
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let path = repo.path().to_path_buf();
            let answer = answer.clone();
            std::thread::spawn(move || {
                common::run_in(
                    &path,
                    "git",
                    ["papayu", "plan", &format!("idea {i}"), "--response", "-"],
                    Some(answer.as_bytes()),
                )
                .ok()
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(note_lines(&repo, &repo.rev("HEAD")).len(), 4);
    let list: Value = serde_json::from_str(&repo.papayu(["list", "--json"]).ok().stdout).unwrap();
    assert_eq!(list["plans"].as_array().unwrap().len(), 4);
    repo.fsck();
}

#[test]
fn killed_apply_leaves_refs_at_old_or_new() {
    let repo = repo();
    let id = plan(&repo, "Fix parse on None", &fix_answer(), &[]);
    let before = repo.snapshot();
    // Killed during its check: nothing was committed yet.
    // The binary itself is killed (not the `git` wrapper, which would leave it running).
    let papayu = env!("CARGO_BIN_EXE_git-papayu");
    let mut child = common::hermetic(papayu, repo.path())
        .args(["apply", &id, "--check", "sleep 30"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Killed only once its check is running, however slow the machine.
    assert!(
        common::wait_for_descendant(child.id(), "sleep"),
        "the check never started"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(repo.snapshot(), before);
    repo.fsck();
    // Killed at arbitrary moments of a quick apply: every ref is at its old or new value.
    for delay in [0u64, 5, 10, 20, 40] {
        let mut child = common::hermetic(papayu, repo.path())
            .args(["apply", &id, "--no-check"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay));
        let _ = child.kill();
        child.wait().unwrap();
        repo.fsck();
        // The next command completes a transaction the kill interrupted: afterwards the branch
        // exists exactly when the plan is recorded as applied.
        let shown = repo.papayu(["show", &id, "--json"]).ok().stdout;
        let applied = !branches(&repo).is_empty();
        assert_eq!(
            applied,
            shown.contains("\"applied\""),
            "killed after {delay} ms: {shown}"
        );
        if applied {
            repo.papayu(["discard", &id]).ok();
        }
    }
    // A following apply works, with a check in the slot the killed process held.
    let out = apply_json(&repo, &[&id, "--check", "test -f tests/test_parser.py"]);
    assert!(out["branch"].as_str().is_some(), "a following apply works");
    assert_eq!(out["check"]["passed"], true);
}

#[test]
fn init_configures_notes_and_installs_hooks_on_request() {
    let repo = repo();
    repo.git([
        "remote",
        "add",
        "origin",
        "https://example.invalid/repo.git",
    ])
    .ok();
    let out = repo
        .papayu(["init", "--share", "origin", "--hooks"])
        .ok()
        .stdout;
    assert!(out.contains("git papayu sync origin"), "{out}");
    assert_eq!(
        repo.git(["config", "--get-all", "notes.rewriteRef"])
            .ok()
            .stdout,
        "refs/notes/papayu\n"
    );
    assert_eq!(
        repo.git(["config", "notes.papayu.mergeStrategy"])
            .ok()
            .stdout,
        "cat_sort_uniq\n"
    );
    let fetch = repo
        .git(["config", "--get-all", "remote.origin.fetch"])
        .ok()
        .stdout;
    assert!(
        fetch.contains("+refs/notes/papayu:refs/notes/remotes/origin/papayu"),
        "{fetch}"
    );
    assert!(repo.path().join(".git/hooks/pre-push").exists());
    // Idempotent: a second run changes nothing and adds no duplicates.
    repo.papayu(["init", "--share", "origin", "--hooks"]).ok();
    assert_eq!(
        repo.git(["config", "--get-all", "notes.rewriteRef"])
            .ok()
            .stdout,
        "refs/notes/papayu\n"
    );
    assert_eq!(
        repo.git(["config", "--get-all", "remote.origin.fetch"])
            .ok()
            .stdout
            .lines()
            .count(),
        2
    );
    repo.papayu(["init", "--share", "nowhere"])
        .err("ERR_NO_SUCH_REMOTE");

    // With notes.rewriteRef set, an amended base keeps its plan.
    let id = plan(&repo, "Fix parse on None", &fix_answer(), &[]);
    repo.git(["commit", "--amend", "-q", "-m", "amended"]).ok();
    let list: Value = serde_json::from_str(&repo.papayu(["list", "--json"]).ok().stdout).unwrap();
    assert_eq!(list["plans"].as_array().unwrap().len(), 1);
    assert!(
        repo.git(["notes", "--ref=papayu", "show", "HEAD"])
            .ok()
            .stdout
            .contains(&id)
    );
}

#[test]
fn notes_from_two_clones_merge_line_by_line() {
    let repo = repo();
    plan(&repo, "mine", &fix_answer(), &[]);
    let clone = tempfile::tempdir().unwrap();
    common::run_in(
        clone.path(),
        "git",
        ["clone", "-q", repo.path().to_str().unwrap(), "."],
        None,
    )
    .ok();
    let theirs = TestRepo { dir: clone };
    common::fetch_notes(&theirs, "origin");
    plan(&theirs, "theirs", &fix_answer(), &[]);
    plan(&repo, "mine again", &fix_answer(), &[]);
    repo.papayu(["init"]).ok();
    repo.git([
        "fetch",
        "-q",
        theirs.path().to_str().unwrap(),
        "refs/notes/papayu:refs/notes/remotes/them/papayu",
    ])
    .ok();
    repo.git([
        "notes",
        "--ref=papayu",
        "merge",
        "-q",
        "refs/notes/remotes/them/papayu",
    ])
    .ok();
    let list: Value = serde_json::from_str(&repo.papayu(["list", "--json"]).ok().stdout).unwrap();
    let goals: Vec<&str> = list["plans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["goal"].as_str().unwrap())
        .collect();
    assert_eq!(goals.len(), 3, "{goals:?}");
    for goal in ["mine", "theirs", "mine again"] {
        assert!(goals.contains(&goal), "{goals:?}");
    }
}

/// Rewrites the plan record in the notes of `base` and of the plan `id` itself (where a sealed
/// record is stored too) with `edit`, as a teammate or a hand edit could, through `git notes`.
fn tamper(repo: &TestRepo, base: &str, id: &str, edit: impl Fn(&mut Value)) {
    tamper_note(repo, base, &edit);
    tamper_note(repo, id, &edit);
}

fn tamper_note(repo: &TestRepo, base: &str, edit: &impl Fn(&mut Value)) {
    let mut lines = note_lines(repo, base);
    for line in lines.iter_mut().filter(|l| l.get("goal").is_some()) {
        edit(line);
    }
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    let file = repo.path().join(".git/tampered-note");
    std::fs::write(&file, text.join("\n") + "\n").unwrap();
    repo.git([
        "notes",
        "--ref=papayu",
        "add",
        "-f",
        "-F",
        file.to_str().unwrap(),
        base,
    ])
    .ok();
}

#[test]
fn stored_plans_are_checked_again_at_apply() {
    let repo = repo();
    let base = repo.rev("HEAD");
    let id = plan(&repo, "Fix parse on None", &fix_answer(), &[]);

    // A record edited to write into .git is refused, whatever the note says.
    tamper(&repo, &base, &id, |r| {
        r["actions"][1]["path"] = ".git/hooks/pre-commit".into()
    });
    let before = repo.snapshot();
    repo.papayu(["apply", &id, "--no-check"])
        .err("ERR_PATH_GIT_INTERNAL");
    assert_eq!(repo.snapshot(), before);

    // A record that never read the file it replaces is refused.
    tamper(&repo, &base, &id, |r| {
        r["actions"][1]["path"] = "tests/test_parser.py".into();
        r["context"] = serde_json::json!([]);
    });
    repo.papayu(["apply", &id, "--no-check"])
        .err("ERR_UPDATE_WITHOUT_BASE");

    // A preview that does not match the plan is not trusted: the tree is built anew.
    let readme_only = repo.rev("HEAD");
    tamper(&repo, &base, &id, |r| {
        r["context"] = serde_json::json!([{
            "path": "src/parser.py",
            "blob_oid": repo.rev("HEAD:src/parser.py"),
            "sha256": sha256(PARSER.as_bytes()),
        }]);
        r["preview"] = readme_only.clone().into();
    });
    let out = apply_json(&repo, &[&id, "--no-check"]);
    let branch = out["branch"].as_str().unwrap();
    assert!(file_at(&repo, branch, "src/parser.py").contains("is None"));
    assert_eq!(
        file_at(&repo, branch, "tests/test_parser.py"),
        "from src.parser import parse\n"
    );
    repo.fsck();
}

#[test]
fn apply_at_the_base_reuses_the_previewed_tree() {
    let repo = repo();
    let base = repo.rev("HEAD");
    let id = plan(&repo, "Fix parse on None", &fix_answer(), &[]);
    let preview = note_lines(&repo, &base)[0]["preview"]
        .as_str()
        .expect("preview")
        .to_string();
    assert_eq!(repo.rev(&format!("{preview}^")), base);
    let out = apply_json(&repo, &[&id, "--no-check"]);
    let branch = out["branch"].as_str().unwrap();
    assert_eq!(
        repo.rev(&format!("{branch}^{{tree}}")),
        repo.rev(&format!("{preview}^{{tree}}"))
    );
    // The preview stays reachable from the operation log, so gc keeps it.
    repo.git(["gc", "--prune=now", "--quiet"]).ok();
    repo.git(["cat-file", "-e", &preview]).ok();
    repo.fsck();
}

#[test]
fn a_patch_that_does_not_fit_reports_where_and_why() {
    let repo = repo();
    let answer = serde_json::json!({"actions": [{
        "kind": "PATCH_FILE", "path": "src/parser.py", "base_sha256": sha256(PARSER.as_bytes()),
        "patch": "@@ -1,2 +1,2 @@\n def parse(value):\n-    return value.upper()\n+    return value.lower()\n"
    }]})
    .to_string();
    let run = repo
        .papayu_stdin(["plan", "bad patch", "--response", "-"], answer.as_bytes())
        .err("ERR_PATCH_APPLY_FAILED");
    assert!(
        run.stderr.contains("action 1 (PATCH_FILE src/parser.py)"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("return value.strip()"),
        "the report shows what the file holds: {}",
        run.stderr
    );
    assert!(!has_notes(&repo), "nothing was stored");
}

#[test]
fn undo_and_redo_of_apply_and_plan() {
    let repo = repo();
    let base = repo.rev("HEAD");
    let id = plan(&repo, "Fix parse on None", &fix_answer(), &[]);
    let after_plan = repo.snapshot();
    let out = apply_json(&repo, &[&id, "--no-check"]);
    let branch = out["branch"].as_str().unwrap().to_string();
    let tip = repo.rev(&branch);

    let undo = repo.papayu(["undo"]).ok();
    assert!(undo.stdout.contains("Undid: apply"), "{}", undo.stdout);
    assert!(
        undo.stdout.ends_with(". Redo with git papayu redo.\n"),
        "undo says how to take it back: {}",
        undo.stdout
    );
    assert_eq!(branches(&repo), "");
    assert!(
        repo.papayu(["show", &id, "--json"])
            .ok()
            .stdout
            .contains("\"proposed\"")
    );
    assert_eq!(
        without(&repo.snapshot(), PAPAYU_LOGS),
        without(&after_plan, PAPAYU_LOGS),
        "undo of apply restores every branch"
    );

    let redo = repo.papayu(["redo"]).ok();
    assert!(
        redo.stdout.ends_with(". Undo with git papayu undo.\n"),
        "{}",
        redo.stdout
    );
    assert_eq!(repo.rev(&branch), tip);
    assert!(
        repo.papayu(["show", &id, "--json"])
            .ok()
            .stdout
            .contains("\"applied\"")
    );

    // Undo twice more: the apply, then the plan itself (withdrawn by an appended event; the
    // note keeps every line it had).
    let lines = |repo: &TestRepo| note_lines(repo, &base).len() + note_lines(repo, &id).len();
    let lines_before = lines(&repo);
    repo.papayu(["undo"]).ok();
    repo.papayu(["undo"]).ok();
    // One cancel of the apply's event on the plan's note, one of the record on each note that
    // holds it (its base's and its own).
    assert_eq!(lines(&repo), lines_before + 3);
    let list: Value = serde_json::from_str(&repo.papayu(["list", "--json"]).ok().stdout).unwrap();
    assert_eq!(list["plans"], serde_json::json!([]));
    repo.papayu(["show", &id]).err("ERR_PLAN_NOT_FOUND");
    repo.papayu(["undo"]).err("ERR_NOTHING_TO_UNDO");
    repo.papayu(["redo"]).ok();
    assert!(repo.papayu(["list"]).ok().stdout.contains(&id[..10]));
    assert!(
        repo.papayu(["show", &id, "--json"])
            .ok()
            .stdout
            .contains("\"proposed\"")
    );
    repo.fsck();
}

#[test]
fn sample_pre_push_hook_keeps_proposals_private() {
    let repo = repo();
    let remote = tempfile::tempdir().unwrap();
    common::run_in(remote.path(), "git", ["init", "-q", "--bare"], None).ok();
    repo.git(["remote", "add", "origin", remote.path().to_str().unwrap()])
        .ok();
    repo.papayu(["init", "--hooks"]).ok();
    plan(&repo, "Fix parse on None", &fix_answer(), &[]);
    let out = apply_json(&repo, &["--no-check"]);
    let branch = out["branch"].as_str().unwrap();
    let refused = repo.git(["push", "-q", "origin", branch]);
    assert_ne!(refused.status, Some(0), "{refused:?}");
    assert!(
        refused.stderr.contains("refusing to push proposal branch"),
        "{}",
        refused.stderr
    );
    repo.git(["push", "-q", "origin", "main"]).ok();
    repo.git(["push", "-q", "origin", "refs/notes/papayu"]).ok();
}

#[test]
fn apply_verbose_names_the_strategy_of_each_hunk() {
    let repo = repo();
    // The hunk's line numbers are wrong and the whole hunk is indented four columns too deep:
    // the engine still places it, re-indents the added line, and says which strategy did it.
    let answer = serde_json::json!({"actions": [{
        "kind": "PATCH_FILE", "path": "src/parser.py", "base_sha256": sha256(PARSER.as_bytes()),
        "patch": "@@ -7,2 +7,3 @@\n     def parse(value):\n+        value = value or ''\n         return value.strip()\n"
    }]})
    .to_string();
    let id = plan(&repo, "verbose", &answer, &[]);
    let run = repo.papayu(["apply", &id, "--no-check", "-v"]).ok();
    assert!(
        run.stderr
            .contains("src/parser.py: hunk 1 placed at line 1 by indent (offset -6)"),
        "{}",
        run.stderr
    );
    let branch = branches(&repo).trim().to_string();
    let applied = repo
        .git(["show", &format!("{branch}:src/parser.py")])
        .ok()
        .stdout;
    assert_eq!(
        applied,
        "def parse(value):\n    value = value or ''\n    return value.strip()\n"
    );
    let trace_dir = repo.path().join(".git/papayu/traces");
    let traces: Vec<Value> = std::fs::read_dir(&trace_dir)
        .unwrap()
        .map(|e| {
            serde_json::from_str(&std::fs::read_to_string(e.unwrap().path()).unwrap()).unwrap()
        })
        .collect();
    let of_kind = |kind: &str| traces.iter().find(|t| t["kind"] == kind).unwrap();
    assert_eq!(
        of_kind("apply")["patch_placements"]["src/parser.py"][0]["line"],
        1
    );
    assert_eq!(of_kind("plan")["schema_version"], 2);
}

#[test]
fn a_stale_ref_lock_is_reported_and_nothing_changes() {
    let repo = repo();
    std::fs::create_dir_all(repo.path().join(".git/refs/papayu")).unwrap();
    let lock = repo.path().join(".git/refs/papayu/oplog.lock");
    std::fs::write(&lock, "").unwrap();
    let before = repo.snapshot();
    let run = repo
        .papayu_stdin(
            ["plan", "locked", "--response", "-"],
            fix_answer().as_bytes(),
        )
        .err("ERR_REF_LOCKED");
    assert!(
        run.stderr.contains("oplog.lock"),
        "the message names the lock file: {}",
        run.stderr
    );
    assert_eq!(repo.snapshot(), before);
    std::fs::remove_file(&lock).unwrap();
    plan(&repo, "unlocked", &fix_answer(), &[]);
    repo.fsck();
}

#[test]
fn an_interrupted_ref_transaction_is_completed_by_the_next_command() {
    let repo = repo();
    plan(&repo, "Fix parse on None", &fix_answer(), &[]);
    let head = repo.rev("HEAD");
    let notes = repo.rev("refs/notes/papayu");
    // What a papayu process killed in the middle of writing refs leaves: its announced intent,
    // one ref already moved (the notes, here to HEAD's commit for the sake of the test), one
    // still locked and not yet written.
    let intent = serde_json::json!({
        "message": "papayu apply: interrupted",
        "changes": [
            {"name": "refs/notes/papayu", "old": notes, "new": head},
            {"name": "refs/heads/papayu/interrupted", "old": null, "new": head},
        ]
    });
    std::fs::write(
        repo.path().join(".git/papayu/refs.intent"),
        intent.to_string(),
    )
    .unwrap();
    std::fs::create_dir_all(repo.path().join(".git/refs/heads/papayu")).unwrap();
    std::fs::write(
        repo.path().join(".git/refs/heads/papayu/interrupted.lock"),
        "",
    )
    .unwrap();
    std::fs::write(
        repo.path().join(".git/refs/notes/papayu"),
        format!("{head}\n"),
    )
    .unwrap();

    repo.papayu(["list"]).ok();
    assert_eq!(
        repo.rev("refs/heads/papayu/interrupted"),
        head,
        "the transaction was completed"
    );
    assert!(
        !repo
            .path()
            .join(".git/refs/heads/papayu/interrupted.lock")
            .exists()
    );
    assert_eq!(
        std::fs::read(repo.path().join(".git/papayu/refs.intent")).unwrap(),
        b"",
        "the intent is cleared"
    );
}

#[test]
fn discard_and_merge_without_an_id_take_only_an_open_proposal_on_head() {
    let repo = repo();
    let id = plan(&repo, "Fix parse on None", &fix_answer(), &[]);
    apply_json(&repo, &["--no-check"]);
    repo.papayu(["merge"]).ok();

    // Right after the merge, HEAD carries the merged plan out; it is not open.
    let before = repo.snapshot();
    let out = repo.papayu(["discard"]).err("ERR_PLAN_NOT_FOUND");
    assert!(
        out.stderr.contains("no open proposal on HEAD"),
        "{}",
        out.stderr
    );
    repo.papayu(["merge"]).err("ERR_PLAN_NOT_FOUND");
    assert_eq!(repo.snapshot(), before, "a refusal changes nothing");
    let shown: Value =
        serde_json::from_str(&repo.papayu(["show", &id, "--json"]).ok().stdout).unwrap();
    assert_eq!(shown["status"], "merged", "{shown}");

    // An open proposal elsewhere is named, not taken.
    let notes = serde_json::json!({
        "summary": "Add notes",
        "actions": [{"kind": "CREATE_FILE", "path": "NOTES.md", "content": "notes\n"}]
    })
    .to_string();
    let other = plan(&repo, "Add notes", &notes, &[]);
    let branch = apply_json(&repo, &["--no-check"])["branch"]
        .as_str()
        .unwrap()
        .to_string();
    repo.write("README.md", "# moved on\n");
    repo.commit_all("moved on");
    let out = repo.papayu(["discard"]).err("ERR_PLAN_NOT_FOUND");
    assert!(out.stderr.contains(&other[..7]), "{}", out.stderr);
    assert!(out.stderr.contains(&branch), "{}", out.stderr);
    repo.papayu(["discard", &other[..7]]).ok();
}

#[test]
fn usage_errors_are_one_papayu_line_with_where_to_read_more() {
    let repo = repo();
    for (args, command) in [
        (&["plan"][..], "plan"),
        (&["list", "--bogus"][..], "list"),
        (&["merge", "a", "b"][..], "merge"),
    ] {
        let out = repo.papayu(args).code(2);
        let lines: Vec<&str> = out.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{}", out.stderr);
        assert!(lines[0].starts_with("ERR_USAGE: "), "{}", out.stderr);
        assert!(
            lines[0].ends_with(&format!("; see git papayu help {command}")),
            "{}",
            out.stderr
        );
    }
}

#[test]
fn a_passed_check_is_said_the_same_way() {
    let repo = repo();
    plan(&repo, "Fix parse on None", &fix_answer(), &[]);
    let out = repo.papayu(["apply", "--check", "true"]).ok();
    assert!(
        out.stderr.contains("Check passed: true ("),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("check passed"), "{}", out.stderr);
}

#[test]
fn apply_and_ok_after_a_merge_say_the_plan_is_merged_and_change_nothing() {
    let repo = repo();
    let id = plan(&repo, "Fix parse on None", &fix_answer(), &[]);
    apply_json(&repo, &["--no-check"]);
    repo.papayu(["merge"]).ok();
    let main = repo.rev("main");

    let before = repo.snapshot();
    for args in [&["apply", "--no-check"][..], &["ok"], &["apply", &id[..7]]] {
        let out = repo.papayu(args).err("ERR_PLAN_STATE");
        assert!(
            out.stderr.contains(&format!(
                "nothing to apply: plan {} is merged (into main as {})",
                &id[..10],
                &main[..10]
            )),
            "{}",
            out.stderr
        );
        assert!(out.stderr.contains("git papayu plan"), "{}", out.stderr);
        assert_eq!(repo.snapshot(), before, "{args:?} changes nothing");
    }
    assert_eq!(branches(&repo), "", "no branch duplicates main");
    let shown: Value =
        serde_json::from_str(&repo.papayu(["show", &id, "--json"]).ok().stdout).unwrap();
    assert_eq!(shown["status"], "merged", "{shown}");

    // After a merge commit, HEAD carries the plan out through its second parent: the same.
    let other = plan(
        &repo,
        "Add notes",
        &common::create_answer("NOTES.md", "notes\n"),
        &[],
    );
    apply_json(&repo, &["--no-check"]);
    repo.write("README.md", "# moved on\n");
    repo.commit_all("moved on");
    repo.papayu(["merge", &other[..7]]).ok();
    let out = repo.papayu(["apply"]).err("ERR_PLAN_STATE");
    assert!(
        out.stderr.contains(&format!(
            "nothing to apply: plan {} is merged",
            &other[..10]
        )),
        "{}",
        out.stderr
    );
}

#[test]
fn the_diffstat_is_the_one_git_prints() {
    let repo = repo();
    repo.write(
        "big.txt",
        &(1..=100).map(|i| format!("{i}\n")).collect::<String>(),
    );
    repo.commit_all("big");
    let big: String = (50..400).map(|i| format!("{i}\n")).collect();
    let answer = serde_json::json!({
        "summary": "Several kinds of change",
        "actions": [
            {"kind": "UPDATE_FILE", "path": "README.md", "content": "# demo\n\nMore.\n"},
            {"kind": "UPDATE_FILE", "path": "big.txt", "content": big},
            {"kind": "CREATE_FILE", "path": "empty.txt", "content": ""},
            {"kind": "DELETE_FILE", "path": "src/parser.py"},
        ]
    })
    .to_string();
    plan(&repo, "Several kinds of change", &answer, &[]);
    let out = repo.papayu(["apply", "--no-check"]).ok();
    let branch = branches(&repo)
        .trim()
        .trim_start_matches("refs/heads/")
        .to_string();
    let git = repo.git(["diff", "--stat=80", "main", &branch]).ok().stdout;
    assert!(
        out.stdout.contains(&git),
        "papayu's diffstat:\n{}\ngit's:\n{git}",
        out.stdout
    );
    assert!(
        git.ends_with(" 4 files changed, 301 insertions(+), 51 deletions(-)\n"),
        "{git}"
    );
}

/// Many plans on one commit (issue 31): each plan is read and changed through its own note, so
/// apply, show, discard and undo of one of them stay correct — and every record stays on the
/// base's note, where `git notes` shows it and a plain fetch of the notes ref carries it.
#[test]
fn many_plans_on_one_commit_each_read_and_changed_through_its_own_note() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let base = repo.rev("HEAD");
    let ids: Vec<String> = (0..24)
        .map(|i| {
            let answer = common::create_answer(&format!("f{i}.txt"), &format!("{i}\n"));
            repo.plan_id(&format!("goal {i}"), &answer)
        })
        .collect();
    let status = |repo: &TestRepo, id: &str| -> String {
        let run = repo.papayu(["--json", "show", id]).ok();
        let shown: Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(shown["plan"]["id"], id, "{shown}");
        shown["status"].as_str().unwrap().to_string()
    };

    let out = apply_json(&repo, &[&ids[7], "--no-check"]);
    let branch = out["branch"].as_str().unwrap().to_string();
    assert_eq!(file_at(&repo, &branch, "f7.txt"), "7\n");
    assert_eq!(status(&repo, &ids[7]), "applied");
    repo.papayu(["discard", &ids[12]]).ok();
    assert_eq!(status(&repo, &ids[12]), "discarded");
    repo.papayu(["undo"]).ok();
    assert_eq!(status(&repo, &ids[12]), "proposed");
    repo.papayu(["undo"]).ok();
    assert_eq!(status(&repo, &ids[7]), "proposed");
    assert!(
        repo.git(["rev-parse", "-q", "--verify", &branch]).status != Some(0),
        "undo removed the branch"
    );
    for id in [&ids[0], &ids[23]] {
        assert_eq!(status(&repo, id), "proposed");
    }

    // The base's note holds every record and nothing else; each plan's own note holds its
    // record again and every event about it.
    let on_base = note_lines(&repo, &base);
    assert_eq!(on_base.len(), ids.len());
    for id in &ids {
        assert!(on_base.iter().any(|l| l["id"] == id.as_str()), "{id}");
    }
    let own = note_lines(&repo, &ids[7]);
    assert_eq!(own[0]["id"], ids[7].as_str());
    let events: Vec<&str> = own[1..]
        .iter()
        .map(|l| l["event"].as_str().unwrap())
        .collect();
    assert_eq!(events, ["applied", "undone"]);

    // A clone that takes the notes by a plain fetch reads every plan, and the same statuses.
    let clone = common::clone_of(repo.path());
    common::fetch_notes(&clone, repo.path().to_str().unwrap());
    let listed: Value =
        serde_json::from_str(&clone.papayu(["--json", "list", "--all"]).ok().stdout).unwrap();
    assert_eq!(listed["plans"].as_array().unwrap().len(), ids.len());
    assert_eq!(status(&clone, &ids[20]), "proposed");
    // The events travelled on the plans' own notes (the undo of the discard is the origin's
    // own: here it is a claim, so the discard stands).
    assert_eq!(status(&clone, &ids[12]), "discarded");
    let out = apply_json(&clone, &[&ids[3], "--no-check"]);
    let commit = out["commit"].as_str().unwrap();
    assert_eq!(clone.rev(&format!("{commit}^")), base, "{out}");
    repo.fsck();
    clone.fsck();
}
