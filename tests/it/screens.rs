//! What a person reads, pinned as snapshots: the plan preview, `show`, `list`, `trace report`
//! and error screens. Ids, hashes and ages change from run to run, so they are masked; anything
//! else that moves is a change to review (`cargo insta review`, or `INSTA_UPDATE=always`).

use crate::common;
use common::parser_repo as repo;

fn answer() -> String {
    serde_json::json!({
        "summary": "Handle None in parse\n\nparse(None) now returns an empty string.",
        "plan": [{"step": "Guard None", "details": "return '' early"}],
        "risks": ["callers relying on the exception"],
        "actions": [
            {"kind": "UPDATE_FILE", "path": "src/parser.py",
             "content": "def parse(value):\n    if value is None:\n        return ''\n    return value.strip()\n"},
            {"kind": "CREATE_FILE", "path": "tests/test_parser.py",
             "content": "from src.parser import parse\n\n\ndef test_none():\n    assert parse(None) == ''\n"}
        ]
    })
    .to_string()
}

/// Runs `body` with ids, hashes, ages and durations masked in every snapshot it takes.
fn masked(body: impl FnOnce()) {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"\b[0-9a-f]{10,64}\b", "[id]");
    settings.add_filter(r"\b\d+(s|m|h|d) ago\b", "[age]");
    settings.add_filter(r"\b\d+ ms\b", "[ms]");
    settings.bind(body);
}

#[test]
fn the_plan_preview() {
    let repo = repo();
    let run = repo
        .papayu_stdin(
            ["plan", "Handle None in parse", "--response", "-"],
            answer().as_bytes(),
        )
        .ok();
    masked(|| insta::assert_snapshot!(run.stdout));
}

#[test]
fn show_and_list() {
    let repo = repo();
    let id = repo.plan_id("Handle None in parse", &answer());
    repo.papayu(["apply", &id, "--no-check"]).ok();
    let show = repo.papayu(["show", &id]).ok();
    let list = repo.papayu(["list"]).ok();
    masked(|| {
        insta::assert_snapshot!("show", show.stdout);
        insta::assert_snapshot!("list", list.stdout);
    });
}

#[test]
fn the_trace_report() {
    let repo = repo();
    let id = repo.plan_id("Handle None in parse", &answer());
    repo.papayu(["apply", &id, "--no-check"]).ok();
    let bad = serde_json::json!({"actions": [{"kind": "UPDATE_FILE", "path": "../x"}]}).to_string();
    repo.papayu_stdin(["plan", "escape", "--response", "-"], bad.as_bytes())
        .code(1);
    let report = repo.papayu(["trace", "report"]).ok();
    masked(|| insta::assert_snapshot!(report.stdout));
}

#[test]
fn error_screens() {
    let repo = repo();
    let bad = serde_json::json!({"actions": [
        {"kind": "UPDATE_FILE", "path": "../x"},
        {"kind": "DELETE_FILE", "path": ".git/config"}
    ]})
    .to_string();
    let refused = repo
        .papayu_stdin(["plan", "escape", "--response", "-"], bad.as_bytes())
        .code(1);
    let unknown = repo.papayu(["show", "0123456789"]).code(1);
    let usage = repo.papayu(["apply", "--check", ""]).code(2);
    masked(|| {
        insta::assert_snapshot!("refused_answer", refused.stderr);
        insta::assert_snapshot!("unknown_plan", unknown.stderr);
        insta::assert_snapshot!("empty_check", usage.stderr);
    });
}

#[test]
fn config() {
    let repo = repo();
    repo.git(["config", "papayu.checkTimeout", "7"]).ok();
    let out = repo
        .git(["-c", "papayu.model=m-1", "papayu", "config"])
        .ok();
    masked(|| insta::assert_snapshot!(out.stdout));
}
