//! Ranking every readable file of the base tree against the goal, one score per file.
//!
//! The score adds up independent evidence, each part with its reason:
//! - **lexical**: BM25 of the file's text against the goal's terms, where a term matches a
//!   word or a part of an identifier in any convention (`hook` matches `registerHook`,
//!   `register_hook`, `HOOKS`) and in any of its inflections;
//! - **the path**: goal terms in the file's name and directories (`cookies` → `cookies.py`),
//!   and dotted module paths (`sympy.polys.polyoptions` → `sympy/polys/polyoptions.py`);
//! - **definitions**: the file defines a name the goal uses (`def register_hook`,
//!   `class URLField`, `func (c *Command) Execute`), worth more the fewer files define it;
//! - **messages**: the file contains a string the goal quotes or an error message of its logs;
//! - **structure**: one step along the import graph from the best files, and from a test file
//!   to the module it tests.
//!
//! Vendored, generated and fixture files rank far lower unless the goal names their directory;
//! tests and documentation somewhat lower. Everything is read from the tree's [`Corpus`], which
//! is cached per tree id, so ranking costs one scan of text already in memory.

use std::collections::{HashMap, HashSet};

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

use super::corpus::Corpus;
use super::locate;
use super::query::{ENDINGS, Query, split_identifier, stem};

/// BM25's term-frequency saturation and length normalisation.
const K1: f64 = 1.2;
const B: f64 = 0.75;
/// How much a goal term in the path counts, against one in the text.
const PATH_K: f64 = 1.6;
/// A definition of a name the goal writes as code, and of a plain word of the goal.
const DEF_CODE_K: f64 = 3.0;
const DEF_WORD_K: f64 = 0.8;
/// A quoted string or message found in the file.
const PHRASE_K: f64 = 30.0;
/// A dotted module path that names the file.
const DOTTED_K: f64 = 14.0;
/// Share of a file's score passed to the files it imports, and from a test to its module.
const IMPORT_SHARE: f64 = 0.2;
const TESTED_SHARE: f64 = 0.5;
/// Files whose imports are followed.
const IMPORT_FROM_TOP: usize = 10;
/// Most occurrences of one term counted per file.
const MAX_TF: u16 = 1000;

/// One ranked file.
#[derive(Debug, Clone)]
pub struct Ranked {
    /// Its index in the corpus.
    pub file: usize,
    pub path: String,
    pub score: f64,
    /// Why, strongest first (`defines register_hook`, `bm25 #2`, …).
    pub reasons: Vec<String>,
}

/// The tree ranked against a query: files with a positive score, best first.
pub struct Ranking {
    pub files: Vec<Ranked>,
    /// How rare each query term is in the corpus (BM25's idf), for weighting anchors.
    pub idf: Vec<f64>,
}

/// Where a goal term occurs in one file: the line (1-based) and how much it matters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Anchor {
    pub line: u32,
    pub weight: f64,
    /// A definition of a name the goal uses (the window should cover its body).
    pub definition: bool,
}

/// A compiled query: the goal's terms as one automaton over the corpus.
pub struct Matcher<'q> {
    query: &'q Query,
    ac: Option<AhoCorasick>,
    /// For each pattern: the term, and whether it is the term's stem and/or its exact name.
    patterns: Vec<(usize, bool, bool)>,
}

/// One occurrence of a term.
#[derive(Debug, Clone, Copy)]
struct Occurrence {
    term: usize,
    start: usize,
    /// It matched as a word or identifier part (the stem, with an ending).
    word: bool,
    /// It is the whole name, written where it is defined.
    definition: bool,
}

impl<'q> Matcher<'q> {
    pub fn new(query: &'q Query) -> Matcher<'q> {
        let mut texts: Vec<String> = Vec::new();
        let mut patterns: Vec<(usize, bool, bool)> = Vec::new();
        let mut add = |text: &str, term: usize, is_stem: bool, is_name: bool| {
            if !text.is_ascii() || text.len() < 2 {
                return;
            }
            match texts.iter().position(|t| t == text) {
                Some(i) if patterns[i].0 == term => {
                    patterns[i].1 |= is_stem;
                    patterns[i].2 |= is_name;
                }
                Some(_) => {}
                None => {
                    texts.push(text.to_string());
                    patterns.push((term, is_stem, is_name));
                }
            }
        };
        for (i, t) in query.terms.iter().enumerate() {
            add(&t.text, i, true, false);
            if let Some(name) = &t.name {
                add(name, i, false, true);
            }
        }
        let ac = (!texts.is_empty())
            .then(|| {
                AhoCorasickBuilder::new()
                    .ascii_case_insensitive(true)
                    .match_kind(MatchKind::Standard)
                    .build(&texts)
                    .ok()
            })
            .flatten();
        Matcher {
            query,
            ac,
            patterns,
        }
    }

    /// Every occurrence of a term in `data[range]`, in order.
    fn scan(&self, data: &[u8], range: std::ops::Range<usize>, mut each: impl FnMut(Occurrence)) {
        let Some(ac) = &self.ac else { return };
        let input = aho_corasick::Input::new(data).span(range.clone());
        for m in ac.find_overlapping_iter(input) {
            let (term, is_stem, is_name) = self.patterns[m.pattern().as_usize()];
            let (s, e) = (m.start(), m.end());
            let word = is_stem && left_ok(data, s, range.start) && stem_end(data, e, range.end);
            let definition = is_name
                && (s == range.start || !is_word(data[s - 1]))
                && (e == range.end || !is_word(data[e]))
                && is_definition(data, s, e, range.start, range.end);
            if word || definition {
                each(Occurrence {
                    term,
                    start: s,
                    word: word || (is_name && !is_stem),
                    definition,
                });
            }
        }
    }

    /// The places in file `file` worth showing: definitions of the goal's names, its quoted
    /// strings, and its terms, weighted by how rare each term is in the tree.
    pub fn anchors(&self, corpus: &Corpus, file: usize, idf: &[f64]) -> Vec<Anchor> {
        let (start, end) = (corpus.starts[file], corpus.starts[file + 1]);
        let data = &corpus.data;
        let mut offsets: Vec<(usize, f64, bool)> = Vec::new();
        self.scan(data, start..end, |o| {
            let t = &self.query.terms[o.term];
            let weight = t.weight * idf.get(o.term).copied().unwrap_or(1.0);
            if o.definition {
                let k = if t.code { 10.0 } else { 3.0 };
                offsets.push((o.start, weight * k, true));
            } else if o.word {
                offsets.push((o.start, weight, false));
            }
        });
        let text = &data[start..end];
        for (phrase, weight) in &self.query.phrases {
            for at in memchr::memmem::find_iter(text, phrase.as_bytes()) {
                offsets.push((start + at, 40.0 * weight, false));
            }
        }
        offsets.sort_by_key(|o| o.0);
        let mut anchors = Vec::with_capacity(offsets.len());
        let (mut line, mut at) = (1u32, start);
        for (offset, weight, definition) in offsets {
            line += memchr::memchr_iter(b'\n', &data[at..offset]).count() as u32;
            at = offset;
            anchors.push(Anchor {
                line,
                weight,
                definition,
            });
        }
        anchors
    }
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether a term may start at `s`: after a non-alphanumeric byte, or at a case change
/// (`registerHook`, `HTTPAdapter`).
fn left_ok(data: &[u8], s: usize, lo: usize) -> bool {
    if s == lo {
        return true;
    }
    let (p, c) = (data[s - 1], data[s]);
    !p.is_ascii_alphanumeric()
        || (p.is_ascii_lowercase() || p.is_ascii_digit()) && c.is_ascii_uppercase()
        || p.is_ascii_uppercase()
            && c.is_ascii_uppercase()
            && data.get(s + 1).is_some_and(u8::is_ascii_lowercase)
}

/// Whether a word or identifier part ends at `k`.
fn right_ok(data: &[u8], k: usize, hi: usize) -> bool {
    if k >= hi {
        return true;
    }
    let (p, c) = (data[k - 1], data[k]);
    !c.is_ascii_alphanumeric()
        || p.is_ascii_lowercase() && c.is_ascii_uppercase()
        || p.is_ascii_uppercase()
            && c.is_ascii_uppercase()
            && k + 1 < hi
            && data[k + 1].is_ascii_lowercase()
}

/// Whether a stem matched up to `e` ends a word there, or after one of its endings
/// (`cook` + `ies`).
fn stem_end(data: &[u8], e: usize, hi: usize) -> bool {
    if right_ok(data, e, hi) {
        return true;
    }
    let upper = data[e - 1].is_ascii_uppercase();
    let mut k = e;
    while k < hi
        && k - e <= 4
        && data[k].is_ascii_alphabetic()
        && data[k].is_ascii_uppercase() == upper
    {
        k += 1;
    }
    if k == e || k - e > 4 {
        return false;
    }
    let ending = data[e..k].to_ascii_lowercase();
    ENDINGS.iter().any(|x| x.as_bytes() == ending.as_slice()) && right_ok(data, k, hi)
}

/// Words after which a name is being defined.
const DEF_WORDS: &[&str] = &[
    "def",
    "class",
    "fn",
    "func",
    "function",
    "function*",
    "struct",
    "enum",
    "trait",
    "interface",
    "type",
    "const",
    "let",
    "var",
    "val",
    "mod",
    "module",
    "object",
    "macro_rules!",
    "typedef",
    "union",
    "namespace",
    "record",
    "protocol",
    "defn",
    "sub",
    "static",
];

/// Whether the name at `s..e` is being defined on its line: after a defining word, as a Go
/// method, assigned at the top level, or as a class method (`name(…) {`).
fn is_definition(data: &[u8], s: usize, e: usize, lo: usize, hi: usize) -> bool {
    let line_start = memchr::memrchr(b'\n', &data[lo..s]).map_or(lo, |i| lo + i + 1);
    let line_end = memchr::memchr(b'\n', &data[e..hi]).map_or(hi, |i| e + i);
    let Ok(prefix) = std::str::from_utf8(&data[line_start..s]) else {
        return false;
    };
    let after = std::str::from_utf8(&data[e..line_end.min(e + 200)]).unwrap_or("");
    let before = prefix.trim();
    if let Some(last) = before.split_whitespace().last()
        && DEF_WORDS.contains(&last)
    {
        return true;
    }
    if before.starts_with("func (") && before.ends_with(')') {
        return true;
    }
    let after = after.trim_start();
    let assigns = after.starts_with('=') && !after.starts_with("==")
        || after.starts_with(':') && after.contains('=') && !after.starts_with("::");
    if before.is_empty() {
        return assigns && prefix.is_empty()
            || after.starts_with('(') && after.trim_end().ends_with('{') && !prefix.is_empty();
    }
    if (before.ends_with("exports.") || before.ends_with(".prototype.") || before == "this.")
        && assigns
    {
        return true;
    }
    // Class members with modifiers (`public static Foo bar(…) {`, `async name(…) {`).
    let modifiers = [
        "public",
        "private",
        "protected",
        "static",
        "async",
        "override",
        "export",
    ];
    before
        .split_whitespace()
        .next()
        .is_some_and(|w| modifiers.contains(&w))
        && after.starts_with('(')
}

/// Why a path ranks low unless the goal names its directory.
fn demotion(path: &str, words: &[String]) -> Option<(f64, &'static str)> {
    let lower = path.to_lowercase();
    let parts: Vec<&str> = lower.split('/').collect();
    let (dirs, name) = parts.split_at(parts.len() - 1);
    let name = name[0];
    let named = |dir: &str| words.iter().any(|w| w == dir);
    const VENDORED: &[&str] = &[
        "vendor",
        "vendored",
        "_vendor",
        "third_party",
        "thirdparty",
        "third-party",
        "node_modules",
        "bower_components",
        "external",
        "site-packages",
    ];
    const FIXTURES: &[&str] = &[
        "fixtures",
        "fixture",
        "testdata",
        "test_data",
        "__snapshots__",
        "snapshots",
    ];
    const GENERATED: &[&str] = &["dist", "build", "generated", "_build", "target", "out"];
    for dir in dirs {
        if VENDORED.contains(dir) && !named(dir) {
            return Some((0.05, "vendored"));
        }
        if FIXTURES.contains(dir) && !named(dir) {
            return Some((0.1, "fixture"));
        }
        if GENERATED.contains(dir) && !named(dir) {
            return Some((0.1, "generated"));
        }
    }
    let generated_name = name.ends_with(".min.js")
        || name.ends_with(".min.css")
        || name.ends_with(".map")
        || name.ends_with(".svg")
        || name.ends_with("_pb2.py")
        || name.ends_with(".pb.go")
        || name.contains(".generated.")
        || name.ends_with(".lock")
        || name.ends_with("-lock.json")
        || name.ends_with(".lock.json")
        || name == "go.sum";
    if generated_name {
        return Some((0.1, "generated"));
    }
    let stem = name.split('.').next().unwrap_or(name);
    let changelog_dir = [
        "whatsnew",
        "fragments",
        "newsfragments",
        "changelog.d",
        "changes",
    ];
    if ["changes", "changelog", "history", "news", "authors"].contains(&stem)
        || dirs.iter().any(|d| changelog_dir.contains(d))
    {
        return Some((0.3, "changelog"));
    }
    if dirs.first() == Some(&".github") || dirs.first() == Some(&".circleci") {
        return Some((0.3, "ci configuration"));
    }
    let code = super::defs::is_source(name)
        || [
            "java", "rb", "c", "h", "cc", "cpp", "hpp", "cs", "kt", "swift", "php", "scala",
        ]
        .contains(&name.rsplit_once('.').map_or("", |(_, e)| e));
    if is_test_path(&lower) {
        return Some(if code {
            (0.5, "test")
        } else {
            (0.25, "test data")
        });
    }
    if stem.contains("mock") || dirs.iter().any(|d| d.contains("mock")) {
        return Some((0.5, "mock"));
    }
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    if ["po", "pot", "mo"].contains(&ext)
        || dirs
            .iter()
            .any(|d| ["locale", "locales", "translations"].contains(d))
    {
        return Some((0.1, "translation"));
    }
    if ["md", "rst", "txt", "adoc"].contains(&ext)
        || dirs
            .iter()
            .any(|d| ["doc", "docs", "documentation"].contains(d))
    {
        return Some((0.5, "documentation"));
    }
    if !code && !ext.is_empty() && !TEXT_KINDS.contains(&ext) {
        return Some((0.5, "data"));
    }
    None
}

/// Extensions of text that is code or configuration, besides the languages [`super::defs`]
/// reads: anything else with an extension (`.sty`, `.csv`, `.svg`) counts as data.
const TEXT_KINDS: &[&str] = &[
    "sh", "bash", "zsh", "fish", "ps1", "pl", "pm", "lua", "r", "jl", "ex", "exs", "erl", "hs",
    "ml", "mli", "clj", "dart", "vue", "svelte", "sql", "toml", "yaml", "yml", "json", "cfg",
    "ini", "conf", "html", "htm", "css", "scss", "less", "jinja", "j2", "tmpl", "tpl", "mk",
    "cmake", "gradle", "proto", "graphql", "xml", "m", "mm", "pyx", "pxd", "zig", "nim", "v", "sv",
    "vhd", "tf", "nix", "el", "vim",
];

/// Whether a (lowercase) path is a test file.
pub fn is_test_path(lower: &str) -> bool {
    let (dirs, name) = lower.rsplit_once('/').unwrap_or(("", lower));
    dirs.split('/').any(|d| {
        [
            "test",
            "tests",
            "testing",
            "__tests__",
            "spec",
            "specs",
            "e2e",
        ]
        .contains(&d)
    }) || name.starts_with("test_")
        || name.contains("_test.")
        || name.contains(".test.")
        || name.contains(".spec.")
        || name == "conftest.py"
}

/// A path's words: the parts of each directory and of the file's name (without extension),
/// with how much each counts (the name more than directories).
fn path_words(path: &str) -> Vec<(String, f64)> {
    let parts: Vec<&str> = path.split('/').collect();
    let mut out = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let part = if last {
            part.rsplit_once('.').map_or(*part, |(s, _)| s)
        } else {
            part
        };
        let weight = if last { 1.0 } else { 0.5 };
        out.push((part.to_lowercase(), weight));
        let split = split_identifier(part);
        if split.len() > 1 {
            out.extend(split.into_iter().map(|w| (w, weight * 0.8)));
        }
    }
    out
}

/// The term a path word matches: itself, or its stem.
fn term_of(word: &str, terms: &HashMap<&str, usize>) -> Option<usize> {
    terms.get(word).or_else(|| terms.get(stem(word))).copied()
}

/// Ranks the corpus against the query. `allowed` filters paths that may be read.
pub fn rank(corpus: &Corpus, query: &Query, allowed: &dyn Fn(&str) -> bool) -> Ranking {
    let n = corpus.len();
    let t = query.terms.len();
    if n == 0 {
        return Ranking {
            files: Vec::new(),
            idf: Vec::new(),
        };
    }
    let matcher = Matcher::new(query);
    let data = &corpus.data;
    // Term frequencies, files × terms.
    let mut tf = vec![0u16; n * t.max(1)];
    let mut defs: Vec<HashSet<usize>> = vec![HashSet::new(); t];
    let mut file = 0usize;
    matcher.scan(data, 0..data.len(), |o| {
        while corpus.starts[file + 1] <= o.start {
            file += 1;
        }
        if o.word {
            let cell = &mut tf[file * t + o.term];
            *cell = (*cell + 1).min(MAX_TF);
        }
        if o.definition {
            defs[o.term].insert(file);
        }
    });
    let mut df = vec![0usize; t];
    for f in 0..n {
        for (j, d) in df.iter_mut().enumerate() {
            if tf[f * t + j] > 0 {
                *d += 1;
            }
        }
    }
    let idf: Vec<f64> = df
        .iter()
        .map(|&d| (1.0 + (n as f64 - d as f64 + 0.5) / (d as f64 + 0.5)).ln())
        .collect();
    let avg_len = (data.len() as f64 / n as f64).max(1.0);
    let mut parts: Vec<Vec<(f64, String)>> = vec![Vec::new(); n];
    let mut lexical = vec![0.0f64; n];
    for f in 0..n {
        let len = (corpus.starts[f + 1] - corpus.starts[f]) as f64;
        let norm = K1 * (1.0 - B + B * len / avg_len);
        for (j, term) in query.terms.iter().enumerate() {
            let x = f64::from(tf[f * t + j]);
            if x > 0.0 {
                lexical[f] += term.weight * idf[j] * x * (K1 + 1.0) / (x + norm);
            }
        }
    }
    // BM25 positions, for the reasons.
    let mut by_lexical: Vec<usize> = (0..n).filter(|&f| lexical[f] > 0.0).collect();
    by_lexical.sort_by(|&a, &b| lexical[b].total_cmp(&lexical[a]));
    for (position, &f) in by_lexical.iter().enumerate() {
        parts[f].push((lexical[f], format!("bm25 #{}", position + 1)));
    }
    // Paths.
    let term_index: HashMap<&str, usize> = query
        .terms
        .iter()
        .enumerate()
        .map(|(i, t)| (t.text.as_str(), i))
        .collect();
    let mut path_hits: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
    let mut path_df = vec![0usize; t];
    for (f, path) in corpus.paths.iter().enumerate() {
        for (word, weight) in path_words(path) {
            if let Some(j) = term_of(&word, &term_index) {
                match path_hits[f].iter_mut().find(|h| h.0 == j) {
                    Some(h) => h.1 = h.1.max(weight),
                    None => {
                        path_hits[f].push((j, weight));
                        path_df[j] += 1;
                    }
                }
            }
        }
    }
    for (f, hits) in path_hits.iter().enumerate() {
        let mut score = 0.0;
        let mut best: Option<(f64, usize)> = None;
        for &(j, weight) in hits {
            let idf = (1.0 + n as f64 / path_df[j] as f64).ln();
            let s = PATH_K * query.terms[j].weight * idf * weight;
            score += s;
            if best.is_none_or(|b| s > b.0) {
                best = Some((s, j));
            }
        }
        if let Some((_, j)) = best {
            parts[f].push((score, format!("path matches {}", query.terms[j].text)));
        }
    }
    // Dotted module paths.
    for dotted in &query.dotted {
        let wanted = dotted.to_lowercase();
        let shorter = wanted.rsplit_once('/').map(|(a, _)| a.to_string());
        for (f, path) in corpus.paths.iter().enumerate() {
            let lower = path.to_lowercase();
            let bare = lower.rsplit_once('.').map_or(lower.as_str(), |(s, _)| s);
            let names = |w: &str| {
                let under = |p: &str| p == w || p.ends_with(&format!("/{w}"));
                under(bare)
                    || ["__init__", "mod", "index"].iter().any(|i| {
                        bare.strip_suffix(i)
                            .and_then(|b| b.strip_suffix('/'))
                            .is_some_and(under)
                    })
            };
            let depth = wanted.matches('/').count() as f64 + 1.0;
            if names(&wanted) {
                parts[f].push((
                    DOTTED_K * depth,
                    format!("module {}", dotted.replace('/', ".")),
                ));
            } else if let Some(short) = &shorter
                && names(short)
            {
                parts[f].push((
                    DOTTED_K * 0.5 * (depth - 1.0).max(1.0),
                    format!("module {}", short.replace('/', ".")),
                ));
            }
        }
    }
    // Definitions.
    for (j, files) in defs.iter().enumerate() {
        if files.is_empty() {
            continue;
        }
        let term = &query.terms[j];
        let k = if term.code { DEF_CODE_K } else { DEF_WORD_K };
        let rarity = (1.0 + n as f64 / files.len() as f64).ln();
        let name = term.name.as_deref().unwrap_or(&term.text);
        for &f in files {
            parts[f].push((term.weight * k * rarity, format!("defines {name}")));
        }
    }
    // Quoted strings and messages.
    for (phrase, weight) in &query.phrases {
        let found = phrase_files(corpus, phrase);
        if found.is_empty() {
            continue;
        }
        let share = weight * PHRASE_K / (found.len() as f64).sqrt();
        let shown: String = phrase.chars().take(40).collect();
        for f in found {
            parts[f].push((share, format!("contains \"{shown}\"")));
        }
    }
    let mut score: Vec<f64> = parts
        .iter()
        .map(|p| p.iter().map(|(s, _)| s).sum())
        .collect();
    // Coordination: a file that matches more of the goal's terms (in its text or its path)
    // is worth more than one that matches a single term many times.
    let present: f64 = (0..t)
        .filter(|&j| df[j] > 0 || path_df[j] > 0)
        .map(|j| query.terms[j].weight)
        .sum();
    if present > 0.0 {
        for f in 0..n {
            let matched: f64 = (0..t)
                .filter(|&j| tf[f * t + j] > 0 || path_hits[f].iter().any(|h| h.0 == j))
                .map(|j| query.terms[j].weight)
                .sum();
            score[f] *= (matched / present).sqrt().max(0.2);
        }
    }
    for (f, path) in corpus.paths.iter().enumerate() {
        if score[f] > 0.0
            && let Some((factor, why)) = demotion(path, &query.words)
        {
            score[f] *= factor;
            parts[f].push((0.0, why.to_string()));
        }
    }
    structure(corpus, &mut score, &mut parts);
    let mut files: Vec<Ranked> = (0..n)
        .filter(|&f| score[f] > 0.0 && allowed(&corpus.paths[f]))
        .map(|f| {
            let mut reasons = std::mem::take(&mut parts[f]);
            reasons.sort_by(|a, b| b.0.total_cmp(&a.0));
            Ranked {
                file: f,
                path: corpus.paths[f].clone(),
                score: score[f],
                reasons: reasons.into_iter().map(|(_, r)| r).take(4).collect(),
            }
        })
        .collect();
    files.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.path.cmp(&b.path)));
    Ranking { files, idf }
}

/// Files containing `phrase`: exactly, else ignoring case, else its longest plain fragment
/// (a message written with a placeholder: `Invalid value %r for` → `Invalid value`).
fn phrase_files(corpus: &Corpus, phrase: &str) -> Vec<usize> {
    let files_of = |needle: &[u8], fold: bool| -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        let mut push = |at: usize| {
            let f = corpus.file_at(at);
            if out.last() != Some(&f) {
                out.push(f);
            }
        };
        if fold {
            if let Ok(ac) = AhoCorasickBuilder::new()
                .ascii_case_insensitive(true)
                .build([needle])
            {
                for m in ac.find_iter(&corpus.data) {
                    push(m.start());
                }
            }
        } else {
            for at in memchr::memmem::find_iter(&corpus.data, needle) {
                push(at);
            }
        }
        out
    };
    let found = files_of(phrase.as_bytes(), false);
    if !found.is_empty() {
        return found;
    }
    let found = files_of(phrase.as_bytes(), true);
    if !found.is_empty() {
        return found;
    }
    let fragment = phrase
        .split(|c: char| !(c.is_alphabetic() || c == ' ' || c == '-' || c == ','))
        .map(str::trim)
        .filter(|f| f.split_whitespace().count() >= 2 && f.len() >= 10)
        .max_by_key(|f| f.len());
    match fragment {
        Some(f) if f != phrase => files_of(f.as_bytes(), true),
        _ => Vec::new(),
    }
}

/// One step of structure: the best files pass a share of their score to the files they import,
/// and a test file to the module it tests.
fn structure(corpus: &Corpus, score: &mut [f64], parts: &mut [Vec<(f64, String)>]) {
    let mut top: Vec<usize> = (0..score.len()).filter(|&f| score[f] > 0.0).collect();
    top.sort_by(|&a, &b| score[b].total_cmp(&score[a]));
    top.truncate(IMPORT_FROM_TOP);
    let index = PathIndex::new(&corpus.paths);
    let mut passed: Vec<(usize, f64, String)> = Vec::new();
    for &f in &top {
        let path = &corpus.paths[f];
        let text = String::from_utf8_lossy(corpus.text(f));
        for target in imports(path, &text, &index) {
            if target != f {
                passed.push((
                    target,
                    score[f] * IMPORT_SHARE,
                    format!("imported by {path}"),
                ));
            }
        }
        if is_test_path(&path.to_lowercase())
            && let Some(module) = locate::under_test(path, &index.paths)
            && let Some(&m) = index.exact.get(module.as_str())
        {
            passed.push((m, score[f] * TESTED_SHARE, format!("tested by {path}")));
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

/// Paths, looked up exactly or by their last two components.
struct PathIndex<'c> {
    paths: Vec<&'c str>,
    exact: HashMap<&'c str, usize>,
    by_tail: HashMap<&'c str, Vec<usize>>,
}

impl<'c> PathIndex<'c> {
    fn new(paths: &'c [String]) -> PathIndex<'c> {
        let mut index = PathIndex {
            paths: paths.iter().map(String::as_str).collect(),
            exact: HashMap::new(),
            by_tail: HashMap::new(),
        };
        for (i, p) in paths.iter().enumerate() {
            index.exact.insert(p, i);
            index.by_tail.entry(tail(p)).or_default().push(i);
        }
        index
    }

    /// Files whose path is `rel` or ends with `/rel`.
    fn ending(&self, rel: &str) -> Vec<usize> {
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

/// The files of the tree a source file imports (Python, JavaScript/TypeScript, Rust).
fn imports(path: &str, text: &str, index: &PathIndex<'_>) -> Vec<usize> {
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    let mut out: Vec<usize> = Vec::new();
    let mut add = |found: Vec<usize>| {
        for f in found.into_iter().take(2) {
            if !out.contains(&f) {
                out.push(f);
            }
        }
    };
    for line in text.lines().take(400) {
        let line = line.trim();
        match ext {
            "py" => {
                let module = if let Some(rest) = line.strip_prefix("from ") {
                    rest.split_whitespace().next()
                } else if let Some(rest) = line.strip_prefix("import ") {
                    rest.split([' ', ',']).next()
                } else {
                    None
                };
                let Some(module) = module else { continue };
                let dots = module.len() - module.trim_start_matches('.').len();
                let name = module.trim_start_matches('.').replace('.', "/");
                let rel = if dots > 0 {
                    let mut base: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
                    for _ in 1..dots {
                        base.pop();
                    }
                    let base = base.join("/");
                    if name.is_empty() {
                        continue;
                    }
                    if base.is_empty() {
                        name
                    } else {
                        format!("{base}/{name}")
                    }
                } else {
                    name
                };
                if rel.is_empty() {
                    continue;
                }
                let mut found = index.ending(&format!("{rel}.py"));
                if found.is_empty() {
                    found = index.ending(&format!("{rel}/__init__.py"));
                }
                add(found);
            }
            "js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" => {
                for quote in ['\'', '"'] {
                    let Some(spec) = line
                        .split(quote)
                        .nth(1)
                        .filter(|s| s.starts_with("./") || s.starts_with("../"))
                    else {
                        continue;
                    };
                    if !(line.contains("import")
                        || line.contains("require")
                        || line.contains("from"))
                    {
                        continue;
                    }
                    let joined = normalize(&format!("{dir}/{spec}"));
                    for suffix in [
                        "",
                        ".js",
                        ".ts",
                        ".tsx",
                        ".jsx",
                        ".mjs",
                        "/index.js",
                        "/index.ts",
                    ] {
                        if let Some(&f) = index.exact.get(format!("{joined}{suffix}").as_str()) {
                            add(vec![f]);
                            break;
                        }
                    }
                }
            }
            "rs" => {
                if let Some(name) = line
                    .strip_prefix("mod ")
                    .or_else(|| line.strip_prefix("pub mod "))
                    .and_then(|r| r.strip_suffix(';'))
                {
                    for candidate in [format!("{dir}/{name}.rs"), format!("{dir}/{name}/mod.rs")] {
                        if let Some(&f) = index.exact.get(candidate.trim_start_matches('/')) {
                            add(vec![f]);
                        }
                    }
                } else if let Some(rest) = line
                    .strip_prefix("use crate::")
                    .or_else(|| line.strip_prefix("pub use crate::"))
                {
                    let root = path.find("src/").map_or("src", |i| &path[..i + 3]);
                    let segs: Vec<&str> = rest
                        .split("::")
                        .take_while(|s| s.chars().all(|c| c.is_alphanumeric() || c == '_'))
                        .collect();
                    for k in (1..=segs.len()).rev() {
                        let rel = segs[..k].join("/");
                        let hit = [format!("{root}/{rel}.rs"), format!("{root}/{rel}/mod.rs")]
                            .into_iter()
                            .find_map(|c| index.exact.get(c.as_str()).copied());
                        if let Some(f) = hit {
                            add(vec![f]);
                            break;
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// `a/./b/../c` → `a/c`.
fn normalize(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            p => out.push(p),
        }
    }
    out.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus(files: &[(&str, &str)]) -> Corpus {
        Corpus::of_files(files.iter().map(|(p, t)| {
            (
                p.to_string(),
                super::super::corpus::test_id(t.as_bytes()),
                t.as_bytes(),
            )
        }))
    }

    fn ranked(files: &[(&str, &str)], goal: &str) -> Vec<String> {
        let c = corpus(files);
        let q = Query::of(goal, &[]);
        rank(&c, &q, &|_| true)
            .files
            .into_iter()
            .map(|r| r.path)
            .collect()
    }

    #[test]
    fn identifier_parts_match_in_any_convention() {
        let c = corpus(&[(
            "a.py",
            "registerHook HTTPAdapter cookie_jar COOKIES utf8 xhook\n",
        )]);
        let q = Query::of("register hooks http adapter cookies utf", &[]);
        let m = Matcher::new(&q);
        let mut found: Vec<String> = Vec::new();
        m.scan(&c.data, 0..c.data.len(), |o| {
            found.push(q.terms[o.term].text.clone());
        });
        found.sort();
        found.dedup();
        assert_eq!(
            found,
            ["adapt", "cook", "hook", "regist"],
            "not xhook nor utf8"
        );
    }

    #[test]
    fn definitions_are_recognised_in_each_language() {
        for (path, text) in [
            ("a.py", "class Foo:\n    def register_hook(self):\n"),
            ("b.rs", "pub(crate) fn register_hook() {}\n"),
            ("c.go", "func (c *Command) register_hook() error {\n"),
            ("d.js", "exports.register_hook = function () {}\n"),
            ("e.ts", "class A {\n  register_hook(x: number) {\n"),
            ("f.py", "register_hook = make_hook()\n"),
        ] {
            let c = corpus(&[
                (path, text),
                ("user.py", "register_hook(1)\nx.register_hook = 2\n"),
            ]);
            let r = rank(&c, &Query::of("`register_hook` is wrong", &[]), &|_| true);
            assert_eq!(r.files[0].path, path, "{text}");
            assert!(
                r.files[0]
                    .reasons
                    .iter()
                    .any(|w| w == "defines register_hook"),
                "{:?}",
                r.files[0].reasons
            );
        }
    }

    #[test]
    fn a_quoted_message_finds_the_file_that_raises_it() {
        let got = ranked(
            &[
                (
                    "pkg/urls.py",
                    "def parse(u):\n    raise ValueError(\"Invalid IPv6 URL\")\n",
                ),
                (
                    "pkg/models.py",
                    "class URL:\n    def parse(self): pass\n# url url url parse\n",
                ),
            ],
            "Parsing a URL fails with \"Invalid IPv6 URL\"",
        );
        assert_eq!(got[0], "pkg/urls.py");
    }

    #[test]
    fn vendored_code_ranks_below_the_package_the_goal_names() {
        let got = ranked(
            &[
                (
                    "requests/_vendor/urllib3/cookies.py",
                    "def extract_cookies(): cookies cookies cookies\n",
                ),
                (
                    "requests/cookies.py",
                    "def extract_cookies_to_jar(): pass\n",
                ),
            ],
            "cookies are not extracted",
        );
        assert_eq!(got[0], "requests/cookies.py", "{got:?}");
    }

    #[test]
    fn imports_resolve_in_python_javascript_and_rust() {
        let paths: Vec<String> = [
            "pkg/a.py",
            "pkg/b.py",
            "pkg/sub/__init__.py",
            "web/x.js",
            "web/lib/y.ts",
            "src/lib.rs",
            "src/model/mod.rs",
            "src/util.rs",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let index = PathIndex::new(&paths);
        let name =
            |v: Vec<usize>| -> Vec<&str> { v.into_iter().map(|i| paths[i].as_str()).collect() };
        assert_eq!(
            name(imports(
                "pkg/a.py",
                "from .b import f\nimport pkg.sub\n",
                &index
            )),
            ["pkg/b.py", "pkg/sub/__init__.py"]
        );
        assert_eq!(
            name(imports("web/x.js", "import y from './lib/y'\n", &index)),
            ["web/lib/y.ts"]
        );
        assert_eq!(
            name(imports(
                "src/lib.rs",
                "mod model;\nuse crate::util::f;\n",
                &index
            )),
            ["src/model/mod.rs", "src/util.rs"]
        );
    }
}
