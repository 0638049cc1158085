//! `plan --repro` on the terminal: the service's reproduction first (see
//! [`git_papayu::service::repro`]), each try given to `--json` as it came out.

use git_papayu::engine::reproduce::Reproduced;
use git_papayu::service::Service;
use git_papayu::service::repro::{self, Asking};
use git_papayu::store::Oid;

use super::{CliError, ui};

/// Asks for a reproduction when `flag` or `papayu.repro` wants one (see [`repro::first`]);
/// returns it when it reproduces.
pub fn first(
    service: &Service<'_>,
    (base, goal): (Oid, &str),
    flag: Option<bool>,
    asking: &Asking,
) -> Result<Option<Reproduced>, CliError> {
    let tried = repro::first(service, (base, goal), flag, asking)?;
    // The document carries the last attempt: the one that reproduced, else the last tried.
    if let Some(repro) = tried.attempts.last() {
        ui::data(&Tried { repro });
    }
    Ok(tried.reproduced)
}

/// The reproduction in `plan --json`.
#[derive(serde::Serialize)]
struct Tried<'a> {
    repro: &'a git_papayu::service::repro::Attempt,
}
