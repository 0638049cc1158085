//! `git papayu init`: one-time repository setup.

use clap::Args;
use git_papayu::engine::setup::{self, InitRequest};
use git_papayu::store::Store;

use super::{CliResult, ui};

/// Set up this repository for papayu (safe to run again).
///
/// Makes plan notes follow rebases and amends (notes.rewriteRef), merges plan notes line by line
/// (notes.papayu.mergeStrategy=cat_sort_uniq), and optionally fetches a remote's plans and
/// installs the sample hooks.
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
        .map(|s| serde_json::json!({ "what": s.what, "changed": s.changed }))
        .collect();
    ui::data(&serde_json::json!({ "steps": done, "share": share }));
    for step in &steps {
        ui::outln(&format!(
            "{} {}",
            if step.changed { "set " } else { "ok  " },
            step.what
        ));
    }
    if let Some(remote) = share {
        ui::outln(&format!(
            "To publish your plans:  git push {remote} refs/notes/papayu"
        ));
        ui::outln(&format!(
            "To take in theirs:      git fetch {remote} && git notes --ref=papayu merge refs/notes/remotes/{remote}/papayu"
        ));
    }
    Ok(())
}
