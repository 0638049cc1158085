//! Line endings as `git add` writes them: the `text`, `eol` and `crlf` attributes and
//! `core.autocrlf` decide whether CRLF in new content is stored as LF.
//!
//! This follows git's own rules (gitattributes(5), `convert.c`): `text` (or `eol=…`, or the
//! legacy `crlf`) always stores LF; `text=auto`, and `core.autocrlf` true or input for a path
//! with no `text` attribute, store LF only for content that looks like text and only when the
//! file's current blob has no CRLF of its own (git's "safer autocrlf"); `-text` and `binary`
//! store the bytes as given. Pure: the caller supplies the attributes and the current blob.

use std::borrow::Cow;

use crate::protocol::attributes::State;

/// How content for one path is converted on its way into a blob.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conversion {
    /// Stored as given.
    None,
    /// Text: every CRLF is stored as LF.
    Text,
    /// Text when it looks like text and the current blob has no CRLF.
    Auto,
}

/// `core.autocrlf`, as git reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AutoCrlf {
    #[default]
    False,
    True,
    Input,
}

impl AutoCrlf {
    /// Reads a `core.autocrlf` value (git's boolean spellings, or `input`).
    pub fn parse(value: Option<&str>) -> AutoCrlf {
        match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
            Some("input") => AutoCrlf::Input,
            Some("true" | "yes" | "on" | "1") => AutoCrlf::True,
            _ => AutoCrlf::False,
        }
    }
}

/// The conversion for a path with these `text`, `crlf` and `eol` attribute states.
pub fn conversion(text: &State, crlf: &State, eol: &State, autocrlf: AutoCrlf) -> Conversion {
    let from = |state: &State| match state {
        State::Set => Some(Conversion::Text),
        State::Unset => Some(Conversion::None),
        State::Value(v) if v == "auto" => Some(Conversion::Auto),
        // `crlf=input` (legacy) is text; any other value is as if unspecified.
        State::Value(v) if v == "input" => Some(Conversion::Text),
        _ => None,
    };
    let eol_set = matches!(eol, State::Value(v) if v == "lf" || v == "crlf");
    match from(text).or_else(|| from(crlf)) {
        Some(c) => c,
        // `eol` alone makes a path text.
        None if eol_set => Conversion::Text,
        None => match autocrlf {
            AutoCrlf::False => Conversion::None,
            AutoCrlf::True | AutoCrlf::Input => Conversion::Auto,
        },
    }
}

/// `content` as git would store it under `how`; `current` is the path's blob in the base tree.
pub fn to_git<'a>(content: &'a [u8], how: Conversion, current: Option<&[u8]>) -> Cow<'a, [u8]> {
    if how == Conversion::None || !content.contains(&b'\r') {
        return Cow::Borrowed(content);
    }
    let stats = Stats::of(content);
    if stats.crlf == 0 {
        return Cow::Borrowed(content);
    }
    match how {
        Conversion::None => Cow::Borrowed(content),
        Conversion::Auto if stats.binary() || current.is_some_and(has_text_crlf) => {
            Cow::Borrowed(content)
        }
        Conversion::Auto | Conversion::Text => Cow::Owned(strip_crlf(content)),
    }
}

/// Content that is text and holds a CRLF (git's test on the file in the index).
fn has_text_crlf(blob: &[u8]) -> bool {
    let stats = Stats::of(blob);
    stats.crlf > 0 && !stats.binary()
}

/// Removes the CR of every CRLF; a lone CR stays.
fn strip_crlf(content: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(content.len());
    for (i, &b) in content.iter().enumerate() {
        if b == b'\r' && content.get(i + 1) == Some(&b'\n') {
            continue;
        }
        out.push(b);
    }
    out
}

/// What git counts to tell text from binary.
#[derive(Default)]
struct Stats {
    crlf: usize,
    lone_cr: usize,
    nul: usize,
    printable: usize,
    nonprintable: usize,
}

impl Stats {
    fn of(bytes: &[u8]) -> Stats {
        let mut s = Stats::default();
        let mut i = 0;
        while i < bytes.len() {
            let c = bytes[i];
            match c {
                b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                    s.crlf += 1;
                    i += 1;
                }
                b'\r' => s.lone_cr += 1,
                b'\n' => {}
                0x7f => s.nonprintable += 1,
                0 => s.nul += 1,
                // Backspace, tab, escape, form feed count as printable.
                0x08 | b'\t' | 0x1b | 0x0c => s.printable += 1,
                // A DOS end-of-file mark at the very end is not counted.
                0x1a if i + 1 == bytes.len() => {}
                c if c < 0x20 => s.nonprintable += 1,
                _ => s.printable += 1,
            }
            i += 1;
        }
        s
    }

    /// git's `convert_is_binary`.
    fn binary(&self) -> bool {
        self.lone_cr > 0 || self.nul > 0 || (self.printable >> 7) < self.nonprintable
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(v: &str) -> State {
        State::Value(v.to_string())
    }

    #[test]
    fn attributes_and_autocrlf_decide_the_conversion() {
        let u = State::Unspecified;
        let c = |text: &State, crlf: &State, eol: &State, auto| conversion(text, crlf, eol, auto);
        assert_eq!(c(&u, &u, &u, AutoCrlf::False), Conversion::None);
        assert_eq!(c(&u, &u, &u, AutoCrlf::True), Conversion::Auto);
        assert_eq!(c(&u, &u, &u, AutoCrlf::Input), Conversion::Auto);
        assert_eq!(c(&State::Set, &u, &u, AutoCrlf::False), Conversion::Text);
        assert_eq!(c(&State::Unset, &u, &u, AutoCrlf::True), Conversion::None);
        assert_eq!(c(&value("auto"), &u, &u, AutoCrlf::False), Conversion::Auto);
        assert_eq!(c(&u, &u, &value("crlf"), AutoCrlf::False), Conversion::Text);
        assert_eq!(c(&u, &State::Unset, &u, AutoCrlf::True), Conversion::None);
        assert_eq!(
            c(&u, &value("input"), &u, AutoCrlf::False),
            Conversion::Text
        );
    }

    #[test]
    fn crlf_becomes_lf_as_git_add_would() {
        let crlf = b"a\r\nb\r\n";
        assert_eq!(&*to_git(crlf, Conversion::Text, None), b"a\nb\n");
        assert_eq!(&*to_git(crlf, Conversion::Auto, None), b"a\nb\n");
        assert_eq!(&*to_git(crlf, Conversion::None, None), crlf);
        // Explicit text removes only CR before LF; auto leaves content with a lone CR alone.
        assert_eq!(&*to_git(b"a\rb\r\n", Conversion::Text, None), b"a\rb\n");
        assert_eq!(&*to_git(b"a\rb\r\n", Conversion::Auto, None), b"a\rb\r\n");
        // A file already stored with CRLF keeps it under auto, not under text.
        let stored = Some(&b"x\r\n"[..]);
        assert_eq!(&*to_git(crlf, Conversion::Auto, stored), crlf);
        assert_eq!(&*to_git(crlf, Conversion::Text, stored), b"a\nb\n");
        // Binary-looking content is not touched by auto.
        let binary = b"\x01\x02\x03\r\n";
        assert_eq!(&*to_git(binary, Conversion::Auto, None), binary);
    }
}
