//! `git papayu validate`: check a model's answer against the plan protocol, offline.
//!
//! It reads one answer and prints; it must never touch the repository or call a model.

use std::io::Read;
use std::path::{Path, PathBuf};

use git_papayu::protocol::{Allowlist, MAX_INPUT_BYTES, Mode, ProtocolVersion};
use git_papayu::service::validate::{self, Validate};
use git_papayu::{Code, Problem};

use super::{CliResult, ui};

/// Check a model's answer against the plan protocol and print the normalized plan.
///
/// Reads the answer from FILE (or standard input for '-'): bare JSON, JSON in a ```json fence,
/// or the first JSON value inside prose. It is validated against the protocol's JSON Schema and
/// every protocol rule (paths, protected files, limits, content, conflicts, v2 patch rules,
/// NO_CHANGES, memory_patch). On success the normalized plan is printed as JSON on stdout, with
/// actions in apply order, and the exit status is 0. Otherwise every problem is printed on stderr
/// as `ERR_CODE: reason` and the exit status is 1; usage errors exit with 2.
///
/// Environment: PAPAYU_NORMALIZE_EOL=lf converts CRLF to LF in file contents and ends each with
/// a newline. See docs/protocol.md for every code and limit.
#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// Protocol version to validate against [default: detect: v2 when the answer fits the v2
    /// schema, otherwise v1]
    #[arg(long, value_name = "1|2", value_parser = clap::value_parser!(u8).range(1..=2))]
    protocol: Option<u8>,

    /// Phase the answer was asked for: in apply, an answer without actions must start its
    /// summary with NO_CHANGES:
    #[arg(long, value_enum, default_value_t = ModeArg::Plan)]
    mode: ModeArg,

    /// Restrict paths with an allowlist in the config/llm_whitelist.json format
    /// (allowed_extensions, allowed_no_extension, forbidden_paths, forbidden_prefixes)
    #[arg(long, value_name = "FILE")]
    allowlist: Option<PathBuf>,

    /// The answer to check, or '-' for standard input
    #[arg(value_name = "FILE|-")]
    input: PathBuf,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum ModeArg {
    Plan,
    Apply,
}

pub fn run(args: ValidateArgs) -> CliResult {
    let ValidateArgs {
        protocol,
        mode,
        allowlist,
        input,
    } = args;
    let answer = read_input(&input)?;
    let request = Validate {
        answer: &answer,
        protocol: protocol.map(|v| match v {
            1 => ProtocolVersion::V1,
            _ => ProtocolVersion::V2,
        }),
        mode: match mode {
            ModeArg::Plan => Mode::Plan,
            ModeArg::Apply => Mode::Apply,
        },
        allowlist: allowlist.as_deref().map(Allowlist::load).transpose()?,
    };
    let validated = validate::validate(&super::settings(), request)?;
    for note in &validated.notes {
        ui::warn(note);
    }
    ui::data(&validated);
    ui::pretty_json(&validated.plan);
    Ok(())
}

/// Reads at most one byte more than the protocol accepts, so a huge file cannot exhaust memory.
fn read_input(input: &Path) -> Result<Vec<u8>, Problem> {
    let limit = (MAX_INPUT_BYTES + 1) as u64;
    let mut buf = Vec::new();
    let result = if input.as_os_str() == "-" {
        std::io::stdin().lock().take(limit).read_to_end(&mut buf)
    } else {
        std::fs::File::open(input).and_then(|f| f.take(limit).read_to_end(&mut buf))
    };
    result.map_err(|e| {
        Problem::new(
            Code::InputUnreadable,
            format!("cannot read {}: {e}", input.display()),
        )
    })?;
    Ok(buf)
}
