//! Compare-and-swap updates of several refs at once.
//!
//! Every ref an operation changes is locked first, then each is checked against the value the
//! operation was computed from, and only then are they written. A concurrent papayu (or git)
//! process either holds a lock (we fail before writing anything) or has already moved a ref (we
//! notice and write nothing). Each ref is always at its old or its new value.
//!
//! Git writes the refs of a transaction one by one, so a process killed in the middle could
//! leave some refs moved, others not, and lock files behind. papayu's transactions are therefore
//! serialized by an OS lock and announced in an *intent* file before any ref is locked. The
//! next papayu process finds the intent of a transaction that died, removes the lock files it
//! left and completes it — each ref still at the old value moves to the new one — so a
//! transaction takes effect for all its refs or, if it never got to lock them, for none.

use std::fs::File;
use std::path::{Path, PathBuf};

use git2::{Oid, Repository};
use serde::{Deserialize, Serialize};

use super::{StoreError, sig};

/// One ref's change: `None` means "absent" (created from nothing, or deleted).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefChange {
    pub name: String,
    #[serde(with = "opt_oid")]
    pub old: Option<Oid>,
    #[serde(with = "opt_oid")]
    pub new: Option<Oid>,
}

impl RefChange {
    pub fn new(name: impl Into<String>, old: Option<Oid>, new: Option<Oid>) -> RefChange {
        RefChange {
            name: name.into(),
            old,
            new,
        }
    }

    /// The change that undoes this one.
    pub fn inverse(&self) -> RefChange {
        RefChange {
            name: self.name.clone(),
            old: self.new,
            new: self.old,
        }
    }
}

/// A transaction announced on disk: what it will change and the reflog message.
#[derive(Debug, Serialize, Deserialize)]
struct Intent {
    message: String,
    changes: Vec<RefChange>,
}

/// Holds papayu's transaction lock; the intent file is removed when the transaction ends.
struct Guard {
    intent: PathBuf,
    _lock: File,
}

impl Drop for Guard {
    fn drop(&mut self) {
        // Emptied rather than removed: rewriting a file is cheaper than making a new one.
        let _ = std::fs::write(&self.intent, b"");
    }
}

fn io(context: &str, path: &Path, e: std::io::Error) -> StoreError {
    StoreError::io(format!("{context} {}", path.display()), e)
}

/// Takes the transaction lock (waiting for another papayu process's transaction, which takes
/// milliseconds), finishes a transaction that died, and announces this one.
fn begin(repo: &Repository, changes: &[RefChange], message: &str) -> Result<Guard, StoreError> {
    let dir = repo.commondir().join("papayu");
    std::fs::create_dir_all(&dir).map_err(|e| io("creating", &dir, e))?;
    let lock_path = dir.join("ref-transaction.flock");
    let lock = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| io("opening", &lock_path, e))?;
    lock.lock().map_err(|e| io("locking", &lock_path, e))?;
    let intent = dir.join("refs.intent");
    recover(repo, &intent)?;
    #[expect(
        clippy::expect_used,
        reason = "serializing a derived type with string keys cannot fail"
    )]
    let text = serde_json::to_vec(&Intent {
        message: message.to_string(),
        changes: changes.to_vec(),
    })
    .expect("an intent serializes");
    std::fs::write(&intent, text).map_err(|e| io("writing", &intent, e))?;
    Ok(Guard {
        intent,
        _lock: lock,
    })
}

/// Completes a transaction a killed papayu process left behind, if there is one. Cheap when
/// there is none (one `stat`), so every command calls it before reading anything.
pub fn finish_interrupted(repo: &Repository) -> Result<(), StoreError> {
    let intent = repo.commondir().join("papayu").join("refs.intent");
    if std::fs::metadata(&intent).map_or(true, |m| m.len() == 0) {
        return Ok(());
    }
    // Taking the lock waits out a live transaction, whose intent is then gone.
    let guard = begin(repo, &[], "")?;
    drop(guard);
    Ok(())
}

/// Completes the transaction a killed papayu process left behind, if any.
fn recover(repo: &Repository, intent_path: &Path) -> Result<(), StoreError> {
    let Ok(text) = std::fs::read(intent_path) else {
        return Ok(());
    };
    if text.is_empty() {
        return Ok(());
    }
    // A torn intent file means its writer died before locking any ref: nothing to finish.
    if let Ok(intent) = serde_json::from_slice::<Intent>(&text) {
        for change in &intent.changes {
            let _ = std::fs::remove_file(repo.commondir().join(format!("{}.lock", change.name)));
        }
        for change in &intent.changes {
            if current(repo, &change.name)? != change.old {
                continue; // Already moved (to the new value, or by someone else since).
            }
            let message = format!("{} (completed after an interruption)", intent.message);
            let result = match (change.old, change.new) {
                (Some(old), Some(new)) => repo
                    .reference_matching(&change.name, new, true, old, &message)
                    .map(drop),
                (None, Some(new)) => repo.reference(&change.name, new, false, &message).map(drop),
                (_, None) => repo
                    .find_reference(&change.name)
                    .and_then(|mut r| r.delete()),
            };
            result.map_err(|e| {
                StoreError::git(format!("completing the update of {}", change.name), e)
            })?;
        }
    }
    std::fs::write(intent_path, b"").map_err(|e| io("emptying", intent_path, e))
}

fn current(repo: &Repository, name: &str) -> Result<Option<Oid>, StoreError> {
    match repo.refname_to_id(name) {
        Ok(oid) => Ok(Some(oid)),
        Err(e) if e.code() == git2::ErrorCode::NotFound => Ok(None),
        Err(e) => Err(StoreError::git(format!("reading {name}"), e)),
    }
}

/// Applies `changes` atomically with respect to other writers: all refs are locked, all are
/// verified, then all are written. Returns `RefMoved` (and writes nothing) when a ref is not at
/// its expected old value.
pub fn update(repo: &Repository, changes: &[RefChange], message: &str) -> Result<(), StoreError> {
    let _guard = begin(repo, changes, message)?;
    let signature = sig::signature(repo);
    let mut tx = repo
        .transaction()
        .map_err(|e| StoreError::git("starting a ref transaction", e))?;
    for change in changes {
        tx.lock_ref(&change.name)
            .map_err(|e| locked(repo, &change.name, e))?;
    }
    for change in changes {
        let current = current(repo, &change.name)?;
        if current != change.old {
            return Err(StoreError::RefMoved {
                name: change.name.clone(),
                expected: show(change.old),
                found: show(current),
            });
        }
    }
    for change in changes {
        match change.new {
            Some(oid) => tx.set_target(&change.name, oid, Some(&signature), message),
            None => tx.remove(&change.name),
        }
        .map_err(|e| StoreError::git(format!("updating {}", change.name), e))?;
    }
    tx.commit()
        .map_err(|e| StoreError::git("committing ref updates", e))
}

fn locked(repo: &Repository, name: &str, e: git2::Error) -> StoreError {
    if e.code() != git2::ErrorCode::Locked {
        return StoreError::git(format!("locking {name}"), e);
    }
    let lock = repo.commondir().join(format!("{name}.lock"));
    let age = std::fs::metadata(&lock)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .map_or(0, |d| d.as_secs());
    StoreError::Locked {
        name: name.to_string(),
        lock: lock.display().to_string(),
        age_secs: age,
    }
}

fn show(oid: Option<Oid>) -> String {
    oid.map_or_else(|| "nothing".to_string(), |o| o.to_string())
}

mod opt_oid {
    use git2::Oid;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(oid: &Option<Oid>, s: S) -> Result<S::Ok, S::Error> {
        match oid {
            Some(o) => s.serialize_str(&o.to_string()),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Oid>, D::Error> {
        let text: Option<String> = Option::deserialize(d)?;
        text.map(|t| Oid::from_str(&t).map_err(serde::de::Error::custom))
            .transpose()
    }
}
