//! Settings given on git's command line (`git -c`) are in force for every command, as
//! `git papayu config` reports them; both expiry settings read one date grammar.

use crate::common;

use std::time::{Duration, Instant};

use common::TestRepo;
use serde_json::{Value, json};

const ANSWER: &str = r#"{"summary": "add b", "actions": [{"kind": "CREATE_FILE", "path": "b.txt", "content": "b\n"}]}"#;

fn repo() -> TestRepo {
    TestRepo::with_files(&[("a.txt", "a\n")])
}

/// `git papayu config --json`'s entry for `name`, as run with `git -c` options `opts`.
fn config_entry(repo: &TestRepo, opts: &[&str], name: &str) -> Value {
    let mut args: Vec<&str> = opts.iter().flat_map(|o| ["-c", o]).collect();
    args.extend(["papayu", "--json", "config"]);
    let out: Value = serde_json::from_str(&repo.git(args).ok().stdout).expect("config --json");
    listed(&out, name)
}

/// The entry for `name` in a `config --json` document.
fn listed(doc: &Value, name: &str) -> Value {
    doc["settings"]
        .as_array()
        .expect("settings")
        .iter()
        .find(|s| s["name"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("{name} is listed: {doc}"))
}

#[test]
fn git_c_check_timeout_stops_the_check_as_config_reports() {
    let repo = repo();
    let entry = config_entry(&repo, &["papayu.checkTimeout=2"], "papayu.checkTimeout");
    assert_eq!(entry["value"], "2");
    assert!(
        entry["origin"].as_str().unwrap().contains("command line"),
        "{entry}"
    );

    repo.plan_id("add b", ANSWER);
    let started = Instant::now();
    let run = repo.git([
        "-c",
        "papayu.checkTimeout=2",
        "papayu",
        "--json",
        "apply",
        "--check",
        "sleep 30",
    ]);
    let took = started.elapsed();
    run.json_err("ERR_CHECK_TIMEOUT");
    assert!(
        took < Duration::from_secs(20),
        "stopped at 2 s, took {took:?}"
    );
    assert!(
        repo.git(["branch", "--list", "papayu/*"])
            .ok()
            .stdout
            .is_empty()
    );

    // A value of the wrong type given with -c is refused as one in a file is.
    repo.git([
        "-c",
        "papayu.checkTimeout=soon",
        "papayu",
        "apply",
        "--check",
        "true",
    ])
    .err("ERR_CHECK_CONFIG_INVALID");
}

#[test]
fn git_c_settings_win_over_files_and_quote_like_git() {
    let repo = repo();
    repo.git(["config", "papayu.checkTimeout", "7"]).ok();
    let entry = config_entry(&repo, &[], "papayu.checkTimeout");
    assert_eq!(entry["value"], "7");
    // The later -c wins; quotes inside a value survive git's quoting.
    let entry = config_entry(
        &repo,
        &["papayu.checkTimeout=1", "PAPAYU.CHECKTIMEOUT=3"],
        "papayu.checkTimeout",
    );
    assert_eq!(entry["value"], "3");
    let entry = config_entry(&repo, &["papayu.model=it's \"a\" 'model'!"], "papayu.model");
    assert_eq!(entry["value"], "it's \"a\" 'model'!");
}

#[test]
fn both_expiry_settings_read_one_date_grammar() {
    let repo = repo();
    repo.plan_id("add b", ANSWER);
    let dir = repo.path().join(".git/papayu/traces");
    std::fs::create_dir_all(&dir).unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let day = 86_400_000;
    let old = |name: &str, days: i64| {
        let trace = json!({"version": 1, "trace_id": name, "kind": "plan",
            "created_at": now - days * day, "ok": true});
        std::fs::write(dir.join(format!("{name}.json")), trace.to_string()).unwrap();
    };
    for (value, kept) in [
        ("never", true),
        ("30.days.ago", true),
        ("2.weeks", false),
        ("1970-01-02", true),
        ("now", false),
    ] {
        old("t", 20);
        for key in ["papayu.traceExpire", "papayu.oplogExpire"] {
            let setting = format!("{key}={value}");
            let run = repo
                .git(["-c", &setting, "papayu", "--json", "gc", "--dry-run"])
                .ok();
            let report: Value = serde_json::from_str(&run.stdout).unwrap();
            assert!(report["gc"].is_object(), "{key}={value}: {}", run.stdout);
        }
        let setting = format!("papayu.traceExpire={value}");
        repo.git(["-c", &setting, "papayu", "trace", "prune"]).ok();
        assert_eq!(dir.join("t.json").exists(), kept, "traceExpire={value}");
    }
    old("t", 20);
    let refs = || repo.git(["for-each-ref"]).ok().stdout;
    let before = refs();
    for typo in ["30.dayz.ago", "soon"] {
        for key in ["papayu.traceExpire", "papayu.oplogExpire"] {
            let setting = format!("{key}={typo}");
            repo.git(["-c", &setting, "papayu", "gc", "--dry-run"])
                .err("ERR_CONFIG_INVALID");
        }
        let setting = format!("papayu.traceExpire={typo}");
        repo.git(["-c", &setting, "papayu", "trace", "prune"])
            .err("ERR_CONFIG_INVALID");
    }
    assert!(
        dir.join("t.json").exists(),
        "a refused expiry prunes nothing"
    );
    assert_eq!(refs(), before, "a refused expiry changes no ref");
}

/// `git papayu apply ARGS` with the identity of the test harness but no date variables, so the
/// commit is dated now as git dates it.
fn apply_undated(repo: &TestRepo, git_opts: &[&str], args: &[&str]) -> common::Run {
    let mut cmd = common::hermetic("git", repo.path());
    cmd.args(git_opts)
        .args(["papayu", "apply"])
        .args(args)
        .env_remove("GIT_AUTHOR_DATE")
        .env_remove("GIT_COMMITTER_DATE")
        .env("TZ", "UTC");
    let out = cmd.output().expect("git papayu runs");
    common::Run {
        cmdline: format!("git {git_opts:?} papayu apply {args:?}"),
        status: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A commit object's text with its timestamps blanked.
fn undated(text: &str) -> String {
    text.lines()
        .map(|l| match l.rsplit_once("> ") {
            Some((who, _)) if l.starts_with("author ") || l.starts_with("committer ") => {
                format!("{who}> T")
            }
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_proposal_commit_is_the_one_git_commit_tree_writes() {
    let repo = repo();
    repo.plan_id("add b", ANSWER);
    apply_undated(&repo, &[], &["--no-check"]).ok();
    let tip = repo
        .git([
            "for-each-ref",
            "refs/heads/papayu/",
            "--format=%(objectname)",
        ])
        .ok()
        .stdout
        .trim()
        .to_string();
    let ours = repo.git(["cat-file", "commit", &tip]).ok().stdout;
    let (tree, parent) = (
        repo.rev(&format!("{tip}^{{tree}}")),
        repo.rev(&format!("{tip}^")),
    );
    let message = ours.split_once("\n\n").unwrap().1;
    let mut cmd = common::hermetic("git", repo.path());
    cmd.args(["commit-tree", &tree, "-p", &parent])
        .env_remove("GIT_AUTHOR_DATE")
        .env_remove("GIT_COMMITTER_DATE")
        .env("TZ", "UTC")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), message.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let theirs_id = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let theirs = repo.git(["cat-file", "commit", &theirs_id]).ok().stdout;
    assert_eq!(undated(&ours), undated(&theirs));
    assert!(
        ours.contains("author Test Author <author@example.com> "),
        "{ours}"
    );
    repo.fsck();
}

#[test]
fn git_c_commit_gpgsign_makes_git_sign_the_proposal() {
    let repo = repo();
    repo.plan_id("add b", ANSWER);
    // The signing program fails: git was asked to sign, and nothing is written.
    apply_undated(
        &repo,
        &["-c", "commit.gpgsign=true", "-c", "gpg.program=false"],
        &["--no-check"],
    )
    .err("ERR_SIGNING_FAILED");
    assert!(
        repo.git(["branch", "--list", "papayu/*"])
            .ok()
            .stdout
            .is_empty()
    );
}

/// Outside any repository `config` shows git's global settings and `git -c`, as git would
/// read them there: the object colour and pager are read from too.
#[test]
fn config_outside_a_repository_shows_the_global_settings() {
    let dir = tempfile::tempdir().unwrap();
    let global = dir.path().join("global.gitconfig");
    std::fs::write(
        &global,
        "[papayu]\n\tprovider = openai\n[color]\n\tui = always\n",
    )
    .unwrap();
    let out = common::hermetic("git", dir.path())
        .env("GIT_CONFIG_GLOBAL", &global)
        .env("GIT_CEILING_DIRECTORIES", dir.path().parent().unwrap())
        .args(["-c", "color.ui=never", "papayu", "--json", "config"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let provider = listed(&doc, "papayu.provider");
    assert_eq!(provider["value"], "openai");
    assert_eq!(
        provider["origin"],
        format!("file:{}", global.display()),
        "{provider}"
    );
    let colour = listed(&doc, "color.ui");
    assert_eq!(
        colour["value"], "never",
        "git -c wins over the file: {colour}"
    );
    assert_eq!(colour["origin"], "command line:");
}

/// Every declared setting refuses a typo the same way, before the command does anything, naming
/// its value and origin; `config` still shows it.
#[test]
fn a_typo_in_any_setting_is_refused_with_its_origin_and_changes_nothing() {
    let repo = repo();
    let cases: &[(&str, &str, &str)] = &[
        ("papayu.rounds", "7", "a whole number from 1 to 5"),
        ("papayu.strictJson", "maybe", "true or false"),
        ("papayu.llmMode", "chatty", "chat, fixit, fix-plan"),
        ("papayu.repro", "sometimes", "auto, always, never"),
        ("papayu.maxCost", "lots", "an amount of US dollars"),
        ("papayu.checkSandbox", "perhaps", "true or false"),
        ("papayu.trace", "2x", "true or false"),
    ];
    let before = repo.snapshot();
    for (key, value, must) in cases {
        let set = format!("{key}={value}");
        let run = repo.git(["-c", &set, "papayu", "list"]).code(1);
        let code = match key.starts_with("papayu.check") {
            true => "ERR_CHECK_CONFIG_INVALID",
            false => "ERR_CONFIG_INVALID",
        };
        assert!(
            run.stderr.starts_with(&format!(
                "{code}: {key} is \"{value}\" (command line:); it must be {must}"
            )),
            "{key}: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains(&format!("git config --unset {key}")),
            "{}",
            run.stderr
        );
        // `config` shows the value it refuses, so it can be found and fixed.
        let shown = config_entry(&repo, &[&set], key);
        assert_eq!(shown["value"], *value, "{shown}");
    }
    let run = repo
        .papayu_env(["list"], &[("PAPAYU_CONTEXT_MAX_FILES", "eight")])
        .code(1);
    assert!(
        run.stderr.starts_with(
            "ERR_CONFIG_INVALID: PAPAYU_CONTEXT_MAX_FILES is \"eight\" (env PAPAYU_CONTEXT_MAX_FILES)"
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("set PAPAYU_CONTEXT_MAX_FILES to"),
        "{}",
        run.stderr
    );
    assert_eq!(repo.snapshot(), before);
}
