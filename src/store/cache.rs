//! Data derived from one tree, cached under `<gitdir>/papayu/cache/` and keyed by the tree id.
//! A tree never changes, so an entry is never stale: it is only ever replaced as a whole or
//! dropped. Each kind keeps its newest [`KEEP`] entries, so the cache cannot grow without
//! bound; `gc` may remove it entirely. The cache is an accelerator only: every read that fails
//! for any reason is a miss, and a write that fails is skipped.

use std::path::{Path, PathBuf};

use git2::{Oid, Repository};

/// Entries kept per kind; older ones are removed when a new one is written.
const KEEP: usize = 4;

pub(crate) fn dir(repo: &Repository) -> PathBuf {
    repo.commondir().join("papayu").join("cache")
}

fn entry(repo: &Repository, kind: &str, tree: Oid) -> PathBuf {
    dir(repo).join(format!("{kind}-{tree}"))
}

/// The cached bytes of `kind` for `tree`, if present.
pub(crate) fn read(repo: &Repository, kind: &str, tree: Oid) -> Option<Vec<u8>> {
    std::fs::read(entry(repo, kind, tree)).ok()
}

/// The newest cached `kind` of any tree other than `tree`: what a tree close to it (the
/// previous commit's, most often) derived, for reusing what did not change.
pub(crate) fn newest_other(repo: &Repository, kind: &str, tree: Oid) -> Option<Vec<u8>> {
    let prefix = format!("{kind}-");
    let own = format!("{kind}-{tree}");
    let newest = std::fs::read_dir(dir(repo))
        .ok()?
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with(&prefix) && name != own
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .max_by_key(|e| e.0)?;
    std::fs::read(newest.1).ok()
}

/// Stores `bytes` as `kind` for `tree`, atomically (a reader sees the old entry or the whole
/// new one), then prunes the kind to its newest entries.
pub(crate) fn write(repo: &Repository, kind: &str, tree: Oid, bytes: &[u8]) {
    if replace(&entry(repo, kind, tree), bytes) {
        prune(&dir(repo), kind);
    }
}

/// Replaces the file at `path` (in the cache directory) with `bytes`, atomically: a reader
/// sees the old file or the whole new one. `false` when anything failed (nothing changed).
pub(crate) fn replace(path: &Path, bytes: &[u8]) -> bool {
    let Some(dir) = path.parent() else {
        return false;
    };
    if std::fs::create_dir_all(dir).is_err() {
        return false;
    }
    let Ok(mut tmp) = tempfile::NamedTempFile::new_in(dir) else {
        return false;
    };
    std::io::Write::write_all(&mut tmp, bytes).is_ok() && tmp.persist(path).is_ok()
}

fn prune(dir: &Path, kind: &str) {
    let prefix = format!("{kind}-");
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<(std::time::SystemTime, PathBuf)> = read
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    entries.sort_by_key(|e| std::cmp::Reverse(e.0));
    for (_, path) in entries.into_iter().skip(KEEP) {
        let _ = std::fs::remove_file(path);
    }
}

/// Appends a length-prefixed byte string.
pub(crate) fn put(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    out.extend_from_slice(bytes);
}

/// Reads what [`put`] wrote, advancing `at`; `None` on a short or corrupt entry.
pub(crate) fn take<'b>(bytes: &'b [u8], at: &mut usize) -> Option<&'b [u8]> {
    let len = u64::from_le_bytes(bytes.get(*at..*at + 8)?.try_into().ok()?);
    let start = *at + 8;
    let end = start.checked_add(usize::try_from(len).ok()?)?;
    let out = bytes.get(start..end)?;
    *at = end;
    Some(out)
}

/// Removes every entry (or, with `dry_run`, counts them): how many, and their bytes.
pub(crate) fn clear(repo: &Repository, dry_run: bool) -> (usize, u64) {
    let Ok(entries) = std::fs::read_dir(dir(repo)) else {
        return (0, 0);
    };
    let mut count = 0;
    let mut bytes = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        bytes += super::disk_usage(&path);
        count += 1;
        if !dry_run {
            let _ = std::fs::remove_file(&path);
        }
    }
    (count, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_and_take_round_trip_and_reject_short_input() {
        let mut out = Vec::new();
        put(&mut out, b"src/a.rs");
        put(&mut out, b"");
        let mut at = 0;
        assert_eq!(take(&out, &mut at), Some(&b"src/a.rs"[..]));
        assert_eq!(take(&out, &mut at), Some(&b""[..]));
        assert_eq!(take(&out, &mut at), None);
        let mut at = 0;
        assert_eq!(take(&out[..10], &mut at), None, "a cut entry is a miss");
    }

    #[test]
    fn only_the_newest_entries_of_a_kind_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        for i in 0..(KEEP + 3) {
            let tree = Oid::hash_object(git2::ObjectType::Tree, format!("{i}").as_bytes()).unwrap();
            write(&repo, "files1", tree, b"x");
            std::thread::sleep(std::time::Duration::from_millis(15));
        }
        let other = Oid::hash_object(git2::ObjectType::Tree, b"other").unwrap();
        write(&repo, "grep1", other, b"y");
        let names: Vec<String> = std::fs::read_dir(super::dir(&repo))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names.iter().filter(|n| n.starts_with("files1-")).count(),
            KEEP
        );
        assert_eq!(names.iter().filter(|n| n.starts_with("grep1-")).count(), 1);
        assert_eq!(read(&repo, "grep1", other), Some(b"y".to_vec()));
    }
}
