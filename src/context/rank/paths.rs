//! The tree's paths indexed for the lookups import resolution and structure need: exactly, by
//! their last two components, by file name.

use std::collections::HashMap;

/// Paths, looked up exactly or by their last two components.
pub(super) struct PathIndex<'c> {
    pub(super) paths: Vec<&'c str>,
    pub(super) exact: HashMap<&'c str, usize>,
    by_tail: HashMap<&'c str, Vec<usize>>,
    by_name: HashMap<&'c str, Vec<usize>>,
}

impl<'c> PathIndex<'c> {
    pub(super) fn new(paths: &'c [String]) -> PathIndex<'c> {
        let mut index = PathIndex {
            paths: paths.iter().map(String::as_str).collect(),
            exact: HashMap::new(),
            by_tail: HashMap::new(),
            by_name: HashMap::new(),
        };
        for (i, p) in paths.iter().enumerate() {
            index.exact.insert(p, i);
            index.by_tail.entry(tail(p)).or_default().push(i);
            let name = p.rsplit_once('/').map_or(p.as_str(), |(_, n)| n);
            index.by_name.entry(name).or_default().push(i);
        }
        index
    }

    /// Files whose name is `name`, in any directory.
    pub(super) fn named(&self, name: &str) -> Vec<usize> {
        self.by_name.get(name).cloned().unwrap_or_default()
    }

    /// Files whose path is `rel` or ends with `/rel` (`rel` of one component: at the top).
    pub(super) fn ending(&self, rel: &str) -> Vec<usize> {
        self.by_tail
            .get(tail(rel))
            .map(|v| {
                v.iter()
                    .copied()
                    .filter(|&i| {
                        let p = self.paths[i];
                        p == rel || p.ends_with(rel) && p[..p.len() - rel.len()].ends_with('/')
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// The last two components of a path.
fn tail(path: &str) -> &str {
    match path.rmatch_indices('/').nth(1) {
        Some((i, _)) => &path[i + 1..],
        None => path,
    }
}
