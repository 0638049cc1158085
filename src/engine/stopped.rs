//! Why `git merge` stopped on a proposal, said so the user knows what happened and what to run
//! next: which files conflict, that nothing changed, and the commands that go on from there.
//!
//! It only reads the stopped merge (the unmerged index entries); it must never resolve, commit
//! or abort anything itself — [`super::review`] aborts right after asking.

use crate::codes::{Code, Problem};
use crate::store::Store;
use crate::store::records::PlanRecord;

/// What the stopped merge was: the proposal branch, the branch it went into, the plan.
pub struct Stop<'a> {
    pub branch: &'a str,
    pub into: &'a str,
    pub record: &'a PlanRecord,
}

/// The files git left unmerged, read before the merge is aborted; empty when git stopped for
/// another reason (a hook, an untracked file in the way, a refused fast-forward).
pub fn conflicted_files(store: &Store) -> Vec<String> {
    let Ok(Some(out)) = store.git_in_worktree(&["diff", "--name-only", "--diff-filter=U", "-z"])
    else {
        return Vec::new();
    };
    let mut files: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .split('\0')
        .filter(|f| !f.is_empty())
        .map(str::to_string)
        .collect();
    files.dedup();
    files
}

impl Stop<'_> {
    fn target(&self) -> &str {
        self.into.trim_start_matches("refs/heads/")
    }

    /// The next commands: a new plan from the branch as it is now, or the merge by hand.
    fn next_steps(&self) -> String {
        format!(
            "plan it again from {into} as it is now: git papayu plan {goal}; or merge it yourself and resolve the conflicts: git merge {branch}",
            into = self.target(),
            goal = sh_quote(&self.record.goal),
            branch = self.branch,
        )
    }

    /// `ERR_MERGE_FAILED` for a merge that stopped on conflicts in `files`.
    pub fn conflict(&self, files: &[String]) -> Problem {
        let shown: Vec<&str> = files.iter().take(5).map(String::as_str).collect();
        let more = match files.len().saturating_sub(shown.len()) {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        Problem::new(
            Code::MergeFailed,
            format!(
                "{branch} conflicts with {into} in {list}{more}: {into} changed since plan {id} was made; the merge was aborted and nothing changed",
                branch = self.branch,
                into = self.target(),
                list = shown.join(", "),
                id = self.record.short_id(),
            ),
        )
        .with_hint(self.next_steps())
    }

    /// `ERR_MERGE_FAILED` for `--ff-only` on branches that diverged.
    pub fn diverged(&self) -> Problem {
        Problem::new(
            Code::MergeFailed,
            format!(
                "{into} has commits that {branch} does not, so --ff-only cannot fast-forward; nothing changed",
                branch = self.branch,
                into = self.target(),
            ),
        )
        .with_hint(format!(
            "merge it with a merge commit: git papayu merge {id}; or {next}",
            id = self.record.short_id(),
            next = self.next_steps()
        ))
    }
}

/// `text` as one shell word: as it is when it is plain, else in single quotes.
fn sh_quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:,=+@%".contains(c));
    if plain {
        return text.to_string();
    }
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::sh_quote;

    #[test]
    fn goals_are_quoted_for_the_shell() {
        assert_eq!(sh_quote("fix"), "fix");
        assert_eq!(sh_quote("handle none"), "'handle none'");
        assert_eq!(sh_quote("don't"), r"'don'\''t'");
    }
}
