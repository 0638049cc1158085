//! Asking the configured models: the plan loop of [`crate::ask::session`] run to its end (or
//! to Ctrl-C), the providers that failed warned of, and every valid plan of one request stored
//! as one group, each with its conversation and trace.

use crate::ask::session::{self, Ask, Asked, Session};
use crate::codes::{Code, Problem, Problems};
use crate::engine::plan::Planned;
use crate::engine::reproduce::{self, Reproduced};
use crate::trace::Trace;
use crate::trace::record::Tracer;

use super::Service;

/// Asks the configured providers and stores every valid plan as one operation, with traces.
/// Fails (with every provider's problems) only when no provider produced a plan.
/// For fixes of a reproduced problem the model is asked the goal with the reproduction's brief
/// below it (see [`reproduce::brief`]), and each plan keeps the goal alone and names the
/// reproduction.
pub fn ask_and_store(
    service: &Service<'_>,
    mut ask: Ask,
    reproduced: Option<&Reproduced>,
) -> Result<Vec<Planned>, Problems> {
    let goal = ask.goal.clone();
    let reproduced = reproduced.map(|r| {
        ask.goal = format!("{goal}\n\n{}", reproduce::brief(r));
        (goal.as_str(), r.record.id.as_str())
    });
    let tracer = service.tracer();
    let asked = ask_models(service, ask, &tracer, "plan")?;
    // Every plan of one request competes with the others: one group. Each carries its
    // conversation, so the reasoning travels with the plan.
    let group = crate::engine::compare::new_group_id();
    let asked = asked
        .into_iter()
        .map(|(c, mut p, t)| {
            p.group = Some(group.clone());
            if let Some((goal, repro)) = reproduced {
                p.goal = goal.to_string();
                p.repro = Some(repro.to_string());
            }
            p.conversation = Some(crate::trace::conversation::of_trace(&t));
            (c, p, t)
        })
        .collect();
    session::store_all(service.store, &tracer, asked)
}

/// Asks the configured providers, cancelled by Ctrl-C; returns every checked candidate
/// (nothing is stored) and warns of the providers that failed. `kind` names the traces.
pub fn ask_models(
    service: &Service<'_>,
    ask: Ask,
    tracer: &Tracer,
    kind: &str,
) -> Result<Vec<Asked<Trace>>, Problems> {
    let observer = service.observer();
    let session = Session::open(service.store, ask, service.config)?;
    if let Some(notice) = &session.settings.notice {
        observer.status(notice);
    }
    let waiting = observer.waiting(&session.providers());
    let sink = |p| waiting.report(p);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Problem::new(Code::Internal, format!("starting the runtime: {e}")))?;
    let answers = runtime.block_on(async {
        tokio::select! {
            answers = session.ask(service.store, tracer, kind, &sink) => Some(answers),
            _ = tokio::signal::ctrl_c() => None,
        }
    });
    drop(waiting);
    let Some(answers) = answers else {
        return Err(vec![Problem::new(
            Code::Cancelled,
            "cancelled while waiting for the model; nothing was stored",
        )]);
    };
    let answers = answers?;
    for (p, n) in alike(&answers.failures) {
        match n {
            1 => observer.warn(&format!("no plan from this provider: {p}")),
            n => observer.warn(&format!(
                "no plan from this provider ({n} requests, each refused alike): {p}"
            )),
        }
    }
    Ok(answers.candidates)
}

/// The failures with those alike counted once (`--samples 3` of an unpriced provider under a
/// cost cap are three refusals of one sentence), in the order first seen.
fn alike(failures: &[Problem]) -> Vec<(&Problem, usize)> {
    let mut out: Vec<(&Problem, usize)> = Vec::new();
    for p in failures {
        match out.iter_mut().find(|(q, _)| q.to_string() == p.to_string()) {
            Some((_, n)) => *n += 1,
            None => out.push((p, 1)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_alike_are_counted_once_in_order() {
        let a = Problem::new(Code::CostCap, "no price");
        let b = Problem::new(Code::LlmNotConfigured, "refused");
        let failures = [a.clone(), b.clone(), a.clone()];
        let counted = alike(&failures);
        let seen: Vec<(String, usize)> = counted.iter().map(|(p, n)| (p.to_string(), *n)).collect();
        assert_eq!(seen, vec![(a.to_string(), 2), (b.to_string(), 1)]);
    }
}

/// Plans just stored, as `plan --json` gives them: each record with its file changes.
#[derive(Debug, serde::Serialize)]
pub struct Stored<'a> {
    pub plans: Vec<StoredPlan<'a>>,
}

#[derive(Debug, serde::Serialize)]
pub struct StoredPlan<'a> {
    pub plan: &'a crate::store::records::PlanRecord,
    pub changes: &'a [crate::executor::FileChange],
}

impl<'a> Stored<'a> {
    pub fn of(planned: &'a [Planned]) -> Stored<'a> {
        Stored {
            plans: planned
                .iter()
                .map(|p| StoredPlan {
                    plan: &p.record,
                    changes: &p.changes,
                })
                .collect(),
        }
    }
}
