//! `git papayu plan`: validate a model's answer, preview it, store it as a note.

use std::io::Read;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use git_papayu::ask::session::Ask;
use git_papayu::engine::plan::{self, CheckOptions, Planned, Provenance, Seen};
use git_papayu::protocol::{Mode, ProtocolVersion};
use git_papayu::store::Store;
use git_papayu::store::records::now_millis;
use git_papayu::trace::conversation;
use git_papayu::trace::record::{self, Tracer};
use git_papayu::{Code, Problem};

use super::asking;
use super::{CliResult, render, ui};

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

/// Reads a file, or stdin for `-`.
pub fn read_input(path: &std::path::Path) -> Result<Vec<u8>, Problem> {
    if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| Problem::new(Code::InputUnreadable, format!("reading stdin: {e}")))?;
        Ok(buf)
    } else {
        std::fs::read(path).map_err(|e| {
            Problem::new(
                Code::InputUnreadable,
                format!("reading {}: {e}", path.display()),
            )
        })
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
    } = args;
    plan::check_goal("goal", &goal)?;
    let store = Store::open()?;
    let base = plan::resolve_base(&store, &base)?;
    let config = super::settings();
    let normalize_eol = super::validate::normalize_eol(&config);
    let planned = match responses.is_empty() {
        false => {
            let how = CheckOptions {
                protocol: protocol_arg(protocol),
                mode: mode.into(),
                normalize_eol,
                allowlist: None,
                seen: Seen::Pasted,
            };
            pasted(&store, &config, (base, &goal), &responses, &how)?
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
            asking::ask_and_store(&store, &config, ask)?
        }
    };
    show_planned(&planned, false);
    if planned.len() > 1
        && let Some(group) = &planned[0].record.group
    {
        ui::status(&format!(
            "{} competing plans, group {group}: check them all with git papayu apply --all, then git papayu compare",
            planned.len()
        ));
    }
    asking::offer_memory(&store, &config, &planned, accept_memory)?;
    Ok(())
}

/// Stores the answers in `files` as plans of `goal` on `base`, in one operation: each its own
/// plan, all of them one group when there are several. Every answer is read and checked first;
/// when one fails, none is stored and the failure names its file.
fn pasted(
    store: &Store,
    config: &git_papayu::settings::Settings,
    (base, goal): (git_papayu::store::Oid, &str),
    files: &[PathBuf],
    how: &CheckOptions<'_>,
) -> Result<Vec<Planned>, git_papayu::codes::Problems> {
    if files.iter().filter(|f| f.as_os_str() == "-").count() > 1 {
        return Err(Problem::new(
            Code::Usage,
            "--response - reads standard input, which holds one answer; give the others as files",
        )
        .into());
    }
    let group = (files.len() > 1).then(git_papayu::engine::compare::new_group_id);
    let tracer = Tracer::new(config, ui::warn);
    let mut spinner = ui::Spinner::new("plan");
    spinner.set_message("checking the answers and building the previews");
    let mut checked = Vec::new();
    // One millisecond apart, so the answers are ordered as the files were given.
    let now = now_millis();
    for (n, file) in files.iter().enumerate() {
        let answer = read_input(file)?;
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
        };
        let mut t = tracer.start("plan", Some(provenance.trace_id.clone()));
        t.goal = Some(provenance.goal.clone());
        t.base = Some(base.to_string());
        t.transcript.provider = provenance.provider.clone();
        let mut transcript = t.transcript.clone();
        transcript.answers = vec![String::from_utf8_lossy(&answer).into_owned()];
        tracer.conversation(&mut t, transcript);
        provenance.conversation = Some(conversation::of_trace(&t));
        match plan::check_answer(store, base, &answer, how) {
            Ok(candidate) => checked.push((candidate, provenance, t)),
            Err(problems) => {
                spinner.clear();
                tracer.write_failed(store, &mut t, &problems);
                return Err(named(problems, file, files.len()));
            }
        }
    }
    spinner.clear();
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

/// The problems of one answer among several, each saying which file it came from.
fn named(
    mut problems: git_papayu::codes::Problems,
    file: &std::path::Path,
    of: usize,
) -> git_papayu::codes::Problems {
    if of > 1 {
        for p in problems.iter_mut() {
            p.reason = format!("{}: {}; no answer was stored", file.display(), p.reason);
        }
    }
    problems
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
    let plans: Vec<_> = planned
        .iter()
        .map(|p| serde_json::json!({ "plan": p.record, "changes": p.changes }))
        .collect();
    ui::data(&serde_json::json!({ "plans": plans }));
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
