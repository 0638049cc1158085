//! Typed failures of the git layer, each mapped once to a stable code.

use crate::codes::{Code, Problem};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("not a git repository ({0}); run git papayu inside a repository")]
    NotARepository(String),
    #[error("{0}")]
    Unsupported(String),
    #[error("'{0}' does not name a commit; pass a branch, tag or commit id")]
    BadRevision(String),
    #[error(
        "{name} moved (expected {expected}, found {found}); someone changed it since, look at it and retry"
    )]
    RefMoved {
        name: String,
        expected: String,
        found: String,
    },
    #[error(
        "{name} is locked by another process ({lock}, {age_secs}s old); retry, or if no git or papayu process is running, remove that file"
    )]
    Locked {
        name: String,
        lock: String,
        age_secs: u64,
    },
    #[error(
        "{name} at {at} cannot be read: an object it needs is missing from the object database \
         (was `git gc --prune=now` run while papayu wrote?); run `git papayu gc --repair` to move \
         it back to its last intact commit"
    )]
    Damaged { name: String, at: String },
    #[error("{context}: {source}")]
    Git {
        context: String,
        #[source]
        source: git2::Error,
    },
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Problem(Problem),
}

impl StoreError {
    pub fn git(context: impl Into<String>, source: git2::Error) -> StoreError {
        StoreError::Git {
            context: context.into(),
            source,
        }
    }

    /// A failure reading what the papayu ref `name` (at `at`) points to: a missing object is
    /// [`StoreError::Damaged`], anything else a git error with `context`.
    pub fn reading(name: &str, at: git2::Oid, context: &str, source: git2::Error) -> StoreError {
        match source.code() {
            git2::ErrorCode::NotFound => StoreError::Damaged {
                name: name.to_string(),
                at: at.to_string(),
            },
            _ => StoreError::git(context, source),
        }
    }

    pub fn io(context: impl Into<String>, source: std::io::Error) -> StoreError {
        StoreError::Io {
            context: context.into(),
            source,
        }
    }

    /// The stable code this failure is reported with.
    pub fn code(&self) -> Code {
        match self {
            StoreError::NotARepository(_) => Code::NotARepository,
            StoreError::Unsupported(_) => Code::RepositoryUnsupported,
            StoreError::BadRevision(_) => Code::BadRevision,
            StoreError::RefMoved { .. } => Code::RefMoved,
            StoreError::Locked { .. } => Code::RefLocked,
            StoreError::Damaged { .. } => Code::RefDamaged,
            StoreError::Git { .. } => Code::Git,
            StoreError::Io { .. } => Code::Io,
            StoreError::Problem(p) => p.code,
        }
    }

    pub fn to_problem(&self) -> Problem {
        if let StoreError::Problem(p) = self {
            return p.clone();
        }
        let text = self.to_string();
        let split = self.hint().and_then(|hint| {
            let reason = text.strip_suffix(hint)?.strip_suffix("; ")?;
            Some(Problem::new(self.code(), reason).with_hint(hint))
        });
        split.unwrap_or_else(|| Problem::new(self.code(), text))
    }

    /// What to do about it, where the message ends with that: the [`Problem`]'s hint.
    fn hint(&self) -> Option<&'static str> {
        match self {
            StoreError::NotARepository(_) => Some("run git papayu inside a repository"),
            StoreError::BadRevision(_) => Some("pass a branch, tag or commit id"),
            StoreError::Locked { .. } => {
                Some("retry, or if no git or papayu process is running, remove that file")
            }
            StoreError::Damaged { .. } => {
                Some("run `git papayu gc --repair` to move it back to its last intact commit")
            }
            _ => None,
        }
    }
}

impl From<Problem> for StoreError {
    fn from(p: Problem) -> Self {
        StoreError::Problem(p)
    }
}

impl From<StoreError> for Problem {
    fn from(e: StoreError) -> Self {
        e.to_problem()
    }
}

impl From<StoreError> for crate::codes::Problems {
    fn from(e: StoreError) -> Self {
        vec![e.to_problem()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_advice_becomes_the_hint_and_the_line_stays_the_same() {
        let errors = [
            StoreError::NotARepository("/tmp/x".into()),
            StoreError::BadRevision("nope".into()),
            StoreError::Locked {
                name: "refs/notes/papayu".into(),
                lock: "refs/notes/papayu.lock".into(),
                age_secs: 3,
            },
            StoreError::Damaged {
                name: "refs/papayu/oplog".into(),
                at: "abc".into(),
            },
        ];
        for e in errors {
            let p = e.to_problem();
            assert!(p.hint.is_some(), "{e}");
            assert_eq!(p.text(), e.to_string());
        }
        let p = StoreError::BadRevision("nope".into()).to_problem();
        assert_eq!(p.reason, "'nope' does not name a commit");
        assert_eq!(p.hint.as_deref(), Some("pass a branch, tag or commit id"));
        let moved = StoreError::RefMoved {
            name: "n".into(),
            expected: "a".into(),
            found: "b".into(),
        };
        assert_eq!(moved.to_problem().hint, None);
        assert_eq!(moved.to_problem().reason, moved.to_string());
    }
}
