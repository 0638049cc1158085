//! The differential check: a proposal judged against its base, test by test.
//!
//! A check that fails is not enough to reject a proposal: when the base fails too (the failing
//! test the plan is meant to fix), every proposal would be "failed". So the check also runs on
//! the base (once per base tree and command, see [`BaseRun`]) and each proposal gets
//! `fixes N, breaks M, still failing K`: tests that failed at the base and pass now, tests that
//! fail now and did not fail at the base (passed there, or are new), and tests that fail in
//! both. A test that failed at the base and is gone now is not a fix: deleting a test fixes
//! nothing. Pure: the caller runs the checks (`engine::baseline`, `engine::apply`) and reads
//! their results (`engine::results`). The verdict is data the store keeps with a plan's events,
//! so it sits low, beside the other plain data types.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Each test a check reported, by name: `true` when it passed.
pub type Tests = BTreeMap<String, bool>;

/// How many test names a verdict keeps per list: enough to act on, bounded for the notes.
pub const NAMES_KEPT: usize = 20;

/// The check on the base a proposal is judged against, as cached in the store.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaseRun {
    pub passed: bool,
    pub exit_code: Option<i32>,
    /// Per-test results; empty when the check reported none.
    pub tests: Tests,
    /// How long the base run took, the time a cache hit saves.
    #[serde(default)]
    pub millis: u64,
    /// Why the check never got to run its tests on the base (a collection error, a build
    /// failure), when it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_run: Option<String>,
}

/// What the check says of a proposal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckStatus {
    /// The check passed.
    Passed,
    /// The check failed, but the proposal breaks no test: it fixes at least one, or the check
    /// failed only by tests that already fail at the base. It is kept.
    Partial,
    /// No check ran.
    Unchecked,
    /// The check failed: the proposal is rolled back.
    Failed,
    /// The check never got to run the tests (a collection or import error, a build failure, a
    /// runner that stopped before reporting): the proposal is rolled back and ranks below
    /// anything that ran.
    #[serde(rename = "did_not_run")]
    DidNotRun,
}

impl CheckStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            CheckStatus::Passed => "passed",
            CheckStatus::Partial => "partial",
            CheckStatus::Unchecked => "unchecked",
            CheckStatus::Failed => "failed",
            CheckStatus::DidNotRun => "did not run",
        }
    }
}

/// A proposal's check against its base. The counts are `None` when either run reported no
/// per-test results: the exit status is all there is then.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    pub status: CheckStatus,
    pub fixes: Option<u32>,
    pub breaks: Option<u32>,
    pub still_failing: Option<u32>,
    /// The first [`NAMES_KEPT`] tests of each kind, by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixed: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub broken: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failing: Vec<String>,
    /// The broken tests the base does not have: tests the proposal adds that fail. They count
    /// as breaks; this list only tells them apart from tests that pass at the base.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub added_failing: Vec<String>,
    /// For a check that did not run its tests: the line that says why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Tests that were failing before the proposal and that it deleted, skipped or whose
    /// assertions it changed, each as `name (how)`: the proposal *weakens tests*.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub weakens: Vec<String>,
    /// Tests whose result flipped when the proposal and the base were run again: shown, never
    /// counted as broken or fixed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flaky: Vec<String>,
    /// For a fix checked against a reproduction: whether every test of the reproduction
    /// passes with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reproduction: Option<bool>,
}

impl Verdict {
    /// The verdict of a proposal that was not checked.
    pub fn unchecked() -> Verdict {
        Verdict {
            status: CheckStatus::Unchecked,
            fixes: None,
            breaks: None,
            still_failing: None,
            fixed: Vec::new(),
            broken: Vec::new(),
            failing: Vec::new(),
            added_failing: Vec::new(),
            reason: None,
            weakens: Vec::new(),
            flaky: Vec::new(),
            reproduction: None,
        }
    }

    /// The verdict of a check that never ran its tests, and why.
    pub fn did_not_run(reason: String) -> Verdict {
        Verdict {
            status: CheckStatus::DidNotRun,
            reason: Some(reason),
            ..Verdict::unchecked()
        }
    }

    /// Whether the proposal may stay on its branch.
    pub fn kept(&self) -> bool {
        matches!(
            self.status,
            CheckStatus::Passed | CheckStatus::Partial | CheckStatus::Unchecked
        )
    }

    pub fn breaks_any(&self) -> bool {
        self.breaks.is_some_and(|n| n > 0)
    }

    /// The broken tests that pass at the base (the broken ones the proposal did not add).
    pub fn broken_passing(&self) -> Vec<&str> {
        self.broken
            .iter()
            .filter(|n| !self.added_failing.contains(n))
            .map(String::as_str)
            .collect()
    }

    /// `fixes 1, breaks 0, still failing 2`, or the status alone without per-test results.
    pub fn counts(&self) -> String {
        match (self.fixes, self.breaks, self.still_failing) {
            (Some(f), Some(b), Some(s)) => format!("fixes {f}, breaks {b}, still failing {s}"),
            _ => self.status.as_str().to_string(),
        }
    }

    /// `partial: fixes 1, breaks 0, still failing 2`, as `apply` and `show` say it; a check
    /// that did not run says why; a proposal that weakens tests says which.
    pub fn line(&self) -> String {
        let line = match (self.fixes, &self.reason) {
            (Some(_), _) => format!("{}: {}", self.status.as_str(), self.counts()),
            (None, Some(reason)) => format!("{}: {reason}", self.status.as_str()),
            (None, None) => self.status.as_str().to_string(),
        };
        let line = match self.reproduction {
            Some(true) => format!("{line}; the reproduction passes"),
            Some(false) => format!("{line}; the reproduction still fails"),
            None => line,
        };
        let line = match self.weakens.is_empty() {
            true => line,
            false => format!("{line}; weakens tests: {}", self.weakens.join(", ")),
        };
        match self.flaky.is_empty() {
            true => line,
            false => format!("{line}; flaky: {}", self.flaky.join(", ")),
        }
    }

    /// Whether the proposal deleted, skipped or loosened a test that was failing.
    pub fn weakens_tests(&self) -> bool {
        !self.weakens.is_empty()
    }

    /// The compact form for a table cell: `partial 1/0/2` (fixes/breaks/still failing), and
    /// `, weakens tests` when it does.
    pub fn cell(&self) -> String {
        let cell = match (self.fixes, self.breaks, self.still_failing) {
            (Some(f), Some(b), Some(s)) => format!("{} {f}/{b}/{s}", self.status.as_str()),
            _ => self.status.as_str().to_string(),
        };
        let cell = match self.reproduction {
            Some(true) => format!("{cell}, repro passes"),
            Some(false) => format!("{cell}, repro fails"),
            None => cell,
        };
        match self.weakens_tests() {
            true => format!("{cell}, weakens tests"),
            false => cell,
        }
    }
}

/// What one run of the check showed: each test's result, and why it never ran its tests when
/// it did not (read from its output, see `engine::results`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Observed {
    pub tests: Tests,
    pub not_run: Option<String>,
}

/// Judges a proposal's check (`passed`, and what its run showed) against the base run.
///
/// A check that failed without running its tests is `did not run`: a collection, import or
/// build error it printed, or no per-test result at all where the base run reported some (the
/// runner stopped before reporting). It says nothing of the tests, so it is never `partial`.
pub fn judge(base: &BaseRun, passed: bool, now: &Observed) -> Verdict {
    if !passed {
        if let Some(reason) = &now.not_run {
            return Verdict::did_not_run(reason.clone());
        }
        if now.tests.is_empty() && !base.tests.is_empty() {
            return Verdict::did_not_run(format!(
                "the check reported no test results, where the base run reported {}",
                base.tests.len()
            ));
        }
    }
    let now = &now.tests;
    if base.tests.is_empty() || now.is_empty() {
        let status = match passed {
            true => CheckStatus::Passed,
            false => CheckStatus::Failed,
        };
        return Verdict {
            status,
            ..Verdict::unchecked()
        };
    }
    let (mut fixed, mut broken, mut failing) = (Vec::new(), Vec::new(), Vec::new());
    let mut added_failing = Vec::new();
    for (name, &ok) in now {
        let before = base.tests.get(name).copied();
        match (before, ok) {
            (Some(false), true) => fixed.push(name.clone()),
            (Some(false), false) => failing.push(name.clone()),
            (Some(true) | None, false) => broken.push(name.clone()),
            (_, true) => {}
        }
        if before.is_none() && !ok {
            added_failing.push(name.clone());
        }
    }
    let count = |v: &Vec<String>| u32::try_from(v.len()).unwrap_or(u32::MAX);
    let status = if passed {
        CheckStatus::Passed
    } else if broken.is_empty() && !(fixed.is_empty() && failing.is_empty()) {
        // Every failure was there at the base: a change that breaks nothing is not rolled
        // back because an unrelated test is red.
        CheckStatus::Partial
    } else {
        CheckStatus::Failed
    };
    let (fixes, breaks, still) = (count(&fixed), count(&broken), count(&failing));
    for list in [&mut fixed, &mut broken, &mut failing, &mut added_failing] {
        list.truncate(NAMES_KEPT);
    }
    Verdict {
        status,
        fixes: Some(fixes),
        breaks: Some(breaks),
        still_failing: Some(still),
        fixed,
        broken,
        failing,
        added_failing,
        reason: None,
        weakens: Vec::new(),
        flaky: Vec::new(),
        reproduction: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tests(list: &[(&str, bool)]) -> Tests {
        list.iter().map(|(n, p)| (n.to_string(), *p)).collect()
    }

    fn seen(list: &[(&str, bool)]) -> Observed {
        Observed {
            tests: tests(list),
            not_run: None,
        }
    }

    fn base(list: &[(&str, bool)]) -> BaseRun {
        BaseRun {
            passed: list.iter().all(|(_, p)| *p),
            exit_code: Some(1),
            tests: tests(list),
            millis: 0,
            not_run: None,
        }
    }

    #[test]
    fn a_fix_a_break_and_a_test_still_failing() {
        let b = base(&[("a", false), ("b", true), ("c", false)]);
        let fix = judge(&b, true, &seen(&[("a", true), ("b", true), ("c", true)]));
        assert_eq!(
            (fix.status, fix.counts()),
            (
                CheckStatus::Passed,
                "fixes 2, breaks 0, still failing 0".into()
            )
        );
        let partial = judge(&b, false, &seen(&[("a", true), ("b", true), ("c", false)]));
        assert_eq!(partial.status, CheckStatus::Partial);
        assert_eq!(partial.cell(), "partial 1/0/1");
        assert!(partial.kept());
        let breaks = judge(&b, false, &seen(&[("a", true), ("b", false), ("c", false)]));
        assert_eq!(breaks.status, CheckStatus::Failed);
        assert_eq!(breaks.broken, vec!["b".to_string()]);
        assert!(breaks.breaks_any() && !breaks.kept());
        // A change that breaks nothing is kept while tests that failed at the base still fail.
        let nothing = judge(&b, false, &seen(&[("a", false), ("b", true), ("c", false)]));
        assert_eq!(
            (nothing.status, nothing.still_failing),
            (CheckStatus::Partial, Some(2))
        );
        assert!(nothing.kept());
        // A failure no test explains is not kept.
        let unexplained = judge(&b, false, &seen(&[("b", true)]));
        assert_eq!(unexplained.status, CheckStatus::Failed);
    }

    #[test]
    fn a_new_failing_test_breaks_and_a_deleted_one_fixes_nothing() {
        let b = base(&[("a", false), ("b", true)]);
        let v = judge(&b, false, &seen(&[("b", true), ("new", false)]));
        assert_eq!(
            (v.fixes, v.breaks, v.still_failing),
            (Some(0), Some(1), Some(0))
        );
        assert_eq!(v.added_failing, vec!["new".to_string()]);
        assert!(v.broken_passing().is_empty());
        let json = serde_json::to_value(&v).unwrap();
        assert_eq!(json["added_failing"], serde_json::json!(["new"]));
        let old = judge(&b, false, &seen(&[("b", false)]));
        assert_eq!(old.broken_passing(), vec!["b"]);
        assert!(
            serde_json::to_value(&old)
                .unwrap()
                .get("added_failing")
                .is_none()
        );
    }

    #[test]
    fn without_per_test_results_the_exit_status_decides() {
        let b = base(&[]);
        let v = judge(&b, false, &seen(&[("a", true)]));
        assert_eq!((v.status, v.fixes), (CheckStatus::Failed, None));
        assert_eq!(v.line(), "failed");
        assert_eq!(
            judge(&b, true, &Observed::default()).status,
            CheckStatus::Passed
        );
    }

    #[test]
    fn a_check_that_never_ran_its_tests_did_not_run() {
        let b = base(&[("a", false), ("b", true)]);
        let collection = Observed {
            tests: Tests::new(),
            not_run: Some("ERROR test_a.py - SyntaxError".into()),
        };
        let v = judge(&b, false, &collection);
        assert_eq!(v.status, CheckStatus::DidNotRun);
        assert!(!v.kept());
        assert_eq!(v.line(), "did not run: ERROR test_a.py - SyntaxError");
        // No result at all where the base reported some: the runner stopped early.
        let silent = judge(&b, false, &Observed::default());
        assert_eq!(silent.status, CheckStatus::DidNotRun);
        assert!(
            silent.line().contains("base run reported 2"),
            "{}",
            silent.line()
        );
        // A check that passed ran; one without per-test results anywhere is judged by status.
        assert_eq!(judge(&b, true, &collection).status, CheckStatus::Passed);
        assert_eq!(
            judge(&base(&[]), false, &Observed::default()).status,
            CheckStatus::Failed
        );
        let json = serde_json::to_value(&v).unwrap();
        assert_eq!(json["status"], "did_not_run");
        assert_eq!(serde_json::from_value::<Verdict>(json).unwrap(), v);
    }
}
