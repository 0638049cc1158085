//! `-q`, as git's: a command that changes something prints nothing on success, warnings and
//! errors still show, and what the user asked to see is still printed.

use crate::common;

use common::TestRepo;

const ANSWER: &str = r#"{"summary": "add b", "actions": [{"kind": "CREATE_FILE", "path": "b.txt", "content": "b\n"}],
    "memory_patch": {"user.favourite_colour": "green"}}"#;

fn silent(repo: &TestRepo, args: &[&str]) {
    let run = repo.papayu(args).ok();
    assert_eq!(run.stdout, "", "{args:?} prints nothing with -q");
    assert_eq!(run.stderr, "", "{args:?} prints nothing with -q");
}

#[test]
fn quiet_commands_print_nothing_but_warnings_errors_and_what_was_asked_for() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.write(".git/answer.json", ANSWER);
    silent(&repo, &["init", "-q"]);
    let plan = repo
        .papayu(["plan", "-q", "Add b", "--response", ".git/answer.json"])
        .ok();
    assert_eq!(plan.stdout, "", "no preview with -q");
    assert!(
        plan.stderr
            .starts_with("warning: memory_patch: dropped 'user.favourite_colour'"),
        "warnings still show: {}",
        plan.stderr
    );
    silent(&repo, &["apply", "-q", "--no-check"]);
    let diff = repo.papayu(["diff", "-q"]).ok();
    assert!(diff.stdout.contains("+b"), "asked for: {}", diff.stdout);
    let list = repo.papayu(["list", "-q"]).ok();
    assert!(list.stdout.contains("Add b"), "asked for: {}", list.stdout);
    let show = repo.papayu(["show", "-q"]).ok();
    assert!(
        show.stdout.contains("Goal: Add b"),
        "asked for: {}",
        show.stdout
    );
    silent(&repo, &["merge", "-q"]);
    silent(&repo, &["undo", "-q"]);
    silent(&repo, &["redo", "-q"]);
    silent(&repo, &["undo", "-q"]);
    silent(&repo, &["discard", "-q"]);
    silent(&repo, &["gc", "-q"]);
    silent(&repo, &["trace", "prune", "-q", "--dry-run"]);
    let failed = repo.papayu(["show", "-q", "nope"]).code(1);
    assert!(
        failed.stderr.starts_with("ERR_PLAN_NOT_FOUND: "),
        "errors still show: {}",
        failed.stderr
    );
}
