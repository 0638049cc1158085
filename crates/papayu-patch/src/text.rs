//! A file's text as lines plus the line-ending facts needed to write it back unchanged.
//!
//! Matching works on line text without its ending; this module remembers each line's own ending,
//! the file's dominant style and whether it ends with a newline, and rebuilds the output so that
//! untouched lines keep their bytes and new lines take the file's style. It must never change a
//! line it was not asked to change.

/// One line of the original file, without its ending.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FileLine<'a> {
    pub text: &'a str,
    /// The line ended with `\r\n` (false for `\n` and for a last line without ending).
    pub cr: bool,
}

/// The original file split into lines.
#[derive(Debug)]
pub(crate) struct FileText<'a> {
    pub lines: Vec<FileLine<'a>>,
    /// The last line is followed by a line ending.
    pub final_newline: bool,
    /// The ending new lines get: `\r\n` when most of the file's lines use it, else `\n`.
    pub eol: &'static str,
}

impl<'a> FileText<'a> {
    pub fn new(text: &'a str) -> FileText<'a> {
        let mut lines = Vec::new();
        let mut rest = text;
        let mut final_newline = false;
        while !rest.is_empty() {
            match rest.find('\n') {
                Some(i) => {
                    let raw = &rest[..i];
                    let (line, cr) = match raw.strip_suffix('\r') {
                        Some(stripped) => (stripped, true),
                        None => (raw, false),
                    };
                    lines.push(FileLine { text: line, cr });
                    rest = &rest[i + 1..];
                    final_newline = true;
                }
                None => {
                    lines.push(FileLine {
                        text: rest,
                        cr: false,
                    });
                    rest = "";
                    final_newline = false;
                }
            }
        }
        let terminated = if final_newline {
            lines.len()
        } else {
            lines.len().saturating_sub(1)
        };
        let crlf = lines[..terminated].iter().filter(|l| l.cr).count();
        let eol = if crlf * 2 > terminated { "\r\n" } else { "\n" };
        FileText {
            lines,
            final_newline,
            eol,
        }
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// The ending line `i` had in the original (`""` for a last line without one).
    fn ending(&self, i: usize) -> &'static str {
        if i + 1 == self.lines.len() && !self.final_newline {
            ""
        } else if self.lines[i].cr {
            "\r\n"
        } else {
            "\n"
        }
    }
}

/// One line of output: an original line kept as it was, or a new line from the diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Out {
    Keep(usize),
    New(String),
}

/// A hunk's effect: original lines `start..end` are replaced by `lines`.
#[derive(Debug, Clone)]
pub(crate) struct Edit {
    pub start: usize,
    pub end: usize,
    pub lines: Vec<Out>,
}

/// Rebuilds the file from `edits` (sorted, non-overlapping), ending with a newline or not as
/// `final_newline` says. Kept lines keep their own ending; new lines take the file's style.
pub(crate) fn render(file: &FileText<'_>, edits: &[Edit], final_newline: bool) -> String {
    let mut pieces: Vec<(&str, &'static str)> = Vec::with_capacity(file.len());
    let keep = |i: usize| {
        let ending = match file.ending(i) {
            "" => file.eol,
            e => e,
        };
        (file.lines[i].text, ending)
    };
    let mut next = 0;
    for edit in edits {
        pieces.extend((next..edit.start).map(keep));
        for out in &edit.lines {
            match out {
                Out::Keep(i) => pieces.push(keep(*i)),
                Out::New(text) => pieces.push((text.as_str(), file.eol)),
            }
        }
        next = edit.end;
    }
    pieces.extend((next..file.len()).map(keep));
    let mut out = String::with_capacity(pieces.iter().map(|(t, _)| t.len() + 2).sum());
    let count = pieces.len();
    for (n, (text, ending)) in pieces.into_iter().enumerate() {
        out.push_str(text);
        if n + 1 < count || final_newline {
            out.push_str(ending);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_remembers_endings() {
        let f = FileText::new("a\r\nb\r\nc");
        assert_eq!(f.len(), 3);
        assert!(!f.final_newline);
        assert_eq!(f.eol, "\r\n");
        assert_eq!(render(&f, &[], false), "a\r\nb\r\nc");
        assert_eq!(render(&f, &[], true), "a\r\nb\r\nc\r\n");
    }

    #[test]
    fn empty_file_has_no_lines() {
        let f = FileText::new("");
        assert_eq!(f.len(), 0);
        assert_eq!(render(&f, &[], true), "");
    }

    #[test]
    fn mixed_endings_are_kept_per_line() {
        let f = FileText::new("a\r\nb\nc\n");
        assert_eq!(f.eol, "\n");
        let edit = Edit {
            start: 1,
            end: 2,
            lines: vec![Out::New("B".into())],
        };
        assert_eq!(render(&f, &[edit], true), "a\r\nB\nc\n");
    }
}
