//! Reading one commit's files without a checkout: what the context engine and the plan's
//! memory read. Symlinks and submodules are never followed or read.

use git2::{ObjectType, Oid, Repository, Tree, TreeWalkMode, TreeWalkResult};

use super::{Store, StoreError};

/// One commit's tree, open for reading.
pub struct Snapshot<'r> {
    repo: &'r Repository,
    tree: Tree<'r>,
}

/// A file's bytes and blob id.
#[derive(Debug, Clone)]
pub struct FileRead {
    pub bytes: Vec<u8>,
    pub blob: Oid,
}

impl Store {
    /// The tree of `commit`, for reading.
    pub fn snapshot(&self, commit: Oid) -> Result<Snapshot<'_>, StoreError> {
        let tree = self
            .repo
            .find_commit(commit)
            .and_then(|c| c.tree())
            .map_err(|e| StoreError::git("reading the base tree", e))?;
        Ok(Snapshot {
            repo: &self.repo,
            tree,
        })
    }
}

impl Snapshot<'_> {
    pub fn tree_id(&self) -> Oid {
        self.tree.id()
    }

    /// A regular file's content; `None` when the path is missing, a directory, a symlink or a
    /// submodule.
    pub fn read(&self, path: &str) -> Result<Option<FileRead>, StoreError> {
        let Ok(entry) = self.tree.get_path(std::path::Path::new(path)) else {
            return Ok(None);
        };
        let regular = matches!(entry.filemode(), 0o100644 | 0o100755);
        if entry.kind() != Some(ObjectType::Blob) || !regular {
            return Ok(None);
        }
        let blob = self
            .repo
            .find_blob(entry.id())
            .map_err(|e| StoreError::git(format!("reading {path}"), e))?;
        Ok(Some(FileRead {
            bytes: blob.content().to_vec(),
            blob: entry.id(),
        }))
    }

    /// Whether a regular file exists at `path`.
    pub fn is_file(&self, path: &str) -> bool {
        self.tree
            .get_path(std::path::Path::new(path))
            .is_ok_and(|e| e.kind() == Some(ObjectType::Blob))
    }

    /// Every regular file: (path, blob id, size is not read here).
    pub fn files(&self) -> Vec<(String, Oid)> {
        let mut out = Vec::new();
        let _ = self.tree.walk(TreeWalkMode::PreOrder, |dir, entry| {
            if entry.kind() == Some(ObjectType::Blob)
                && matches!(entry.filemode(), 0o100644 | 0o100755)
                && let Ok(name) = entry.name()
            {
                out.push((format!("{dir}{name}"), entry.id()));
            }
            TreeWalkResult::Ok
        });
        out
    }

    /// Reads a blob by id (for search over many files).
    pub fn blob(&self, id: Oid) -> Option<Vec<u8>> {
        self.repo.find_blob(id).ok().map(|b| b.content().to_vec())
    }

    /// The `.gitattributes` paths marked `papayu-private` in the base tree (root file only).
    pub fn private_patterns(&self) -> Vec<String> {
        let Ok(Some(file)) = self.read(".gitattributes") else {
            return Vec::new();
        };
        String::from_utf8_lossy(&file.bytes)
            .lines()
            .filter_map(|line| {
                let mut parts = line.split_whitespace();
                let pattern = parts.next()?;
                parts
                    .any(|a| a == "papayu-private")
                    .then(|| pattern.to_string())
            })
            .collect()
    }
}
