//! The repository map: the top-level definitions of the files most related to the goal (the
//! best-ranked files that were not sent whole first), then the base tree's paths, the
//! directories of every sent and top-ranked file first and listed with their file names, large
//! directories of low rank collapsed, all within a character budget. The tree's file list is
//! cached per tree id, so on a large tree only the first map walks it.

use std::collections::BTreeMap;

use super::{Private, defs};
use crate::store::{Oid, Snapshot};

/// Most files whose definitions are listed.
const MAX_DEF_FILES: usize = 24;
/// Most names listed for a directory of a top-ranked file.
const MAX_LISTED: usize = 40;

/// What the map is about: the files sent (whole or in part) and the tree's best-ranked files.
pub(super) struct Focus<'a> {
    pub(super) sent: &'a [String],
    pub(super) sent_whole: &'a [String],
    pub(super) ranked: &'a [String],
    /// What may be read (the private marks, read once per gather).
    pub(super) private: &'a Private,
}
/// Files larger than this are not read for definitions.
const MAX_DEF_FILE: usize = 512 * 1024;

/// Directories with more files than this are shown as one line with a count.
const COLLAPSE_OVER: usize = 12;

/// The map text, at most `chars` characters.
pub(super) fn repo_map(snap: &Snapshot<'_>, goal: &str, focus: &Focus<'_>, chars: usize) -> String {
    if chars == 0 {
        return String::new();
    }
    let files = snap.files();
    let mut out = definitions(snap, files, goal, focus, chars * 3 / 5);
    let hints: Vec<&String> = focus.sent.iter().chain(focus.ranked).collect();
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
        } else if names.len() > MAX_LISTED {
            // The focused files of a large directory first, then others up to the cap.
            let in_focus =
                |n: &String| hints.iter().any(|h| **h == format!("{dir}/{n}") || *h == n);
            let mut listed: Vec<&String> = names.iter().filter(|n| in_focus(n)).collect();
            listed.extend(
                names
                    .iter()
                    .filter(|n| !in_focus(n))
                    .take(MAX_LISTED.saturating_sub(listed.len())),
            );
            let listed: Vec<&str> = listed.iter().map(|n| n.as_str()).collect();
            format!(
                "{shown}/ {} (+{} more)",
                listed.join(" "),
                names.len() - listed.len()
            )
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
    focus: &Focus<'_>,
    chars: usize,
) -> String {
    let words = goal_words(goal);
    let hints = focus.sent;
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
    let top = |path: &str| focus.ranked.iter().position(|r| r == path);
    let mut ranked: Vec<(u8, usize, usize, &str, Oid)> = files
        .iter()
        .filter(|(path, _)| defs::is_source(path) && !focus.sent_whole.iter().any(|w| w == path))
        .filter_map(|(path, id)| {
            let key = match top(path) {
                Some(i) => (0, i),
                None => (rank(path)? + 1, path.matches('/').count()),
            };
            Some((key.0, key.1, 0, path.as_str(), *id))
        })
        .collect();
    ranked.sort();
    let private = focus.private;
    let chosen: Vec<(&str, Oid)> = ranked
        .into_iter()
        .filter(|r| private.allows(r.3))
        .take(MAX_DEF_FILES)
        .map(|(_, _, _, path, id)| (path, id))
        .collect();
    let ids: Vec<Oid> = chosen.iter().map(|(_, id)| *id).collect();
    let texts = snap.map_blobs(&ids, |_, bytes| {
        (bytes.len() <= MAX_DEF_FILE)
            .then(|| std::str::from_utf8(bytes).ok().map(str::to_string))
            .flatten()
    });
    let found: Vec<(&str, Vec<String>)> = texts
        .into_iter()
        .map(|(index, text)| (chosen[index].0, defs::definitions(chosen[index].0, &text)))
        .filter(|(_, d)| !d.is_empty())
        .collect();
    // As many files as fit, with as many of their definitions as leave room for the others.
    let mut best = String::new();
    for per_file in [defs::MAX_DEFS, 12, 8, 5, 3, 2, 1] {
        let (text, all) = render_definitions(&found, per_file, &words, chars);
        best = text;
        if all {
            break;
        }
    }
    best
}

/// The definitions section with at most `per_file` definitions a file (those naming a goal word
/// first), and whether every file fitted.
fn render_definitions(
    found: &[(&str, Vec<String>)],
    per_file: usize,
    words: &[String],
    chars: usize,
) -> (String, bool) {
    let mut out = String::new();
    for (path, defs) in found {
        let relevant = |d: &String| {
            let d = d.to_lowercase();
            words.iter().any(|w| d.contains(w.as_str()))
        };
        let mut keep: Vec<usize> = (0..defs.len()).filter(|&i| relevant(&defs[i])).collect();
        keep.extend((0..defs.len()).filter(|&i| !relevant(&defs[i])));
        keep.truncate(per_file);
        keep.sort_unstable();
        let mut section = format!("{path}\n");
        for &i in &keep {
            section.push_str(&format!("  {}\n", super::mask_secrets(&defs[i])));
        }
        if keep.len() < defs.len() {
            section.push_str(&format!("  … {} more\n", defs.len() - keep.len()));
        }
        let header = if out.is_empty() { "Definitions:\n" } else { "" };
        if out.len() + header.len() + section.len() > chars {
            return (out, false);
        }
        out.push_str(header);
        out.push_str(&section);
    }
    (out, true)
}
