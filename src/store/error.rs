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
        match self {
            StoreError::Problem(p) => p.clone(),
            other => Problem::new(other.code(), other.to_string()),
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
