//! A reproduction test before the fixes (see [`crate::engine::repro`]).
//!
//! The model (or a recorded answer, or an agent's own test) writes a test; it is stored as a
//! plan of its own and run on the base. When it does not reproduce (its tests pass, or never
//! ran), a model is told why once and asked again; then the fixes are asked for without one,
//! and that is said in one line.

use serde::Serialize;

use crate::ask::session::{self, Ask};
use crate::codes::{Code, Problem, Problems};
use crate::engine::apply::Progress;
use crate::engine::attribution::Attribution;
use crate::engine::baseline::Sources;
use crate::engine::check::{self, CheckChoice, CheckSettings, ResolvedCheck};
use crate::engine::plan::{CheckOptions, Planned, Seen};
use crate::engine::repro::{self, Mode};
use crate::engine::reproduce::{self, Reproduced, Tried};
use crate::protocol::Mode as Phase;
use crate::store::Oid;
use crate::store::records::PlanKind;

use super::Service;
use super::paste::{self, Answer, Kind};

/// Where a reproduction comes from.
pub enum Source {
    /// The configured model writes it (told once why, when it reproduces nothing).
    Model,
    /// An answer recorded elsewhere (`--repro-response FILE`).
    Recorded(Answer),
    /// An agent's own plan text (MCP), and the agent's name.
    Agent { answer: String, agent: String },
}

/// How the reproduction is asked for.
pub struct Asking {
    pub provider: Option<String>,
    pub model: Option<String>,
    pub max_cost: Option<f64>,
    pub source: Source,
}

/// One reproduction tried: whether it reproduces, and why not, or where it went and what it
/// showed failing. `--json` and MCP give it as it is.
#[derive(Debug, Clone, Serialize)]
pub struct Attempt {
    pub plan: String,
    pub reproduces: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tests: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Vec<String>>,
}

impl Attempt {
    fn reproduced(r: &Reproduced) -> Attempt {
        Attempt {
            plan: r.record.id.clone(),
            reproduces: true,
            why: None,
            branch: Some(r.branch.clone()),
            commit: Some(r.commit.to_string()),
            tests: Some(r.tests.clone()),
            evidence: Some(r.evidence.clone()),
        }
    }
}

/// What asking for a reproduction came to: every try in order, and the one that reproduces.
#[derive(Default)]
pub struct Repro {
    pub attempts: Vec<Attempt>,
    pub reproduced: Option<Reproduced>,
}

/// The check a reproduction runs with, and how.
struct Checking {
    check: ResolvedCheck,
    settings: CheckSettings,
    sources: Sources,
    attribution: Attribution,
}

/// Asks for a reproduction of `goal` on `base` when `flag` (`--repro`/`--no-repro`) or
/// `papayu.repro` wants one, and runs it. Nothing is tried when none is wanted; the fixes go
/// ahead without one when none reproduced (said to the observer).
pub fn first(
    service: &Service<'_>,
    (base, goal): (Oid, &str),
    flag: Option<bool>,
    asking: &Asking,
) -> Result<Repro, Problems> {
    let config = service.config;
    let mode = Mode::configured(flag, config)?;
    if mode == Mode::Never {
        return Ok(Repro::default());
    }
    let settings = CheckSettings::resolve(config, false, None)?;
    let check = check::resolve(service.store, &CheckChoice::Configured, &settings, base)?;
    if !mode.wanted(check.is_some(), goal) {
        return Ok(Repro::default());
    }
    let Some(check) = check else {
        return Err(vec![Problem::new(
            Code::ReproNeedsCheck,
            "a reproduction is run on the base by the check, and no check is configured; nothing was asked or stored",
        )
        .with_hint(
            "set the check with git config papayu.checkCommand \"pytest -rA\" (or PAPAYU_CHECK_COMMAND), or plan without --repro",
        )]);
    };
    let checking = Checking {
        check,
        settings,
        sources: Sources::resolve(config)?,
        attribution: Attribution::configured(config)?,
    };
    tries(service, (base, goal), asking, &checking)
}

/// Up to two tries of a model's reproduction (the second told why the first failed), one of
/// a recorded or an agent's.
fn tries(
    service: &Service<'_>,
    (base, goal): (Oid, &str),
    asking: &Asking,
    checking: &Checking,
) -> Result<Repro, Problems> {
    let observer = service.observer();
    let mut out = Repro::default();
    // Why the last try reproduced nothing, and its check's output.
    let mut tried: Option<(String, String)> = None;
    let tries = match asking.source {
        Source::Model => 2,
        Source::Recorded(_) | Source::Agent { .. } => 1,
    };
    let kind = Kind {
        kind: Some(PlanKind::Repro),
        repro: None,
    };
    for n in 1..=tries {
        let planned = match &asking.source {
            Source::Model => {
                let last = tried.as_ref().map(|(w, o)| (w.as_str(), o.as_str()));
                match asked(service, (base, goal), asking, checking, last)? {
                    Ok(planned) => planned,
                    // A model's test that touches code is told so once, as one that reproduces
                    // nothing is.
                    Err(problem) if n < tries => {
                        observer.status(&format!(
                            "reproduction rejected ({}); asking again (repair 1/1)",
                            problem.reason
                        ));
                        let why = format!("{} (only test files may change)", problem.reason);
                        tried = Some((why, String::new()));
                        continue;
                    }
                    Err(problem) => return Err(vec![problem]),
                }
            }
            Source::Recorded(answer) => recorded(service, (base, goal), answer, &kind)?,
            Source::Agent { answer, agent } => {
                paste::agent_answer(service, (goal.to_string(), base), answer, (agent, &kind))?
            }
        };
        match run(service, &planned, checking)? {
            Tried::Reproduces(reproduced) => {
                observer.status(&reproduced_line(&reproduced));
                out.attempts.push(Attempt::reproduced(&reproduced));
                out.reproduced = Some(*reproduced);
                return Ok(out);
            }
            Tried::DoesNotReproduce(not) => {
                let again = if n < tries {
                    "; asking again (repair 1/1)"
                } else {
                    "; the fixes are asked for without one"
                };
                observer.status(&format!(
                    "reproduction {} does not reproduce: {}{again}",
                    not.record.short_id(),
                    not.why
                ));
                out.attempts.push(Attempt {
                    plan: not.record.id.clone(),
                    reproduces: false,
                    why: Some(not.why.clone()),
                    branch: None,
                    commit: None,
                    tests: None,
                    evidence: None,
                });
                tried = Some((not.why, not.output_tail));
            }
        }
    }
    Ok(out)
}

/// The reproduction a model writes (told why the last one did not reproduce, when one did
/// not), stored as a `repro` plan; the inner error is an answer that touches code.
fn asked(
    service: &Service<'_>,
    (base, goal): (Oid, &str),
    asking: &Asking,
    checking: &Checking,
    tried: Option<(&str, &str)>,
) -> Result<Result<Planned, Problem>, Problems> {
    let command = &checking.check.command;
    let question = match tried {
        Some(tried) => reproduce::instruction_again(goal, command, tried),
        None => repro::instruction(goal, command),
    };
    let ask = Ask {
        provider: asking.provider.clone(),
        model: asking.model.clone(),
        max_cost: asking.max_cost,
        ..Ask::plan(question, base)
    };
    let tracer = service.tracer();
    let mut candidates = super::ask::ask_models(service, ask, &tracer, "repro")?;
    let (candidate, mut provenance, mut trace) = candidates.remove(0);
    if let Err(problem) = repro::only_tests(&candidate.plan) {
        tracer.write_failed(service.store, &mut trace, std::slice::from_ref(&problem));
        return Ok(Err(problem));
    }
    provenance.goal = goal.to_string();
    provenance.kind = Some(PlanKind::Repro);
    provenance.conversation = Some(crate::trace::conversation::of_trace(&trace));
    let mut planned =
        session::store_all(service.store, &tracer, vec![(candidate, provenance, trace)])?;
    Ok(Ok(planned.remove(0)))
}

/// A recorded reproduction, stored as a `repro` plan.
fn recorded(
    service: &Service<'_>,
    (base, goal): (Oid, &str),
    answer: &Answer,
    kind: &Kind,
) -> Result<Planned, Problems> {
    let how = CheckOptions {
        protocol: None,
        mode: Phase::Plan,
        normalize_eol: service.normalize_eol()?,
        allowlist: None,
        seen: Seen::Pasted,
    };
    let answers = std::slice::from_ref(answer);
    let mut planned = paste::pasted(service, (base, goal), answers, (&how, kind))?;
    Ok(planned.remove(0))
}

/// Runs a stored reproduction on its base.
fn run(service: &Service<'_>, planned: &Planned, checking: &Checking) -> Result<Tried, Problems> {
    let step = service
        .observer()
        .step(&format!("repro {}", planned.record.short_id()));
    step.message("running the reproduction on the base");
    let mut sink = |progress: Progress<'_>| match progress {
        Progress::CheckingBase => step.message("running the check on the base"),
        Progress::CheckingFlaky(_) => step.message("running again to tell flaky tests"),
        _ => {}
    };
    reproduce::run(
        service.store,
        &planned.record,
        &checking.check,
        (&checking.settings, &checking.sources),
        checking.attribution,
        &mut sink,
    )
}

/// `reproduction abc1234 on papayu/repro-…: 1 test fails at the base`, then each test with
/// the first line of its failure.
fn reproduced_line(reproduced: &Reproduced) -> String {
    let n = reproduced.tests.len();
    let tests = if n == 1 { "test fails" } else { "tests fail" };
    let mut text = format!(
        "reproduction {} on {}: {n} {tests} at the base",
        reproduced.record.short_id(),
        reproduced.branch
    );
    for line in &reproduced.evidence {
        text.push_str(&format!("\n  {line}"));
    }
    text
}
