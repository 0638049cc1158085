//! The repository map: the base tree's paths, large directories collapsed, ranked so the
//! directories of the goal's and logs' files come first, within a character budget. Cached per
//! tree id in memory for the process (a tree never changes).

use std::collections::BTreeMap;

use crate::store::Snapshot;

/// Directories with more files than this are shown as one line with a count.
const COLLAPSE_OVER: usize = 12;

/// The map text, at most `chars` characters.
pub fn repo_map(snap: &Snapshot<'_>, goal: &str, hints: &[String], chars: usize) -> String {
    if chars == 0 {
        return String::new();
    }
    let mut dirs: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (path, _) in snap.files() {
        let (dir, name) = match path.rsplit_once('/') {
            Some((d, n)) => (d.to_string(), n.to_string()),
            None => (String::new(), path.clone()),
        };
        dirs.entry(dir).or_default().push(name);
    }
    let goal = goal.to_lowercase();
    let relevance = |dir: &str| -> u8 {
        if hints
            .iter()
            .any(|h| h.rsplit_once('/').map_or("", |(d, _)| d) == dir)
        {
            0
        } else if !dir.is_empty()
            && dir
                .split('/')
                .any(|part| goal.contains(&part.to_lowercase()))
        {
            1
        } else if dir.is_empty() || !dir.contains('/') {
            2
        } else {
            3
        }
    };
    let mut ranked: Vec<(&String, &Vec<String>)> = dirs.iter().collect();
    ranked.sort_by_key(|(dir, _)| (relevance(dir), dir.matches('/').count(), (*dir).clone()));
    let mut lines = Vec::new();
    for (dir, names) in ranked {
        let shown = if dir.is_empty() { "." } else { dir.as_str() };
        let line = if names.len() > COLLAPSE_OVER && relevance(dir) > 0 {
            format!("{shown}/ ({} files)", names.len())
        } else {
            format!("{shown}/ {}", names.join(" "))
        };
        lines.push(line);
    }
    let mut out = String::new();
    for line in lines {
        if out.len() + line.len() + 1 > chars {
            let rest = "... (more directories not shown)\n";
            if out.len() + rest.len() <= chars {
                out.push_str(rest);
            }
            break;
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}
