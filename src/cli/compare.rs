//! `git papayu compare`: competing proposals side by side, ranked.

use clap::Args;
use git_papayu::cost;
use git_papayu::engine::compare::{Comparison, Proposal};
use git_papayu::service::compare;
use git_papayu::store::Store;

use super::{CliResult, observer, text, ui};

/// Compare the proposals of one goal: their checks, sizes, tokens and cost, ranked.
///
/// One row per proposal: provider and model, the check's verdict (fixes, breaks, still failing
/// against the base, or passed, partial, failed, unchecked), the lines it changes, the tokens
/// and cost of asking for it, and the time the model took. Ranked by breaks (fewest first),
/// fixes (most first), tests still failing (fewest first), check status, votes (how many
/// samples reached the same answer, most first), then lines changed (fewest first); a proposal
/// that weakens tests or whose check did not run its tests ranks last; discarded proposals are
/// shown but not ranked. See docs/compare.md.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// A group id (g…, from git papayu list --json) or plan ids; default: the newest group on
    /// HEAD.
    #[arg(value_name = "GROUP|ID")]
    pub specs: Vec<String>,
}

pub fn run(args: CompareArgs) -> CliResult {
    let CompareArgs { specs } = args;
    let store = Store::open()?;
    let config = super::settings();
    let ranked = compare::compare(&observer::service(&store, &config), &specs)?;
    ui::data(&ranked);
    let comparison = &ranked.comparison;
    ui::out(&table(comparison));
    if let Some(best) = comparison.ranking.first() {
        ui::status(&format!(
            "Pick the best with git papayu pick (takes {}), or git papayu pick ID",
            &best[..10]
        ));
    }
    Ok(())
}

/// The table a reader sees: a heading with the group and its cost, then one row per
/// proposal, best first, the unranked last.
fn table(c: &Comparison) -> String {
    let mut out = String::new();
    let cost = c
        .cost_usd()
        .map_or(String::new(), |usd| format!(", {} in all", cost::usd(usd)));
    let n = c.proposals.len();
    let plural = if n == 1 { "" } else { "s" };
    match &c.group {
        Some(group) => out.push_str(&format!("Group {group}: {n} proposal{plural}{cost}\n")),
        None => out.push_str(&format!("{n} proposal{plural}{cost}\n")),
    }
    let mut ordered: Vec<(String, &Proposal)> = Vec::new();
    for (i, id) in c.ranking.iter().enumerate() {
        if let Some(p) = c.get(id) {
            ordered.push(((i + 1).to_string(), p));
        }
    }
    for p in &c.proposals {
        if !c.ranking.contains(&p.record.id) {
            ordered.push(("-".to_string(), p));
        }
    }
    let header = [
        "RANK", "PLAN", "PROVIDER", "STATUS", "CHECK", "VOTES", "DIFF", "TOKENS", "COST", "TIME",
    ];
    let rows: Vec<[String; 10]> = ordered
        .iter()
        .map(|(rank, p)| {
            let mut row = row(rank, p);
            if let Some(asked) = c
                .remote
                .get(&p.record.id)
                .filter(|_| p.check.status == git_papayu::verdict::CheckStatus::Unchecked)
            {
                row[4] = asked.cell();
            }
            row
        })
        .collect();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let mut l = String::new();
        for (cell, w) in cells.iter().zip(&widths) {
            l.push_str(&format!("{cell:<w$}  ", w = *w));
        }
        format!("{}\n", l.trim_end())
    };
    out.push_str(&line(&header.map(str::to_string)));
    for row in &rows {
        out.push_str(&line(row));
    }
    for p in c.proposals.iter().filter(|p| !p.claims.is_empty()) {
        out.push_str(&format!("Plan {}: ", p.record.short_id()));
        out.push_str(&super::show::claimed_lines(&p.claims));
    }
    out
}

fn row(rank: &str, p: &Proposal) -> [String; 10] {
    let stats = p.record.stats.clone().unwrap_or_default();
    let d = p.diffstat;
    [
        rank.to_string(),
        p.record.short_id().to_string(),
        text::line(&git_papayu::present::provider_label(&p.record)).into_owned(),
        p.status.as_str().to_string(),
        p.check.line(),
        p.votes.to_string(),
        format!(
            "{} file{} +{} -{}",
            d.files,
            if d.files == 1 { "" } else { "s" },
            d.insertions,
            d.deletions
        ),
        format!(
            "{}/{}/{}",
            stats.input_tokens, stats.output_tokens, stats.cached_tokens
        ),
        stats.cost_usd.map_or("-".to_string(), cost::usd),
        format!("{:.1}s", stats.latency_ms as f64 / 1000.0),
    ]
}
