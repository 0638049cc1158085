//! `git papayu diff`: a plan's changes, shown by `git diff` with your pager and colours.

use std::ffi::OsString;

use clap::Args;
use git_papayu::engine::find::find;
use git_papayu::engine::review;
use git_papayu::store::{Store, worktree};
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
    let mut cmd = worktree::git(&store);
    if let Some(workdir) = store.workdir() {
        cmd.current_dir(workdir);
    }
    cmd.args(ui::git_display_args()).arg("diff");
    if ui::json_mode() {
        cmd.args(["--no-color", "--no-ext-diff"]);
    }
    cmd.args(&git_args).arg(&from).arg(&to);
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
    if ui::json_mode() {
        let output = cmd
            .output()
            .map_err(|e| Problem::new(Code::Io, format!("running git diff: {e}")))?;
        ui::data(&serde_json::json!({
            "plan": record.id,
            "from": from,
            "to": to,
            "diff": String::from_utf8_lossy(&output.stdout),
        }));
        return match output.status.success() {
            true => Ok(()),
            false => Err(failed(output.status, &output.stderr).into()),
        };
    }
    let status = cmd
        .status()
        .map_err(|e| Problem::new(Code::Io, format!("running git diff: {e}")))?;
    match status.success() {
        true => Ok(()),
        false => Err(failed(status, b"").into()),
    }
}
