//! git commands run in a working tree: the user's (merge, status) or another worktree's (undo
//! moving a branch checked out there). The engine says what to run; only this module runs it.

use std::path::Path;
use std::process::Output;

use super::{Store, StoreError};

impl Store {
    /// Runs `git ARGS` in this working tree (git's merge editor off); `None` in a bare
    /// repository.
    pub fn git_in_worktree(&self, args: &[&str]) -> Result<Option<Output>, StoreError> {
        let Some(workdir) = self.repo.workdir() else {
            return Ok(None);
        };
        run(workdir, args).map(Some)
    }

    /// Runs `git ARGS` in the worktree at `dir`.
    pub fn git_in(&self, dir: &Path, args: &[&str]) -> Result<Output, StoreError> {
        run(dir, args)
    }
}

impl Store {
    /// `git ARGS` aimed at this repository from its working tree, to run with the user's
    /// terminal (git's pager and colours apply) or captured.
    pub fn git_for_user(
        &self,
        args: &[std::ffi::OsString],
        capture: bool,
    ) -> Result<UserGit, StoreError> {
        let mut cmd = super::worktree::git(self);
        if let Some(workdir) = self.repo.workdir() {
            cmd.current_dir(workdir);
        }
        cmd.args(args);
        let what = || {
            format!(
                "running git {}",
                args.first()
                    .map_or(String::new(), |a| a.to_string_lossy().into_owned())
            )
        };
        match capture {
            true => cmd
                .output()
                .map(UserGit::Captured)
                .map_err(|e| StoreError::io(what(), e)),
            false => cmd
                .status()
                .map(UserGit::Shown)
                .map_err(|e| StoreError::io(what(), e)),
        }
    }
}

/// How a user-facing git command ended.
pub enum UserGit {
    /// Its output went to the terminal.
    Shown(std::process::ExitStatus),
    Captured(Output),
}

fn run(dir: &Path, args: &[&str]) -> Result<Output, StoreError> {
    super::command("git")
        .current_dir(dir)
        .env("GIT_MERGE_AUTOEDIT", "no")
        .args(args)
        .output()
        .map_err(|e| StoreError::io(format!("running git {}", args.join(" ")), e))
}
