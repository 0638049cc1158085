//! Writing and comparing trees at the object level: a new tree from a base and a list of path
//! edits, and whether a stored tree is exactly a base plus expected contents.
//!
//! What the edits should be is decided elsewhere ([`crate::build`]); this module only writes
//! them. The cost grows with the number of edited paths, never with the size of the tree.

use git2::{FileMode, ObjectType, Oid, Repository, Tree, build::TreeUpdateBuilder};

use super::{Store, StoreError};

/// One change to a path of a tree.
#[derive(Debug, Clone, Copy)]
pub enum TreeEdit<'a> {
    /// A regular file with this content (created, or replacing what was there).
    Put {
        path: &'a str,
        content: &'a [u8],
        executable: bool,
    },
    /// The entry at this path (a file or a whole directory) goes.
    Remove { path: &'a str },
}

impl Store {
    /// Writes the blobs of `edits` and the tree that is `base` with them applied.
    pub fn write_tree(&self, base: Oid, edits: &[TreeEdit<'_>]) -> Result<Oid, StoreError> {
        let repo = &self.repo;
        let base = repo
            .find_tree(base)
            .map_err(|e| StoreError::git("reading the base tree", e))?;
        let mut updates = TreeUpdateBuilder::new();
        for edit in edits {
            match *edit {
                TreeEdit::Put {
                    path,
                    content,
                    executable,
                } => {
                    let oid = repo
                        .blob(content)
                        .map_err(|e| StoreError::git("writing a blob", e))?;
                    let mode = match executable {
                        true => FileMode::BlobExecutable,
                        false => FileMode::Blob,
                    };
                    updates.upsert(path, oid, mode);
                }
                TreeEdit::Remove { path } => {
                    updates.remove(path);
                }
            }
        }
        updates
            .create_updated(repo, &base)
            .map_err(|e| StoreError::git("writing the new tree", e))
    }

    /// `true` when `candidate` (a tree written earlier, e.g. by the dry run of `plan`) is exactly
    /// `base` with `expected` applied: each listed path holds that content (or is absent for
    /// `None`), and nothing else differs. This lets apply reuse a stored tree without trusting it.
    pub fn tree_matches(
        &self,
        base: Oid,
        candidate: Oid,
        expected: &[(&str, Option<&[u8]>)],
    ) -> bool {
        let repo = &self.repo;
        let Ok(base) = repo.find_tree(base) else {
            return false;
        };
        let Ok(candidate) = repo.find_tree(candidate) else {
            return false;
        };
        for (path, content) in expected {
            let entry = candidate.get_path(std::path::Path::new(path)).ok();
            let ok = match (content, entry) {
                (None, None) => true,
                (Some(content), Some(entry)) => {
                    Oid::hash_object(ObjectType::Blob, content).is_ok_and(|oid| oid == entry.id())
                }
                _ => false,
            };
            if !ok {
                return false;
            }
        }
        differing_files(repo, Some(&base), Some(&candidate), expected.len() + 1) == expected.len()
    }
}

/// Counts the files that differ between two trees, descending only into subtrees whose ids
/// differ (so the cost is the size of the difference), and stopping once `limit` is reached.
fn differing_files(
    repo: &Repository,
    a: Option<&Tree<'_>>,
    b: Option<&Tree<'_>>,
    limit: usize,
) -> usize {
    let subtree = |entry: Option<git2::TreeEntry<'_>>| {
        entry
            .filter(|e| e.kind() == Some(ObjectType::Tree))
            .and_then(|e| repo.find_tree(e.id()).ok())
    };
    let mut names: Vec<Vec<u8>> = a
        .iter()
        .chain(b.iter())
        .flat_map(|t| t.iter().map(|e| e.name_bytes().to_vec()))
        .collect();
    names.sort();
    names.dedup();
    let mut count = 0;
    for name in names {
        if count >= limit {
            break;
        }
        let path = std::path::Path::new(std::str::from_utf8(&name).unwrap_or_default());
        let left = a.and_then(|t| t.get_path(path).ok());
        let right = b.and_then(|t| t.get_path(path).ok());
        if let (Some(l), Some(r)) = (&left, &right)
            && l.id() == r.id()
            && l.filemode() == r.filemode()
        {
            continue;
        }
        let (left_tree, right_tree) = (subtree(left.clone()), subtree(right.clone()));
        let files = usize::from(left.is_some() && left_tree.is_none())
            + usize::from(right.is_some() && right_tree.is_none());
        count += match (left_tree.is_some() || right_tree.is_some(), files) {
            (false, _) => 1,
            (true, files) => {
                files
                    + differing_files(repo, left_tree.as_ref(), right_tree.as_ref(), limit - count)
            }
        };
    }
    count
}
