//! Asking models from the command line, shared by `plan`, the free-text router and `refine`:
//! the session of `ask::session` runs with spinners on stderr and Ctrl-C to cancel, providers
//! that failed are warned of, and a plan's memory proposal is offered at the prompt.

use git_papayu::ask::memory;
use git_papayu::ask::session::{self, Ask, Asked, Session};
use git_papayu::engine::plan::Planned;
use git_papayu::settings::Settings as Config;
use git_papayu::store::Store;
use git_papayu::trace::Trace;
use git_papayu::trace::record::Tracer;
use git_papayu::{Code, Problem};

use super::progress::Spinners;
use super::{CliError, ui};

/// Asks the configured providers and stores every valid plan as one operation, with traces.
/// Fails (with every provider's problems) only when no provider produced a plan.
/// For fixes of a reproduced problem (`reproduced`: the goal and the reproduction's id) the
/// model is asked `ask.goal`, which carries the reproduction's brief, and each plan keeps the
/// goal and names the reproduction.
pub fn ask_and_store(
    store: &Store,
    config: &Config,
    ask: Ask,
    reproduced: Option<(&str, &str)>,
) -> Result<Vec<Planned>, CliError> {
    let tracer = Tracer::new(config, ui::warn);
    let asked = ask_models(store, config, ask, &tracer, "plan")?;
    // Every plan of one command competes with the others: one group. Each carries its
    // conversation, so the reasoning travels with the plan.
    let group = git_papayu::engine::compare::new_group_id();
    let asked = asked
        .into_iter()
        .map(|(c, mut p, t)| {
            p.group = Some(group.clone());
            if let Some((goal, repro)) = reproduced {
                p.goal = goal.to_string();
                p.repro = Some(repro.to_string());
            }
            p.conversation = Some(git_papayu::trace::conversation::of_trace(&t));
            (c, p, t)
        })
        .collect();
    Ok(session::store_all(store, &tracer, asked)?)
}

/// Asks the configured providers with spinners on stderr, cancelled by Ctrl-C; returns every
/// checked candidate (nothing is stored) and warns of the providers that failed.
pub fn ask_models(
    store: &Store,
    config: &Config,
    ask: Ask,
    tracer: &Tracer,
    kind: &str,
) -> Result<Vec<Asked<Trace>>, CliError> {
    let session = Session::open(store, ask, config)?;
    if let Some(notice) = &session.settings.notice {
        ui::status(notice);
    }
    let spinners = Spinners::new(&session.providers());
    let sink = |p| spinners.report(p);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Internal(e.into()))?;
    let answers = runtime.block_on(async {
        tokio::select! {
            answers = session.ask(store, tracer, kind, &sink) => Some(answers),
            _ = tokio::signal::ctrl_c() => None,
        }
    });
    spinners.clear();
    let Some(answers) = answers else {
        return Err(Problem::new(
            Code::Cancelled,
            "cancelled while waiting for the model; nothing was stored",
        )
        .into());
    };
    let answers = answers?;
    for (p, n) in alike(&answers.failures) {
        match n {
            1 => ui::warn(&format!("no plan from this provider: {p}")),
            n => ui::warn(&format!(
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

/// Shows a plan's `memory_patch` and writes it when the user accepts: with `--accept-memory`,
/// or a `y` at the prompt when stdin and stderr are terminals. Never written otherwise.
pub fn offer_memory(
    store: &Store,
    config: &Config,
    planned: &[Planned],
    accept: bool,
) -> Result<(), CliError> {
    let json = ui::json_mode();
    let Some(patch) = planned
        .iter()
        .map(|p| &p.record.plan.memory_patch)
        .find(|m| !m.is_empty())
    else {
        return Ok(());
    };
    if !json {
        // The preview may still be in the pager, which owns the terminal: the proposal and
        // its question come once the user has left it.
        ui::end_paging();
        ui::status("The model proposes to remember:");
        for (key, value) in patch {
            ui::status(&format!("  {key} = {value}"));
        }
    }
    let yes = accept || (!json && ui::ask_yes("Remember this? [y/N] "));
    if !yes {
        if !json {
            ui::status("Not remembered (use --accept-memory to accept).");
        }
        return Ok(());
    }
    let written = memory::accept(store, config.env_map(), patch)?;
    ui::data(&serde_json::json!({ "memory_written": written }));
    if !json {
        ui::status(&format!("Remembered: {}", written.join(", ")));
    }
    Ok(())
}
