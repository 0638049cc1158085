//! Looking at one proposal, merging it and dropping it: `git papayu diff`, `merge` and
//! `discard`, `--json`, and the MCP tools `papayu_diff` and `papayu_discard` (merging stays a
//! person's decision: no tool merges).

use std::ffi::OsString;
use std::process::ExitStatus;

use serde::Serialize;

use crate::codes::{Code, Problem, Problems};
use crate::engine::find::find;
use crate::engine::review::{self, MergeStyle};
use crate::store::UserGit;
use crate::store::records::PlanRecord;
use crate::trace::outcome;

use super::Service;

/// A plan's changes as `git diff` text.
#[derive(Debug, Clone, Serialize)]
pub struct PlanDiff {
    pub plan: String,
    pub from: String,
    pub to: String,
    pub diff: String,
}

/// What a discard did.
#[derive(Debug, Clone, Serialize)]
pub struct Dropped {
    pub plan: String,
    pub deleted_branches: Vec<String>,
}

/// What a merge did.
#[derive(Debug, Clone, Serialize)]
pub struct MergeReport {
    pub plan: String,
    /// The branch merged into, without `refs/heads/`.
    pub into: String,
    pub old: String,
    pub new: String,
    /// False when the branch held the proposal already (nothing to merge).
    pub merged: bool,
    pub branch: String,
    pub branch_deleted: bool,
    /// Why the branch was kept although deletion was asked for (checked out elsewhere).
    #[serde(skip)]
    pub kept_because: Option<String>,
    /// The trace's outcome line (`MERGE_SUCCESS …`), for a front end that shows events.
    #[serde(skip)]
    pub event: Option<String>,
}

/// Merges the proposal `spec` names (`None`: the newest applied on HEAD) into the current
/// branch with git's own merge, and writes the merge's trace, failed or not.
pub fn merge(
    service: &Service<'_>,
    spec: Option<&str>,
    style: MergeStyle,
    keep_branch: bool,
    force: bool,
) -> Result<MergeReport, Problem> {
    let merged = review::merge(service.store, spec, style, keep_branch, force);
    let event = outcome::merge(&service.tracer(), service.store, spec, &merged);
    let merged = merged?;
    Ok(MergeReport {
        plan: merged.record.id,
        into: merged.into.trim_start_matches("refs/heads/").to_string(),
        old: merged.old.to_string(),
        new: merged.new.to_string(),
        merged: merged.old != merged.new,
        branch: merged.branch,
        branch_deleted: merged.branch_deleted,
        kept_because: merged.kept_because,
        event: event.map(|e| e.to_string()),
    })
}

/// The plan `spec` names (`None`: the newest on HEAD) and the commits its diff is between: its
/// proposal branch against the commit it was applied onto, or the dry run against its base.
pub fn range(
    service: &Service<'_>,
    spec: Option<&str>,
) -> Result<(PlanRecord, String, String), Problems> {
    let store = service.store;
    let (ledger, record) = find(store, spec)?;
    let (from, to) = review::diff_range(store, &ledger, &record)?;
    Ok((record, from.to_string(), to.to_string()))
}

/// The words after `git` for the diff between `from` and `to`: `options` first, then `paths`
/// after `--` when there are any.
pub fn diff_words(
    from: &str,
    to: &str,
    options: Vec<OsString>,
    paths: Vec<OsString>,
) -> Vec<OsString> {
    let mut words = vec![OsString::from("diff")];
    words.extend(options);
    words.extend([OsString::from(from), OsString::from(to)]);
    if !paths.is_empty() {
        words.push("--".into());
        words.extend(paths);
    }
    words
}

/// The plan's diff as text, without colours or external diff drivers, `options` given to
/// `git diff` and limited to `paths`.
pub fn diff(
    service: &Service<'_>,
    spec: Option<&str>,
    options: Vec<OsString>,
    paths: Vec<OsString>,
) -> Result<PlanDiff, Problems> {
    let (record, from, to) = range(service, spec)?;
    let mut plain = vec![
        OsString::from("--no-color"),
        OsString::from("--no-ext-diff"),
    ];
    plain.extend(options);
    let words = diff_words(&from, &to, plain, paths);
    let output = match service.store.git_for_user(&words, true)? {
        UserGit::Captured(output) => output,
        UserGit::Shown(status) => return Err(vec![diff_failed(status, b"")]),
    };
    if !output.status.success() {
        return Err(vec![diff_failed(output.status, &output.stderr)]);
    }
    Ok(PlanDiff {
        plan: record.id,
        from,
        to,
        diff: String::from_utf8_lossy(&output.stdout).into_owned(),
    })
}

/// `git diff` ended with `status`, saying `stderr`.
pub fn diff_failed(status: ExitStatus, stderr: &[u8]) -> Problem {
    let why = String::from_utf8_lossy(stderr);
    let why = why.trim();
    Problem::new(
        Code::Git,
        match why.is_empty() {
            true => format!("git diff exited with {status}"),
            false => format!("git diff exited with {status}: {why}"),
        },
    )
}

/// Deletes the plan's proposal branch and check worktree and marks it discarded (undoable).
/// `force`: also a branch holding commits papayu did not make.
pub fn discard(service: &Service<'_>, spec: Option<&str>, force: bool) -> Result<Dropped, Problem> {
    let discarded = review::discard(service.store, spec, force)?;
    Ok(Dropped {
        plan: discarded.record.id,
        deleted_branches: discarded.branches,
    })
}
