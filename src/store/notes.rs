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

/// Every (annotated object, note text) pair in the notes commit.
pub fn all(repo: &Repository, notes: Option<Oid>) -> Result<Vec<(Oid, String)>, StoreError> {
    let Some(notes) = notes else {
        return Ok(Vec::new());
    };
    let tree = notes_tree(repo, notes)?;
    let mut out = Vec::new();
    collect(repo, &tree, String::new(), &mut out)
        .map_err(|e| StoreError::reading(NOTES_REF, notes, "reading notes", e))?;
    Ok(out)
}

fn collect(
    repo: &Repository,
    tree: &Tree<'_>,
    prefix: String,
    out: &mut Vec<(Oid, String)>,
) -> Result<(), git2::Error> {
    for entry in tree.iter() {
        let Ok(name) = entry.name() else { continue };
        let full = format!("{prefix}{name}");
        match entry.kind() {
            Some(git2::ObjectType::Tree) if name.len() == 2 => {
                let sub = repo.find_tree(entry.id())?;
                collect(repo, &sub, full, out)?;
            }
            Some(git2::ObjectType::Blob) => {
                if let Ok(target) = Oid::from_str(&full)
                    && full.len() == 40
                {
                    let blob = repo.find_blob(entry.id())?;
                    out.push((target, String::from_utf8_lossy(blob.content()).into_owned()));
                }
            }
            _ => {}
        }
    }
    Ok(())
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

fn notes_tree(repo: &Repository, notes: Oid) -> Result<Tree<'_>, StoreError> {
    repo.find_commit(notes)
        .and_then(|c| c.tree())
        .map_err(|e| StoreError::reading(NOTES_REF, notes, "reading the papayu notes", e))
}
