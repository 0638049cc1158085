//! Whose commits are whose: a commit carrying a `Papayu-Plan:` trailer is papayu's until one of
//! the user's own branches contains it.

use git2::{Oid, Repository};

use super::Store;

impl Store {
    /// The commit whose project file may choose the check for a plan applied onto `base`: `base`
    /// itself when the user made it, else the nearest first-parent ancestor the user made.
    ///
    /// A commit counts as papayu's when its message carries a `Papayu-Plan:` trailer and no local
    /// branch outside `papayu/*` contains it; once a proposal is merged into one of the user's
    /// branches, it is the user's. So planning on (`--base`) or applying onto (`--onto`) an
    /// unmerged proposal never lets that proposal's project file pick the check.
    pub fn trusted_commit(&self, base: Oid) -> Result<Oid, git2::Error> {
        let repo = &self.repo;
        let user_tips = user_branch_tips(repo)?;
        let mut commit = repo.find_commit(base)?;
        loop {
            let id = commit.id();
            let papayus = has_plan_trailer(commit.message_bytes());
            let merged = || {
                user_tips
                    .iter()
                    .any(|tip| *tip == id || repo.graph_descendant_of(*tip, id).unwrap_or(false))
            };
            if !papayus || merged() {
                return Ok(id);
            }
            commit = match commit.parent(0) {
                Ok(parent) => parent,
                // A history made of proposals only has no project file the user wrote.
                Err(_) => return Ok(id),
            };
        }
    }
}

fn user_branch_tips(repo: &Repository) -> Result<Vec<Oid>, git2::Error> {
    let mut tips = Vec::new();
    for reference in repo.references_glob("refs/heads/*")? {
        let reference = reference?;
        let is_proposal = reference
            .name_bytes()
            .starts_with(super::BRANCH_PREFIX.as_bytes());
        if let (false, Some(oid)) = (is_proposal, reference.target()) {
            tips.push(oid);
        }
    }
    Ok(tips)
}

fn has_plan_trailer(message: &[u8]) -> bool {
    String::from_utf8_lossy(message)
        .lines()
        .any(|l| l.trim_start().starts_with("Papayu-Plan:"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_trailers() {
        assert!(has_plan_trailer(
            b"fix\n\nPapayu-Plan: abc\nPapayu-Trace: x\n"
        ));
        assert!(!has_plan_trailer(b"fix the papayu plan\n"));
    }
}
