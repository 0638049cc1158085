//! Rendering for humans: diffs, diffstats, ages. Pure functions returning strings.
//!
//! Paths and file contents come from a model: every one goes through [`text`] before it is
//! placed next to papayu's own colour sequences.

use git_papayu::executor::{ChangeKind, FileChange};
use git_papayu::store::records::Status;

use super::ui::Palette;
use git_papayu::present::diffstat::is_binary;
pub use git_papayu::present::diffstat::{count, count_as, diffstat};
use git_papayu::present::linediff::{DiffLine, line_hunks};
use git_papayu::present::text;

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
        out.push_str(&file_header(&paint, change));
        out.push_str(&file_body(&paint, change));
    }
    out
}

/// The `diff --git`, `---` and `+++` lines of one file.
fn file_header(paint: &Paint<'_>, change: &FileChange) -> String {
    let path = text::line(&change.path);
    let mut out = paint.wrap("meta", &format!("diff --git a/{path} b/{path}"));
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
    out
}

/// One file's hunks; a line instead for a binary file, or one added or deleted whole that is
/// too large to preview.
fn file_body(paint: &Paint<'_>, change: &FileChange) -> String {
    let old = change.old.as_deref().unwrap_or_default();
    let new = change.new.as_deref().unwrap_or_default();
    let (Ok(old_text), Ok(new_text)) = (std::str::from_utf8(old), std::str::from_utf8(new)) else {
        return binary_line(old, new);
    };
    if is_binary(old) || is_binary(new) {
        return binary_line(old, new);
    }
    let whole = match change.kind {
        ChangeKind::Added => Some(new_text),
        ChangeKind::Deleted => Some(old_text),
        ChangeKind::Modified => None,
    };
    if let Some(text) = whole.filter(|t| t.len() > PREVIEW_BYTES) {
        let lines = text.bytes().filter(|&b| b == b'\n').count();
        let mut out = paint.wrap(
            "frag",
            &format!(
                "({}, {}: too large to preview; git papayu diff shows it)",
                size(text.len()),
                count(lines, "line")
            ),
        );
        out.push('\n');
        return out;
    }
    hunks(paint, old_text, new_text)
}

/// The hunks of a text change, up to [`PREVIEW_LINES`] lines.
fn hunks(paint: &Paint<'_>, old_text: &str, new_text: &str) -> String {
    let mut out = String::new();
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
            out.push_str(&hunk_line(paint, line));
        }
    }
    out
}

/// One line of a hunk with its marker, and git's note when it ends without a newline.
fn hunk_line(paint: &Paint<'_>, line: &DiffLine<'_>) -> String {
    let (text, mut out) = match line {
        DiffLine::Insert(t) => (t, paint.wrap("new", &format!("+{}", content_line(t)))),
        DiffLine::Delete(t) => (t, paint.wrap("old", &format!("-{}", content_line(t)))),
        DiffLine::Context(t) => (t, paint.wrap("context", &format!(" {}", content_line(t)))),
    };
    out.push('\n');
    if !text.ends_with('\n') {
        out.push_str("\\ No newline at end of file\n");
    }
    out
}

/// One line of a file for a preview: its newline dropped, every other control character (a
/// CR included) made visible.
fn content_line(line: &str) -> std::borrow::Cow<'_, str> {
    text::block(line.strip_suffix('\n').unwrap_or(line))
}

fn binary_line(old: &[u8], new: &[u8]) -> String {
    format!(
        "Binary files differ ({} → {})\n",
        size(old.len()),
        size(new.len())
    )
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

    fn modified(path: &str, old: &str, new: &str) -> FileChange {
        FileChange {
            path: path.into(),
            kind: ChangeKind::Modified,
            old: Some(old.as_bytes().into()),
            new: Some(new.as_bytes().into()),
            hunks: Vec::new(),
        }
    }

    #[test]
    fn diffstat_counts_lines_as_git_prints_them() {
        let stat = diffstat(&[modified("a.txt", "one\ntwo\n", "one\n2\nthree\n")], 80);
        assert_eq!(
            stat,
            " a.txt | 3 ++-\n 1 file changed, 2 insertions(+), 1 deletion(-)\n"
        );
        let only_added = diffstat(&[modified("a.txt", "", "x\n")], 80);
        assert!(
            only_added.ends_with(" 1 file changed, 1 insertion(+)\n"),
            "{only_added}"
        );
        let only_deleted = diffstat(&[modified("a.txt", "x\ny\n", "")], 80);
        assert!(
            only_deleted.ends_with(" 1 file changed, 2 deletions(-)\n"),
            "{only_deleted}"
        );
        let nothing = diffstat(&[modified("a.txt", "x\n", "x\n")], 80);
        assert_eq!(
            nothing,
            " a.txt | 0\n 1 file changed, 0 insertions(+), 0 deletions(-)\n"
        );
        let binary = diffstat(
            &[
                modified("b.bin", "\0\0", "\0\0\0"),
                modified("long.txt", "", &"x\n".repeat(12)),
            ],
            80,
        );
        assert_eq!(
            binary,
            " b.bin    | Bin 2 -> 3 bytes\n long.txt |  12 ++++++++++++\n 2 files changed, 12 insertions(+)\n"
        );
    }

    #[test]
    fn a_large_change_is_scaled_to_the_width_as_git_scales_it() {
        let stat = diffstat(&[modified("a.txt", "", &"x\n".repeat(500))], 80);
        let graph = stat.lines().next().unwrap();
        assert_eq!(
            graph,
            format!(" a.txt | 500 {}", "+".repeat(80 - 6 - 3 - 5))
        );
    }
}
