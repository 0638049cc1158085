//! Edge cases in the spirit of git's own `git apply` tests (t4100–t4141), written afresh for this
//! engine: missing final newlines, offsets, file boundaries, empty files, CR at end of line,
//! whitespace variants, several hunks, garbage input.

use git_papayu::Code;
use git_papayu::patch::{Options, Verdict, apply, apply_with};

fn applies(original: &str, diff: &str, want: &str) {
    match apply_with(original, diff, &Options::default()) {
        Ok(a) => assert_eq!(a.content, want, "diff:\n{diff}"),
        Err(e) => panic!("expected success for diff:\n{diff}\ngot:\n{e}"),
    }
}

fn refuses(original: &str, diff: &str, code: Code) -> String {
    match apply_with(original, diff, &Options::default()) {
        Ok(a) => panic!(
            "expected {code} for diff:\n{diff}\ngot content:\n{}",
            a.content
        ),
        Err(e) => {
            assert_eq!(e.problem.code, code, "{e}");
            e.to_string()
        }
    }
}

/// A diff made by diffy between two texts (the reference form of a correct diff).
fn made(a: &str, b: &str) -> String {
    diffy::create_patch(a, b).to_string()
}

// ---- no newline at end of file (t4101) ----------------------------------------------------

#[test]
fn nonl_every_transition_between_four_files() {
    let files = ["a\nb\nc\n", "a\nb\nc", "a\nb\nC\n", "a\nb\nC"];
    for from in files {
        for to in files {
            if from != to {
                applies(from, &made(from, to), to);
            }
        }
    }
}

#[test]
fn nonl_marker_on_context_keeps_the_state() {
    let diff = "@@ -1,2 +1,2 @@\n-a\n+A\n b\n\\ No newline at end of file\n";
    applies("a\nb", diff, "A\nb");
}

#[test]
fn nonl_forgotten_marker_keeps_the_file_as_it_is() {
    // The model left out the marker: the file's missing newline survives the change.
    applies("x\ny", "@@ -1,2 +1,2 @@\n x\n-y\n+z\n", "x\nz");
    applies(
        "x\ny\n",
        "@@ -1,2 +1,2 @@\n x\n-y\n\\ No newline at end of file\n+z\n\\ No newline at end of file\n",
        "x\nz\n",
    );
}

// ---- offsets and fuzz (t4105, t4110, t4127) -----------------------------------------------

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

#[test]
fn offset_in_both_directions() {
    let file = numbered(40);
    let want = file.replace("line 20\n", "line twenty\n");
    let body = " line 18\n line 19\n-line 20\n+line twenty\n line 21\n line 22\n";
    for start in [1, 10, 18, 30, 400] {
        applies(
            &file,
            &format!("@@ -{start},5 +{start},5 @@\n{body}"),
            &want,
        );
    }
}

#[test]
fn same_function_twice_is_told_apart_by_the_line_number() {
    let block = "fn same() {\n    work();\n}\n";
    let file = format!("{block}\n// middle\n// more\n// and more\n// and still more\n\n{block}");
    let want_second = format!(
        "{block}\n// middle\n// more\n// and more\n// and still more\n\n{}",
        block.replace("work()", "rest()")
    );
    let diff = "@@ -10,3 +10,3 @@\n fn same() {\n-    work();\n+    rest();\n }\n";
    applies(&file, diff, &want_second);
    let bare = "@@\n fn same() {\n-    work();\n+    rest();\n }\n";
    let report = refuses(&file, bare, Code::PatchApplyFailed);
    assert!(report.contains("matches at lines 1, 10"), "{report}");
}

#[test]
fn later_hunks_scan_forward_from_the_previous_one() {
    let file = "x\nsame\nx\nsame\nx\n";
    let diff = "@@ -1,2 +1,2 @@\n x\n-same\n+one\n@@ -3,2 +3,2 @@\n x\n-same\n+two\n";
    applies(file, diff, "x\none\nx\ntwo\nx\n");
}

#[test]
fn overlapping_hunks_are_refused() {
    let file = numbered(10);
    let diff = "@@ -2,3 +2,3 @@\n line 2\n-line 3\n+three\n line 4\n@@ -3,3 +3,3 @@\n line 3\n-line 4\n+four\n line 5\n";
    let report = refuses(&file, diff, Code::PatchApplyFailed);
    assert!(report.contains("hunk 2 of 2"), "{report}");
}

// ---- boundaries (t4104, t4113) -------------------------------------------------------------

#[test]
fn add_and_remove_at_start_and_end() {
    let file = numbered(8);
    let cases = [
        (file.clone(), format!("first\n{file}")),
        (file.clone(), format!("{file}last\n")),
        (file.clone(), file.replacen("line 1\n", "", 1)),
        (file.clone(), file.replace("line 8\n", "")),
    ];
    for (a, b) in cases {
        applies(&a, &made(&a, &b), &b);
    }
}

#[test]
fn one_sided_context_at_the_boundaries() {
    let file = numbered(8);
    applies(
        &file,
        "@@ -1,2 +1,3 @@\n+zero\n line 1\n line 2\n",
        &format!("zero\n{file}"),
    );
    applies(
        &file,
        "@@ -7,2 +7,3 @@\n line 7\n line 8\n+nine\n",
        &format!("{file}nine\n"),
    );
}

#[test]
fn end_of_file_anchor_in_the_envelope() {
    let file = "a\nb\na\nb\n";
    let diff =
        "*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+B\n*** End of File\n*** End Patch\n";
    applies(file, diff, "a\nb\na\nB\n");
}

// ---- empty files (t4126, t4132) ------------------------------------------------------------

#[test]
fn content_into_an_empty_file() {
    applies(
        "",
        "--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n+a\n+b\n",
        "a\nb\n",
    );
    applies("", "@@ -0,0 +1 @@\n+a\n\\ No newline at end of file\n", "a");
}

#[test]
fn emptying_a_file_is_not_deleting_it() {
    // A diff whose new side is /dev/null deletes the file: refused, never an empty file instead.
    let report = refuses(
        "a\nb\n",
        "--- a/f\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n",
        Code::PatchDevNull,
    );
    assert!(report.contains("deletes f"), "{report}");
    applies("a\nb", &made("a\nb", ""), "");
}

#[test]
fn creation_diff_against_a_file_with_content_is_refused() {
    let report = refuses(
        "x\n",
        "--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+a\n",
        Code::PatchDevNull,
    );
    assert!(report.contains("creates f"), "{report}");
    let report = refuses("x\n", "@@ -0,0 +1 @@\n+a\n", Code::PatchApplyFailed);
    assert!(report.contains("only added lines"), "{report}");
}

// ---- CR at end of line (t4124 cr-at-eol, t4125) -------------------------------------------

#[test]
fn crlf_file_with_crlf_diff_is_exact() {
    let file = "a\r\nb\r\nc\r\n";
    let want = "a\r\nB\r\nc\r\n";
    let a = apply(file, &made(file, want)).unwrap();
    assert_eq!(a.content, want);
    assert_eq!(a.hunks[0].strategy, "exact");
}

#[test]
fn crlf_file_with_lf_diff_keeps_crlf() {
    let a = apply("a\r\nb\r\nc\r\n", "@@ -1,3 +1,4 @@\n a\n-b\n+B\n+B2\n c\n").unwrap();
    assert_eq!(a.content, "a\r\nB\r\nB2\r\nc\r\n");
    assert_eq!(a.hunks[0].strategy, "eol");
}

#[test]
fn lf_file_with_crlf_transported_diff_keeps_lf() {
    let diff = "@@ -1,3 +1,3 @@\r\n a\r\n-b\r\n+B\r\n c\r\n";
    applies("a\nb\nc\n", diff, "a\nB\nc\n");
}

// ---- whitespace variants (t4107, t4124, t4125, t4138) --------------------------------------

#[test]
fn whitespace_in_context_is_forgiven_but_added_lines_are_kept_verbatim() {
    let file = "fn f() {\n\tlet x = 1;\n\tlet y = 2;\n}\n";
    let want = "fn f() {\n\tlet x = 1;\n\tlet z = 3;\n\tlet y = 2;\n}\n";
    // Tabs expanded in context, trailing blanks added.
    applies(
        file,
        "@@\n fn f() {  \n     let x = 1;\n+\tlet z = 3;\n     let y = 2;\n",
        want,
    );
}

#[test]
fn empty_context_lines_that_lost_their_space() {
    let file = "a\n\nb\n\nc\n";
    applies(
        file,
        "@@ -1,5 +1,5 @@\n a\n\n-b\n+B\n\n c\n",
        "a\n\nB\n\nc\n",
    );
}

#[test]
fn blank_removed_line_must_exist() {
    let file = "a\nb\nc\n";
    refuses(file, "@@\n a\n-\n b\n", Code::PatchApplyFailed);
}

// ---- several hunks (t4109) -----------------------------------------------------------------

#[test]
fn multi_fragment_diff() {
    let a = numbered(60);
    let b = a
        .replace("line 5\n", "five\n")
        .replace("line 30\n", "")
        .replace("line 55\n", "line 55\nextra\n");
    let diff = made(&a, &b);
    assert_eq!(diff.matches("\n@@").count(), 3, "{diff}");
    applies(&a, &diff, &b);
}

// ---- garbage (t4100, t4136) ----------------------------------------------------------------

#[test]
fn garbage_is_not_a_patch() {
    for garbage in [
        "",
        "\n\n",
        "just some words\n",
        "--- a/x\n+++ b/x\n",
        "@@ -1 +1 @@\n",
    ] {
        refuses("a\n", garbage, Code::PatchNotUnified);
    }
}

#[test]
fn binary_patch_is_refused() {
    refuses(
        "a\n",
        "diff --git a/x b/x\nBinary files a/x and b/x differ\n",
        Code::PatchNotUnified,
    );
}

#[test]
fn a_line_without_marker_inside_a_hunk_is_refused() {
    let report = refuses(
        "a\nb\n",
        "@@ -1,2 +1,3 @@\n a\nnew line\n b\n",
        Code::PatchNotUnified,
    );
    assert!(report.contains("marker"), "{report}");
}

#[test]
fn different_file_is_refused() {
    let report = refuses(
        &numbered(20),
        "@@ -3,3 +3,3 @@\n fn a() {\n-    x\n+    y\n }\n",
        Code::PatchApplyFailed,
    );
    assert!(report.contains("tried: exact"), "{report}");
}

// ---- large input (t4141) -------------------------------------------------------------------

#[test]
fn large_file_with_many_hunks() {
    let a = numbered(20_000);
    let b: String = a
        .lines()
        .enumerate()
        .map(|(i, l)| match i % 100 {
            50 => format!("{l} changed\n"),
            _ => format!("{l}\n"),
        })
        .collect();
    let diff = made(&a, &b);
    let applied = apply(&a, &diff).unwrap();
    assert_eq!(applied.content, b);
    assert_eq!(applied.hunks.len(), 200);
}

#[test]
fn ambiguous_verdict_lists_every_position() {
    let file = "k\nv\nk\nv\nk\nv\n";
    let e = apply_with(file, "@@\n k\n-v\n+w\n", &Options::default()).unwrap_err();
    let verdict = &e.report.unwrap().failures[0].verdict;
    assert_eq!(
        verdict,
        &Verdict::Ambiguous {
            strategy: "exact".into(),
            lines: vec![1, 3, 5]
        }
    );
}
