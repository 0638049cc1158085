//! The ways two lines may be compared, from byte-exact to forgiving.
//!
//! Each [`Norm`] maps a line to a key; two lines match at that level when their keys are equal.
//! Levels only ever forgive more, never differently: a pair equal at one level is equal at every
//! later one. Nothing here decides *where* a hunk goes; that is the ladder's job.

use std::borrow::Cow;

/// A comparison level for single lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Norm {
    /// The text without its line ending.
    Text,
    /// Trailing whitespace ignored.
    TrimEnd,
    /// Leading and trailing whitespace ignored.
    Trim,
    /// As `Trim`, plus typographic punctuation folded to ASCII and inner whitespace runs
    /// collapsed to one space.
    Punct,
}

impl Norm {
    pub fn key<'a>(self, line: &'a str) -> Cow<'a, str> {
        match self {
            Norm::Text => Cow::Borrowed(line),
            Norm::TrimEnd => Cow::Borrowed(line.trim_end()),
            Norm::Trim => Cow::Borrowed(line.trim()),
            Norm::Punct => fold(line.trim()),
        }
    }
}

/// The ASCII stand-in for a typographic character, if it has one.
fn fold_char(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '\u{02BC}' => "'",
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' | '\u{00AB}'
        | '\u{00BB}' => "\"",
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}'
        | '\u{2212}' | '\u{FE58}' | '\u{FE63}' | '\u{FF0D}' => "-",
        '\u{2026}' => "...",
        '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => " ",
        '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}' | '\u{FEFF}' => "",
        _ => return None,
    })
}

/// Folds typographic punctuation to ASCII and collapses whitespace runs to one space.
pub(crate) fn fold(line: &str) -> Cow<'_, str> {
    let plain = line.chars().all(|c| c.is_ascii() && c != '\t')
        && !line.as_bytes().windows(2).any(|w| w == b"  ");
    if plain {
        return Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len());
    let push = |s: &str, out: &mut String| {
        for c in s.chars() {
            if c.is_whitespace() {
                if !out.ends_with(' ') {
                    out.push(' ');
                }
            } else {
                out.push(c);
            }
        }
    };
    for c in line.chars() {
        match fold_char(c) {
            Some(s) => push(s, &mut out),
            None => {
                let mut buf = [0u8; 4];
                push(c.encode_utf8(&mut buf), &mut out);
            }
        }
    }
    Cow::Owned(out.trim().to_string())
}

/// Blank: empty or only whitespace.
pub(crate) fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// Trivial: says nothing about where it is (blank, `}`, `*/`, `);` …) — no letter or digit.
pub(crate) fn is_trivial(line: &str) -> bool {
    !line.chars().any(char::is_alphanumeric)
}

/// The leading whitespace of a line.
pub(crate) fn indent(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_forgive_more_and_more() {
        let file = "    let s = \"a - b\";";
        let model = "  let s = \u{201C}a \u{2013} b\u{201D};  ";
        assert_ne!(Norm::Text.key(file), Norm::Text.key(model));
        assert_ne!(Norm::TrimEnd.key(file), Norm::TrimEnd.key(model));
        assert_ne!(Norm::Trim.key(file), Norm::Trim.key(model));
        assert_eq!(Norm::Punct.key(file), Norm::Punct.key(model));
    }

    #[test]
    fn fold_handles_spaces_and_ellipsis() {
        assert_eq!(fold("a\u{00A0}\u{00A0}b\u{2026}"), "a b...");
        assert_eq!(fold("x\t=\t1"), "x = 1");
        assert_eq!(fold("\u{FEFF}fn"), "fn");
    }

    #[test]
    fn trivial_lines() {
        assert!(is_trivial("    }"));
        assert!(is_trivial(""));
        assert!(!is_trivial("  x"));
        assert_eq!(indent("\t  x "), "\t  ");
    }
}
