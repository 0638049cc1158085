//! `git papayu validate` through the real binary: exit codes, output streams, and hostile input.

use crate::common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{Run, TestRepo, hermetic};

/// Writes `bytes` to a file in the repository and validates it with `args`.
fn validate(repo: &TestRepo, bytes: &[u8], args: &[&str]) -> Run {
    std::fs::write(repo.path().join("answer.txt"), bytes).expect("write answer");
    let mut all = vec!["validate"];
    all.extend_from_slice(args);
    all.push("answer.txt");
    repo.papayu(all)
}

/// Asserts a clean rejection: exit 1, the code on stderr, no panic, quickly.
fn rejects(repo: &TestRepo, bytes: &[u8], code: &str) -> Run {
    let started = Instant::now();
    let run = validate(repo, bytes, &[]).err(code);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "took {:?}",
        started.elapsed()
    );
    run
}

/// Deterministic pseudo-random bytes drawn from `alphabet`.
fn noise(len: usize, alphabet: &[u8], seed: u64) -> Vec<u8> {
    let mut state = seed;
    (0..len)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            alphabet[((state >> 33) as usize) % alphabet.len()]
        })
        .collect()
}

#[test]
fn accepts_and_prints_the_normalized_plan() {
    let repo = TestRepo::empty();
    let answer = "Here you go:\n```json\n{\"actions\": [{\"kind\": \"DELETE_FILE\", \"path\": \"old.txt\"}, {\"kind\": \"CREATE_FILE\", \"path\": \"README.md\", \"content\": \"# Hi\\n\"}], \"summary\": \"s\"}\n```\n";
    let run = validate(&repo, answer.as_bytes(), &[]).ok();
    let plan: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON on stdout");
    assert_eq!(plan["protocol"], 2);
    assert_eq!(plan["actions"][0]["kind"], "CREATE_FILE");
    assert_eq!(plan["actions"][1]["kind"], "DELETE_FILE");
    assert!(run.stderr.is_empty(), "{}", run.stderr);
}

#[test]
fn reports_every_problem_and_exits_1() {
    let repo = TestRepo::empty();
    let answer = r#"[{"kind": "UPDATE_FILE", "path": "src/../x", "content": "x"},
                     {"kind": "DELETE_FILE", "path": ".env"},
                     {"kind": "CREATE_FILE", "path": ".git/hooks/post-checkout", "content": "x"}]"#;
    let run = validate(&repo, answer.as_bytes(), &[]).err("ERR_PATH_DOTDOT");
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 3, "{}", run.stderr);
    assert!(lines[0].starts_with("ERR_PATH_DOTDOT: action 1 (UPDATE_FILE src/../x): "));
    assert!(lines[1].starts_with("ERR_PROTECTED_PATH: action 2 (DELETE_FILE .env): "));
    assert!(lines[2].starts_with("ERR_PATH_GIT_INTERNAL: action 3 "));
    assert!(run.stdout.is_empty());
}

#[test]
fn options_protocol_mode_and_stdin() {
    let repo = TestRepo::empty();
    let empty = br#"{"actions": [], "summary": "looked"}"#;
    validate(&repo, empty, &["--mode", "plan"]).ok();
    validate(&repo, empty, &["--mode", "apply"]).err("ERR_NO_CHANGES_MARKER");
    let array = br#"[{"kind": "CREATE_DIR", "path": "src"}]"#;
    validate(&repo, array, &["--protocol", "1"]).ok();
    validate(&repo, array, &["--protocol", "2"]).err("ERR_V2_ROOT_NOT_OBJECT");
    let run = repo.papayu_stdin(["validate", "-"], array).ok();
    assert!(run.stdout.contains("\"CREATE_DIR\""));
    repo.papayu_stdin(["validate", "-"], b"")
        .err("ERR_EMPTY_INPUT");
}

#[test]
fn usage_errors_exit_2_and_help_is_complete() {
    let repo = TestRepo::empty();
    validate(&repo, b"[]", &["--protocol", "3"]).code(2);
    validate(&repo, b"[]", &["--mode", "later"]).code(2);
    repo.papayu(["validate"]).code(2);
    repo.papayu(["validate", "no-such-file.json"])
        .err("ERR_INPUT_UNREADABLE");
    let help = repo.papayu(["validate", "--help"]).ok().stdout;
    for word in [
        "--protocol",
        "--mode",
        "--allowlist",
        "FILE|-",
        "PAPAYU_NORMALIZE_EOL",
        "ERR_CODE",
    ] {
        assert!(help.contains(word), "help lacks {word}:\n{help}");
    }
}

#[test]
fn allowlist_option() {
    let repo = TestRepo::empty();
    repo.write(
        "whitelist.json",
        r#"{"allowed_extensions": [".py", ".md"], "allowed_no_extension": ["Makefile"],
            "forbidden_paths": ["node_modules"], "forbidden_prefixes": [".."]}"#,
    );
    let ok = br#"{"actions": [{"kind": "CREATE_FILE", "path": "app.py", "content": "x\n"}]}"#;
    validate(&repo, ok, &["--allowlist", "whitelist.json"]).ok();
    let bad = br#"{"actions": [{"kind": "CREATE_FILE", "path": "app.rs", "content": "x\n"}]}"#;
    validate(&repo, bad, &["--allowlist", "whitelist.json"]).err("ERR_FORBIDDEN_PATH");
    validate(&repo, bad, &[]).ok();
    repo.write("broken.json", "{\"allowed\": 1}");
    validate(&repo, ok, &["--allowlist", "broken.json"]).err("ERR_ALLOWLIST_INVALID");
}

#[test]
fn eol_normalization_from_the_environment_and_warnings() {
    let repo = TestRepo::empty();
    let answer = br#"{"actions": [{"kind": "CREATE_FILE", "path": "a.txt", "content": "x\r\ny"}],
                      "memory_patch": {"user.favourite_colour": "green"}}"#;
    std::fs::write(repo.path().join("answer.txt"), answer).unwrap();
    let out = |eol: Option<&str>| {
        let mut cmd = hermetic("git", repo.path());
        if let Some(v) = eol {
            cmd.env("PAPAYU_NORMALIZE_EOL", v);
        }
        let out = cmd
            .args(["papayu", "validate", "answer.txt"])
            .stdin(Stdio::null())
            .output()
            .expect("run");
        if out.status.code() != Some(0) {
            return (
                String::new(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            );
        }
        let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let content = plan["actions"][0]["content"].as_str().unwrap().to_string();
        (content, String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (kept, stderr) = out(None);
    assert_eq!(kept, "x\r\ny");
    assert!(
        stderr.contains("warning: memory_patch: dropped 'user.favourite_colour'"),
        "{stderr}"
    );
    assert_eq!(out(Some("lf")).0, "x\ny\n");
    // A value it does not take is refused as every setting's is, naming where it came from.
    let (_, stderr) = out(Some("crlf"));
    assert!(
        stderr.starts_with(
            "ERR_CONFIG_INVALID: PAPAYU_NORMALIZE_EOL is \"crlf\" (env PAPAYU_NORMALIZE_EOL); it must be lf"
        ),
        "{stderr}"
    );
}

#[test]
fn malformed_input_is_rejected_cleanly() {
    let repo = TestRepo::empty();
    rejects(&repo, b"", "ERR_EMPTY_INPUT");
    let run = rejects(
        &repo,
        b"{\n  \"actions\": [\n    {\"kind\": \"CREATE_FILE\", \"path\": \"a\", \"cont",
        "ERR_JSON_PARSE",
    );
    assert!(run.stderr.contains("line 3"), "{}", run.stderr);
    rejects(&repo, b"{\"summary\": \"caf\xe9\"}", "ERR_INPUT_NOT_UTF8");
    let deep = [b"[".repeat(100_000), b"]".repeat(100_000)].concat();
    rejects(&repo, &deep, "ERR_JSON_TOO_DEEP");
    let deep_objects = b"{\"a\":".repeat(100_000);
    rejects(&repo, &deep_objects, "ERR_JSON_TOO_DEEP");
    rejects(&repo, &vec![b'x'; 17 * 1024 * 1024], "ERR_INPUT_TOO_LARGE");
}

#[test]
fn ten_megabytes_of_garbage() {
    let repo = TestRepo::empty();
    let ten_mb = 10 * 1024 * 1024;
    // Random bytes: not UTF-8.
    let bytes: Vec<u8> = noise(ten_mb, &(0..=255).collect::<Vec<u8>>(), 1);
    rejects(&repo, &bytes, "ERR_INPUT_NOT_UTF8");
    // Printable garbage full of brackets and quotes: the worst case for the JSON search.
    for (seed, alphabet) in [
        (2, &b"{}[]\",:\\ ab\n"[..]),
        (3, &b"[[[[[[[[{\"a\" ]"[..]),
        (4, &b"{{{{{{{{{{{{]"[..]),
    ] {
        let garbage = noise(ten_mb, alphabet, seed);
        let started = Instant::now();
        let run = validate(&repo, &garbage, &[]);
        assert_eq!(
            run.status,
            Some(1),
            "{}",
            &run.stderr[..run.stderr.len().min(500)]
        );
        assert!(
            run.stderr.starts_with("ERR_"),
            "{}",
            &run.stderr[..run.stderr.len().min(500)]
        );
        assert!(!run.stderr.contains("panicked"));
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "took {:?}",
            started.elapsed()
        );
    }
}
