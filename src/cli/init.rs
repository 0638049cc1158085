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

/// `init --json`: what was done or found done, the remote shared with, and the sharing offered
/// when none was asked for.
#[derive(serde::Serialize)]
struct Initialized<'a> {
    steps: &'a [git_papayu::engine::setup::Step],
    share: Option<&'a str>,
    offer: Option<&'a str>,
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
    let offer = match &share {
        None => setup::share_offer(&store),
        Some(_) => None,
    };
    ui::data(&Initialized {
        steps: &steps,
        share: share.as_deref(),
        offer: offer.as_deref(),
    });
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
