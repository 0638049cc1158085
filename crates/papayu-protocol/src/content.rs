//! Rules for the text a plan carries (file content and patches): size, NUL, binary-looking
//! text, and the optional line-ending normalization.
//!
//! Content is kept byte-exact unless the caller asked for LF normalization; this module must
//! never change text in any other way (no trimming, no re-encoding).

use papayu_core::codes::Code;

/// Largest `content` (or `patch`) of one action: 1 MiB = 1 048 576 bytes of UTF-8.
pub const MAX_FILE_BYTES: usize = 1024 * 1024;

/// Largest sum of all actions' `content` and `patch` bytes: 5 MiB = 5 242 880 bytes.
pub const MAX_TOTAL_BYTES: usize = 5 * 1024 * 1024;

/// `\r\n` → `\n`, and a final `\n` on non-empty text (`PAPAYU_NORMALIZE_EOL=lf`).
pub fn normalize_eol(text: &str) -> String {
    let mut out = text.replace("\r\n", "\n");
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// `true` for the characters that count against `check_text`'s 10 % rule: Unicode control
/// characters (C0, DEL, C1) other than tab, line feed and carriage return.
pub fn is_non_printable(c: char) -> bool {
    c.is_control() && !matches!(c, '\t' | '\n' | '\r')
}

/// The first content rule `text` breaks: a NUL character, or more than 10 % non-printable
/// characters. `what` names the field in the reason (`content`, `patch`).
pub(crate) fn check_text(text: &str, what: &str) -> Option<(Code, String)> {
    if let Some(pos) = text.find('\0') {
        return Some((
            Code::ContentNul,
            format!(
                "{what} contains a NUL character (byte {pos}); binary files cannot be written through a plan"
            ),
        ));
    }
    let mut total = 0usize;
    let mut bad = 0usize;
    for c in text.chars() {
        total += 1;
        if is_non_printable(c) {
            bad += 1;
        }
    }
    if bad * 10 > total {
        return Some((
            Code::PseudoBinary,
            format!(
                "{what} looks binary: {bad} of {total} characters are control characters (more than 10 %); send text only"
            ),
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eol() {
        assert_eq!(normalize_eol("a\r\nb"), "a\nb\n");
        assert_eq!(normalize_eol(""), "");
        assert_eq!(normalize_eol("a\n"), "a\n");
        assert_eq!(normalize_eol("a\rb"), "a\rb\n");
    }

    #[test]
    fn text_rules() {
        assert_eq!(check_text("hello\n\tworld\r\n", "content"), None);
        assert_eq!(check_text("a\0b", "content").unwrap().0, Code::ContentNul);
        // exactly 10 % passes, more fails
        assert_eq!(check_text("\u{1}bcdefghij", "content"), None);
        assert_eq!(
            check_text("\u{1}\u{2}cdefghij", "content").unwrap().0,
            Code::PseudoBinary
        );
        assert_eq!(check_text("", "content"), None);
    }
}
