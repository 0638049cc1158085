//! Turning a plan's actions into the edits of a new tree, reading the base tree through [`Base`].
//!
//! No checkout and no index: each action looks up only the paths it names in the base tree, and
//! the new tree is written from the resulting edits by the store, so the cost grows with the
//! number of changed paths, never with the size of the repository. The same code makes the dry run of
//! `plan`, checks a stored plan again at apply time (with `write: false` nothing is stored),
//! and builds the tree when a stored one cannot be reused.
//!
//! It must never follow a symlink, turn a file into a directory or back, or write half a plan:
//! every problem is collected first and the tree is only built when there are none. It must
//! never remove, replace or rewrite a protected file — named directly, or inside a directory the
//! plan deletes — where protected means the built-in list ([`is_protected`]) or the
//! `papayu-private` attribute ([`crate::protocol::attributes`]) in the base tree's
//! `.gitattributes` files or the repository's `info/attributes`. It never writes a `.gitmodules`
//! that `git fsck` rejects, and it writes blobs as `git add` would ([`super::eol`]).
//! It never touches git itself: everything it knows of the repository comes through [`Base`] and
//! [`Settings`], so it runs as well over an in-memory tree.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use super::Base;
use super::eol::AutoCrlf;
use crate::codes::{Code, Problem, Problems};
use crate::patch::HunkReport;
use crate::protocol::attributes::{AttributeFile, Attributes};
use crate::protocol::gitmodules::{check_gitmodules, is_gitmodules};
use crate::protocol::{Action, ActionKind, Plan, ProtocolVersion};
use crate::store::records::Fingerprint;
use crate::store::{Entry, Oid, TreeEdit};

mod actions;
mod guard;

/// What happened to one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    Added,
    Modified,
    Deleted,
}

/// One file's change, with both sides for previews and diffstats.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FileChange {
    pub path: String,
    pub kind: ChangeKind,
    /// Both sides, shared with the builder that wrote them (a large file is held once).
    #[serde(skip)]
    pub old: Option<Arc<[u8]>>,
    #[serde(skip)]
    pub new: Option<Arc<[u8]>>,
    /// Per-hunk placement, for `PATCH_FILE`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hunks: Vec<HunkReport>,
}

/// The result of building: the new tree (when written), the changes, and the fingerprint of
/// every existing file the plan touched.
#[derive(Debug)]
pub struct Built {
    pub tree: Option<Oid>,
    pub changes: Vec<FileChange>,
    pub touched: Vec<Fingerprint>,
}

/// How to build.
pub struct BuildOptions<'a> {
    /// Write blobs and trees to the object database (apply) or only check (preview).
    pub write: bool,
    /// At apply: the files the plan read when it was made. `UPDATE_FILE` must name one of them,
    /// and every file the plan touches must still hold the blob it read.
    pub read: Option<&'a [Fingerprint]>,
}

/// What the repository says beyond the base tree: the attribute files outside it and
/// `core.autocrlf`.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// The repository's `info/attributes`.
    pub info_attributes: Option<String>,
    /// `core.attributesFile` (or its default location).
    pub global_attributes: Option<String>,
    /// `core.autocrlf`, for paths without line-ending attributes.
    pub autocrlf: AutoCrlf,
}

/// The result of checking a plan against a base: the changes and fingerprints of [`Built`], and
/// the tree edits that would write it.
#[derive(Debug)]
pub struct Outcome {
    pub changes: Vec<FileChange>,
    pub touched: Vec<Fingerprint>,
    overlay: BTreeMap<String, Overlay>,
}

impl Outcome {
    /// The edits that turn the base tree into the plan's tree.
    pub fn edits(&self) -> Vec<TreeEdit<'_>> {
        self.overlay
            .iter()
            .filter_map(|(path, overlay)| match overlay {
                Overlay::File {
                    content,
                    executable,
                } => Some(TreeEdit::Put {
                    path,
                    content,
                    executable: *executable,
                }),
                Overlay::Deleted | Overlay::DirDeleted => Some(TreeEdit::Remove { path }),
                Overlay::Dir => None,
            })
            .collect()
    }
}

/// What the plan has done so far to a path (an overlay on the base tree).
#[derive(Debug, Clone)]
enum Overlay {
    File {
        content: Arc<[u8]>,
        executable: bool,
    },
    Deleted,
    DirDeleted,
    Dir,
}

struct Builder<'r> {
    base: &'r dyn Base,
    overlay: BTreeMap<String, Overlay>,
    changes: Vec<FileChange>,
    touched: Vec<Fingerprint>,
    problems: Vec<Problem>,
    /// `papayu-private` marks read so far, and the directories whose `.gitattributes` was read.
    attributes: Attributes,
    attributes_read: HashSet<String>,
    /// `core.autocrlf`, for paths without line-ending attributes.
    autocrlf: AutoCrlf,
}

/// Applies `plan`'s actions to `base`, without writing anything. All problems are reported
/// together.
pub fn changes(
    base: &dyn Base,
    settings: &Settings,
    plan: &Plan,
    opts: &BuildOptions<'_>,
) -> Result<Outcome, Problems> {
    let mut b = Builder {
        base,
        overlay: BTreeMap::new(),
        changes: Vec::new(),
        touched: Vec::new(),
        problems: Vec::new(),
        attributes: Attributes::default(),
        attributes_read: HashSet::new(),
        autocrlf: settings.autocrlf,
    };
    if let Some(text) = &settings.info_attributes {
        b.attributes.add_local(AttributeFile::parse("", text));
    }
    if let Some(text) = &settings.global_attributes {
        b.attributes.add_global(AttributeFile::parse("", text));
    }
    for (index, action) in plan.actions.iter().enumerate() {
        b.action(index, action, plan.protocol, opts);
    }
    b.finish_dirs(plan);
    if !b.problems.is_empty() {
        return Err(b.problems);
    }
    Ok(Outcome {
        changes: b.changes,
        touched: b.touched,
        overlay: b.overlay,
    })
}

fn label(index: usize, action: &Action) -> String {
    format!(
        "action {} ({} {})",
        index + 1,
        action.kind.as_str(),
        action.path
    )
}

/// `problem` as one about action `index`: its reason names the action, and it carries the path.
fn about(problem: Problem, index: usize, action: &Action) -> Problem {
    problem.about(label(index, action)).at_path(&action.path)
}

impl Builder<'_> {
    fn fail(&mut self, code: Code, index: usize, action: &Action, why: impl AsRef<str>) {
        self.problems
            .push(about(Problem::new(code, why.as_ref()), index, action));
    }

    /// [`Builder::fail`] with what to do about it.
    fn fail_hint(&mut self, code: Code, index: usize, action: &Action, why: &str, hint: &str) {
        self.problems.push(about(
            Problem::new(code, why).with_hint(hint),
            index,
            action,
        ));
    }

    /// The base tree's entry at `path` (ignoring the overlay).
    fn base_entry(&self, path: &str) -> Entry {
        self.base.entry(path)
    }

    /// Checks every proper prefix of `path`: it must be a directory (or absent) in the plan's
    /// view of the tree, never a symlink, a file or a submodule.
    fn parents_ok(&mut self, index: usize, action: &Action) -> bool {
        let path = action.path.as_str();
        let mut end = 0;
        while let Some(slash) = path[end..].find('/') {
            end += slash;
            let prefix = &path[..end];
            end += 1;
            let overlay = self.overlay.get(prefix).cloned();
            let entry = self.base_entry(prefix);
            let problem = match (overlay, entry) {
                (Some(Overlay::File { .. }), _) => Some((
                    Code::FileDirConflict,
                    format!("'{prefix}' is a file this plan creates; a path cannot go through it"),
                )),
                (Some(Overlay::Deleted | Overlay::DirDeleted | Overlay::Dir), _) => None,
                (None, Entry::Symlink { .. }) => Some((
                    Code::PathThroughSymlink,
                    format!(
                        "'{prefix}' is a symlink in the base tree; papayu never writes through symlinks"
                    ),
                )),
                (None, Entry::File { .. }) => Some((
                    Code::FileDirConflict,
                    format!(
                        "'{prefix}' is a file in the base tree; turning it into a directory is not supported"
                    ),
                )),
                (None, Entry::Submodule) => Some((
                    Code::FileDirConflict,
                    format!("'{prefix}' is a submodule; change it in its own repository"),
                )),
                (None, Entry::Missing | Entry::Dir) => None,
            };
            if let Some((code, why)) = problem {
                self.fail(code, index, action, why);
                return false;
            }
        }
        true
    }

    /// The plan's current view of `path`.
    fn current(&self, path: &str) -> Entry {
        match self.overlay.get(path) {
            Some(Overlay::File { .. }) => Entry::File {
                blob: Oid::ZERO_SHA1,
                executable: false,
            },
            Some(Overlay::Deleted | Overlay::DirDeleted) => Entry::Missing,
            Some(Overlay::Dir) => Entry::Dir,
            None => self.base_entry(path),
        }
    }

    fn action(
        &mut self,
        index: usize,
        action: &Action,
        protocol: ProtocolVersion,
        opts: &BuildOptions<'_>,
    ) {
        if let Err(p) = crate::protocol::check_path(&action.path) {
            self.problems.push(about(p, index, action));
            return;
        }
        if !self.parents_ok(index, action) {
            return;
        }
        if !self.protection_ok(index, action) {
            return;
        }
        let entry = self.current(&action.path);
        match action.kind {
            ActionKind::CreateDir => self.create_dir(index, action, entry),
            ActionKind::CreateFile => self.create_file(index, action, entry),
            ActionKind::UpdateFile => self.update_file(index, action, entry, protocol, opts),
            ActionKind::PatchFile | ActionKind::ReplaceRange => {
                self.edit_file(index, action, entry, opts)
            }
            ActionKind::DeleteFile => self.delete_file(index, action, entry, opts),
            ActionKind::DeleteDir => self.delete_dir(index, action, entry),
        }
        if is_gitmodules(&action.path)
            && let Some(Overlay::File { content, .. }) = self.overlay.get(&action.path)
        {
            let text = String::from_utf8_lossy(content).into_owned();
            if let Err(why) = check_gitmodules(&text) {
                self.fail(
                    Code::GitmodulesInvalid,
                    index,
                    action,
                    format!("{why}; git fsck would reject this .gitmodules"),
                );
            }
        }
    }

    /// A directory git cannot represent (empty) gets a `.gitkeep`, unless the plan puts files
    /// in it anyway.
    fn finish_dirs(&mut self, plan: &Plan) {
        for action in plan
            .actions
            .iter()
            .filter(|a| a.kind == ActionKind::CreateDir)
        {
            if !matches!(self.overlay.get(&action.path), Some(Overlay::Dir)) {
                continue;
            }
            let prefix = format!("{}/", action.path);
            let filled = self
                .overlay
                .iter()
                .any(|(p, o)| p.starts_with(&prefix) && matches!(o, Overlay::File { .. }));
            if !filled {
                let keep = format!("{prefix}.gitkeep");
                self.overlay.insert(
                    keep.clone(),
                    Overlay::File {
                        content: Arc::from(&[][..]),
                        executable: false,
                    },
                );
                self.changes.push(FileChange {
                    path: keep,
                    kind: ChangeKind::Added,
                    old: None,
                    new: Some(Arc::from(&[][..])),
                    hunks: Vec::new(),
                });
            }
        }
    }
}

/// Keeps a CRLF file CRLF when the model sent its new content with bare LFs.
fn keep_line_endings(old: &[u8], new: String) -> String {
    let crlf = old.windows(2).filter(|w| w == b"\r\n").count();
    let lf = old.iter().filter(|b| **b == b'\n').count();
    if crlf > 0 && crlf == lf && !new.contains('\r') {
        new.replace('\n', "\r\n")
    } else {
        new
    }
}

#[cfg(test)]
mod tests {
    use super::keep_line_endings;

    #[test]
    fn crlf_files_stay_crlf() {
        assert_eq!(
            keep_line_endings(b"a\r\nb\r\n", "x\ny\n".into()),
            "x\r\ny\r\n"
        );
        assert_eq!(keep_line_endings(b"a\nb\n", "x\ny\n".into()), "x\ny\n");
        assert_eq!(keep_line_endings(b"a\r\nb\n", "x\ny\n".into()), "x\ny\n");
    }
}
