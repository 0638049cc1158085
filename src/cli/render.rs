//! Rendering for humans: diffs, diffstats, ages. Pure functions returning strings.
//!
//! Paths and file contents come from a model: every one goes through [`text`] before it is
//! placed next to papayu's own colour sequences.

use git_papayu::executor::{ChangeKind, FileChange};
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

/// The summary `git diff --stat` prints, laid out as git lays it out in `width` columns (80
/// when the output is no terminal, as git does): names padded to the longest (cut from the
/// left with `...` when they do not fit), the count right-aligned, a graph of `+` and `-` scaled
/// the way git scales it, a binary file as `Bin OLD -> NEW bytes`, and the closing line without
/// a part that is zero (` 1 file changed, 2 insertions(+)`).
pub fn diffstat(changes: &[FileChange], width: usize) -> String {
    let rows: Vec<(String, Stat)> = changes
        .iter()
        .map(|change| {
            let old = change.old.as_deref().unwrap_or_default();
            let new = change.new.as_deref().unwrap_or_default();
            let stat = match is_binary(old) || is_binary(new) {
                true => Stat::Binary(old.len(), new.len()),
                false => {
                    let (add, del) = counts(change);
                    Stat::Lines(add, del)
                }
            };
            (text::line(&change.path).into_owned(), stat)
        })
        .collect();
    let mut out = String::new();
    if rows.is_empty() {
        out.push_str(" 0 files changed\n");
        return out;
    }
    let layout = StatLayout::new(&rows, width);
    let (mut adds, mut dels) = (0, 0);
    for (name, stat) in &rows {
        let name = layout.name(name);
        let number_width = layout.number_width;
        match *stat {
            Stat::Binary(old, new) => out.push_str(&format!(
                " {name} | {:>number_width$} {old} -> {new} bytes\n",
                "Bin"
            )),
            Stat::Lines(add, del) => {
                adds += add;
                dels += del;
                let (plus, minus) = layout.graph(add, del);
                let space = if add + del > 0 { " " } else { "" };
                out.push_str(&format!(
                    " {name} | {:>number_width$}{space}{}{}\n",
                    add + del,
                    "+".repeat(plus),
                    "-".repeat(minus)
                ));
            }
        }
    }
    out.push_str(&stat_summary(rows.len(), adds, dels));
    out
}

/// What a diffstat row counts: lines added and deleted, or a binary file's sizes before and
/// after.
enum Stat {
    Lines(usize, usize),
    Binary(usize, usize),
}

/// Column widths of a diffstat, as git's `show_stats` computes them.
struct StatLayout {
    name_width: usize,
    number_width: usize,
    graph_width: usize,
    max_change: usize,
}

impl StatLayout {
    fn new(rows: &[(String, Stat)], width: usize) -> StatLayout {
        let max_len = rows
            .iter()
            .map(|(n, _)| n.chars().count())
            .max()
            .unwrap_or(0);
        let (mut max_change, mut bin_width, mut number_width) = (0, 0, 0);
        for (_, stat) in rows {
            match *stat {
                Stat::Lines(add, del) => max_change = max_change.max(add + del),
                Stat::Binary(old, new) => {
                    bin_width = bin_width.max(14 + digits(old) + digits(new));
                    number_width = 3;
                }
            }
        }
        let number_width = number_width.max(digits(max_change));
        let width = width.max(16 + 6 + number_width);
        let mut graph_width = match max_change + 4 > bin_width {
            true => max_change,
            false => bin_width - 4,
        };
        let mut name_width = max_len;
        if name_width + number_width + 6 + graph_width > width {
            let room = (width * 3 / 8).saturating_sub(number_width + 6);
            if graph_width > room {
                graph_width = room.max(6);
            }
            let rest = width.saturating_sub(number_width + 6 + graph_width);
            if name_width > rest {
                name_width = rest;
            } else {
                graph_width = width - number_width - 6 - name_width;
            }
        }
        StatLayout {
            name_width,
            number_width,
            graph_width,
            max_change,
        }
    }

    /// The name padded to its column, or its tail after `...` when it is too long.
    fn name(&self, name: &str) -> String {
        let len = name.chars().count();
        if len <= self.name_width {
            return format!("{name}{}", " ".repeat(self.name_width - len));
        }
        let room = self.name_width.saturating_sub(3);
        let mut tail: String = name.chars().skip(len - room).collect();
        // git starts the kept part at a directory when it can.
        if let Some(slash) = tail.find('/') {
            tail = tail[slash..].to_string();
        }
        let pad = room.saturating_sub(tail.chars().count());
        format!("...{tail}{}", " ".repeat(pad))
    }

    /// How many `+` and `-` a row gets: its counts, scaled down when the largest change does
    /// not fit the graph's width (every change keeps at least one mark).
    fn graph(&self, add: usize, del: usize) -> (usize, usize) {
        if self.graph_width > self.max_change {
            return (add, del);
        }
        let scale = |n: usize| match n {
            0 => 0,
            n => 1 + n * (self.graph_width - 1) / self.max_change,
        };
        let mut total = scale(add + del);
        if total < 2 && add > 0 && del > 0 {
            total = 2;
        }
        match add < del {
            true => {
                let plus = scale(add);
                (plus, total - plus)
            }
            false => {
                let minus = scale(del);
                (total - minus, minus)
            }
        }
    }
}

/// The number of decimal digits of `n`.
fn digits(n: usize) -> usize {
    n.to_string().len()
}

/// ` 2 files changed, 3 insertions(+), 1 deletion(-)`: a count that is zero is left out, unless
/// both are.
fn stat_summary(files: usize, adds: usize, dels: usize) -> String {
    let mut line = format!(" {}", count(files, "file"));
    line.push_str(" changed");
    if adds > 0 || dels == 0 {
        line.push_str(&format!(", {}(+)", count(adds, "insertion")));
    }
    if dels > 0 || adds == 0 {
        line.push_str(&format!(", {}(-)", count(dels, "deletion")));
    }
    line.push('\n');
    line
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
