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
/// a plan not applied yet, the dry run against its base. Options after the plan go to git diff
/// (e.g. `diff ID --stat`); paths after -- limit the diff.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// Plan id (a unique prefix) or proposal branch; default: the newest plan on HEAD.
    #[arg(allow_hyphen_values = true)]
    pub plan: Option<String>,
    /// Options for git diff, then optionally -- and paths.
    #[arg(allow_hyphen_values = true, num_args = 0..)]
    pub git_args: Vec<OsString>,
}

impl DiffArgs {
    /// Takes `--json` out of the words meant for git diff (git diff has no such option), so
    /// `diff ID --stat --json` means what it says. Returns whether it was there.
    pub fn take_json(&mut self) -> bool {
        let options = self
            .git_args
            .iter()
            .position(|a| a == "--")
            .unwrap_or(self.git_args.len());
        let before = self.git_args.len();
        let mut index = 0;
        self.git_args.retain(|a| {
            index += 1;
            index > options || a != "--json"
        });
        before != self.git_args.len()
    }

    /// The plan, the options for git diff and the paths: a first word starting with `-` is an
    /// option, not a plan.
    fn split(self) -> (Option<String>, Vec<OsString>, Vec<OsString>) {
        let DiffArgs { plan, git_args } = self;
        let mut options = Vec::new();
        let plan = match plan {
            Some(word) if word.starts_with('-') && word != "-" => {
                options.push(OsString::from(word));
                None
            }
            plan => plan,
        };
        let mut words = git_args.into_iter();
        options.extend(words.by_ref().take_while(|a| a != "--"));
        (plan, options, words.collect())
    }
}

pub fn run(args: DiffArgs) -> CliResult {
    let (plan, git_args, paths) = args.split();
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
    if !paths.is_empty() {
        git.push("--".into());
        git.extend(paths);
    }
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
