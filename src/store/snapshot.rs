//! Reading one commit's files without a checkout: what the context engine and the plan's
//! memory read. Symlinks and submodules are never followed or read.

use git2::{ObjectType, Oid, Repository, Tree, TreeWalkMode, TreeWalkResult};

use super::{Store, StoreError, cache};

/// Cache kind of a tree's file list.
const FILES_CACHE: &str = "files1";
/// Fewer blobs than this are read on the calling thread.
const PARALLEL_FROM: usize = 256;

/// One commit's tree, open for reading.
pub struct Snapshot<'r> {
    pub(super) repo: &'r Repository,
    tree: Tree<'r>,
    /// The commit whose tree this is, when it was opened from one (its history is then known).
    pub(super) commit: Option<Oid>,
    files: std::sync::OnceLock<Vec<(String, Oid)>>,
}

/// What a path is in a tree, read without following anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    Missing,
    File { blob: Oid, executable: bool },
    Symlink { blob: Oid },
    Dir,
    Submodule,
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
            commit: Some(commit),
            files: std::sync::OnceLock::new(),
        })
    }
}

impl Store {
    /// A tree by its own id, for reading.
    pub fn snapshot_tree(&self, tree: Oid) -> Result<Snapshot<'_>, StoreError> {
        let tree = self
            .repo
            .find_tree(tree)
            .map_err(|e| StoreError::git("reading the base tree", e))?;
        Ok(Snapshot {
            repo: &self.repo,
            tree,
            commit: None,
            files: std::sync::OnceLock::new(),
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

    /// What `path` is in this tree.
    pub fn entry(&self, path: &str) -> Entry {
        match self.tree.get_path(std::path::Path::new(path)) {
            Err(_) => Entry::Missing,
            Ok(e) => entry_of(&e),
        }
    }

    /// A blob's content by id (any blob, a symlink's target text included).
    pub fn blob(&self, id: Oid) -> Result<std::sync::Arc<[u8]>, StoreError> {
        self.repo
            .find_blob(id)
            .map(|b| std::sync::Arc::from(b.content()))
            .map_err(|e| StoreError::git(format!("reading blob {id}"), e))
    }

    /// The names directly inside directory `dir` (`""` for the root); empty when it is no
    /// directory.
    pub fn names(&self, dir: &str) -> Vec<String> {
        let names = |t: &Tree<'_>| {
            t.iter()
                .filter_map(|e| e.name().ok().map(str::to_string))
                .collect()
        };
        if dir.is_empty() {
            return names(&self.tree);
        }
        self.subtree(dir).map(|t| names(&t)).unwrap_or_default()
    }

    /// Every entry below directory `dir` (not `dir` itself), as full paths, parents before
    /// children; empty when `dir` is no directory.
    pub fn entries_under(&self, dir: &str) -> Vec<(String, Entry)> {
        let Some(tree) = self.subtree(dir) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let _ = tree.walk(TreeWalkMode::PreOrder, |root, e| {
            if let Ok(name) = e.name() {
                out.push((format!("{dir}/{root}{name}"), entry_of(e)));
            }
            TreeWalkResult::Ok
        });
        out
    }

    fn subtree(&self, dir: &str) -> Option<Tree<'_>> {
        let entry = self.tree.get_path(std::path::Path::new(dir)).ok()?;
        self.repo.find_tree(entry.id()).ok()
    }

    /// A setting of the repository's git configuration, as text.
    pub fn config(&self, key: &str) -> Option<String> {
        let config = self.repo.config().and_then(|mut c| c.snapshot()).ok();
        super::config::layered_string(config.as_ref(), key)
    }

    /// Whether a regular file exists at `path`.
    pub fn is_file(&self, path: &str) -> bool {
        self.tree
            .get_path(std::path::Path::new(path))
            .is_ok_and(|e| e.kind() == Some(ObjectType::Blob))
    }

    /// Every regular file as (path, blob id), in git's path order. The list is cached per tree
    /// id, so on a large tree only the first use walks it.
    pub fn files(&self) -> &[(String, Oid)] {
        self.files.get_or_init(|| self.list_files())
    }

    fn list_files(&self) -> Vec<(String, Oid)> {
        if let Some(files) = cache::read(self.repo, FILES_CACHE, self.tree.id())
            .and_then(|bytes| decode_files(&bytes))
        {
            return files;
        }
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
        let mut bytes = Vec::new();
        for (path, id) in &out {
            cache::put(&mut bytes, path.as_bytes());
            cache::put(&mut bytes, id.as_bytes());
        }
        cache::write(self.repo, FILES_CACHE, self.tree.id(), &bytes);
        out
    }

    /// Calls `keep` on the content of each blob, reading with several threads, and returns
    /// what it kept, in the order of `ids`. A blob that cannot be read is skipped.
    pub fn map_blobs<T: Send>(
        &self,
        ids: &[Oid],
        keep: impl Fn(usize, &[u8]) -> Option<T> + Sync,
    ) -> Vec<(usize, T)> {
        if ids.len() < PARALLEL_FROM {
            let Ok(odb) = self.repo.odb() else {
                return Vec::new();
            };
            return ids
                .iter()
                .enumerate()
                .filter_map(|(i, id)| keep(i, odb.read(*id).ok()?.data()).map(|t| (i, t)))
                .collect();
        }
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 4);
        let chunk = ids.len().div_ceil(threads).max(1);
        let path = self.repo.path();
        std::thread::scope(|scope| {
            let workers: Vec<_> = ids
                .chunks(chunk)
                .enumerate()
                .map(|(c, part)| {
                    let keep = &keep;
                    scope.spawn(move || {
                        let Ok(repo) = Repository::open(path) else {
                            return Vec::new();
                        };
                        let Ok(odb) = repo.odb() else {
                            return Vec::new();
                        };
                        part.iter()
                            .enumerate()
                            .filter_map(|(i, id)| {
                                let object = odb.read(*id).ok()?;
                                let index = c * chunk + i;
                                keep(index, object.data()).map(|t| (index, t))
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|w| w.join().unwrap_or_default())
                .collect()
        })
    }

    /// This tree's cached `kind`, if any.
    pub fn cached(&self, kind: &str) -> Option<Vec<u8>> {
        cache::read(self.repo, kind, self.tree.id())
    }

    /// The newest cached `kind` of another tree, if any (for reusing what did not change).
    pub fn cached_nearby(&self, kind: &str) -> Option<Vec<u8>> {
        cache::newest_other(self.repo, kind, self.tree.id())
    }

    /// Caches `bytes` as this tree's `kind` (best effort).
    pub fn cache(&self, kind: &str, bytes: &[u8]) {
        cache::write(self.repo, kind, self.tree.id(), bytes);
    }

    /// The repository's own `info/attributes` (which overrides the tree's `.gitattributes`).
    pub fn info_attributes(&self) -> Option<String> {
        let path = self.repo.commondir().join("info").join("attributes");
        std::fs::read(path)
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    }

    /// Your own attributes file (`core.attributesFile`), which every tree's files override.
    pub fn global_attributes(&self) -> Option<String> {
        global_attributes(self.repo)
    }
}

fn entry_of(e: &git2::TreeEntry<'_>) -> Entry {
    match (e.kind(), e.filemode()) {
        (Some(ObjectType::Tree), _) => Entry::Dir,
        (Some(ObjectType::Commit), _) => Entry::Submodule,
        (_, mode) if mode == i32::from(git2::FileMode::Link) => Entry::Symlink { blob: e.id() },
        (_, mode) => Entry::File {
            blob: e.id(),
            executable: mode == i32::from(git2::FileMode::BlobExecutable),
        },
    }
}

/// The attributes file git reads for every repository: `core.attributesFile`, else
/// `$XDG_CONFIG_HOME/git/attributes` (`~/.config/git/attributes`).
pub(crate) fn global_attributes(repo: &Repository) -> Option<String> {
    let config = repo.config().and_then(|mut c| c.snapshot()).ok();
    let configured = super::config::layered_path(config.as_ref(), "core.attributesFile");
    let path = configured.or_else(|| {
        let xdg = std::env::var_os("XDG_CONFIG_HOME")
            .filter(|d| !d.is_empty())
            .map(std::path::PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".config"))
            })?;
        Some(xdg.join("git").join("attributes"))
    })?;
    std::fs::read(path)
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

fn decode_files(bytes: &[u8]) -> Option<Vec<(String, Oid)>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let path = std::str::from_utf8(cache::take(bytes, &mut at)?).ok()?;
        let id = Oid::from_bytes(cache::take(bytes, &mut at)?).ok()?;
        out.push((path.to_string(), id));
    }
    Some(out)
}
