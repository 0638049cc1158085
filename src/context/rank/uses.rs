//! How much a file uses what it imports: the times its text names a top-level definition of the
//! imported file. `schemas.ts` calling `core.$constructor` seventy times depends on `core.ts`
//! far more than on the module it imports for one type, and the second file of a fix is the one
//! the first leans on; an import line alone says neither.

use std::collections::HashMap;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

use super::super::corpus::Corpus;
use super::super::defs::{self, Kind};

/// Uses at which an import passes its largest share.
const FULL: usize = 20;
/// Bytes of an importer, or of an imported file, read.
const READ: usize = 256 * 1024;
/// Shortest name counted: shorter ones (`of`, `is`, `id`) are words, not uses.
const SHORTEST: usize = 3;
/// Most names of one imported file counted.
const MAX_NAMES: usize = 200;

/// The names each imported file defines, read once per ranking.
#[derive(Default)]
pub(super) struct Uses {
    names: HashMap<usize, Option<AhoCorasick>>,
}

impl Uses {
    /// How heavily `text` (the importer) uses `target`, from 0 (names none of its definitions,
    /// or they are unknown) to 1 ([`FULL`] mentions or more).
    pub(super) fn of(&mut self, corpus: &Corpus, text: &str, target: usize) -> f64 {
        let finder = self
            .names
            .entry(target)
            .or_insert_with(|| finder(corpus, target));
        let Some(finder) = finder else {
            return 0.0;
        };
        let bytes = text.as_bytes();
        let bytes = &bytes[..bytes.len().min(READ)];
        let found = finder
            .find_iter(bytes)
            .filter(|m| bounded(bytes, m.start(), m.end()))
            .take(FULL)
            .count();
        found as f64 / FULL as f64
    }
}

/// A matcher of the top-level names `target` defines (types, functions, macros, constants).
fn finder(corpus: &Corpus, target: usize) -> Option<AhoCorasick> {
    let path = &corpus.paths[target];
    let text = corpus.text(target);
    let text = String::from_utf8_lossy(&text[..text.len().min(READ)]);
    let lang = defs::lang(path)?;
    let mut names: Vec<String> = defs::parse(path, &text)
        .into_iter()
        .filter(|d| d.depth == 0 && !matches!(d.kind, Kind::Variable | Kind::Impl))
        .map(|d| d.name)
        .filter(|n| n.len() >= SHORTEST && !defs::is_keyword(lang, n) && !defs::is_common_word(n))
        .collect();
    names.sort();
    names.dedup();
    names.truncate(MAX_NAMES);
    if names.is_empty() {
        return None;
    }
    AhoCorasickBuilder::new()
        .match_kind(MatchKind::LeftmostLongest)
        .build(&names)
        .ok()
}

/// Whether the match at `start..end` is a whole identifier.
fn bounded(text: &[u8], start: usize, end: usize) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$';
    (start == 0 || !word(text[start - 1])) && (end == text.len() || !word(text[end]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Oid;

    #[test]
    fn an_import_named_often_is_used_more_than_one_named_once() {
        let core = "export function $constructor(name) {}\nexport class Config {}\n";
        let types = "export interface Shape {}\nexport type Of = number;\n";
        let corpus = Corpus::of_files([
            ("src/core.ts".to_string(), Oid::ZERO_SHA1, core.as_bytes()),
            ("src/types.ts".to_string(), Oid::ZERO_SHA1, types.as_bytes()),
        ]);
        let mut importer = String::from(
            "import * as core from \"./core.js\";\nimport type { Shape } from \"./types.js\";\n",
        );
        for i in 0..30 {
            importer.push_str(&format!("const s{i} = core.$constructor(\"{i}\");\n"));
        }
        importer.push_str("let x: Shape;\nlet y: Of;\n");
        let mut uses = Uses::default();
        assert_eq!(uses.of(&corpus, &importer, 0), 1.0);
        // `Shape` in the import and once after it; `Of` is too short to count.
        assert_eq!(uses.of(&corpus, &importer, 1), 2.0 / FULL as f64);
        // A name inside a longer identifier is not a use.
        assert_eq!(uses.of(&corpus, "let myConfigs = ConfigX;\n", 0), 0.0);
    }
}
