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

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use super::Base;
use super::eol::{self, AutoCrlf, Conversion};
use crate::codes::{Code, Problem, Problems};
use crate::context::{MASK, MaskWritten, has_mask, mask_secrets, unmask};
use crate::patch::{self, HunkReport};
use crate::protocol::attributes::{AttributeFile, Attributes};
use crate::protocol::gitmodules::{check_gitmodules, is_gitmodules};
use crate::protocol::{Action, ActionKind, Plan, ProtocolVersion, is_protected, sha256_hex};
use crate::store::records::Fingerprint;
use crate::store::{Entry, Oid, TreeEdit, short};

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

    /// `true` when `path` is protected: the built-in list, or `papayu-private` in the
    /// `.gitattributes` files of the base tree that apply to it.
    fn protected(&mut self, path: &str) -> bool {
        if is_protected(path) {
            return true;
        }
        self.read_attributes_for(path);
        self.attributes.is_private(path)
    }

    /// How `git add` would convert line endings in `path`'s content.
    fn conversion(&mut self, path: &str) -> Conversion {
        self.read_attributes_for(path);
        let get = |name| self.attributes.get(path, name);
        eol::conversion(&get("text"), &get("crlf"), &get("eol"), self.autocrlf)
    }

    /// Reads every `.gitattributes` of the base tree that can apply to `path`.
    fn read_attributes_for(&mut self, path: &str) {
        self.read_attributes("");
        let mut end = 0;
        while let Some(slash) = path[end..].find('/') {
            end += slash;
            self.read_attributes(&path[..end]);
            end += 1;
        }
    }

    fn read_attributes(&mut self, dir: &str) {
        if !self.attributes_read.insert(dir.to_string()) {
            return;
        }
        let file = match dir {
            "" => ".gitattributes".to_string(),
            d => format!("{d}/.gitattributes"),
        };
        // git ignores a .gitattributes that is a symlink; so does this.
        if let Entry::File { blob, .. } = self.base_entry(&file)
            && let Ok(blob) = self.base.blob(blob)
        {
            let text = String::from_utf8_lossy(&blob);
            self.attributes.add(AttributeFile::parse(dir, &text));
        }
    }

    /// Refuses any action that would remove, replace or rewrite a protected file: changing or
    /// deleting it, deleting a directory that holds one, or creating a file that a
    /// case-insensitive file system would write over it.
    fn protection_ok(&mut self, index: usize, action: &Action) -> bool {
        let path = action.path.as_str();
        let hit = match action.kind {
            ActionKind::UpdateFile
            | ActionKind::PatchFile
            | ActionKind::ReplaceRange
            | ActionKind::DeleteFile => self.protected(path).then(|| path.to_string()),
            ActionKind::DeleteDir => self.protected_inside(path),
            ActionKind::CreateFile | ActionKind::CreateDir => self.protected_twin(path),
        };
        let Some(hit) = hit else {
            return true;
        };
        let how = match action.kind {
            ActionKind::DeleteDir if hit != path => format!("the directory holds '{hit}', "),
            ActionKind::CreateFile | ActionKind::CreateDir => format!(
                "'{hit}' exists with the same name in another case, and a case-insensitive file system would overwrite it; it is "
            ),
            _ => String::new(),
        };
        self.fail(
            Code::ProtectedPath,
            index,
            action,
            format!(
                "{how}a protected file (the built-in list, or papayu-private in .gitattributes); {} may not remove, replace or rewrite it, change it by hand",
                action.kind.as_str()
            ),
        );
        false
    }

    /// The first protected path at or under `dir` in the base tree.
    fn protected_inside(&mut self, dir: &str) -> Option<String> {
        if self.protected(dir) {
            return Some(dir.to_string());
        }
        let entries: Vec<String> = self
            .base
            .entries_under(dir)
            .into_iter()
            .map(|(path, _)| path)
            .collect();
        // Every .gitattributes inside the directory applies to the files below it.
        for path in &entries {
            if let Some(sub) = path.strip_suffix("/.gitattributes") {
                self.read_attributes(sub);
            }
        }
        entries.into_iter().find(|p| self.protected(p))
    }

    /// A protected file in the base tree whose name differs from `path`'s only in case.
    fn protected_twin(&mut self, path: &str) -> Option<String> {
        let (parent, name) = match path.rsplit_once('/') {
            Some((p, n)) => (Some(p), n),
            None => (None, path),
        };
        let siblings = self.base.names(parent.unwrap_or(""));
        let twin = siblings
            .into_iter()
            .find(|s| s != name && s.eq_ignore_ascii_case(name))?;
        let twin = match parent {
            Some(p) => format!("{p}/{twin}"),
            None => twin,
        };
        self.protected(&twin).then_some(twin)
    }

    fn create_dir(&mut self, index: usize, action: &Action, entry: Entry) {
        match entry {
            Entry::Dir => {}
            Entry::Missing => {
                self.overlay.insert(action.path.clone(), Overlay::Dir);
            }
            _ => self.fail(
                Code::FileDirConflict,
                index,
                action,
                "a file already exists at this path",
            ),
        }
    }

    fn create_file(&mut self, index: usize, action: &Action, entry: Entry) {
        match entry {
            Entry::Missing => {
                let content = action.content.clone().unwrap_or_default().into_bytes();
                self.record_write(action, None, content, false, Vec::new());
            }
            Entry::Dir => self.fail(
                Code::FileDirConflict,
                index,
                action,
                "a directory exists at this path",
            ),
            Entry::Symlink { .. } => self.fail(
                Code::PathThroughSymlink,
                index,
                action,
                "a symlink exists at this path",
            ),
            _ => self.fail_hint(
                Code::TargetExists,
                index,
                action,
                "the file already exists",
                "change it with UPDATE_FILE (v1) or PATCH_FILE (v2)",
            ),
        }
    }

    /// Reads an existing regular file the plan is about to change, enforcing what the plan read.
    fn existing(
        &mut self,
        index: usize,
        action: &Action,
        entry: Entry,
        opts: &BuildOptions<'_>,
    ) -> Option<(Arc<[u8]>, bool)> {
        let (oid, executable) = match entry {
            Entry::File { blob, executable } if blob != Oid::ZERO_SHA1 => (blob, executable),
            Entry::File { .. } => {
                self.fail(
                    Code::ActionConflict,
                    index,
                    action,
                    "the plan already wrote this file in an earlier action",
                );
                return None;
            }
            Entry::Missing => {
                self.fail_hint(
                    Code::TargetMissing,
                    index,
                    action,
                    "no such file in the commit the plan applies to",
                    "create it with CREATE_FILE",
                );
                return None;
            }
            Entry::Dir => {
                self.fail(
                    Code::FileDirConflict,
                    index,
                    action,
                    "this path is a directory",
                );
                return None;
            }
            Entry::Symlink { .. } => {
                self.fail(
                    Code::PathThroughSymlink,
                    index,
                    action,
                    "this path is a symlink; papayu never writes through symlinks",
                );
                return None;
            }
            Entry::Submodule => {
                self.fail(
                    Code::FileDirConflict,
                    index,
                    action,
                    "this path is a submodule",
                );
                return None;
            }
        };
        let blob = match self.base.blob(oid) {
            Ok(b) => b,
            Err(p) => {
                self.problems.push(about(p, index, action));
                return None;
            }
        };
        let fingerprint = Fingerprint {
            path: action.path.clone(),
            blob_oid: oid.to_string(),
            sha256: sha256_hex(&blob),
            ranges: Vec::new(),
            truncated: false,
        };
        if let Some(read) = opts.read {
            match read.iter().find(|f| f.path == action.path) {
                Some(seen) if seen.blob_oid != fingerprint.blob_oid => {
                    let why = format!(
                        "the file changed since the plan read it (blob {} then, {} now)",
                        short(&seen.blob_oid),
                        short(&fingerprint.blob_oid)
                    );
                    self.fail_hint(Code::BaseMismatch, index, action, &why, "make a new plan");
                    return None;
                }
                Some(_) => {}
                None if action.kind == ActionKind::UpdateFile => {
                    self.fail_hint(
                        Code::UpdateWithoutBase,
                        index,
                        action,
                        "the plan never read this file, so it cannot replace it",
                        "make a new plan that reads it",
                    );
                    return None;
                }
                None => {}
            }
        }
        self.touched.push(fingerprint);
        Some((blob, executable))
    }

    fn update_file(
        &mut self,
        index: usize,
        action: &Action,
        entry: Entry,
        protocol: ProtocolVersion,
        opts: &BuildOptions<'_>,
    ) {
        if protocol == ProtocolVersion::V2 && matches!(entry, Entry::File { .. }) {
            self.fail(Code::V2UpdateExistingForbidden, index, action, "protocol v2 changes existing files with PATCH_FILE (patch + base_sha256), not UPDATE_FILE");
            return;
        }
        let Some((old, executable)) = self.existing(index, action, entry, opts) else {
            return;
        };
        let content = keep_line_endings(&old, action.content.clone().unwrap_or_default());
        let content = match std::str::from_utf8(&old) {
            Ok(real) => match self.unmasked(index, action, real, content) {
                Some(content) => content,
                None => return,
            },
            Err(_) => content,
        };
        self.record_write(
            action,
            Some(old),
            content.into_bytes(),
            executable,
            Vec::new(),
        );
    }

    fn edit_file(&mut self, index: usize, action: &Action, entry: Entry, opts: &BuildOptions<'_>) {
        let Some((old, executable)) = self.existing(index, action, entry, opts) else {
            return;
        };
        let expected = action
            .base_sha256
            .as_deref()
            .unwrap_or_default()
            .to_ascii_lowercase();
        let found = sha256_hex(&old);
        if expected != found {
            let why = format!(
                "base_sha256 {} does not match the file ({})",
                short(&expected),
                short(&found)
            );
            self.fail_hint(
                Code::BaseMismatch,
                index,
                action,
                &why,
                "re-read the file and regenerate the change",
            );
            return;
        }
        let Ok(text) = std::str::from_utf8(&old) else {
            self.fail(
                Code::NonUtf8File,
                index,
                action,
                "the file is not UTF-8; PATCH_FILE and REPLACE_RANGE work on text only",
            );
            return;
        };
        // The model saw the file masked: an edit that quotes a mask is made to what it saw,
        // and carried back to the real text below.
        let quotes_mask = has_mask(
            action
                .patch
                .as_deref()
                .or(action.content.as_deref())
                .unwrap_or_default(),
        );
        let seen = quotes_mask
            .then(|| mask_secrets(text))
            .filter(|seen| seen != text);
        let masked = seen.is_some();
        let real = text;
        let text = seen.as_deref().unwrap_or(text);
        let result = if action.kind == ActionKind::PatchFile {
            let options = patch::Options {
                path: Some(action.path.clone()),
                pick: None,
                line_hint: None,
            };
            patch::apply_with(text, action.patch.as_deref().unwrap_or_default(), &options)
                .map(|a| (a.content, a.hunks))
                .map_err(|e| {
                    let report = e.report_text();
                    e.problem.with_detail(report)
                })
        } else {
            let start = action.start_line.unwrap_or(0) as usize;
            let end = action.end_line.unwrap_or(0) as usize;
            let content = action.content.as_deref().unwrap_or_default();
            patch::replace_range(text, start, end, content).map(|c| (c, Vec::new()))
        };
        match result {
            Ok((content, hunks)) => {
                let content = if masked {
                    match self.unmasked(index, action, real, content) {
                        Some(content) => content,
                        None => return,
                    }
                } else {
                    content
                };
                self.record_write(action, Some(old), content.into_bytes(), executable, hunks)
            }
            Err(p) => self.problems.push(about(p, index, action)),
        }
    }

    /// `written` over the file's `real` text with every line the model left as it saw it (masked)
    /// carried back to the real line; `None` after refusing a line that writes a mask.
    fn unmasked(
        &mut self,
        index: usize,
        action: &Action,
        real: &str,
        written: String,
    ) -> Option<String> {
        match unmask(real, &written) {
            Ok(content) => Some(content),
            Err(MaskWritten { line }) => {
                let why = format!(
                    "line {line} of the new text writes {MASK} where the file holds a secret the model only saw masked"
                );
                self.fail_hint(
                    Code::MaskedSecret,
                    index,
                    action,
                    &why,
                    "keep that line exactly as it was shown, or leave the secret to a person",
                );
                None
            }
        }
    }

    fn delete_file(
        &mut self,
        index: usize,
        action: &Action,
        entry: Entry,
        opts: &BuildOptions<'_>,
    ) {
        if matches!(entry, Entry::Symlink { .. }) {
            // Removing a link never touches what it points at.
            self.overlay.insert(action.path.clone(), Overlay::Deleted);
            self.changes.push(FileChange {
                path: action.path.clone(),
                kind: ChangeKind::Deleted,
                old: None,
                new: None,
                hunks: Vec::new(),
            });
            return;
        }
        let Some((old, _)) = self.existing(index, action, entry, opts) else {
            return;
        };
        self.overlay.insert(action.path.clone(), Overlay::Deleted);
        self.changes.push(FileChange {
            path: action.path.clone(),
            kind: ChangeKind::Deleted,
            old: Some(old),
            new: None,
            hunks: Vec::new(),
        });
    }

    fn delete_dir(&mut self, index: usize, action: &Action, entry: Entry) {
        if entry != Entry::Dir {
            let why = if entry == Entry::Missing {
                "no such directory in the commit the plan applies to"
            } else {
                "this path is not a directory"
            };
            self.fail(
                if entry == Entry::Missing {
                    Code::TargetMissing
                } else {
                    Code::FileDirConflict
                },
                index,
                action,
                why,
            );
            return;
        }
        let prefix = format!("{}/", action.path);
        if self
            .overlay
            .iter()
            .any(|(p, o)| p.starts_with(&prefix) && matches!(o, Overlay::File { .. }))
        {
            self.fail(
                Code::ActionConflict,
                index,
                action,
                "the plan writes files inside the directory it deletes",
            );
            return;
        }
        self.list_deleted(&action.path);
        self.overlay
            .insert(action.path.clone(), Overlay::DirDeleted);
    }

    /// Records every file under a deleted directory as a deletion, for previews and diffstats.
    fn list_deleted(&mut self, dir: &str) {
        let files =
            self.base
                .entries_under(dir)
                .into_iter()
                .filter_map(|(path, entry)| match entry {
                    Entry::File { blob, .. } | Entry::Symlink { blob } => Some((path, blob)),
                    _ => None,
                });
        for (path, oid) in files {
            if matches!(self.overlay.get(&path), Some(Overlay::Deleted)) {
                continue;
            }
            let old = self.base.blob(oid).ok();
            self.changes.push(FileChange {
                path,
                kind: ChangeKind::Deleted,
                old,
                new: None,
                hunks: Vec::new(),
            });
        }
    }

    fn record_write(
        &mut self,
        action: &Action,
        old: Option<Arc<[u8]>>,
        new: Vec<u8>,
        executable: bool,
        hunks: Vec<HunkReport>,
    ) {
        // Stored as `git add` would store it, so a renormalizing `git add` finds nothing to do.
        let how = self.conversion(&action.path);
        let new = match eol::to_git(&new, how, old.as_deref()) {
            Cow::Borrowed(_) => new,
            Cow::Owned(converted) => converted,
        };
        let kind = if old.is_some() {
            ChangeKind::Modified
        } else {
            ChangeKind::Added
        };
        let new: Arc<[u8]> = new.into();
        if old.as_deref() == Some(&new[..]) {
            // Writing what is already there is not a change.
            self.overlay.insert(
                action.path.clone(),
                Overlay::File {
                    content: new,
                    executable,
                },
            );
            return;
        }
        self.overlay.insert(
            action.path.clone(),
            Overlay::File {
                content: Arc::clone(&new),
                executable,
            },
        );
        self.changes.push(FileChange {
            path: action.path.clone(),
            kind,
            old,
            new: Some(new),
            hunks,
        });
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
