//! Answers written elsewhere — a chat, another tool, a replay, an agent's own plan — checked
//! and stored as plans without asking a model, traced as a model's answer is.

use crate::clock::now_millis;
use crate::codes::{Code, Problem, Problems};
use crate::engine::plan::{self, CheckOptions, Planned, Provenance, Seen};
use crate::store::Oid;
use crate::store::records::PlanKind;
use crate::trace::conversation;
use crate::trace::record;

use super::Service;

/// What pasted answers are: fixes (naming the reproduction they are checked against, if any),
/// or a reproduction.
#[derive(Debug, Default, Clone)]
pub struct Kind {
    pub kind: Option<PlanKind>,
    pub repro: Option<String>,
}

/// One answer read by the front end: where it came from (a file name, for errors) and its bytes.
pub struct Answer {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// Stores `answers` as plans of `goal` on `base`, in one operation: each its own plan, all of
/// them one group when there are several. Every answer is checked first (a reproduction: that
/// it only touches test files); when one fails, none is stored and the failure names its answer.
pub fn pasted(
    service: &Service<'_>,
    (base, goal): (Oid, &str),
    answers: &[Answer],
    (how, kind): (&CheckOptions<'_>, &Kind),
) -> Result<Vec<Planned>, Problems> {
    let store = service.store;
    let group = (answers.len() > 1).then(crate::engine::compare::new_group_id);
    let tracer = service.tracer();
    let step = service.observer().step("plan");
    step.message("checking the answers and building the previews");
    let mut checked = Vec::new();
    // One millisecond apart, so the answers are ordered as they were given.
    let now = now_millis();
    for (n, answer) in answers.iter().enumerate() {
        let mut provenance = Provenance {
            goal: goal.to_string(),
            provider: "manual".to_string(),
            model: None,
            trace_id: uuid::Uuid::new_v4().to_string(),
            created_at: now + i64::try_from(n).unwrap_or(0),
            schema_hash: None,
            stats: None,
            group: group.clone(),
            sample: group
                .as_ref()
                .map(|_| u32::try_from(n + 1).unwrap_or(u32::MAX)),
            conversation: None,
            kind: kind.kind,
            repro: kind.repro.clone(),
        };
        let mut t = tracer.start("plan", Some(provenance.trace_id.clone()));
        t.goal = Some(provenance.goal.clone());
        t.base = Some(base.to_string());
        t.transcript.provider = provenance.provider.clone();
        let mut transcript = t.transcript.clone();
        transcript.answers = vec![String::from_utf8_lossy(&answer.bytes).into_owned()];
        tracer.conversation(&mut t, transcript);
        provenance.conversation = Some(conversation::of_trace(&t));
        let checked_answer =
            plan::check_answer(store, base, &answer.bytes, how).and_then(|c| match kind.kind {
                Some(_) => crate::engine::repro::only_tests(&c.plan)
                    .map(|()| c)
                    .map_err(Into::into),
                None => Ok(c),
            });
        match checked_answer {
            Ok(candidate) => checked.push((candidate, provenance, t)),
            Err(problems) => {
                drop(step);
                tracer.write_failed(store, &mut t, &problems);
                return Err(named(problems, &answer.name, answers.len()));
            }
        }
    }
    drop(step);
    let (plans, mut traces): (Vec<_>, Vec<_>) = checked
        .into_iter()
        .map(|(candidate, provenance, t)| ((candidate, provenance), t))
        .unzip();
    let stored = plan::store_plans(store, plans)?;
    for (planned, t) in stored.iter().zip(traces.iter_mut()) {
        record::plan_stored(t, planned);
        tracer.write(store, t);
    }
    Ok(stored)
}

/// The problems of one answer among several, each saying which answer it came from.
fn named(mut problems: Problems, name: &str, of: usize) -> Problems {
    if of > 1 {
        for p in problems.iter_mut() {
            p.reason = format!("{name}: {}; no answer was stored", p.reason);
        }
    }
    problems
}

/// Stores an agent's own plan text, with its conversation (the goal and the answer): a fix, or
/// with `kind` a reproduction (refused unless it only touches test files). Traced as a pasted
/// answer is: the same files, the same events.
pub fn agent_answer(
    service: &Service<'_>,
    (goal, base): (String, Oid),
    answer: &str,
    (agent, kind): (&str, &Kind),
) -> Result<Planned, Problems> {
    let store = service.store;
    let tracer = service.tracer();
    let trace_id = uuid::Uuid::new_v4().to_string();
    let mut t = tracer.start("plan", Some(trace_id.clone()));
    t.goal = Some(goal.clone());
    t.base = Some(base.to_string());
    t.transcript.provider = "mcp".to_string();
    t.transcript.model = agent.to_string();
    let mut transcript = t.transcript.clone();
    transcript.answers = vec![answer.to_string()];
    tracer.conversation(&mut t, transcript);
    let provenance = Provenance {
        goal,
        provider: "mcp".to_string(),
        model: Some(agent.to_string()),
        trace_id,
        created_at: now_millis(),
        schema_hash: None,
        stats: None,
        conversation: Some(conversation::of_trace(&t)),
        group: None,
        sample: None,
        kind: kind.kind,
        repro: kind.repro.clone(),
    };
    let how = CheckOptions {
        protocol: None,
        mode: crate::protocol::Mode::Plan,
        normalize_eol: service.normalize_eol()?,
        allowlist: None,
        seen: Seen::Pasted,
    };
    let made = plan::make_pasted(store, base, answer.as_bytes(), &how, provenance);
    match made {
        Ok(planned) => {
            record::plan_stored(&mut t, &planned);
            tracer.write(store, &t);
            Ok(planned)
        }
        Err(problems) => {
            tracer.write_failed(store, &mut t, &problems);
            Err(problems)
        }
    }
}

/// Refuses `-` given more than once: standard input holds one answer.
pub fn one_stdin<'a>(names: impl IntoIterator<Item = &'a std::ffi::OsStr>) -> Result<(), Problem> {
    if names.into_iter().filter(|f| *f == "-").count() > 1 {
        return Err(Problem::new(
            Code::Usage,
            "--response - reads standard input, which holds one answer; give the others as files",
        ));
    }
    Ok(())
}
