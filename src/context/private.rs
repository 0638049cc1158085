//! What may leave the machine: the protected denylist, and the files a `papayu-private`
//! attribute marks in any `.gitattributes` of the tree, in `info/attributes` or in the user's
//! attributes file. Nothing marked is read into context, searched or ranked.

use crate::protocol::attributes::{AttributeFile, Attributes};
use crate::protocol::is_protected;
use crate::store::Snapshot;

/// Whether a path may be read into context.
pub fn may_read(snap: &Snapshot<'_>, path: &str) -> bool {
    Private::of(snap).allows(path)
}

/// The paths that never leave the machine: the protected denylist, and files with the
/// `papayu-private` attribute in any `.gitattributes` of the tree or in `info/attributes`,
/// resolved as the plan's protection rules resolve them.
pub(super) struct Private(pub(super) Attributes);

impl Private {
    pub(super) fn of(snap: &Snapshot<'_>) -> Private {
        let mut attributes = Attributes::default();
        for (path, _) in snap.files() {
            let Some(dir) = path
                .strip_suffix(".gitattributes")
                .filter(|d| d.is_empty() || d.ends_with('/'))
            else {
                continue;
            };
            if let Ok(Some(file)) = snap.read(path) {
                let text = String::from_utf8_lossy(&file.bytes);
                attributes.add(AttributeFile::parse(dir, &text));
            }
        }
        if let Some(text) = snap.info_attributes() {
            attributes.add_local(AttributeFile::parse("", &text));
        }
        if let Some(text) = snap.global_attributes() {
            attributes.add_global(AttributeFile::parse("", &text));
        }
        Private(attributes)
    }

    pub(super) fn allows(&self, path: &str) -> bool {
        !is_protected(path) && !self.0.is_private(path)
    }
}
