//! Finishing a proposal: merge it into the current branch with git's own merge, or discard it.
//!
//! Merge shells out to `git merge` on purpose: it must honour the user's hooks, merge drivers,
//! attributes and working tree exactly as git does. It refuses on a dirty tree, and a merge that
//! stops half-way is aborted so the repository is left as it was.
//!
//! Neither ever takes a branch name from a note: the branch of a plan is a local `papayu/*`
//! branch whose history carries the plan's `Papayu-Plan:` trailer (see
//! [`crate::store::proposals`]). Discard deletes such a branch only when its tip is the plan's
//! own commit; when the user added commits on top it asks for `--force`.

use super::find::{Open, find_open};
use super::stopped::{self, Stop};
use crate::codes::{Code, Problem, Problems};
use crate::executor::{self, BuildOptions};
use crate::store::oplog::{self, OpKind, Pending};
use crate::store::proposals::LocalBranch;
use crate::store::records::{Event, EventKind, Ledger, PlanRecord, Status};
use crate::store::refs::RefChange;
use crate::store::{MergeIntent, Oid, Store, worktree};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeStyle {
    /// A merge commit, or a fast-forward when possible (git's default).
    Merge,
    /// One new commit on the current branch carrying the proposal's changes and message.
    Squash,
    /// Only a fast-forward; refuse otherwise.
    FastForwardOnly,
}

pub struct Merged {
    pub record: PlanRecord,
    pub into: String,
    pub old: Oid,
    pub new: Oid,
    /// The proposal branch, deleted by the merge unless it was kept.
    pub branch: String,
    pub branch_deleted: bool,
    /// Why the branch was kept although deletion was asked for (checked out elsewhere).
    pub kept_because: Option<String>,
}

pub struct Discarded {
    pub record: PlanRecord,
    /// The proposal branches deleted (usually one).
    pub branches: Vec<String>,
    pub worktrees_removed: usize,
}

/// The local proposal branch of a plan and its tip, when it exists.
fn live_branch(ledger: &Ledger, record: &PlanRecord) -> Option<(String, Oid)> {
    ledger.proposal(&record.id).map(|b| (b.name.clone(), b.tip))
}

/// Runs `git ARGS` in the user's working tree.
fn git_output(store: &Store, args: &[&str]) -> Result<std::process::Output, Problem> {
    store.git_in_worktree(args)?.ok_or_else(|| {
        Problem::new(
            Code::PlanState,
            "this repository has no working tree; merge needs one",
        )
    })
}

/// Refuses when tracked files have uncommitted changes (untracked files are fine: git itself
/// refuses to overwrite them).
pub fn require_clean(store: &Store) -> Result<(), Problem> {
    let out = git_output(
        store,
        &[
            "status",
            "--porcelain",
            "--untracked-files=no",
            "--ignore-submodules=dirty",
        ],
    )?;
    if !out.status.success() {
        return Err(Problem::new(
            Code::Git,
            format!(
                "git status failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        ));
    }
    if !out.stdout.is_empty() {
        let first = String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .to_string();
        return Err(Problem::new(
            Code::DirtyWorktree,
            format!(
                "your working tree has uncommitted changes ({}); commit or stash them first",
                first.trim()
            ),
        ));
    }
    Ok(())
}

/// Refuses what `git merge` refuses: staged changes (they would go into the merge commit), and
/// uncommitted changes to a path the merge changes. Changes to other paths stay as they are,
/// through the merge and through an abort.
fn require_clean_for_merge(store: &Store, tip: Oid) -> Result<(), Problem> {
    let names = |args: &[&str]| -> Result<Vec<String>, Problem> {
        let out = git_output(store, args)?;
        if !out.status.success() {
            return Err(Problem::new(
                Code::Git,
                format!(
                    "git {} failed: {}",
                    args[0],
                    String::from_utf8_lossy(&out.stderr).trim()
                ),
            ));
        }
        Ok(out
            .stdout
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect())
    };
    let diff = [
        "diff",
        "--name-only",
        "-z",
        "--no-renames",
        "--ignore-submodules=dirty",
    ];
    let staged = names(&[&diff[..], &["--cached"]].concat())?;
    if let Some(path) = staged.first() {
        return Err(Problem::new(
            Code::DirtyWorktree,
            format!(
                "you have staged changes ({path}); they would go into the merge commit: commit them, or unstage them with git restore --staged"
            ),
        ));
    }
    let modified = names(&diff)?;
    if modified.is_empty() {
        return Ok(());
    }
    let range = format!("HEAD...{tip}");
    let touched: std::collections::HashSet<String> =
        names(&[&diff[..], &[range.as_str(), "--"]].concat())?
            .into_iter()
            .collect();
    match modified.iter().find(|p| touched.contains(*p)) {
        Some(path) => Err(Problem::new(
            Code::DirtyWorktree,
            format!(
                "your uncommitted changes to {path} would be overwritten by the merge; commit or stash them first"
            ),
        )),
        None => Ok(()),
    }
}

/// Merges a plan's proposal into the current branch as one logged operation: git's merge (hooks
/// included), then the plan's `merged` event, the log entry and — unless `keep_branch` — the
/// proposal branch's deletion, all or nothing. A failure after git moved the branch puts the
/// branch and working tree back with `git reset --keep`.
pub fn merge(
    store: &Store,
    spec: Option<&str>,
    style: MergeStyle,
    keep_branch: bool,
    force: bool,
) -> Result<Merged, Problem> {
    let (ledger, record) = find_open(store, spec, Open::Applied)?;
    merge_found(store, &ledger, record, style, keep_branch, force, &[])
}

/// Merges one proposal of a group and discards the others it names (`others`, plan ids) as
/// **one** operation: one `undo` brings every branch back and takes the merge out. Every
/// discard is checked before git merges anything, so a refusal leaves all as it was.
pub fn pick(
    store: &Store,
    id: &str,
    others: &[String],
    style: MergeStyle,
    force: bool,
) -> Result<(Merged, Vec<Discarded>), Problem> {
    let (ledger, record) = super::find::find(store, Some(id))?;
    let mut discards = Vec::new();
    for other in others {
        let (ledger, other) = super::find::find(store, Some(other))?;
        if other.id == record.id {
            continue;
        }
        if let Some(d) = prepare_discard(store, &ledger, other, force)? {
            discards.push(d);
        }
    }
    let merged = merge_found(store, &ledger, record, style, false, force, &discards)?;
    let mut discarded = Vec::new();
    for d in discards {
        let mut worktrees_removed = 0;
        for b in &d.branches {
            worktrees_removed += worktree::remove_holding(store, b.tip).unwrap_or(0);
        }
        discarded.push(Discarded {
            record: d.record,
            branches: d.branches.into_iter().map(|b| b.name).collect(),
            worktrees_removed,
        });
    }
    Ok((merged, discarded))
}

/// The merge of a plan already found, with `discards` recorded in the same operation.
fn merge_found(
    store: &Store,
    ledger: &Ledger,
    record: PlanRecord,
    style: MergeStyle,
    keep_branch: bool,
    force: bool,
    discards: &[Discarding],
) -> Result<Merged, Problem> {
    if !force {
        refuse_unsafe_check(ledger, &record)?;
    }
    let (branch, tip) = proposal_branch(ledger, &record)?;
    let (into, old) = branch_to_merge_into(store, &branch)?;
    require_clean_for_merge(store, tip)?;

    store.announce_merge(&MergeIntent {
        plan: record.id.clone(),
        base: record.base.to_string(),
        branch: branch.clone(),
        tip: tip.to_string(),
        into: into.clone(),
        old: old.to_string(),
        squash: style == MergeStyle::Squash,
        keep_branch,
        pid: std::process::id(),
    })?;
    let stop = Stop {
        branch: &branch,
        into: &into,
        record: &record,
    };
    let merged = run_merge(store, &stop, (tip, old), style);
    let settled = merged.and_then(|()| {
        record_merge(
            store,
            &record,
            (&branch, tip),
            &into,
            old,
            keep_branch,
            discards,
        )
    });
    store.merge_settled();
    settled
}

/// Refuses a merge whose plan's last check broke passing tests or weakened failing ones.
fn refuse_unsafe_check(ledger: &Ledger, record: &PlanRecord) -> Result<(), Problem> {
    let check = super::compare::last_check(ledger, &record.id);
    if check.breaks_any() {
        return Err(Problem::new(
            Code::CheckBroke,
            format!(
                "plan {}'s last check broke tests that pass at its base ({}: {}); nothing was merged",
                record.short_id(),
                check.counts(),
                check.broken.join(", ")
            ),
        )
        .with_hint("fix them, or merge anyway with --force"));
    }
    if check.weakens_tests() {
        return Err(Problem::new(
            Code::TestsWeakened,
            format!(
                "plan {} weakens tests that were failing at its base: {}; nothing was merged",
                record.short_id(),
                check.weakens.join(", ")
            ),
        )
        .with_hint(format!(
            "make the code pass them instead (git papayu refine {} \"…\"), or merge anyway with --force",
            record.short_id()
        )));
    }
    Ok(())
}

/// The plan's proposal branch and its tip.
fn proposal_branch(ledger: &Ledger, record: &PlanRecord) -> Result<(String, Oid), Problem> {
    live_branch(ledger, record).ok_or_else(|| {
        Problem::new(
            Code::PlanState,
            format!(
                "plan {} has no proposal branch; apply it first",
                record.short_id()
            ),
        )
    })
}

/// The checked-out branch the proposal `branch` merges into, and its commit.
fn branch_to_merge_into(store: &Store, branch: &str) -> Result<(String, Oid), Problem> {
    let into = store.head_branch().ok_or_else(|| {
        Problem::new(
            Code::PlanState,
            "HEAD is detached; check out the branch to merge into",
        )
    })?;
    if into == format!("refs/heads/{branch}") {
        return Err(Problem::new(
            Code::PlanState,
            format!("you are on {branch}; check out the branch to merge into"),
        ));
    }
    let old = store.ref_value(&into)?;
    let old =
        old.ok_or_else(|| Problem::new(Code::PlanState, "the current branch has no commit yet"))?;
    Ok((into, old))
}

/// Records the merge git just made (see [`merge`]).
fn record_merge(
    store: &Store,
    record: &PlanRecord,
    (branch, tip): (&str, Oid),
    into: &str,
    old: Oid,
    keep_branch: bool,
    discards: &[Discarding],
) -> Result<Merged, Problem> {
    let record = record.clone();
    let branch = branch.to_string();
    let into = into.to_string();
    let new = store.ref_value(&into)?.unwrap_or(old);
    let branch_ref = format!("refs/heads/{branch}");
    let kept_because = match store.checked_out_elsewhere(&branch_ref) {
        Some(dir) if !keep_branch => Some(format!("it is checked out in {}", dir.display())),
        _ => None,
    };
    let delete = !keep_branch && kept_because.is_none();

    let mut event = Event::new(&record.id, EventKind::Merged);
    event.branch = Some(branch.clone());
    event.commit = Some(new);
    event.detail = Some(format!("into {into}"));
    let mut pending = Pending::new(
        OpKind::Merge,
        format!(
            "merge {branch} into {}",
            into.trim_start_matches("refs/heads/")
        ),
    );
    if new != old {
        pending
            .recorded
            .push(RefChange::new(into.clone(), Some(old), Some(new)));
    }
    if delete {
        pending
            .refs
            .push(RefChange::new(branch_ref, Some(tip), None));
        // A squashed proposal's commit stays reachable from the log until it is forgotten.
        pending.keep.push(tip);
    }
    if !discards.is_empty() {
        let ids: Vec<&str> = discards.iter().map(|d| d.record.short_id()).collect();
        pending.description = format!(
            "pick {} ({}; discard {})",
            record.short_id(),
            pending.description,
            ids.join(", ")
        );
    }
    for d in discards {
        d.add_to(&mut pending);
    }
    pending.note_lines.push((record.base, event.to_line()));
    if let Err(problem) = oplog::commit(store, &pending).map_err(Problem::from) {
        if new != old {
            roll_back(store, old);
        }
        return Err(problem);
    }
    Ok(Merged {
        record,
        into,
        old,
        new,
        branch,
        branch_deleted: delete,
        kept_because,
    })
}

/// Puts the current branch and the working tree back to `old` after a merge whose bookkeeping
/// failed (the merge just made them match, so `--keep` loses nothing).
fn roll_back(store: &Store, old: Oid) {
    let _ = store.git_in_worktree(&["reset", "--keep", "--quiet", &old.to_string()]);
}

/// Runs git's merge; one that stops is aborted and explained (see [`super::stopped`]).
fn run_merge(
    store: &Store,
    stop: &Stop,
    (tip, old): (Oid, Oid),
    style: MergeStyle,
) -> Result<(), Problem> {
    let branch = stop.branch;
    let args: Vec<&str> = match style {
        MergeStyle::Merge => vec!["merge", "--no-edit", "--quiet", branch],
        MergeStyle::FastForwardOnly => vec!["merge", "--ff-only", "--quiet", branch],
        MergeStyle::Squash => vec!["merge", "--squash", "--quiet", branch],
    };
    let out = git_output(store, &args)?;
    if !out.status.success() {
        let conflicted = stopped::conflicted_files(store);
        abort_merge(store);
        if !conflicted.is_empty() {
            return Err(stop.conflict(&conflicted).with_detail(git_said(&out)));
        }
        if style == MergeStyle::FastForwardOnly && !store.is_ancestor(old, tip) {
            return Err(stop.diverged());
        }
        return Err(git_refused(
            &out,
            &format!(
                "git merge stopped; nothing was changed, resolve by hand with git merge {branch}"
            ),
        ));
    }
    if style == MergeStyle::Squash {
        let staged = git_output(store, &["diff", "--cached", "--quiet"])?;
        if staged.status.success() {
            return Ok(()); // Already contained: nothing to commit.
        }
        // The user's commit hooks run, as for any commit they make.
        let out = git_output(store, &["commit", "--quiet", "-C", &tip.to_string()])?;
        if !out.status.success() {
            abort_merge(store);
            return Err(git_refused(
                &out,
                "committing the squashed change failed (a commit hook?); nothing was changed",
            ));
        }
    }
    Ok(())
}

/// `ERR_MERGE_FAILED` with git's last line in the reason and everything it said in the detail.
fn git_refused(out: &std::process::Output, what: &str) -> Problem {
    let said = git_said(out);
    let said = said.trim();
    let last = said.lines().last().unwrap_or("").trim();
    let reason = match last.is_empty() {
        true => what.to_string(),
        false => format!("{what} ({last})"),
    };
    Problem::new(Code::MergeFailed, reason).with_detail(said)
}

/// Everything git printed, stdout then stderr.
fn git_said(out: &std::process::Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout).trim(),
        String::from_utf8_lossy(&out.stderr).trim()
    )
    .trim()
    .to_string()
}

/// Puts the working tree back after a merge that did not complete.
fn abort_merge(store: &Store) {
    let merging = store.git_dir().join("MERGE_HEAD").exists();
    let args: &[&str] = if merging {
        &["merge", "--abort"]
    } else {
        &["reset", "--merge", "--quiet"]
    };
    let _ = git_output(store, args);
}

/// Deletes a plan's local proposal branches and marks it discarded. A branch holding commits
/// papayu did not make is deleted only with `force`.
pub fn discard(store: &Store, spec: Option<&str>, force: bool) -> Result<Discarded, Problem> {
    let (ledger, record) = find_open(store, spec, Open::Any)?;
    let Some(d) = prepare_discard(store, &ledger, record.clone(), force)? else {
        return Err(Problem::new(
            Code::PlanState,
            format!("plan {} is already discarded", record.short_id()),
        ));
    };
    let mut pending = Pending::new(OpKind::Discard, format!("discard {}", d.record.short_id()));
    if !d.branches.is_empty() {
        let names: Vec<&str> = d.branches.iter().map(|b| b.name.as_str()).collect();
        pending.description = format!("discard {} ({})", d.record.short_id(), names.join(", "));
    }
    d.add_to(&mut pending);
    oplog::commit(store, &pending)?;
    let mut worktrees_removed = 0;
    for b in &d.branches {
        worktrees_removed += worktree::remove_holding(store, b.tip)?;
    }
    Ok(Discarded {
        record: d.record,
        branches: d.branches.into_iter().map(|b| b.name).collect(),
        worktrees_removed,
    })
}

/// A discard checked and ready to be recorded: its branches and its event.
struct Discarding {
    record: PlanRecord,
    branches: Vec<LocalBranch>,
    event: Event,
    base: Oid,
}

impl Discarding {
    /// Adds the branch deletions and the `discarded` event to an operation.
    fn add_to(&self, pending: &mut Pending) {
        for b in &self.branches {
            pending
                .refs
                .push(RefChange::new(b.refname(), Some(b.tip), None));
        }
        pending.note_lines.push((self.base, self.event.to_line()));
    }
}

/// Checks that a plan may be discarded; `None` when it already is, with no branch left.
fn prepare_discard(
    store: &Store,
    ledger: &Ledger,
    record: PlanRecord,
    force: bool,
) -> Result<Option<Discarding>, Problem> {
    let status = ledger.status(&record.id);
    let branches: Vec<LocalBranch> = ledger.proposals(&record.id).to_vec();
    if status == Status::Discarded && branches.is_empty() {
        return Ok(None);
    }
    let head = store.head_branch();
    if let Some(b) = branches
        .iter()
        .find(|b| head.as_deref() == Some(&b.refname()))
    {
        return Err(Problem::new(
            Code::PlanState,
            format!(
                "you are on {}; check out another branch before discarding it",
                b.name
            ),
        ));
    }
    if !force && let Some(b) = branches.iter().find(|b| !b.is_pristine()) {
        return Err(foreign_commits(store, b));
    }
    let mut event = Event::new(&record.id, EventKind::Discarded);
    if let Some(first) = branches.first() {
        event.branch = Some(first.name.clone());
        event.commit = Some(first.tip);
    }
    Ok(Some(Discarding {
        base: record.base,
        record,
        branches,
        event,
    }))
}

/// The refusal for a proposal branch holding commits papayu did not make.
fn foreign_commits(store: &Store, branch: &LocalBranch) -> Problem {
    let newest = branch.foreign.first().and_then(|id| {
        let message = store.commit_message(*id).ok()?;
        let subject = message.lines().next().unwrap_or("").to_string();
        Some(format!("{} {subject}", crate::store::short(id)))
    });
    Problem::new(
        Code::ForeignCommits,
        format!(
            "{} holds {} commit{} papayu did not make (newest: {}); keep them on another branch, or rerun with --force to delete them too",
            branch.name,
            branch.foreign.len(),
            if branch.foreign.len() == 1 { "" } else { "s" },
            newest.unwrap_or_default()
        ),
    )
}

/// The two commits (or trees) `git papayu diff` compares for a plan: from the parent of its
/// first applied commit to its branch tip when it has a proposal branch; else from its base to
/// its preview, or to the plan's tree built again (and written) when the preview is gone.
pub fn diff_range(
    store: &Store,
    ledger: &Ledger,
    record: &PlanRecord,
) -> Result<(Oid, Oid), Problems> {
    let branch_tip = ledger
        .branch(&record.id)
        .and_then(|b| store.ref_value(&format!("refs/heads/{b}")).ok().flatten());
    Ok(match branch_tip {
        Some(tip) => {
            let first = ledger
                .events_of(&record.id)
                .iter()
                .rev()
                .filter(|e| e.event == EventKind::Applied)
                .find_map(|e| e.commit)
                .unwrap_or(tip);
            let parent = store
                .commit_parents(first)?
                .first()
                .copied()
                .ok_or_else(|| {
                    vec![Problem::new(
                        Code::Git,
                        format!("the applied commit {first} has no parent"),
                    )]
                })?;
            (parent, tip)
        }
        None => {
            let base = record.base;
            let preview = record.preview;
            match preview.filter(|p| store.has_commit(*p)) {
                Some(preview) => (base, preview),
                None => {
                    let base_tree = store.commit_tree(base)?;
                    let options = BuildOptions {
                        write: true,
                        read: None,
                    };
                    let built = executor::build(store, base_tree, &record.plan, &options)?;
                    let tree = built.tree.ok_or_else(|| {
                        vec![Problem::new(
                            Code::Git,
                            "building the plan's tree wrote no tree",
                        )]
                    })?;
                    (base, tree)
                }
            }
        }
    })
}
