//! Engine-level tests: the ladder's rungs, the refusals, and properties over generated diffs.

use proptest::prelude::{
    Just, ProptestConfig, Strategy as Gen, TestCaseError, prop, prop_assert, prop_assert_eq,
    prop_assume, prop_oneof, proptest,
};

use super::*;
use papayu_core::codes::Code;

fn ok(original: &str, diff: &str) -> Applied {
    match apply_with(original, diff, &Options::default()) {
        Ok(a) => a,
        Err(e) => panic!("expected success, got:\n{e}"),
    }
}

fn err(original: &str, diff: &str) -> PatchError {
    match apply_with(original, diff, &Options::default()) {
        Ok(a) => panic!("expected a refusal, got:\n{}", a.content),
        Err(e) => e,
    }
}

fn strategies(a: &Applied) -> Vec<&str> {
    a.hunks.iter().map(|h| h.strategy.as_str()).collect()
}

const FILE: &str =
    "fn alpha() {\n    let a = 1;\n    let b = 2;\n    a + b\n}\n\nfn beta() {\n    \"beta\"\n}\n";

#[test]
fn exact_with_and_without_headers() {
    let want = FILE.replace("let b = 2;", "let b = 3;");
    let diff = "--- a/x.rs\n+++ b/x.rs\n@@ -1,4 +1,4 @@\n fn alpha() {\n     let a = 1;\n-    let b = 2;\n+    let b = 3;\n     a + b\n";
    let a = ok(FILE, diff);
    assert_eq!(a.content, want);
    assert_eq!(strategies(&a), ["exact"]);
    let bare = "@@\n     let a = 1;\n-    let b = 2;\n+    let b = 3;\n";
    assert_eq!(ok(FILE, bare).content, want);
}

#[test]
fn wrong_numbers_and_counts_are_recounted() {
    let diff = "@@ -40,9 +41,1 @@\n     let a = 1;\n-    let b = 2;\n+    let b = 3;\n";
    let a = ok(FILE, diff);
    assert_eq!(a.hunks[0].line, 2);
    assert_eq!(a.hunks[0].offset, -38);
}

#[test]
fn crlf_file_stays_crlf() {
    let crlf = FILE.replace('\n', "\r\n");
    let diff = "@@ -7,3 +7,3 @@\n fn beta() {\n-    \"beta\"\n+    \"BETA\"\n }\n";
    let a = ok(&crlf, diff);
    assert_eq!(a.content, crlf.replace("\"beta\"", "\"BETA\""));
    assert_eq!(strategies(&a), ["eol"]);
}

#[test]
fn whitespace_rungs() {
    let trailing = "@@\n     let a = 1;   \n-    let b = 2;\n+    let b = 3;\n     a + b\t\n";
    assert_eq!(strategies(&ok(FILE, trailing)), ["trim_end"]);
    let tabs = "@@\n \tlet a = 1;\n-    let b = 2;\n+    let b = 3;\n \ta + b\n";
    let a = ok(FILE, tabs);
    assert_eq!(strategies(&a), ["trim"]);
    assert_eq!(a.content, FILE.replace("let b = 2;", "let b = 3;"));
}

#[test]
fn uniform_indent_shift_reindents_added_lines() {
    let diff = "@@\n let a = 1;\n-let b = 2;\n+let b = 3;\n+let c = 4;\n a + b\n";
    let a = ok(FILE, diff);
    assert_eq!(strategies(&a), ["indent"]);
    assert_eq!(
        a.content,
        FILE.replace("let b = 2;", "let b = 3;\n    let c = 4;")
    );
}

#[test]
fn unicode_punctuation_in_context() {
    let diff = "@@\n fn beta() {\n-    \u{201C}beta\u{201D}\n+    \"gamma\"\n }\n";
    let a = ok(FILE, diff);
    assert_eq!(strategies(&a), ["punct"]);
    assert_eq!(a.content, FILE.replace("\"beta\"", "\"gamma\""));
}

#[test]
fn blank_lines_dropped_from_context() {
    let diff = "@@\n     a + b\n }\n fn beta() {\n-    \"beta\"\n+    \"b\"\n";
    let a = ok(FILE, diff);
    assert_eq!(strategies(&a), ["blank"]);
    assert_eq!(a.content, FILE.replace("\"beta\"", "\"b\""));
}

#[test]
fn insertion_next_to_disputed_blank_lines_is_refused() {
    let diff = "@@\n }\n+// between\n fn beta() {\n";
    let e = err(FILE, diff);
    assert!(e.to_string().contains("ambiguous"), "{e}");
}

#[test]
fn reduced_context_drops_a_wrong_outer_line() {
    let diff = "@@\n fn alpha() { // wrong\n     let a = 1;\n-    let b = 2;\n+    let b = 3;\n     a + b\n";
    let a = ok(FILE, diff);
    assert_eq!(strategies(&a), ["context-1"]);
    assert_eq!(a.content, FILE.replace("let b = 2;", "let b = 3;"));
}

#[test]
fn minus_lines_are_never_relaxed() {
    let diff =
        "@@\n fn alpha() {\n     let a = 1;\n-    let b = 22;\n+    let b = 3;\n     a + b\n }\n";
    let e = err(FILE, diff);
    assert_eq!(e.problem.code, Code::PatchApplyFailed);
    let text = e.to_string();
    assert!(
        text.contains("line 3 expected: \"    let b = 22;\""),
        "{text}"
    );
    assert!(
        text.contains("line 3 found:    \"    let b = 2;\""),
        "{text}"
    );
    assert!(text.contains("context-"), "{text}");
}

#[test]
fn ambiguous_context_without_hint_is_refused() {
    let twice = "x\nsame\nthing\ny\nsame\nthing\nz\n";
    let diff = "@@\n same\n-thing\n+other\n";
    let e = err(twice, diff);
    let report = e.report.as_ref().unwrap();
    assert_eq!(
        report.failures[0].verdict,
        Verdict::Ambiguous {
            strategy: "exact".into(),
            lines: vec![2, 5]
        }
    );
    // A clear hint decides.
    let hinted = "@@ -5,2 +5,2 @@\n same\n-thing\n+other\n";
    assert_eq!(
        ok(twice, hinted).content,
        "x\nsame\nthing\ny\nsame\nother\nz\n"
    );
    // A hint halfway between does not.
    let middle = "@@ -3,2 +3,2 @@\n same\n-thing\n+other\n";
    assert!(apply(twice, middle).is_err());
}

#[test]
fn ambiguity_at_a_strict_rung_is_not_relaxed_away() {
    // Exact finds two places; a looser rung would find other places too: still a refusal.
    let file = "k\n  v\nk\n  v\n";
    let e = err(file, "@@\n k\n-  v\n+  w\n");
    assert!(e.problem.reason.contains("ambiguous"), "{}", e.problem);
}

#[test]
fn trivial_context_is_not_placed_by_relaxed_rungs() {
    let file = "a\n}\n\nb\n";
    let e = err(file, "@@\n }  \n+x\n \n");
    let text = e.to_string();
    assert!(text.contains("skipped"), "{text}");
}

#[test]
fn pure_addition_only_into_an_empty_file() {
    let diff = "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n";
    assert_eq!(ok("", diff).content, "one\ntwo\n");
    let e = err("something\n", diff);
    assert!(
        e.problem.reason.contains("creates new.txt"),
        "{}",
        e.problem
    );
    let bare = "@@ -0,0 +1,2 @@\n+one\n+two\n";
    let e = err("something\n", bare);
    assert!(
        e.problem.reason.contains("only added lines"),
        "{}",
        e.problem
    );
}

#[test]
fn already_applied_is_reported_not_silently_accepted() {
    let done = FILE.replace("let b = 2;", "let b = 3;");
    let diff = "@@ -2,3 +2,3 @@\n     let a = 1;\n-    let b = 2;\n+    let b = 3;\n     a + b\n";
    let e = err(&done, diff);
    assert!(
        e.problem.reason.contains("already applied?"),
        "{}",
        e.problem
    );
    assert_eq!(e.report.unwrap().failures[0].already_applied, vec![2]);
}

#[test]
fn failed_multi_hunk_patch_changes_nothing() {
    let diff = "@@ -1,2 +1,2 @@\n fn alpha() {\n-    let a = 1;\n+    let a = 10;\n@@ -7,2 +7,2 @@\n fn beta() {\n-    \"nope\"\n+    \"x\"\n";
    let e = err(FILE, diff);
    let report = e.report.unwrap();
    assert_eq!(report.hunks, 2);
    assert_eq!(report.failures.len(), 1);
    assert_eq!(report.failures[0].hunk, 2);
    assert!(report.to_string().contains("nothing was applied"));
}

#[test]
fn hunks_apply_in_order_with_running_offset() {
    // Line L reads "line {L % 20}": every pair of lines occurs three times.
    let file: String = (1..=60).map(|i| format!("line {}\n", i % 20)).collect();
    let diff = "@@ -4,2 +4,2 @@\n line 4\n-line 5\n+LINE 5\n@@ -25,2 +25,2 @@\n line 5\n-line 6\n+LINE 6\n";
    let a = ok(&file, diff);
    assert_eq!((a.hunks[0].line, a.hunks[1].line), (4, 25));
    // Three lines inserted above: the first hunk's hint is still clearly nearest, and the
    // second inherits its offset.
    let a = ok(&format!("a\nb\nc\n{file}"), diff);
    assert_eq!((a.hunks[0].line, a.hunks[0].offset), (7, 3));
    assert_eq!((a.hunks[1].line, a.hunks[1].offset), (28, 3));
    let bare = diff
        .replace("@@ -4,2 +4,2 @@", "@@")
        .replace("@@ -25,2 +25,2 @@", "@@");
    let e = apply(&file, &bare).unwrap_err();
    assert!(e.reason.contains("ambiguous"), "{}", e.reason);
}

#[test]
fn hunks_listed_out_of_order_are_each_placed_by_their_own_match() {
    let want = FILE
        .replace("let a = 1;", "let a = 10;")
        .replace("\"beta\"", "\"BETA\"");
    let beta = "@@ -7,3 +7,3 @@\n fn beta() {\n-    \"beta\"\n+    \"BETA\"\n }\n";
    let alpha =
        "@@ -1,3 +1,3 @@\n fn alpha() {\n-    let a = 1;\n+    let a = 10;\n     let b = 2;\n";
    let in_order = ok(FILE, &format!("{alpha}{beta}"));
    let reversed = ok(FILE, &format!("{beta}{alpha}"));
    assert_eq!(in_order.content, want);
    assert_eq!(reversed.content, want);
    // Reported in the diff's order, each at its own line.
    assert_eq!((reversed.hunks[0].hunk, reversed.hunks[0].line), (1, 7));
    assert_eq!((reversed.hunks[1].hunk, reversed.hunks[1].line), (2, 1));
    // Without line numbers too.
    let bare = format!("{beta}{alpha}")
        .replace("@@ -7,3 +7,3 @@", "@@")
        .replace("@@ -1,3 +1,3 @@", "@@");
    assert_eq!(ok(FILE, &bare).content, want);
}

#[test]
fn a_later_match_never_wins_over_the_only_whole_file_match() {
    // Hunk 2's context occurs once, above hunk 1: placed there, not refused or moved.
    let file = "one\ntwo\nthree\nfour\nfive\nsix\n";
    let diff = "@@ -5,2 +5,2 @@\n five\n-six\n+SIX\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n";
    assert_eq!(ok(file, diff).content, "one\nTWO\nthree\nfour\nfive\nSIX\n");
}

#[test]
fn overlapping_hunks_are_refused() {
    let twice = "@@ -2,2 +2,2 @@\n     let a = 1;\n-    let b = 2;\n+    let b = 3;\n@@ -2,2 +2,2 @@\n     let a = 1;\n-    let b = 2;\n+    let b = 4;\n";
    let e = err(FILE, twice);
    assert!(
        e.problem.reason.contains("overlaps hunk 1"),
        "{}",
        e.problem
    );
    let report = e.report.unwrap();
    assert!(matches!(
        report.failures[0].verdict,
        Verdict::Overlaps { hunk: 1, .. }
    ));
    // Sharing a line of context is an overlap as well.
    let shared = "@@ -1,2 +1,2 @@\n fn alpha() {\n-    let a = 1;\n+    let a = 9;\n@@ -2,2 +2,2 @@\n     let a = 1;\n-    let b = 2;\n+    let b = 9;\n";
    let e = err(FILE, shared);
    assert!(e.problem.reason.contains("overlaps"), "{}", e.problem);
}

#[test]
fn a_partly_applied_patch_is_refused_as_already_applied() {
    let half = FILE.replace("let a = 1;", "let a = 10;");
    let diff = "@@ -1,3 +1,3 @@\n fn alpha() {\n-    let a = 1;\n+    let a = 10;\n     let b = 2;\n@@ -7,3 +7,3 @@\n fn beta() {\n-    \"beta\"\n+    \"BETA\"\n }\n";
    let e = err(&half, diff);
    assert!(
        e.problem.reason.contains("already applied"),
        "{}",
        e.problem
    );
    assert_eq!(e.report.unwrap().failures[0].hunk, 1);
    // Lines added after the last context line (or before the first) leave the old side whole:
    // it still matches exactly, and applying again would duplicate them.
    for diff in [
        "@@ -3,2 +3,3 @@\n     a + b\n }\n+// end of alpha\n",
        "@@ -1,2 +1,3 @@\n+// alpha\n fn alpha() {\n     let a = 1;\n",
    ] {
        let once = ok(FILE, diff).content;
        let e = err(&once, diff);
        assert!(
            e.problem.reason.contains("already applied"),
            "{}",
            e.problem
        );
    }
    // Adding a line between two others that are already apart in the file is not "applied".
    let diff = "@@ -8,2 +8,3 @@\n     \"beta\"\n+    // end\n }\n";
    assert!(ok(FILE, diff).content.contains("\"beta\"\n    // end\n}"));
}

#[test]
fn multi_file_diff_needs_a_path() {
    let diff = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-c\n+d\n";
    let e = apply("a\n", diff).unwrap_err();
    assert!(e.reason.contains("2 files"), "{}", e.reason);
    let opts = Options {
        pick: Some("y".into()),
        ..Options::default()
    };
    assert_eq!(apply_with("c\n", diff, &opts).unwrap().content, "d\n");
}

#[test]
fn codex_envelope_applies() {
    let diff = "*** Begin Patch\n*** Update File: x.rs\n@@ fn beta() {\n-    \"beta\"\n+    \"B\"\n }\n*** End of File\n*** End Patch\n";
    assert_eq!(ok(FILE, diff).content, FILE.replace("\"beta\"", "\"B\""));
}

#[test]
fn no_newline_markers_add_and_remove_the_final_newline() {
    let add = "@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+x\n";
    assert_eq!(ok("x", add).content, "x\n");
    let remove = "@@ -1 +1 @@\n-x\n+x\n\\ No newline at end of file\n";
    assert_eq!(ok("x\n", remove).content, "x");
    // Without markers the file keeps its state.
    assert_eq!(ok("a\nx", "@@\n a\n-x\n+y\n").content, "a\ny");
}

#[test]
fn report_serializes() {
    let e = err(FILE, "@@\n nothing like it\n-at all\n+x\n");
    let json = serde_json::to_value(e.report.unwrap()).unwrap();
    assert_eq!(json["failures"][0]["verdict"]["kind"], "not_found");
    let a = ok(FILE, "@@\n fn beta() {\n-    \"beta\"\n+    \"b\"\n");
    let json = serde_json::to_value(&a.hunks).unwrap();
    assert_eq!(json[0]["strategy"], "exact");
}

// ---- properties -------------------------------------------------------------------------

/// Lines from a small vocabulary, so generated files have repeats and near-repeats.
fn file_lines() -> impl Gen<Value = Vec<String>> {
    let line = prop_oneof![
        4 => "[a-h]{1,3}( [a-h]{1,6}){0,3};".prop_map(|s| format!("    {s}")),
        2 => "(fn|let|if|for) [a-z]{2,8}".prop_map(|s| s),
        1 => Just(String::new()),
        1 => Just("}".to_string()),
    ];
    prop::collection::vec(line, 1..60)
}

fn edit_lines(base: &[String], edits: &[(usize, u8, String)]) -> Vec<String> {
    let mut out = base.to_vec();
    for (at, op, text) in edits {
        if out.is_empty() {
            out.push(text.clone());
            continue;
        }
        let i = at % out.len();
        match op % 3 {
            0 => out.insert(i, text.clone()),
            1 => {
                out.remove(i);
            }
            _ => out[i] = text.clone(),
        }
    }
    out
}

fn join(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn edits() -> impl Gen<Value = Vec<(usize, u8, String)>> {
    prop::collection::vec((0usize..100, 0u8..3, "[i-z]{1,5} = [0-9]{1,3};"), 1..6)
}

/// Applies the diff if it is valid; a refusal is allowed only for ambiguity (never a wrong
/// result).
fn check_applies_or_refuses(
    a: &str,
    b: &str,
    diff: &str,
    must_apply: bool,
) -> Result<(), TestCaseError> {
    match apply_with(a, diff, &Options::default()) {
        Ok(applied) => prop_assert_eq!(applied.content, b),
        Err(e) => {
            prop_assert!(!must_apply, "refused a clean diff:\n{}\n{}", diff, e);
            let text = e.to_string();
            prop_assert!(
                text.contains("ambiguous") || text.contains("old side is blank or trivial"),
                "refusal for another reason than ambiguity:\n{}\n{}",
                diff,
                e
            );
        }
    }
    Ok(())
}

fn renumber(diff: &str, shift: usize) -> String {
    diff.lines()
        .map(|l| {
            if l.starts_with("@@") {
                format!("@@ -{} +{} @@", shift, shift + 1)
            } else {
                l.to_string()
            }
        })
        .map(|l| l + "\n")
        .collect()
}

fn damage_context_whitespace(diff: &str) -> String {
    diff.lines()
        .map(|l| match l.strip_prefix(' ') {
            Some(rest) if !rest.trim().is_empty() => format!(" {}  \n", rest.replace("    ", "\t")),
            _ => format!("{l}\n"),
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn created_diffs_apply_exactly(base in file_lines(), e in edits()) {
        let a = join(&base);
        let b = join(&edit_lines(&base, &e));
        let diff = diffy::create_patch(&a, &b).to_string();
        if a != b {
            check_applies_or_refuses(&a, &b, &diff, true)?;
        }
    }

    #[test]
    fn created_diffs_apply_after_shifting(base in file_lines(), e in edits(), above in 1usize..30) {
        let a = join(&base);
        let b = join(&edit_lines(&base, &e));
        prop_assume!(a != b);
        let diff = diffy::create_patch(&a, &b).to_string();
        let prefix: String = (0..above).map(|i| format!("// inserted {i}\n")).collect();
        check_applies_or_refuses(&format!("{prefix}{a}"), &format!("{prefix}{b}"), &diff, false)?;
    }

    #[test]
    fn created_diffs_apply_with_wrong_numbers(base in file_lines(), e in edits(), at in 1usize..500) {
        let a = join(&base);
        let b = join(&edit_lines(&base, &e));
        prop_assume!(a != b);
        let diff = renumber(&diffy::create_patch(&a, &b).to_string(), at);
        check_applies_or_refuses(&a, &b, &diff, false)?;
    }

    #[test]
    fn created_diffs_apply_with_damaged_context_whitespace(base in file_lines(), e in edits()) {
        let a = join(&base);
        let b = join(&edit_lines(&base, &e));
        prop_assume!(a != b);
        let diff = damage_context_whitespace(&diffy::create_patch(&a, &b).to_string());
        check_applies_or_refuses(&a, &b, &diff, false)?;
    }

    #[test]
    fn never_panics_on_garbage(original in "[a-c \n]{0,40}", diff in "[-+ @\\\\a-c\n0-9,]{0,80}") {
        let _ = apply(&original, &diff);
    }
}

// ---- regressions found by the benchmark -------------------------------------------------

/// Test functions that all end alike: the tail of the last one is at the end of the file.
fn same_endings(final_newline: bool) -> String {
    let mut s = String::new();
    for name in ["one", "two", "three"] {
        s.push_str(&format!(
            "fn {name}() {{\n    check!(r#\"\n    {name}\n    \"#);\n}}\n\n"
        ));
    }
    s.push_str("fn last() {\n    check!(r#\"\n    last\n    \"#);\n}\n");
    if !final_newline {
        s.pop();
    }
    s
}

#[test]
fn final_newline_difference_does_not_push_the_hunk_to_another_exact_match() {
    let file = same_endings(false);
    let lines = file.lines().count();
    let diff = format!(
        "@@ -{},2 +{},4 @@\n     \"#);\n }}\n+\n+fn added() {{}}\n",
        lines - 1,
        lines - 1
    );
    let a = ok(&file, &diff);
    assert!(a.content.ends_with("}\n\nfn added() {}"), "{}", a.content);
    assert_eq!(strategies(&a), ["eol"]);
}

#[test]
fn unique_strict_match_far_from_the_hint_yields_to_a_nearer_loose_one() {
    // The model added a blank context line after the file's last line; the only exact match
    // of that context is another function's tail, far from the line number given.
    let file = same_endings(true);
    let lines = file.lines().count();
    let diff = format!(
        "@@ -{},2 +{},4 @@\n     \"#);\n }}\n \n+\n+fn added() {{}}\n",
        lines - 1,
        lines - 1
    );
    let e = err(&file, &diff);
    assert!(e.problem.reason.contains("ambiguous"), "{e}");
}

#[test]
fn reduced_context_never_drops_a_line_that_resembles_nothing_there() {
    // `let value = tri!(ret);` lost its '+': it reads as context and matches nothing; dropping
    // it would silently lose an added line.
    let file =
        "fn f() {\n    if x {\n        go();\n    }\n\n    match y {\n        _ => {}\n    }\n}\n";
    let diff = "@@\n     if x {\n-        go();\n+        let ret = go();\n     }\n    let value = tri!(ret);\n \n     match y {\n         _ => {}\n";
    let e = err(file, diff);
    assert_eq!(e.problem.code, Code::PatchApplyFailed, "{e}");
}

#[test]
fn a_whole_unique_match_is_not_overruled_by_dropped_context_near_a_wrong_hint() {
    // The line number points at `b`, whose body matches once the first context line is dropped;
    // the whole hunk, `fn a() {` included, matches only `a`. Dropped context is weaker evidence
    // than every line matching, so the hunk goes to `a`.
    let file = "fn a() {\n    setup();\n    run();\n}\n\nfn b() {\n    setup();\n    run();\n}\n";
    let diff = "@@ -6,4 +6,5 @@\n fn a() {\n     setup();\n     run();\n+    done();\n }\n";
    let a = ok(file, diff);
    assert_eq!(
        a.content,
        "fn a() {\n    setup();\n    run();\n    done();\n}\n\nfn b() {\n    setup();\n    run();\n}\n"
    );
    assert_eq!(strategies(&a), ["exact"]);
}
