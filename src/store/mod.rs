//! All git access goes through here: plan notes, refs, the operation log and check worktrees.
//!
//! Every mutation of the repository is an [`Operation`](oplog::Operation): a named set of
//! compare-and-swap ref updates committed together with one new entry of the operation log, so
//! that `undo` can invert it. Nothing in this module touches the user's working tree, index or
//! current branch unless the operation is explicitly about them (merge, and undoing a merge).

mod baseline;
mod cache;
pub mod checks;
pub mod cmdline;
pub mod config;
mod error;
mod history;
mod ids;
pub mod index;
pub mod intake;
mod merges;
pub use merges::MergeIntent;
pub mod notes;
pub mod oplog;
mod owners;
pub mod proposals;
pub mod records;
pub mod refs;
pub mod remote;
pub mod results;
mod sig;
mod snapshot;
pub mod sshsig;
mod trees;
mod trust;
pub mod vouch;
mod work;
pub use work::UserGit;
pub mod worktree;

use std::path::PathBuf;

pub use git2::Oid;
use git2::Repository;

pub(crate) use cache::{put as cache_put, take as cache_take};
pub use error::StoreError;
pub use history::{HISTORY_DEPTH, HISTORY_MAX_FILES};
pub use sig::{author, signature};
pub use snapshot::{Entry, FileRead, Snapshot};
pub use trees::TreeEdit;

pub use ids::{SHORT, short};

/// Sentences about shared data the store set aside while reading it (a forged record), for the
/// front end to show once as warnings. The store itself never prints.
static NOTICES: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

fn notice_all(sentences: &[String]) {
    if let Ok(mut notices) = NOTICES.lock() {
        for s in sentences {
            if !notices.contains(s) {
                notices.push(s.clone());
            }
        }
    }
}

/// Takes the notices gathered so far (see `NOTICES`).
pub fn take_notices() -> Vec<String> {
    NOTICES
        .lock()
        .map(|mut n| std::mem::take(&mut *n))
        .unwrap_or_default()
}

/// The notes ref that holds plan records and their events.
pub const NOTES_REF: &str = "refs/notes/papayu";
/// The operation log: a chain of commits, one per papayu operation.
pub const OPLOG_REF: &str = "refs/papayu/oplog";
/// Prefix of proposal branches.
pub const BRANCH_PREFIX: &str = "refs/heads/papayu/";

/// Variables through which a caller (a hook, say) points git at a repository. Commands papayu
/// starts are aimed explicitly, so these are removed from their environment.
const GIT_LOCATION_VARS: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",
    "GIT_PREFIX",
];

/// A command with the caller's git location variables removed.
pub fn command(program: &str) -> std::process::Command {
    let mut cmd = std::process::Command::new(program);
    for var in GIT_LOCATION_VARS {
        cmd.env_remove(var);
    }
    cmd
}

/// What a commit's tree holds at a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileAt {
    File(Vec<u8>),
    /// A directory, symlink or submodule.
    NotAFile,
    Missing,
}

/// An open repository plus the paths papayu keeps its private state in.
pub struct Store {
    repo: Repository,
}

/// Reads and writes objects the way git itself does: no re-hashing of every object read (git
/// only verifies hashes in fsck) and no existence lookups for the entries of trees we build
/// from objects we just read or wrote. Both checks cost time proportional to the size of the
/// trees touched, which on large repositories dominates an apply.
fn configure_libgit2() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        git2::opts::strict_hash_verification(false);
        git2::opts::strict_object_creation(false);
        // libgit2 keeps no tree over 4 KB in its object cache, so every path looked up below a
        // large directory (a few hundred entries) reads and inflates that tree again. Trees up
        // to 1 MB are kept (within libgit2's overall cache limit).
        // SAFETY: set once, before this process uses libgit2 from more than one thread.
        let _ = unsafe { git2::opts::set_cache_object_limit(git2::ObjectType::Tree, 1 << 20) };
    });
}

/// Whether the process `pid` is running (another papayu, for the state it left on disk). Where
/// that cannot be asked, it is taken as gone.
pub(crate) fn process_alive(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return false;
        };
        // Signal 0 checks only that the process exists (EPERM: it does, owned by another user).
        // SAFETY: kill with signal 0 sends nothing and touches no memory.
        let answer = unsafe { libc::kill(pid, 0) };
        answer == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        false
    }
}

/// Bytes held by the files under `path` (symlinks are not followed).
pub fn disk_usage(path: &std::path::Path) -> u64 {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return 0;
    };
    if !meta.is_dir() {
        return meta.len();
    }
    std::fs::read_dir(path)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| disk_usage(&e.path()))
                .sum::<u64>()
        })
        .unwrap_or(0)
}

/// Why a repository could not be opened: git's own answer when git reads it as a repository in
/// a format the library cannot (SHA-256 object names, reftable refs), else "not a repository".
fn unopenable(at: Option<&std::path::Path>, error: &git2::Error) -> StoreError {
    let ask = |key: &str| {
        // The caller's GIT_DIR and friends are kept: they say which repository is meant.
        let mut cmd = std::process::Command::new("git");
        if let Some(at) = at {
            cmd.arg("-C").arg(at);
        }
        let out = cmd.args(["config", "--get", key]).output().ok()?;
        let value = String::from_utf8_lossy(&out.stdout)
            .trim()
            .to_ascii_lowercase();
        (out.status.success() && !value.is_empty()).then_some(value)
    };
    let objects = ask("extensions.objectformat").filter(|v| v != "sha1");
    let refs = ask("extensions.refstorage").filter(|v| v != "files");
    match (objects, refs) {
        (Some(format), _) => StoreError::Unsupported(format!(
            "this repository names objects with {format} (extensions.objectFormat); papayu's git \
             library reads SHA-1 repositories only, so use papayu in a SHA-1 clone"
        )),
        (None, Some(format)) => StoreError::Unsupported(format!(
            "this repository keeps its refs in the {format} format (extensions.refStorage); \
             papayu reads the files format only: convert with `git refs migrate --ref-format=files`"
        )),
        (None, None) => StoreError::NotARepository(error.message().to_string()),
    }
}

impl Store {
    /// Opens the repository the way git does: `GIT_DIR` and friends first, else discovery from
    /// the current directory.
    pub fn open() -> Result<Store, StoreError> {
        configure_libgit2();
        let repo = Repository::open_from_env().map_err(|e| unopenable(None, &e))?;
        refs::finish_interrupted(&repo)?;
        Ok(Store { repo }.reconciled())
    }

    /// Opens the repository at or above `path`, ignoring `GIT_DIR` and friends.
    pub fn open_at(path: &std::path::Path) -> Result<Store, StoreError> {
        configure_libgit2();
        let repo = Repository::discover(path).map_err(|e| unopenable(Some(path), &e))?;
        refs::finish_interrupted(&repo)?;
        Ok(Store { repo }.reconciled())
    }

    /// The store, after recording a merge an interrupted `git papayu merge` left unrecorded
    /// (said as a notice). A failure to record it is said too, and leaves the announcement for
    /// the next command: opening the repository never fails for it.
    fn reconciled(self) -> Store {
        match self.reconcile_merge() {
            Ok(Some(done)) => notice_all(&[done]),
            Ok(None) => {}
            Err(e) => notice_all(&[format!(
                "an interrupted git papayu merge is not recorded yet: {e}"
            )]),
        }
        self
    }

    /// `<common gitdir>/papayu`: traces and worktrees live here, shared by all worktrees.
    pub fn state_dir(&self) -> PathBuf {
        self.repo.commondir().join("papayu")
    }

    /// Resolves a revision to a commit id.
    pub fn resolve_commit(&self, rev: &str) -> Result<Oid, StoreError> {
        let object = self
            .repo
            .revparse_single(rev)
            .map_err(|_| StoreError::BadRevision(rev.to_string()))?;
        let commit = object
            .peel_to_commit()
            .map_err(|_| StoreError::BadRevision(rev.to_string()))?;
        Ok(commit.id())
    }

    /// The user's own author identity, `Name <email>`, when git has one (`GIT_AUTHOR_*`, else
    /// `user.*`); `None` where bookkeeping commits fall back to papayu's fixed identity.
    pub fn user_identity(&self) -> Option<String> {
        sig::user_identity(&self.repo)
    }

    /// Teammates' published proposals: remote-tracking `papayu/*` branches by plan (see
    /// [`proposals::scan_remote`]).
    pub fn remote_proposals(
        &self,
    ) -> Result<std::collections::BTreeMap<String, Vec<String>>, StoreError> {
        proposals::scan_remote(&self.repo)
    }

    /// Everything the notes say about plans, with the local proposal branches.
    pub fn ledger(&self) -> Result<records::Ledger, StoreError> {
        let notes = self.ref_value(NOTES_REF)?;
        let mut ledger = records::Ledger::load(&self.repo, notes, &|| self.trust())?;
        notice_all(&ledger.warnings);
        self.fold_worker_verdicts(&mut ledger)?;
        Ok(ledger)
    }

    /// The cancels and verdicts this clone's operation log vouches for.
    fn trust(&self) -> Result<records::Trust, StoreError> {
        oplog::logged_trust(self)
    }

    /// Who brought the line named `hash` (see [`records::line_hash`]) onto the note of `on` in
    /// the local notes: the notes commit that added it and its author (see
    /// [`notes::line_origin`]); `None` when the note no longer holds it or it is not found.
    pub fn line_origin(&self, on: Oid, hash: &str) -> Option<notes::Origin> {
        let tip = self.ref_value(NOTES_REF).ok()??;
        let text = notes::read(&self.repo, Some(tip), on).ok()??;
        let line = text.lines().find(|l| records::line_hash(l) == hash)?;
        notes::line_origin(&self.repo, tip, on, line)
    }

    /// Which notes hold lines about which plan (see [`index`]).
    pub fn plan_index(&self) -> Result<index::PlanIndex, StoreError> {
        index::PlanIndex::load(&self.repo, self.ref_value(NOTES_REF)?)
    }

    /// The ledger of every note that holds a line about plan `id`: exact for that plan. (A
    /// damaged index entry falls back to every note.)
    pub fn ledger_about(
        &self,
        index: &index::PlanIndex,
        id: &str,
    ) -> Result<records::Ledger, StoreError> {
        let Some(reading) = index.reading(id) else {
            return self.ledger();
        };
        let notes = self.ref_value(NOTES_REF)?;
        let objects = reading.objects(id);
        let mut ledger =
            records::Ledger::load_from(&self.repo, notes, &objects, Some(id), &|| self.trust())?;
        ledger.add_copies(id, &reading.record_only);
        notice_all(&ledger.warnings);
        ledger.local = proposals::scan(&self.repo)?;
        self.fold_worker_verdicts(&mut ledger)?;
        Ok(ledger)
    }

    /// The ledger of the notes of `objects`, for the plans `ids` only (exact for each whose
    /// lines all live there: see [`Store::plan_index`]), with the local branches. The lines
    /// of those notes about other plans are skipped unparsed (see
    /// [`records::Ledger::load_about`]).
    pub fn ledger_of_plans(
        &self,
        objects: &[Oid],
        ids: &std::collections::HashSet<&str>,
    ) -> Result<records::Ledger, StoreError> {
        let notes = self.ref_value(NOTES_REF)?;
        let mut ledger =
            records::Ledger::load_about(&self.repo, notes, objects, ids, &|| self.trust())?;
        notice_all(&ledger.warnings);
        ledger.local = proposals::scan(&self.repo)?;
        self.fold_worker_verdicts(&mut ledger)?;
        Ok(ledger)
    }

    /// The records and events on the notes of `objects`, without the local branches: enough to
    /// know which plans sit on a commit, not their status.
    pub fn plans_on(&self, objects: &[Oid]) -> Result<records::Ledger, StoreError> {
        let ledger = records::Ledger::load_from(
            &self.repo,
            self.ref_value(NOTES_REF)?,
            objects,
            None,
            &|| self.trust(),
        )?;
        notice_all(&ledger.warnings);
        Ok(ledger)
    }

    /// The records and events on the notes of `objects` whose lines hold `needle` (a group's
    /// id, say), without the local branches; the other lines are skipped unparsed.
    pub fn plans_mentioning(
        &self,
        objects: &[Oid],
        needle: &str,
    ) -> Result<records::Ledger, StoreError> {
        let ledger = records::Ledger::load_from(
            &self.repo,
            self.ref_value(NOTES_REF)?,
            objects,
            Some(needle),
            &|| self.trust(),
        )?;
        notice_all(&ledger.warnings);
        Ok(ledger)
    }

    /// When the notes ref's commit was made (committer time, milliseconds); `i64::MAX` without
    /// notes.
    pub fn notes_time(&self) -> Result<i64, StoreError> {
        let Some(notes) = self.ref_value(NOTES_REF)? else {
            return Ok(i64::MAX);
        };
        let commit = self
            .repo
            .find_commit(notes)
            .map_err(|e| StoreError::git("reading the notes commit", e))?;
        Ok(commit.time().seconds().saturating_mul(1000))
    }

    /// A commit's message (lossily UTF-8).
    pub fn commit_message(&self, commit: Oid) -> Result<String, StoreError> {
        let commit = self
            .repo
            .find_commit(commit)
            .map_err(|e| StoreError::git("reading a commit", e))?;
        Ok(String::from_utf8_lossy(commit.message_bytes()).into_owned())
    }

    /// A commit's parents, first parent first.
    pub fn commit_parents(&self, commit: Oid) -> Result<Vec<Oid>, StoreError> {
        let commit = self
            .repo
            .find_commit(commit)
            .map_err(|e| StoreError::git("reading a commit", e))?;
        Ok(commit.parent_ids().collect())
    }

    /// `true` when `id` names a commit in the object database.
    pub fn has_commit(&self, id: Oid) -> bool {
        self.repo.find_commit(id).is_ok()
    }

    /// The working tree, `None` in a bare repository.
    pub fn workdir(&self) -> Option<&std::path::Path> {
        self.repo.workdir()
    }

    /// This worktree's git directory (`.git`, or `.git/worktrees/<name>` in a linked one).
    pub fn git_dir(&self) -> &std::path::Path {
        self.repo.path()
    }

    /// The note text on `object` in the notes commit `notes`.
    pub fn note(&self, notes: Option<Oid>, object: Oid) -> Result<Option<String>, StoreError> {
        notes::read(&self.repo, notes, object)
    }

    /// Every note of the notes commit `notes`: (annotated object, text).
    pub fn all_notes(&self, notes: Option<Oid>) -> Result<Vec<(Oid, String)>, StoreError> {
        notes::all(&self.repo, notes)
    }

    /// What the tree of `commit` holds at `path`.
    pub fn file_at(&self, commit: Oid, path: &str) -> Result<FileAt, StoreError> {
        let tree = self
            .repo
            .find_commit(commit)
            .and_then(|c| c.tree())
            .map_err(|e| StoreError::git("reading a commit's tree", e))?;
        let Ok(entry) = tree.get_path(std::path::Path::new(path)) else {
            return Ok(FileAt::Missing);
        };
        let object = entry
            .to_object(&self.repo)
            .map_err(|e| StoreError::git(format!("reading {path}"), e))?;
        Ok(match object.into_blob() {
            Ok(blob) => FileAt::File(blob.content().to_vec()),
            Err(_) => FileAt::NotAFile,
        })
    }

    /// Empties the derived-data cache (`<gitdir>/papayu/cache/`): entries and bytes.
    pub fn clear_cache(&self, dry_run: bool) -> (usize, u64) {
        cache::clear(&self.repo, dry_run)
    }

    /// `ancestor` is `descendant` or in its history.
    pub fn is_ancestor(&self, ancestor: Oid, descendant: Oid) -> bool {
        ancestor == descendant
            || self
                .repo
                .graph_descendant_of(descendant, ancestor)
                .unwrap_or(false)
    }

    /// The commit among `commits` with the newest committer time (the first of equals).
    pub fn newest_commit(&self, commits: &[Oid]) -> Option<Oid> {
        commits
            .iter()
            .filter_map(|&c| Some((self.repo.find_commit(c).ok()?.time().seconds(), c)))
            .rev()
            .max_by_key(|(time, _)| *time)
            .map(|(_, c)| c)
    }

    /// The current value of a ref, `None` when it does not exist.
    pub fn ref_value(&self, name: &str) -> Result<Option<Oid>, StoreError> {
        match self.repo.refname_to_id(name) {
            Ok(oid) => Ok(Some(oid)),
            Err(e) if e.code() == git2::ErrorCode::NotFound => Ok(None),
            Err(e) => Err(StoreError::git(format!("reading {name}"), e)),
        }
    }

    /// Writes a bookkeeping commit of `tree` on top of `parent` (no ref is moved): a commit that
    /// never lands on a user's branch, such as a plan's preview. Commits for the user go through
    /// [`Store::commit_for_user`].
    pub fn commit_on(&self, parent: Oid, tree: Oid, message: &str) -> Result<Oid, StoreError> {
        let repo = &self.repo;
        let parent = repo
            .find_commit(parent)
            .map_err(|e| StoreError::git("reading the parent commit", e))?;
        let tree = repo
            .find_tree(tree)
            .map_err(|e| StoreError::git("reading the new tree", e))?;
        repo.commit(
            None,
            &author(repo),
            &signature(repo),
            message,
            &tree,
            &[&parent],
        )
        .map_err(|e| StoreError::git("writing a commit", e))
    }

    /// Writes a commit of `tree` on top of `parent` for the user (a proposal commit) through
    /// `git commit-tree`: git's identity rules and, with `commit.gpgsign`, git's signing. No ref
    /// is moved. Fails with `ERR_IDENTITY_UNKNOWN` or `ERR_SIGNING_FAILED` where git would.
    pub fn commit_for_user(
        &self,
        parent: Oid,
        tree: Oid,
        message: &str,
    ) -> Result<Oid, StoreError> {
        sig::commit_for_user(&self.repo, parent, tree, message)
    }

    /// Another worktree of this repository (the main one or a linked one, not this one) that has
    /// `refname` checked out, by its path.
    pub fn checked_out_elsewhere(&self, refname: &str) -> Option<PathBuf> {
        let here = self.repo.workdir().and_then(|w| w.canonicalize().ok());
        let mut others: Vec<Repository> = Vec::new();
        if self.repo.is_worktree()
            && let Ok(main) = Repository::open(self.repo.commondir())
        {
            others.push(main);
        }
        if let Ok(names) = self.repo.worktrees() {
            for name in names.iter().flatten().flatten() {
                if let Ok(wt) = self.repo.find_worktree(name)
                    && let Ok(repo) = Repository::open_from_worktree(&wt)
                {
                    others.push(repo);
                }
            }
        }
        others.into_iter().find_map(|repo| {
            let dir = repo.workdir()?.canonicalize().ok()?;
            let head = repo.find_reference("HEAD").ok()?;
            let target = head.symbolic_target().ok().flatten()?;
            (target == refname && Some(&dir) != here.as_ref()).then_some(dir)
        })
    }

    /// The branch HEAD points at (`refs/heads/…`), `None` when HEAD is detached.
    pub fn head_branch(&self) -> Option<String> {
        let head = self.repo.find_reference("HEAD").ok()?;
        head.symbolic_target().ok().flatten().map(str::to_string)
    }
}

impl Store {
    /// The tree of a commit.
    pub fn commit_tree(&self, commit: Oid) -> Result<Oid, StoreError> {
        self.repo
            .find_commit(commit)
            .map(|c| c.tree_id())
            .map_err(|e| StoreError::git("reading a commit", e))
    }

    /// Paths that differ between two commits' trees.
    pub fn changed_paths(&self, from: Oid, to: Oid) -> Result<Vec<String>, StoreError> {
        let git = |e| StoreError::git("comparing trees", e);
        let old = self
            .repo
            .find_commit(from)
            .and_then(|c| c.tree())
            .map_err(git)?;
        let new = self
            .repo
            .find_commit(to)
            .and_then(|c| c.tree())
            .map_err(git)?;
        let diff = self
            .repo
            .diff_tree_to_tree(Some(&old), Some(&new), None)
            .map_err(git)?;
        Ok(diff
            .deltas()
            .filter_map(|d| d.new_file().path().or_else(|| d.old_file().path()))
            .map(|p| p.to_string_lossy().into_owned())
            .collect())
    }
}

impl Store {
    /// Every git config entry whose name starts with `prefix`, with the file it came from, as
    /// `git config --show-origin` reports it: (name, value, origin).
    pub fn config_with_origins(
        &self,
        prefix: &str,
    ) -> Result<Vec<(String, String, String)>, StoreError> {
        let workdir = self
            .repo
            .workdir()
            .unwrap_or_else(|| self.repo.path())
            .to_path_buf();
        let output = command("git")
            .current_dir(&workdir)
            .args(["config", "--show-origin", "--null", "--list"])
            .output()
            .map_err(|e| StoreError::io("running git config", e))?;
        let text = String::from_utf8_lossy(&output.stdout);
        // --null: "origin\0name\nvalue\0" per entry.
        let mut out = Vec::new();
        let mut fields = text.split('\0');
        while let (Some(origin), Some(entry)) = (fields.next(), fields.next()) {
            let (name, value) = entry.split_once('\n').unwrap_or((entry, ""));
            if name
                .to_ascii_lowercase()
                .starts_with(&prefix.to_ascii_lowercase())
            {
                out.push((name.to_string(), value.to_string(), origin.to_string()));
            }
        }
        Ok(out)
    }
}
