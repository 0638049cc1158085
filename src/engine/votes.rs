//! Votes among samples: proposals whose resulting files are the same answer.
//!
//! Several samples of one goal often arrive at the same fix written a little differently: other
//! blank lines, another comment, a line broken elsewhere. Counted as one answer supported by N
//! samples, agreement is evidence — the answer more samples reach is more likely right among
//! proposals the checks cannot tell apart. Two proposals are the same answer when every file
//! they change ends with the same tokens: whitespace between tokens and comments are ignored
//! (per language, by the file's extension), string literals are kept exactly. Pure.

use sha2::{Digest, Sha256};

use crate::executor::FileChange;

/// How a language writes comments.
struct Comments {
    line: &'static [&'static str],
    block: Option<(&'static str, &'static str)>,
}

fn comments(path: &str) -> Comments {
    let ext = path.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
    let hash = Comments {
        line: &["#"],
        block: None,
    };
    let c_like = Comments {
        line: &["//"],
        block: Some(("/*", "*/")),
    };
    match ext {
        "py" | "pyi" | "rb" | "sh" | "bash" | "pl" | "r" | "toml" | "yaml" | "yml" | "cfg" => hash,
        "rs" | "go" | "c" | "h" | "cc" | "cpp" | "hpp" | "cxx" | "java" | "kt" | "kts" | "js"
        | "jsx" | "ts" | "tsx" | "mjs" | "cjs" | "cs" | "swift" | "scala" | "dart" | "php" => {
            c_like
        }
        "sql" | "lua" | "hs" => Comments {
            line: &["--"],
            block: None,
        },
        _ => Comments {
            line: &[],
            block: None,
        },
    }
}

/// The file's tokens, one space between any two that would otherwise run together, comments
/// left out, string literals as written.
pub fn normalize(path: &str, text: &str) -> String {
    let style = comments(path);
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    let mut i = 0;
    let starts = |i: usize, s: &str| {
        s.chars()
            .enumerate()
            .all(|(k, c)| chars.get(i + k) == Some(&c))
    };
    while i < chars.len() {
        let c = chars[i];
        if style.line.iter().any(|m| starts(i, m)) {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            pending_space = true;
            continue;
        }
        if let Some((open, close)) = style.block.filter(|(open, _)| starts(i, open)) {
            i += open.chars().count();
            while i < chars.len() && !starts(i, close) {
                i += 1;
            }
            i = (i + close.chars().count()).min(chars.len());
            pending_space = true;
            continue;
        }
        if c.is_whitespace() {
            pending_space = true;
            i += 1;
            continue;
        }
        if pending_space && out.ends_with(is_word) && is_word(c) {
            out.push(' ');
        }
        pending_space = false;
        if matches!(c, '"' | '\'' | '`') {
            i = copy_string(&chars, i, &mut out);
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Copies the string literal starting at `start` (its quotes and escapes as written); returns
/// the index after it. An unterminated literal runs to the end of its line.
fn copy_string(chars: &[char], start: usize, out: &mut String) -> usize {
    let quote = chars[start];
    out.push(quote);
    let mut i = start + 1;
    while i < chars.len() {
        let c = chars[i];
        out.push(c);
        i += 1;
        if c == '\\' && i < chars.len() {
            out.push(chars[i]);
            i += 1;
        } else if c == quote || (c == '\n' && quote != '`') {
            break;
        }
    }
    i
}

/// What a proposal's answer is, for votes: a hash of every changed path with its normalized
/// resulting content (or its deletion). Equal for proposals that are the same answer.
pub fn answer(changes: &[FileChange]) -> String {
    let mut files: Vec<(&str, Option<String>)> = changes
        .iter()
        .map(|c| {
            let text = c
                .new
                .as_deref()
                .map(|bytes| normalize(&c.path, &String::from_utf8_lossy(bytes)));
            (c.path.as_str(), text)
        })
        .collect();
    files.sort();
    let mut hash = Sha256::new();
    for (path, text) in files {
        hash.update(path.as_bytes());
        hash.update([0]);
        match text {
            Some(text) => {
                hash.update([1]);
                hash.update(text.as_bytes());
            }
            None => hash.update([2]),
        }
        hash.update([0]);
    }
    hash.finalize()[..12]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_and_comments_do_not_make_another_answer() {
        let a = "def add(a, b):\n    return a + b\n";
        let b = "def add(a,b):  # fixed\n\n    return a+b\n";
        assert_eq!(normalize("calc.py", a), normalize("calc.py", b));
        let c = "def add(a, b):\n    return b + a\n";
        assert_ne!(normalize("calc.py", a), normalize("calc.py", c));
        let rust = "fn add(a: i32, b: i32) -> i32 {\n    a + b // sum\n}\n";
        let rust2 = "/* adds */ fn add(a: i32, b: i32) -> i32 { a + b }";
        assert_eq!(normalize("lib.rs", rust), normalize("lib.rs", rust2));
    }

    #[test]
    fn strings_are_kept_as_written() {
        assert_ne!(
            normalize("m.py", "x = 'a  b'\n"),
            normalize("m.py", "x = 'a b'\n")
        );
        // A comment marker inside a string is no comment.
        assert_ne!(
            normalize("m.py", "x = '#1'\n"),
            normalize("m.py", "x = '#2'\n")
        );
        assert_eq!(normalize("m.js", "s = \"//\";"), "s=\"//\";");
        // Words stay apart; operators join.
        assert_eq!(normalize("m.py", "return  a  +  b"), "return a+b");
    }
}
