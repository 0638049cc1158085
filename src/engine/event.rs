//! What apply and merge report when they end: one line each for `-v` and the trace
//! ([`std::fmt::Display`]), and its fields ([`serde::Serialize`]).

use std::fmt;

use serde::Serialize;

/// One event of an apply or a merge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OutcomeEvent {
    /// The plan's commit is on its branch.
    ApplySuccess {
        plan: String,
        branch: String,
        commit: String,
    },
    /// The check failed: no branch, the plan marked failed.
    ApplyRollback {
        plan: String,
        /// The verdict's counts, when the check reported its tests one by one.
        #[serde(skip_serializing_if = "Option::is_none")]
        tests: Option<Counts>,
    },
    /// The proposal was merged into a branch (`old` = `new` when it was already contained).
    MergeSuccess {
        plan: String,
        into: String,
        old: String,
        new: String,
    },
}

/// A verdict's counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub fixes: u32,
    pub breaks: u32,
    pub still_failing: u32,
}

impl fmt::Display for OutcomeEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutcomeEvent::ApplySuccess {
                plan,
                branch,
                commit,
            } => write!(
                f,
                "APPLY_SUCCESS plan={plan} branch={branch} commit={commit}"
            ),
            OutcomeEvent::ApplyRollback { plan, tests } => {
                write!(f, "APPLY_ROLLBACK plan={plan}")?;
                match tests {
                    Some(c) => write!(
                        f,
                        " fixes={} breaks={} still_failing={}",
                        c.fixes, c.breaks, c.still_failing
                    ),
                    None => Ok(()),
                }
            }
            OutcomeEvent::MergeSuccess {
                plan,
                into,
                old,
                new,
            } => write!(
                f,
                "MERGE_SUCCESS plan={plan} into={into} old={old} new={new}"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_fields() {
        let rollback = OutcomeEvent::ApplyRollback {
            plan: "abc".into(),
            tests: Some(Counts {
                fixes: 1,
                breaks: 2,
                still_failing: 0,
            }),
        };
        assert_eq!(
            rollback.to_string(),
            "APPLY_ROLLBACK plan=abc fixes=1 breaks=2 still_failing=0"
        );
        let value = serde_json::to_value(&rollback).unwrap();
        assert_eq!(value["event"], "APPLY_ROLLBACK");
        assert_eq!(value["tests"]["breaks"], 2);
        let plain = OutcomeEvent::ApplyRollback {
            plan: "abc".into(),
            tests: None,
        };
        assert_eq!(plain.to_string(), "APPLY_ROLLBACK plan=abc");
        let merged = OutcomeEvent::MergeSuccess {
            plan: "abc".into(),
            into: "refs/heads/main".into(),
            old: "1".into(),
            new: "2".into(),
        };
        assert_eq!(
            merged.to_string(),
            "MERGE_SUCCESS plan=abc into=refs/heads/main old=1 new=2"
        );
    }
}
