//! Hostile input through the real binary: a model's answer, a check command that misbehaves, a
//! proposal that tries to choose its own check. Each test pins a class of attack, not one case.

mod common;

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
    assert_eq!(
        out["check"]["sandbox"]["landlock"]["network_confined"], true,
        "{out:#}"
    );
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
fn credentials_are_removed_from_the_checks_environment() {
    let repo = repo();
    plan(&repo, "add", &new_file("b.txt"), &[]);
    let secrets = [
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "PAPAYU_LLM_API_KEY",
        "FOO_TOKEN",
        "BAR_SECRET",
        "X_API_KEY",
    ];
    let mut cmd = common::hermetic("git", repo.path());
    cmd.args(["papayu", "apply", "--json", "--check", "env; echo END"]);
    for name in secrets {
        cmd.env(name, format!("value-of-{name}"));
    }
    cmd.env("HARMLESS_SETTING", "kept");
    let out = cmd.output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let tail = report["check"]["output_tail"].as_str().unwrap();
    assert!(tail.contains("HARMLESS_SETTING=kept"), "{tail}");
    for name in secrets {
        assert!(!tail.contains(name), "{name} leaked:\n{tail}");
        assert!(
            !tail.contains(&format!("value-of-{name}")),
            "{name} leaked:\n{tail}"
        );
    }
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
    let check = "sleep 30 & echo $! > grandchild.pid; echo started; sleep 30";
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
