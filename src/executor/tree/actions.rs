//! Each kind of action as it changes the tree: directories and files created, updated,
//! patched, deleted, and every write recorded with its change.

use std::borrow::Cow;
use std::sync::Arc;

use super::{BuildOptions, Builder, ChangeKind, FileChange, Overlay, about, keep_line_endings};
use crate::codes::Code;
use crate::context::{MASK, MaskWritten, has_mask, mask_secrets, unmask};
use crate::executor::eol;
use crate::patch::{self, HunkReport};
use crate::protocol::{Action, ActionKind, ProtocolVersion, sha256_hex};
use crate::store::records::Fingerprint;
use crate::store::{Entry, Oid, short};

impl Builder<'_> {
    pub(super) fn create_dir(&mut self, index: usize, action: &Action, entry: Entry) {
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

    pub(super) fn create_file(&mut self, index: usize, action: &Action, entry: Entry) {
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
    pub(super) fn existing(
        &mut self,
        index: usize,
        action: &Action,
        entry: Entry,
        opts: &BuildOptions<'_>,
    ) -> Option<(Arc<[u8]>, bool)> {
        let (oid, executable) = self.regular_file(index, action, entry)?;
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
        if let Some(read) = opts.read
            && !self.matches_what_was_read(index, action, &fingerprint, read)
        {
            return None;
        }
        self.touched.push(fingerprint);
        Some((blob, executable))
    }

    /// The blob and executable bit of the base's regular file at the action's path; anything
    /// else there (nothing, a directory, a symlink, a file written earlier) is refused.
    fn regular_file(&mut self, index: usize, action: &Action, entry: Entry) -> Option<(Oid, bool)> {
        match entry {
            Entry::File { blob, executable } if blob != Oid::ZERO_SHA1 => {
                return Some((blob, executable));
            }
            Entry::File { .. } => self.fail(
                Code::ActionConflict,
                index,
                action,
                "the plan already wrote this file in an earlier action",
            ),
            Entry::Missing => self.fail_hint(
                Code::TargetMissing,
                index,
                action,
                "no such file in the commit the plan applies to",
                "create it with CREATE_FILE",
            ),
            Entry::Dir => self.fail(
                Code::FileDirConflict,
                index,
                action,
                "this path is a directory",
            ),
            Entry::Symlink { .. } => self.fail(
                Code::PathThroughSymlink,
                index,
                action,
                "this path is a symlink; papayu never writes through symlinks",
            ),
            Entry::Submodule => self.fail(
                Code::FileDirConflict,
                index,
                action,
                "this path is a submodule",
            ),
        }
        None
    }

    /// Whether the file is still the one the plan read (`read`, its fingerprints); a changed
    /// file, or one an `UPDATE_FILE` replaces without having read it, is refused.
    fn matches_what_was_read(
        &mut self,
        index: usize,
        action: &Action,
        now: &Fingerprint,
        read: &[Fingerprint],
    ) -> bool {
        match read.iter().find(|f| f.path == action.path) {
            Some(seen) if seen.blob_oid != now.blob_oid => {
                let why = format!(
                    "the file changed since the plan read it (blob {} then, {} now)",
                    short(&seen.blob_oid),
                    short(&now.blob_oid)
                );
                self.fail_hint(Code::BaseMismatch, index, action, &why, "make a new plan");
                false
            }
            None if action.kind == ActionKind::UpdateFile => {
                self.fail_hint(
                    Code::UpdateWithoutBase,
                    index,
                    action,
                    "the plan never read this file, so it cannot replace it",
                    "make a new plan that reads it",
                );
                false
            }
            Some(_) | None => true,
        }
    }

    pub(super) fn update_file(
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

    pub(super) fn edit_file(
        &mut self,
        index: usize,
        action: &Action,
        entry: Entry,
        opts: &BuildOptions<'_>,
    ) {
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
    pub(super) fn unmasked(
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

    pub(super) fn delete_file(
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

    pub(super) fn delete_dir(&mut self, index: usize, action: &Action, entry: Entry) {
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
    pub(super) fn list_deleted(&mut self, dir: &str) {
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

    pub(super) fn record_write(
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
}
