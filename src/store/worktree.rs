//! Check worktrees: linked worktrees under `<gitdir>/papayu/worktrees/`, registered with git.
//!
//! A slot is created once (`git worktree add`) and afterwards moved from commit to commit with
//! a forced `git checkout --detach`, which rewrites only the files that differ — so a second check costs what
//! the change costs, not what the repository costs, and build caches left in the slot survive.
//! Slots are locked with an OS file lock while in use, so two papayu processes never share one;
//! a crashed process releases its lock with its death. The check itself inherits the lock's
//! descriptor (see [`Slot::lock_fd`]), so a slot stays taken until the last process of the check
//! that used it is gone, even when papayu died first.
//!
//! Before every check the slot is cleaned of untracked and ignored files (`git clean -ffdx`),
//! so nothing an earlier check wrote can influence the next one, and it always holds the full
//! tree, even when the user's own checkout is sparse. The one exception is the build caches the
//! caller names (`target/`, `node_modules/.cache`): they are kept, so a second build is warm,
//! and what an earlier check left in them is exactly what a later check may find there — which
//! is why only caches their tools key by content are kept by default, and why base runs have
//! slots of their own ([`SlotKind::Base`]).
//!
//! A check runs model-written code with write access to its slot, including the slot's `.git`
//! file: the slot's link to its administrative directory is verified before each use, so a
//! check cannot point later git commands at the user's own worktree.
//!
//! This module shells out to git on purpose: checkout must honour `.gitattributes`, filters and
//! hooks exactly as git does. It never touches the user's own working tree.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;

use git2::Oid;

use super::{Store, StoreError};

/// How many slots of each kind may exist at once (one per concurrent check).
pub const MAX_SLOTS: usize = 4;

/// Which pool a slot belongs to. Base runs have slots of their own, which no proposal's check
/// ever uses: what a base run finds in the caches kept there was written by the checks of
/// committed, user-made trees alone, never by code a model wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotKind {
    /// Checks of proposals (`check-N`).
    Proposal,
    /// Checks of the base a proposal is judged against (`base-N`).
    Base,
}

impl SlotKind {
    const ALL: [SlotKind; 2] = [SlotKind::Proposal, SlotKind::Base];

    fn prefix(self) -> &'static str {
        match self {
            SlotKind::Proposal => "check",
            SlotKind::Base => "base",
        }
    }
}

/// A locked check slot.
pub struct Slot {
    pub path: PathBuf,
    _lock: File,
}

fn slots_dir(store: &Store) -> PathBuf {
    store.state_dir().join("worktrees")
}

/// A git command aimed at this repository, immune to `GIT_DIR`-style variables of the caller.
pub fn git(store: &Store) -> Command {
    let mut cmd = super::command("git");
    cmd.arg("--git-dir").arg(store.repo.commondir());
    cmd
}

/// A git command run inside a check worktree, which always sees the full tree: a sparse
/// checkout of the user's worktree must not hide files from the check.
fn git_in(path: &Path) -> Command {
    let mut cmd = super::command("git");
    cmd.arg("-C").arg(path).args([
        "-c",
        "core.sparseCheckout=false",
        "-c",
        "index.sparse=false",
    ]);
    cmd
}

fn run(mut cmd: Command, what: &str) -> Result<(), StoreError> {
    let out = cmd
        .output()
        .map_err(|e| StoreError::io(format!("running git to {what}"), e))?;
    if out.status.success() {
        Ok(())
    } else {
        let stderr = String::from_utf8_lossy(&out.stderr);
        Err(StoreError::git(
            what.to_string(),
            git2::Error::from_str(stderr.trim()),
        ))
    }
}

/// How long to wait for a busy slot before giving up.
const SLOT_WAIT: std::time::Duration = std::time::Duration::from_secs(3600);

/// Waits for, then takes, the lock under which a slot is registered as a worktree.
fn creation_lock(store: &Store) -> Result<File, StoreError> {
    let path = slots_dir(store).join("create.flock");
    let lock = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| StoreError::io(format!("opening {}", path.display()), e))?;
    lock.lock()
        .map_err(|e| StoreError::io(format!("locking {}", path.display()), e))?;
    Ok(lock)
}

/// Takes the first free slot of `kind` (creating the directory for it). When all are busy with
/// other papayu processes' checks, calls `waiting` once and waits for one to be freed.
pub fn acquire(
    store: &Store,
    kind: SlotKind,
    waiting: &mut dyn FnMut(usize),
) -> Result<Slot, StoreError> {
    let prefix = kind.prefix();
    let dir = slots_dir(store);
    std::fs::create_dir_all(&dir)
        .map_err(|e| StoreError::io(format!("creating {}", dir.display()), e))?;
    let started = std::time::Instant::now();
    let mut told = false;
    loop {
        for n in 1..=MAX_SLOTS {
            let lock_path = dir.join(format!("{prefix}-{n}.flock"));
            let lock = File::options()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&lock_path)
                .map_err(|e| StoreError::io(format!("opening {}", lock_path.display()), e))?;
            if lock.try_lock().is_ok() {
                return Ok(Slot {
                    path: dir.join(format!("{prefix}-{n}")),
                    _lock: lock,
                });
            }
        }
        if started.elapsed() > SLOT_WAIT {
            return Err(StoreError::io(
                "finding a free check worktree",
                std::io::Error::other(format!(
                    "all {MAX_SLOTS} were in use by other papayu processes for an hour; \
                     look for stuck checks (ps) and retry"
                )),
            ));
        }
        if !told {
            waiting(MAX_SLOTS);
            told = true;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

impl Slot {
    /// The descriptor holding the slot's lock. A check keeps it open across `exec`, so that
    /// every process it starts shares the lock: the slot is free again only when papayu and all
    /// of them have closed it.
    #[cfg(unix)]
    pub fn lock_fd(&self) -> std::os::fd::RawFd {
        use std::os::fd::AsRawFd;
        self._lock.as_raw_fd()
    }

    /// `true` when the slot holds a registered, usable worktree.
    fn is_live(&self, store: &Store) -> bool {
        self.admin_dir(store).is_some()
    }

    /// The worktree's administrative directory under `<gitdir>/worktrees/`, when the slot is a
    /// registered worktree: the slot's `.git` file names a directory directly inside
    /// `<gitdir>/worktrees/`, and that directory's `gitdir` file names the slot back.
    fn admin_dir(&self, store: &Store) -> Option<PathBuf> {
        let text = std::fs::read_to_string(self.path.join(".git")).ok()?;
        let admin = PathBuf::from(text.trim().strip_prefix("gitdir: ")?)
            .canonicalize()
            .ok()?;
        let worktrees = store
            .repo
            .commondir()
            .join("worktrees")
            .canonicalize()
            .ok()?;
        let back = std::fs::read_to_string(admin.join("gitdir")).ok()?;
        let back = PathBuf::from(back.trim()).canonicalize().ok()?;
        let own = self.path.join(".git").canonicalize().ok()?;
        (admin.parent() == Some(worktrees.as_path()) && back == own && admin.join("HEAD").exists())
            .then_some(admin)
    }

    /// Keeps the slot out of any sparse checkout it inherited from the user's worktree.
    fn unsparse(admin: &Path) -> Result<(), StoreError> {
        let _ = std::fs::remove_file(admin.join("info").join("sparse-checkout"));
        let config = admin.join("config.worktree");
        if config.exists() {
            let mut cmd = super::command("git");
            cmd.args(["config", "--file"])
                .arg(&config)
                .args(["core.sparseCheckout", "false"]);
            run(cmd, "turning off sparse checkout in the check worktree")?;
        }
        Ok(())
    }

    /// Removes every untracked and ignored file, nested repositories included, except what
    /// matches the gitignore patterns in `keep`.
    fn clean(&self, keep: &[String]) -> Result<(), StoreError> {
        let mut cmd = git_in(&self.path);
        cmd.args(["clean", "-ffdxq"]);
        for pattern in keep {
            cmd.arg("-e").arg(pattern);
        }
        run(cmd, "cleaning the check worktree")
    }

    /// Moves the slot to `commit`, creating it the first time, and cleans it of everything but
    /// the caches in `keep`. Returns `true` when it had to be created (a full checkout) rather
    /// than updated.
    pub fn update(&self, store: &Store, commit: Oid, keep: &[String]) -> Result<bool, StoreError> {
        if let Some(admin) = self.admin_dir(store) {
            // We hold the slot's lock, so an index lock left in it can only be a leftover of a
            // papayu process that was killed while updating it.
            let _ = std::fs::remove_file(admin.join("index.lock"));
            // A forced detached checkout: a two-way merge that skips unchanged subtrees and
            // rewrites only the files that differ, and discards whatever a previous check
            // changed in tracked files, so every check sees exactly the proposal.
            run(self.checkout(commit), "updating the check worktree")?;
            self.clean(keep)?;
            return Ok(false);
        }
        if self.path.exists() {
            std::fs::remove_dir_all(&self.path)
                .map_err(|e| StoreError::io(format!("clearing {}", self.path.display()), e))?;
        }
        // Creating worktrees side by side races in git itself (an add reads the others' admin
        // directories half-written; a prune can take one before its `.git` file exists): one
        // slot is created at a time, across papayu processes.
        let creating = creation_lock(store)?;
        let mut prune = git(store);
        prune.args(["worktree", "prune"]);
        run(prune, "pruning stale worktrees")?;
        // Registered without a checkout, so a sparse checkout git copies from the user's
        // worktree can be turned off before any file is written.
        let mut add = git(store);
        add.args([
            "worktree",
            "add",
            "--detach",
            "--force",
            "--quiet",
            "--no-checkout",
        ])
        .arg(&self.path)
        .arg(commit.to_string());
        run(add, "creating the check worktree")?;
        let admin = self.admin_dir(store).ok_or_else(|| {
            StoreError::io(
                "creating the check worktree",
                std::io::Error::other(format!(
                    "{} is not linked to the repository",
                    self.path.display()
                )),
            )
        })?;
        Self::unsparse(&admin)?;
        drop(creating);
        run(self.checkout(commit), "filling the check worktree")?;
        Ok(true)
    }

    /// `git checkout --force --detach COMMIT` in the slot.
    fn checkout(&self, commit: Oid) -> Command {
        let mut cmd = git_in(&self.path);
        cmd.args([
            "checkout",
            "--quiet",
            "--detach",
            "--force",
            "--no-recurse-submodules",
        ])
        .arg(commit.to_string());
        cmd
    }

    /// The commit the slot holds, if it is live.
    pub fn head(&self, store: &Store) -> Option<Oid> {
        if !self.is_live(store) {
            return None;
        }
        let repo = git2::Repository::open(&self.path).ok()?;
        repo.head().ok()?.target()
    }

    /// Removes the worktree and unregisters it from git.
    pub fn remove(&self, store: &Store) -> Result<(), StoreError> {
        if self.is_live(store) {
            let mut cmd = git(store);
            cmd.args(["worktree", "remove", "--force", "--force"])
                .arg(&self.path);
            run(cmd, "removing the check worktree")?;
        } else if self.path.exists() {
            std::fs::remove_dir_all(&self.path)
                .map_err(|e| StoreError::io(format!("removing {}", self.path.display()), e))?;
        }
        Ok(())
    }
}

/// The slots of every kind that no process is using, each locked for the caller.
fn idle_slots(store: &Store) -> Vec<Slot> {
    let dir = slots_dir(store);
    SlotKind::ALL
        .iter()
        .flat_map(|kind| (1..=MAX_SLOTS).map(move |n| format!("{}-{n}", kind.prefix())))
        .filter_map(|name| {
            let lock = File::options()
                .write(true)
                .open(dir.join(format!("{name}.flock")))
                .ok()?;
            lock.try_lock().ok()?;
            Some(Slot {
                path: dir.join(name),
                _lock: lock,
            })
        })
        .collect()
}

/// Removes every idle slot that holds `commit` (used when its plan is discarded). Slots in use
/// by another process are left alone.
pub fn remove_holding(store: &Store, commit: Oid) -> Result<usize, StoreError> {
    let mut removed = 0;
    for slot in idle_slots(store) {
        if slot.head(store) == Some(commit) {
            slot.remove(store)?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// Removes every idle check worktree (they are made again on the next check) and unregisters
/// worktrees whose directory is gone (`git worktree prune`). Slots in use are left alone.
/// Returns how many were (or, with `dry_run`, would be) removed and their size in bytes.
pub fn prune_idle(store: &Store, dry_run: bool) -> Result<(usize, u64), StoreError> {
    let mut removed = 0;
    let mut bytes = 0;
    for slot in idle_slots(store).into_iter().filter(|s| s.path.exists()) {
        bytes += super::disk_usage(&slot.path);
        removed += 1;
        if !dry_run {
            slot.remove(store)?;
        }
    }
    if !dry_run {
        let mut cmd = git(store);
        cmd.args(["worktree", "prune"]);
        run(cmd, "pruning worktree registrations")?;
    }
    Ok((removed, bytes))
}
