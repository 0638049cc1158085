//! Reading a diff as a model writes it: unified (with or without headers), or the Codex envelope.
//!
//! The parser is forgiving about form — missing or wrong `@@` numbers and counts (the body is
//! always recounted), a surrounding ``` fence, CRLF transport, empty context lines that lost
//! their space — and strict about meaning: a line inside a hunk without a marker is an error
//! (it is most often an added line that lost its `+`), never silently dropped. It must never
//! guess where a hunk goes; it only records what the diff says.

use std::sync::LazyLock;

use regex::Regex;

use papayu_core::codes::{Code, Problem};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Context,
    Remove,
    Add,
}

/// One body line of a hunk, without its marker and line ending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Line {
    pub kind: Kind,
    pub text: String,
    /// The diff carried a `\r` at the end of this line (the file line is expected to be CRLF).
    pub cr: bool,
}

/// One hunk as written.
#[derive(Debug, Clone, Default)]
pub(crate) struct Hunk {
    /// The `@@` line as written (`@@` for a Codex chunk without one).
    pub header: String,
    pub old_start: Option<usize>,
    pub old_count: Option<usize>,
    pub new_count: Option<usize>,
    /// Text after the header (git's function line, or the Codex `@@ context`).
    pub anchor: Option<String>,
    pub lines: Vec<Line>,
    /// `\ No newline at end of file` after the last old-side line.
    pub old_no_eol: bool,
    /// `\ No newline at end of file` after the last new-side line.
    pub new_no_eol: bool,
    /// The hunk must end at the end of the file (Codex `*** End of File`).
    pub at_eof: bool,
}

impl Hunk {
    pub fn old_lines(&self) -> impl Iterator<Item = &Line> {
        self.lines.iter().filter(|l| l.kind != Kind::Add)
    }

    pub fn changes(&self) -> bool {
        self.lines.iter().any(|l| l.kind != Kind::Context)
    }
}

/// The hunks for one file.
#[derive(Debug, Clone, Default)]
pub(crate) struct FilePatch {
    pub old_path: Option<String>,
    pub new_path: Option<String>,
    pub hunks: Vec<Hunk>,
    /// The old side is `/dev/null` (or `new file mode`, `*** Add File`): the diff creates it.
    pub created: bool,
    pub deleted: bool,
}

impl FilePatch {
    /// The path this section is about, for messages and selection.
    pub fn path(&self) -> String {
        self.new_path
            .clone()
            .or_else(|| self.old_path.clone())
            .unwrap_or_else(|| "(unnamed)".to_string())
    }
}

fn not_unified(reason: impl Into<String>) -> Problem {
    Problem::new(Code::PatchNotUnified, reason)
}

static HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^@@+\s*-(\d+)(?:,(\d+))?\s+\+(\d+)(?:,(\d+))?\s*(?:@@+)?(.*)$").expect("regex")
});

/// Parses every file section of `diff`.
pub(crate) fn parse(diff: &str) -> Result<Vec<FilePatch>, Problem> {
    let diff = diff.strip_prefix('\u{FEFF}').unwrap_or(diff);
    let lines = split_lines(diff);
    let lines = unfence(&lines);
    if lines.iter().any(|l| l.trim() == "*** Begin Patch") {
        return parse_codex(&lines);
    }
    Unified::default().run(&lines)
}

/// Splits into lines; when every header line ends in `\r` the diff was carried with CRLF
/// endings and one `\r` is removed from every line (a second one belongs to the content).
fn split_lines(diff: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = diff.split('\n').collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    let headers: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("@@") || l.starts_with("---") || l.starts_with("***"))
        .collect();
    if !headers.is_empty() && headers.iter().all(|l| l.ends_with('\r')) {
        for l in &mut lines {
            *l = l.strip_suffix('\r').unwrap_or(l);
        }
    }
    lines
}

/// A fence starts at column 0; a diff body line never does (it starts with its marker).
fn is_fence(line: &str) -> bool {
    line.starts_with("```") || line.starts_with("~~~")
}

fn looks_like_diff(line: &str) -> bool {
    line.starts_with("@@") || line.starts_with("--- ") || line.trim() == "*** Begin Patch"
}

/// The inside of the fenced blocks that hold a diff, or everything when there is no fence.
fn unfence<'a>(lines: &[&'a str]) -> Vec<&'a str> {
    if !lines.iter().any(|l| is_fence(l)) {
        return lines.to_vec();
    }
    let mut out = Vec::new();
    let mut block: Option<Vec<&str>> = None;
    for line in lines {
        match block.as_mut() {
            None if is_fence(line) => block = Some(Vec::new()),
            None => {}
            Some(b) if is_fence(line) && line.trim().len() == 3 => {
                if b.iter().any(|l| looks_like_diff(l)) {
                    out.append(b);
                }
                block = None;
            }
            Some(b) => b.push(line),
        }
    }
    if let Some(mut b) = block
        && b.iter().any(|l| looks_like_diff(l))
    {
        out.append(&mut b);
    }
    if out.is_empty() {
        // Fences around something else (prose with code): read the text as it is.
        return lines.iter().copied().filter(|l| !is_fence(l)).collect();
    }
    out
}

fn clean_path(raw: &str) -> Option<String> {
    let raw = raw.split('\t').next().unwrap_or(raw).trim();
    let raw = raw.trim_matches('"');
    if raw.is_empty() || raw == "/dev/null" {
        return None;
    }
    let stripped = raw
        .strip_prefix("a/")
        .or_else(|| raw.strip_prefix("b/"))
        .unwrap_or(raw);
    Some(stripped.to_string())
}

/// Splits a body line into its marker kind and text; `None` for a line that is not body.
fn body_line(line: &str) -> Option<Line> {
    let (kind, rest) = match line.chars().next() {
        None => (Kind::Context, ""),
        Some(' ') => (Kind::Context, &line[1..]),
        Some('-') => (Kind::Remove, &line[1..]),
        Some('+') => (Kind::Add, &line[1..]),
        Some('\r') if line == "\r" => (Kind::Context, "\r"),
        _ => return None,
    };
    let (text, cr) = match rest.strip_suffix('\r') {
        Some(t) => (t, true),
        None => (rest, false),
    };
    Some(Line {
        kind,
        text: text.to_string(),
        cr,
    })
}

#[derive(Default)]
struct Unified {
    files: Vec<FilePatch>,
    file: Option<FilePatch>,
    hunk: Option<Hunk>,
    /// Blank context lines at the end of the current hunk (markerless empty lines, and context
    /// lines of nothing but whitespace), kept aside until we know whether the hunk continues:
    /// past the header's counts they are the noise models leave before a closing fence.
    pending: Vec<Line>,
    /// The previous line was a body line with content (so prose right after it is an error).
    after_body: bool,
    /// At least one `@@` was seen (to tell "no hunks" from "hunks that change nothing").
    saw_hunk: bool,
}

impl Unified {
    fn run(mut self, lines: &[&str]) -> Result<Vec<FilePatch>, Problem> {
        let mut i = 0;
        while i < lines.len() {
            let line = lines[i];
            let n = i + 1;
            i += 1;
            if line.starts_with("diff --git ") || line.starts_with("diff -") {
                self.finish_file()?;
                let mut f = FilePatch::default();
                if let Some(rest) = line.strip_prefix("diff --git ")
                    && let Some((a, b)) = rest.split_once(" b/")
                {
                    f.old_path = clean_path(a);
                    f.new_path = clean_path(b);
                }
                self.file = Some(f);
                continue;
            }
            if line.starts_with("@@") {
                self.finish_hunk()?;
                self.start_hunk(line);
                continue;
            }
            if line.starts_with("--- ")
                && lines.get(i).is_some_and(|l| l.starts_with("+++ "))
                && !self.hunk_expects_more()
            {
                self.finish_hunk()?;
                let reuse = self
                    .file
                    .as_ref()
                    .is_some_and(|f| f.hunks.is_empty() && !f.deleted);
                if !reuse {
                    self.finish_file()?;
                    self.file = Some(FilePatch::default());
                }
                let f = self.file.as_mut().expect("file just set");
                let old_null = line[4..].trim_start().starts_with("/dev/null");
                let new_null = lines[i][4..].trim_start().starts_with("/dev/null");
                f.old_path = match old_null {
                    true => None,
                    false => clean_path(&line[4..]).or(f.old_path.take()),
                };
                f.new_path = match new_null {
                    true => None,
                    false => clean_path(&lines[i][4..]).or(f.new_path.take()),
                };
                f.deleted = new_null;
                f.created = old_null;
                i += 1;
                continue;
            }
            if self.hunk.is_some() {
                if line == "-- " && self.counted() {
                    // A format-patch signature after a complete hunk, not a removed line.
                    self.finish_hunk()?;
                    continue;
                }
                if let Some(body) = body_line(line) {
                    self.push_body(body, line);
                    continue;
                }
                if let Some(rest) = line.strip_prefix('\\') {
                    self.no_eol_marker(n, rest)?;
                    continue;
                }
                if self.after_body && !self.counted() {
                    return Err(not_unified(format!(
                        "diff line {n} inside a hunk has no ' ', '-' or '+' marker: {:?} \
                         (an added line missing its '+'?); mark every hunk line",
                        shorten(line)
                    )));
                }
                self.finish_hunk()?;
                continue;
            }
            self.header_line(line)?;
        }
        self.finish_file()?;
        if self.files.iter().all(|f| f.hunks.is_empty() && !f.deleted) {
            return Err(not_unified(match self.saw_hunk {
                true => "the diff changes nothing (no '+' or '-' lines); send the change itself",
                false => {
                    "no @@ hunk found; send a unified diff with @@ hunks (or a *** Begin Patch envelope)"
                }
            }));
        }
        Ok(self.files)
    }

    fn header_line(&mut self, line: &str) -> Result<(), Problem> {
        if line.starts_with("Binary files ") || line.starts_with("GIT binary patch") {
            return Err(not_unified(
                "binary patches are not supported; send text changes as a unified diff",
            ));
        }
        if let Some(f) = self.file.as_mut() {
            if line.starts_with("deleted file mode") {
                f.deleted = true;
            } else if line.starts_with("new file mode") {
                f.created = true;
            }
        }
        // Anything else outside a hunk (index, mode lines, prose) carries nothing we need.
        Ok(())
    }

    fn start_hunk(&mut self, line: &str) {
        let mut h = Hunk {
            header: line.trim_end().to_string(),
            ..Hunk::default()
        };
        if let Some(c) = HEADER.captures(line.trim_end()) {
            let num = |i: usize| c.get(i).and_then(|m| m.as_str().parse::<usize>().ok());
            h.old_start = num(1);
            h.old_count = Some(num(2).unwrap_or(1));
            h.new_count = Some(num(4).unwrap_or(1));
            h.anchor = c.get(5).map(|m| m.as_str().trim().to_string());
        } else {
            let rest = line.trim_start_matches('@').trim();
            let rest = rest.trim_end_matches('@').trim();
            h.anchor = Some(rest.to_string());
        }
        if h.anchor.as_deref() == Some("") {
            h.anchor = None;
        }
        self.hunk = Some(h);
        self.saw_hunk = true;
        self.pending.clear();
        self.after_body = false;
    }

    fn push_body(&mut self, body: Line, raw: &str) {
        let h = self.hunk.as_mut().expect("in a hunk");
        if raw.is_empty() || body.kind == Kind::Context && body.text.trim().is_empty() {
            self.pending.push(body);
            // A marked blank line is still a body line: an unmarked line after it is an added
            // line that lost its `+`, not prose.
            self.after_body = !raw.is_empty();
            return;
        }
        h.lines.append(&mut self.pending);
        h.lines.push(body);
        self.after_body = true;
    }

    fn no_eol_marker(&mut self, n: usize, _rest: &str) -> Result<(), Problem> {
        self.flush_blanks_if_counted();
        let h = self.hunk.as_mut().expect("in a hunk");
        match h.lines.last().map(|l| l.kind) {
            Some(Kind::Context) => {
                h.old_no_eol = true;
                h.new_no_eol = true;
            }
            Some(Kind::Remove) => h.old_no_eol = true,
            Some(Kind::Add) => h.new_no_eol = true,
            None => {
                return Err(not_unified(format!(
                    "diff line {n}: '\\ No newline at end of file' before any hunk line"
                )));
            }
        }
        Ok(())
    }

    /// Lines counted so far on the old and new side, including pending blank lines.
    fn sides(&self) -> (usize, usize) {
        let Some(h) = self.hunk.as_ref() else {
            return (0, 0);
        };
        let old = h.lines.iter().filter(|l| l.kind != Kind::Add).count() + self.pending.len();
        let new = h.lines.iter().filter(|l| l.kind != Kind::Remove).count() + self.pending.len();
        (old, new)
    }

    /// The header gave counts and the body has not reached them yet.
    fn hunk_expects_more(&self) -> bool {
        match self.hunk.as_ref() {
            Some(Hunk {
                old_count: Some(o),
                new_count: Some(nw),
                ..
            }) => {
                let (old, new) = self.sides();
                old < *o || new < *nw
            }
            _ => false,
        }
    }

    /// The header gave counts and the body reached them.
    fn counted(&self) -> bool {
        matches!(
            self.hunk.as_ref(),
            Some(Hunk {
                old_count: Some(_),
                ..
            })
        ) && !self.hunk_expects_more()
    }

    /// Pending markerless empty lines become context when the header's counts ask for them.
    fn flush_blanks_if_counted(&mut self) {
        let (old, new) = self.sides();
        let h = self.hunk.as_mut().expect("in a hunk");
        let keep = match (h.old_count, h.new_count) {
            (Some(o), Some(nw)) => {
                let base_old = old - self.pending.len();
                let base_new = new - self.pending.len();
                let want_old = o.saturating_sub(base_old);
                let want_new = nw.saturating_sub(base_new);
                if want_old == want_new {
                    want_old.min(self.pending.len())
                } else {
                    0
                }
            }
            _ => 0,
        };
        // A hunk of nothing but added lines has no anchor; its trailing empty lines can only be
        // the blank context a diff writer printed without its space (diffy does), never noise
        // that would change where it goes. Keep them rather than refuse the hunk.
        let pure_addition = h.lines.iter().all(|l| l.kind == Kind::Add);
        let keep = if pure_addition && !h.lines.is_empty() {
            self.pending.len()
        } else {
            keep
        };
        h.lines.extend(self.pending.drain(..keep));
        self.pending.clear();
    }

    fn finish_hunk(&mut self) -> Result<(), Problem> {
        if self.hunk.is_none() {
            return Ok(());
        }
        self.flush_blanks_if_counted();
        let h = self.hunk.take().expect("checked");
        self.after_body = false;
        if h.lines.is_empty() {
            return Err(not_unified(format!(
                "hunk `{}` has no lines; every @@ must be followed by ' ', '-' or '+' lines",
                shorten(&h.header)
            )));
        }
        let f = self.file.get_or_insert_with(FilePatch::default);
        if h.changes() {
            f.hunks.push(h);
        }
        Ok(())
    }

    fn finish_file(&mut self) -> Result<(), Problem> {
        self.finish_hunk()?;
        if let Some(f) = self.file.take() {
            self.files.push(f);
        }
        Ok(())
    }
}

fn parse_codex(lines: &[&str]) -> Result<Vec<FilePatch>, Problem> {
    let start = lines
        .iter()
        .position(|l| l.trim() == "*** Begin Patch")
        .expect("caller checked");
    let mut files: Vec<FilePatch> = Vec::new();
    let mut hunk: Option<Hunk> = None;
    let mut ended = false;
    let flush = |files: &mut Vec<FilePatch>, hunk: &mut Option<Hunk>| {
        if let (Some(h), Some(f)) = (hunk.take(), files.last_mut())
            && h.changes()
        {
            f.hunks.push(h);
        }
    };
    for (idx, line) in lines.iter().enumerate().skip(start + 1) {
        let n = idx + 1;
        if line.trim() == "*** End Patch" {
            ended = true;
            break;
        }
        if let Some(rest) = line.strip_prefix("*** ") {
            flush(&mut files, &mut hunk);
            if let Some(p) = rest.strip_prefix("Update File:") {
                let p = clean_path(p);
                files.push(FilePatch {
                    old_path: p.clone(),
                    new_path: p,
                    ..FilePatch::default()
                });
            } else if let Some(p) = rest.strip_prefix("Add File:") {
                files.push(FilePatch {
                    new_path: clean_path(p),
                    created: true,
                    ..FilePatch::default()
                });
                hunk = Some(Hunk {
                    header: "*** Add File".to_string(),
                    ..Hunk::default()
                });
            } else if let Some(p) = rest.strip_prefix("Delete File:") {
                files.push(FilePatch {
                    old_path: clean_path(p),
                    deleted: true,
                    ..FilePatch::default()
                });
            } else if let Some(p) = rest.strip_prefix("Move to:") {
                if let Some(f) = files.last_mut() {
                    f.new_path = clean_path(p);
                }
            } else if rest.trim() == "End of File" {
                if let Some(h) = files.last_mut().and_then(|f| f.hunks.last_mut()) {
                    h.at_eof = true;
                }
            } else {
                return Err(not_unified(format!(
                    "diff line {n}: unknown envelope line {:?}",
                    shorten(line)
                )));
            }
            continue;
        }
        if files.is_empty() {
            return Err(not_unified(format!(
                "diff line {n}: expected *** Update File: PATH after *** Begin Patch"
            )));
        }
        if line.starts_with("@@") {
            flush(&mut files, &mut hunk);
            let anchor = line.trim_start_matches('@').trim();
            hunk = Some(Hunk {
                header: line.trim_end().to_string(),
                anchor: (!anchor.is_empty()).then(|| anchor.to_string()),
                ..Hunk::default()
            });
            continue;
        }
        let Some(body) = body_line(line) else {
            return Err(not_unified(format!(
                "diff line {n} has no ' ', '-' or '+' marker: {:?} (an added line missing its '+'?)",
                shorten(line)
            )));
        };
        hunk.get_or_insert_with(|| Hunk {
            header: "@@".to_string(),
            ..Hunk::default()
        })
        .lines
        .push(body);
    }
    if !ended {
        return Err(not_unified(
            "*** Begin Patch without *** End Patch; send the whole envelope",
        ));
    }
    flush(&mut files, &mut hunk);
    if files.iter().all(|f| f.hunks.is_empty() && !f.deleted) {
        return Err(not_unified("the envelope holds no changes"));
    }
    Ok(files)
}

/// A line cut to a readable length for messages.
pub(crate) fn shorten(line: &str) -> String {
    const MAX: usize = 100;
    if line.chars().count() <= MAX {
        line.to_string()
    } else {
        let cut: String = line.chars().take(MAX).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(diff: &str) -> FilePatch {
        let mut files = parse(diff).expect("parses");
        assert_eq!(files.len(), 1);
        files.remove(0)
    }

    #[test]
    fn headers_and_counts() {
        let f = one("--- a/x.rs\n+++ b/x.rs\n@@ -3,2 +3,3 @@ fn main()\n a\n+b\n c\n");
        assert_eq!(f.new_path.as_deref(), Some("x.rs"));
        let h = &f.hunks[0];
        assert_eq!(h.old_start, Some(3));
        assert_eq!(h.anchor.as_deref(), Some("fn main()"));
        assert_eq!(h.lines.len(), 3);
    }

    #[test]
    fn bare_header_and_lost_space_on_blank_context() {
        let f = one("@@\n a\n\n-b\n+c\n");
        let h = &f.hunks[0];
        assert_eq!(h.old_start, None);
        assert_eq!(h.lines[1].kind, Kind::Context);
        assert_eq!(h.lines[1].text, "");
    }

    #[test]
    fn trailing_blank_lines_follow_the_counts() {
        let f = one("@@ -1,3 +1,3 @@\n a\n-b\n+c\n\n");
        assert_eq!(f.hunks[0].lines.len(), 4);
        let f = one("@@ -1,2 +1,2 @@\n a\n-b\n+c\n\n");
        assert_eq!(f.hunks[0].lines.len(), 3);
    }

    #[test]
    fn whitespace_only_lines_past_the_counts_are_dropped() {
        let f = one("@@ -1,2 +1,2 @@\n a\n-b\n+c\n    \n  \n");
        assert_eq!(f.hunks[0].lines.len(), 3, "{:?}", f.hunks[0].lines);
        let f = one("@@ -1,3 +1,3 @@\n a\n-b\n+c\n    \n");
        assert_eq!(
            f.hunks[0].lines[3].text, "   ",
            "kept as written when counted"
        );
        let f = one("@@ -1,3 +1,3 @@\n a\n    \n-b\n+c\n");
        assert_eq!(
            f.hunks[0].lines[1].text, "   ",
            "inside a hunk it is context"
        );
    }

    #[test]
    fn no_newline_markers() {
        let f = one("@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n");
        assert!(f.hunks[0].old_no_eol);
        assert!(!f.hunks[0].new_no_eol);
    }

    #[test]
    fn fence_and_crlf_transport() {
        let f = one("Here you go:\r\n```diff\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n```\r\nDone.\r\n");
        assert_eq!(f.hunks[0].lines[0].text, "a");
        assert!(!f.hunks[0].lines[0].cr);
    }

    #[test]
    fn content_cr_is_kept_as_a_flag() {
        let f = one("@@ -1 +1 @@\n-a\r\n+b\r\n");
        assert!(f.hunks[0].lines[0].cr);
    }

    #[test]
    fn missing_marker_is_an_error() {
        let e = parse("@@\n a\n+b\nc\n d\n").unwrap_err();
        assert_eq!(e.code, Code::PatchNotUnified);
        assert!(e.reason.contains("marker"), "{}", e.reason);
    }

    #[test]
    fn prose_after_a_counted_hunk_is_ignored() {
        let f = one("@@ -1,1 +1,1 @@\n-a\n+b\nThat is all.\n");
        assert_eq!(f.hunks[0].lines.len(), 2);
    }

    #[test]
    fn multi_file() {
        let files = parse(
            "diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n\
             diff --git a/y b/y\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-c\n+d\n",
        )
        .unwrap();
        assert_eq!(files.len(), 2);
        assert_eq!(files[1].path(), "y");
    }

    #[test]
    fn codex_envelope() {
        let f = one(
            "*** Begin Patch\n*** Update File: src/a.rs\n@@ fn a()\n x\n-y\n+z\n*** End of File\n*** End Patch\n",
        );
        assert_eq!(f.new_path.as_deref(), Some("src/a.rs"));
        assert_eq!(f.hunks[0].anchor.as_deref(), Some("fn a()"));
        assert!(f.hunks[0].at_eof);
    }

    #[test]
    fn garbage_is_not_a_diff() {
        assert_eq!(
            parse("hello\nworld\n").unwrap_err().code,
            Code::PatchNotUnified
        );
        assert_eq!(parse("").unwrap_err().code, Code::PatchNotUnified);
    }

    #[test]
    fn removed_line_that_looks_like_a_header_stays_in_the_hunk() {
        let f = one("@@ -1,2 +1,2 @@\n--- a\n+++ b\n");
        assert_eq!(f.hunks[0].lines[0].text, "-- a");
        assert_eq!(f.hunks[0].lines[1].kind, Kind::Add);
    }
}
