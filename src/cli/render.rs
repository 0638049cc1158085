//! Rendering for humans: diffs, diffstats, ages. Pure functions returning strings.
//!
//! Paths and file contents come from a model: every one goes through [`text`] before it is
//! placed next to papayu's own colour sequences.

use git_papayu::build::{ChangeKind, FileChange};
use git_papayu::store::records::Status;

use super::linediff::{DiffLine, line_hunks};
use super::text;
use super::ui::Palette;

/// Paints with the diff palette, or not at all.
struct Paint<'a>(Option<&'a Palette>);

impl Paint<'_> {
    fn wrap(&self, slot: &str, text: &str) -> String {
        match self.0 {
            Some(palette) => palette.paint(slot, text),
            None => text.to_string(),
        }
    }
}

/// A unified diff of every change, git style, coloured by git's `color.diff.*` slots when a
/// palette is given.
pub fn diff(changes: &[FileChange], palette: Option<&Palette>) -> String {
    let paint = Paint(palette);
    let mut out = String::new();
    for change in changes {
        let path = text::line(&change.path);
        out.push_str(&paint.wrap("meta", &format!("diff --git a/{path} b/{path}")));
        out.push('\n');
        match change.kind {
            ChangeKind::Added => out.push_str(&paint.wrap("meta", "new file\n--- /dev/null")),
            ChangeKind::Deleted => {
                out.push_str(&paint.wrap("meta", &format!("deleted file\n--- a/{path}")))
            }
            ChangeKind::Modified => out.push_str(&paint.wrap("meta", &format!("--- a/{path}"))),
        }
        out.push('\n');
        let plus = if change.kind == ChangeKind::Deleted {
            "+++ /dev/null".to_string()
        } else {
            format!("+++ b/{path}")
        };
        out.push_str(&paint.wrap("meta", &plus));
        out.push('\n');
        let old = change.old.as_deref().unwrap_or_default();
        let new = change.new.as_deref().unwrap_or_default();
        let (Ok(old_text), Ok(new_text)) = (std::str::from_utf8(old), std::str::from_utf8(new))
        else {
            out.push_str(&binary_line(old, new));
            continue;
        };
        if is_binary(old) || is_binary(new) {
            out.push_str(&binary_line(old, new));
            continue;
        }
        let whole = match change.kind {
            ChangeKind::Added => Some(new_text),
            ChangeKind::Deleted => Some(old_text),
            ChangeKind::Modified => None,
        };
        if let Some(text) = whole.filter(|t| t.len() > PREVIEW_BYTES) {
            let lines = text.bytes().filter(|&b| b == b'\n').count();
            out.push_str(&paint.wrap(
                "frag",
                &format!(
                    "({}, {}: too large to preview; git papayu diff shows it)",
                    size(text.len()),
                    count(lines, "line")
                ),
            ));
            out.push('\n');
            continue;
        }
        let mut shown = 0;
        for hunk in line_hunks(old_text, new_text) {
            if shown >= PREVIEW_LINES {
                out.push_str(&paint.wrap(
                    "frag",
                    "(more changes not shown; git papayu diff shows them all)",
                ));
                out.push('\n');
                break;
            }
            out.push_str(&paint.wrap("frag", &hunk.header()));
            out.push('\n');
            for line in &hunk.lines {
                shown += 1;
                let (text, colored) = match line {
                    DiffLine::Insert(t) => (t, paint.wrap("new", &format!("+{}", content_line(t)))),
                    DiffLine::Delete(t) => (t, paint.wrap("old", &format!("-{}", content_line(t)))),
                    DiffLine::Context(t) => {
                        (t, paint.wrap("context", &format!(" {}", content_line(t))))
                    }
                };
                out.push_str(&colored);
                out.push('\n');
                if !text.ends_with('\n') {
                    out.push_str("\\ No newline at end of file\n");
                }
            }
        }
    }
    out
}

/// One line of a file for a preview: its newline dropped, every other control character (a
/// CR included) made visible.
fn content_line(line: &str) -> std::borrow::Cow<'_, str> {
    text::block(line.strip_suffix('\n').unwrap_or(line))
}

/// Lines added and removed in one change.
fn counts(change: &FileChange) -> (usize, usize) {
    let old = String::from_utf8_lossy(change.old.as_deref().unwrap_or_default());
    let new = String::from_utf8_lossy(change.new.as_deref().unwrap_or_default());
    let lines = |t: &str| t.split_inclusive('\n').count();
    match change.kind {
        ChangeKind::Added => return (lines(&new), 0),
        ChangeKind::Deleted => return (0, lines(&old)),
        ChangeKind::Modified => {}
    }
    let mut added = 0;
    let mut removed = 0;
    for hunk in line_hunks(&old, &new) {
        for line in &hunk.lines {
            match line {
                DiffLine::Insert(_) => added += 1,
                DiffLine::Delete(_) => removed += 1,
                DiffLine::Context(_) => {}
            }
        }
    }
    (added, removed)
}

fn binary_line(old: &[u8], new: &[u8]) -> String {
    format!(
        "Binary files differ ({} → {})\n",
        size(old.len()),
        size(new.len())
    )
}

/// Content git would call binary: not UTF-8, or holding a NUL byte.
fn is_binary(bytes: &[u8]) -> bool {
    bytes.contains(&0) || std::str::from_utf8(bytes).is_err()
}

/// Files larger than this are summarised, not printed, when added or deleted whole.
const PREVIEW_BYTES: usize = 1 << 20;
/// A preview stops after this many diff lines.
const PREVIEW_LINES: usize = 20_000;

/// `1.5 MB`, `300 bytes`.
fn size(n: usize) -> String {
    match n {
        n if n >= 1 << 20 => format!("{:.1} MB", n as f64 / (1u64 << 20) as f64),
        n if n >= 1 << 10 => format!("{:.1} kB", n as f64 / (1u64 << 10) as f64),
        n => format!("{n} bytes"),
    }
}

/// `git diff --stat`-like summary.
pub fn diffstat(changes: &[FileChange]) -> String {
    let mut out = String::new();
    let paths: Vec<_> = changes.iter().map(|c| text::line(&c.path)).collect();
    let width = paths.iter().map(|p| p.chars().count()).max().unwrap_or(0);
    let (mut total_add, mut total_del) = (0, 0);
    for (change, path) in changes.iter().zip(&paths) {
        let old = change.old.as_deref().unwrap_or_default();
        let new = change.new.as_deref().unwrap_or_default();
        if is_binary(old) || is_binary(new) {
            out.push_str(&format!(
                " {:width$} |  Bin {} -> {} bytes\n",
                path,
                old.len(),
                new.len()
            ));
            continue;
        }
        let (add, del) = counts(change);
        total_add += add;
        total_del += del;
        out.push_str(&format!(
            " {:width$} | {:>4} {}{}\n",
            path,
            add + del,
            "+".repeat(add.min(30)),
            "-".repeat(del.min(30))
        ));
    }
    let files = changes.len();
    out.push_str(&format!(
        " {files} file{} changed, {total_add} insertion{}(+), {total_del} deletion{}(-)\n",
        if files == 1 { "" } else { "s" },
        if total_add == 1 { "" } else { "s" },
        if total_del == 1 { "" } else { "s" }
    ));
    out
}

/// `1 plan`, `2 plans`: a count and its noun in agreement (the noun plus `s` when not one).
pub fn count(n: usize, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

/// [`count`] for a noun whose plural is not the noun plus `s`: `1 entry`, `3 entries`.
pub fn count_as(n: usize, one: &str, many: &str) -> String {
    match n {
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    }
}

/// How long ago a millisecond timestamp was, in the largest whole unit.
pub fn age(then_millis: i64, now_millis: i64) -> String {
    let secs = (now_millis - then_millis).max(0) / 1000;
    match secs {
        0..60 => format!("{secs}s ago"),
        60..3600 => format!("{}m ago", secs / 60),
        3600..86_400 => format!("{}h ago", secs / 3600),
        _ => format!("{}d ago", secs / 86_400),
    }
}

/// The colour of a status (a git colour value).
pub fn status_colour(status: Status) -> &'static str {
    match status {
        Status::Proposed => "yellow",
        Status::Applied => "green",
        Status::Failed => "red",
        Status::Merged => "cyan",
        Status::Refined => "blue",
        Status::Discarded => "normal",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_agree_with_their_noun() {
        assert_eq!(count(1, "proposal"), "1 proposal");
        assert_eq!(count(0, "proposal"), "0 proposals");
        assert_eq!(count(2, "plan"), "2 plans");
        assert_eq!(count_as(1, "entry", "entries"), "1 entry");
        assert_eq!(count_as(3, "entry", "entries"), "3 entries");
    }

    #[test]
    fn ages_use_the_largest_unit() {
        assert_eq!(age(0, 59_000), "59s ago");
        assert_eq!(age(0, 3_600_000), "1h ago");
        assert_eq!(age(0, 3 * 86_400_000), "3d ago");
        assert_eq!(age(10, 0), "0s ago");
    }

    #[test]
    fn diffstat_counts_lines() {
        let change = FileChange {
            path: "a.txt".into(),
            kind: ChangeKind::Modified,
            old: Some(b"one\ntwo\n"[..].into()),
            new: Some(b"one\n2\nthree\n"[..].into()),
            hunks: Vec::new(),
        };
        let stat = diffstat(&[change]);
        assert!(stat.contains("a.txt |    3 ++-"), "{stat}");
        assert!(
            stat.contains("1 file changed, 2 insertions(+), 1 deletion(-)"),
            "{stat}"
        );
    }
}
