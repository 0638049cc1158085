//! What the model saw decides what it may change.
//!
//! A model that rewrites a whole file it never saw (or saw only in part) silently deletes the
//! code it did not see. These rules run at plan time, on answers from a model, against the
//! context fingerprint of what was sent; their problems go back to the model in the repair round.

use git2::Oid;

use crate::codes::{Code, Problem};
use crate::protocol::{ActionKind, Plan};
use crate::store::Store;
use crate::store::records::Fingerprint;

/// Every "what it saw" problem of `plan`, made against `base` after being shown `sent`.
pub fn check(store: &Store, base: Oid, plan: &Plan, sent: &[Fingerprint]) -> Vec<Problem> {
    let Ok(tree) = store.repo.find_commit(base).and_then(|c| c.tree()) else {
        return Vec::new();
    };
    let mut problems = Vec::new();
    for action in plan
        .actions
        .iter()
        .filter(|a| a.kind == ActionKind::UpdateFile)
    {
        let exists = tree
            .get_path(std::path::Path::new(&action.path))
            .is_ok_and(|e| e.kind() == Some(git2::ObjectType::Blob));
        if exists && !sent.iter().any(|f| f.path == action.path) {
            problems.push(Problem::new(
                Code::UpdateWithoutBase,
                format!(
                    "UPDATE_FILE {}: the file exists but was never shown to you; ask for it with a read_file context request first",
                    action.path
                ),
            ));
        }
    }
    problems
}
