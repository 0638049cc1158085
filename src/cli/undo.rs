//! `git papayu undo` and `git papayu redo`.

use clap::Args;
use git_papayu::service::history::{self, Undone};
use git_papayu::store::{Store, short};

use super::{CliResult, observer, ui};

/// Undo the last papayu operation (plan, apply, merge, discard), refs compare-and-swap.
///
/// Refuses, changing nothing, when a branch the operation moved has moved again since. The
/// shared notes are never moved back: undo appends events that cancel what the operation
/// recorded.
#[derive(Debug, Args)]
pub struct UndoArgs {}

/// Redo the operation the last undo reverted.
#[derive(Debug, Args)]
pub struct RedoArgs {}

fn report(headline: &str, undone: &Undone) {
    ui::data(undone);
    ui::outln(headline);
    let show = |o: &Option<String>| o.as_deref().map_or_else(|| "(none)".to_string(), short);
    for change in &undone.refs {
        ui::status(&format!(
            "  {}: {} -> {}",
            change.name,
            show(&change.old),
            show(&change.new)
        ));
    }
}

pub fn run_undo(args: UndoArgs) -> CliResult {
    let UndoArgs {} = args;
    let store = Store::open()?;
    let config = super::settings();
    let undone = history::undo(&observer::service(&store, &config))?;
    report(
        &format!("Undid: {}. Redo with git papayu redo.", undone.operation),
        &undone,
    );
    Ok(())
}

pub fn run_redo(args: RedoArgs) -> CliResult {
    let RedoArgs {} = args;
    let store = Store::open()?;
    let config = super::settings();
    let undone = history::redo(&observer::service(&store, &config))?;
    report(
        &format!(
            "Redid: {}. Undo with git papayu undo.",
            undone.operation.trim_start_matches("undo ")
        ),
        &undone,
    );
    Ok(())
}
