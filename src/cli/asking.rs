//! A plan's memory proposal, offered at the prompt after `plan` and the free-text router have
//! asked the models through the service.

use git_papayu::ask::memory;
use git_papayu::engine::plan::Planned;
use git_papayu::settings::Settings as Config;
use git_papayu::store::Store;

use super::{CliError, ui};

/// Shows a plan's `memory_patch` and writes it when the user accepts: with `--accept-memory`,
/// or a `y` at the prompt when stdin and stderr are terminals. Never written otherwise.
pub fn offer_memory(
    store: &Store,
    config: &Config,
    planned: &[Planned],
    accept: bool,
) -> Result<(), CliError> {
    let json = ui::json_mode();
    let Some(patch) = planned
        .iter()
        .map(|p| &p.record.plan.memory_patch)
        .find(|m| !m.is_empty())
    else {
        return Ok(());
    };
    if !json {
        // The preview may still be in the pager, which owns the terminal: the proposal and
        // its question come once the user has left it.
        ui::end_paging();
        ui::status("The model proposes to remember:");
        for (key, value) in patch {
            ui::status(&format!("  {key} = {value}"));
        }
    }
    let yes = accept || (!json && ui::ask_yes("Remember this? [y/N] "));
    if !yes {
        if !json {
            ui::status("Not remembered (use --accept-memory to accept).");
        }
        return Ok(());
    }
    let written = memory::accept(store, config.env_map(), patch)?;
    ui::data(&Remembered {
        memory_written: &written,
    });
    if !json {
        ui::status(&format!("Remembered: {}", written.join(", ")));
    }
    Ok(())
}

/// The engineering memory accepted with a plan, in `plan --json`: the files written.
#[derive(serde::Serialize)]
struct Remembered<'a, T: serde::Serialize> {
    memory_written: &'a T,
}
