//! REPLACE_RANGE: replacing lines by number.
//!
//! Line numbers are 1-based and inclusive; `end_line == start_line - 1` inserts before
//! `start_line` (so `start_line == lines + 1` appends). The new lines take the file's line
//! ending and the file keeps its final-newline state. It must never accept a range that is not
//! wholly inside the file.

use super::text::{Edit, FileText, Out, render};
use papayu_core::codes::{Code, Problem};

/// Replaces lines `start_line..=end_line` of `original` with the lines of `content`.
pub fn replace_range(
    original: &str,
    start_line: usize,
    end_line: usize,
    content: &str,
) -> Result<String, Problem> {
    let file = FileText::new(original);
    let n = file.len();
    let valid = start_line >= 1 && end_line + 1 >= start_line && end_line <= n;
    if !valid {
        return Err(Problem::new(
            Code::RangeInvalid,
            format!(
                "lines {start_line}-{end_line} are not a range of this {n}-line file; \
                 use 1-based inclusive lines (end = start - 1 to insert before start)"
            ),
        ));
    }
    let new_lines: Vec<Out> = FileText::new(content)
        .lines
        .iter()
        .map(|l| Out::New(l.text.to_string()))
        .collect();
    let edit = Edit {
        start: start_line - 1,
        end: end_line,
        lines: new_lines,
    };
    let final_newline = match n {
        0 => content.ends_with('\n'),
        _ => file.final_newline,
    };
    if n == 0 {
        // An empty file has no line-ending style of its own: the content keeps its own.
        return Ok(render(&FileText::new(content), &[], final_newline));
    }
    Ok(render(&file, &[edit], final_newline))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_inserts_and_appends() {
        let f = "a\nb\nc\n";
        assert_eq!(replace_range(f, 2, 2, "B\n").unwrap(), "a\nB\nc\n");
        assert_eq!(replace_range(f, 2, 1, "x").unwrap(), "a\nx\nb\nc\n");
        assert_eq!(replace_range(f, 4, 3, "d\n").unwrap(), "a\nb\nc\nd\n");
        assert_eq!(replace_range(f, 1, 3, "").unwrap(), "");
        assert_eq!(replace_range(f, 1, 2, "").unwrap(), "c\n");
    }

    #[test]
    fn keeps_crlf_and_missing_final_newline() {
        assert_eq!(
            replace_range("a\r\nb\r\nc", 3, 3, "x\ny\n").unwrap(),
            "a\r\nb\r\nx\r\ny"
        );
        assert_eq!(
            replace_range("a\r\nb\r\n", 1, 1, "z").unwrap(),
            "z\r\nb\r\n"
        );
    }

    #[test]
    fn empty_file_takes_the_content() {
        assert_eq!(replace_range("", 1, 0, "x\r\ny\r\n").unwrap(), "x\r\ny\r\n");
        assert_eq!(replace_range("", 1, 0, "x").unwrap(), "x");
    }

    #[test]
    fn out_of_range_is_refused() {
        for (s, e) in [(0, 0), (3, 1), (2, 4), (5, 4)] {
            let err = replace_range("a\nb\nc\n", s, e, "x").unwrap_err();
            assert_eq!(err.code, Code::RangeInvalid, "{s}-{e}");
        }
    }
}
