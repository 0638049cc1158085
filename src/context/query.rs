//! What a goal (and its logs) asks about, read as a search query: the words to rank files by,
//! the identifiers it names (in any convention: `register_hook`, `Request.__init__`,
//! `URLField`, `to_csv`), dotted module paths (`sympy.polys.polyoptions`) and quoted strings
//! or error messages (`"Invalid IPv6 URL"`).
//!
//! Terms are lowercase and lightly stemmed (`cookies` → `cookie`), and an identifier is also
//! split into its parts (`registerHook` → `register`, `hook`), so the ranker can match code
//! written in any convention against prose.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

/// Log text read for query terms: its last characters, where errors are.
const LOG_TAIL: usize = 8_000;
/// Most phrases looked up literally.
const MAX_PHRASES: usize = 8;
/// Most terms one query carries.
const MAX_TERMS: usize = 64;
/// Most dotted module paths looked up.
const MAX_DOTTED: usize = 16;
/// A word longer than this is data (a digest, base64, a minified line), not a name: no term.
const MAX_WORD: usize = 100;
/// A phrase longer than this is cut to it: a long message is matched by its start, and a
/// pattern stays small enough to search with.
const MAX_PHRASE: usize = 200;

/// One term of the query.
#[derive(Debug, Clone, PartialEq)]
pub struct Term {
    /// Lowercase, stemmed.
    pub text: String,
    /// How much it counts (repeats and identifier-ness raise it).
    pub weight: f64,
    /// Named as code (an identifier, not a plain word): its definition is sought.
    pub code: bool,
    /// The word as a whole identifier, when the goal wrote it whole (not only as a part of a
    /// split identifier): a file defining it is worth a look even when the word was plain prose
    /// (`the add function`).
    pub name: Option<String>,
    /// The goal wrote it as a compound identifier (`register_hook`, `URLField`), which no
    /// English word is.
    pub compound: bool,
}

/// A module path the goal writes: `sympy.polys.polyoptions`, `ActiveRecord::Base`,
/// `Style/RedundantParentheses`.
#[derive(Debug, Clone, PartialEq)]
pub struct Dotted {
    /// Its parts joined by `/`, as written (`Style/RedundantParentheses`).
    pub path: String,
    /// As the goal wrote it.
    pub written: String,
}

/// The query a goal makes.
#[derive(Debug, Clone, Default)]
pub struct Query {
    pub terms: Vec<Term>,
    /// Module paths with at least two parts, as path candidates (`sympy/polys/polyoptions`).
    pub dotted: Vec<Dotted>,
    /// Quoted strings, error messages and hyphenated names (`unspecified-encoding`), exactly
    /// as written, with how much each counts.
    pub phrases: Vec<(String, f64)>,
    /// Every lowercase word of the goal, for matching directory names (`vendor`).
    pub words: Vec<String>,
    /// The goal, lowercase, for matching file names it writes whole (`frob.1`, `nginx.conf`).
    pub text: String,
}

/// Words too common in goals and code to rank by.
const STOP: &[&str] = &[
    "a",
    "about",
    "after",
    "all",
    "also",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "but",
    "by",
    "can",
    "could",
    "do",
    "does",
    "doesn",
    "don",
    "each",
    "else",
    "etc",
    "for",
    "from",
    "get",
    "got",
    "had",
    "has",
    "have",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "isn",
    "it",
    "its",
    "just",
    "like",
    "make",
    "may",
    "me",
    "might",
    "more",
    "most",
    "much",
    "must",
    "my",
    "need",
    "new",
    "no",
    "not",
    "now",
    "of",
    "on",
    "one",
    "only",
    "or",
    "other",
    "our",
    "out",
    "please",
    "same",
    "see",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "to",
    "too",
    "try",
    "up",
    "us",
    "use",
    "used",
    "using",
    "very",
    "via",
    "was",
    "way",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "why",
    "will",
    "with",
    "without",
    "would",
    "you",
    "your",
    "fix",
    "fixed",
    "fixes",
    "bug",
    "issue",
    "problem",
    "work",
    "works",
    "working",
    "expected",
    "actual",
    "instead",
    "currently",
    "seems",
    "thing",
    "something",
    "want",
    "wrong",
    "example",
    "self",
    "none",
    "true",
    "false",
    "null",
    "return",
    "def",
    "fn",
    "func",
    "function",
    "class",
    "import",
    "let",
    "var",
    "const",
    "pub",
    "str",
    "int",
    "string",
    "value",
    "true",
    "error",
    "file",
    "line",
    "code",
    "call",
    "case",
    "test",
    "tests",
    "type",
    "http",
    "https",
    "www",
    "com",
    "org",
    "github",
    "version",
    "python",
    "rust",
    "go",
    "js",
    "py",
    "rs",
    "gh",
];

/// Whether a lowercase word is too common to rank by.
pub fn is_stop(word: &str) -> bool {
    STOP.contains(&word)
}

/// Endings a stem may take: the ranker accepts a stem followed by any of these.
pub const ENDINGS: &[&str] = &[
    "", "s", "es", "e", "ed", "er", "ers", "ing", "ings", "y", "ies", "ie",
];

/// A lowercase word without a common inflection, so that every form starts with it:
/// `cookies`, `cookie` → `cook`; `parsed`, `parser`, `parse` → `pars`; `classes` → `class`.
pub fn stem(word: &str) -> &str {
    if word.ends_with("ss") || word.ends_with("us") || word.ends_with("is") {
        return word;
    }
    ENDINGS
        .iter()
        .filter(|e| !e.is_empty())
        .filter_map(|e| word.strip_suffix(e))
        .filter(|s| s.len() >= 4)
        .min_by_key(|s| s.len())
        .unwrap_or(word)
}

/// The parts of an identifier: `registerHook` → `register`, `hook`; `HTTPAdapter` → `http`,
/// `adapter`; `to_csv` → `to`, `csv`; `utf8` stays one part. Lowercase.
pub fn split_identifier(word: &str) -> Vec<String> {
    let chars: Vec<char> = word.chars().collect();
    let mut parts = Vec::new();
    let mut current = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !current.is_empty() {
                parts.push(std::mem::take(&mut current));
            }
            continue;
        }
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1);
        let boundary = c.is_uppercase()
            && prev.is_some_and(|p| {
                p.is_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_uppercase() && next.is_some_and(|n| n.is_lowercase()))
            });
        if boundary && !current.is_empty() {
            parts.push(std::mem::take(&mut current));
        }
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        parts.push(current);
    }
    parts
}

/// Whether a word of the goal is written as code: with `_` or an inner capital, or all
/// capitals with digits or underscores.
fn looks_like_code(word: &str) -> bool {
    let inner_capital = word
        .char_indices()
        .skip(1)
        .any(|(i, c)| c.is_uppercase() && word[..i].chars().any(char::is_lowercase));
    let leading_capital_then_capital = {
        let mut cs = word.chars();
        matches!((cs.next(), cs.next()), (Some(a), Some(b)) if a.is_uppercase() && b.is_uppercase())
            && word.chars().any(char::is_lowercase)
    };
    word.contains('_') && word.chars().any(char::is_alphabetic)
        || inner_capital
        || leading_capital_then_capital
}

#[expect(
    clippy::expect_used,
    reason = "a regular expression written here, which the tests compile: it cannot fail"
)]
static WORD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[A-Za-z_][A-Za-z0-9_]*").expect("static regex"));
#[expect(
    clippy::expect_used,
    reason = "a regular expression written here, which the tests compile: it cannot fail"
)]
static DOTTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+").expect("static regex")
});
#[expect(
    clippy::expect_used,
    reason = "a regular expression written here, which the tests compile: it cannot fail"
)]
static COLONS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)+").expect("static regex")
});
#[expect(
    clippy::expect_used,
    reason = "a regular expression written here, which the tests compile: it cannot fail"
)]
static SLASHED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b[A-Za-z_][A-Za-z0-9_]*(?:/[A-Za-z_][A-Za-z0-9_]*)+\b").expect("static regex")
});
/// The longest quoted text or message read as a phrase, in characters. It is checked after
/// matching: a bounded repetition (`{6,200}`) of a Unicode class compiles to an automaton that
/// took longer to build than the rest of a plan's context.
const MAX_QUOTED: usize = 200;
#[expect(
    clippy::expect_used,
    reason = "a regular expression written here, which the tests compile: it cannot fail"
)]
static QUOTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#""([^"\n]{6,})"|'([^'\n]{6,})'|`([^`\n]{6,})`|“([^”\n]{6,})”"#)
        .expect("static regex")
});
#[expect(
    clippy::expect_used,
    reason = "a regular expression written here, which the tests compile: it cannot fail"
)]
static HYPHENATED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+\b").expect("static regex")
});
#[expect(
    clippy::expect_used,
    reason = "a regular expression written here, which the tests compile: it cannot fail"
)]
static MESSAGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)(?:\b[A-Z][A-Za-z0-9]*(?:Error|Exception|Warning)|\berror(?:\[E\d+\])?|panicked at [^:]+:\d+:\d+|\bpanic): +(.{8,})$")
        .expect("static regex")
});
#[expect(
    clippy::expect_used,
    reason = "a regular expression written here, which the tests compile: it cannot fail"
)]
static LINK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"\b(?:https?://|www\.)[^\s<>()\[\]"'`]+"#).expect("static regex")
});

/// `text` with its links blanked (spaces, so offsets stay), except the path of a file a link
/// to a repository's tree shows (`…/blob/main/src/url.c#L12` keeps `src/url.c#L12`): a link's
/// host, owner and `issues/5088` are not words of the goal, and read as code (`github.com`)
/// they became names that pulled in every file mentioning GitHub.
fn without_links(text: &str) -> String {
    let mut out = text.to_string();
    for m in LINK.find_iter(text) {
        let link = m.as_str();
        let kept = ["/blob/", "/tree/"]
            .iter()
            .find_map(|marker| {
                let at = link.find(marker)? + marker.len();
                // The ref after the marker, then the path.
                let slash = link[at..].find('/')?;
                Some(at + slash + 1)
            })
            .unwrap_or(link.len());
        out.replace_range(m.start()..m.start() + kept, &" ".repeat(kept));
    }
    out
}

/// Headings issue templates ask users to fill in (compared without case and trailing `.`/`:`).
const TEMPLATE_HEADINGS: &[&str] = &[
    "describe your bug",
    "describe the bug",
    "bug description",
    "description",
    "summary",
    "steps to reproduce",
    "to reproduce",
    "reproduction",
    "how to reproduce",
    "how to replicate",
    "expected behavior",
    "expected behaviour",
    "expected result",
    "expected output",
    "actual behavior",
    "actual behaviour",
    "actual result",
    "actual output",
    "environment",
    "additional context",
    "additional information",
    "screenshots",
    "possible solution",
];

/// `text` without what an issue template wrote rather than its author (blanked byte for byte,
/// so offsets stay; never inside a fenced code block): its headings (`### What operating system
/// are you using ripgrep on?`, `### Describe your bug.`), its checkboxes (`- [x] I have a
/// different issue.`) and its instructions in HTML comments. Their words are the same in every issue of a project, and ranked files by
/// `operating`, `reproduce` and `behavior` instead of by the bug.
fn without_template(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut in_comment, mut in_code) = (false, false);
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_code = !in_code;
        }
        let opens = !in_code && trimmed.starts_with("<!--");
        let template = in_comment || opens || !in_code && is_template_line(trimmed);
        if opens && !trimmed.contains("-->") {
            in_comment = true;
        } else if in_comment && trimmed.contains("-->") {
            in_comment = false;
        }
        if template {
            let body = line.trim_end_matches('\n');
            out.push_str(&" ".repeat(body.len()));
            out.push_str(&line[body.len()..]);
        } else {
            out.push_str(line);
        }
    }
    out
}

/// A heading a template addresses to the reporter (`you`, `your`), one of
/// [`TEMPLATE_HEADINGS`], or a checkbox. A heading of the author's own (`### Why does parse()
/// drop the port?`) stays.
fn is_template_line(line: &str) -> bool {
    if ["- [ ]", "- [x]", "- [X]", "* [ ]", "* [x]"]
        .iter()
        .any(|b| line.starts_with(b))
    {
        return true;
    }
    let Some(heading) = line.strip_prefix('#') else {
        return false;
    };
    let heading = heading.trim_start_matches('#').trim();
    let plain = heading.trim_end_matches(['.', ':']).to_lowercase();
    let asks_you = plain.split_whitespace().any(|w| w == "you" || w == "your");
    asks_you || TEMPLATE_HEADINGS.contains(&plain.as_str())
}

/// Words that, before or after a name, say it is code: `the add function`, `class Foo`.
const CODE_NOUNS: &[&str] = &[
    "function",
    "method",
    "class",
    "def",
    "fn",
    "func",
    "field",
    "attribute",
    "parameter",
    "argument",
    "option",
    "module",
    "variable",
    "struct",
    "enum",
    "trait",
    "interface",
    "property",
    "flag",
    "hook",
    "decorator",
    "macro",
    "command",
    "subcommand",
    "setting",
    "kwarg",
    "constant",
];

impl Query {
    /// The query of a goal and its logs (logs count for less, read from their tail).
    pub fn of(goal: &str, logs: &[(String, String)]) -> Query {
        let mut q = Query::default();
        let mut terms: BTreeMap<String, Term> = BTreeMap::new();
        q.text = goal.to_lowercase();
        q.read(goal, 1.0, &mut terms);
        for (_, text) in logs {
            let start = text.len().saturating_sub(LOG_TAIL);
            let start = (start..=text.len())
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(text.len());
            q.read(&text[start..], 0.4, &mut terms);
        }
        let mut terms: Vec<Term> = terms.into_values().collect();
        terms.sort_by(|a, b| b.weight.total_cmp(&a.weight).then(a.text.cmp(&b.text)));
        terms.truncate(MAX_TERMS);
        q.terms = terms;
        q.phrases.truncate(MAX_PHRASES);
        q
    }

    fn read(&mut self, text: &str, scale: f64, terms: &mut BTreeMap<String, Term>) {
        let blanked = without_template(&without_links(text));
        let text = blanked.as_str();
        let mut code_spans: Vec<(usize, usize)> = Vec::new();
        for caps in QUOTED.captures_iter(text) {
            let Some(inner) = (1..=4).find_map(|i| caps.get(i)) else {
                continue;
            };
            if inner.as_str().chars().count() > MAX_QUOTED {
                continue;
            }
            code_spans.push((inner.start(), inner.end()));
            let s = inner.as_str().trim();
            // A phrase is prose-like text (a message) or a name with punctuation
            // (`invalid-name`), not a plain identifier.
            let punctuated = s.contains(['-', ' ', ':', '/']);
            if punctuated && s.chars().filter(|c| c.is_alphabetic()).count() >= 6 {
                self.push_phrase(s, scale);
            }
        }
        for caps in MESSAGE.captures_iter(text) {
            if let Some(m) = caps
                .get(1)
                .filter(|m| m.as_str().chars().count() <= MAX_QUOTED)
            {
                self.push_phrase(m.as_str().trim(), scale);
            }
        }
        // A hyphenated name outside quotes (`unspecified-encoding`) counts for less: it may be
        // plain English (`built-in`).
        for m in HYPHENATED.find_iter(text) {
            if m.as_str().len() >= 8 && m.as_str().chars().any(char::is_alphabetic) {
                self.push_phrase(m.as_str(), 0.4 * scale);
            }
        }
        self.modules(text);
        let words: Vec<regex::Match<'_>> = WORD.find_iter(text).collect();
        for (i, m) in words.iter().enumerate() {
            let word = m.as_str();
            if word.len() > MAX_WORD {
                continue;
            }
            let lower = word.to_lowercase();
            if !self.words.contains(&lower) && self.words.len() < 400 {
                self.words.push(lower.clone());
            }
            let in_code_span = code_spans
                .iter()
                .any(|&(a, b)| m.start() >= a && m.end() <= b);
            let called = text[m.end()..].starts_with('(');
            let near_noun = |j: Option<usize>| {
                j.and_then(|j| words.get(j))
                    .is_some_and(|w| CODE_NOUNS.contains(&w.as_str().to_lowercase().as_str()))
            };
            let dotted =
                text[..m.start()].ends_with(['.', ':']) || text[m.end()..].starts_with(['.', ':']);
            let code = looks_like_code(word)
                || in_code_span
                || called
                || (dotted && word.len() >= 3)
                || (lower.len() >= 3
                    && !is_stop(&lower)
                    && (near_noun(i.checked_sub(1)) || near_noun(Some(i + 1))));
            let parts = split_identifier(word);
            let whole = lower.trim_matches('_').to_string();
            if whole.len() >= 2 && (code || !is_stop(&whole)) {
                let weight = if code { 2.0 } else { 1.0 };
                let entry = add_term(terms, &whole, weight * scale, code, true);
                entry.compound |= parts.len() > 1;
            }
            if parts.len() > 1 {
                for part in &parts {
                    if part.len() >= 2 && !is_stop(part) && *part != whole {
                        add_term(terms, part, 0.6 * scale, false, false);
                    }
                }
            }
        }
    }

    /// Module paths: dotted (`django.db.models.query`, not `e.g` nor `setup.py`), with `::`
    /// (`ActiveRecord::Base`, `crate::fs::walk`) or with `/` between names written as code
    /// (`Style/RedundantParentheses`, not `read/write` nor `src/app.py`).
    fn modules(&mut self, text: &str) {
        let found = DOTTED
            .find_iter(text)
            .map(|m| (m, "."))
            .chain(COLONS.find_iter(text).map(|m| (m, "::")))
            .chain(SLASHED.find_iter(text).map(|m| (m, "/")));
        for (m, sep) in found {
            let s = m.as_str();
            let parts: Vec<&str> = s.split(sep).collect();
            let plausible = match sep {
                "." => {
                    parts.iter().all(|p| p.len() >= 2)
                        && !super::defs::is_source(s)
                        && !s.ends_with(".md")
                        && !s.ends_with(".txt")
                }
                "/" => {
                    !text[m.end()..].starts_with(['.', '/'])
                        && !text[..m.start()].ends_with(['/', '.'])
                        && parts.iter().any(|p| looks_like_code(p))
                }
                _ => true,
            };
            let path = parts.join("/");
            if plausible
                && !self.dotted.iter().any(|d| d.path == path)
                && self.dotted.len() < MAX_DOTTED
            {
                self.dotted.push(Dotted {
                    path,
                    written: s.to_string(),
                });
            }
        }
    }

    fn push_phrase(&mut self, s: &str, weight: f64) {
        let mut end = s.len().min(MAX_PHRASE);
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        let s = s[..end].trim_end_matches(['.', ',', ';']).trim();
        if s.len() >= 6 && !self.phrases.iter().any(|p| p.0 == s) {
            self.phrases.push((s.to_string(), weight));
        }
    }
}

fn add_term<'t>(
    terms: &'t mut BTreeMap<String, Term>,
    word: &str,
    weight: f64,
    code: bool,
    whole: bool,
) -> &'t mut Term {
    // Identifiers are kept as written (lowercased); prose words are stemmed.
    let text = if code || word.contains('_') {
        word.to_string()
    } else {
        stem(word).to_string()
    };
    let entry = terms.entry(text.clone()).or_insert(Term {
        text,
        weight: 0.0,
        code: false,
        name: None,
        compound: false,
    });
    // Repeats count, with diminishing returns.
    entry.weight = if entry.weight == 0.0 {
        weight
    } else {
        entry.weight.max(weight) + 0.3 * weight.min(entry.weight)
    };
    entry.code |= code;
    if whole && entry.name.is_none() {
        entry.name = Some(word.to_string());
    }
    entry
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term<'q>(q: &'q Query, text: &str) -> Option<&'q Term> {
        q.terms.iter().find(|t| t.text == text)
    }

    #[test]
    fn identifiers_split_in_every_convention() {
        assert_eq!(split_identifier("registerHook"), ["register", "hook"]);
        assert_eq!(split_identifier("HTTPAdapter"), ["http", "adapter"]);
        assert_eq!(split_identifier("to_csv"), ["to", "csv"]);
        assert_eq!(split_identifier("URLField"), ["url", "field"]);
        assert_eq!(split_identifier("utf8"), ["utf8"]);
        assert_eq!(split_identifier("parse2Date"), ["parse2", "date"]);
    }

    #[test]
    fn links_are_not_words_of_the_goal_but_a_linked_file_path_is() {
        let q = Query::of(
            "unix: check fcntl's result\n\nFixes: https://github.com/libuv/libuv/issues/5088\nSee https://github.com/libuv/libuv/blob/v1.x/src/unix/process.c#L12 and www.example-site.org/a_b",
            &[],
        );
        for noise in ["github", "com", "issue", "libuv", "example", "a_b"] {
            assert!(term(&q, noise).is_none(), "{noise}: {:?}", q.terms);
        }
        assert!(q.phrases.iter().all(|p| !p.0.contains("example-site")));
        assert!(q.dotted.iter().all(|d| !d.written.contains("github")));
        for kept in ["fcntl", "process", "unix"] {
            assert!(term(&q, kept).is_some(), "{kept}: {:?}", q.terms);
        }
        assert_eq!(
            without_links("see https://x.org/a/blob/main/src/u.c#L1 now"),
            format!("see {}src/u.c#L1 now", " ".repeat(26))
        );
    }

    #[test]
    fn an_issue_templates_headings_checkboxes_and_comments_are_not_words_of_the_goal() {
        let issue = "### Please tick this box to confirm you have reviewed the above.\n\n- [x] I have a different issue.\n\n### What operating system are you using ripgrep on?\n\nArch Linux\n\n### Describe your bug.\n\n<!--\nPlease describe the behavior precisely.\n-->\n`--line-buffered` has no effect when reading stdin\n\n### Why does the searcher wait for a full buffer?\n";
        let q = Query::of(issue, &[]);
        for noise in ["tick", "confirm", "operat", "describ", "precis", "behavior"] {
            assert!(
                !q.terms.iter().any(|t| t.text.starts_with(noise)),
                "{noise}: {:?}",
                q.terms
            );
        }
        for kept in ["stdin", "arch", "search", "wait"] {
            assert!(term(&q, kept).is_some(), "{kept}: {:?}", q.terms);
        }
        assert!(
            q.phrases.iter().any(|p| p.0 == "line-buffered"),
            "{:?}",
            q.phrases
        );
        assert_eq!(
            without_template("a\n# Summary\nb\n").len(),
            "a\n# Summary\nb\n".len()
        );
        let accented = "### Which version are you using — ≥ 14?\nparse_port échoue\n";
        let blanked = without_template(accented);
        assert_eq!(blanked.len(), accented.len());
        assert!(blanked.trim_start().starts_with("parse_port"), "{blanked}");
        // A comment in the author's code is the author's.
        let code = "```python\n# you must call parse_port first\nparse_port(x)\n```\n";
        assert_eq!(without_template(code), code);
    }

    #[test]
    fn stems_meet() {
        assert_eq!(stem("cookies"), "cook");
        assert_eq!(stem("cookie"), "cook");
        assert_eq!(stem("parsed"), "pars");
        assert_eq!(stem("parser"), "pars");
        assert_eq!(stem("headers"), "head");
        assert_eq!(stem("classes"), "class");
        assert_eq!(stem("class"), "class");
        assert_eq!(stem("status"), "status");
        assert_eq!(stem("users"), "user");
    }

    #[test]
    fn a_goal_names_code_phrases_and_modules() {
        let q = Query::of(
            "`Request.__init__` raises \"Invalid IPv6 URL\" in sympy.polys.polyoptions when register_hook gets a URLField; fix the add function",
            &[],
        );
        assert!(term(&q, "register_hook").is_some_and(|t| t.code));
        assert!(term(&q, "urlfield").is_some_and(|t| t.code));
        assert!(term(&q, "request").is_some_and(|t| t.code));
        assert!(term(&q, "__init__").is_none(), "kept without underscores");
        assert!(term(&q, "init").is_some());
        assert!(term(&q, "add").is_some_and(|t| t.code), "the add function");
        assert!(term(&q, "hook").is_some(), "a part of register_hook");
        assert!(term(&q, "the").is_none());
        assert_eq!(q.phrases, [("Invalid IPv6 URL".to_string(), 1.0)]);
        let paths: Vec<&str> = q.dotted.iter().map(|d| d.path.as_str()).collect();
        assert!(paths.contains(&"sympy/polys/polyoptions"));
        assert!(paths.contains(&"Request/__init__"));
    }

    #[test]
    fn module_paths_are_dotted_colon_separated_or_slashed_names() {
        let q = Query::of(
            "Style/RedundantParentheses and ActiveRecord::Base break read/write of src/app.py and lib/x/y",
            &[],
        );
        let got: Vec<(&str, &str)> = q
            .dotted
            .iter()
            .map(|d| (d.path.as_str(), d.written.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("ActiveRecord/Base", "ActiveRecord::Base"),
                ("Style/RedundantParentheses", "Style/RedundantParentheses"),
            ]
        );
    }

    #[test]
    fn a_word_or_message_of_megabytes_is_no_pattern() {
        let blob = "x".repeat(40_000);
        let hyphenated = "long-name".repeat(500);
        let log = format!("Traceback:\n{blob}\nsee {hyphenated}\n");
        let q = Query::of("Add notes", &[("big.log".to_string(), log)]);
        assert!(q.terms.iter().all(|t| t.text.len() <= MAX_WORD));
        assert!(
            q.phrases
                .iter()
                .any(|(p, _)| p.starts_with("long-name") && p.len() <= MAX_PHRASE),
            "the hyphenated name is kept, cut: {} phrases",
            q.phrases.len()
        );
        assert!(q.phrases.iter().all(|(p, _)| p.len() <= MAX_PHRASE));
        assert!(term(&q, "note").is_some());
    }

    #[test]
    fn quotes_and_messages_over_two_hundred_characters_are_no_phrases() {
        let long = "ab cd".repeat(40); // 200 characters
        let q = Query::of(&format!("raises \"{long}\" here"), &[]);
        assert!(q.phrases.iter().any(|p| p.0 == long), "{:?}", q.phrases);
        let q = Query::of(&format!("raises \"{long}x\" here"), &[]);
        assert!(q.phrases.is_empty(), "{:?}", q.phrases);
        let message = |m: &str| Query::of("fails", &[("log".into(), format!("ValueError: {m}\n"))]);
        let said = "a message of some length".repeat(8); // 192 characters
        assert!(message(&said).phrases.iter().any(|p| p.0 == said));
        assert!(
            message(&format!("{said}{}", "y".repeat(9)))
                .phrases
                .is_empty()
        );
    }

    #[test]
    fn log_messages_become_phrases() {
        let q = Query::of(
            "tests fail",
            &[(
                "log".into(),
                "Traceback:\n  File \"x.py\", line 3\nValueError: Unknown format code for object\n"
                    .into(),
            )],
        );
        assert!(
            q.phrases
                .iter()
                .any(|p| p.0 == "Unknown format code for object")
        );
        assert!(term(&q, "unknown").is_some_and(|t| t.weight < 1.0));
        let q = Query::of("Skip unspecified-encoding for `bad-open-mode`", &[]);
        assert_eq!(
            q.phrases,
            [
                ("bad-open-mode".to_string(), 1.0),
                ("unspecified-encoding".to_string(), 0.4)
            ]
        );
    }
}
