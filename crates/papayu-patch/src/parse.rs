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

#[expect(
    clippy::expect_used,
    reason = "a regex literal: it compiles, as the tests show"
)]
static HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^@@+\s*-(\d+)(?:,(\d+))?\s+\+(\d+)(?:,(\d+))?\s*(?:@@+)?(.*)$").expect("regex")
});

/// Parses every file section of `diff`.
pub(crate) fn parse(diff: &str) -> Result<Vec<FilePatch>, Problem> {
    let diff = diff.strip_prefix('\u{FEFF}').unwrap_or(diff);
    let lines = split_lines(diff);
    let lines = unfence(&lines);
    if let Some(begin) = lines.iter().position(|l| l.trim() == "*** Begin Patch") {
        return parse_codex(&lines, begin);
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
    hunk: Option<OpenHunk>,
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
                self.start_file(line)?;
            } else if line.starts_with("@@") {
                self.finish_hunk()?;
                self.hunk = Some(OpenHunk::start(line));
                self.saw_hunk = true;
            } else if let Some(new_side) = self.new_side_header(line, lines.get(i)) {
                self.start_file_from_headers(line, new_side)?;
                i += 1;
            } else if let Some(open) = self.hunk.as_mut() {
                if open.read(n, line)? == HunkLine::Ends {
                    self.finish_hunk()?;
                }
            } else {
                self.header_line(line)?;
            }
        }
        self.finish_file()?;
        self.into_files()
    }

    /// A `diff --git a/x b/x` (or other `diff -`) line opens a new file section.
    fn start_file(&mut self, line: &str) -> Result<(), Problem> {
        self.finish_file()?;
        let mut f = FilePatch::default();
        if let Some(rest) = line.strip_prefix("diff --git ")
            && let Some((a, b)) = rest.split_once(" b/")
        {
            f.old_path = clean_path(a);
            f.new_path = clean_path(b);
        }
        self.file = Some(f);
        Ok(())
    }

    /// The `+++` line when `line` is a `---` line that starts a file's headers rather than a
    /// removed line the current hunk still expects.
    fn new_side_header<'a>(&self, line: &str, next: Option<&&'a str>) -> Option<&'a str> {
        let next = *next?;
        let headers = line.starts_with("--- ") && next.starts_with("+++ ");
        (headers && !self.hunk_expects_more()).then_some(next)
    }

    /// `--- old` and `+++ new`: they name the section opened by `diff --git`, or open one.
    fn start_file_from_headers(&mut self, old_side: &str, new_side: &str) -> Result<(), Problem> {
        self.finish_hunk()?;
        let reuse = self
            .file
            .as_ref()
            .is_some_and(|f| f.hunks.is_empty() && !f.deleted);
        if !reuse {
            self.finish_file()?;
        }
        let f = self.file.get_or_insert_with(FilePatch::default);
        let old_null = is_dev_null(&old_side[4..]);
        let new_null = is_dev_null(&new_side[4..]);
        f.old_path = header_path(&old_side[4..], f.old_path.take());
        f.new_path = header_path(&new_side[4..], f.new_path.take());
        f.deleted = new_null;
        f.created = old_null;
        Ok(())
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

    /// The header gave counts and the body has not reached them yet.
    fn hunk_expects_more(&self) -> bool {
        self.hunk.as_ref().is_some_and(OpenHunk::expects_more)
    }

    fn finish_hunk(&mut self) -> Result<(), Problem> {
        let Some(open) = self.hunk.take() else {
            return Ok(());
        };
        let h = open.close()?;
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

    /// The sections read, unless none of them changes anything.
    fn into_files(self) -> Result<Vec<FilePatch>, Problem> {
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
}

fn is_dev_null(raw: &str) -> bool {
    raw.trim_start().starts_with("/dev/null")
}

/// The path a `---`/`+++` header names: none for `/dev/null`, else the header's path, or the
/// one `diff --git` gave when the header has none.
fn header_path(raw: &str, from_diff_line: Option<String>) -> Option<String> {
    match is_dev_null(raw) {
        true => None,
        false => clean_path(raw).or(from_diff_line),
    }
}

/// What a line inside an open hunk did to it.
#[derive(Debug, PartialEq, Eq)]
enum HunkLine {
    Taken,
    /// The line is not part of the hunk: the hunk is complete.
    Ends,
}

/// The hunk being read, with what can only be decided once the lines after it are known.
struct OpenHunk {
    hunk: Hunk,
    /// Blank context lines at the end of the hunk (markerless empty lines, and context lines
    /// of nothing but whitespace), kept aside until we know whether the hunk continues: past
    /// the header's counts they are the noise models leave before a closing fence.
    pending: Vec<Line>,
    /// The previous line was a body line with content (so prose right after it is an error).
    after_body: bool,
}

impl OpenHunk {
    fn start(line: &str) -> Self {
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
        OpenHunk {
            hunk: h,
            pending: Vec::new(),
            after_body: false,
        }
    }

    /// Reads diff line `n` as part of this hunk, or says the hunk ended before it.
    fn read(&mut self, n: usize, line: &str) -> Result<HunkLine, Problem> {
        if line == "-- " && self.counted() {
            // A format-patch signature after a complete hunk, not a removed line.
            return Ok(HunkLine::Ends);
        }
        if let Some(body) = body_line(line) {
            self.push_body(body, line);
            return Ok(HunkLine::Taken);
        }
        if line.starts_with('\\') {
            self.no_eol_marker(n)?;
            return Ok(HunkLine::Taken);
        }
        if self.after_body && !self.counted() {
            return Err(not_unified(format!(
                "diff line {n} inside a hunk has no ' ', '-' or '+' marker: {:?} \
                 (an added line missing its '+'?); mark every hunk line",
                shorten(line)
            )));
        }
        Ok(HunkLine::Ends)
    }

    fn push_body(&mut self, body: Line, raw: &str) {
        if raw.is_empty() || body.kind == Kind::Context && body.text.trim().is_empty() {
            self.pending.push(body);
            // A marked blank line is still a body line: an unmarked line after it is an added
            // line that lost its `+`, not prose.
            self.after_body = !raw.is_empty();
            return;
        }
        self.hunk.lines.append(&mut self.pending);
        self.hunk.lines.push(body);
        self.after_body = true;
    }

    fn no_eol_marker(&mut self, n: usize) -> Result<(), Problem> {
        self.flush_blanks_if_counted();
        let h = &mut self.hunk;
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
        let lines = &self.hunk.lines;
        let old = lines.iter().filter(|l| l.kind != Kind::Add).count() + self.pending.len();
        let new = lines.iter().filter(|l| l.kind != Kind::Remove).count() + self.pending.len();
        (old, new)
    }

    /// The header gave counts and the body has not reached them yet.
    fn expects_more(&self) -> bool {
        match (self.hunk.old_count, self.hunk.new_count) {
            (Some(o), Some(nw)) => {
                let (old, new) = self.sides();
                old < o || new < nw
            }
            _ => false,
        }
    }

    /// The header gave counts and the body reached them.
    fn counted(&self) -> bool {
        self.hunk.old_count.is_some() && !self.expects_more()
    }

    /// Pending markerless empty lines become context when the header's counts ask for them.
    fn flush_blanks_if_counted(&mut self) {
        let keep = match self.is_pure_addition() {
            true => self.pending.len(),
            false => self.blanks_the_counts_ask_for(),
        };
        self.hunk.lines.extend(self.pending.drain(..keep));
        self.pending.clear();
    }

    /// How many pending blank lines the header's counts still expect on both sides alike.
    fn blanks_the_counts_ask_for(&self) -> usize {
        let (Some(o), Some(nw)) = (self.hunk.old_count, self.hunk.new_count) else {
            return 0;
        };
        let (old, new) = self.sides();
        let want_old = o.saturating_sub(old - self.pending.len());
        let want_new = nw.saturating_sub(new - self.pending.len());
        match want_old == want_new {
            true => want_old.min(self.pending.len()),
            false => 0,
        }
    }

    /// A hunk of nothing but added lines has no anchor; its trailing empty lines can only be
    /// the blank context a diff writer printed without its space (diffy does), never noise
    /// that would change where it goes. They are kept rather than the hunk refused.
    fn is_pure_addition(&self) -> bool {
        let lines = &self.hunk.lines;
        !lines.is_empty() && lines.iter().all(|l| l.kind == Kind::Add)
    }

    /// The finished hunk; one without lines is refused.
    fn close(mut self) -> Result<Hunk, Problem> {
        self.flush_blanks_if_counted();
        if self.hunk.lines.is_empty() {
            return Err(not_unified(format!(
                "hunk `{}` has no lines; every @@ must be followed by ' ', '-' or '+' lines",
                shorten(&self.hunk.header)
            )));
        }
        Ok(self.hunk)
    }
}

/// Reads a Codex envelope; `begin` is the index of its `*** Begin Patch` line.
fn parse_codex(lines: &[&str], begin: usize) -> Result<Vec<FilePatch>, Problem> {
    let mut codex = Codex::default();
    for (idx, line) in lines.iter().enumerate().skip(begin + 1) {
        if line.trim() == "*** End Patch" {
            return codex.finish();
        }
        codex.read(idx + 1, line)?;
    }
    Err(not_unified(
        "*** Begin Patch without *** End Patch; send the whole envelope",
    ))
}

#[derive(Default)]
struct Codex {
    files: Vec<FilePatch>,
    hunk: Option<Hunk>,
}

impl Codex {
    fn read(&mut self, n: usize, line: &str) -> Result<(), Problem> {
        if let Some(rest) = line.strip_prefix("*** ") {
            self.flush();
            return self.envelope_line(n, line, rest);
        }
        if self.files.is_empty() {
            return Err(not_unified(format!(
                "diff line {n}: expected *** Update File: PATH after *** Begin Patch"
            )));
        }
        if line.starts_with("@@") {
            self.flush();
            self.hunk = Some(codex_hunk(line));
            return Ok(());
        }
        let Some(body) = body_line(line) else {
            return Err(not_unified(format!(
                "diff line {n} has no ' ', '-' or '+' marker: {:?} (an added line missing its '+'?)",
                shorten(line)
            )));
        };
        self.hunk
            .get_or_insert_with(|| Hunk {
                header: "@@".to_string(),
                ..Hunk::default()
            })
            .lines
            .push(body);
        Ok(())
    }

    /// A `*** ` line: a file to update, add, delete or move, or the end of the file.
    fn envelope_line(&mut self, n: usize, line: &str, rest: &str) -> Result<(), Problem> {
        if let Some(p) = rest.strip_prefix("Update File:") {
            let p = clean_path(p);
            self.files.push(FilePatch {
                old_path: p.clone(),
                new_path: p,
                ..FilePatch::default()
            });
        } else if let Some(p) = rest.strip_prefix("Add File:") {
            self.files.push(FilePatch {
                new_path: clean_path(p),
                created: true,
                ..FilePatch::default()
            });
            self.hunk = Some(Hunk {
                header: "*** Add File".to_string(),
                ..Hunk::default()
            });
        } else if let Some(p) = rest.strip_prefix("Delete File:") {
            self.files.push(FilePatch {
                old_path: clean_path(p),
                deleted: true,
                ..FilePatch::default()
            });
        } else if let Some(p) = rest.strip_prefix("Move to:") {
            if let Some(f) = self.files.last_mut() {
                f.new_path = clean_path(p);
            }
        } else if rest.trim() == "End of File" {
            if let Some(h) = self.files.last_mut().and_then(|f| f.hunks.last_mut()) {
                h.at_eof = true;
            }
        } else {
            return Err(not_unified(format!(
                "diff line {n}: unknown envelope line {:?}",
                shorten(line)
            )));
        }
        Ok(())
    }

    fn flush(&mut self) {
        if let (Some(h), Some(f)) = (self.hunk.take(), self.files.last_mut())
            && h.changes()
        {
            f.hunks.push(h);
        }
    }

    fn finish(mut self) -> Result<Vec<FilePatch>, Problem> {
        self.flush();
        if self.files.iter().all(|f| f.hunks.is_empty() && !f.deleted) {
            return Err(not_unified("the envelope holds no changes"));
        }
        Ok(self.files)
    }
}

/// A Codex `@@` line: its text, if any, is an anchor, never numbers.
fn codex_hunk(line: &str) -> Hunk {
    let anchor = line.trim_start_matches('@').trim();
    Hunk {
        header: line.trim_end().to_string(),
        anchor: (!anchor.is_empty()).then(|| anchor.to_string()),
        ..Hunk::default()
    }
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
