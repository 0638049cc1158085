//! A reproduction test first: before any fix, a plan that only adds or changes test files, run
//! on the base. It reproduces the goal's problem when at least one of its tests *fails* there,
//! by the per-test results; a test that never ran (a collection, import or syntax error of the
//! test itself) or that passes reproduces nothing.
//!
//! A reproduction that reproduces gets a branch of its own (`papayu/repro-…`) whose commit is
//! the base with the test laid over it. Fix plans made for the same goal name it
//! ([`PlanRecord::repro`]) and apply onto that commit, so every check of a fix runs the
//! reproduction's tests and its verdict says whether they pass now ([`Verdict::reproduction`]).
//! The reproduction's own files are frozen: a fix that changes one weakens tests.
//!
//! Running one is [`super::reproduce`]. The evidence — the failing tests and the first line of each failure, masked — is stored on
//! the reproduction's `applied` event, so it travels with the notes.

use std::sync::LazyLock;

use regex::Regex;

use crate::codes::{Code, Problem};
use crate::context::mask_secrets;
use crate::executor::FileChange;
use crate::settings::Settings;
use crate::store::records::{EventKind, PlanKind, PlanRecord};
use crate::store::{Oid, Store, StoreError};
use crate::verdict::{CheckStatus, NAMES_KEPT, Verdict};

/// When `plan` asks for a reproduction first (`--repro`, `papayu.repro`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// When a check is configured and the goal names no test (a named test already is the
    /// target the differential check needs).
    Auto,
    Always,
    Never,
}

impl Mode {
    /// `--repro`/`--no-repro` when given, else `papayu.repro`, else never (asking for a
    /// reproduction costs a model call and a check run before any fix).
    pub fn configured(flag: Option<bool>, config: &Settings) -> Result<Mode, Problem> {
        match flag {
            Some(true) => return Ok(Mode::Always),
            Some(false) => return Ok(Mode::Never),
            None => {}
        }
        // Its declaration takes auto, always or never; unset is never.
        Ok(match config.given("papayu.repro")?.as_deref() {
            Some("auto") => Mode::Auto,
            Some("always") => Mode::Always,
            _ => Mode::Never,
        })
    }

    /// Whether to ask for a reproduction of `goal`, given whether a check is configured.
    pub fn wanted(self, has_check: bool, goal: &str) -> bool {
        match self {
            Mode::Always => true,
            Mode::Never => false,
            Mode::Auto => has_check && !names_a_test(goal),
        }
    }
}

#[expect(
    clippy::expect_used,
    reason = "a regex literal: it compiles, as the tests show"
)]
static TEST_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\btest_\w+|\w+::\w*test\w*|\bTest[A-Z]\w*|\b[A-Z]\w*Tests?\b|\w+[._]test\.\w+|\w+\.spec\.\w+",
    )
    .expect("valid regex")
});

/// Whether the goal names a test (`test_parse`, `tests/x.py::test_y`, `TestParse`,
/// `ParserTest`, `parser.test.js`): that test is then the target, and no reproduction is needed.
pub fn names_a_test(goal: &str) -> bool {
    TEST_NAME.is_match(goal)
}

/// Whether `path` is a file a test runner treats as a test: under a `test`/`tests`/`spec`
/// directory, or named as pytest, go, jest, JUnit, RSpec, xUnit, PHPUnit, GoogleTest
/// (`format-test.cc`) and XCTest name theirs.
pub fn is_test_file(path: &str) -> bool {
    if crate::context::is_test_path(&path.to_lowercase()) {
        return true;
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.split('.').next().unwrap_or(name);
    stem.ends_with("Test")
        || stem.ends_with("Tests")
        || stem.ends_with("_spec")
        || stem.ends_with("Spec")
        || stem.ends_with("_test")
        || stem.ends_with("-test")
        || stem.ends_with("_tests")
        || stem.starts_with("Test")
}

/// Refuses a reproduction whose actions touch anything but test files: it must not change the
/// code under test.
pub fn only_tests(record_plan: &crate::plan::Plan) -> Result<(), Problem> {
    let others: Vec<&str> = record_plan
        .actions
        .iter()
        .map(|a| a.path.as_str())
        .filter(|p| !is_test_file(p))
        .collect();
    if record_plan.actions.is_empty() {
        return Err(Problem::new(
            Code::ReproNotTests,
            "the reproduction adds no test: it has no actions, and nothing was stored",
        )
        .with_hint("answer with a plan that adds a test file, e.g. tests/test_issue.py"));
    }
    if others.is_empty() {
        return Ok(());
    }
    Err(Problem::new(
        Code::ReproNotTests,
        format!(
            "a reproduction may only add or change test files, but it changes {}; nothing was stored",
            others.join(", ")
        ),
    )
    .with_hint(
        "put the test under tests/ (or name it as the test runner does: test_*.py, *_test.go, *.test.js, *Test.java), and leave the code under test alone",
    ))
}

/// What the model is asked for a reproduction of `goal`.
pub fn instruction(goal: &str, check: &str) -> String {
    format!(
        "{}\n\nDo not fix this yet. Write a test that reproduces the problem above: it must FAIL on the current code because of the problem, and pass once the problem is fixed. Only add or change test files (under the project's test directory, named as its test runner expects); do not change any other file. The tests are run with `{check}`.",
        goal.trim()
    )
}

#[expect(
    clippy::expect_used,
    reason = "a regex literal: it compiles, as the tests show"
)]
static FAILURE_MARK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)error|assert|panicked|expected|exception|fail|mismatch|not equal")
        .expect("valid regex")
});

/// An exception's line: `AssertionError: 6 != 5`, pytest's `E   ValueError: …`, Java's
/// `java.lang.AssertionError: …`.
#[expect(
    clippy::expect_used,
    reason = "a regex literal: it compiles, as the tests show"
)]
static EXCEPTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(?:E\s+)?[\w.$]*(?:Error|Exception|Failure)\b:?").expect("valid regex")
});

/// Where the next test's report starts (unittest's `FAIL: …`, cargo's `---- name stdout ----`).
#[expect(
    clippy::expect_used,
    reason = "a regex literal: it compiles, as the tests show"
)]
static SECTION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:FAIL|ERROR): |^---- .* ----$").expect("valid regex"));

/// The most characters kept of one failure's first line.
const LINE_MAX: usize = 200;

/// Each of `tests` (at most [`NAMES_KEPT`]) as `id: the first line of its failure` when the
/// output shows one (pytest's `FAILED id - message` summary, or the first error-looking line
/// after the test is named), else the id alone; masked.
pub fn failure_lines(output: &str, tests: &[String]) -> Vec<String> {
    let lines: Vec<&str> = output.lines().collect();
    tests
        .iter()
        .take(NAMES_KEPT)
        .map(|test| {
            let line = first_failure_line(&lines, test).map(|l| {
                let l = l.trim();
                match l.char_indices().nth(LINE_MAX) {
                    Some((cut, _)) => format!("{}…", &l[..cut]),
                    None => l.to_string(),
                }
            });
            mask_secrets(&match line {
                Some(line) if !line.is_empty() => format!("{test}: {line}"),
                _ => test.clone(),
            })
        })
        .collect()
}

fn first_failure_line<'a>(lines: &[&'a str], test: &str) -> Option<&'a str> {
    let name = super::weaken::short_name(test);
    if name.is_empty() {
        return None;
    }
    // pytest -rA / -ra: `FAILED tests/test_x.py::test_y - AssertionError: …`
    let summary = lines.iter().find_map(|l| {
        let (head, message) = l.split_once(" - ")?;
        (head.contains(name) && head.contains("FAIL")).then_some(message)
    });
    if summary.is_some() {
        return summary;
    }
    let at: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains(name))
        .collect();
    let window = |i: usize| {
        lines[i + 1..]
            .iter()
            .take(40)
            .take_while(|l| !SECTION.is_match(l))
            .filter(|l| !l.contains(name) && !l.trim().is_empty())
    };
    // An exception line in any of the test's sections, the last (the detailed report) first;
    // else the first line that looks like a failure.
    for pattern in [&*EXCEPTION, &*FAILURE_MARK] {
        let found = at
            .iter()
            .rev()
            .find_map(|&i| window(i).find(|l| pattern.is_match(l)));
        if found.is_some() {
            return found.copied();
        }
    }
    None
}

/// The reproduction a fix is checked against, as the notes hold it.
#[derive(Debug, Clone)]
pub struct Link {
    pub id: String,
    /// The reproduction's commit: the fix applies onto it.
    pub commit: Oid,
    /// The tests that failed at the base.
    pub tests: Vec<String>,
    /// The files the reproduction wrote: frozen for the fix.
    pub paths: Vec<String>,
}

/// The reproduction `record` names, when it names one that reproduced and whose commit is
/// still in the repository.
pub fn link(store: &Store, record: &PlanRecord) -> Result<Option<Link>, StoreError> {
    let Some(id) = &record.repro else {
        return Ok(None);
    };
    let Ok((ledger, repro)) = super::find::find(store, Some(id)) else {
        return Ok(None);
    };
    if repro.kind != Some(PlanKind::Repro) {
        return Ok(None);
    }
    let applied =
        ledger
            .events_of(&repro.id)
            .iter()
            .rev()
            .find_map(|e| match (e.event, e.commit) {
                (EventKind::Applied, Some(commit)) => Some((e, commit)),
                _ => None,
            });
    let Some((event, commit)) = applied else {
        return Ok(None);
    };
    if store.commit_tree(commit).is_err() {
        return Ok(None);
    }
    let tests = event
        .check
        .as_deref()
        .map(|v| v.broken.clone())
        .unwrap_or_default();
    let paths = repro.plan.actions.iter().map(|a| a.path.clone()).collect();
    Ok(Some(Link {
        id: repro.id,
        commit,
        tests,
        paths,
    }))
}

impl Link {
    /// Marks `verdict` with what the fix did to the reproduction: whether its tests pass now —
    /// none of them fails in the fix's run (a test that failed in the reproduction's run and
    /// passes at its commit by chance passes with the fix all the same) — and each of its files
    /// the fix changed as a weakened test.
    pub fn judge(&self, verdict: &mut Verdict, changes: &[FileChange]) {
        if verdict.status != CheckStatus::Unchecked {
            verdict.reproduction = Some(!self.tests.is_empty() && self.all_pass(verdict));
        }
        for change in changes {
            if self.paths.contains(&change.path) {
                let line = format!("{} (changes the reproduction's test file)", change.path);
                if !verdict.weakens.contains(&line) {
                    verdict.weakens.push(line);
                }
            }
        }
    }

    /// Whether no test of the reproduction fails in the run `verdict` judged. The verdict names
    /// at most [`NAMES_KEPT`] tests a list; when a list was cut, only a run with no failing
    /// test at all answers.
    fn all_pass(&self, verdict: &Verdict) -> bool {
        let (Some(breaks), Some(still)) = (verdict.breaks, verdict.still_failing) else {
            return false;
        };
        if verdict.status == CheckStatus::DidNotRun {
            return false;
        }
        let whole =
            |list: &[String], n: u32| list.len() == usize::try_from(n).unwrap_or(usize::MAX);
        if !whole(&verdict.broken, breaks) || !whole(&verdict.failing, still) {
            return breaks == 0 && still == 0;
        }
        self.tests
            .iter()
            .all(|t| !verdict.failing.contains(t) && !verdict.broken.contains(t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reproduction_passes_when_none_of_its_tests_fails_in_the_fix_s_run() {
        let link = Link {
            id: "r".into(),
            commit: Oid::ZERO_SHA1,
            tests: vec!["t::a".into(), "t::flaky".into()],
            paths: vec!["tests/test_r.py".into()],
        };
        let judged = |fixed: &[&str], failing: &[&str]| {
            let mut v = Verdict {
                status: CheckStatus::Partial,
                fixes: Some(u32::try_from(fixed.len()).unwrap()),
                breaks: Some(0),
                still_failing: Some(u32::try_from(failing.len()).unwrap()),
                fixed: fixed.iter().map(|s| s.to_string()).collect(),
                failing: failing.iter().map(|s| s.to_string()).collect(),
                ..Verdict::unchecked()
            };
            link.judge(&mut v, &[]);
            v.reproduction
        };
        // `t::flaky` passed at the reproduction's commit this time: not fixed, but passing.
        assert_eq!(judged(&["t::a"], &[]), Some(true));
        assert_eq!(judged(&["t::a"], &["t::flaky"]), Some(false));
        assert_eq!(judged(&[], &["t::a", "t::flaky"]), Some(false));
        let mut unchecked = Verdict::unchecked();
        link.judge(&mut unchecked, &[]);
        assert_eq!(unchecked.reproduction, None);
    }

    #[test]
    fn test_files_are_told_from_code_in_every_runner_s_convention() {
        for path in [
            "tests/test_issue.py",
            "pkg/parse_test.go",
            "src/app.test.ts",
            "src/test/java/org/x/ParserTest.java",
            "spec/models/user_spec.rb",
            "Foo.Tests/ParserTests.cs",
            "test_regression.py",
            "tests/it/repro.rs",
            "src/format-test.cc",
            "src/parser_tests.rs",
            "Sources/App/ParserTests.swift",
        ] {
            assert!(is_test_file(path), "{path}");
        }
        for path in ["src/parse.py", "lib/app.js", "src/main.rs", "README.md"] {
            assert!(!is_test_file(path), "{path}");
        }
    }

    #[test]
    fn a_goal_that_names_a_test_needs_no_reproduction() {
        for goal in [
            "test_parse fails on empty input",
            "fix tests/test_x.py::test_y",
            "TestParse is red",
            "ParserTest fails since yesterday",
        ] {
            assert!(names_a_test(goal), "{goal}");
            assert!(!Mode::Auto.wanted(true, goal));
        }
        let goal = "parse('') should return an empty list, not raise";
        assert!(!names_a_test(goal));
        assert!(Mode::Auto.wanted(true, goal));
        assert!(!Mode::Auto.wanted(false, goal));
        assert!(Mode::Always.wanted(false, goal));
    }

    #[test]
    fn a_failure_line_is_pytest_s_summary_or_the_first_error_after_the_test() {
        let pytest = "tests/test_p.py::test_empty FAILED\n=== short test summary info ===\nFAILED tests/test_p.py::test_empty - ValueError: empty input\n";
        assert_eq!(
            failure_lines(pytest, &["tests/test_p.py::test_empty".to_string()]),
            ["tests/test_p.py::test_empty: ValueError: empty input"]
        );
        let cargo = "---- parse::empty stdout ----\nthread 'parse::empty' panicked at src/lib.rs:3:5:\nassertion `left == right` failed\n";
        let lines = failure_lines(cargo, &["parse::empty".to_string()]);
        assert_eq!(lines, ["parse::empty: assertion `left == right` failed"]);
        let unittest = "test_add (test_repro.T.test_add) ... FAIL\ntest_sub (test_calc.T.test_sub) ... ok\n\n======\nFAIL: test_add (test_repro.T.test_add)\n------\nTraceback (most recent call last):\n  File \"test_repro.py\", line 5, in test_add\n    self.assertEqual(add(2, 3), 5)\nAssertionError: 6 != 5\n";
        assert_eq!(
            failure_lines(unittest, &["test_repro.T.test_add".to_string()]),
            ["test_repro.T.test_add: AssertionError: 6 != 5"]
        );
        assert_eq!(
            failure_lines("", &["t::x".to_string()]),
            ["t::x"],
            "no output names it: the id alone"
        );
    }
}
