//! `plan --repro`: a reproduction test before the fixes (see [`git_papayu::engine::repro`]).
//!
//! The model (or a recorded answer, `--repro-response`) writes a test; it is stored as a plan of
//! its own and run on the base. When it does not reproduce (its tests pass, or never ran), a
//! model is told why once and asked again; then the fixes are asked for without one, and that is
//! said in one line.

use std::path::PathBuf;

use git_papayu::ask::session::{self, Ask};
use git_papayu::engine::apply::Progress;
use git_papayu::engine::attribution::Attribution;
use git_papayu::engine::baseline::Sources;
use git_papayu::engine::check::{self, CheckChoice, CheckSettings, ResolvedCheck};
use git_papayu::engine::plan::{CheckOptions, Planned, Seen};
use git_papayu::engine::repro::{self, Mode};
use git_papayu::engine::reproduce::{self, Reproduced, Tried};
use git_papayu::protocol::Mode as Phase;
use git_papayu::settings::Settings;
use git_papayu::store::records::PlanKind;
use git_papayu::store::{Oid, Store};
use git_papayu::trace::record::Tracer;
use git_papayu::{Code, Problem};

use super::{CliError, asking, ui};

/// Where a reproduction comes from.
pub enum Source {
    /// The configured model writes it (told once why, when it reproduces nothing).
    Model,
    /// `--repro-response`: an answer recorded in a file.
    File(PathBuf),
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

/// The check a reproduction runs with, and how.
struct Checking {
    check: ResolvedCheck,
    settings: CheckSettings,
    sources: Sources,
    attribution: Attribution,
}

/// Asks for a reproduction of `goal` on `base` when `flag` (`--repro`/`--no-repro`) or
/// `papayu.repro` wants one, runs it, and returns it when it reproduces. `None` when none was
/// wanted, or none reproduced (said on stderr).
pub fn first(
    store: &Store,
    config: &Settings,
    (base, goal): (Oid, &str),
    flag: Option<bool>,
    asking: &Asking,
) -> Result<Option<Reproduced>, CliError> {
    let mode = Mode::configured(flag, config)?;
    if mode == Mode::Never {
        return Ok(None);
    }
    let settings = CheckSettings::resolve(config, false, None)?;
    let check = check::resolve(store, &CheckChoice::Configured, &settings, base)?;
    if !mode.wanted(check.is_some(), goal) {
        return Ok(None);
    }
    let Some(check) = check else {
        return Err(Problem::new(
            Code::ReproNeedsCheck,
            "a reproduction is run on the base by the check, and no check is configured; nothing was asked or stored",
        )
        .with_hint(
            "set the check with git config papayu.checkCommand \"pytest -rA\" (or PAPAYU_CHECK_COMMAND), or plan without --repro",
        )
        .into());
    };
    let checking = Checking {
        check,
        settings,
        sources: Sources::resolve(config)?,
        attribution: Attribution::configured(config)?,
    };
    // Why the last try reproduced nothing, and its check's output.
    let mut tried: Option<(String, String)> = None;
    // A recorded reproduction is tried once; a model's is repaired once.
    let tries = match asking.source {
        Source::Model => 2,
        Source::File(_) | Source::Agent { .. } => 1,
    };
    let kind = super::pasted::Kind {
        kind: Some(PlanKind::Repro),
        repro: None,
    };
    for n in 1..=tries {
        let planned = match &asking.source {
            Source::Model => {
                let last = tried.as_ref().map(|(w, o)| (w.as_str(), o.as_str()));
                match asked(store, config, (base, goal), asking, &checking, last)? {
                    Ok(planned) => planned,
                    // A model's test that touches code is told so once, as one that reproduces
                    // nothing is.
                    Err(problem) if n < tries => {
                        ui::status(&format!(
                            "reproduction rejected ({}); asking again (repair 1/1)",
                            problem.reason
                        ));
                        let why = format!("{} (only test files may change)", problem.reason);
                        tried = Some((why, String::new()));
                        continue;
                    }
                    Err(problem) => return Err(problem.into()),
                }
            }
            Source::File(file) => recorded(store, config, (base, goal), file, &kind)?,
            Source::Agent { answer, agent } => super::pasted::agent_answer(
                store,
                config,
                (goal.to_string(), base),
                answer,
                (agent, &kind),
            )?,
        };
        match run(store, &planned, &checking)? {
            Tried::Reproduces(reproduced) => {
                report_reproduced(&reproduced);
                return Ok(Some(*reproduced));
            }
            Tried::DoesNotReproduce(not) => {
                let again = if n < tries {
                    "; asking again (repair 1/1)"
                } else {
                    "; the fixes are asked for without one"
                };
                ui::status(&format!(
                    "reproduction {} does not reproduce: {}{again}",
                    not.record.short_id(),
                    not.why
                ));
                ui::data(&serde_json::json!({
                    "repro": { "plan": not.record.id, "reproduces": false, "why": not.why },
                }));
                tried = Some((not.why, not.output_tail));
            }
        }
    }
    Ok(None)
}

/// The reproduction a model writes (told why the last one did not reproduce, when one did
/// not), stored as a `repro` plan.
fn asked(
    store: &Store,
    config: &Settings,
    (base, goal): (Oid, &str),
    asking: &Asking,
    checking: &Checking,
    tried: Option<(&str, &str)>,
) -> Result<Result<Planned, Problem>, CliError> {
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
    let tracer = Tracer::new(config, ui::warn);
    let mut candidates = asking::ask_models(store, config, ask, &tracer, "repro")?;
    let (candidate, mut provenance, mut trace) = candidates.remove(0);
    if let Err(problem) = repro::only_tests(&candidate.plan) {
        tracer.write_failed(store, &mut trace, std::slice::from_ref(&problem));
        return Ok(Err(problem));
    }
    provenance.goal = goal.to_string();
    provenance.kind = Some(PlanKind::Repro);
    provenance.conversation = Some(git_papayu::trace::conversation::of_trace(&trace));
    let mut planned = session::store_all(store, &tracer, vec![(candidate, provenance, trace)])?;
    Ok(Ok(planned.remove(0)))
}

/// The reproduction read from `file`, stored as a `repro` plan.
fn recorded(
    store: &Store,
    config: &Settings,
    (base, goal): (Oid, &str),
    file: &std::path::Path,
    kind: &super::pasted::Kind,
) -> Result<Planned, CliError> {
    let how = CheckOptions {
        protocol: None,
        mode: Phase::Plan,
        normalize_eol: super::validate::normalize_eol(config),
        allowlist: None,
        seen: Seen::Pasted,
    };
    let mut planned = super::pasted::pasted(
        store,
        config,
        (base, goal),
        &[file.to_path_buf()],
        (&how, kind),
    )?;
    Ok(planned.remove(0))
}

/// Runs a stored reproduction on its base with a spinner.
fn run(store: &Store, planned: &Planned, checking: &Checking) -> Result<Tried, CliError> {
    let spinner = ui::Spinner::new(&format!("repro {}", planned.record.short_id()));
    spinner.set_message("running the reproduction on the base");
    let mut sink = |progress: Progress<'_>| match progress {
        Progress::CheckingBase => spinner.set_message("running the check on the base"),
        Progress::CheckingFlaky(_) => {
            spinner.set_message("running again to tell flaky tests");
        }
        _ => {}
    };
    let tried = reproduce::run(
        store,
        &planned.record,
        &checking.check,
        (&checking.settings, &checking.sources),
        checking.attribution,
        &mut sink,
    );
    drop(spinner);
    Ok(tried?)
}

/// `reproduction abc1234 on papayu/repro-…: 1 test fails at the base`, then each test with
/// the first line of its failure.
fn report_reproduced(reproduced: &Reproduced) {
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
    ui::status(&text);
    ui::data(&serde_json::json!({
        "repro": {
            "plan": reproduced.record.id, "reproduces": true, "branch": reproduced.branch,
            "commit": reproduced.commit.to_string(), "tests": reproduced.tests,
            "evidence": reproduced.evidence,
        },
    }));
}
