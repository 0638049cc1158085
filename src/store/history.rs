//! Which files each recent commit changed: the history the context engine reads to learn
//! which files change together. Only commits reachable from the snapshot's own commit are read,
//! so a plan never learns from a change made after its base.
//!
//! The lists are cached per base commit (`<gitdir>/papayu/cache/changes1-<commit>`); a new
//! base reuses, by commit id, what the newest cached list already holds, so a plan on the next
//! commit diffs only the commits it has not seen.

use std::cmp::Ordering;
use std::collections::HashMap;

use git2::{ObjectType, Oid, Sort, Tree, TreeEntry};

use super::Snapshot;
use super::cache;

/// Commits read back from the base, at most (merges not counted).
pub const HISTORY_DEPTH: usize = 1000;
/// A commit changing more files than this (a release, a reformat, a merge of a branch) says
/// nothing about which files belong together, and is left out.
pub const HISTORY_MAX_FILES: usize = 8;
/// Cache kind; bump when what the list holds changes.
const CHANGES_CACHE: &str = "changes1";

/// A commit read, with the paths it changed (`None`: a merge, a root, or too many files).
type Walked = (Oid, Option<Vec<String>>);

impl<'r> Snapshot<'r> {
    /// The paths each of the newest [`HISTORY_DEPTH`] commits reachable from this snapshot's
    /// commit changed, newest first: only commits with one parent that changed 1 to
    /// [`HISTORY_MAX_FILES`] files. Empty for a snapshot of a bare tree or on any error.
    pub fn recent_changes(&self) -> Vec<Vec<String>> {
        let Some(base) = self.commit else {
            return Vec::new();
        };
        let cached = cache::read(self.repo, CHANGES_CACHE, base).and_then(|b| decode(&b));
        if let Some(list) = cached {
            return kept(list);
        }
        let nearby: HashMap<Oid, Option<Vec<String>>> =
            cache::newest_other(self.repo, CHANGES_CACHE, base)
                .and_then(|b| decode(&b))
                .map(|list| list.into_iter().collect())
                .unwrap_or_default();
        let list = self.walk(base, &nearby).unwrap_or_default();
        cache::write(self.repo, CHANGES_CACHE, base, &encode(&list));
        kept(list)
    }

    /// Each commit read back from `base` with the paths it changed (`None`: a merge, a root,
    /// or too many files), taking what `known` holds instead of diffing again.
    fn walk(
        &self,
        base: Oid,
        known: &HashMap<Oid, Option<Vec<String>>>,
    ) -> Result<Vec<Walked>, git2::Error> {
        let mut walk = self.repo.revwalk()?;
        // By time, which libgit2 walks lazily (a topological order would read all history).
        walk.set_sorting(Sort::TIME)?;
        walk.push(base)?;
        let mut out = Vec::new();
        let mut counted = 0;
        for id in walk {
            let id = id?;
            if counted >= HISTORY_DEPTH || out.len() >= 3 * HISTORY_DEPTH {
                break;
            }
            let changed = match known.get(&id) {
                Some(changed) => changed.clone(),
                None => self.changed_by(id)?,
            };
            counted += usize::from(changed.is_some());
            out.push((id, changed));
        }
        Ok(out)
    }

    /// The paths a one-parent commit changed against its parent, when there are at most
    /// [`HISTORY_MAX_FILES`].
    fn changed_by(&self, id: Oid) -> Result<Option<Vec<String>>, git2::Error> {
        let commit = self.repo.find_commit(id)?;
        if commit.parent_count() != 1 {
            return Ok(None);
        }
        let (old, new) = (commit.parent(0)?.tree()?, commit.tree()?);
        let mut paths = Vec::new();
        if !self.differ(Some(&old), Some(&new), "", &mut paths)? {
            return Ok(None);
        }
        Ok((!paths.is_empty()).then_some(paths))
    }

    /// Adds to `out` the files that differ between two trees (either may be absent), skipping
    /// every subtree whose id did not change, so a small commit costs a few tree reads however
    /// large the tree. `false` as soon as more than [`HISTORY_MAX_FILES`] differ.
    fn differ(
        &self,
        old: Option<&Tree<'r>>,
        new: Option<&Tree<'r>>,
        prefix: &str,
        out: &mut Vec<String>,
    ) -> Result<bool, git2::Error> {
        let (a, b) = (entries(old), entries(new));
        // Both lists are in git's order: walk them side by side.
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            let order = match (a.get(i), b.get(j)) {
                (Some(x), Some(y)) => git_order(x, y),
                (Some(_), None) => Ordering::Less,
                _ => Ordering::Greater,
            };
            let (x, y) = match order {
                Ordering::Less => (a.get(i), None),
                Ordering::Greater => (None, b.get(j)),
                Ordering::Equal => (a.get(i), b.get(j)),
            };
            i += usize::from(order != Ordering::Greater);
            j += usize::from(order != Ordering::Less);
            if let (Some(x), Some(y)) = (x, y)
                && x.id() == y.id()
            {
                continue;
            }
            let Some(name) = x.or(y).and_then(|e| e.name().ok()) else {
                continue;
            };
            let path = format!("{prefix}{name}");
            let is_tree = |e: &TreeEntry<'_>| e.kind() == Some(ObjectType::Tree);
            let subtree = |e: Option<&TreeEntry<'_>>| -> Result<Option<Tree<'r>>, git2::Error> {
                match e {
                    Some(e) if is_tree(e) => Ok(Some(self.repo.find_tree(e.id())?)),
                    _ => Ok(None),
                }
            };
            let (tx, ty) = (subtree(x)?, subtree(y)?);
            if tx.is_none() && ty.is_none() {
                out.push(path);
            } else if !self.differ(tx.as_ref(), ty.as_ref(), &format!("{path}/"), out)? {
                return Ok(false);
            }
            if out.len() > HISTORY_MAX_FILES {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// A tree's files and subtrees, in its order.
fn entries<'t>(tree: Option<&'t Tree<'_>>) -> Vec<TreeEntry<'t>> {
    tree.map(|t| {
        t.iter()
            .filter(|e| matches!(e.kind(), Some(ObjectType::Tree | ObjectType::Blob)))
            .collect()
    })
    .unwrap_or_default()
}

/// Git's order of tree entries: by name, a tree's name read as if it ended with `/`.
fn git_order(a: &TreeEntry<'_>, b: &TreeEntry<'_>) -> Ordering {
    let (x, y) = (a.name_bytes(), b.name_bytes());
    let n = x.len().min(y.len());
    x[..n].cmp(&y[..n]).then_with(|| {
        let next = |e: &TreeEntry<'_>, name: &[u8]| {
            name.get(n)
                .copied()
                .unwrap_or(if e.kind() == Some(ObjectType::Tree) {
                    b'/'
                } else {
                    0
                })
        };
        next(a, x).cmp(&next(b, y))
    })
}

fn kept(list: Vec<Walked>) -> Vec<Vec<String>> {
    list.into_iter().filter_map(|(_, paths)| paths).collect()
}

fn encode(list: &[Walked]) -> Vec<u8> {
    let mut out = Vec::new();
    for (id, paths) in list {
        cache::put(&mut out, id.as_bytes());
        let mut inner = Vec::new();
        for p in paths.iter().flatten() {
            cache::put(&mut inner, p.as_bytes());
        }
        // An empty list stands for "left out": a kept commit changed at least one file.
        cache::put(&mut out, &inner);
    }
    out
}

fn decode(bytes: &[u8]) -> Option<Vec<Walked>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let id = Oid::from_bytes(cache::take(bytes, &mut at)?).ok()?;
        let inner = cache::take(bytes, &mut at)?;
        let mut paths = Vec::new();
        let mut i = 0;
        while i < inner.len() {
            paths.push(
                std::str::from_utf8(cache::take(inner, &mut i)?)
                    .ok()?
                    .to_string(),
            );
        }
        out.push((id, (!paths.is_empty()).then_some(paths)));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use git2::build::TreeUpdateBuilder;
    use git2::{FileMode, Repository, Signature};

    use super::*;
    use crate::store::Store;

    /// Commits on HEAD a change of the parent's tree: `Some` writes, `None` removes.
    fn commit(repo: &Repository, edits: &[(&str, Option<&str>)]) -> Oid {
        let parent = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
        let base = match &parent {
            Some(c) => c.tree().unwrap(),
            None => repo
                .find_tree(repo.treebuilder(None).unwrap().write().unwrap())
                .unwrap(),
        };
        let mut builder = TreeUpdateBuilder::new();
        for (path, content) in edits {
            match content {
                Some(c) => builder.upsert(*path, repo.blob(c.as_bytes()).unwrap(), FileMode::Blob),
                None => builder.remove(*path),
            };
        }
        let tree = repo
            .find_tree(builder.create_updated(repo, &base).unwrap())
            .unwrap();
        // Each commit a minute after its parent, as the walk orders commits by time.
        let when = parent
            .as_ref()
            .map_or(1_700_000_000, |c| c.time().seconds() + 60);
        let sig = Signature::new("t", "t@example.com", &git2::Time::new(when, 0)).unwrap();
        let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
        repo.commit(Some("HEAD"), &sig, &sig, "c", &tree, &parents)
            .unwrap()
    }

    #[test]
    fn the_history_holds_each_small_commit_before_the_base_and_nothing_after() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let names: Vec<String> = (0..10).map(|i| format!("f{i}.py")).collect();
        let mut first: Vec<(&str, Option<&str>)> =
            names.iter().map(|n| (n.as_str(), Some("0"))).collect();
        first.extend([("a/b/x.py", Some("0")), ("gone/g.py", Some("0"))]);
        commit(&repo, &first);
        commit(&repo, &[("a/b/x.py", Some("1")), ("f0.py", Some("1"))]);
        commit(&repo, &[("gone/g.py", None), ("new/deep/n.py", Some("1"))]);
        let big: Vec<(&str, Option<&str>)> =
            names.iter().map(|n| (n.as_str(), Some("2"))).collect();
        let base = commit(&repo, &big);
        let later = commit(&repo, &[("a/b/x.py", Some("3")), ("f9.py", Some("3"))]);
        let store = Store::open_at(dir.path()).unwrap();
        let want = vec![
            vec!["gone/g.py".to_string(), "new/deep/n.py".to_string()],
            vec!["a/b/x.py".to_string(), "f0.py".to_string()],
        ];
        // The root and the commit of ten files say nothing; the later commit is never read.
        assert_eq!(store.snapshot(base).unwrap().recent_changes(), want);
        assert_eq!(
            store.snapshot(base).unwrap().recent_changes(),
            want,
            "cached"
        );
        let mut next = vec![vec!["a/b/x.py".to_string(), "f9.py".to_string()]];
        next.extend(want);
        assert_eq!(
            store.snapshot(later).unwrap().recent_changes(),
            next,
            "reused"
        );
        assert!(
            store
                .snapshot_tree(repo.find_commit(base).unwrap().tree_id())
                .unwrap()
                .recent_changes()
                .is_empty()
        );
    }

    #[test]
    fn the_changes_round_trip_through_their_cache_encoding() {
        let a = Oid::from_str("1111111111111111111111111111111111111111").expect("id");
        let b = Oid::from_str("2222222222222222222222222222222222222222").expect("id");
        let list = vec![
            (a, Some(vec!["src/a.c".to_string(), "src/a.h".to_string()])),
            (b, None),
        ];
        assert_eq!(decode(&encode(&list)), Some(list.clone()));
        assert_eq!(
            decode(&encode(&list)[..30]),
            None,
            "a short entry is a miss"
        );
    }
}
