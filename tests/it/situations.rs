//! The core in real git situations: which problem `plan` names, rewritten history, diffs that
//! say more than their action, attributes, odd repositories, worktrees, merges, large files,
//! scale and storage upkeep. Every test runs the real binary and checks with the real git CLI.

use crate::common;

use common::TestRepo;
use serde_json::Value;

fn sha256(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn answer(actions: Value) -> String {
    serde_json::json!({"summary": "change", "actions": actions}).to_string()
}

/// Stores `answer` as a plan and returns its full id.
fn plan(repo: &TestRepo, answer: &str) -> String {
    repo.plan_id("goal", answer)
}

/// Applies a stored plan without a check and returns the new commit.
fn apply(repo: &TestRepo, id: &str) -> String {
    let run = repo.papayu(["--json", "apply", id, "--no-check"]).ok();
    let out: Value = serde_json::from_str(&run.stdout).expect("apply --json prints JSON");
    out["commit"].as_str().expect("commit").to_string()
}

#[test]
fn plan_names_the_problem_of_the_version_the_answer_fits() {
    let repo = TestRepo::with_files(&[("f.txt", "a\nb\n")]);
    let bad_sha = answer(serde_json::json!([{
        "kind": "PATCH_FILE", "path": "f.txt", "base_sha256": "zz",
        "patch": "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n-a\n+c\n b\n"
    }]));
    let before = repo.snapshot();
    let run = repo
        .papayu_stdin(["plan", "goal", "--response", "-"], bad_sha.as_bytes())
        .err("ERR_BASE_SHA256_INVALID");
    assert!(!run.stderr.contains("ERR_V1_"), "{}", run.stderr);
    assert!(run.stderr.contains("--protocol 1"), "{}", run.stderr);
    repo.papayu_stdin(["validate", "-"], bad_sha.as_bytes())
        .err("ERR_BASE_SHA256_INVALID");
    assert_eq!(repo.snapshot(), before, "a refused answer changes nothing");

    // A v1 whole-file answer read as v2 (forced) says that v1 reads it…
    let v1 =
        answer(serde_json::json!([{"kind": "UPDATE_FILE", "path": "f.txt", "content": "x\n"}]));
    let run = repo
        .papayu_stdin(
            ["plan", "goal", "--response", "-", "--protocol", "2"],
            v1.as_bytes(),
        )
        .err("ERR_V2_UPDATE_EXISTING_FORBIDDEN");
    assert!(
        run.stderr.contains("`--protocol 1` reads it"),
        "{}",
        run.stderr
    );
    // …and detection reads it as v1.
    let id = plan(&repo, &v1);
    let show: Value =
        serde_json::from_str(&repo.papayu(["--json", "show", &id]).ok().stdout).unwrap();
    assert_eq!(show["plan"]["schema_version"], 1, "{show}");

    // Under --json the hint travels in the error's detail.
    let doc = repo
        .papayu_stdin(
            ["--json", "plan", "goal", "--response", "-"],
            bad_sha.as_bytes(),
        )
        .json_err("ERR_BASE_SHA256_INVALID");
    assert!(
        doc["errors"][0]["detail"]
            .as_str()
            .is_some_and(|d| d.contains("hint:"))
    );
}

const TWO_FUNCTIONS: &str =
    "fn alpha() {\n    let a = 1;\n    a\n}\n\nfn beta() {\n    let b = 2;\n    b\n}\n";

#[test]
fn hunks_out_of_order_apply_and_an_applied_patch_is_refused() {
    let repo = TestRepo::with_files(&[("src/lib.rs", TWO_FUNCTIONS)]);
    // The model lists beta's hunk first.
    let diff = "--- a/src/lib.rs\n+++ b/src/lib.rs\n\
        @@ -6,3 +6,3 @@\n fn beta() {\n-    let b = 2;\n+    let b = 20;\n     b\n\
        @@ -1,3 +1,3 @@\n fn alpha() {\n-    let a = 1;\n+    let a = 10;\n     a\n";
    let want = TWO_FUNCTIONS
        .replace("let a = 1;", "let a = 10;")
        .replace("let b = 2;", "let b = 20;");
    let run = repo
        .papayu_stdin(["patch", "src/lib.rs", "-"], diff.as_bytes())
        .ok();
    assert_eq!(run.stdout, want);
    let v2 = answer(serde_json::json!([{
        "kind": "PATCH_FILE", "path": "src/lib.rs", "patch": diff,
        "base_sha256": sha256(TWO_FUNCTIONS.as_bytes())
    }]));
    let id = plan(&repo, &v2);
    let commit = apply(&repo, &id);
    let shown = repo.git(["show", &format!("{commit}:src/lib.rs")]).ok();
    assert_eq!(shown.stdout, want);

    // The same diff on the file that already has it: refused, on the CLI and in a plan.
    repo.write("src/lib.rs", &want);
    repo.commit_all("applied by hand");
    repo.papayu_stdin(["patch", "src/lib.rs", "-"], diff.as_bytes())
        .err("ERR_PATCH_APPLY_FAILED");
    let again = answer(serde_json::json!([{
        "kind": "PATCH_FILE", "path": "src/lib.rs", "patch": diff,
        "base_sha256": sha256(want.as_bytes())
    }]));
    let before = repo.snapshot();
    let run = repo
        .papayu_stdin(["plan", "goal", "--response", "-"], again.as_bytes())
        .err("ERR_PATCH_APPLY_FAILED");
    assert!(run.stderr.contains("already applied"), "{}", run.stderr);
    assert_eq!(repo.snapshot(), before, "a refused plan changes nothing");
}

#[test]
fn a_patch_file_diff_is_about_its_own_file_only() {
    let repo = TestRepo::with_files(&[("src/lib.rs", TWO_FUNCTIONS), ("src/other.rs", "x\n")]);
    let base = sha256(TWO_FUNCTIONS.as_bytes());
    let own = "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,3 +1,3 @@\n fn alpha() {\n-    let a = 1;\n+    let a = 10;\n     a\n";
    let other = "--- a/src/other.rs\n+++ b/src/other.rs\n@@ -1 +1 @@\n-x\n+y\n";
    let cases = [
        (format!("{own}{other}"), "ERR_PATCH_MULTI_FILE"),
        (own.replace("src/lib.rs", "src/main.rs"), "ERR_PATCH_PATH_MISMATCH"),
        (own.replace("+++ b/src/lib.rs", "+++ b/src/new.rs"), "ERR_PATCH_PATH_MISMATCH"),
        (
            "--- a/src/lib.rs\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-fn alpha() {\n-    let a = 1;\n-    a\n"
                .to_string(),
            "ERR_PATCH_DEV_NULL",
        ),
    ];
    let before = repo.snapshot();
    for (diff, code) in &cases {
        let answer = answer(serde_json::json!([{
            "kind": "PATCH_FILE", "path": "src/lib.rs", "patch": diff, "base_sha256": base
        }]));
        repo.papayu_stdin(["plan", "goal", "--response", "-"], answer.as_bytes())
            .err(code);
        // `git papayu patch` says the same about the same diff, except that a one-file diff
        // naming another path applies to the FILE the user named, with a note.
        let patched = repo.papayu_stdin(["patch", "src/lib.rs", "-"], diff.as_bytes());
        if *code == "ERR_PATCH_PATH_MISMATCH" {
            let patched = patched.ok();
            assert!(
                patched.stderr.contains("note: the diff names"),
                "{}",
                patched.stderr
            );
            assert!(patched.stdout.contains("let a = 10;"), "{}", patched.stdout);
        } else {
            patched.err(code);
        }
    }
    assert_eq!(repo.snapshot(), before, "refusals change nothing");
    // A diff written from inside src/ names the same file by its tail: accepted.
    let tail = own.replace("src/lib.rs", "lib.rs");
    let answer = answer(serde_json::json!([{
        "kind": "PATCH_FILE", "path": "src/lib.rs", "patch": tail, "base_sha256": base
    }]));
    plan(&repo, &answer);
}

/// The blob `rev:path` as bytes, through git.
fn blob(repo: &TestRepo, rev: &str, path: &str) -> Vec<u8> {
    let out = std::process::Command::new("git")
        .args(["cat-file", "blob", &format!("{rev}:{path}")])
        .current_dir(repo.path())
        .output()
        .expect("git cat-file");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Checks `commit` out in a scratch worktree and asks git whether renormalizing `paths` changes
/// anything.
fn renormalize_finds_nothing(repo: &TestRepo, commit: &str, paths: &[&str]) {
    let wt = tempfile::tempdir().unwrap();
    let at = wt.path().join("wt");
    let at = at.to_str().unwrap();
    repo.git(["worktree", "add", "-q", "--detach", at, commit])
        .ok();
    let mut args = vec!["add", "--renormalize", "--"];
    args.extend_from_slice(paths);
    common::run_in(std::path::Path::new(at), "git", args, None).ok();
    let status = common::run_in(
        std::path::Path::new(at),
        "git",
        ["status", "--porcelain"],
        None,
    )
    .ok();
    assert_eq!(status.stdout, "", "git add --renormalize changed files");
    repo.git(["worktree", "remove", "--force", at]).ok();
}

#[test]
fn blobs_are_written_as_git_add_would_write_them() {
    let repo = TestRepo::with_files(&[("kept.txt", "x\r\ny\r\n")]);
    repo.write(
        ".gitattributes",
        "* text=auto\n*.bat text eol=crlf\n*.bin -text\n",
    );
    repo.write("old.txt", "one\ntwo\n");
    repo.commit_all("attributes");
    let answer = answer(serde_json::json!([
        {"kind": "CREATE_FILE", "path": "new.txt", "content": "a\r\nb\r\n"},
        {"kind": "CREATE_FILE", "path": "run.bat", "content": "@echo off\r\nexit\r\n"},
        {"kind": "CREATE_FILE", "path": "raw.bin", "content": "keep\r\nme\r\n"},
    ]));
    let id = plan(&repo, &answer);
    let commit = apply(&repo, &id);
    assert_eq!(blob(&repo, &commit, "new.txt"), b"a\nb\n");
    assert_eq!(blob(&repo, &commit, "run.bat"), b"@echo off\nexit\n");
    assert_eq!(blob(&repo, &commit, "raw.bin"), b"keep\r\nme\r\n");
    renormalize_finds_nothing(&repo, &commit, &["new.txt", "run.bat", "raw.bin"]);

    // Whole-file rewrites in CRLF: a file stored with LF gets LF; one git itself keeps in CRLF
    // under text=auto (committed before the attribute) stays CRLF.
    let v1 = serde_json::json!({"summary": "s", "actions": [
        {"kind": "UPDATE_FILE", "path": "old.txt", "content": "one\r\nTWO\r\n"},
        {"kind": "UPDATE_FILE", "path": "kept.txt", "content": "x\r\nY\r\n"},
    ]})
    .to_string();
    let id = plan(&repo, &v1);
    let commit = apply(&repo, &id);
    assert_eq!(blob(&repo, &commit, "old.txt"), b"one\nTWO\n");
    assert_eq!(blob(&repo, &commit, "kept.txt"), b"x\r\nY\r\n");
    // The same contents through `git add` give the same blobs.
    repo.write("old.txt", "one\r\nTWO\r\n");
    repo.write("kept.txt", "x\r\nY\r\n");
    repo.git(["add", "old.txt", "kept.txt"]).ok();
    for path in ["old.txt", "kept.txt"] {
        assert_eq!(
            repo.rev(&format!(":{path}")),
            repo.rev(&format!("{commit}:{path}")),
            "{path}"
        );
    }
    repo.git(["reset", "-q", "--hard"]).ok();
    repo.fsck();
}

#[test]
fn core_autocrlf_normalizes_without_attributes() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let crlf = answer(serde_json::json!([
        {"kind": "CREATE_FILE", "path": "b.txt", "content": "b\r\nc\r\n"}
    ]));
    // Without autocrlf or attributes, bytes are stored as given, as git add does.
    let commit = apply(&repo, &plan(&repo, &crlf));
    assert_eq!(blob(&repo, &commit, "b.txt"), b"b\r\nc\r\n");
    for value in ["true", "input"] {
        repo.git(["config", "core.autocrlf", value]).ok();
        let commit = apply(&repo, &plan(&repo, &crlf));
        assert_eq!(
            blob(&repo, &commit, "b.txt"),
            b"b\nc\n",
            "core.autocrlf={value}"
        );
    }
}

#[test]
fn repositories_papayu_cannot_read_get_a_precise_answer() {
    for (flag, says) in [
        ("--object-format=sha256", "extensions.objectFormat"),
        ("--ref-format=reftable", "git refs migrate"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let init = common::run_in(dir.path(), "git", ["init", "-q", flag, "r"], None);
        if init.status != Some(0) {
            // An older git without this format: nothing to test against.
            continue;
        }
        let repo = dir.path().join("r");
        std::fs::write(repo.join("a.txt"), "a\n").unwrap();
        common::run_in(&repo, "git", ["add", "a.txt"], None).ok();
        common::run_in(&repo, "git", ["commit", "-q", "-m", "a"], None).ok();
        let refs = common::run_in(&repo, "git", ["for-each-ref"], None)
            .ok()
            .stdout;
        let run = common::run_in(&repo, "git", ["papayu", "list"], None)
            .err("ERR_REPOSITORY_UNSUPPORTED");
        assert!(run.stderr.contains(says), "{}", run.stderr);
        assert!(
            !run.stderr.contains("ERR_NOT_A_REPOSITORY"),
            "{}",
            run.stderr
        );
        assert_eq!(
            common::run_in(&repo, "git", ["for-each-ref"], None)
                .ok()
                .stdout,
            refs,
            "nothing was written"
        );
    }
}

fn parent(repo: &TestRepo, commit: &str) -> String {
    repo.rev(&format!("{commit}^"))
}

#[test]
fn plans_follow_amend_and_rebase() {
    let repo = TestRepo::with_files(&[("src/lib.rs", TWO_FUNCTIONS), ("notes.txt", "n\n")]);
    repo.papayu(["init"]).ok();
    let change = answer(serde_json::json!([
        {"kind": "CREATE_FILE", "path": "added.txt", "content": "new\n"}
    ]));
    let first = plan(&repo, &change);
    let before = repo.rev("HEAD");
    repo.git(["commit", "-q", "--amend", "-m", "initial, reworded"])
        .ok();
    let amended = repo.rev("HEAD");
    assert_ne!(before, amended);
    // `apply` finds the plan through the copied note and builds on the amended commit.
    let run = repo.papayu(["--json", "apply", "--no-check"]).ok();
    let out: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(out["plan"], first.as_str(), "{out}");
    let commit = out["commit"].as_str().unwrap();
    assert_eq!(parent(&repo, commit), amended);
    assert!(run.stderr.contains("was rewritten"), "{}", run.stderr);

    // `apply ID` after a rebase builds on the rewritten commit, not on the dead one, even when
    // more commits came on top of it.
    repo.write("notes.txt", "n\nmore\n");
    let planned_on = repo.commit_all("more notes");
    let second = plan(
        &repo,
        &answer(serde_json::json!([
            {"kind": "CREATE_FILE", "path": "second.txt", "content": "2\n"}
        ])),
    );
    repo.git(["checkout", "-q", "-b", "side", "HEAD~1"]).ok();
    repo.write("side.txt", "side\n");
    repo.commit_all("side");
    repo.git(["checkout", "-q", "main"]).ok();
    repo.git(["rebase", "-q", "side"]).ok();
    let rebased = repo.rev("HEAD");
    assert_ne!(rebased, planned_on, "the rebase rewrote the plan's base");
    repo.write("later.txt", "later\n");
    repo.commit_all("later");
    let commit = apply(&repo, &second);
    assert_eq!(parent(&repo, &commit), rebased);
    repo.fsck();

    // Re-checked there: a rewrite that changed a file the plan read refuses the plan.
    let base = sha256(TWO_FUNCTIONS.as_bytes());
    let diff = "@@ -1,3 +1,3 @@\n fn alpha() {\n-    let a = 1;\n+    let a = 10;\n     a\n";
    let third = plan(
        &repo,
        &answer(serde_json::json!([
            {"kind": "PATCH_FILE", "path": "src/lib.rs", "patch": diff, "base_sha256": base}
        ])),
    );
    repo.write(
        "src/lib.rs",
        &TWO_FUNCTIONS.replace("let b = 2;", "let b = 3;"),
    );
    repo.git(["commit", "-q", "-a", "--amend", "--no-edit"])
        .ok();
    let refs = repo.snapshot();
    repo.papayu(["apply", &third, "--no-check"])
        .err("ERR_BASE_MISMATCH");
    assert_eq!(repo.snapshot(), refs, "a refused apply changes nothing");
}

fn branch_exists(repo: &TestRepo, branch: &str) -> bool {
    repo.git([
        "rev-parse",
        "--verify",
        "--quiet",
        &format!("refs/heads/{branch}"),
    ])
    .status
        == Some(0)
}

/// A plan that adds `name`, applied; returns (plan id, proposal branch).
fn applied(repo: &TestRepo, name: &str) -> (String, String) {
    let id = plan(
        repo,
        &answer(serde_json::json!([{"kind": "CREATE_FILE", "path": name, "content": "x\n"}])),
    );
    let run = repo.papayu(["--json", "apply", &id, "--no-check"]).ok();
    let out: Value = serde_json::from_str(&run.stdout).unwrap();
    (id, out["branch"].as_str().unwrap().to_string())
}

/// [`applied`] with papayu's clock fixed at `at` (`PAPAYU_TIMESTAMP`).
fn applied_at(repo: &TestRepo, name: &str, at: &str) -> (String, String) {
    let env = [("PAPAYU_TIMESTAMP", at)];
    let answer =
        answer(serde_json::json!([{"kind": "CREATE_FILE", "path": name, "content": "x\n"}]));
    repo.write(".git/answer.json", &answer);
    let run = repo.papayu_env(
        ["--json", "plan", "goal", "--response", ".git/answer.json"],
        &env,
    );
    let out: Value = serde_json::from_str(&run.ok().stdout).unwrap();
    let id = out["plans"][0]["plan"]["id"].as_str().unwrap().to_string();
    let run = repo
        .papayu_env(["--json", "apply", &id, "--no-check"], &env)
        .ok();
    let out: Value = serde_json::from_str(&run.stdout).unwrap();
    (id, out["branch"].as_str().unwrap().to_string())
}

#[test]
fn merge_deletes_the_branch_in_the_same_operation_and_undo_brings_it_back() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let (id, branch) = applied(&repo, "b.txt");
    let run = repo.papayu(["--json", "merge", &id]).ok();
    let out: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(out["branch_deleted"], true, "{out}");
    assert!(!branch_exists(&repo, &branch));
    let show: Value =
        serde_json::from_str(&repo.papayu(["--json", "show", &id]).ok().stdout).unwrap();
    assert_eq!(show["status"], "merged", "{show}");
    repo.papayu(["undo"]).ok();
    assert!(
        branch_exists(&repo, &branch),
        "undo restores the proposal branch"
    );
    // --keep-branch keeps it.
    repo.papayu(["merge", &id, "--keep-branch"]).ok();
    assert!(branch_exists(&repo, &branch));
    repo.fsck();
}

#[test]
fn a_squash_merge_runs_the_commit_hooks_and_a_refusal_changes_nothing() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let (id, branch) = applied(&repo, "b.txt");
    let hook = repo.path().join(".git/hooks/commit-msg");
    std::fs::write(
        &hook,
        "#!/bin/sh\necho 'commit-msg: messages need a ticket number' >&2\necho 'second line of the hook' >&2\nexit 1\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    let before = repo.snapshot();
    let head = repo.rev("HEAD");
    let run = repo
        .papayu(["merge", &id, "--squash"])
        .err("ERR_MERGE_FAILED");
    // git's whole message, not only its last line.
    assert!(
        run.stderr.contains("messages need a ticket number"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("second line of the hook"),
        "{}",
        run.stderr
    );
    assert_eq!(repo.rev("HEAD"), head);
    assert_eq!(
        repo.snapshot(),
        before,
        "a refused squash leaves everything as it was"
    );
    assert_eq!(repo.git(["status", "--porcelain"]).ok().stdout, "");
    assert!(branch_exists(&repo, &branch));
    std::fs::remove_file(&hook).unwrap();
    repo.papayu(["merge", &id, "--squash"]).ok();
    assert!(!branch_exists(&repo, &branch));
    repo.fsck();
}

#[test]
fn a_merge_whose_log_cannot_be_written_is_rolled_back() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let (id, branch) = applied(&repo, "b.txt");
    let head = repo.rev("HEAD");
    let before = repo.logical_snapshot();
    // Hold the operation log's ref lock, as a crashed process would.
    let lock = repo.path().join(".git/refs/papayu/oplog.lock");
    std::fs::write(&lock, "").unwrap();
    let run = repo.papayu(["merge", &id]);
    assert_ne!(run.status, Some(0), "{}", run.stderr);
    std::fs::remove_file(&lock).unwrap();
    assert_eq!(repo.rev("HEAD"), head, "the merge was rolled back");
    assert_eq!(
        repo.logical_snapshot(),
        before,
        "refs, index and files as they were"
    );
    assert_eq!(repo.git(["status", "--porcelain"]).ok().stdout, "");
    assert!(!repo.path().join("b.txt").exists());
    assert!(branch_exists(&repo, &branch));
    let show: Value =
        serde_json::from_str(&repo.papayu(["--json", "show", &id]).ok().stdout).unwrap();
    assert_eq!(show["status"], "applied", "{show}");
}

#[test]
fn undo_moves_a_branch_checked_out_in_a_linked_worktree_only_as_reset_keep_would() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let (id, _) = applied(&repo, "b.txt");
    // Work happens in a linked worktree on its own branch; the merge goes into that branch.
    let dir = tempfile::tempdir().unwrap();
    let linked = dir.path().join("linked");
    repo.git([
        "worktree",
        "add",
        "-q",
        "-b",
        "topic",
        linked.to_str().unwrap(),
    ])
    .ok();
    let in_linked = |args: &[&str]| common::run_in(&linked, "git", args, None);
    common::run_in(&linked, "git", ["papayu", "merge", &id], None).ok();
    let merged = repo.rev("topic");
    // Uncommitted work in the linked worktree on a file the undo would change: refused.
    std::fs::write(linked.join("b.txt"), "local edit\n").unwrap();
    let before = repo.snapshot();
    repo.papayu(["undo"]).err("ERR_DIRTY_WORKTREE");
    assert_eq!(repo.snapshot(), before, "a refused undo changes nothing");
    assert_eq!(repo.rev("topic"), merged);
    // Unrelated local work there is kept, as git reset --keep keeps it.
    std::fs::remove_file(linked.join("b.txt")).unwrap();
    in_linked(&["checkout", "-q", "--", "b.txt"]).ok();
    std::fs::write(linked.join("a.txt"), "edited\n").unwrap();
    repo.papayu(["undo"]).ok();
    assert_ne!(repo.rev("topic"), merged);
    assert!(
        !linked.join("b.txt").exists(),
        "the linked worktree followed its branch"
    );
    assert_eq!(
        std::fs::read_to_string(linked.join("a.txt")).unwrap(),
        "edited\n"
    );
    assert_eq!(
        in_linked(&["status", "--porcelain"]).ok().stdout,
        " M a.txt\n"
    );
}

#[test]
fn a_check_waits_for_a_free_worktree_slot() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let id = plan(
        &repo,
        &answer(serde_json::json!([{"kind": "CREATE_FILE", "path": "b.txt", "content": "b\n"}])),
    );
    // Four other processes' checks hold every slot.
    let slots = repo.path().join(".git/papayu/worktrees");
    std::fs::create_dir_all(&slots).unwrap();
    let mut held: Vec<std::fs::File> = (1..=4)
        .map(|n| {
            let f = std::fs::File::create(slots.join(format!("check-{n}.flock"))).unwrap();
            f.try_lock().unwrap();
            f
        })
        .collect();
    let mut child = common::hermetic("git", repo.path())
        .args(["papayu", "apply", &id, "--check", "true"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert!(child.try_wait().unwrap().is_none(), "the fifth check waits");
    held.pop();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("waiting for one"), "{stderr}");
    drop(held);
}

#[test]
fn gc_forgets_old_operations_and_prunes_what_papayu_keeps() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let (id, _) = applied(&repo, "b.txt");
    let checked = plan(
        &repo,
        &answer(serde_json::json!([
    {"kind": "CREATE_FILE", "path": "c.txt", "content": "c\n"}])),
    );
    repo.papayu(["apply", &checked, "--check", "true"]).ok();
    repo.papayu(["discard", &id]).ok();
    let slots = repo.path().join(".git/papayu/worktrees");
    assert!(slots.join("check-1").exists(), "a check worktree was made");
    let log_before = repo.rev("refs/papayu/oplog");
    let notes_before = repo.rev("refs/notes/papayu");

    // The default keeps recent operations; --dry-run changes nothing.
    let dry: Value =
        serde_json::from_str(&repo.papayu(["--json", "gc", "--dry-run"]).ok().stdout).unwrap();
    assert_eq!(dry["gc"]["operations_forgotten"], 0, "{dry}");
    assert_eq!(dry["gc"]["worktrees_removed"], 1, "{dry}");
    assert!(slots.join("check-1").exists());
    let kept = dry["gc"]["operations_kept"].as_u64().unwrap();
    assert!(kept >= 4, "{dry}");
    let before = repo.snapshot();
    repo.papayu(["gc", "--expire=bogus"]).code(2);
    assert_eq!(repo.snapshot(), before, "a refused gc changes nothing");
    assert!(slots.join("check-1").exists());

    let run = repo.papayu(["gc"]).ok();
    assert!(
        run.stdout.contains("check worktrees: removed 1"),
        "{}",
        run.stdout
    );
    assert!(!slots.join("check-1").exists());
    assert_eq!(
        repo.rev("refs/papayu/oplog"),
        log_before,
        "nothing old to forget"
    );
    let listed = repo.git(["worktree", "list", "--porcelain"]).ok().stdout;
    assert_eq!(listed.matches("worktree ").count(), 1, "{listed}");

    // --expire=now forgets every operation: undo has nothing left, the discarded tip becomes
    // collectable, and the plans stay. The one check's verdict keeps counting: a `gc` entry,
    // which undo skips, vouches for its line.
    let out: Value =
        serde_json::from_str(&repo.papayu(["--json", "gc", "--expire=now"]).ok().stdout).unwrap();
    assert_eq!(
        out["gc"]["operations_forgotten"].as_u64(),
        Some(kept),
        "{out}"
    );
    assert_eq!(out["gc"]["plans"], 2, "{out}");
    let log = repo
        .git(["log", "--format=%s", "refs/papayu/oplog"])
        .ok()
        .stdout;
    assert_eq!(
        log.trim(),
        "papayu gc: keep 1 cancel(s) and check line(s) of forgotten operations",
        "{log}"
    );
    let shown: Value =
        serde_json::from_str(&repo.papayu(["--json", "show", &checked]).ok().stdout).unwrap();
    assert_eq!(shown["check"]["status"], "passed", "{shown}");
    assert_eq!(
        repo.rev("refs/notes/papayu"),
        notes_before,
        "plans are never removed"
    );
    repo.papayu(["undo"]).err("ERR_NOTHING_TO_UNDO");
    let list = repo.papayu(["list"]).ok().stdout;
    assert!(list.contains(&id[..10]), "{list}");
    repo.fsck();
}

#[test]
fn gc_rewrites_the_log_keeping_newer_operations_undoable() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    // The first two operations at 00:00:00, the next two a minute later; the cut between.
    applied_at(&repo, "b.txt", "2026-01-01T00:00:00Z");
    let (_, branch) = applied_at(&repo, "c.txt", "1767225660000");
    let cut = 1_767_225_630;
    let out: Value = serde_json::from_str(
        &repo
            .papayu(["--json", "gc", &format!("--expire=@{cut}")])
            .ok()
            .stdout,
    )
    .unwrap();
    assert_eq!(out["gc"]["operations_kept"], 2, "{out}");
    assert_eq!(out["gc"]["operations_forgotten"], 2, "{out}");
    // The newer operations are still undoable, through the rewritten log.
    repo.papayu(["undo"]).ok();
    assert!(!branch_exists(&repo, &branch));
    repo.papayu(["redo"]).ok();
    assert!(branch_exists(&repo, &branch));
    repo.papayu(["undo"]).ok();
    repo.papayu(["undo"]).ok();
    repo.papayu(["undo"]).err("ERR_NOTHING_TO_UNDO");
    repo.fsck();
}

#[test]
fn the_plan_index_carried_forward_equals_one_built_from_the_notes() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let (first, _) = applied(&repo, "b.txt");
    let (second, _) = applied(&repo, "c.txt");
    repo.papayu(["discard", &first]).ok();
    repo.papayu(["undo"]).ok();
    repo.papayu(["merge", &second]).ok();
    applied(&repo, "d.txt");
    let notes = repo.rev("refs/notes/papayu");
    let cached = repo
        .path()
        .join(format!(".git/papayu/cache/plans2-{notes}"));
    let carried = std::fs::read_to_string(&cached).expect("papayu's own writes keep the index");
    std::fs::remove_file(&cached).unwrap();
    repo.papayu(["show", &first]).ok();
    let built = std::fs::read_to_string(&cached).expect("a read rebuilds it");
    assert_eq!(carried, built);
    assert_eq!(carried.lines().count(), 3, "{carried}");
    // A stale or damaged entry is never trusted.
    std::fs::write(&cached, "not an index\n").unwrap();
    let show: Value =
        serde_json::from_str(&repo.papayu(["--json", "show", &second]).ok().stdout).unwrap();
    assert_eq!(show["status"], "merged", "{show}");
}

#[test]
fn list_shows_the_newest_plans_unless_asked_for_all() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let ids: Vec<String> = (0..4)
        .map(|i| {
            plan(
                &repo,
                &answer(serde_json::json!([
                    {"kind": "CREATE_FILE", "path": format!("f{i}.txt"), "content": "x\n"}
                ])),
            )
        })
        .collect();
    // The newest plan undone: it is not listed, and the limit still fills up.
    repo.papayu(["undo"]).ok();
    let listed = |args: &[&str]| -> Value {
        let mut all = vec!["--json", "list"];
        all.extend_from_slice(args);
        serde_json::from_str(&repo.papayu(all).ok().stdout).unwrap()
    };
    let two = listed(&["-n", "2"]);
    let shown: Vec<&str> = two["plans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(shown, vec![ids[2].as_str(), ids[1].as_str()], "{two}");
    assert_eq!(two["complete"], false);
    let all = listed(&["--all"]);
    assert_eq!(all["plans"].as_array().unwrap().len(), 3, "{all}");
    assert_eq!(all["complete"], true);
    assert_eq!(listed(&[])["complete"], true);
    let run = repo.papayu(["list", "-n", "1"]).ok();
    assert!(run.stderr.contains("--all"), "{}", run.stderr);
    assert_eq!(run.stdout.lines().count(), 1, "{}", run.stdout);
}
