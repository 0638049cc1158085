//! Writing trees at the object level: a new tree from a base and a list of path edits, or —
//! when that tree is stored already — only its id, computed from the edits.
//!
//! What the edits should be is decided elsewhere ([`crate::executor`]); this module only writes
//! them. The cost grows with the number of edited paths, never with the size of the tree.

use git2::{FileMode, ObjectType, Oid, Repository, Tree, TreeEntry, build::TreeUpdateBuilder};

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
    /// Writes the blobs of `edits` and the tree that is `base` with them applied. When that
    /// tree is already in the object database (the preview `plan` wrote, a plan applied
    /// again), nothing is written: its id is computed from the edits without writing.
    pub fn write_tree(&self, base: Oid, edits: &[TreeEdit<'_>]) -> Result<Oid, StoreError> {
        let repo = &self.repo;
        let base = repo
            .find_tree(base)
            .map_err(|e| StoreError::git("reading the base tree", e))?;
        if let Some((id, needed)) = tree_id(repo, &base, edits)
            && let Ok(odb) = repo.odb()
            && needed.iter().all(|&object| odb.exists(object))
        {
            return Ok(id);
        }
        write_with_git(repo, &base, edits).map_err(|e| StoreError::git("writing the new tree", e))
    }
}

/// Writes the blobs of `edits` and the tree that is `base` with them applied, with libgit2's
/// writer (every object hashed, and written unless stored).
fn write_with_git(
    repo: &Repository,
    base: &Tree<'_>,
    edits: &[TreeEdit<'_>],
) -> Result<Oid, git2::Error> {
    let mut updates = TreeUpdateBuilder::new();
    for edit in edits {
        match *edit {
            TreeEdit::Put {
                path,
                content,
                executable,
            } => {
                let mode = match executable {
                    true => FileMode::BlobExecutable,
                    false => FileMode::Blob,
                };
                updates.upsert(path, repo.blob(content)?, mode);
            }
            TreeEdit::Remove { path } => {
                updates.remove(path);
            }
        }
    }
    updates.create_updated(repo, base)
}

/// The id of the tree that is `base` with `edits` applied, as git would write it, computed
/// without writing anything, and every object it needs that `base` does not hold (the new
/// blobs, the rewritten trees, itself); `None` for edits it does not model (a path through a
/// file, a removal of something absent), which are left to the writer.
fn tree_id(repo: &Repository, base: &Tree<'_>, edits: &[TreeEdit<'_>]) -> Option<(Oid, Vec<Oid>)> {
    let mut root = Dir::default();
    let mut needed = Vec::new();
    for edit in edits {
        let (path, change) = match *edit {
            TreeEdit::Put {
                path,
                content,
                executable,
            } => {
                let id = Oid::hash_object(ObjectType::Blob, content).ok()?;
                needed.push(id);
                let mode = match executable {
                    true => 0o100755,
                    false => 0o100644,
                };
                (path, Change::Put(id, mode))
            }
            TreeEdit::Remove { path } => (path, Change::Remove),
        };
        root.insert(path.as_bytes(), change)?;
    }
    let id = root.id(repo, Some(base), true, &mut needed)??;
    Some((id, needed))
}

/// What the edits do below one directory.
#[derive(Default)]
struct Dir<'a> {
    /// Names replaced by a file or removed.
    changes: std::collections::BTreeMap<&'a [u8], Change>,
    /// Directories edited inside.
    dirs: std::collections::BTreeMap<&'a [u8], Dir<'a>>,
}

#[derive(Clone, Copy)]
enum Change {
    Put(Oid, i32),
    Remove,
}

impl<'a> Dir<'a> {
    fn insert(&mut self, path: &'a [u8], change: Change) -> Option<()> {
        match path.iter().position(|&b| b == b'/') {
            Some(slash) => self
                .dirs
                .entry(&path[..slash])
                .or_default()
                .insert(&path[slash + 1..], change),
            None if path.is_empty() || self.changes.contains_key(path) => None,
            None => {
                self.changes.insert(path, change);
                Some(())
            }
        }
    }

    /// The id of this directory written over `base`; `Some(None)` when a directory other than
    /// the root ends up empty (git drops it).
    fn id(
        &self,
        repo: &Repository,
        base: Option<&Tree<'_>>,
        root: bool,
        needed: &mut Vec<Oid>,
    ) -> Option<Option<Oid>> {
        let edited = |name: &[u8]| self.changes.contains_key(name) || self.dirs.contains_key(name);
        let kept: Vec<TreeEntry<'_>> = base
            .into_iter()
            .flat_map(|b| b.iter())
            .filter(|e| !edited(e.name_bytes()))
            .collect();
        let mut entries: Vec<(&[u8], i32, Oid)> = kept
            .iter()
            .map(|e| (e.name_bytes(), e.filemode_raw(), e.id()))
            .collect();
        for (name, change) in &self.changes {
            match *change {
                Change::Put(id, mode) => {
                    // git's writer refuses to put a file where a directory or a submodule is.
                    let below = base.and_then(|b| b.get_name_bytes(name));
                    if below.is_some_and(|e| e.kind() != Some(ObjectType::Blob)) {
                        return None;
                    }
                    entries.push((name, mode, id));
                }
                Change::Remove if base.and_then(|b| b.get_name_bytes(name)).is_none() => {
                    return None;
                }
                Change::Remove => {}
            }
        }
        for (name, dir) in &self.dirs {
            if self.changes.contains_key(name) {
                return None;
            }
            let subtree = match base.and_then(|b| b.get_name_bytes(name)) {
                Some(entry) if entry.kind() == Some(ObjectType::Tree) => {
                    Some(repo.find_tree(entry.id()).ok()?)
                }
                Some(_) => return None,
                None => None,
            };
            if let Some(id) = dir.id(repo, subtree.as_ref(), false, needed)? {
                entries.push((name, 0o040000, id));
            }
        }
        if entries.is_empty() && !root {
            return Some(None);
        }
        // The base's entries are in git's order already; only the edited ones move.
        entries.sort_by(|a, b| git_order(a.0, a.1, b.0, b.1));
        let mut raw = Vec::with_capacity(entries.len() * 48);
        for (name, mode, id) in &entries {
            push_octal(&mut raw, *mode as u32);
            raw.push(b' ');
            raw.extend_from_slice(name);
            raw.push(0);
            raw.extend_from_slice(id.as_bytes());
        }
        let id = Oid::hash_object(ObjectType::Tree, &raw).ok()?;
        needed.push(id);
        Some(Some(id))
    }
}

/// `value` in octal digits, as a tree entry writes its mode.
fn push_octal(out: &mut Vec<u8>, value: u32) {
    let mut digits = [0u8; 11];
    let mut at = digits.len();
    let mut rest = value;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest & 7) as u8;
        rest >>= 3;
        if rest == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// Git's order of tree entries: by name bytes, a directory compared as if its name ended in `/`.
fn git_order(a: &[u8], a_mode: i32, b: &[u8], b_mode: i32) -> std::cmp::Ordering {
    let tail = |mode: i32| match mode & 0o170000 == 0o040000 {
        true => Some(b'/'),
        false => None,
    };
    a.iter()
        .copied()
        .chain(tail(a_mode))
        .cmp(b.iter().copied().chain(tail(b_mode)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A base tree with files beside a directory whose name they extend (`dir-a`, `dir.b`,
    /// which git orders around `dir/`), an executable, a link, a submodule and nesting.
    fn base(repo: &Repository) -> Oid {
        let mut builder = TreeUpdateBuilder::new();
        let blob = |text: &str| repo.blob(text.as_bytes()).unwrap();
        builder.upsert("dir/x", blob("x\n"), FileMode::Blob);
        builder.upsert("dir/sub/y", blob("y\n"), FileMode::Blob);
        builder.upsert("dir-a", blob("a\n"), FileMode::Blob);
        builder.upsert("dir.b", blob("b\n"), FileMode::Blob);
        builder.upsert("lone/only", blob("only\n"), FileMode::Blob);
        builder.upsert("run.sh", blob("#!/bin/sh\n"), FileMode::BlobExecutable);
        builder.upsert("link", blob("dir/x"), FileMode::Link);
        builder.upsert("vendor/lib", blob("x\n"), FileMode::Blob);
        let empty = repo.treebuilder(None).unwrap().write().unwrap();
        let empty = repo.find_tree(empty).unwrap();
        let tree = builder.create_updated(repo, &empty).unwrap();
        // A submodule: a commit id in the tree.
        let mut top = repo
            .treebuilder(Some(&repo.find_tree(tree).unwrap()))
            .unwrap();
        top.insert("module", Oid::from_str(&"ab".repeat(20)).unwrap(), 0o160000)
            .unwrap();
        top.write().unwrap()
    }

    /// The tree git's own writer makes for `edits`.
    fn written(repo: &Repository, base: Oid, edits: &[TreeEdit<'_>]) -> Oid {
        write_with_git(repo, &repo.find_tree(base).unwrap(), edits).unwrap()
    }

    fn put<'a>(path: &'a str, content: &'a str) -> TreeEdit<'a> {
        TreeEdit::Put {
            path,
            content: content.as_bytes(),
            executable: false,
        }
    }

    #[test]
    fn the_computed_id_is_the_id_git_writes() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let base_id = base(&repo);
        let cases: Vec<Vec<TreeEdit<'_>>> = vec![
            vec![put("dir/x", "changed\n")],
            vec![put("new/deep/file", "new\n"), put("dir/sub/z", "z\n")],
            vec![TreeEdit::Remove { path: "dir-a" }],
            vec![TreeEdit::Remove { path: "dir" }],
            vec![TreeEdit::Remove { path: "lone/only" }],
            vec![TreeEdit::Put {
                path: "dir/tool",
                content: b"#!/bin/sh\n",
                executable: true,
            }],
            vec![put("dir-0", "0\n"), put("dir.a", "a\n"), put("dir0", "0\n")],
            vec![put("link", "elsewhere")],
        ];
        for edits in &cases {
            let (id, needed) = tree_id(&repo, &repo.find_tree(base_id).unwrap(), edits)
                .unwrap_or_else(|| panic!("{edits:?} not modelled"));
            assert_eq!(id, written(&repo, base_id, edits), "{edits:?}");
            assert!(needed.contains(&id));
            let odb = repo.odb().unwrap();
            assert!(needed.iter().all(|&o| odb.exists(o)), "{edits:?}");
        }
    }

    #[test]
    fn emptying_the_root_gives_the_empty_tree() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let mut builder = TreeUpdateBuilder::new();
        builder.upsert("only/file", repo.blob(b"x").unwrap(), FileMode::Blob);
        let empty = repo.treebuilder(None).unwrap().write().unwrap();
        let base_id = builder
            .create_updated(&repo, &repo.find_tree(empty).unwrap())
            .unwrap();
        let edits = [TreeEdit::Remove { path: "only/file" }];
        let (id, _) = tree_id(&repo, &repo.find_tree(base_id).unwrap(), &edits).unwrap();
        assert_eq!(id, empty);
        assert_eq!(id, written(&repo, base_id, &edits));
    }

    #[test]
    fn edits_it_does_not_model_are_left_to_the_writer() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let base_id = base(&repo);
        let tree = repo.find_tree(base_id).unwrap();
        assert!(tree_id(&repo, &tree, &[TreeEdit::Remove { path: "absent" }]).is_none());
        assert!(tree_id(&repo, &tree, &[put("run.sh/inside", "x")]).is_none());
        assert!(tree_id(&repo, &tree, &[put("a", "1"), put("a", "2")]).is_none());
        // A plan never both removes a directory and writes inside it (the executor refuses
        // it); the writer, not this model, would decide what that means.
        let inside = [TreeEdit::Remove { path: "dir" }, put("dir/fresh", "f\n")];
        assert!(tree_id(&repo, &tree, &inside).is_none());
        assert!(tree_id(&repo, &tree, &[put("dir", "now a file\n")]).is_none());
        assert!(tree_id(&repo, &tree, &[put("module", "not a submodule\n")]).is_none());
    }

    #[test]
    fn a_tree_already_stored_is_not_written_again_and_a_missing_one_is() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let base_id = base(&repo);
        let store = Store::open_at(dir.path()).unwrap();
        let edits = [put("dir/sub/y", "new y\n"), put("brand/new", "n\n")];
        let first = store.write_tree(base_id, &edits).unwrap();
        assert_eq!(first, written(&repo, base_id, &edits));
        // The blob is gone (pruned): the tree is not taken as complete, it is written again.
        let blob = Oid::hash_object(ObjectType::Blob, b"n\n").unwrap();
        let hex = blob.to_string();
        let loose = dir
            .path()
            .join(".git/objects")
            .join(&hex[..2])
            .join(&hex[2..]);
        std::fs::remove_file(&loose).unwrap();
        let store = Store::open_at(dir.path()).unwrap();
        assert_eq!(store.write_tree(base_id, &edits).unwrap(), first);
        assert!(loose.exists(), "the missing blob was written again");
    }
}
