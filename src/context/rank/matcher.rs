//! Finding the goal's terms in the corpus: one automaton for every term, matched as whole words
//! or identifier parts in any convention, and whole names where they are defined; and, in one
//! file, the places worth showing (anchors).

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

use super::super::corpus::Corpus;
use super::super::defs::{self, Kind, Lang};
use super::super::query::{ENDINGS, Query};

/// Where a goal term occurs in one file: the line (1-based), how much it matters, and what it
/// is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Anchor {
    pub line: u32,
    pub weight: f64,
    /// A definition of a name the goal uses (the window should cover its body).
    pub definition: bool,
    pub mark: Mark,
}

/// What an anchor found: a term of the query, or one of its phrases (by index).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mark {
    Term(usize),
    Phrase(usize),
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
pub(super) struct Occurrence {
    pub(super) term: usize,
    pub(super) start: usize,
    /// It matched as a word or identifier part (the stem, with an ending).
    pub(super) word: bool,
    /// It is the whole name, written where it is defined.
    pub(super) definition: bool,
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
            // `of`, `is`, `org`: whatever a file defines by that name, the goal meant English.
            if let Some(name) = &t.name
                && !defs::is_common_word(name)
            {
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

    /// Every occurrence of a term in `data[range]`, in order; `lang` tells the language of the
    /// file at an offset, whose rules say what a line defines.
    pub(super) fn scan(
        &self,
        data: &[u8],
        range: std::ops::Range<usize>,
        lang: &dyn Fn(usize) -> Option<Lang>,
        mut each: impl FnMut(Occurrence),
    ) {
        let Some(ac) = &self.ac else { return };
        let input = aho_corasick::Input::new(data).span(range.clone());
        for m in ac.find_overlapping_iter(input) {
            let (term, is_stem, is_name) = self.patterns[m.pattern().as_usize()];
            let (s, e) = (m.start(), m.end());
            let word = is_stem && left_ok(data, s, range.start) && stem_end(data, e, range.end);
            // A name defined with leading or trailing underscores (`_encode_files`,
            // `__getattr__`) is the name the goal writes without them.
            let (mut ds, mut de) = (s, e);
            while ds > range.start && data[ds - 1] == b'_' {
                ds -= 1;
            }
            while de < range.end && data[de] == b'_' {
                de += 1;
            }
            let definition = is_name
                && (ds == range.start || !is_word(data[ds - 1]))
                && (de == range.end || !is_word(data[de]))
                && is_definition(lang(s), data, ds..de, range.clone());
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
        let mut offsets: Vec<(usize, f64, bool, Mark)> = Vec::new();
        let lang = defs::lang(&corpus.paths[file]);
        self.scan(data, start..end, &|_| lang, |o| {
            let t = &self.query.terms[o.term];
            let weight = t.weight * idf.get(o.term).copied().unwrap_or(1.0);
            let mark = Mark::Term(o.term);
            if o.definition {
                let k = if t.code { 10.0 } else { 3.0 };
                offsets.push((o.start, weight * k, true, mark));
            } else if o.word {
                offsets.push((o.start, weight, false, mark));
            }
        });
        let text = &data[start..end];
        for (i, (phrase, weight)) in self.query.phrases.iter().enumerate() {
            for at in memchr::memmem::find_iter(text, phrase.as_bytes()) {
                offsets.push((start + at, 40.0 * weight, false, Mark::Phrase(i)));
            }
        }
        offsets.sort_by_key(|o| o.0);
        specific(&mut offsets);
        let mut anchors = Vec::with_capacity(offsets.len());
        let (mut line, mut at) = (1u32, start);
        for (offset, weight, definition, mark) in offsets {
            line += memchr::memchr_iter(b'\n', &data[at..offset]).count() as u32;
            at = offset;
            anchors.push(Anchor {
                line,
                weight,
                definition,
                mark,
            });
        }
        anchors
    }

    /// What an anchor is, for a block's reason: `defines parse_port`, `uses widget`,
    /// `contains "Invalid port"`.
    pub fn describe(&self, anchor: &Anchor) -> String {
        match anchor.mark {
            Mark::Term(j) => {
                let t = &self.query.terms[j];
                let name = t.name.as_deref().unwrap_or(&t.text);
                let verb = if anchor.definition { "defines" } else { "uses" };
                format!("{verb} {name}")
            }
            Mark::Phrase(i) => {
                let phrase = self.query.phrases.get(i).map_or("", |p| p.0.as_str());
                let shown: String = phrase.chars().take(30).collect();
                format!("contains \"{shown}\"")
            }
        }
    }
}

/// Each use of a term weighs less the more often the file uses it: a word on every line of a
/// file (`pipe` in `pipe.c`, the scope `win` in every Windows source) says nothing of where in
/// it to look, one it uses in three places says a lot. Definitions keep their weight.
fn specific(offsets: &mut [(usize, f64, bool, Mark)]) {
    let mut uses: std::collections::HashMap<Mark, usize> = std::collections::HashMap::new();
    for o in offsets.iter().filter(|o| !o.2) {
        *uses.entry(o.3).or_default() += 1;
    }
    for o in offsets.iter_mut().filter(|o| !o.2) {
        let n = uses.get(&o.3).copied().unwrap_or(1).max(1);
        o.1 /= (n as f64).sqrt();
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

/// Whether the name at `name` is being defined on its line, in a file of `lang`: never a
/// keyword of the language (`static final int X` does not define `final`); otherwise as the
/// language's rules read the line ([`defs::defined_on`]), or by the rules shared by every
/// language (after a defining word, as a Go method, assigned at the top level, as a class
/// method `name(…) {`).
fn is_definition(
    lang: Option<Lang>,
    data: &[u8],
    name: std::ops::Range<usize>,
    file: std::ops::Range<usize>,
) -> bool {
    let (s, e) = (name.start, name.end);
    let line_start =
        memchr::memrchr(b'\n', &data[file.start..s]).map_or(file.start, |i| file.start + i + 1);
    let line_end = memchr::memchr(b'\n', &data[e..file.end]).map_or(file.end, |i| e + i);
    let Ok(line) = std::str::from_utf8(&data[line_start..line_end]) else {
        return false;
    };
    let at = s - line_start..e - line_start;
    if let Some(lang) = lang
        && defs::is_keyword(lang, &line[at.clone()])
    {
        return false;
    }
    if shared_rules(line, at.clone()) {
        return true;
    }
    // A member access (`reader.read(`, `$this->read(`) defines nothing, except after Ruby's
    // `def self.` or Kotlin's `fun Type.`: most of the occurrences of a common name are such
    // calls, and reading them needs no lexer.
    let before = line[..at.start].trim_end();
    if (before.ends_with('.') || before.ends_with("->"))
        && !line.contains("def ")
        && !line.contains("fun ")
    {
        return false;
    }
    lang.is_some_and(|lang| {
        defs::defined_on(lang, line).is_some_and(|(kind, range)| {
            range == at && !matches!(kind, Kind::Namespace | Kind::Impl)
        })
    })
}

/// The rules every language shares, for the name at `at` in `line`.
fn shared_rules(line: &str, at: std::ops::Range<usize>) -> bool {
    let prefix = &line[..at.start];
    let mut cut = line.len().min(at.end + 200);
    while !line.is_char_boundary(cut) {
        cut -= 1;
    }
    let after = &line[at.end..cut];
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
