//! Reading and appending lines of git notes without going through `git notes`.
//!
//! A notes ref points at a commit whose tree maps annotated object ids to blobs, either flat
//! (`<40 hex>`) or with fan-out directories (`ab/cdef…`, `ab/cd/ef…`) once git has rebalanced
//! it. We read every layout git writes, keep a note where it already lives when appending, and
//! never update the ref ourselves: the caller commits the new notes commit together with the
//! rest of its operation.

use git2::{FileMode, Oid, Repository, Tree, build::TreeUpdateBuilder};

use super::{NOTES_REF, StoreError};

/// Finds the tree path of the note for `target` in a notes tree, if any.
fn note_path(repo: &Repository, tree: &Tree<'_>, target: Oid) -> Option<(String, Oid)> {
    let hex = target.to_string();
    let mut dir = String::new();
    let mut rest = hex.as_str();
    let mut current = tree.clone();
    loop {
        if let Some(entry) = current.get_name(rest) {
            return Some((format!("{dir}{rest}"), entry.id()));
        }
        if rest.len() <= 2 {
            return None;
        }
        let (fan, tail) = rest.split_at(2);
        let sub = current.get_name(fan)?.id();
        current = repo.find_tree(sub).ok()?;
        dir.push_str(fan);
        dir.push('/');
        rest = tail;
    }
}

/// The note text attached to `target` in the notes commit `notes`, if any.
pub fn read(
    repo: &Repository,
    notes: Option<Oid>,
    target: Oid,
) -> Result<Option<String>, StoreError> {
    let Some(notes) = notes else { return Ok(None) };
    let tree = notes_tree(repo, notes)?;
    let Some((_, blob)) = note_path(repo, &tree, target) else {
        return Ok(None);
    };
    let blob = repo
        .find_blob(blob)
        .map_err(|e| StoreError::reading(NOTES_REF, notes, "reading a note", e))?;
    Ok(Some(String::from_utf8_lossy(blob.content()).into_owned()))
}

/// Every (annotated object, note text) pair in the notes commit. A note that annotates itself
/// is a stored object (a plan's conversation), not lines: see [`self_note`].
pub fn all(repo: &Repository, notes: Option<Oid>) -> Result<Vec<(Oid, String)>, StoreError> {
    let Some(notes) = notes else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for (target, blob) in blobs(repo, notes)? {
        if blob == target {
            continue;
        }
        let blob = repo
            .find_blob(blob)
            .map_err(|e| StoreError::reading(NOTES_REF, notes, "reading notes", e))?;
        out.push((target, String::from_utf8_lossy(blob.content()).into_owned()));
    }
    Ok(out)
}

/// Builds a new notes commit on top of `notes` in which the note of each target gets the given
/// lines appended (one `\n`-terminated line each). Returns the new commit id; no ref is touched.
pub fn append(
    repo: &Repository,
    notes: Option<Oid>,
    additions: &[(Oid, String)],
    message: &str,
) -> Result<Oid, StoreError> {
    let parent = match notes {
        Some(n) => Some(
            repo.find_commit(n)
                .map_err(|e| StoreError::reading(NOTES_REF, n, "reading notes", e))?,
        ),
        None => None,
    };
    let base_tree = match &parent {
        Some(p) => Some(p.tree().map_err(|e| StoreError::git("reading notes", e))?),
        None => None,
    };
    let mut updates = TreeUpdateBuilder::new();
    let mut texts: Vec<(String, String)> = Vec::new();
    for (target, line) in additions {
        let existing = base_tree.as_ref().and_then(|t| note_path(repo, t, *target));
        let path = existing
            .as_ref()
            .map_or_else(|| target.to_string(), |(p, _)| p.clone());
        let slot = match texts.iter().position(|(p, _)| *p == path) {
            Some(i) => i,
            None => {
                let old = match existing {
                    Some((_, blob)) => {
                        let blob = repo.find_blob(blob).map_err(|e| match notes {
                            Some(n) => StoreError::reading(NOTES_REF, n, "reading a note", e),
                            None => StoreError::git("reading a note", e),
                        })?;
                        String::from_utf8_lossy(blob.content()).into_owned()
                    }
                    None => String::new(),
                };
                texts.push((path, old));
                texts.len() - 1
            }
        };
        let text = &mut texts[slot].1;
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(line.trim_end_matches('\n'));
        text.push('\n');
    }
    let tree = match &base_tree {
        Some(base_tree) => {
            for (path, text) in &texts {
                let blob = repo
                    .blob(text.as_bytes())
                    .map_err(|e| StoreError::git("writing a note", e))?;
                updates.upsert(path.as_str(), blob, FileMode::Blob);
            }
            updates.create_updated(repo, base_tree)
        }
        // The first note: a flat tree built directly (no empty tree is ever written).
        None => repo.treebuilder(None).and_then(|mut builder| {
            for (path, text) in &texts {
                builder.insert(
                    path.as_str(),
                    repo.blob(text.as_bytes())?,
                    FileMode::Blob.into(),
                )?;
            }
            builder.write()
        }),
    }
    .map_err(|e| StoreError::git("writing notes", e))?;
    let tree = repo
        .find_tree(tree)
        .map_err(|e| StoreError::git("writing notes", e))?;
    let sig = super::signature(repo);
    let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
    repo.commit(None, &sig, &sig, message, &tree, &parents)
        .map_err(|e| StoreError::git("writing notes", e))
}

/// A new notes commit on top of `notes` without the notes of `targets` (a target without a
/// note is passed over). Returns the new commit id; no ref is touched.
pub fn without(
    repo: &Repository,
    notes: Oid,
    targets: &[Oid],
    message: &str,
) -> Result<Oid, StoreError> {
    let parent = repo
        .find_commit(notes)
        .map_err(|e| StoreError::reading(NOTES_REF, notes, "reading notes", e))?;
    let base_tree = parent
        .tree()
        .map_err(|e| StoreError::git("reading notes", e))?;
    let mut updates = TreeUpdateBuilder::new();
    for target in targets {
        if let Some((path, _)) = note_path(repo, &base_tree, *target) {
            updates.remove(path.as_str());
        }
    }
    let tree = updates
        .create_updated(repo, &base_tree)
        .and_then(|t| repo.find_tree(t))
        .map_err(|e| StoreError::git("writing notes", e))?;
    let sig = super::signature(repo);
    repo.commit(None, &sig, &sig, message, &tree, &[&parent])
        .map_err(|e| StoreError::git("writing notes", e))
}

pub(super) fn notes_tree(repo: &Repository, notes: Oid) -> Result<Tree<'_>, StoreError> {
    repo.find_commit(notes)
        .and_then(|c| c.tree())
        .map_err(|e| StoreError::reading(NOTES_REF, notes, "reading the papayu notes", e))
}

/// Every (annotated object, note blob) pair of a notes commit, self-notes included: what a merge
/// compares without reading any note's text.
pub(super) fn blobs(repo: &Repository, notes: Oid) -> Result<Vec<(Oid, Oid)>, StoreError> {
    fn walk(
        repo: &Repository,
        tree: &Tree<'_>,
        prefix: &str,
        out: &mut Vec<(Oid, Oid)>,
    ) -> Result<(), git2::Error> {
        for entry in tree.iter() {
            let Ok(name) = entry.name() else { continue };
            let full = format!("{prefix}{name}");
            match entry.kind() {
                Some(git2::ObjectType::Tree) if name.len() == 2 => {
                    walk(repo, &repo.find_tree(entry.id())?, &full, out)?;
                }
                Some(git2::ObjectType::Blob) if full.len() == 40 => {
                    if let Ok(target) = Oid::from_str(&full) {
                        out.push((target, entry.id()));
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
    let tree = notes_tree(repo, notes)?;
    let mut out = Vec::new();
    walk(repo, &tree, "", &mut out)
        .map_err(|e| StoreError::reading(NOTES_REF, notes, "reading notes", e))?;
    Ok(out)
}

/// How many notes commits [`line_origin`] looks through, newest first, before it gives up.
pub const ORIGIN_WALK: usize = 10_000;

/// Who brought a note line into the notes: the notes commit that added it and its author, as
/// that commit says (whoever writes a commit chooses its author: this names a claim's source,
/// it proves nothing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub commit: Oid,
    /// `Name <email>`.
    pub author: String,
}

/// The newest of the first [`ORIGIN_WALK`] commits of the notes history from `notes` whose note
/// of `on` holds `line` while no parent's does; `None` when no such commit is found in reach.
pub fn line_origin(repo: &Repository, notes: Oid, on: Oid, line: &str) -> Option<Origin> {
    let mut holds: std::collections::HashMap<Oid, bool> = Default::default();
    let mut has_line = |commit: &git2::Commit<'_>| -> bool {
        let Some(blob) = commit
            .tree()
            .ok()
            .and_then(|t| note_path(repo, &t, on))
            .map(|n| n.1)
        else {
            return false;
        };
        *holds.entry(blob).or_insert_with(|| {
            repo.find_blob(blob)
                .is_ok_and(|b| holds_line(b.content(), line.as_bytes()))
        })
    };
    let mut walk = repo.revwalk().ok()?;
    walk.set_sorting(git2::Sort::TIME).ok()?;
    walk.push(notes).ok()?;
    for id in walk.take(ORIGIN_WALK).flatten() {
        let Ok(commit) = repo.find_commit(id) else {
            continue;
        };
        if has_line(&commit) && !commit.parents().any(|p| has_line(&p)) {
            let author = commit.author();
            return Some(Origin {
                commit: id,
                author: format!(
                    "{} <{}>",
                    String::from_utf8_lossy(author.name_bytes()),
                    String::from_utf8_lossy(author.email_bytes())
                ),
            });
        }
    }
    None
}

/// Whether `text` holds `line` as a whole line.
fn holds_line(text: &[u8], line: &[u8]) -> bool {
    memchr::memmem::find_iter(text, line).any(|at| {
        let end = at + line.len();
        (at == 0 || text[at - 1] == b'\n')
            && matches!(text.get(end), None | Some(b'\n') | Some(b'\r'))
    })
}

/// The text of a note stored as its own object: one line, `papayu-<kind> <json>`, whose blob
/// is the note of itself. Such a note is fetched, pushed and merged with the notes (so it
/// travels and stays reachable exactly as long as they do), its name is its content, and no
/// reader of note lines ever sees it. Returns its id and text, to append as the note of that
/// id (see [`append`]).
pub fn self_note(text: &str) -> Result<(Oid, String), StoreError> {
    let text = format!("{}\n", text.trim_end_matches('\n'));
    let id = Oid::hash_object(git2::ObjectType::Blob, text.as_bytes())
        .map_err(|e| StoreError::git("naming a stored object", e))?;
    Ok((id, text))
}

/// The text of the self-note `id` in the notes commit `notes`, if that commit holds it.
pub fn read_self_note(
    repo: &Repository,
    notes: Option<Oid>,
    id: Oid,
) -> Result<Option<String>, StoreError> {
    let Some(notes) = notes else { return Ok(None) };
    let tree = notes_tree(repo, notes)?;
    match note_path(repo, &tree, id) {
        Some((_, blob)) if blob == id => Ok(repo
            .find_blob(blob)
            .ok()
            .map(|b| String::from_utf8_lossy(b.content()).into_owned())),
        _ => Ok(None),
    }
}

impl super::Store {
    /// The text of the self-note `id` in the local notes (a plan's conversation), if they hold
    /// it.
    pub fn self_note(&self, id: Oid) -> Result<Option<String>, StoreError> {
        read_self_note(&self.repo, self.ref_value(NOTES_REF)?, id)
    }
}
