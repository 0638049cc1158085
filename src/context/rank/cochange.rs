//! Files that change together. The history of the base ([`Snapshot::recent_changes`]: the files
//! each recent commit changed, never a commit after the base) says which files were changed in
//! the same commits; the best files pass a share of their score to those that most often changed
//! with them. That finds the second file of a fix that spans two when neither imports nor calls
//! the other: a parser and its printer, a command and the table listing it, a source and the
//! file beside it that every change to it also touches.
//!
//! A pair counts by the cosine of the two files' commit sets, so a changelog touched by every
//! commit is no one's partner.
//!
//! [`Snapshot::recent_changes`]: crate::store::Snapshot::recent_changes

use std::collections::HashMap;

use super::paths::PathIndex;

/// Commits two files must share to count as changing together.
const MIN_TOGETHER: u32 = 2;
/// The least cosine of the two files' commit sets that counts.
const MIN_STRENGTH: f64 = 0.3;

/// A file that changed with another.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Partner {
    pub(super) file: usize,
    /// Commits that changed both.
    pub(super) together: u32,
    /// Commits that changed the file asked about.
    pub(super) of: u32,
    /// The cosine of their commit sets, 0 to 1.
    pub(super) strength: f64,
}

/// The history's commits as sets of corpus files.
pub(super) struct CoChange {
    commits: Vec<Vec<usize>>,
    /// For each file that changed, the commits that changed it.
    by_file: HashMap<usize, Vec<u32>>,
}

impl CoChange {
    /// The commits of `history` (paths each commit changed) among the files of `index`; paths
    /// no longer in the tree are left out.
    pub(super) fn new(history: &[Vec<String>], index: &PathIndex<'_>) -> CoChange {
        let mut commits = Vec::with_capacity(history.len());
        let mut by_file: HashMap<usize, Vec<u32>> = HashMap::new();
        for paths in history {
            let mut files: Vec<usize> = paths
                .iter()
                .filter_map(|p| index.exact.get(p.as_str()).copied())
                .collect();
            files.sort_unstable();
            files.dedup();
            if files.len() < 2 {
                // A commit of one file pairs it with nothing, but counts among its changes.
                if let [f] = files[..] {
                    by_file.entry(f).or_default().push(commits.len() as u32);
                    commits.push(files);
                }
                continue;
            }
            for &f in &files {
                by_file.entry(f).or_default().push(commits.len() as u32);
            }
            commits.push(files);
        }
        CoChange { commits, by_file }
    }

    /// The files that changed with `f` most often, strongest first.
    pub(super) fn partners(&self, f: usize) -> Vec<Partner> {
        let Some(mine) = self.by_file.get(&f) else {
            return Vec::new();
        };
        let mut together: HashMap<usize, u32> = HashMap::new();
        for &c in mine {
            for &other in &self.commits[c as usize] {
                if other != f {
                    *together.entry(other).or_default() += 1;
                }
            }
        }
        let of = mine.len() as u32;
        let mut out: Vec<Partner> = together
            .into_iter()
            .filter(|&(_, n)| n >= MIN_TOGETHER)
            .map(|(other, n)| {
                let theirs = self.by_file.get(&other).map_or(1, Vec::len) as f64;
                Partner {
                    file: other,
                    together: n,
                    of,
                    strength: f64::from(n) / (f64::from(of) * theirs).sqrt(),
                }
            })
            .filter(|p| p.strength >= MIN_STRENGTH)
            .collect();
        out.sort_by(|a, b| {
            b.strength
                .total_cmp(&a.strength)
                .then(b.together.cmp(&a.together))
                .then(a.file.cmp(&b.file))
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history(commits: &[&[&str]]) -> Vec<Vec<String>> {
        commits
            .iter()
            .map(|c| c.iter().map(|p| p.to_string()).collect())
            .collect()
    }

    #[test]
    fn files_changed_together_are_partners_and_a_changelog_is_nobodys() {
        let paths: Vec<String> = ["CHANGES", "src/parse.c", "src/print.c", "src/other.c"]
            .iter()
            .map(|p| p.to_string())
            .collect();
        let index = PathIndex::new(&paths);
        let mut commits: Vec<&[&str]> = vec![&["src/parse.c", "src/print.c", "CHANGES"]; 4];
        commits.push(&["src/parse.c"]);
        commits.extend(vec![&["src/other.c", "CHANGES"] as &[&str]; 40]);
        commits.push(&["src/gone.c", "src/parse.c"]);
        let co = CoChange::new(&history(&commits), &index);
        let partners = co.partners(1);
        assert_eq!(partners[0].file, 2, "{partners:?}");
        assert_eq!((partners[0].together, partners[0].of), (4, 6));
        assert!(
            partners.iter().all(|p| p.file != 0),
            "the changelog changes with everything: {partners:?}"
        );
    }
}
