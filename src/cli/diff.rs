//! `git papayu diff`: a plan's changes, shown by `git diff` with your pager and colours.

use std::ffi::OsString;

use clap::Args;
use git_papayu::service::review;
use git_papayu::store::{Store, UserGit};

use super::{CliResult, observer, ui};

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
    let (plan, options, paths) = args.split();
    let store = Store::open()?;
    let config = super::settings();
    let service = observer::service(&store, &config);
    if ui::json_mode() {
        ui::data(&review::diff(&service, plan.as_deref(), options, paths)?);
        return Ok(());
    }
    let (_, from, to) = review::range(&service, plan.as_deref())?;
    let mut git: Vec<OsString> = ui::git_display_args()
        .into_iter()
        .map(OsString::from)
        .collect();
    git.extend(review::diff_words(&from, &to, options, paths));
    match store.git_for_user(&git, false)? {
        UserGit::Shown(status) if !status.success() => Err(review::diff_failed(status, b"").into()),
        UserGit::Captured(output) if !output.status.success() => {
            Err(review::diff_failed(output.status, &output.stderr).into())
        }
        _ => Ok(()),
    }
}
