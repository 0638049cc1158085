//! `git papayu diff`: a plan's changes, shown by `git diff` with your pager and colours.

use std::ffi::OsString;

use clap::Args;
use git_papayu::engine::find::find;
use git_papayu::engine::review;
use git_papayu::store::{Store, UserGit};
use git_papayu::{Code, Problem};

use super::{CliResult, ui};

/// Show a plan's diff through git diff (pager, colour and diff settings apply).
///
/// For an applied plan this is its proposal branch against the commit it was applied onto; for
/// a plan not applied yet, the dry run against its base. Arguments after -- go to git diff
/// (e.g. -- --stat).
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// Plan id (a unique prefix) or proposal branch; default: the newest plan on HEAD.
    pub plan: Option<String>,
    /// Extra options for git diff.
    #[arg(last = true)]
    pub git_args: Vec<OsString>,
}

pub fn run(args: DiffArgs) -> CliResult {
    let DiffArgs { plan, git_args } = args;
    let store = Store::open()?;
    let (ledger, record) = find(&store, plan.as_deref())?;
    let (from, to) = review::diff_range(&store, &ledger, &record)?;
    let (from, to) = (from.to_string(), to.to_string());
    let mut git: Vec<OsString> = ui::git_display_args()
        .into_iter()
        .map(OsString::from)
        .collect();
    git.push("diff".into());
    if ui::json_mode() {
        git.extend(["--no-color".into(), "--no-ext-diff".into()]);
    }
    git.extend(git_args);
    git.extend([OsString::from(&from), OsString::from(&to)]);
    let failed = |status: std::process::ExitStatus, stderr: &[u8]| {
        let why = String::from_utf8_lossy(stderr);
        let why = why.trim();
        Problem::new(
            Code::Git,
            match why.is_empty() {
                true => format!("git diff exited with {status}"),
                false => format!("git diff exited with {status}: {why}"),
            },
        )
    };
    match store.git_for_user(&git, ui::json_mode())? {
        UserGit::Captured(output) => {
            ui::data(&serde_json::json!({
                "plan": record.id,
                "from": from,
                "to": to,
                "diff": String::from_utf8_lossy(&output.stdout),
            }));
            match output.status.success() {
                true => Ok(()),
                false => Err(failed(output.status, &output.stderr).into()),
            }
        }
        UserGit::Shown(status) => match status.success() {
            true => Ok(()),
            false => Err(failed(status, b"").into()),
        },
    }
}
