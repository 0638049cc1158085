//! What a plan may not touch: protected paths (the built-in list, `papayu-private` in the base
//! tree's attribute files), and how `git add` would convert a path's line endings.

use super::Builder;
use crate::codes::Code;
use crate::executor::eol::{self, Conversion};
use crate::protocol::attributes::AttributeFile;
use crate::protocol::{Action, ActionKind, is_protected};
use crate::store::Entry;

impl Builder<'_> {
    /// `true` when `path` is protected: the built-in list, or `papayu-private` in the
    /// `.gitattributes` files of the base tree that apply to it.
    pub(super) fn protected(&mut self, path: &str) -> bool {
        if is_protected(path) {
            return true;
        }
        self.read_attributes_for(path);
        self.attributes.is_private(path)
    }

    /// How `git add` would convert line endings in `path`'s content.
    pub(super) fn conversion(&mut self, path: &str) -> Conversion {
        self.read_attributes_for(path);
        let get = |name| self.attributes.get(path, name);
        eol::conversion(&get("text"), &get("crlf"), &get("eol"), self.autocrlf)
    }

    /// Reads every `.gitattributes` of the base tree that can apply to `path`.
    pub(super) fn read_attributes_for(&mut self, path: &str) {
        self.read_attributes("");
        let mut end = 0;
        while let Some(slash) = path[end..].find('/') {
            end += slash;
            self.read_attributes(&path[..end]);
            end += 1;
        }
    }

    pub(super) fn read_attributes(&mut self, dir: &str) {
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
    pub(super) fn protection_ok(&mut self, index: usize, action: &Action) -> bool {
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
    pub(super) fn protected_inside(&mut self, dir: &str) -> Option<String> {
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
    pub(super) fn protected_twin(&mut self, path: &str) -> Option<String> {
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
}
