//! One step of structure: the best files pass a share of their score to the files they import
//! ([`super::imports`]), a C or C++ source to its header and back, a test file to the
//! module it tests, and a file to those that most often changed with it ([`super::cochange`]).

use std::collections::HashSet;

use super::super::corpus::Corpus;
use super::super::defs::is_source;
use super::super::locate;
use super::super::query::Query;
use super::cochange::CoChange;
use super::kinds::{demotion, is_test_path};
use super::paths::PathIndex;
use super::{IMPORT_FROM_TOP, IMPORT_SHARE, IMPORT_USED_SHARE, TESTED_SHARE};

/// One step of structure: the best files pass a share of their score to the files they import,
/// a test file to the module it tests, and each to the files that changed with it in `history`.
pub(super) fn structure(
    corpus: &Corpus,
    query: &Query,
    history: &[Vec<String>],
    score: &mut [f64],
    parts: &mut [Vec<(f64, String)>],
) {
    let mut top: Vec<usize> = (0..score.len()).filter(|&f| score[f] > 0.0).collect();
    top.sort_by(|&a, &b| score[b].total_cmp(&score[a]));
    top.truncate(IMPORT_FROM_TOP);
    let index = PathIndex::new(&corpus.paths);
    let co = CoChange::new(history, &index);
    let mut passed: Vec<(usize, f64, String)> = Vec::new();
    let mut uses = super::uses::Uses::default();
    for (place, &f) in top.iter().enumerate() {
        let path = &corpus.paths[f];
        let text = String::from_utf8_lossy(corpus.text(f));
        for target in super::imports::imports(path, &text, &index) {
            if target != f {
                let used = uses.of(corpus, &text, target);
                passed.push((
                    target,
                    score[f] * (IMPORT_SHARE + IMPORT_USED_SHARE * used),
                    format!("imported by {path}"),
                ));
            }
        }
        if place < CALLS_FROM_TOP {
            for barrel in super::barrels::of(corpus, path, f, &index) {
                let why = format!("re-exports {path}");
                passed.push((barrel, score[f] * super::barrels::SHARE, why));
            }
            for (callee, name, definers) in super::calls::callees(corpus, f) {
                let why = format!("defines {name}, called by {path}");
                passed.push((callee, score[f] * CALL_SHARE / definers as f64, why));
            }
        }
        for (partner, why) in partners(path, &index) {
            if partner != f {
                passed.push((partner, score[f] * PARTNER_SHARE, format!("{why} {path}")));
            }
        }
        if is_test_path(&path.to_lowercase())
            && let Some(module) = locate::under_test(path, &index.paths)
            && let Some(&m) = index.exact.get(module.as_str())
        {
            passed.push((m, score[f] * TESTED_SHARE, format!("tested by {path}")));
        }
    }
    // Only code passes and receives: a changelog or a test changes with everything.
    let code = |f: usize| {
        let path = &corpus.paths[f];
        is_source(path) && demotion(path, corpus.text(f), query).is_empty()
    };
    for &f in top.iter().filter(|&&f| code(f)).take(COCHANGE_FROM_TOP) {
        for p in co
            .partners(f)
            .into_iter()
            .filter(|p| code(p.file))
            .take(COCHANGE_PARTNERS)
        {
            let why = format!(
                "changes with {} ({} of {} commits)",
                corpus.paths[f], p.together, p.of
            );
            passed.push((p.file, score[f] * COCHANGE_SHARE * p.strength, why));
        }
    }
    // What a file receives is the most any one file passes it: a hub every top file imports
    // (`utils`, `typing`) is not thereby the answer.
    passed.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut received: HashSet<usize> = HashSet::new();
    for (target, share, why) in passed {
        if received.insert(target) {
            score[target] += share;
            parts[target].push((share, why));
        }
    }
}

/// Files whose calls are followed, and the share of their score passed to a callee's file.
const CALLS_FROM_TOP: usize = 3;
const CALL_SHARE: f64 = 0.3;
/// Files whose partners in the history are followed, and the share of their score passed to a
/// partner that always changed with them (less as the two changed apart more often).
const COCHANGE_FROM_TOP: usize = 5;
const COCHANGE_SHARE: f64 = 0.6;
/// Partners a file passes to, at most.
const COCHANGE_PARTNERS: usize = 3;
/// Share of a C or C++ file's score passed to its header, or a header's to its source.
const PARTNER_SHARE: f64 = 0.4;
const C_SOURCES: &[&str] = &["c", "cc", "cpp", "cxx", "m", "mm"];
const C_HEADERS: &[&str] = &["h", "hpp", "hh", "hxx"];

/// A C or C++ source's header, or a header's source: the same name beside it, else the one
/// file of that name elsewhere in the tree (`src/url.c` ↔ `include/url.h`).
fn partners(path: &str, index: &PathIndex<'_>) -> Vec<(usize, &'static str)> {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return Vec::new();
    };
    let (others, why) = if C_SOURCES.contains(&ext) {
        (C_HEADERS, "header of")
    } else if C_HEADERS.contains(&ext) {
        (C_SOURCES, "source of")
    } else {
        return Vec::new();
    };
    let beside = |e: &str| {
        let p = if dir.is_empty() {
            format!("{stem}.{e}")
        } else {
            format!("{dir}/{stem}.{e}")
        };
        index.exact.get(p.as_str()).copied()
    };
    if let Some(f) = others.iter().find_map(|e| beside(e)) {
        return vec![(f, why)];
    }
    // A documentation example or a test of the same name (`docs/examples/json_pointer.cpp`)
    // is not the header's source.
    let elsewhere: Vec<usize> = others
        .iter()
        .flat_map(|e| index.named(&format!("{stem}.{e}")))
        .filter(|&f| !super::kinds::is_secondary(index.paths[f]))
        .collect();
    match elsewhere[..] {
        [f] => vec![(f, why)],
        _ => Vec::new(),
    }
}
