//! The files the goal and its logs point at: paths they name, lines a traceback or a panic
//! names (with [`WINDOW`] lines around each), the files defining the failing tests they name,
//! and the modules those tests test.

use std::collections::BTreeMap;

use super::{WINDOW, locate, search};
use crate::store::Snapshot;

/// Most failing-test names looked up in one gather.
const MAX_TEST_NAMES: usize = 3;

/// A file to show: line windows (empty = whole), why, priority, order of first mention.
pub(super) type Wanted = (Vec<(u32, u32)>, &'static str, u8, usize);

/// What the goal and logs point at.
#[derive(Default)]
pub(super) struct Pointed {
    /// The files, by path.
    pub(super) files: BTreeMap<String, Wanted>,
    /// Whether a text says a dependency is missing.
    pub(super) missing_dependency: bool,
    /// Mentions so far, for the order of the next.
    order: usize,
}

/// The files `goal` and `logs` point at, the most pressing (lowest priority) and earliest
/// mentioned first, and whether a text says a dependency is missing.
pub(super) fn pointed(snap: &Snapshot<'_>, goal: &str, logs: &[(String, String)]) -> Pointed {
    let mut p = Pointed::default();
    let texts: Vec<&str> = std::iter::once(goal)
        .chain(logs.iter().map(|(_, t)| t.as_str()))
        .collect();
    p.named(snap, goal);
    for text in &texts {
        p.mentioned(snap, text);
    }
    p.failing_tests(snap, &texts);
    p.modules_under_test(snap);
    p
}

/// The one file of the tree whose path ends with `/suffix`, if exactly one does.
fn ending(snap: &Snapshot<'_>, suffix: &str) -> Option<String> {
    let tail = format!("/{suffix}");
    let mut found = snap.files().iter().filter(|(p, _)| p.ends_with(&tail));
    match (found.next(), found.next()) {
        (Some((p, _)), None) => Some(p.clone()),
        _ => None,
    }
}

impl Pointed {
    fn next(&mut self) -> usize {
        self.order += 1;
        self.order
    }

    /// Paths of the tree the goal writes, whole or by their end: whole files.
    fn named(&mut self, snap: &Snapshot<'_>, goal: &str) {
        let ending = |suffix: &str| {
            if snap.is_file(suffix) {
                return None; // a whole path: named_paths has it
            }
            ending(snap, suffix)
        };
        let mut paths = locate::named_paths(goal, &|p| snap.is_file(p));
        for path in locate::partial_paths(goal, &ending) {
            if !paths.contains(&path) {
                paths.push(path);
            }
        }
        for path in paths {
            let order = self.next();
            self.files
                .entry(path)
                .or_insert((Vec::new(), "named in the goal", 0, order));
        }
    }

    /// Files a text mentions, with windows around the lines it names (none: the whole file).
    fn mentioned(&mut self, snap: &Snapshot<'_>, text: &str) {
        self.missing_dependency |= locate::mentions_missing_dependency(text);
        for m in locate::mentions(text, &|p| snap.is_file(p), &|s| ending(snap, s)) {
            let order = self.next();
            let entry = self.files.entry(m.path.clone()).or_insert((
                Vec::new(),
                "named in a log",
                1,
                order,
            ));
            if let Some(line) = m.line {
                entry.0.push((line.saturating_sub(WINDOW), line + WINDOW));
            } else {
                entry.0.clear();
            }
        }
    }

    /// The files defining the failing tests the texts name, around each definition.
    fn failing_tests(&mut self, snap: &Snapshot<'_>, texts: &[&str]) {
        let names: Vec<String> = texts.iter().flat_map(|t| locate::test_names(t)).collect();
        for name in names.iter().take(MAX_TEST_NAMES) {
            let hits = search(snap, &locate::test_definition_pattern(name), None);
            for hit in hits.into_iter().take(2) {
                let order = self.next();
                let window = (hit.line.saturating_sub(WINDOW), hit.line + WINDOW);
                let entry = self.files.entry(hit.path).or_insert((
                    vec![window],
                    "defines a failing test",
                    1,
                    order,
                ));
                if !entry.0.is_empty() && !entry.0.contains(&window) {
                    entry.0.push(window);
                }
            }
        }
    }

    /// The module each test file among them tests, whole.
    fn modules_under_test(&mut self, snap: &Snapshot<'_>) {
        let tests: Vec<String> = self
            .files
            .keys()
            .filter(|p| p.contains("test") || p.contains("spec"))
            .cloned()
            .collect();
        if tests.is_empty() {
            return;
        }
        let files = snap.files();
        let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
        for test in tests {
            if let Some(module) = locate::under_test(&test, &paths)
                && !self.files.contains_key(&module)
            {
                let order = self.next();
                self.files
                    .insert(module, (Vec::new(), "module under test", 2, order));
            }
        }
    }

    /// The files, the most pressing and earliest mentioned first.
    pub(super) fn in_order(self) -> Vec<(String, Wanted)> {
        let mut files: Vec<(String, Wanted)> = self.files.into_iter().collect();
        files.sort_by_key(|(_, (_, _, priority, order))| (*priority, *order));
        files
    }
}
