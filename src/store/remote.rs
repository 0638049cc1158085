//! Talking to remotes: fetching and pushing the papayu notes, pushing a proposal branch.
//!
//! Remotes are reached through the `git` program, never through the library: the user's
//! transport, credential helpers, `insteadOf` rewrites and SSH setup are git's, and only git
//! honours them all. Nothing here ever force-pushes: a push that is not a fast-forward comes
//! back as [`Pushed::Rejected`] for the caller to fetch, merge and try again. The one forced
//! update is of papayu's own remote-tracking ref (`refs/notes/remotes/<remote>/papayu`), which
//! mirrors the remote as `git fetch` mirrors branches.

use std::process::Output;

use super::intake::{self, Merge, Merged, Strategy};
use super::refs::{self, RefChange};
use super::{NOTES_REF, Oid, Store, StoreError};
use crate::codes::{Code, Problem};

/// Where a remote's notes are fetched to.
pub fn tracking_ref(remote: &str) -> String {
    format!("refs/notes/remotes/{remote}/papayu")
}

/// How a push ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pushed {
    /// The remote took it (or had it already).
    Done,
    /// The remote moved on since our fetch: fetch, merge and push again.
    Rejected,
}

impl Store {
    /// The remote `sync` and `publish` use when none is named: the current branch's upstream
    /// remote (`branch.<name>.remote`), else `origin`.
    pub fn default_remote(&self) -> String {
        let branch = self
            .repo
            .head()
            .ok()
            .filter(|h| h.is_branch())
            .and_then(|h| h.shorthand().ok().map(str::to_string));
        branch
            .and_then(|b| self.config_string(&format!("branch.{b}.remote")))
            .filter(|r| r != ".")
            .unwrap_or_else(|| "origin".to_string())
    }

    /// Refuses a remote that is not configured (`ERR_NO_SUCH_REMOTE`).
    pub fn require_remote(&self, remote: &str) -> Result<(), Problem> {
        match self.has_remote(remote) {
            true => Ok(()),
            false => Err(Problem::new(
                Code::NoSuchRemote,
                format!(
                    "no remote named '{remote}'; name one of git remote -v, or add one with git remote add"
                ),
            )),
        }
    }

    /// Fetches the remote's `refs/notes/papayu` into [`tracking_ref`]; returns its tip, `None`
    /// when the remote has no papayu notes yet. A remote whose notes ref is not a commit is
    /// `ERR_REMOTE_FAILED`, with the tracking ref put back as it was.
    pub fn fetch_notes(&self, remote: &str) -> Result<Option<Oid>, Problem> {
        let tracking = tracking_ref(remote);
        let before = self.ref_value(&tracking).map_err(|e| e.to_problem())?;
        let refspec = format!("+{NOTES_REF}:{tracking}");
        let out = self.git_remote(&[
            "fetch",
            "--quiet",
            "--no-tags",
            "--no-write-fetch-head",
            remote,
            &refspec,
        ])?;
        if !out.status.success() {
            let said = String::from_utf8_lossy(&out.stderr);
            if said.contains("couldn't find remote ref") {
                return Ok(None);
            }
            return Err(remote_failed(
                &format!("fetching {remote}'s plans failed"),
                &out,
            ));
        }
        let fetched = self.ref_value(&tracking).map_err(|e| e.to_problem())?;
        match fetched.map(|tip| (tip, self.object_kind(tip))) {
            Some((tip, kind)) if kind != Some(git2::ObjectType::Commit) => {
                if before != fetched {
                    let back = RefChange::new(tracking.as_str(), fetched, before);
                    refs::update(&self.repo, &[back], "papayu sync: not a notes commit")
                        .map_err(|e| e.to_problem())?;
                }
                Err(not_a_notes_commit(remote, tip, kind))
            }
            _ => Ok(fetched),
        }
    }

    /// What kind of object `id` names, `None` when it is not in the object database.
    fn object_kind(&self, id: Oid) -> Option<git2::ObjectType> {
        self.repo.find_object(id, None).ok().and_then(|o| o.kind())
    }

    /// Merges `theirs` (a fetched notes commit) into the local notes (see [`intake`]) and
    /// moves `refs/notes/papayu` by compare-and-swap. A papayu process that appended meanwhile
    /// only makes the merge run again on top of its lines.
    pub fn merge_notes(
        &self,
        theirs: Oid,
        strategy: Strategy,
        remote: &str,
    ) -> Result<Merge, Problem> {
        let message = format!("papayu sync: merge the plans of {remote}");
        const ATTEMPTS: usize = 8;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let ours = self.ref_value(NOTES_REF).map_err(|e| e.to_problem())?;
            let merged = intake::merge(&self.repo, ours, theirs, strategy, &message)
                .map_err(|e| e.to_problem())?;
            let new = match merged.merged {
                Merged::UpToDate => return Ok(merged),
                Merged::FastForward(new) | Merged::Commit(new) => new,
            };
            let change = RefChange::new(NOTES_REF, ours, Some(new));
            match refs::update(&self.repo, &[change], &message) {
                Ok(()) => return Ok(merged),
                Err(StoreError::RefMoved { .. } | StoreError::Locked { .. })
                    if attempt < ATTEMPTS =>
                {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                Err(other) => return Err(other.to_problem()),
            }
        }
    }

    /// Pushes the local `refs/notes/papayu` to the remote's, as a fast-forward only.
    pub fn push_notes(&self, remote: &str) -> Result<Pushed, Problem> {
        self.push(
            remote,
            &[format!("{NOTES_REF}:{NOTES_REF}")],
            &[],
            "the plans",
            false,
        )
    }

    /// Pushes the local branch `refname` to the same name on the remote, as a fast-forward only.
    pub fn push_branch(&self, remote: &str, refname: &str) -> Result<Pushed, Problem> {
        let short = refname.strip_prefix("refs/heads/").unwrap_or(refname);
        self.push(remote, &[format!("{refname}:{refname}")], &[], short, true)
    }

    /// Pushes `refspecs` in one atomic push (all or none), each guarded by its lease in
    /// `leases` (`--force-with-lease=<ref>:<expected>`, empty expected: the ref must not exist
    /// there yet). Proposal branches among them are let through the sample pre-push hook. A
    /// lease the remote no longer matches, or a branch that is not a fast-forward, comes back
    /// as [`Pushed::Rejected`].
    pub fn push_refs(
        &self,
        remote: &str,
        refspecs: &[String],
        leases: &[String],
        what: &str,
    ) -> Result<Pushed, Problem> {
        let mut extra = vec!["--atomic".to_string()];
        extra.extend(leases.iter().map(|l| format!("--force-with-lease={l}")));
        self.push(remote, refspecs, &extra, what, true)
    }

    /// Fetches `refspecs` from the remote (without tags or `FETCH_HEAD`), pruning what the
    /// remote no longer has under their destinations. A glob that matches nothing is no error.
    pub fn fetch_refs(&self, remote: &str, refspecs: &[String]) -> Result<(), Problem> {
        let mut args = vec![
            "fetch",
            "--quiet",
            "--no-tags",
            "--no-write-fetch-head",
            "--prune",
            remote,
        ];
        args.extend(refspecs.iter().map(String::as_str));
        let out = self.git_remote(&args)?;
        match out.status.success() {
            true => Ok(()),
            false => Err(remote_failed(
                &format!("fetching from {remote} failed"),
                &out,
            )),
        }
    }

    /// `proposal`: the push is of a proposal branch, asked for by name, which the sample
    /// pre-push hook (there against pushing one by mistake) lets through.
    fn push(
        &self,
        remote: &str,
        refspecs: &[String],
        extra: &[String],
        what: &str,
        proposal: bool,
    ) -> Result<Pushed, Problem> {
        let mut cmd = super::worktree::git(self);
        if proposal {
            cmd.env("PAPAYU_PUSH_PROPOSALS", "1");
        }
        let mut args = vec!["push", "--porcelain", "--quiet"];
        args.extend(extra.iter().map(String::as_str));
        args.push(remote);
        args.extend(refspecs.iter().map(String::as_str));
        let out = self.git_remote_with(cmd, &args)?;
        let said = String::from_utf8_lossy(&out.stdout);
        // `--porcelain`: one line per ref, `!` for a refused one, with git's reason in brackets.
        let refused = said.lines().find(|l| l.starts_with('!'));
        match (out.status.success(), refused) {
            (true, _) => Ok(Pushed::Done),
            (false, Some(line)) if moved_meanwhile(line) => Ok(Pushed::Rejected),
            // An atomic push refuses every ref when one is refused: the others say only that.
            (false, Some(_))
                if said
                    .lines()
                    .filter(|l| l.starts_with('!'))
                    .any(moved_meanwhile) =>
            {
                Ok(Pushed::Rejected)
            }
            (false, Some(line)) => Err(Problem::new(
                Code::RemoteFailed,
                format!(
                    "{remote} refused {what} ({}); see what its hooks or permissions allow",
                    line.rsplit('\t').next().unwrap_or(line).trim()
                ),
            )
            .with_detail(String::from_utf8_lossy(&out.stderr).trim().to_string())),
            (false, None) => Err(remote_failed(
                &format!("pushing {what} to {remote} failed"),
                &out,
            )),
        }
    }

    /// `git ARGS` against this repository, for the network: no terminal prompt (a command that
    /// needs credentials it cannot get fails instead of waiting on a prompt nobody sees).
    fn git_remote(&self, args: &[&str]) -> Result<Output, Problem> {
        self.git_remote_with(super::worktree::git(self), args)
    }

    fn git_remote_with(
        &self,
        mut cmd: std::process::Command,
        args: &[&str],
    ) -> Result<Output, Problem> {
        cmd.env("GIT_TERMINAL_PROMPT", "0")
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| Problem::new(Code::Io, format!("running git {}: {e}", args[0])))
    }
}

/// Whether a refused ref of `git push --porcelain` was refused because the remote's ref moved
/// since we read it: not a fast-forward of what it holds now (`[rejected]`), or moved between
/// the ref advertisement and the update (`[remote rejected] … but expected …`, a lock another
/// push held). Anything else — a hook, a permission — is no reason to try again.
fn moved_meanwhile(line: &str) -> bool {
    line.contains("[rejected]")
        || line.contains("stale info")
        || (line.contains("[remote rejected]")
            && [
                "but expected",
                "cannot lock ref",
                "failed to lock",
                "failed to update ref",
                "reference already exists",
                "atomic transaction failed",
            ]
            .iter()
            .any(|why| line.contains(why)))
}

/// `ERR_REMOTE_FAILED` for a remote whose `refs/notes/papayu` names `kind` (not a commit, or
/// missing after the fetch), which no notes reader can take.
fn not_a_notes_commit(remote: &str, tip: Oid, kind: Option<git2::ObjectType>) -> Problem {
    let what = kind.map_or("a missing object".to_string(), |k| format!("a {k}"));
    Problem::new(
        Code::RemoteFailed,
        format!(
            "{remote}'s {NOTES_REF} points at {what} ({}), not a notes commit; nothing here was \
             changed",
            super::short(tip)
        ),
    )
    .with_hint(format!(
        "whoever can push to {remote} can point it back at a notes commit, or delete it (git push \
         {remote} :{NOTES_REF}) for your next git papayu sync to push yours"
    ))
}

/// `ERR_REMOTE_FAILED` with git's last line in the reason and all it said in the detail.
fn remote_failed(what: &str, out: &Output) -> Problem {
    let said = String::from_utf8_lossy(&out.stderr).trim().to_string();
    let last = said
        .lines()
        .last()
        .unwrap_or("")
        .trim()
        .trim_start_matches("fatal: ");
    let reason = match last.is_empty() {
        true => format!("{what}; check the remote with git remote -v and try git fetch"),
        false => format!("{what} ({last}); check the remote with git remote -v and try git fetch"),
    };
    Problem::new(Code::RemoteFailed, reason).with_detail(said)
}
