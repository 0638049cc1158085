//! Hostile input through the real binary: a model's answer, a check command that misbehaves, a
//! proposal that tries to choose its own check. Each test pins a class of attack, not one case.

use crate::common;

use std::io::Read;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{Run, TestRepo};
use serde_json::{Value, json};

fn repo() -> TestRepo {
    TestRepo::with_files(&[("app.txt", "v1\n"), ("README.md", "# demo\n")])
}

/// Stores `answer` (protocol v1) as a plan and returns its full id.
fn plan(repo: &TestRepo, goal: &str, answer: &Value, extra: &[&str]) -> String {
    let text = answer.to_string();
    let mut args = vec!["plan", goal, "--response", "-", "--json", "--protocol", "1"];
    args.extend_from_slice(extra);
    let run = repo.papayu_stdin(args, text.as_bytes()).ok();
    let out: Value = serde_json::from_str(&run.stdout).expect("plan --json prints JSON");
    out["plans"][0]["plan"]["id"]
        .as_str()
        .expect("plan id")
        .to_string()
}

fn new_file(path: &str) -> Value {
    json!({"actions": [{"kind": "CREATE_FILE", "path": path, "content": "x\n"}]})
}

fn apply_json(repo: &TestRepo, args: &[&str]) -> Value {
    let mut all = vec!["apply", "--json"];
    all.extend_from_slice(args);
    let run = repo.papayu(all).ok();
    serde_json::from_str(&run.stdout).expect("apply --json prints JSON")
}

/// `apply --json` of a check that fails: one document on stdout with the report and the code.
fn apply_failing(repo: &TestRepo, args: &[&str], code: &str) -> Value {
    let mut all = vec!["apply", "--json"];
    all.extend_from_slice(args);
    repo.papayu(all).json_err(code)
}

/// The check worktree's directory.
fn slot(repo: &TestRepo) -> std::path::PathBuf {
    repo.path().join(".git/papayu/worktrees/check-1")
}

// ---------------------------------------------------------------------------------------------
// The sandbox.

#[test]
fn a_normal_check_passes_inside_the_sandbox() {
    let repo = repo();
    plan(&repo, "add", &new_file("b.txt"), &[]);
    let check = "set -e; echo built > out.txt; mkdir -p target && echo o > target/x; \
                 echo t > \"$TMPDIR/t\"; test -f \"$TMPDIR/t\"; git status --short > status.txt; \
                 test -s status.txt; grep -q x b.txt; echo done";
    let out = apply_json(&repo, &["--check", check]);
    assert_eq!(out["check"]["passed"], true, "{out:#}");
    let sandbox = &out["check"]["sandbox"];
    assert_eq!(sandbox["writes_confined"], true, "{out:#}");
    // Whatever the kernel allowed, the report never claims a confined network it did not get.
    if sandbox["network_confined"] == true {
        assert!(
            matches!(sandbox["network"].as_str(), Some("namespace" | "filtered")),
            "{out:#}"
        );
    } else {
        assert!(!out["warnings"].as_array().unwrap().is_empty(), "{out:#}");
    }
    assert!(
        out["check"]["output_tail"]
            .as_str()
            .unwrap()
            .contains("done")
    );
}

#[test]
fn a_check_that_writes_outside_its_worktree_fails() {
    let repo = repo();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("pwned");
    // The user's own working tree is outside too.
    let own = repo.path().join("app.txt");
    plan(&repo, "add", &new_file("b.txt"), &[]);
    for victim in [&target, &own] {
        let check = format!("echo evil > '{}'", victim.display());
        let out = apply_failing(&repo, &["--check", &check], "ERR_CHECK_FAILED");
        assert_eq!(out["check"]["passed"], false);
        // Said as a denial, with the way to allow it, not as the tests failing.
        let reason = out["errors"][0]["reason"].as_str().unwrap();
        assert!(
            reason.contains("denied by the sandbox: ")
                && reason.contains("Permission denied")
                && reason.contains("papayu.checkWritable"),
            "{out:#}"
        );
        assert!(
            out["check"]["output_tail"]
                .as_str()
                .unwrap()
                .contains("Permission denied"),
            "{out:#}"
        );
    }
    assert!(!target.exists());
    assert_eq!(repo.read("app.txt"), "v1\n");
    assert!(repo.git(["status", "--porcelain"]).ok().stdout.is_empty());
}

#[test]
fn a_check_cannot_connect_to_a_local_port_unless_allowed() {
    let repo = repo();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    plan(&repo, "add", &new_file("b.txt"), &[]);
    let check = format!("bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port}' && echo connected");
    let out = apply_failing(&repo, &["--check", &check], "ERR_CHECK_FAILED");
    assert!(
        !out["check"]["output_tail"]
            .as_str()
            .unwrap()
            .contains("connected"),
        "{out:#}"
    );

    let out = apply_json(&repo, &["--check", &check, "--check-network"]);
    assert_eq!(out["check"]["passed"], true, "{out:#}");

    // The same through git config.
    repo.papayu(["discard"]).ok();
    repo.git(["config", "papayu.checkNetwork", "true"]).ok();
    let out = apply_json(&repo, &["--check", &check]);
    assert_eq!(out["check"]["passed"], true, "{out:#}");
    drop(listener);
}

#[test]
fn the_sandbox_can_be_turned_off_with_a_warning() {
    let repo = repo();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("allowed");
    repo.git(["config", "papayu.checkSandbox", "false"]).ok();
    plan(&repo, "add", &new_file("b.txt"), &[]);
    let check = format!("echo ok > '{}'", target.display());
    let run = repo.papayu(["apply", "--check", &check]).ok();
    assert!(
        run.stderr
            .contains("warning: the check ran without a sandbox"),
        "{}",
        run.stderr
    );
    assert!(target.exists());
}

#[test]
fn extra_writable_directories_come_from_config() {
    let repo = repo();
    let cache = tempfile::tempdir().unwrap();
    repo.git([
        "config",
        "papayu.checkWritable",
        &cache.path().display().to_string(),
    ])
    .ok();
    plan(&repo, "add", &new_file("b.txt"), &[]);
    let check = format!("echo c > '{}/cache'", cache.path().display());
    apply_json(&repo, &["--check", &check]);
    assert!(cache.path().join("cache").exists());
}

#[test]
fn the_checks_environment_is_an_allowlist() {
    let repo = repo();
    plan(&repo, "add", &new_file("b.txt"), &[]);
    // Credentials named like one, and credentials that are not.
    let secrets = [
        ("OPENAI_API_KEY", "value-of-openai"),
        ("PAPAYU_LLM_API_KEY", "value-of-papayu"),
        ("FOO_TOKEN", "value-of-foo"),
        ("PRIVATE_KEY", "-----BEGIN PRIVATE KEY-----"),
        ("DATABASE_URL", "postgres://app:hunter2@db.internal/app"),
        ("SSH_AUTH_SOCK", "/tmp/ssh-agent.sock"),
        ("HARMLESS_SETTING", "value-of-harmless"),
    ];
    let run = |extra: &[(&str, &str)]| {
        let mut cmd = common::hermetic("git", repo.path());
        cmd.args(["papayu", "apply", "--json", "--check", "env; echo END"]);
        for (name, value) in secrets.iter().chain(extra) {
            cmd.env(name, value);
        }
        let out = cmd.output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        report["check"]["output_tail"].as_str().unwrap().to_string()
    };
    let tail = run(&[("TZ", "Europe/Paris"), ("LC_TIME", "C")]);
    for (name, value) in secrets {
        assert!(!tail.contains(value), "{name} leaked:\n{tail}");
        assert!(
            !tail.contains(&format!("{name}=")),
            "{name} leaked:\n{tail}"
        );
    }
    for kept in ["LANG=C", "TZ=Europe/Paris", "LC_TIME=C", "PATH="] {
        assert!(tail.contains(kept), "{kept} missing:\n{tail}");
    }
    // HOME is the check's private temporary directory, not the user's.
    let var = |name: &str| {
        tail.lines()
            .find_map(|l| l.strip_prefix(&format!("{name}=")))
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(var("HOME"), var("TMPDIR"), "{tail}");
    assert_ne!(std::path::Path::new(&var("HOME")), repo.path(), "{tail}");

    // What the user names in papayu.checkEnv passes, by name or by prefix; a prefix never
    // passes a credential.
    repo.papayu(["discard"]).ok();
    repo.git([
        "config",
        "papayu.checkEnv",
        "HARMLESS_SETTING, DATABASE_URL",
    ])
    .ok();
    repo.git(["config", "--add", "papayu.checkEnv", "FOO_*"])
        .ok();
    let tail = run(&[("FOO_LEVEL", "3")]);
    assert!(
        tail.contains("HARMLESS_SETTING=value-of-harmless"),
        "{tail}"
    );
    assert!(tail.contains("DATABASE_URL=postgres://"), "{tail}");
    assert!(tail.contains("FOO_LEVEL=3"), "{tail}");
    assert!(!tail.contains("value-of-foo"), "{tail}");
    assert!(!tail.contains("BEGIN PRIVATE KEY"), "{tail}");

    repo.git(["config", "--replace-all", "papayu.checkEnv", "NOT=A NAME"])
        .ok();
    repo.papayu(["apply", "--check", "true"])
        .err("ERR_CHECK_CONFIG_INVALID");
}

fn process_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // A zombie is dead; it waits only to be reaped by whoever adopted it.
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z'),
        Err(_) => false,
    }
}

#[test]
fn a_check_past_its_timeout_is_killed_with_everything_it_started() {
    let repo = repo();
    plan(&repo, "add", &new_file("b.txt"), &[]);
    let check = format!(
        "{} echo started; sleep 30",
        background("grandchild.pid", 30)
    );
    let check = check.as_str();
    let started = Instant::now();
    let out = apply_failing(
        &repo,
        &["--check", check, "--check-timeout", "1"],
        "ERR_CHECK_TIMEOUT",
    );
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(out["check"]["timed_out"], true);
    let reason = out["errors"][0]["reason"].as_str().unwrap();
    assert!(reason.contains("papayu.checkTimeout"), "{reason}");
    let pid: u32 = std::fs::read_to_string(slot(&repo).join("grandchild.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    while process_alive(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        !process_alive(pid),
        "the check's background process {pid} survived"
    );
    // No branch, and the plan is marked failed.
    assert!(
        repo.git(["branch", "--list", "papayu/*"])
            .ok()
            .stdout
            .is_empty()
    );
    let shown = repo.papayu(["show", "--json"]).ok();
    let shown: Value = serde_json::from_str(&shown.stdout).unwrap();
    assert_eq!(shown["status"], "failed");

    // The limit also comes from git config.
    repo.git(["config", "papayu.checkTimeout", "1"]).ok();
    apply_failing(&repo, &["--check", "sleep 30"], "ERR_CHECK_TIMEOUT");
    repo.git(["config", "papayu.checkTimeout", "soon"]).ok();
    repo.papayu(["apply", "--check", "true"])
        .err("ERR_CHECK_CONFIG_INVALID");
}

#[test]
fn check_output_streams_live_with_verbose() {
    let repo = repo();
    plan(&repo, "add", &new_file("b.txt"), &[]);
    // Without -v a passing check is quiet.
    let quiet = repo.papayu(["apply", "--check", "echo line-$((1+1))"]).ok();
    assert!(!quiet.stderr.contains("line-2"), "{}", quiet.stderr);
    repo.papayu(["discard"]).ok();

    // With -v the first line is on stderr while the check still runs.
    let mut child = common::hermetic("git", repo.path())
        .args([
            "papayu",
            "apply",
            "-v",
            "--check",
            "echo first-$((1+1)); sleep 3; echo second-$((1+2))",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let started = Instant::now();
    let mut seen = Vec::new();
    let mut buf = [0u8; 256];
    while !String::from_utf8_lossy(&seen).contains("first-2") {
        let n = stderr.read(&mut buf).unwrap();
        assert!(n > 0, "stderr closed before the first line");
        seen.extend_from_slice(&buf[..n]);
    }
    assert!(
        started.elapsed() < Duration::from_millis(2500),
        "the first line came only after {:?}",
        started.elapsed()
    );
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).unwrap();
    assert!(child.wait().unwrap().success());
    assert!(rest.contains("second-3"), "{rest}");
}

#[test]
fn the_reused_worktree_is_cleaned_before_each_check() {
    let repo = TestRepo::with_files(&[("app.txt", "v1\n"), (".gitignore", "*.log\n")]);
    plan(&repo, "one", &new_file("one.txt"), &[]);
    apply_json(
        &repo,
        &[
            "--check",
            "echo j > junk.txt; echo l > build.log; mkdir -p d && echo n > d/n",
        ],
    );
    plan(&repo, "two", &new_file("two.txt"), &[]);
    let out = apply_json(
        &repo,
        &[
            "--check",
            "test ! -e junk.txt && test ! -e build.log && test ! -e d && test -f two.txt",
        ],
    );
    assert_eq!(out["check"]["fresh_worktree"], false);
    assert_eq!(out["check"]["passed"], true);
}

#[test]
fn build_caches_survive_the_clean_between_checks_and_nothing_else_does() {
    let repo = TestRepo::with_files(&[
        ("Cargo.toml", "[package]\nname = \"demo\"\n"),
        ("app.txt", "v1\n"),
    ]);
    plan(&repo, "one", &new_file("one.txt"), &[]);
    let write = "mkdir -p target/debug pkg/__pycache__ sub/target node_modules/.cache .pytest_cache \
                 && echo o > target/debug/out && echo c > pkg/__pycache__/m.pyc && echo s > sub/target/s \
                 && echo n > node_modules/.cache/n && echo p > .pytest_cache/lastfailed && echo j > junk.txt";
    let out = apply_json(&repo, &["--check", write]);
    assert_eq!(out["check"]["passed"], true, "{out:#}");
    plan(&repo, "two", &new_file("two.txt"), &[]);
    // Python's bytecode and pytest's memory of earlier runs are not keyed by content: not kept.
    let kept = "test -f target/debug/out && test -f node_modules/.cache/n && test ! -e pkg/__pycache__ \
                && test ! -e .pytest_cache && test ! -e sub/target \
                && test ! -e junk.txt && test ! -e one.txt && test -f two.txt";
    let out = apply_json(&repo, &["--check", kept]);
    assert_eq!(out["check"]["passed"], true, "{out:#}");

    // papayu.checkCache replaces the defaults.
    repo.git(["config", "papayu.checkCache", "keep/"]).ok();
    plan(&repo, "three", &new_file("three.txt"), &[]);
    let out = apply_json(&repo, &["--check", "mkdir -p keep && echo k > keep/k"]);
    assert_eq!(out["check"]["passed"], true, "{out:#}");
    plan(&repo, "four", &new_file("four.txt"), &[]);
    let check = "test -f keep/k && test ! -e target && test ! -e node_modules";
    let out = apply_json(&repo, &["--check", check]);
    assert_eq!(out["check"]["passed"], true, "{out:#}");

    // Without a Cargo.toml, a target/ directory is not a cache.
    let repo = self::repo();
    plan(&repo, "one", &new_file("one.txt"), &[]);
    apply_json(
        &repo,
        &["--check", "mkdir -p target && echo o > target/out"],
    );
    plan(&repo, "two", &new_file("two.txt"), &[]);
    let out = apply_json(&repo, &["--check", "test ! -e target"]);
    assert_eq!(out["check"]["passed"], true, "{out:#}");
}

#[test]
fn the_check_sees_the_full_tree_in_a_sparse_checkout() {
    let repo = TestRepo::with_files(&[("a/x.txt", "x\n"), ("b/y.txt", "y\n")]);
    repo.git(["sparse-checkout", "set", "a"]).ok();
    assert!(!repo.path().join("b/y.txt").exists());
    plan(&repo, "add", &new_file("a/new.txt"), &[]);
    let out = apply_json(&repo, &["--check", "test -f b/y.txt && test -f a/new.txt"]);
    assert_eq!(out["check"]["passed"], true);
    // The user's checkout is still sparse.
    assert!(!repo.path().join("b/y.txt").exists());
    assert_eq!(
        repo.git(["config", "core.sparseCheckout"])
            .ok()
            .stdout
            .trim(),
        "true"
    );
}

#[test]
fn a_check_cannot_redirect_its_worktree_at_the_users_repository() {
    let repo = repo();
    plan(&repo, "one", &new_file("one.txt"), &[]);
    // The check rewrites its worktree's link to point at the main repository's git dir.
    let gitdir = repo.path().join(".git").canonicalize().unwrap();
    let evil = format!(
        "printf 'gitdir: {}/worktrees/../\\n' > .git",
        gitdir.display()
    );
    apply_json(&repo, &["--check", &evil]);
    let before = repo.logical_snapshot();
    plan(&repo, "two", &new_file("two.txt"), &[]);
    let out = apply_json(&repo, &["--check", "test -f two.txt"]);
    assert_eq!(out["check"]["passed"], true);
    // HEAD is still on main, the index and working tree untouched.
    assert_eq!(
        repo.git(["symbolic-ref", "HEAD"]).ok().stdout.trim(),
        "refs/heads/main"
    );
    let after = repo.logical_snapshot();
    let strip = |s: &str| {
        s.lines()
            .filter(|l| {
                !l.contains("refs/heads/papayu/")
                    && !l.contains("refs/notes/papayu")
                    && !l.contains("refs/papayu/")
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&before), strip(&after));
    assert!(repo.git(["status", "--porcelain"]).ok().stdout.is_empty());
}

// ---------------------------------------------------------------------------------------------
// Who chooses the check.

fn project(command: &str) -> String {
    json!({ "default_test_command": command }).to_string()
}

#[test]
fn an_unmerged_proposal_never_chooses_the_check() {
    let repo = TestRepo::with_files(&[
        ("app.txt", "v1\n"),
        (".papa-yu/project.json", &project("echo from-user")),
    ]);
    let main = repo.rev("HEAD");
    // A proposal rewrites the project file; applied without a check, it is an unmerged branch.
    let rewrite = json!({"actions": [{"kind": "UPDATE_FILE", "path": ".papa-yu/project.json",
        "content": project("echo from-proposal")}]});
    plan(&repo, "rewrite", &rewrite, &[]);
    let out = apply_json(&repo, &["--no-check"]);
    let branch = out["branch"].as_str().unwrap().to_string();

    // Planning on the proposal (--base) runs the user's check, read at the user's commit.
    let id = plan(&repo, "on top", &new_file("top.txt"), &["--base", &branch]);
    let out = apply_json(&repo, &[&id]);
    assert_eq!(out["check"]["command"], "echo from-user", "{out:#}");
    let source = out["check"]["source"].as_str().unwrap();
    assert!(source.contains(&main[..10]), "{source}");

    // So does applying a plan made on main --onto the proposal.
    let id = plan(&repo, "onto", &new_file("onto.txt"), &[]);
    let out = apply_json(&repo, &[&id, "--onto", &branch]);
    assert_eq!(out["check"]["command"], "echo from-user", "{out:#}");

    // Once the user merges the proposal, its project file is the user's.
    repo.git(["merge", "-q", "--ff-only", &branch]).ok();
    plan(&repo, "after merge", &new_file("after.txt"), &[]);
    let out = apply_json(&repo, &[]);
    assert_eq!(out["check"]["command"], "echo from-proposal", "{out:#}");
}

#[test]
fn a_malformed_project_file_is_an_error_not_a_skipped_check() {
    for (content, why) in [
        ("{\"default_test_command\": 5}", "invalid type"),
        ("{not json", "not valid JSON"),
        ("[\"make test\"]", "JSON object"),
        (
            "{\"default_test_command\": \"make\", \"src_roots\": \"src\"}",
            "invalid type",
        ),
    ] {
        let repo = TestRepo::with_files(&[("app.txt", "v1\n"), (".papa-yu/project.json", content)]);
        plan(&repo, "add", &new_file("b.txt"), &[]);
        let run = repo.papayu(["apply"]).err("ERR_PROJECT_CONFIG_INVALID");
        assert!(run.stderr.contains(why), "{content}: {}", run.stderr);
        assert!(run.stderr.contains("--no-check"), "{}", run.stderr);
        assert!(
            repo.git(["branch", "--list", "papayu/*"])
                .ok()
                .stdout
                .is_empty()
        );
        // The user can still choose.
        apply_json(&repo, &["--no-check"]);
    }
}

// ---------------------------------------------------------------------------------------------
// Protected files.

fn delete_dir(path: &str) -> Value {
    json!({"actions": [{"kind": "DELETE_DIR", "path": path}]})
}

fn plan_rejected(repo: &TestRepo, answer: &Value, code: &str) -> Run {
    let text = answer.to_string();
    repo.papayu_stdin(
        ["plan", "x", "--response", "-", "--protocol", "1"],
        text.as_bytes(),
    )
    .err(code)
}

#[test]
fn protected_files_cannot_be_removed_through_their_directory() {
    let repo = TestRepo::with_files(&[
        ("config/.env", "KEY=1\n"),
        ("config/app.yml", "a: 1\n"),
        ("deploy/keys/server.pem", "pem\n"),
        ("deploy/readme.md", "r\n"),
        ("docs/a.md", "a\n"),
    ]);
    let run = plan_rejected(&repo, &delete_dir("config"), "ERR_PROTECTED_PATH");
    assert!(run.stderr.contains("config/.env"), "{}", run.stderr);
    plan_rejected(&repo, &delete_dir("deploy"), "ERR_PROTECTED_PATH");
    // A directory without protected files can go.
    plan(&repo, "drop docs", &delete_dir("docs"), &[]);
    // Nothing protected was stored, the files are in place.
    assert!(repo.path().join("config/.env").exists());
}

#[test]
fn a_case_twin_of_a_protected_file_cannot_be_created() {
    let repo = TestRepo::with_files(&[("app/.env", "KEY=1\n")]);
    let answer =
        json!({"actions": [{"kind": "CREATE_FILE", "path": "app/.ENV", "content": "KEY=evil\n"}]});
    let run = plan_rejected(&repo, &answer, "ERR_PROTECTED_PATH");
    assert!(run.stderr.contains("another case"), "{}", run.stderr);
}

#[test]
fn papayu_private_in_gitattributes_protects_files() {
    let repo = TestRepo::with_files(&[
        (
            ".gitattributes",
            "config/prod.yml papayu-private\nvault/ papayu-private\n*.txt text\n",
        ),
        ("config/prod.yml", "db: prod\n"),
        ("config/dev.yml", "db: dev\n"),
        ("vault/a.txt", "a\n"),
        ("lib/.gitattributes", "local.cfg papayu-private\n"),
        ("lib/local.cfg", "x\n"),
    ]);
    for answer in [
        json!({"actions": [{"kind": "UPDATE_FILE", "path": "config/prod.yml", "content": "db: evil\n"}]}),
        json!({"actions": [{"kind": "DELETE_FILE", "path": "config/prod.yml"}]}),
        delete_dir("config"),
        delete_dir("vault"),
        json!({"actions": [{"kind": "DELETE_FILE", "path": "vault/a.txt"}]}),
        json!({"actions": [{"kind": "DELETE_FILE", "path": "lib/local.cfg"}]}),
        delete_dir("lib"),
    ] {
        plan_rejected(&repo, &answer, "ERR_PROTECTED_PATH");
    }
    // Neighbours are ordinary files.
    plan(
        &repo,
        "dev",
        &json!({"actions": [{"kind": "UPDATE_FILE", "path": "config/dev.yml", "content": "db: dev2\n"}]}),
        &[],
    );
    // The repository's own info/attributes counts too.
    std::fs::write(
        repo.path().join(".git/info/attributes"),
        "config/dev.yml papayu-private\n",
    )
    .unwrap();
    plan_rejected(
        &repo,
        &json!({"actions": [{"kind": "DELETE_FILE", "path": "config/dev.yml"}]}),
        "ERR_PROTECTED_PATH",
    );
}

#[test]
fn a_stored_plan_is_refused_at_apply_once_its_file_is_marked_private() {
    let repo = TestRepo::with_files(&[("data/x.csv", "1\n")]);
    let id = plan(
        &repo,
        "drop",
        &json!({"actions": [{"kind": "DELETE_FILE", "path": "data/x.csv"}]}),
        &[],
    );
    repo.write(".gitattributes", "data/** papayu-private\n");
    repo.commit_all("mark data private");
    repo.papayu(["apply", &id, "--no-check", "--onto", "HEAD"])
        .err("ERR_PROTECTED_PATH");
}

// ---------------------------------------------------------------------------------------------
// Paths and special files.

#[test]
fn paths_with_invisible_characters_or_too_many_bytes_are_refused() {
    let repo = repo();
    for (path, code) in [
        ("src/evil\u{202e}txt.rs", "ERR_PATH_INVISIBLE_CHAR"),
        ("src/a\u{200b}b.rs", "ERR_PATH_INVISIBLE_CHAR"),
        ("\u{feff}x.rs", "ERR_PATH_INVISIBLE_CHAR"),
        ("src/a\u{2067}b.rs", "ERR_PATH_INVISIBLE_CHAR"),
        ("a\u{1b}[2Jb.rs", "ERR_PATH_CONTROL_CHAR"),
        ("a\u{9b}b.rs", "ERR_PATH_CONTROL_CHAR"),
    ] {
        let run = plan_rejected(&repo, &new_file(path), code);
        assert_safe_bytes(&run.stderr);
    }
    let long = "я".repeat(121);
    let run = plan_rejected(&repo, &new_file(&long), "ERR_PATH_TOO_LONG");
    assert!(run.stderr.contains("bytes"), "{}", run.stderr);
    // 120 two-byte letters are 240 bytes: accepted, and git checks the file out.
    plan(&repo, "long", &new_file(&"я".repeat(120)), &[]);
    let out = apply_json(&repo, &["--check", "ls | grep -c я"]);
    assert_eq!(out["check"]["passed"], true);
}

#[test]
fn gitmodules_that_git_fsck_rejects_are_refused() {
    let repo = repo();
    for (content, why) in [
        (
            "[submodule \"x\"]\n\tpath = x\n\turl = --upload-pack=touch$IFS/tmp/p\n",
            "url starting with '-'",
        ),
        (
            "[submodule \"x\"]\n\tpath = -x\n\turl = https://example.com/x\n",
            "path starting with '-'",
        ),
        (
            "[submodule \"../../hooks\"]\n\tpath = x\n\turl = https://example.com/x\n",
            "'..'",
        ),
        (
            "[submodule \"x\"]\n\tpath = x\n\tupdate = !sh evil.sh\n",
            "update = !command",
        ),
    ] {
        let answer = json!({"actions": [{"kind": "CREATE_FILE", "path": ".gitmodules", "content": content}]});
        let run = plan_rejected(&repo, &answer, "ERR_GITMODULES_INVALID");
        assert!(run.stderr.contains(why), "{content}: {}", run.stderr);
    }
    let good = "[submodule \"lib\"]\n\tpath = lib\n\turl = https://example.com/lib.git\n";
    plan(
        &repo,
        "modules",
        &json!({"actions": [{"kind": "CREATE_FILE", "path": ".gitmodules", "content": good}]}),
        &[],
    );
}

// ---------------------------------------------------------------------------------------------
// Model text never reaches the terminal raw.

/// Fails when `text` holds a character a terminal would act on: a control character other
/// than newline and tab, or a bidi or invisible format character.
fn assert_safe_bytes(text: &str) {
    for c in text.chars() {
        let bad = (c.is_control() && c != '\n' && c != '\t')
            || matches!(c as u32, 0x200B..=0x200F | 0x202A..=0x202E | 0x2066..=0x2069 | 0xFEFF | 0x2028 | 0x2029);
        assert!(
            !bad,
            "raw U+{:04X} reached the terminal in:\n{text}",
            c as u32
        );
    }
}

const NASTY: &str = "A\u{1b}[2J\u{1b}]52;c;ZXZpbA==\u{7}B\rC\u{202e}D\u{9b}31mE\u{7f}F\u{200b}G";

/// Enough ordinary text that the file is not taken for binary.
const TEXT: &str = "An ordinary line of text that keeps the share of control characters low.\n";

fn nasty_answer() -> Value {
    json!({
        "summary": format!("summary {NASTY}\nsecond line {NASTY}"),
        "plan": [{"step": format!("step {NASTY}"), "details": format!("details {NASTY}")}],
        "risks": [format!("risk {NASTY}")],
        "questions": [format!("question {NASTY}")],
        "commands_to_run": [format!("rm -rf / {NASTY}")],
        "actions": [
            {"kind": "CREATE_FILE", "path": "notes.txt", "content": format!("content {NASTY}\n{TEXT}")},
            {"kind": "UPDATE_FILE", "path": "app.txt", "content": format!("v2 {NASTY}\n{TEXT}")}
        ]
    })
}

fn plan_human(repo: &TestRepo, goal: &str, answer: &Value) -> Run {
    let text = answer.to_string();
    repo.papayu_stdin(
        ["plan", goal, "--response", "-", "--protocol", "1"],
        text.as_bytes(),
    )
    .ok()
}

#[test]
fn model_text_is_printed_with_control_characters_visible() {
    let repo = repo();
    let goal = format!("goal {NASTY}");
    let run = plan_human(&repo, &goal, &nasty_answer());
    assert_safe_bytes(&run.stdout);
    assert_safe_bytes(&run.stderr);
    // What was there stays visible.
    assert!(
        run.stdout
            .contains("A^[[2J^[]52;c;ZXZpbA==^GB^MC<U+202E>D<U+009B>31mE^?F<U+200B>G"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("Goal: goal A^[[2J"), "{}", run.stdout);
    assert!(
        run.stdout.contains("Summary: summary A^["),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("\n  second line A^["), "{}", run.stdout);
    assert!(run.stdout.contains("+content A^["), "{}", run.stdout);
    for args in [
        vec!["show"],
        vec!["list"],
        vec!["show", "--json"],
        vec!["list", "--json"],
        vec!["validate", "--protocol", "1", "-"],
    ] {
        let text = nasty_answer().to_string();
        let run = repo.papayu_stdin(&args, text.as_bytes());
        assert_safe_bytes(&run.stdout);
        assert_safe_bytes(&run.stderr);
        if args.contains(&"--json") {
            // Escaped by JSON, and the value reads back intact.
            let value: Value = serde_json::from_str(&run.stdout).unwrap();
            assert!(value.to_string().contains("\\u001b[2J"), "{value}");
        }
    }
    // A one-line field shows a newline instead of starting a line of its own.
    let multi = json!({"actions": [{"kind": "CREATE_FILE", "path": "m.txt", "content": "m\n"}],
        "commands_to_run": ["echo safe\nrm -rf ~"]});
    let run = plan_human(&repo, "line\nbreak", &multi);
    assert!(run.stdout.contains("Goal: line^Jbreak"), "{}", run.stdout);
    assert!(run.stdout.contains("echo safe^Jrm -rf ~"), "{}", run.stdout);
}

#[test]
fn check_output_is_printed_with_control_characters_visible() {
    let repo = repo();
    plan(&repo, "add", &new_file("b.txt"), &[]);
    let check = "printf 'out \\033]52;c;ZXZpbA==\\007 \\033[2J \\342\\200\\256 done\\r\\n'; exit 3";
    let run = repo
        .papayu(["apply", "-v", "--check", check])
        .err("ERR_CHECK_FAILED");
    assert_safe_bytes(&run.stdout);
    assert_safe_bytes(&run.stderr);
    assert!(
        run.stderr
            .contains("out ^[]52;c;ZXZpbA==^G ^[[2J <U+202E> done^M"),
        "{}",
        run.stderr
    );
    let run = repo.papayu(["show"]).ok();
    assert_safe_bytes(&run.stdout);
    assert!(run.stdout.contains("^[[2J"), "{}", run.stdout);
    let run = repo.papayu(["show", "--json"]).ok();
    assert_safe_bytes(&run.stdout);
}

#[test]
fn errors_quoting_model_text_are_safe() {
    let repo = repo();
    let answer = json!({"actions": [
        {"kind": "UPDATE_FILE", "path": format!("missing{}.txt", "\u{1b}[31m"), "content": "x"},
        {"kind": "CREATE_FILE", "path": "app.txt", "content": "x"}
    ]});
    let run = plan_rejected(&repo, &answer, "ERR_PATH_CONTROL_CHAR");
    assert_safe_bytes(&run.stderr);
}

// ---------------------------------------------------------------------------------------------
// The check's network: every way out, against listeners this test holds.

/// Attempts, from inside a check, each way out that Landlock's TCP rules miss: a TCP connection
/// opened by `sendto(…, MSG_FASTOPEN, …)` without `connect`, a UDP datagram, and a Unix socket
/// with a path. Prints what happened; the listeners are the judge.
const PROBE: &str = r#"
import socket, sys
port, udp_port, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
def attempt(name, f):
    try:
        f()
        print(name, "sent")
    except Exception as e:
        print(name, "refused:", type(e).__name__, e)
def fast_open():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(5)
    s.sendto(b"secret-by-fast-open", socket.MSG_FASTOPEN, ("127.0.0.1", port))
    s.recv(16)
def udp():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(b"secret-by-udp", ("127.0.0.1", udp_port))
def unix():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(path)
    s.sendall(b"secret-by-unix")
attempt("fast-open", fast_open)
attempt("udp", udp)
attempt("unix", unix)
"#;

/// Listeners on 127.0.0.1 (TCP and UDP) and on a Unix socket path, and what reached them.
struct Listeners {
    tcp: std::net::TcpListener,
    udp: std::net::UdpSocket,
    unix: std::os::unix::net::UnixListener,
    dir: tempfile::TempDir,
}

#[derive(Debug, Default, PartialEq)]
struct Reached {
    tcp: bool,
    udp: bool,
    unix: bool,
}

impl Listeners {
    fn new() -> Listeners {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("probe.py"), PROBE).unwrap();
        let listeners = Listeners {
            tcp: std::net::TcpListener::bind("127.0.0.1:0").unwrap(),
            udp: std::net::UdpSocket::bind("127.0.0.1:0").unwrap(),
            unix: std::os::unix::net::UnixListener::bind(dir.path().join("daemon.sock")).unwrap(),
            dir,
        };
        listeners.tcp.set_nonblocking(true).unwrap();
        listeners.udp.set_nonblocking(true).unwrap();
        listeners.unix.set_nonblocking(true).unwrap();
        listeners
    }

    /// The check command that probes these listeners.
    fn probe(&self) -> String {
        format!(
            "python3 '{}' {} {} '{}'",
            self.dir.path().join("probe.py").display(),
            self.tcp.local_addr().unwrap().port(),
            self.udp.local_addr().unwrap().port(),
            self.dir.path().join("daemon.sock").display()
        )
    }

    /// What reached a listener since the last call; a connection waits in the accept queue
    /// even after its client is gone, a datagram in the receive queue.
    fn reached(&self) -> Reached {
        let mut buf = [0u8; 64];
        let mut reached = Reached::default();
        while self.tcp.accept().is_ok() {
            reached.tcp = true;
        }
        while self.udp.recv(&mut buf).is_ok() {
            reached.udp = true;
        }
        while self.unix.accept().is_ok() {
            reached.unix = true;
        }
        reached
    }
}

fn have_python() -> bool {
    let found = std::process::Command::new("python3")
        .arg("-c")
        .arg("import socket; socket.MSG_FASTOPEN")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        common::skip("python3 (with socket.MSG_FASTOPEN) is needed to probe the sandbox");
    }
    found
}

/// `apply --json --check CHECK` run as papayu normally runs, or with user namespaces made
/// unavailable (as on kernels and distributions that forbid them) when `no_userns`.
fn apply_probe(repo: &TestRepo, check: &str, no_userns: bool) -> Value {
    let mut cmd = if no_userns {
        // Inside a user namespace of its own, a root that may create no further one.
        let mut cmd = common::hermetic("unshare", repo.path());
        cmd.args([
            "--user",
            "--map-root-user",
            "sh",
            "-c",
            r#"echo 0 > /proc/sys/user/max_user_namespaces && exec git papayu apply --json --check "$0""#,
            check,
        ]);
        cmd
    } else {
        let mut cmd = common::hermetic("git", repo.path());
        cmd.args(["papayu", "apply", "--json", "--check", check]);
        cmd
    };
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).unwrap()
}

/// The report either shows the way out closed, and the listener saw nothing, or says it was
/// open, with a warning; it never claims what the kernel did not enforce.
fn assert_confined_or_reported(out: &Value, reached: &Reached) {
    let sandbox = &out["check"]["sandbox"];
    let tail = out["check"]["output_tail"].as_str().unwrap();
    let warnings = out["warnings"].to_string();
    if sandbox["network_confined"] == true {
        assert!(!reached.tcp && !reached.udp, "{reached:?}\n{tail}\n{out:#}");
    } else {
        assert!(
            warnings.contains("network") || warnings.contains("UDP"),
            "{out:#}"
        );
    }
    match sandbox["unix_sockets"].as_str() {
        Some("blocked" | "confined") => {
            assert!(!reached.unix, "{reached:?}\n{tail}\n{out:#}")
        }
        _ => assert!(warnings.contains("Unix sockets"), "{out:#}"),
    }
}

#[test]
fn a_check_cannot_leave_by_tcp_fast_open_udp_or_a_unix_socket() {
    if !have_python() {
        return;
    }
    let repo = repo();
    let listeners = Listeners::new();
    let probe = listeners.probe();

    // The probe works: unsandboxed, every listener hears from it.
    repo.git(["config", "papayu.checkSandbox", "false"]).ok();
    plan(&repo, "open", &new_file("open.txt"), &[]);
    let out = apply_probe(&repo, &probe, false);
    let reached = listeners.reached();
    // Fast Open from a client needs bit 1 of net.ipv4.tcp_fastopen (the default).
    let fast_open = std::fs::read_to_string("/proc/sys/net/ipv4/tcp_fastopen")
        .ok()
        .and_then(|v| v.trim().parse::<u32>().ok())
        .is_some_and(|v| v & 1 == 1);
    if !fast_open {
        eprintln!("note: TCP Fast Open is off for clients here; only UDP and Unix are probed");
    }
    assert_eq!(
        reached,
        Reached {
            tcp: fast_open,
            udp: true,
            unix: true
        },
        "{}",
        out["check"]["output_tail"]
    );
    repo.git(["config", "--unset", "papayu.checkSandbox"]).ok();

    plan(&repo, "closed", &new_file("closed.txt"), &[]);
    let out = apply_probe(&repo, &probe, false);
    let reached = listeners.reached();
    assert_confined_or_reported(&out, &reached);
    eprintln!("sandbox here: {}", out["check"]["sandbox"]);
}

#[test]
fn without_user_namespaces_a_filter_keeps_the_check_off_the_network() {
    if !have_python() {
        return;
    }
    let can_unshare = common::hermetic("unshare", std::path::Path::new("/"))
        .args([
            "--user",
            "--map-root-user",
            "sh",
            "-c",
            "echo 0 > /proc/sys/user/max_user_namespaces",
        ])
        .output()
        .is_ok_and(|o| o.status.success());
    if !can_unshare {
        common::skip(
            "unshare --user, and a user namespace limit it may lower, are needed to take user namespaces away from papayu",
        );
        return;
    }
    let repo = repo();
    let listeners = Listeners::new();
    plan(&repo, "closed", &new_file("closed.txt"), &[]);
    let out = apply_probe(&repo, &listeners.probe(), true);
    let reached = listeners.reached();
    let sandbox = &out["check"]["sandbox"];
    assert_ne!(sandbox["network"], "namespace", "{out:#}");
    assert_confined_or_reported(&out, &reached);
    eprintln!("sandbox without user namespaces: {sandbox}");
}

#[test]
fn a_check_may_still_serve_and_reach_its_own_loopback() {
    if !have_python() {
        return;
    }
    let repo = repo();
    plan(&repo, "add", &new_file("b.txt"), &[]);
    let check = r#"python3 -c '
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
c = socket.create_connection(s.getsockname(), timeout=5)
a, _ = s.accept(); c.sendall(b"ping"); assert a.recv(4) == b"ping"
print("loopback works")
'"#;
    let out = apply_json(&repo, &["--check", check]);
    // Only a network namespace gives the check a loopback of its own; without one, Landlock
    // refuses every TCP connect and the check fails.
    if out["check"]["sandbox"]["network"] == "namespace" {
        assert_eq!(out["check"]["passed"], true, "{out:#}");
    }
}

// ---------------------------------------------------------------------------------------------
// The check's lifetime: it dies with papayu, and its slot is free only when it is gone.

/// The `git-papayu` process under a `git papayu` process (git runs it as its child).
fn papayu_pid(git: u32) -> u32 {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let children =
            std::fs::read_to_string(format!("/proc/{git}/task/{git}/children")).unwrap_or_default();
        for pid in children.split_whitespace() {
            let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            if comm.trim() == "git-papayu" {
                return pid.parse().unwrap();
            }
        }
        let own = std::fs::read_to_string(format!("/proc/{git}/comm")).unwrap_or_default();
        if own.trim() == "git-papayu" {
            return git;
        }
        assert!(Instant::now() < deadline, "no git-papayu under {git}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits (generously) until `path` holds a pid.
fn read_pid(path: &std::path::Path) -> u32 {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(pid) = std::fs::read_to_string(path)
            .ok()
            .and_then(|t| t.trim().parse().ok())
        {
            return pid;
        }
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn wait_dead(pid: u32, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while process_alive(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!process_alive(pid), "{what} ({pid}) survived");
}

fn signal(pid: u32, sig: i32) {
    let ok = std::process::Command::new("kill")
        .arg(format!("-{sig}"))
        .arg(pid.to_string())
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -{sig} {pid}");
}

/// Shell that starts `sleep SECS` in the background and writes its pid to `file` as this
/// process sees it. A check runs in a PID namespace of its own, where `$!` and `$$` are the
/// namespace's numbers; `/proc` is this system's, so a process's `stat` there names its parent
/// by the number seen from outside.
fn background(file: &str, secs: u32) -> String {
    format!("sh -c 'cut -d\" \" -f4 /proc/self/stat > {file}; exec sleep {secs}' & ")
}

/// A check that records its pids (as seen from outside, see [`background`]) and keeps writing
/// into its worktree until killed; bounded (about two minutes) so that a regression does not
/// leave it running for ever.
const LINGERING: &str = "cut -d' ' -f4 /proc/self/stat > leader.pid; \
                         sh -c 'cut -d\" \" -f4 /proc/self/stat > child.pid; exec sleep 120' & \
                         for i in $(seq 1200); do date >> writes.log; sleep 0.1; done";

#[test]
fn a_check_dies_with_a_killed_papayu_and_never_writes_into_the_next_check() {
    let repo = repo();
    plan(&repo, "one", &new_file("one.txt"), &[]);
    let mut git = common::hermetic("git", repo.path())
        .args(["papayu", "apply", "--check", LINGERING])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let papayu = papayu_pid(git.id());
    let leader = read_pid(&slot(&repo).join("leader.pid"));
    let child = read_pid(&slot(&repo).join("child.pid"));
    signal(papayu, 9);
    let _ = git.wait();
    wait_dead(leader, "the check's shell");
    wait_dead(child, "a process the check started");

    // The next apply takes the slot back and sees only its own files there.
    plan(&repo, "two", &new_file("two.txt"), &[]);
    let out = apply_json(
        &repo,
        &[
            "--check",
            "test ! -e writes.log && sleep 1 && test ! -e writes.log && test -f two.txt",
        ],
    );
    assert_eq!(out["check"]["passed"], true, "{out:#}");
    assert!(slot(&repo).join("two.txt").exists());
}

#[test]
fn a_process_that_leaves_its_checks_group_dies_with_it_and_frees_the_slot() {
    let repo = repo();
    plan(&repo, "one", &new_file("one.txt"), &[]);
    // setsid leaves the check's process group and session, not its PID namespace.
    let escape = "setsid sh -c 'cut -d\" \" -f4 /proc/self/stat > escaped.pid; exec sleep 120' \
                  > /dev/null 2>&1 & while ! test -s escaped.pid; do sleep 0.05; done";
    let out = apply_json(&repo, &["--check", escape]);
    assert_eq!(out["check"]["pid_namespace"], true, "{out:#}");
    let escaped = read_pid(&slot(&repo).join("escaped.pid"));
    wait_dead(escaped, "the process that called setsid");
    // The slot is free again at once.
    plan(&repo, "two", &new_file("two.txt"), &[]);
    let out = apply_json(&repo, &["--check", "pwd"]);
    let tail = out["check"]["output_tail"].as_str().unwrap();
    assert!(tail.trim_end().ends_with("check-1"), "{tail}");
}

#[test]
fn ctrl_c_during_a_check_ends_its_whole_group_and_applies_nothing() {
    let repo = repo();
    plan(&repo, "one", &new_file("one.txt"), &[]);
    let git = common::hermetic("git", repo.path())
        .args(["papayu", "apply", "--check", LINGERING])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let papayu = papayu_pid(git.id());
    let leader = read_pid(&slot(&repo).join("leader.pid"));
    let child = read_pid(&slot(&repo).join("child.pid"));
    signal(papayu, 2);
    let out = git.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("ERR_CANCELLED"), "{stderr}");
    assert!(stderr.contains("cancelled; nothing applied"), "{stderr}");
    wait_dead(leader, "the check's shell");
    wait_dead(child, "a process the check started");
    assert!(
        repo.git(["branch", "--list", "papayu/*"])
            .ok()
            .stdout
            .is_empty()
    );
    let shown: Value = serde_json::from_str(&repo.papayu(["show", "--json"]).ok().stdout).unwrap();
    assert_eq!(shown["status"], "proposed", "{shown:#}");

    // As a terminal sends it: to git and papayu together, in their own process group.
    let _ = std::fs::remove_file(slot(&repo).join("leader.pid"));
    let _ = std::fs::remove_file(slot(&repo).join("child.pid"));
    let mut cmd = common::hermetic("git", repo.path());
    cmd.args(["papayu", "apply", "--check", LINGERING])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let git = cmd.spawn().unwrap();
    let group = git.id();
    let leader = read_pid(&slot(&repo).join("leader.pid"));
    let child = read_pid(&slot(&repo).join("child.pid"));
    signal_group(group, 2);
    let out = git.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cancelled; nothing applied"), "{stderr}");
    wait_dead(leader, "the check's shell");
    wait_dead(child, "a process the check started");
    assert!(
        repo.git(["branch", "--list", "papayu/*"])
            .ok()
            .stdout
            .is_empty()
    );
}

fn signal_group(pgid: u32, sig: i32) {
    let ok = std::process::Command::new("kill")
        .arg(format!("-{sig}"))
        .arg("--")
        .arg(format!("-{pgid}"))
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -{sig} -- -{pgid}");
}
