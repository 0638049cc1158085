//! `git papayu patch` through the real binary: output, --in-place, refusals, exit codes.

use crate::common;

use std::fs;
use std::path::Path;

use common::run_in;

const FILE: &str = "one\ntwo\nthree\nfour\n";
const DIFF: &str = "--- a/f.txt\n+++ b/f.txt\n@@ -2,2 +2,2 @@\n two\n-three\n+THREE\n";

fn scratch(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("papayu-patch-cli")
        .tempdir()
        .expect("tempdir");
    for (name, content) in files {
        fs::write(dir.path().join(name), content).expect("write");
    }
    dir
}

fn read(dir: &Path, name: &str) -> Vec<u8> {
    fs::read(dir.join(name)).expect("read")
}

#[test]
fn prints_the_patched_file_outside_a_repository() {
    let dir = scratch(&[("f.txt", FILE), ("p.diff", DIFF)]);
    let run = run_in(
        dir.path(),
        "git",
        ["papayu", "patch", "f.txt", "p.diff"],
        None,
    )
    .ok();
    assert_eq!(run.stdout, FILE.replace("three", "THREE"));
    assert!(
        run.stderr.contains("1 hunk(s) applied (exact)"),
        "{}",
        run.stderr
    );
    assert_eq!(
        read(dir.path(), "f.txt"),
        FILE.as_bytes(),
        "file untouched without --in-place"
    );
}

#[test]
fn the_file_named_on_the_command_line_wins_over_the_diff_header() {
    // `patch ../scratch/cli.py fix.diff` where the diff says src/flask/cli.py.
    let other = DIFF.replace("f.txt", "src/flask/cli.py");
    let dir = scratch(&[("f.txt", FILE), ("p.diff", &other)]);
    let run = run_in(
        dir.path(),
        "git",
        ["papayu", "patch", "f.txt", "p.diff"],
        None,
    )
    .ok();
    assert_eq!(run.stdout, FILE.replace("three", "THREE"));
    assert!(
        run.stderr.contains("src/flask/cli.py") && run.stderr.contains("f.txt"),
        "the mismatch is noted: {}",
        run.stderr
    );
    let run = run_in(
        dir.path(),
        "git",
        [
            "papayu",
            "patch",
            "--path",
            "src/flask/cli.py",
            "f.txt",
            "p.diff",
        ],
        None,
    )
    .ok();
    assert!(!run.stderr.contains("note:"), "{}", run.stderr);
    run_in(
        dir.path(),
        "git",
        ["papayu", "patch", "--in-place", "f.txt", "p.diff"],
        None,
    )
    .ok();
    assert_eq!(
        read(dir.path(), "f.txt"),
        FILE.replace("three", "THREE").as_bytes()
    );
}

#[test]
fn a_plan_still_refuses_a_diff_for_another_file() {
    // The loose rule is for a file the user named; a plan's PATCH_FILE keeps the strict one.
    let repo = common::TestRepo::with_files(&[("f.txt", FILE)]);
    let before = repo.snapshot();
    let answer = serde_json::json!({
        "summary": "change f",
        "actions": [{"kind": "PATCH_FILE", "path": "f.txt", "patch": DIFF.replace("f.txt", "g.txt"),
                     "base_sha256": sha256(FILE)}]
    })
    .to_string();
    fs::write(repo.path().join("answer.json"), &answer).unwrap();
    repo.papayu(["plan", "change f", "--response", "answer.json"])
        .err("ERR_PATCH_PATH_MISMATCH");
    fs::remove_file(repo.path().join("answer.json")).unwrap();
    assert_eq!(repo.snapshot(), before);
}

fn sha256(text: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn patched_output_through_a_pipe_is_byte_exact() {
    // CRLF, tabs, a form feed, non-ASCII and an ESC all reach `> out` as they are.
    let original =
        "first\r\n\tindented\r\n\x0cpage\r\nna\u{ef}ve \u{2713}\r\n\x1b[1mbold\r\nlast\r\n";
    let diff = "--- a/w.txt\n+++ b/w.txt\n@@ -3,2 +3,2 @@\n \x0cpage\n-na\u{ef}ve \u{2713}\n+NA\u{cf}VE \u{2713}\n";
    let expected = original.replace("na\u{ef}ve", "NA\u{cf}VE");
    let dir = scratch(&[("w.txt", original), ("p.diff", diff)]);
    let run = run_in(
        dir.path(),
        "git",
        ["papayu", "patch", "w.txt", "p.diff"],
        None,
    )
    .ok();
    assert_eq!(run.stdout.as_bytes(), expected.as_bytes());
    run_in(
        dir.path(),
        "git",
        ["papayu", "patch", "--in-place", "w.txt", "p.diff"],
        None,
    )
    .ok();
    assert_eq!(read(dir.path(), "w.txt"), expected.as_bytes());
}

#[test]
fn reads_the_diff_from_stdin_and_reports_verbosely() {
    let dir = scratch(&[("f.txt", FILE)]);
    let diff = "```diff\n@@ -40 +40 @@\n  two  \n-three\n+3\n```\n";
    let run = run_in(
        dir.path(),
        "git",
        ["papayu", "patch", "-v", "f.txt", "-"],
        Some(diff.as_bytes()),
    )
    .ok();
    assert_eq!(run.stdout, FILE.replace("three", "3"));
    assert!(
        run.stderr.contains("hunk 1: trim at line 2 (offset -38)"),
        "{}",
        run.stderr
    );
}

#[cfg(unix)]
#[test]
fn in_place_rewrites_and_keeps_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch(&[("f.sh", FILE), ("p.diff", &DIFF.replace("f.txt", "f.sh"))]);
    let script = dir.path().join("f.sh");
    fs::set_permissions(&script, fs::Permissions::from_mode(0o751)).unwrap();
    let run = run_in(
        dir.path(),
        "git",
        ["papayu", "patch", "--in-place", "--json", "f.sh", "p.diff"],
        None,
    )
    .ok();
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).expect("json on stdout");
    assert_eq!(doc["hunks"][0]["strategy"], "exact");
    assert_eq!(doc["hunks"][0]["line"], 2);
    assert_eq!(doc["content"], serde_json::Value::Null);
    assert_eq!(
        read(dir.path(), "f.sh"),
        FILE.replace("three", "THREE").as_bytes()
    );
    let mode = fs::metadata(&script).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o751);
    let leftovers: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".papayu"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left behind");
}

#[test]
fn failure_leaves_the_file_byte_identical() {
    let crlf = FILE.replace('\n', "\r\n");
    let bad = "@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n@@ -3,2 +3,2 @@\n three\n-for\n+4\n";
    let dir = scratch(&[("f.txt", &crlf), ("p.diff", bad)]);
    let run = run_in(
        dir.path(),
        "git",
        ["papayu", "patch", "--in-place", "f.txt", "p.diff"],
        None,
    )
    .err("ERR_PATCH_APPLY_FAILED");
    assert!(run.stderr.contains("hunk 2 of 2"), "{}", run.stderr);
    assert!(
        run.stderr.contains("line 4 expected: \"for\""),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("line 4 found:    \"four\""),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty());
    assert_eq!(read(dir.path(), "f.txt"), crlf.as_bytes());
}

#[test]
fn failure_report_as_json() {
    let dir = scratch(&[("f.txt", "k\nv\nk\nv\n"), ("p.diff", "@@\n k\n-v\n+w\n")]);
    let run = run_in(
        dir.path(),
        "git",
        ["papayu", "patch", "--json", "f.txt", "p.diff"],
        None,
    )
    .json_err("ERR_PATCH_APPLY_FAILED");
    let report = &run["report"];
    assert_eq!(report["failures"][0]["verdict"]["kind"], "ambiguous");
    assert_eq!(
        report["failures"][0]["verdict"]["lines"],
        serde_json::json!([1, 3])
    );
}

#[test]
fn garbage_diff_and_missing_file_exit_1() {
    let dir = scratch(&[("f.txt", FILE), ("p.diff", "not a diff\n")]);
    run_in(
        dir.path(),
        "git",
        ["papayu", "patch", "f.txt", "p.diff"],
        None,
    )
    .err("ERR_PATCH_NOT_UNIFIED");
    run_in(
        dir.path(),
        "git",
        ["papayu", "patch", "nope.txt", "p.diff"],
        None,
    )
    .err("ERR_INPUT_UNREADABLE");
}

#[test]
fn a_multi_file_diff_is_refused_unless_a_part_is_picked() {
    let diff = "--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-x\n+X\n--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-one\n+ONE\n";
    let dir = scratch(&[("f.txt", FILE), ("p.diff", diff)]);
    let run = run_in(
        dir.path(),
        "git",
        ["papayu", "patch", "f.txt", "p.diff"],
        None,
    )
    .err("ERR_PATCH_MULTI_FILE");
    assert!(run.stderr.contains("x.txt, f.txt"), "{}", run.stderr);
    let run = run_in(
        dir.path(),
        "git",
        ["papayu", "patch", "--path", "f.txt", "f.txt", "p.diff"],
        None,
    )
    .ok();
    assert_eq!(run.stdout, FILE.replace("one", "ONE"));
    run_in(
        dir.path(),
        "git",
        ["papayu", "patch", "--path", "y.txt", "f.txt", "p.diff"],
        None,
    )
    .err("ERR_PATCH_MULTI_FILE");
}

#[test]
fn usage_errors_exit_2() {
    let dir = scratch(&[]);
    run_in(dir.path(), "git", ["papayu", "patch"], None).code(2);
    run_in(
        dir.path(),
        "git",
        ["papayu", "patch", "a", "b", "--bogus"],
        None,
    )
    .code(2);
}

/// A model wrote every hunk 4 spaces shallower than the file; one hunk also shows a blank
/// context line the file lacks (so only the blank-line pass places it), and whitespace-only
/// lines trail the last hunk past its counts. Every added line must land at the file's depth.
#[test]
fn hunks_written_shallower_than_the_file_keep_their_meaning() {
    let file = "def classify(n):\n    if n < 0:\n        return \"negative\"\n    elif n == 0:\n        return \"zero\"\n    else:\n        return \"positive\"\n\n\ndef describe(items):\n    out = []\n    for item in items:\n        if item is None:\n            continue\n        out.append(str(item))\n    return out\n";
    let diff = "--- a/m.py\n+++ b/m.py\n@@ -2,4 +2,6 @@\n if n < 0:\n\n     return \"negative\"\n+elif n is None:\n+    return \"none\"\n elif n == 0:\n     return \"zero\"\n@@ -12,4 +14,6 @@\n for item in items:\n     if item is None:\n         continue\n+    elif item == \"\":\n+        continue\n     out.append(str(item))\n    \n  \n";
    let dir = scratch(&[("m.py", file), ("p.diff", diff)]);
    let run = run_in(
        dir.path(),
        "git",
        ["papayu", "patch", "m.py", "p.diff"],
        None,
    )
    .ok();
    let expected = file
        .replace(
            "        return \"negative\"\n",
            "        return \"negative\"\n    elif n is None:\n        return \"none\"\n",
        )
        .replace(
            "            continue\n",
            "            continue\n        elif item == \"\":\n            continue\n",
        );
    assert_eq!(run.stdout, expected, "{}", run.stderr);
}

/// When a hunk's lines disagree about how much shallower they are, the depth of its added
/// lines is unknown: refused, the file untouched.
#[test]
fn a_hunk_indented_unevenly_against_the_file_is_refused() {
    let file = "def f(x):\n    if x:\n        a = 1\n        b = 2\n        c = 3\n    return x\n";
    let diff = "--- a/m.py\n+++ b/m.py\n@@ -2,4 +2,5 @@\n if x:\n\n         a = 1\n     b = 2\n+    d = 4\n c = 3\n";
    let dir = scratch(&[("m.py", file), ("p.diff", diff)]);
    let run = run_in(
        dir.path(),
        "git",
        ["papayu", "patch", "m.py", "p.diff"],
        None,
    )
    .err("ERR_PATCH_APPLY_FAILED");
    assert!(
        run.stderr.contains("depth of its added lines is unknown"),
        "{}",
        run.stderr
    );
    assert_eq!(read(dir.path(), "m.py"), file.as_bytes());
}
