//! Untrusted text made safe for a terminal.
//!
//! Everything papayu prints from a model's answer or a teammate's note — goal, summary, steps,
//! risks, questions, suggested commands, paths, file contents in a preview, a check's output —
//! could carry terminal control sequences: ESC sequences that rewrite the screen, OSC 52 writes
//! to the clipboard, BEL, a CR that hides what came before it on the line, or bidi controls that
//! show text in another order than it is. These functions make every such character visible
//! instead: C0 controls in caret notation (`^[` for ESC, `^M` for CR), DEL as `^?`, and C1
//! controls, bidi controls and invisible format characters as `<U+202E>`.
//!
//! They must never drop a character silently (what was there stays visible) and never let one
//! of these characters through.

use std::borrow::Cow;

/// `true` for a character that must not reach a terminal raw: C0 and C1 controls, DEL, bidi
/// controls, invisible format characters, and the Unicode line and paragraph separators.
pub fn is_hazard(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{00AD}' | '\u{061C}' | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{2028}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}')
}

fn visible(c: char, out: &mut String) {
    match c {
        '\0'..='\u{1f}' => {
            out.push('^');
            out.push(char::from(c as u8 + 0x40));
        }
        '\u{7f}' => out.push_str("^?"),
        _ => out.push_str(&format!("<U+{:04X}>", u32::from(c))),
    }
}

fn escape(text: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(|c| is_hazard(c) && !keep(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_hazard(c) && !keep(c) {
            visible(c, &mut out);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A one-line field (goal, a step, a path, a risk): every hazard made visible, newlines and
/// tabs included.
pub fn line(text: &str) -> Cow<'_, str> {
    escape(text, |_| false)
}

/// A multi-line field (a summary, a report, a file's content): newlines and tabs kept, every
/// other hazard made visible.
pub fn block(text: &str) -> Cow<'_, str> {
    escape(text, |c| c == '\n' || c == '\t')
}

/// A file's text shown on a terminal: newlines, tabs and the CR of a CRLF kept, every other
/// hazard (a lone CR included) made visible.
pub fn data(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| is_hazard(c) && c != '\n' && c != '\t') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix("\r\n") {
            Some(body) => (body, "\r\n"),
            None => line
                .strip_suffix('\n')
                .map_or((line, ""), |body| (body, "\n")),
        };
        out.push_str(&block(body));
        out.push_str(end);
    }
    Cow::Owned(out)
}

/// JSON text made terminal-safe without changing its meaning: JSON already escapes C0 controls,
/// but not DEL, C1 controls or bidi and format characters, which may only occur inside strings
/// and are written there as `\uXXXX`.
pub fn json(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_hazard_in_json) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_hazard_in_json(c) {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn is_hazard_in_json(c: char) -> bool {
    is_hazard(c) && !matches!(c, '\n' | '\t' | '\r' | ' ')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_become_visible() {
        assert_eq!(line("a\u{1b}[2Jb"), "a^[[2Jb");
        assert_eq!(line("\u{1b}]52;c;aGk=\u{7}"), "^[]52;c;aGk=^G");
        assert_eq!(line("ok\rEVIL"), "ok^MEVIL");
        assert_eq!(line("a\nb\tc"), "a^Jb^Ic");
        assert_eq!(block("a\nb\tc\r"), "a\nb\tc^M");
        assert_eq!(line("x\u{7f}\u{9b}y"), "x^?<U+009B>y");
        assert_eq!(line("abc\u{202E}fed"), "abc<U+202E>fed");
        assert_eq!(
            line("a\u{200B}\u{2066}\u{FEFF}"),
            "a<U+200B><U+2066><U+FEFF>"
        );
        assert!(matches!(line("plain – ünïcode ✓"), Cow::Borrowed(_)));
    }

    #[test]
    fn output_never_holds_a_hazard() {
        let nasty: String = (0u32..0x3000).filter_map(char::from_u32).collect();
        assert!(!line(&nasty).chars().any(is_hazard));
        assert!(
            !block(&nasty)
                .chars()
                .any(|c| is_hazard(c) && c != '\n' && c != '\t')
        );
    }

    #[test]
    fn data_keeps_line_endings_and_shows_the_rest() {
        assert_eq!(data("a\r\nb\tc\r\n"), "a\r\nb\tc\r\n");
        assert_eq!(data("a\rb\r\n\x0c\x1b[2J\n"), "a^Mb\r\n^L^[[2J\n");
        assert_eq!(data("end\r"), "end^M");
    }

    #[test]
    fn json_stays_json() {
        let value = serde_json::json!({"s": "a\u{7f}\u{85}\u{202e}\u{1b}b"});
        let text = serde_json::to_string(&value).unwrap();
        let safe = json(&text);
        assert!(!safe.chars().any(is_hazard_in_json), "{safe}");
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, value);
    }
}
