//! `git papayu context`: exactly what a plan would send to a model, without calling one.

use std::path::PathBuf;

use clap::Args;
use git_papayu::engine::plan;
use git_papayu::protocol::ProtocolVersion;
use git_papayu::service::context::gather;
use git_papayu::store::Store;

use super::plan::non_empty;
use super::{CliResult, ui};

/// Show the context a plan for GOAL would send: every block, its size, what was truncated or
/// dropped by the context diet and why, and what was withheld. No model is called.
#[derive(Debug, Args)]
pub struct ContextArgs {
    /// The goal, as you would give it to plan.
    #[arg(value_parser = non_empty)]
    pub goal: String,
    /// A log or error report ('-' for stdin); may be repeated.
    #[arg(long = "log", visible_alias = "error-report", value_name = "FILE|-")]
    pub logs: Vec<PathBuf>,
    /// Revision the context is read from.
    #[arg(long, value_name = "REV", default_value = "HEAD")]
    pub base: String,
    /// Render FILE blocks for this protocol (default 2: with sha256).
    #[arg(long, value_name = "1|2", value_parser = clap::value_parser!(u8).range(1..=2))]
    pub protocol: Option<u8>,
}

pub fn run(args: ContextArgs) -> CliResult {
    let ContextArgs {
        goal,
        logs,
        base,
        protocol,
    } = args;
    let store = Store::open()?;
    let base = plan::resolve_base(&store, &base)?;
    let version = match protocol {
        Some(1) => ProtocolVersion::V1,
        _ => ProtocolVersion::V2,
    };
    let logs = super::plan::read_logs(&logs)?;
    let gathered = gather(
        &super::observer::service(&store, &super::settings()),
        goal,
        base,
        logs,
        version,
    )?;
    if ui::json_mode() {
        ui::data(&gathered);
        return Ok(());
    }
    // A context is hundreds of lines: on a terminal it goes through the pager, as show does.
    ui::paged();
    ui::out(&gathered.text);
    let mut summary = String::from("--- context summary ---\n");
    for b in &gathered.blocks {
        let mut line = format!(
            "{:<12} {:<40} {:>7} chars  ({})",
            format!("{:?}", b.kind).to_lowercase(),
            b.title,
            b.body.chars().count(),
            b.source
        );
        if let Some(score) = b.score {
            line.push_str(&format!("  score {score:.2}"));
        }
        if b.truncated {
            line.push_str(&format!("  truncated from {}", b.full_chars));
        }
        if !b.ranges.is_empty() {
            let ranges: Vec<String> = b.ranges.iter().map(|(a, z)| format!("{a}-{z}")).collect();
            line.push_str(&format!("  lines {}", ranges.join(",")));
        }
        summary.push_str(&line);
        summary.push('\n');
    }
    for w in &gathered.withheld {
        summary.push_str(&format!("withheld: {w}\n"));
    }
    for e in &gathered.events {
        summary.push_str(&format!("{e}\n"));
    }
    summary.push_str(&format!("total: {} chars\n", gathered.total_chars));
    ui::status(summary.trim_end());
    Ok(())
}
