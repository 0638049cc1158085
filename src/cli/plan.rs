//! `git papayu plan`: validate a model's answer, preview it, store it as a note.

use std::io::Read;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use git_papayu::engine::plan::{self, PlanRequest};
use git_papayu::protocol::{Mode, ProtocolVersion};
use git_papayu::store::Store;
use git_papayu::{Code, Problem};

use super::{CliResult, render, ui};

/// Turn a model's answer into a stored plan on the base commit.
///
/// The answer (a JSON plan, bare or inside a ```json fence or surrounding prose) is read from
/// --response. It is validated, dry-run against the base tree (the dry run is the preview), and
/// stored as one line of JSON in the note on the base commit under refs/notes/papayu. Nothing
/// else in the repository changes.
#[derive(Debug, Args)]
pub struct PlanArgs {
    /// What the plan is for (used for the branch name and the record).
    pub goal: String,
    /// File holding the model's answer, or '-' for stdin.
    #[arg(long, value_name = "FILE|-")]
    pub response: PathBuf,
    /// Revision to plan against.
    #[arg(long, value_name = "REV", default_value = "HEAD")]
    pub base: String,
    /// Protocol of the answer; by default v2 when it validates as v2, else v1.
    #[arg(long, value_name = "1|2", value_parser = clap::value_parser!(u8).range(1..=2))]
    pub protocol: Option<u8>,
    /// Validate as a PLAN answer (actions optional) or an APPLY answer (empty actions need a
    /// summary starting with NO_CHANGES:).
    #[arg(long, value_enum, default_value_t = ModeArg::Plan)]
    pub mode: ModeArg,
    /// Print the stored record and preview as JSON.
    #[arg(long)]
    pub json: bool,
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
            .map_err(|e| Problem::new(Code::Io, format!("reading stdin: {e}")))?;
        Ok(buf)
    } else {
        std::fs::read(path)
            .map_err(|e| Problem::new(Code::Io, format!("reading {}: {e}", path.display())))
    }
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
        response,
        base,
        protocol,
        mode,
        json,
    } = args;
    let answer = read_input(&response)?;
    let store = Store::open()?;
    let request = PlanRequest {
        goal,
        answer,
        base: Some(base),
        protocol: protocol_arg(protocol),
        mode: mode.into(),
        normalize_eol: std::env::var("PAPAYU_NORMALIZE_EOL")
            .is_ok_and(|v| v.eq_ignore_ascii_case("lf")),
        provider: "manual".to_string(),
        model: None,
    };
    let planned = plan::make(&store, request)?;
    for warning in &planned.warnings {
        ui::warn(warning);
    }
    if json {
        ui::json(&serde_json::json!({ "plan": planned.record, "changes": planned.changes }));
        return Ok(());
    }
    ui::status("PREVIEW_READY");
    ui::out(&super::show::describe(&planned.record, None, &[]));
    if !planned.changes.is_empty() {
        ui::outln("");
        ui::out_painted(&render::diff(&planned.changes, render::color_enabled()));
        ui::out(&render::diffstat(&planned.changes));
        ui::outln("");
        ui::outln(&format!(
            "Apply with: git papayu apply {}",
            planned.record.short_id()
        ));
    }
    Ok(())
}
