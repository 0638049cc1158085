//! One step along calls: the functions a top-ranked file calls that a file beside it defines
//! (the rest of a Go package, a C module's other sources, a Java package). A fix that spans
//! files often changes the caller and the callee; the callee's file shares no word with the
//! goal. Only the files of the caller's directory are read, so this costs a few small files,
//! not another scan of the tree; a callee counts only where its language's rules see a function
//! or macro defined.

use std::collections::HashSet;

use aho_corasick::AhoCorasick;

use super::super::corpus::Corpus;
use super::super::defs::{self, Kind, Lang};

/// Most names followed from one file.
const MAX_CALLED: usize = 64;
/// Most files beside it read.
const MAX_SIBLINGS: usize = 200;
/// Bytes of the caller read for calls.
const CALLER_BYTES: usize = 256 * 1024;

/// Files beside `file` that define what it calls, each with the name it defines that the
/// fewest of them define, and how many define it: a name every platform's source defines for
/// itself (`ARRAY_SIZE`, `uv__platform_init`) points at none of them in particular.
pub(super) fn callees(corpus: &Corpus, file: usize) -> Vec<(usize, String, usize)> {
    let path = &corpus.paths[file];
    let Some(lang) = defs::lang(path) else {
        return Vec::new();
    };
    let text = corpus.text(file);
    let text = String::from_utf8_lossy(&text[..text.len().min(CALLER_BYTES)]);
    let names = called(lang, path, &text);
    if names.is_empty() {
        return Vec::new();
    }
    let Ok(ac) = AhoCorasick::new(&names) else {
        return Vec::new();
    };
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    let siblings = (0..corpus.len()).filter(|&g| {
        g != file
            && corpus.paths[g].rsplit_once('/').map_or("", |(d, _)| d) == dir
            && defs::lang(&corpus.paths[g]) == Some(lang)
    });
    let mut defined: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut definers = vec![0usize; names.len()];
    for g in siblings.take(MAX_SIBLINGS) {
        let text = corpus.text(g);
        let mut found: Vec<usize> = Vec::new();
        for m in ac.find_iter(text) {
            let name = m.pattern().as_usize();
            if !found.contains(&name) && defines(lang, text, m.start()..m.end()) {
                found.push(name);
                definers[name] += 1;
            }
        }
        if !found.is_empty() {
            defined.push((g, found));
        }
    }
    defined
        .into_iter()
        .filter_map(|(g, found)| {
            let best = found.into_iter().min_by_key(|&n| (definers[n], n))?;
            Some((g, names[best].clone(), definers[best]))
        })
        .collect()
}

/// Whether the name at `at` in `text` is a function or macro its language's rules see defined
/// on its line (not the shared rules, which also take a call followed by a block).
fn defines(lang: Lang, text: &[u8], at: std::ops::Range<usize>) -> bool {
    let bounded = (at.start == 0 || !is_word(text[at.start - 1]))
        && (at.end == text.len() || !is_word(text[at.end]));
    if !bounded {
        return false;
    }
    let start = memchr::memrchr(b'\n', &text[..at.start]).map_or(0, |i| i + 1);
    let end = memchr::memchr(b'\n', &text[at.end..]).map_or(text.len(), |i| at.end + i);
    let Ok(line) = std::str::from_utf8(&text[start..end]) else {
        return false;
    };
    defs::defined_on(lang, line).is_some_and(|(kind, name)| {
        name == (at.start - start..at.end - start) && matches!(kind, Kind::Function | Kind::Macro)
    })
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The names `text` calls (`name(`), distinctive enough to follow: not keywords, at least four
/// characters, not defined in the file itself.
fn called(lang: Lang, path: &str, text: &str) -> Vec<String> {
    let own: HashSet<String> = defs::parse(path, text)
        .into_iter()
        .map(|d| d.name)
        .collect();
    // Calls in comments and strings are not calls.
    let code = defs::blanked(lang, text);
    let text = code.as_str();
    let bytes = text.as_bytes();
    let mut seen: HashSet<&str> = HashSet::new();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() && out.len() < MAX_CALLED {
        if !(bytes[i].is_ascii_alphabetic() || bytes[i] == b'_') || i > 0 && is_word(bytes[i - 1]) {
            i += 1;
            continue;
        }
        let end = i + bytes[i..].iter().take_while(|b| is_word(**b)).count();
        let name = &text[i..end];
        let opens = bytes[end..].iter().find(|b| **b != b' ') == Some(&b'(');
        let member = i > 0 && bytes[i - 1] == b'.' && lang != Lang::Go;
        if opens
            && !member
            && name.len() >= 4
            && !defs::is_keyword(lang, name)
            && !own.contains(name)
            && seen.insert(name)
        {
            out.push(name.to_string());
        }
        i = end;
    }
    out
}
