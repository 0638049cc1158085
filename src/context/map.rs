//! The repository map: the top-level definitions of the files most related to the goal (the
//! best-ranked code that was not sent first), then the base tree's paths, the
//! directories of every sent and top-ranked file first and listed with their file names, large
//! directories of low rank collapsed, all within a character budget. The tree's file list is
//! cached per tree id, so on a large tree only the first map walks it.

use std::collections::{BTreeMap, HashMap};

use super::{Private, defs};
use crate::store::{Oid, Snapshot};

/// Most files whose definitions are listed.
const MAX_DEF_FILES: usize = 48;
/// Ranked files whose definitions the map lists before the others, at most.
const MAP_RANKED_DEFS: usize = 80;
/// Most names listed for a directory of a top-ranked file.
const MAX_LISTED: usize = 40;
/// Most names listed because they share a word with the goal, in any one directory.
const MAX_SHARING: usize = 60;

/// What the map is about: the files sent (whole or in part) and the tree's best-ranked files.
pub(super) struct Focus<'a> {
    pub(super) sent: &'a [String],
    pub(super) sent_whole: &'a [String],
    pub(super) ranked: &'a [String],
    /// Every ranked file, best first.
    pub(super) everything: &'a [String],
    /// What may be read (the private marks, read once per gather).
    pub(super) private: &'a Private,
}
/// Fifths of the map the definitions may take; the paths have the rest. The definitions of
/// the unsent files ranked next are what the model most often needs next (the second file of a
/// fix, the list that exports a new name), and the directories of the files sent come first in
/// what remains.
const DEFS_SHARE: usize = 4;

/// Files larger than this are not read for definitions.
const MAX_DEF_FILE: usize = 1024 * 1024;

/// Directories with more files than this are shown as one line with a count.
const COLLAPSE_OVER: usize = 12;

/// The map text, at most `chars` characters.
pub(super) fn repo_map(snap: &Snapshot<'_>, goal: &str, focus: &Focus<'_>, chars: usize) -> String {
    if chars == 0 {
        return String::new();
    }
    let files = snap.files();
    let mut out = definitions(snap, files, goal, focus, chars * DEFS_SHARE / 5);
    let mut dirs: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (path, _) in files {
        let (dir, name) = match path.rsplit_once('/') {
            Some((d, n)) => (d.to_string(), n.to_string()),
            None => (String::new(), path.to_string()),
        };
        dirs.entry(dir).or_default().push(name);
    }
    let siblings = Siblings::new(goal, focus);
    let mut ranked: Vec<(&String, &Vec<String>)> = dirs.iter().collect();
    ranked.sort_by_key(|(dir, _)| {
        (
            siblings.relevance(dir),
            dir.matches('/').count(),
            (*dir).clone(),
        )
    });
    if !out.is_empty() {
        out.push_str("\nPaths:\n");
    }
    for (dir, names) in ranked {
        let line = siblings.line(dir, names);
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

/// How a directory's files are listed: the directories of sent and top-ranked files in full
/// (a very large one cut to its best names), others collapsed to a count unless some of their
/// names share a word with the goal.
struct Siblings<'a> {
    goal: String,
    words: Vec<String>,
    /// Sent and top-ranked files.
    hints: Vec<&'a String>,
    /// Every ranked file's position in the ranking.
    positions: HashMap<&'a str, usize>,
}

impl<'a> Siblings<'a> {
    fn new(goal: &str, focus: &Focus<'a>) -> Siblings<'a> {
        Siblings {
            goal: goal.to_lowercase(),
            words: goal_words(goal)
                .into_iter()
                .filter(|w| !super::query::is_stop(w))
                .collect(),
            hints: focus.sent.iter().chain(focus.ranked).collect(),
            positions: focus
                .everything
                .iter()
                .enumerate()
                .map(|(i, p)| (p.as_str(), i))
                .collect(),
        }
    }

    /// 0: holds a sent or top-ranked file; 1: named by the goal; 2: top level; 3: the rest.
    fn relevance(&self, dir: &str) -> u8 {
        if self
            .hints
            .iter()
            .any(|h| h.rsplit_once('/').map_or("", |(d, _)| d) == dir)
        {
            0
        } else if !dir.is_empty()
            && dir
                .split('/')
                .any(|part| self.goal.contains(&part.to_lowercase()))
        {
            1
        } else if dir.is_empty() || !dir.contains('/') {
            2
        } else {
            3
        }
    }

    /// The directory's line of the map.
    fn line(&self, dir: &str, names: &[String]) -> String {
        let shown = if dir.is_empty() { "." } else { dir };
        let relevance = self.relevance(dir);
        if names.len() <= COLLAPSE_OVER || relevance == 0 && names.len() <= MAX_LISTED {
            return format!("{shown}/ {}", names.join(" "));
        }
        let cap = if relevance == 0 { MAX_LISTED } else { 0 };
        let listed = self.best(dir, names, cap);
        if listed.is_empty() {
            return format!("{shown}/ ({} files)", names.len());
        }
        let more = names.len() - listed.len();
        format!("{shown}/ {} (+{more} more)", listed.join(" "))
    }

    /// Up to `cap` names of a directory, best first: sent and top-ranked files, then names that
    /// share a word with the goal (always, up to [`MAX_SHARING`]), then the rest by their
    /// position in the ranking, then by name.
    fn best<'n>(&self, dir: &str, names: &'n [String], cap: usize) -> Vec<&'n str> {
        let path = |n: &str| {
            if dir.is_empty() {
                n.to_string()
            } else {
                format!("{dir}/{n}")
            }
        };
        let focused = |n: &str| self.hints.iter().any(|h| **h == path(n));
        let position = |n: &str| self.positions.get(path(n).as_str()).copied();
        let mut keyed: Vec<(u8, usize, &str)> = names
            .iter()
            .map(|n| {
                let group = if focused(n) {
                    0
                } else if self.shares_word(n) {
                    1
                } else {
                    2
                };
                (group, position(n).unwrap_or(usize::MAX), n.as_str())
            })
            .collect();
        keyed.sort_unstable();
        let sharing = keyed.iter().filter(|k| k.0 < 2).count().min(MAX_SHARING);
        keyed.truncate(cap.max(sharing));
        keyed.into_iter().map(|k| k.2).collect()
    }

    /// Whether a file's name shares a word with the goal, in any convention (`TaxRounding.java`,
    /// `tax_rounding.py` and `tax-rounding.ts` share `rounding`).
    fn shares_word(&self, name: &str) -> bool {
        let stem = name.split('.').next().unwrap_or(name);
        let parts = super::query::split_identifier(stem);
        parts
            .iter()
            .any(|p| self.words.iter().any(|w| same_word(w, p)))
    }
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

/// How closely a file outside the top-ranked relates to the goal and the files sent: 0, its
/// name is a goal word; 1, it is beside a file sent; 2, a goal word names its directory; 3, an
/// entry point near the top of the tree; `None`, none of these.
fn nearness(path: &str, words: &[String], sent: &[String], sent_dirs: &[&str]) -> Option<u8> {
    if !defs::is_source(path) || sent.iter().any(|h| h == path) {
        return None;
    }
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    let stem = name.split('.').next().unwrap_or(name).to_lowercase();
    let stem = stem.trim_start_matches("test_").trim_end_matches("_test");
    const ENTRY_POINTS: &[&str] = &[
        "main", "lib", "index", "app", "__init__", "mod", "server", "cli",
    ];
    if words.iter().any(|w| same_word(w, stem)) {
        Some(0)
    } else if sent_dirs.contains(&dir) {
        Some(1)
    } else if dir
        .split('/')
        .any(|part| words.iter().any(|w| *w == part.to_lowercase()))
    {
        Some(2)
    } else if dir.matches('/').count() < 2 && ENTRY_POINTS.contains(&stem) {
        Some(3)
    } else {
        None
    }
}

/// Where a file stands among those whose definitions the map may list, best first: the code
/// ranked among the first [`MAP_RANKED_DEFS`] (`position`) that was not sent, the nearest others
/// ([`nearness`]), the code sent as windows (the model sees part of it already), and last what
/// is not code a fix changes (tests, documentation, examples, vendored copies); `None`, none of
/// these.
fn def_place(
    path: &str,
    position: Option<usize>,
    words: &[String],
    focus: &Focus<'_>,
    sent_dirs: &[&str],
) -> Option<(u8, usize)> {
    let sent = focus.sent.iter().any(|s| s == path);
    let key = match position {
        Some(i) if sent => (5, i),
        Some(i) => (0, i),
        None => {
            let near = nearness(path, words, focus.sent, sent_dirs)?;
            (near + 1, path.matches('/').count())
        }
    };
    Some(if super::rank::is_secondary(path) {
        (key.0 + 6, key.1)
    } else {
        key
    })
}

/// The files whose definitions the map lists, best first ([`def_place`]); never a private one.
fn def_files<'f>(
    files: &'f [(String, Oid)],
    words: &[String],
    focus: &Focus<'_>,
) -> Vec<(&'f str, Oid)> {
    let sent_dirs: Vec<&str> = focus
        .sent
        .iter()
        .map(|h| h.rsplit_once('/').map_or("", |(d, _)| d))
        .collect();
    let positions: HashMap<&str, usize> = focus
        .everything
        .iter()
        .take(MAP_RANKED_DEFS)
        .enumerate()
        .map(|(i, p)| (p.as_str(), i))
        .collect();
    let twins = Twins::new(focus.everything);
    let mut ranked: Vec<(u8, usize, &str, Oid)> = files
        .iter()
        .filter(|(path, _)| defs::is_source(path) && !focus.sent_whole.iter().any(|w| w == path))
        .filter_map(|(path, id)| {
            let own = positions.get(path.as_str()).copied();
            let position = match (own, twins.position(path)) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            let key = def_place(path, position, words, focus, &sent_dirs)?;
            Some((key.0, key.1, path.as_str(), *id))
        })
        .collect();
    ranked.sort();
    ranked
        .into_iter()
        .filter(|r| focus.private.allows(r.2))
        .take(MAX_DEF_FILES)
        .map(|(_, _, path, id)| (path, id))
        .collect()
}

/// Files ranked among the first [`TWIN_SOURCES`] whose namesakes in a sibling directory the map
/// lists beside them: `classic/checks.ts` and `mini/checks.ts`, `unix/process.c` and
/// `win/process.c` are two variants of one part, and a fix of one often changes the other.
const TWIN_SOURCES: usize = 30;

/// The best-ranked files by name, with their directory's parent.
struct Twins<'a>(Vec<(&'a str, &'a str, &'a str, usize)>);

impl<'a> Twins<'a> {
    fn new(everything: &'a [String]) -> Twins<'a> {
        Twins(
            everything
                .iter()
                .take(TWIN_SOURCES)
                .enumerate()
                .filter_map(|(i, p)| {
                    let (dir, name) = p.rsplit_once('/')?;
                    let parent = dir.rsplit_once('/').map_or("", |(d, _)| d);
                    Some((dir, parent, name, i))
                })
                .collect(),
        )
    }

    /// The position of the best-ranked file `path` is a namesake of, in a sibling directory.
    fn position(&self, path: &str) -> Option<usize> {
        let (dir, name) = path.rsplit_once('/')?;
        let parent = dir.rsplit_once('/').map_or("", |(d, _)| d);
        self.0
            .iter()
            .find(|t| t.2 == name && t.1 == parent && t.0 != dir)
            .map(|t| t.3)
    }
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
    let chosen = def_files(files, &words, focus);
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

/// Files of the map that list the most definitions; each further group of as many lists half
/// as many, down to one: the best-ranked files keep their detail when many files share the room.
const GRADE: usize = 8;

/// The definitions section with at most `per_file` definitions a file (those naming a goal word
/// first; half as many for each [`GRADE`] files before it, at least one), and whether every file
/// fitted.
fn render_definitions(
    found: &[(&str, Vec<String>)],
    per_file: usize,
    words: &[String],
    chars: usize,
) -> (String, bool) {
    let mut out = String::new();
    for (index, (path, defs)) in found.iter().enumerate() {
        let per_file = (per_file >> (index / GRADE).min(8)).max(1);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::attributes::Attributes;

    /// The files whose definitions the map lists, of a tree of `paths` whose first `ranked`
    /// are ranked in that order, `sent` sent as windows.
    fn chosen(paths: &[&str], ranked: usize, sent: &[String]) -> Vec<String> {
        let files: Vec<(String, Oid)> = paths
            .iter()
            .map(|p| (p.to_string(), Oid::ZERO_SHA1))
            .collect();
        let private = super::super::Private(Attributes::default());
        let everything: Vec<String> = paths[..ranked].iter().map(|p| p.to_string()).collect();
        let focus = Focus {
            sent,
            sent_whole: &[],
            ranked: &everything,
            everything: &everything,
            private: &private,
        };
        def_files(&files, &[], &focus)
            .into_iter()
            .map(|(p, _)| p.to_string())
            .collect()
    }

    #[test]
    fn the_map_lists_unsent_code_before_windows_sent_and_tests() {
        let paths = [
            "src/sent.rs",
            "tests/cache_test.rs",
            "src/second.rs",
            "docs/example.rs",
            "src/beside.rs",
            "other/far.rs",
        ];
        let chosen = chosen(&paths, 4, &["src/sent.rs".to_string()]);
        // The second-ranked code file first, then the one beside the file sent, then the file
        // sent as windows, then the test and the documentation's example.
        assert_eq!(
            chosen,
            [
                "src/second.rs",
                "src/beside.rs",
                "src/sent.rs",
                "tests/cache_test.rs",
                "docs/example.rs"
            ]
        );
    }

    #[test]
    fn a_namesake_in_a_sibling_directory_is_listed_beside_its_ranked_file() {
        let paths = [
            "src/zod/classic/checks.ts",
            "src/zod/core/util.ts",
            "src/zod/core/api.ts",
            "src/zod/mini/checks.ts",
            "src/other/checks.ts",
            "lib/mini/checks.ts",
        ];
        let chosen = chosen(&paths, 3, &[]);
        // `src/other` is a sibling of `src/zod`, not of `src/zod/classic`; `lib/mini` is
        // elsewhere. Neither is a namesake of a part of the same whole.
        assert_eq!(
            &chosen[..4],
            [
                "src/zod/classic/checks.ts",
                "src/zod/mini/checks.ts",
                "src/zod/core/util.ts",
                "src/zod/core/api.ts",
            ]
        );
    }

    #[test]
    fn the_best_files_keep_more_definitions_when_many_share_the_room() {
        let defs: Vec<String> = (0..10).map(|i| format!("fn f{i}()")).collect();
        let paths: Vec<String> = (0..20).map(|i| format!("src/m{i:02}.rs")).collect();
        let found: Vec<(&str, Vec<String>)> =
            paths.iter().map(|p| (p.as_str(), defs.clone())).collect();
        let (text, all) = render_definitions(&found, 4, &[], 100_000);
        assert!(all);
        let listed = |path: &str| {
            let section = text.split(&format!("{path}\n")).nth(1).unwrap_or("");
            section
                .lines()
                .take_while(|l| l.starts_with("  fn"))
                .count()
        };
        assert_eq!(listed("src/m00.rs"), 4);
        assert_eq!(listed("src/m08.rs"), 2);
        assert_eq!(listed("src/m19.rs"), 1);
    }

    #[test]
    fn a_large_directory_lists_its_best_ranked_and_goal_sharing_names_first() {
        let mut names: Vec<String> = (0..300).map(|i| format!("rule_{i:03}.rb")).collect();
        names.extend(["tax_rounding.rb".to_string(), "zz_gold.rb".to_string()]);
        let private = super::super::Private(Attributes::default());
        let ranked = ["pkg/rule_150.rb".to_string()];
        let everything = [
            "pkg/rule_150.rb".to_string(),
            "other/x.rb".to_string(),
            "pkg/zz_gold.rb".to_string(),
        ];
        let focus = Focus {
            sent: &[],
            sent_whole: &[],
            ranked: &ranked,
            everything: &everything,
            private: &private,
        };
        let siblings = Siblings::new("Rounding of taxes is off by one cent", &focus);
        let line = siblings.line("pkg", &names);
        assert!(
            line.starts_with("pkg/ rule_150.rb tax_rounding.rb zz_gold.rb rule_000.rb "),
            "{line}"
        );
        assert!(line.ends_with(" (+262 more)"), "{line}");
        // A directory of no ranked file is a count, unless names in it share a goal word.
        let mut lib: Vec<String> = (0..50).map(|i| format!("util_{i:02}.rb")).collect();
        assert_eq!(siblings.line("lib", &lib), "lib/ (50 files)");
        lib.push("RoundingMode.rb".to_string());
        assert_eq!(
            siblings.line("lib", &lib),
            "lib/ RoundingMode.rb (+50 more)"
        );
    }
}
