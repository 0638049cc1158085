//! `git papayu plan`: validate a model's answer, preview it, store it as a note.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use git_papayu::Problem;
use git_papayu::ask::session::Ask;
use git_papayu::engine::plan::{self, CheckOptions, Planned, Seen};
use git_papayu::protocol::{Mode, ProtocolVersion};
use git_papayu::store::Store;
use git_papayu::trace::record;

use super::asking;
pub use super::pasted::read_input;
use super::{CliResult, render, ui};
use git_papayu::service::paste::{Kind, pasted};
use git_papayu::service::repro::{Asking, Source};

/// Ask a model for a plan and store it as a note on the base commit.
///
/// The context (files named in the goal and logs, tracebacks, the repository map) is read from
/// the base commit, never from your working tree, and sent to the configured provider(s): see
/// `git papayu config` and docs/providers.md. The answer is validated and dry-run against the
/// base tree (the dry run is the preview), repaired once if it fails a check, and stored as one
/// line of JSON in the note on the base commit under refs/notes/papayu. With several providers,
/// each valid answer becomes its own plan. With --response, the answer is read from a file
/// instead (a pasted chat answer, or a replay) and no model is asked; several --response files
/// (answers from several chats, or from another tool) become competing plans of one group, to
/// check with apply --all and choose between with compare and pick.
#[derive(Debug, Args)]
pub struct PlanArgs {
    /// What the plan is for (sent to the model; used for the branch name and the record).
    #[arg(value_parser = non_empty)]
    pub goal: String,
    /// Take the model's answer from this file ('-' for stdin) instead of asking a model; given
    /// several times, each answer is its own plan and all of them form one group.
    #[arg(long = "response", value_name = "FILE|-")]
    pub responses: Vec<PathBuf>,
    /// Revision to plan against.
    #[arg(long, value_name = "REV", default_value = "HEAD")]
    pub base: String,
    /// Protocol to ask for (default 2, falling back to 1 once when a v2 answer cannot apply);
    /// with --response, the protocol of the answer (default: v2 when it validates as v2).
    #[arg(long, value_name = "1|2", value_parser = clap::value_parser!(u8).range(1..=2))]
    pub protocol: Option<u8>,
    /// With --response: validate the pasted answer as a PLAN answer (actions optional) or an
    /// APPLY answer (empty actions need a summary starting with NO_CHANGES:), as validate does.
    /// Hidden: a model asked by plan always answers in the PLAN phase, so it means nothing
    /// without --response.
    #[arg(long, value_enum, default_value_t = ModeArg::Plan, hide = true, requires = "responses")]
    pub mode: ModeArg,
    /// How the model is asked to work: chat, fixit or fix-plan (default PAPAYU_LLM_MODE,
    /// papayu.llmMode, else chat).
    #[arg(long, value_name = "MODE")]
    pub llm_mode: Option<String>,
    /// Provider(s) to ask, comma-separated, each NAME or NAME:MODEL (default
    /// PAPAYU_LLM_PROVIDERS, papayu.provider, else a local Ollama).
    #[arg(long, value_name = "P")]
    pub provider: Option<String>,
    /// Model to ask for.
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,
    /// A log or error report to send with the goal ('-' for stdin); may be repeated.
    #[arg(long = "log", visible_alias = "error-report", value_name = "FILE|-")]
    pub logs: Vec<PathBuf>,
    /// Write an accepted memory_patch without asking.
    #[arg(long)]
    pub accept_memory: bool,
    /// Ask each provider for N answers: the first with the seeds' sampling parameters, the
    /// others at a higher temperature with seeds of their own. All of them form one group to
    /// compare (git papayu compare).
    #[arg(long, value_name = "N", default_value_t = 1, conflicts_with = "responses",
          value_parser = clap::value_parser!(u32).range(1..=16))]
    pub samples: u32,
    /// Stop asking once the requests could cost more than USD dollars in all (default
    /// papayu.maxCost); needs papayu.<provider>.price. Each request is estimated before it is
    /// sent and refused with ERR_COST_CAP when it could pass the cap.
    #[arg(long, value_name = "USD", conflicts_with = "responses", value_parser = usd)]
    pub max_cost: Option<f64>,
    /// Ask for a test that reproduces the problem first, and run it on the base: when one of
    /// its tests fails there, it goes on a papayu/repro-* branch and every fix is checked with
    /// it (default papayu.repro: auto, always or never; unset is never). Needs a check.
    #[arg(long, conflicts_with = "no_repro")]
    pub repro: bool,
    /// Do not ask for a reproduction, whatever papayu.repro says.
    #[arg(long)]
    pub no_repro: bool,
    /// Take the reproduction from this file (a recorded answer that adds test files) instead
    /// of asking a model for one; implies --repro.
    #[arg(long, value_name = "FILE", conflicts_with = "no_repro")]
    pub repro_response: Option<PathBuf>,
}

/// Parses a dollar amount (clap value parser).
fn usd(text: &str) -> Result<f64, String> {
    git_papayu::cost::parse_usd(text)
        .ok_or_else(|| "must be an amount of US dollars, e.g. 0.50".to_string())
}

/// Rejects an empty or blank argument (clap value parser).
pub fn non_empty(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        Err("must not be empty".to_string())
    } else {
        Ok(text.to_string())
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ModeArg {
    Plan,
    Apply,
}

impl From<ModeArg> for Mode {
    fn from(m: ModeArg) -> Mode {
        match m {
            ModeArg::Plan => Mode::Plan,
            ModeArg::Apply => Mode::Apply,
        }
    }
}

/// Reads the logs named with `--log` ('-' for stdin), as (name, text).
pub fn read_logs(paths: &[PathBuf]) -> Result<Vec<(String, String)>, Problem> {
    paths
        .iter()
        .map(|path| {
            let bytes = read_input(path)?;
            let name = if path.as_os_str() == "-" {
                "stdin".to_string()
            } else {
                path.display().to_string()
            };
            Ok((name, String::from_utf8_lossy(&bytes).into_owned()))
        })
        .collect()
}

pub fn protocol_arg(n: Option<u8>) -> Option<ProtocolVersion> {
    n.map(|n| {
        if n == 1 {
            ProtocolVersion::V1
        } else {
            ProtocolVersion::V2
        }
    })
}

pub fn run(args: PlanArgs) -> CliResult {
    let PlanArgs {
        goal,
        responses,
        base,
        protocol,
        mode,
        llm_mode,
        provider,
        model,
        logs,
        accept_memory,
        samples,
        max_cost,
        repro,
        no_repro,
        repro_response,
    } = args;
    plan::check_goal("goal", &goal)?;
    let store = Store::open()?;
    let base = plan::resolve_base(&store, &base)?;
    let config = super::settings();
    let service = super::observer::service(&store, &config);
    let normalize_eol = service.normalize_eol()?;
    let flag = repro_flag(repro || repro_response.is_some(), no_repro);
    let how_asked = Asking {
        provider: provider.clone(),
        model: model.clone(),
        max_cost,
        source: repro_source(repro_response)?,
    };
    let reproduced = super::repro::first(&service, (base, &goal), flag, &how_asked)?;
    let repro_id = reproduced.as_ref().map(|r| r.record.id.clone());
    let planned = match responses.is_empty() {
        false => {
            let how = CheckOptions {
                protocol: protocol_arg(protocol),
                mode: mode.into(),
                normalize_eol,
                allowlist: None,
                seen: Seen::Pasted,
            };
            let kind = Kind {
                repro: repro_id,
                ..Kind::default()
            };
            let answers = super::pasted::answers(&responses)?;
            pasted(&service, (base, &goal), &answers, (&how, &kind))?
        }
        true => {
            let ask = Ask {
                goal,
                base,
                protocol: protocol_arg(protocol),
                phase: mode.into(),
                llm_mode,
                provider,
                model,
                logs: read_logs(&logs)?,
                samples,
                max_cost,
            };
            git_papayu::service::ask::ask_and_store(&service, ask, reproduced.as_ref())?
        }
    };
    show_planned(&planned, false);
    announce_group(&planned);
    asking::offer_memory(&store, &config, &planned, accept_memory)?;
    Ok(())
}

/// Whether to ask for a reproduction: `Some` when a flag says so, `None` to leave it to
/// papayu.repro.
fn repro_flag(wanted: bool, refused: bool) -> Option<bool> {
    match (wanted, refused) {
        (true, _) => Some(true),
        (false, true) => Some(false),
        (false, false) => None,
    }
}

/// Where a reproduction comes from: the recorded answer in `--repro-response`, else a model.
fn repro_source(recorded: Option<PathBuf>) -> Result<Source, Problem> {
    Ok(match recorded {
        Some(file) => Source::Recorded(super::pasted::answers(&[file])?.remove(0)),
        None => Source::Model,
    })
}

/// Says how to go on when the plans stored compete in one group.
fn announce_group(planned: &[Planned]) {
    if planned.len() > 1
        && let Some(group) = &planned[0].record.group
    {
        ui::status(&format!(
            "{} competing plans, group {group}: check them all with git papayu apply --all, then git papayu compare",
            planned.len()
        ));
    }
}

/// Prints stored plans: their description and preview (paged on a terminal), or JSON.
/// Shows the plans just stored: each one's description, preview and diffstat, and — unless
/// `applying` (the request goes on to apply them) — the command that applies it.
pub fn show_planned(planned: &[Planned], applying: bool) {
    for p in planned {
        for warning in &p.warnings {
            ui::warn(warning);
        }
        ui::event(&record::preview_ready(p).to_string());
    }
    ui::data(&git_papayu::service::ask::Stored::of(planned));
    if ui::json_mode() {
        return;
    }
    ui::paged();
    for (i, p) in planned.iter().enumerate() {
        if i > 0 {
            ui::outln("");
        }
        ui::out(&super::show::describe(&p.record, None, &[], None));
        if !p.changes.is_empty() {
            ui::outln("");
            ui::out_painted(&render::diff(&p.changes, ui::palette()));
            ui::out(&render::diffstat(&p.changes, ui::columns().unwrap_or(80)));
            if !applying {
                ui::outln("");
                ui::outln(&format!(
                    "Apply with: git papayu apply {}",
                    p.record.short_id()
                ));
            }
        }
    }
}
