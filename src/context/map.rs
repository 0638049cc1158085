//! The repository map: the top-level definitions of the files most related to the goal, then
//! the base tree's paths with large directories collapsed, ranked so the directories of the
//! goal's and logs' files come first, all within a character budget. The tree's file list is
//! cached per tree id, so on a large tree only the first map walks it.

use std::collections::BTreeMap;

use super::{Private, defs};
use crate::store::{Oid, Snapshot};

/// Most files whose definitions are listed.
const MAX_DEF_FILES: usize = 12;
/// Files larger than this are not read for definitions.
const MAX_DEF_FILE: usize = 512 * 1024;

/// Directories with more files than this are shown as one line with a count.
const COLLAPSE_OVER: usize = 12;

/// The map text, at most `chars` characters.
pub fn repo_map(snap: &Snapshot<'_>, goal: &str, hints: &[String], chars: usize) -> String {
    if chars == 0 {
        return String::new();
    }
    let files = snap.files();
    let mut out = definitions(snap, files, goal, hints, chars / 2);
    let mut dirs: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (path, _) in files {
        let (dir, name) = match path.rsplit_once('/') {
            Some((d, n)) => (d.to_string(), n.to_string()),
            None => (String::new(), path.to_string()),
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
    if !out.is_empty() {
        out.push_str("\nPaths:\n");
    }
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

/// Words of the goal that may name a file or directory.
fn goal_words(goal: &str) -> Vec<String> {
    goal.to_lowercase()
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_string)
        .collect()
}

/// Whether a goal word names a file stem or directory: equal, or one a short inflection of
/// the other (`invoices` / `invoice`, `parser` / `parse`).
fn same_word(word: &str, name: &str) -> bool {
    word == name
        || name.len() >= 4
            && word.len() >= 4
            && (word.starts_with(name) || name.starts_with(word))
            && word.len().abs_diff(name.len()) <= 2
}

/// The definitions section: source files ranked by how closely they relate to the goal and
/// the files already gathered (which the model sees whole, so they are not repeated here).
fn definitions(
    snap: &Snapshot<'_>,
    files: &[(String, Oid)],
    goal: &str,
    hints: &[String],
    chars: usize,
) -> String {
    let words = goal_words(goal);
    let hint_dirs: Vec<&str> = hints
        .iter()
        .map(|h| h.rsplit_once('/').map_or("", |(d, _)| d))
        .collect();
    let rank = |path: &str| -> Option<u8> {
        if !defs::is_source(path) || hints.iter().any(|h| h == path) {
            return None;
        }
        let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
        let stem = name.split('.').next().unwrap_or(name).to_lowercase();
        let stem = stem.trim_start_matches("test_").trim_end_matches("_test");
        if words.iter().any(|w| same_word(w, stem)) {
            Some(0)
        } else if hint_dirs.contains(&dir) {
            Some(1)
        } else if dir
            .split('/')
            .any(|part| words.iter().any(|w| *w == part.to_lowercase()))
        {
            Some(2)
        } else if dir.matches('/').count() < 2
            && [
                "main", "lib", "index", "app", "__init__", "mod", "server", "cli",
            ]
            .contains(&stem)
        {
            Some(3)
        } else {
            None
        }
    };
    let mut ranked: Vec<(u8, usize, &str, Oid)> = files
        .iter()
        .filter_map(|(path, id)| Some((rank(path)?, path.matches('/').count(), path.as_str(), *id)))
        .collect();
    ranked.sort();
    let private = Private::of(snap);
    let chosen: Vec<(&str, Oid)> = ranked
        .into_iter()
        .filter(|r| private.allows(r.2))
        .take(MAX_DEF_FILES)
        .map(|(_, _, path, id)| (path, id))
        .collect();
    let ids: Vec<Oid> = chosen.iter().map(|(_, id)| *id).collect();
    let texts = snap.map_blobs(&ids, |_, bytes| {
        (bytes.len() <= MAX_DEF_FILE)
            .then(|| std::str::from_utf8(bytes).ok().map(str::to_string))
            .flatten()
    });
    let mut out = String::new();
    for (index, text) in texts {
        let path = chosen[index].0;
        let found = defs::definitions(path, &text);
        if found.is_empty() {
            continue;
        }
        let mut section = format!("{path}\n");
        for def in found {
            section.push_str(&format!("  {}\n", super::mask_secrets(&def)));
        }
        let header = if out.is_empty() { "Definitions:\n" } else { "" };
        if out.len() + header.len() + section.len() > chars {
            break;
        }
        out.push_str(header);
        out.push_str(&section);
    }
    out
}
