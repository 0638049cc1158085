//! The traces of `apply` and `merge`, written from their outcomes, for every front end: the
//! plan, the branch, how each hunk was placed, the check, and the event the front end shows
//! under `-v`.

use crate::codes::{Problem, Problems};
use crate::engine::apply::{self, Outcome};
use crate::engine::event::{Counts, OutcomeEvent};
use crate::engine::review::Merged;
use crate::store::Store;

use super::record::{self, Tracer};

/// Writes the trace of an apply of `spec` (a plan id prefix, or `None` for HEAD's newest) and
/// returns its event, when it has one.
pub fn apply(
    tracer: &Tracer,
    store: &Store,
    spec: Option<&str>,
    outcome: &Result<Outcome, Problems>,
) -> Option<OutcomeEvent> {
    let mut t = tracer.start("apply", None);
    t.plan_id = spec.map(str::to_string);
    match outcome {
        Err(problems) => {
            tracer.write_failed(store, &mut t, problems);
            None
        }
        Ok(Outcome::Applied {
            record,
            branch,
            commit,
            changes,
            check,
            ..
        }) => {
            t.plan_id = Some(record.id.clone());
            t.base = Some(record.base.to_string());
            t.branch = Some(branch.clone());
            t.patch_placements = record::placements(changes);
            t.check = check.as_ref().map(record::check_log);
            let event = OutcomeEvent::ApplySuccess {
                plan: record.short_id().to_string(),
                branch: branch.clone(),
                commit: commit.to_string(),
            };
            t.transcript.events.push(event.to_string());
            tracer.write(store, &t);
            Some(event)
        }
        Ok(Outcome::NothingToApply { record }) => {
            t.plan_id = Some(record.id.clone());
            tracer.write(store, &t);
            None
        }
        Ok(Outcome::CheckFailed {
            record,
            report,
            verdict,
            like_base,
        }) => {
            t.plan_id = Some(record.id.clone());
            t.check = Some(record::check_log(report));
            let tests = match (verdict.fixes, verdict.breaks, verdict.still_failing) {
                (Some(fixes), Some(breaks), Some(still_failing)) => Some(Counts {
                    fixes,
                    breaks,
                    still_failing,
                }),
                _ => None,
            };
            let event = OutcomeEvent::ApplyRollback {
                plan: record.short_id().to_string(),
                tests,
            };
            t.transcript.events.push(event.to_string());
            let failed = apply::check_failure(report, verdict, record.short_id(), *like_base);
            tracer.write_failed(store, &mut t, &[failed]);
            Some(event)
        }
    }
}

/// Writes the trace of a merge of `spec` and returns its event, when it merged.
pub fn merge(
    tracer: &Tracer,
    store: &Store,
    spec: Option<&str>,
    merged: &Result<Merged, Problem>,
) -> Option<OutcomeEvent> {
    let mut t = tracer.start("merge", None);
    t.plan_id = spec.map(str::to_string);
    match merged {
        Ok(m) => {
            t.plan_id = Some(m.record.id.clone());
            t.branch = Some(m.into.clone());
            let event = OutcomeEvent::MergeSuccess {
                plan: m.record.short_id().to_string(),
                into: m.into.clone(),
                old: m.old.to_string(),
                new: m.new.to_string(),
            };
            t.transcript.events.push(event.to_string());
            tracer.write(store, &t);
            Some(event)
        }
        Err(problem) => {
            tracer.write_failed(store, &mut t, std::slice::from_ref(problem));
            None
        }
    }
}
