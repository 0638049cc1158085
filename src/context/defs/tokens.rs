//! The words of a blanked line, and the small shared steps every language's rules take over
//! them: what a definition found is, where a line sits, a name at a token, skipping leading
//! words and balanced groups. Read by [`super::recognize`] and [`super::typed`] alike.

use std::ops::Range;

use super::Kind;

/// A definition found on a line.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub kind: Kind,
    /// The name's byte range in the line (empty: a definition without a name yet, such as
    /// `typedef struct {`, named where it closes).
    pub name: Range<usize>,
}

/// A token of a line: an identifier, or one character of punctuation (`::`, `->` and `=>` as
/// one token).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tok<'a> {
    pub text: &'a str,
    pub at: usize,
}

impl Tok<'_> {
    pub fn is_ident(&self) -> bool {
        self.text
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
    }

    pub fn range(&self) -> Range<usize> {
        self.at..self.at + self.text.len()
    }
}

/// The tokens of `line`.
pub fn tokens(line: &str) -> Vec<Tok<'_>> {
    let mut out = Vec::new();
    let mut chars = line.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c.is_whitespace() {
            continue;
        }
        if c.is_alphanumeric() || c == '_' || c == '$' {
            let mut end = i + c.len_utf8();
            while let Some(&(j, d)) = chars.peek() {
                if !(d.is_alphanumeric() || d == '_' || d == '$') {
                    break;
                }
                end = j + d.len_utf8();
                chars.next();
            }
            out.push(Tok {
                text: &line[i..end],
                at: i,
            });
            continue;
        }
        let two = line.get(i..i + 2);
        if matches!(two, Some("::" | "->" | "=>")) {
            chars.next();
            out.push(Tok {
                text: &line[i..i + 2],
                at: i,
            });
            continue;
        }
        out.push(Tok {
            text: &line[i..i + c.len_utf8()],
            at: i,
        });
    }
    out
}

/// Where a line sits: inside the body of a type (a class, struct, impl), where a bare
/// `Name(…)` declares a constructor or method.
#[derive(Debug, Clone, Copy, Default)]
pub struct Ctx {
    pub in_type: bool,
}

pub fn found(kind: Kind, tok: &Tok<'_>) -> Option<Found> {
    tok.is_ident().then(|| Found {
        kind,
        name: tok.range(),
    })
}

/// The index after any leading `words`.
pub fn skip_words(toks: &[Tok<'_>], mut i: usize, words: &[&str]) -> usize {
    while toks.get(i).is_some_and(|t| words.contains(&t.text)) {
        i += 1;
    }
    i
}

/// The index after a balanced group opened at `i` (`<…>`, `(…)`, `[…]`), or `i` when none opens
/// there.
pub fn skip_group(toks: &[Tok<'_>], i: usize) -> usize {
    let Some(open) = toks.get(i).map(|t| t.text) else {
        return i;
    };
    let close = match open {
        "<" => ">",
        "(" => ")",
        "[" => "]",
        "{" => "}",
        _ => return i,
    };
    let mut depth = 0;
    for (j, t) in toks.iter().enumerate().skip(i) {
        if t.text == open {
            depth += 1;
        } else if t.text == close || close == ">" && t.text == "->" {
            depth -= 1;
            if depth == 0 {
                return j + 1;
            }
        }
    }
    toks.len()
}
