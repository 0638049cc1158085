//! Compare-and-swap updates of several refs at once.
//!
//! Every ref an operation changes is locked first, then each is checked against the value the
//! operation was computed from, and only then are they written. A concurrent papayu (or git)
//! process either holds a lock (we fail before writing anything) or has already moved a ref (we
//! notice and write nothing). Each ref is always at its old or its new value.

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

/// Applies `changes` atomically with respect to other writers: all refs are locked, all are
/// verified, then all are written. Returns `RefMoved` (and writes nothing) when a ref is not at
/// its expected old value.
pub fn update(repo: &Repository, changes: &[RefChange], message: &str) -> Result<(), StoreError> {
    let signature = sig::signature(repo);
    let mut tx = repo
        .transaction()
        .map_err(|e| StoreError::git("starting a ref transaction", e))?;
    for change in changes {
        tx.lock_ref(&change.name)
            .map_err(|e| locked(repo, &change.name, e))?;
    }
    for change in changes {
        let current = match repo.refname_to_id(&change.name) {
            Ok(oid) => Some(oid),
            Err(e) if e.code() == git2::ErrorCode::NotFound => None,
            Err(e) => return Err(StoreError::git(format!("reading {}", change.name), e)),
        };
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
