//! The plan executor: what a plan's actions do to a base tree.
//!
//! Path rules, protected files, `.gitmodules`, "what the model saw", the patch engine and line
//! endings are domain logic, so they live here rather than in the git gateway. The executor
//! reads the base tree through [`Base`] (the store's [`Snapshot`] in the program, a map in
//! tests) and hands the new tree to the store as a list of [`crate::store::TreeEdit`]s; it never touches git
//! itself, and it never writes half a plan: every problem is collected first.

mod eol;
#[cfg(test)]
mod tests;
mod tree;

pub use eol::{AutoCrlf, Conversion};
pub use tree::{BuildOptions, Built, ChangeKind, FileChange, Outcome, Settings, changes};

use std::sync::Arc;

use crate::codes::{Problem, Problems};
use crate::protocol::Plan;
use crate::store::{Entry, Oid, Snapshot, Store};

/// Read access to the base tree, as much as the executor needs.
pub trait Base {
    /// What `path` is.
    fn entry(&self, path: &str) -> Entry;
    /// A blob's content.
    fn blob(&self, id: Oid) -> Result<Arc<[u8]>, Problem>;
    /// The names directly inside directory `dir` (`""` for the root).
    fn names(&self, dir: &str) -> Vec<String>;
    /// Every entry below directory `dir`, as full paths, parents before children.
    fn entries_under(&self, dir: &str) -> Vec<(String, Entry)>;
}

impl Base for Snapshot<'_> {
    fn entry(&self, path: &str) -> Entry {
        Snapshot::entry(self, path)
    }

    fn blob(&self, id: Oid) -> Result<Arc<[u8]>, Problem> {
        Ok(Snapshot::blob(self, id)?)
    }

    fn names(&self, dir: &str) -> Vec<String> {
        Snapshot::names(self, dir)
    }

    fn entries_under(&self, dir: &str) -> Vec<(String, Entry)> {
        Snapshot::entries_under(self, dir)
    }
}

impl Settings {
    /// The settings of the repository `snapshot` belongs to.
    pub fn read(snapshot: &Snapshot<'_>) -> Settings {
        Settings {
            info_attributes: snapshot.info_attributes(),
            global_attributes: snapshot.global_attributes(),
            autocrlf: AutoCrlf::parse(snapshot.config("core.autocrlf").as_deref()),
        }
    }
}

/// Applies `plan`'s actions to the tree `base`, and with `opts.write` writes the new tree. All
/// problems are reported together; on any problem nothing is written.
pub fn build(
    store: &Store,
    base: Oid,
    plan: &Plan,
    opts: &BuildOptions<'_>,
) -> Result<Built, Problems> {
    let snapshot = store.snapshot_tree(base).map_err(|e| vec![e.into()])?;
    let outcome = changes(&snapshot, &Settings::read(&snapshot), plan, opts)?;
    let tree = match opts.write {
        true => Some(
            store
                .write_tree(base, &outcome.edits())
                .map_err(|e| vec![e.into()])?,
        ),
        false => None,
    };
    Ok(Built {
        tree,
        changes: outcome.changes,
        touched: outcome.touched,
    })
}
