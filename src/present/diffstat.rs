//! The summary of a change that `git diff --stat` prints, and the counts behind it.

use crate::executor::{ChangeKind, FileChange};

use super::linediff::{DiffLine, line_hunks};
use super::text;

/// Lines added and removed in one change.
pub fn counts(change: &FileChange) -> (usize, usize) {
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

/// Content git would call binary: not UTF-8, or holding a NUL byte.
pub fn is_binary(bytes: &[u8]) -> bool {
    bytes.contains(&0) || std::str::from_utf8(bytes).is_err()
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
