//! `git papayu init`: one-time repository setup.

use clap::Args;
use git_papayu::engine::setup::{self, InitRequest};
use git_papayu::store::Store;

use super::{CliResult, ui};

/// Set up this repository for papayu (safe to run again).
///
/// Makes plan notes follow rebases and amends (notes.rewriteRef), merges plan notes line by line
/// (notes.papayu.mergeStrategy=cat_sort_uniq), and optionally fetches a remote's plans and
/// installs the sample hooks. Each setting is printed with why it is there; without --share,
/// init offers the command that shares plans with the remote you have.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// Also fetch REMOTE's plan notes into refs/notes/remotes/REMOTE/papayu.
    #[arg(long, value_name = "REMOTE")]
    pub share: Option<String>,
    /// Install the sample hooks (never overwrites an existing hook).
    #[arg(long)]
    pub hooks: bool,
}

pub fn run(args: InitArgs) -> CliResult {
    let InitArgs { share, hooks } = args;
    let store = Store::open()?;
    let steps = setup::init(
        &store,
        &InitRequest {
            share: share.clone(),
            hooks,
        },
    )?;
    let done: Vec<_> = steps
        .iter()
        .map(|s| serde_json::json!({ "what": s.what, "changed": s.changed, "why": s.why }))
        .collect();
    let offer = match &share {
        None => setup::share_offer(&store),
        Some(_) => None,
    };
    ui::data(&serde_json::json!({ "steps": done, "share": share, "offer": offer }));
    for step in &steps {
        ui::outln(&format!(
            "{} {}",
            if step.changed { "set " } else { "ok  " },
            step.what
        ));
        ui::outln(&format!("     ({})", step.why));
    }
    if let Some(remote) = share {
        ui::outln(&format!(
            "Share your plans with {remote} and take in theirs: git papayu sync {remote}"
        ));
    }
    if let Some(remote) = offer {
        ui::outln(&format!(
            "To share plans through {remote} (git fetch {remote} then brings teammates' plans): \
             git papayu init --share {remote}"
        ));
    }
    Ok(())
}
