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
//! - **structure**: one step along the import graph from the best files, from a test file
//!   to the module it tests, and to the files that most often changed with them in the history.
//!
//! Vendored, generated and fixture files rank far lower unless the goal names their directory;
//! tests and documentation somewhat lower. Everything is read from the tree's [`Corpus`], which
//! is cached per tree id, so ranking costs one scan of text already in memory.

mod barrels;
mod calls;
mod cochange;
mod graph;
mod imports;
mod kinds;
mod matcher;
mod names;
mod paths;
mod uses;

use std::collections::{HashMap, HashSet};

use aho_corasick::AhoCorasickBuilder;

use super::corpus::Corpus;
use super::defs::{Lang, lang};
use super::query::{Query, Term, split_identifier, stem};

pub use kinds::{is_code, is_secondary, is_test_path, is_vendored};
#[cfg(test)]
pub use matcher::Mark;
pub use matcher::{Anchor, Matcher};

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
/// Share of a file's score passed to the files it imports, and from a test to its module; an
/// imported file whose definitions the importer names often ([`uses`]) receives up to
/// [`IMPORT_USED_SHARE`] more.
const IMPORT_SHARE: f64 = 0.15;
const IMPORT_USED_SHARE: f64 = 0.25;
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

/// A path's words: each directory and the file's name (without extension), whole, without
/// separators (`foo_bar_service` → `foobarservice`, to meet `FooBarService` in any convention),
/// and split into its parts; with how much each counts (the name more than directories).
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
        let whole = part.to_lowercase();
        let joined = names::normalized(part);
        if joined != whole {
            out.push((joined, weight));
        }
        out.push((whole, weight));
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

/// The evidence gathered for each file: term counts, definitions, and the scored parts that
/// become its reasons.
struct Evidence<'c> {
    corpus: &'c Corpus,
    query: &'c Query,
    n: usize,
    t: usize,
    /// Term frequencies, files × terms.
    tf: Vec<u16>,
    /// Files containing each term as a word.
    df: Vec<usize>,
    idf: Vec<f64>,
    /// For each term, the files defining it.
    defs: Vec<HashSet<usize>>,
    /// For each file, the terms its path holds, with their weight.
    path_hits: Vec<Vec<(usize, f64)>>,
    path_df: Vec<usize>,
    parts: Vec<Vec<(f64, String)>>,
}

/// Ranks the corpus against the query. `allowed` filters paths that may be read; `history` is
/// the paths each recent commit of the base changed (newest first, none after the base).
pub fn rank(
    corpus: &Corpus,
    query: &Query,
    history: &[Vec<String>],
    allowed: &dyn Fn(&str) -> bool,
) -> Ranking {
    if corpus.is_empty() {
        return Ranking {
            files: Vec::new(),
            idf: Vec::new(),
        };
    }
    let mut ev = Evidence::count(corpus, query);
    ev.lexical();
    ev.paths();
    ev.definitions();
    ev.phrases();
    let mut score = ev.coordinated();
    // A module path names its file outright, however few of the goal's other words it holds.
    for (f, share, why) in names::dotted(corpus, query) {
        score[f] += share;
        ev.parts[f].push((share, why));
    }
    for (f, path) in corpus.paths.iter().enumerate() {
        if score[f] > 0.0 {
            for (factor, why) in kinds::demotion(path, corpus.text(f), query) {
                if why == kinds::VERY_LARGE && edited_often(history, path) {
                    continue;
                }
                score[f] *= factor;
                ev.parts[f].push((0.0, why.to_string()));
            }
        }
    }
    graph::structure(corpus, query, history, &mut score, &mut ev.parts);
    let mut files: Vec<Ranked> = (0..ev.n)
        .filter(|&f| score[f] > 0.0 && allowed(&corpus.paths[f]))
        .map(|f| {
            let mut reasons = std::mem::take(&mut ev.parts[f]);
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
    Ranking { files, idf: ev.idf }
}

impl<'c> Evidence<'c> {
    /// One scan of the corpus: how often each term occurs in each file, and where the goal's
    /// names are defined.
    fn count(corpus: &'c Corpus, query: &'c Query) -> Evidence<'c> {
        let (n, t) = (corpus.len(), query.terms.len());
        let matcher = Matcher::new(query);
        let data = &corpus.data;
        let langs: Vec<Option<Lang>> = corpus.paths.iter().map(|p| lang(p)).collect();
        let mut tf = vec![0u16; n * t.max(1)];
        let mut defs: Vec<HashSet<usize>> = vec![HashSet::new(); t];
        let mut file = 0usize;
        let lang_at = |at: usize| langs[corpus.file_at(at)];
        matcher.scan(data, 0..data.len(), &lang_at, |o| {
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
        let df: Vec<usize> = (0..t)
            .map(|j| (0..n).filter(|&f| tf[f * t + j] > 0).count())
            .collect();
        let idf = df
            .iter()
            .map(|&d| (1.0 + (n as f64 - d as f64 + 0.5) / (d as f64 + 0.5)).ln())
            .collect();
        Evidence {
            corpus,
            query,
            n,
            t,
            tf,
            df,
            idf,
            defs,
            path_hits: vec![Vec::new(); n],
            path_df: vec![0; t],
            parts: vec![Vec::new(); n],
        }
    }

    /// BM25 of each file's text against the goal's terms.
    fn lexical(&mut self) {
        let (n, t) = (self.n, self.t);
        let avg_len = (self.corpus.data.len() as f64 / n as f64).max(1.0);
        let mut lexical = vec![0.0f64; n];
        for (f, score) in lexical.iter_mut().enumerate() {
            let len = (self.corpus.starts[f + 1] - self.corpus.starts[f]) as f64;
            let norm = K1 * (1.0 - B + B * len / avg_len);
            for (j, term) in self.query.terms.iter().enumerate() {
                let x = f64::from(self.tf[f * t + j]);
                if x > 0.0 {
                    *score += term.weight * self.idf[j] * x * (K1 + 1.0) / (x + norm);
                }
            }
        }
        // BM25 positions, for the reasons.
        let mut by_lexical: Vec<usize> = (0..n).filter(|&f| lexical[f] > 0.0).collect();
        by_lexical.sort_by(|&a, &b| lexical[b].total_cmp(&lexical[a]));
        for (position, &f) in by_lexical.iter().enumerate() {
            self.parts[f].push((lexical[f], format!("bm25 #{}", position + 1)));
        }
    }

    /// Goal terms in each file's path: its name counts fully, its directories half.
    fn paths(&mut self) {
        let query = self.query;
        // Terms by their text, and compound names also without separators (`foo_bar_service`
        // meets `FooBarService.java`).
        let joined: Vec<(String, usize)> = query
            .terms
            .iter()
            .enumerate()
            .filter(|(_, t)| t.compound)
            .map(|(i, t)| (names::normalized(&t.text), i))
            .collect();
        let term_index: HashMap<&str, usize> = joined
            .iter()
            .map(|(s, i)| (s.as_str(), *i))
            .chain(
                query
                    .terms
                    .iter()
                    .enumerate()
                    .map(|(i, t)| (t.text.as_str(), i)),
            )
            .collect();
        for (f, path) in self.corpus.paths.iter().enumerate() {
            for (word, weight) in path_words(path) {
                let Some(j) = term_of(&word, &term_index) else {
                    continue;
                };
                match self.path_hits[f].iter_mut().find(|h| h.0 == j) {
                    Some(h) => h.1 = h.1.max(weight),
                    None => {
                        self.path_hits[f].push((j, weight));
                        self.path_df[j] += 1;
                    }
                }
            }
        }
        for (f, hits) in self.path_hits.iter().enumerate() {
            let mut score = 0.0;
            let mut best: Option<(f64, usize)> = None;
            for &(j, weight) in hits {
                let idf = (1.0 + self.n as f64 / self.path_df[j] as f64).ln();
                let s = PATH_K * query.terms[j].weight * idf * weight;
                score += s;
                if best.is_none_or(|b| s > b.0) {
                    best = Some((s, j));
                }
            }
            if let Some((_, j)) = best {
                self.parts[f].push((score, format!("path matches {}", query.terms[j].text)));
            }
        }
    }

    /// Files defining a name the goal uses, when the name is distinctive in this tree: worth
    /// more the fewer files define it and the rarer it is as a word.
    fn definitions(&mut self) {
        let n = self.n as f64;
        for (j, files) in self.defs.iter().enumerate() {
            let term = &self.query.terms[j];
            if files.is_empty() || !distinctive(term, files.len(), self.df[j], self.n) {
                continue;
            }
            let k = if term.code { DEF_CODE_K } else { DEF_WORD_K };
            let defined = (1.0 + n / files.len() as f64).ln();
            let as_word = (1.0 + n / self.df[j].max(1) as f64).ln() + 1.0;
            let name = term.name.as_deref().unwrap_or(&term.text);
            for &f in files {
                let share = term.weight * k * defined.min(as_word);
                self.parts[f].push((share, format!("defines {name}")));
            }
        }
    }

    /// Files containing a string the goal quotes or a message of its logs.
    fn phrases(&mut self) {
        for (phrase, weight) in &self.query.phrases {
            let found = phrase_files(self.corpus, phrase);
            if found.is_empty() {
                continue;
            }
            let share = weight * PHRASE_K / (found.len() as f64).sqrt();
            let shown: String = phrase.chars().take(40).collect();
            for f in found {
                self.parts[f].push((share, format!("contains \"{shown}\"")));
            }
        }
    }

    /// Each file's score, scaled by the square root of the share of the goal's terms it
    /// matches (in its text or its path): a file matching more of them is worth more than one
    /// matching a single term many times.
    fn coordinated(&self) -> Vec<f64> {
        let t = self.t;
        let mut score: Vec<f64> = self
            .parts
            .iter()
            .map(|p| p.iter().map(|(s, _)| s).sum())
            .collect();
        let weight = |j: usize| self.query.terms[j].weight;
        let present: f64 = (0..t)
            .filter(|&j| self.df[j] > 0 || self.path_df[j] > 0)
            .map(weight)
            .sum();
        if present > 0.0 {
            for (f, score) in score.iter_mut().enumerate() {
                let matched: f64 = (0..t)
                    .filter(|&j| {
                        self.tf[f * t + j] > 0 || self.path_hits[f].iter().any(|h| h.0 == j)
                    })
                    .map(weight)
                    .sum();
                *score *= (matched / present).sqrt().max(0.2);
            }
        }
        score
    }
}

/// Commits of the base's recent history that a very large file must have changed in to rank as
/// the project's own code — a header it maintains by hand, or the single-header build it
/// regenerates with every change — rather than a copy it keeps of someone else's.
const EDITED_COMMITS: usize = 5;

/// Whether `path` changed in at least [`EDITED_COMMITS`] commits of `history`.
fn edited_often(history: &[Vec<String>], path: &str) -> bool {
    history
        .iter()
        .filter(|paths| paths.iter().any(|p| p == path))
        .take(EDITED_COMMITS)
        .count()
        >= EDITED_COMMITS
}

/// Whether definitions of `term` say anything in a tree of `n` files, where `defined_in` files
/// define it and `as_word` files contain it: it must be defined in few files (a name every
/// module defines, `get`, `run`, picks none of them), and be either compound (`register_hook`,
/// `URLField`) or rare as a word (`static` and `org` are in every file of a Java tree).
fn distinctive(term: &Term, defined_in: usize, as_word: usize, n: usize) -> bool {
    let few_definitions = defined_in <= (n / 50).max(3);
    let rare_word = as_word <= (n / 4).max(3);
    few_definitions && (term.compound || rare_word)
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

#[cfg(test)]
mod tests;
