//! Running the user's check command inside a check worktree.
//!
//! The command comes from the user only — `--check`, `PAPAYU_CHECK_COMMAND`,
//! `git config papayu.checkCommand`, or `default_test_command` in `.papa-yu/project.json` *as
//! committed at the base* — never from the plan under test, which could otherwise choose how it
//! is judged.

use std::io::Read;
use std::process::Stdio;

use git2::{Oid, Repository};

use crate::store::worktree::Slot;
use crate::store::{Store, StoreError};

/// Where the check command should come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckChoice {
    /// Look it up in the environment, git config, then the project file.
    Configured,
    /// Run exactly this.
    Command(String),
    /// Do not run a check.
    Skip,
}

/// What a check did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CheckReport {
    pub command: String,
    pub exit_code: Option<i32>,
    pub passed: bool,
    /// The last lines of the command's combined output.
    pub output_tail: String,
    /// `true` when the worktree had to be created rather than updated.
    pub fresh_worktree: bool,
    pub seconds: f64,
}

/// The check command to run, if any. `base` is the commit the plan applies onto.
pub fn resolve(store: &Store, choice: &CheckChoice, base: Oid) -> Option<String> {
    match choice {
        CheckChoice::Skip => None,
        CheckChoice::Command(c) => Some(c.clone()),
        CheckChoice::Configured => std::env::var("PAPAYU_CHECK_COMMAND")
            .ok()
            .filter(|c| !c.trim().is_empty())
            .or_else(|| {
                store
                    .repo
                    .config()
                    .ok()
                    .and_then(|c| c.get_string("papayu.checkCommand").ok())
            })
            .filter(|c| !c.trim().is_empty())
            .or_else(|| project_test_command(&store.repo, base)),
    }
}

fn project_test_command(repo: &Repository, base: Oid) -> Option<String> {
    let tree = repo.find_commit(base).ok()?.tree().ok()?;
    let entry = tree
        .get_path(std::path::Path::new(".papa-yu/project.json"))
        .ok()?;
    let blob = repo.find_blob(entry.id()).ok()?;
    let json: serde_json::Value = serde_json::from_slice(blob.content()).ok()?;
    json.get("default_test_command")?
        .as_str()
        .map(str::to_string)
        .filter(|c| !c.trim().is_empty())
}

/// Moves a slot to `commit` and runs `command` there with `sh -c`.
pub fn run(
    store: &Store,
    slot: &Slot,
    commit: Oid,
    command: &str,
    plan_id: &str,
) -> Result<CheckReport, StoreError> {
    let started = std::time::Instant::now();
    let fresh = slot.update(store, commit)?;
    let mut log = tempfile::tempfile()
        .map_err(|e| StoreError::io("creating a file for the check output", e))?;
    let stdout = log
        .try_clone()
        .map_err(|e| StoreError::io("sharing the check output file", e))?;
    let stderr = log
        .try_clone()
        .map_err(|e| StoreError::io("sharing the check output file", e))?;
    let mut cmd = crate::store::command("sh");
    cmd.arg("-c")
        .arg(command)
        .current_dir(&slot.path)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .env("PAPAYU_PLAN", plan_id)
        .env("PAPAYU_COMMIT", commit.to_string());
    let status = cmd
        .status()
        .map_err(|e| StoreError::io(format!("running the check `{command}`"), e))?;
    let mut output = Vec::new();
    use std::io::Seek;
    log.seek(std::io::SeekFrom::Start(0))
        .and_then(|_| log.read_to_end(&mut output))
        .map_err(|e| StoreError::io("reading the check output", e))?;
    Ok(CheckReport {
        command: command.to_string(),
        exit_code: status.code(),
        passed: status.success(),
        output_tail: tail(&String::from_utf8_lossy(&output), 40, 4000),
        fresh_worktree: fresh,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The last `lines` lines of `text`, at most `chars` characters.
fn tail(text: &str, lines: usize, chars: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    let kept = all[all.len().saturating_sub(lines)..].join("\n");
    let count = kept.chars().count();
    if count > chars {
        kept.chars().skip(count - chars).collect()
    } else {
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::tail;

    #[test]
    fn tail_keeps_the_end() {
        assert_eq!(tail("a\nb\nc\n", 2, 100), "b\nc");
        assert_eq!(tail("abcdef", 5, 3), "def");
    }
}
