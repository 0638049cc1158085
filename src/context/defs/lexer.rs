//! Comments and the insides of strings, blanked: what is left of a file is the code whose words
//! and braces say where definitions begin and end. Every byte keeps its offset (a blanked byte
//! becomes a space, a newline stays a newline), so a name found in the blanked text is at the
//! same place in the original.
//!
//! This is a lexer, not a parser, and it errs on the side of the common: regular-expression
//! literals (`/"/` in JavaScript or Ruby) and `%q{…}` strings are read as code.

use super::Lang;

#[derive(Debug, Clone, PartialEq)]
enum State {
    Code,
    LineComment,
    /// Nesting depth (Rust, Swift and Kotlin nest block comments).
    Block(u32),
    Str {
        close: Vec<u8>,
        escapes: bool,
        multiline: bool,
    },
    /// Inside a heredoc, until a line starting with the terminator.
    Heredoc(Vec<u8>),
}

/// How a language writes comments and strings.
struct Syntax {
    slashes: bool,
    hash: bool,
    nested_blocks: bool,
    single_quote_strings: bool,
    /// Ordinary strings may span lines.
    multiline: bool,
    triple_quotes: bool,
    backtick: bool,
    heredoc: bool,
}

/// The C family's: `//` and `/* */`, double-quoted strings on one line.
const C_LIKE: Syntax = Syntax {
    slashes: true,
    hash: false,
    nested_blocks: false,
    single_quote_strings: false,
    multiline: false,
    triple_quotes: false,
    backtick: false,
    heredoc: false,
};

fn syntax(lang: Lang) -> Syntax {
    let base = C_LIKE;
    match lang {
        Lang::Python => Syntax {
            slashes: false,
            hash: true,
            single_quote_strings: true,
            triple_quotes: true,
            ..base
        },
        Lang::Ruby => Syntax {
            slashes: false,
            hash: true,
            single_quote_strings: true,
            multiline: true,
            heredoc: true,
            ..base
        },
        Lang::Php => Syntax {
            hash: true,
            single_quote_strings: true,
            multiline: true,
            heredoc: true,
            ..base
        },
        Lang::Script => Syntax {
            single_quote_strings: true,
            backtick: true,
            ..base
        },
        Lang::Go => Syntax {
            backtick: true,
            ..base
        },
        Lang::Rust => Syntax {
            nested_blocks: true,
            multiline: true,
            ..base
        },
        Lang::Swift | Lang::Kotlin => Syntax {
            nested_blocks: true,
            triple_quotes: true,
            ..base
        },
        Lang::Java | Lang::CSharp => Syntax {
            triple_quotes: true,
            ..base
        },
        Lang::C | Lang::Cpp => base,
    }
}

/// What to do at a byte.
enum Step {
    /// Blank this many bytes, staying in the state.
    Blank(usize),
    /// Keep this many bytes (code, or a delimiter that opened a construct).
    Keep(usize),
    /// Keep this many bytes of a closing delimiter and return to code.
    Close(usize),
}

/// `text` with comments and string contents blanked, byte for byte.
pub fn blank(lang: Lang, text: &str) -> String {
    let syn = syntax(lang);
    let src = text.as_bytes();
    let mut out = src.to_vec();
    let mut state = State::Code;
    let mut pending_heredoc: Option<Vec<u8>> = None;
    let mut i = 0;
    while i < src.len() {
        let line_start = i == 0 || src[i - 1] == b'\n';
        if src[i] == b'\n' {
            end_of_line(&mut state, &mut pending_heredoc);
            i += 1;
            continue;
        }
        let step = match &mut state {
            State::Code => code(
                lang,
                &syn,
                src,
                i,
                line_start,
                &mut state,
                &mut pending_heredoc,
            ),
            // The rest of the line, at once.
            State::LineComment => {
                Step::Blank(memchr::memchr(b'\n', &src[i..]).unwrap_or(src.len() - i))
            }
            State::Block(depth) => block(&syn, src, i, depth),
            State::Str { close, escapes, .. } => string(src, i, close, *escapes),
            State::Heredoc(term) => heredoc(src, i, line_start, term),
        };
        match step {
            Step::Blank(n) => {
                for b in out.iter_mut().skip(i).take(n) {
                    if *b != b'\n' {
                        *b = b' ';
                    }
                }
                i += n.max(1);
            }
            Step::Keep(n) => i += n.max(1),
            Step::Close(n) => {
                state = State::Code;
                i += n.max(1);
            }
        }
    }
    // Blanking replaces whole bytes of multi-byte characters with spaces: still UTF-8.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// A line ends: line comments and one-line strings with it; a heredoc opened on it begins.
fn end_of_line(state: &mut State, pending_heredoc: &mut Option<Vec<u8>>) {
    if matches!(state, State::LineComment)
        || matches!(
            state,
            State::Str {
                multiline: false,
                ..
            }
        )
    {
        *state = State::Code;
    }
    if let (State::Code, Some(term)) = (&state, pending_heredoc.take()) {
        *state = State::Heredoc(term);
    }
}

#[inline]
fn starts(src: &[u8], i: usize, s: &[u8]) -> bool {
    // The first byte alone rules out most places; an empty `s` starts everywhere.
    s.first().is_none_or(|f| src.get(i) == Some(f)) && src.get(i..i + s.len()) == Some(s)
}

/// Whether a byte in code may open a comment, a string or a heredoc: any other byte is kept
/// as it is without looking further (most bytes of a file, so this is the lexer's fast path).
#[inline]
fn may_open(c: u8) -> bool {
    matches!(
        c,
        b'/' | b'#' | b'=' | b'<' | b'"' | b'\'' | b'`' | b'R' | b'r' | b'b'
    )
}

/// In code at `i`: enters a comment or string (keeping its opening delimiter), or keeps an
/// ordinary byte.
fn code(
    lang: Lang,
    syn: &Syntax,
    src: &[u8],
    i: usize,
    line_start: bool,
    state: &mut State,
    heredoc: &mut Option<Vec<u8>>,
) -> Step {
    let c = src[i];
    if !may_open(c) {
        return Step::Keep(1);
    }
    if syn.slashes && starts(src, i, b"//") || syn.hash && c == b'#' && !starts(src, i, b"#[") {
        *state = State::LineComment;
        return Step::Blank(1);
    }
    if syn.slashes && starts(src, i, b"/*") {
        *state = State::Block(1);
        return Step::Blank(2);
    }
    if lang == Lang::Ruby && line_start && starts(src, i, b"=begin") {
        *state = State::Heredoc(b"=end".to_vec());
        return Step::Blank(6);
    }
    if syn.heredoc
        && let Some((term, len)) = heredoc_start(lang, src, i)
    {
        *heredoc = Some(term);
        return Step::Keep(len);
    }
    let (close, escapes, multiline, open) = match string_start(lang, syn, src, i) {
        Some(s) => s,
        None => return Step::Keep(1),
    };
    *state = State::Str {
        close,
        escapes,
        multiline,
    };
    Step::Keep(open)
}

/// A string starting at `i`: its closing delimiter, whether backslash escapes, whether it may
/// span lines, and the opening's length.
fn string_start(
    lang: Lang,
    syn: &Syntax,
    src: &[u8],
    i: usize,
) -> Option<(Vec<u8>, bool, bool, usize)> {
    let prev = if i > 0 { src[i - 1] } else { b'\n' };
    let triple = starts(src, i, b"\"\"\"") || lang == Lang::Python && starts(src, i, b"\'\'\'");
    if syn.triple_quotes && triple {
        return Some((src[i..i + 3].to_vec(), lang != Lang::Kotlin, true, 3));
    }
    if let Some((close, open)) = raw_string(lang, src, i) {
        return Some((close, false, true, open));
    }
    match src[i] {
        b'"' => {
            let verbatim = lang == Lang::CSharp && (prev == b'@' || i >= 2 && src[i - 2] == b'@');
            Some((b"\"".to_vec(), !verbatim, syn.multiline || verbatim, 1))
        }
        b'\'' if syn.single_quote_strings => Some((b"'".to_vec(), true, syn.multiline, 1)),
        b'\'' if !prev.is_ascii_alphanumeric() && char_literal(src, i).is_some() => {
            Some((b"'".to_vec(), true, false, 1))
        }
        b'`' if syn.backtick => Some((b"`".to_vec(), lang == Lang::Script, true, 1)),
        _ => None,
    }
}

/// The length of a character literal starting at `i` (`'a'`, `'\n'`, `'\u{1F600}'`), if it is
/// one (not a Rust lifetime `'a`, not a C++14 digit separator).
fn char_literal(src: &[u8], i: usize) -> Option<usize> {
    let rest = &src[i + 1..src.len().min(i + 14)];
    let end = if rest.first() == Some(&b'\\') {
        rest.iter().skip(2).position(|&b| b == b'\'').map(|p| p + 2)
    } else {
        let width = match rest.first()? {
            b if *b < 0x80 => 1,
            b if *b >= 0xF0 => 4,
            b if *b >= 0xE0 => 3,
            _ => 2,
        };
        (rest.get(width) == Some(&b'\'')).then_some(width)
    }?;
    (!rest[..end].contains(&b'\n')).then_some(end + 2)
}

/// A raw string's closing delimiter and the opening's length: C++ `R"x(…)x"`, Rust `r#"…"#`.
fn raw_string(lang: Lang, src: &[u8], i: usize) -> Option<(Vec<u8>, usize)> {
    let prev_ident = i > 0 && (src[i - 1].is_ascii_alphanumeric() || src[i - 1] == b'_');
    if prev_ident {
        return None;
    }
    match lang {
        Lang::Cpp if starts(src, i, b"R\"") => {
            let open = src[i + 2..].iter().take(17).position(|&b| b == b'(')?;
            let delim = &src[i + 2..i + 2 + open];
            let mut close = vec![b')'];
            close.extend_from_slice(delim);
            close.push(b'"');
            Some((close, open + 3))
        }
        Lang::Rust if src[i] == b'r' || starts(src, i, b"br") => {
            let at = if src[i] == b'b' { i + 2 } else { i + 1 };
            let hashes = src[at..].iter().take_while(|&&b| b == b'#').count();
            (src.get(at + hashes) == Some(&b'"')).then(|| {
                let mut close = vec![b'"'];
                close.extend(std::iter::repeat_n(b'#', hashes));
                (close, at + hashes + 1 - i)
            })
        }
        _ => None,
    }
}

/// A heredoc opened at `i` (PHP `<<<EOT`, `<<<'EOT'`; Ruby `<<~EOS`, `<<-EOS`, `<<EOS`): its
/// terminator and the length of the opener.
fn heredoc_start(lang: Lang, src: &[u8], i: usize) -> Option<(Vec<u8>, usize)> {
    let mut at = i;
    if lang == Lang::Php {
        if !starts(src, i, b"<<<") {
            return None;
        }
        at += 3;
    } else {
        if !starts(src, i, b"<<") {
            return None;
        }
        at += 2;
        if matches!(src.get(at), Some(b'~' | b'-')) {
            at += 1;
        }
    }
    while src.get(at) == Some(&b' ') && lang == Lang::Php {
        at += 1;
    }
    let quoted = matches!(src.get(at), Some(b'\'' | b'"'));
    let name_at = at + usize::from(quoted);
    let len = src[name_at..]
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    let name = &src[name_at..name_at + len];
    // Ruby's `<<` is also a shift and an append: a terminator is written in capitals.
    let plausible =
        len > 0 && (lang == Lang::Php || name.iter().all(|b| b.is_ascii_uppercase() || *b == b'_'));
    plausible.then(|| (name.to_vec(), name_at + len + usize::from(quoted) - i))
}

/// In a block comment at `i`.
fn block(syn: &Syntax, src: &[u8], i: usize, depth: &mut u32) -> Step {
    if starts(src, i, b"*/") {
        *depth -= 1;
        if *depth == 0 {
            return Step::Close(2);
        }
        return Step::Blank(2);
    }
    if syn.nested_blocks && starts(src, i, b"/*") {
        *depth += 1;
        return Step::Blank(2);
    }
    Step::Blank(1)
}

/// In a string at `i`.
fn string(src: &[u8], i: usize, close: &[u8], escapes: bool) -> Step {
    let next = src.get(i + 1).copied();
    if escapes && src[i] == b'\\' && next.is_some_and(|b| b != b'\n') {
        return Step::Blank(2);
    }
    if !escapes && close == b"\"" && src[i] == b'"' && next == Some(b'"') {
        // C# verbatim strings double their quotes.
        return Step::Blank(2);
    }
    if starts(src, i, close) {
        return Step::Close(close.len());
    }
    Step::Blank(1)
}

/// In a heredoc at `i`: its terminator, first on a line, ends it.
fn heredoc(src: &[u8], i: usize, line_start: bool, term: &[u8]) -> Step {
    if line_start {
        let indent = src[i..]
            .iter()
            .take_while(|b| **b == b' ' || **b == b'\t')
            .count();
        let at = i + indent;
        let after = src.get(at + term.len());
        if starts(src, at, term) && !after.is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            return Step::Close(indent + term.len());
        }
    }
    Step::Blank(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_strings_are_blanked_in_place() {
        let text = "int f(char c) { // a { brace\n  return c == '{' ? g(\"}\") : 0; /* } */\n}\n";
        let got = blank(Lang::C, text);
        assert_eq!(got.len(), text.len());
        assert_eq!(got.matches('{').count(), 1, "{got}");
        assert_eq!(got.matches('}').count(), 1, "{got}");
        assert!(got.contains("int f(char c) {"));
    }

    #[test]
    fn multiline_strings_heredocs_and_raw_strings() {
        let py = "x = \"\"\"\ndef not_a_def():\n\"\"\"\ndef real():\n    pass\n";
        assert!(!blank(Lang::Python, py).contains("not_a_def"));
        assert!(blank(Lang::Python, py).contains("def real"));
        let rb = "X = <<~EOS\n  def hidden\n  EOS\ndef shown\nend\n";
        let got = blank(Lang::Ruby, rb);
        assert!(
            !got.contains("hidden") && got.contains("def shown"),
            "{got}"
        );
        let php = "$s = <<<'SQL'\nfunction hidden() {\nSQL;\nfunction shown() {}\n";
        let got = blank(Lang::Php, php);
        assert!(
            !got.contains("hidden") && got.contains("function shown"),
            "{got}"
        );
        let cpp = "auto s = R\"x(a \" } { )x\"; int g() {}\n";
        let got = blank(Lang::Cpp, cpp);
        assert_eq!(got.matches('{').count(), 1, "{got}");
        let rs = "fn f<'a>(x: &'a str) -> char { let s = r#\"}\"#; '}' }\n";
        let got = blank(Lang::Rust, rs);
        assert_eq!(got.matches('}').count(), 1, "{got}");
        assert!(got.contains("<'a>"), "a lifetime is not a character: {got}");
        let cs = "var p = @\"C:\\dir\"\"{\"; class A {}\n";
        let got = blank(Lang::CSharp, cs);
        assert_eq!(got.matches('{').count(), 1, "{got}");
        let go = "var s = `\n}\n`\nfunc f() {}\n";
        assert_eq!(blank(Lang::Go, go).matches('}').count(), 1);
    }

    #[test]
    fn escapes_and_non_ascii_text_keep_offsets() {
        let text = "s = \"a \\\" } é\" + '\\\\'; t = 1 # { é\n";
        let got = blank(Lang::Python, text);
        assert_eq!(got.len(), text.len());
        assert!(!got.contains('}') && !got.contains('{'), "{got}");
        assert!(got.contains("t = 1"), "{got}");
        let nested = "/* a /* b */ still } */ fn f() {}\n";
        assert_eq!(blank(Lang::Rust, nested).matches('}').count(), 1);
    }
}
