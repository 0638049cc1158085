//! A line diff for previews: diffy's unified diff, with the common head and tail of the two
//! texts set aside first, so a one-line change in a huge file costs a scan, not a diff.

/// One hunk of a line diff, with its place in the whole files.
pub struct LineHunk<'a> {
    old_start: usize,
    old_len: usize,
    new_start: usize,
    new_len: usize,
    pub lines: Vec<DiffLine<'a>>,
}

/// One line of a hunk, borrowed from the texts compared.
pub enum DiffLine<'a> {
    Context(&'a str),
    Delete(&'a str),
    Insert(&'a str),
}

impl LineHunk<'_> {
    /// `@@ -3,7 +3,8 @@`, as git writes it (`,1` left out).
    pub fn header(&self) -> String {
        let range = |start: usize, len: usize| match len {
            1 => start.to_string(),
            n => format!("{start},{n}"),
        };
        format!(
            "@@ -{} +{} @@",
            range(self.old_start, self.old_len),
            range(self.new_start, self.new_len)
        )
    }
}

/// Lines of context around each change.
const CONTEXT: usize = 3;

/// The unified diff's hunks (three lines of context) of two texts. The common head and tail
/// are set aside before diffing, so a small change in a huge file costs a scan of the file, not
/// a diff of it.
pub fn line_hunks<'a>(old: &'a str, new: &'a str) -> Vec<LineHunk<'a>> {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let head = common_head(a, b);
    let tail = common_tail(a, b, head);
    let from = lines_back(a, head, CONTEXT);
    let a_end = lines_forward(a, a.len() - tail, CONTEXT);
    let b_end = lines_forward(b, b.len() - tail, CONTEXT);
    let skipped = a[..from].iter().filter(|&&c| c == b'\n').count();
    let (old_mid, new_mid) = (&old[from..a_end], &new[from..b_end]);
    let old_lines: Vec<&'a str> = old_mid.split_inclusive('\n').collect();
    let new_lines: Vec<&'a str> = new_mid.split_inclusive('\n').collect();
    let patch = diffy::create_patch(old_mid, new_mid);
    patch
        .hunks()
        .iter()
        .map(|h| borrowed_hunk(h, (&old_lines, &new_lines), skipped))
        .collect()
}

/// The length in bytes of the whole lines both texts start with.
fn common_head(a: &[u8], b: &[u8]) -> usize {
    let same_head = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    // Whole lines only: back to the start of the line the difference is in.
    a[..same_head]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |i| i + 1)
}

/// The length in bytes of the whole lines both texts end with, not reaching into the first
/// `head` bytes.
fn common_tail(a: &[u8], b: &[u8], head: usize) -> usize {
    let room = a.len().min(b.len()) - head;
    let same_tail = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    // Shortened until it starts a line in both texts.
    let starts_line = |t: &[u8], at: usize| at == 0 || t[at - 1] == b'\n';
    let mut tail = same_tail;
    while tail > 0 && !(starts_line(a, a.len() - tail) && starts_line(b, b.len() - tail)) {
        tail -= 1;
    }
    tail
}

/// The start of the line `lines` lines before the one starting at `at`.
fn lines_back(text: &[u8], mut at: usize, lines: usize) -> usize {
    for _ in 0..lines {
        if at == 0 {
            break;
        }
        at = text[..at - 1]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |i| i + 1);
    }
    at
}

/// The end of the `lines` lines starting at `at`.
fn lines_forward(text: &[u8], mut at: usize, lines: usize) -> usize {
    for _ in 0..lines {
        match text[at..].iter().position(|&c| c == b'\n') {
            Some(i) => at += i + 1,
            None => return text.len(),
        }
    }
    at
}

/// diffy's hunk `h` of the middle texts, its lines borrowed from them (`old_lines`,
/// `new_lines`) and its place moved past the `skipped` lines set aside.
fn borrowed_hunk<'a>(
    h: &diffy::Hunk<'_, str>,
    (old_lines, new_lines): (&[&'a str], &[&'a str]),
    skipped: usize,
) -> LineHunk<'a> {
    let (o, n) = (h.old_range(), h.new_range());
    // diffy's ranges are 1-based, 0 for an empty side: walk them to borrow the text from the
    // inputs.
    let (mut i, mut j) = (o.start().saturating_sub(1), n.start().saturating_sub(1));
    let lines = h
        .lines()
        .iter()
        .map(|line| match line {
            diffy::Line::Context(_) => {
                i += 1;
                j += 1;
                DiffLine::Context(old_lines[i - 1])
            }
            diffy::Line::Delete(_) => {
                i += 1;
                DiffLine::Delete(old_lines[i - 1])
            }
            diffy::Line::Insert(_) => {
                j += 1;
                DiffLine::Insert(new_lines[j - 1])
            }
        })
        .collect();
    LineHunk {
        old_start: o.start() + skipped,
        old_len: o.len(),
        new_start: n.start() + skipped,
        new_len: n.len(),
        lines,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Our hunks, rendered, against diffy's on the whole texts.
    fn same_as_diffy(old: &str, new: &str) {
        let ours: Vec<String> = line_hunks(old, new)
            .iter()
            .map(|h| {
                let mut s = h.header();
                for l in &h.lines {
                    let (mark, t) = match l {
                        DiffLine::Context(t) => (' ', t),
                        DiffLine::Delete(t) => ('-', t),
                        DiffLine::Insert(t) => ('+', t),
                    };
                    s.push_str(&format!("\n{mark}{t}"));
                }
                s
            })
            .collect();
        let patch = diffy::create_patch(old, new);
        let theirs: Vec<String> = patch
            .hunks()
            .iter()
            .map(|h| {
                let mut s = format!("@@ -{} +{} @@", h.old_range(), h.new_range());
                for l in h.lines() {
                    let (mark, t) = match l {
                        diffy::Line::Context(t) => (' ', t),
                        diffy::Line::Delete(t) => ('-', t),
                        diffy::Line::Insert(t) => ('+', t),
                    };
                    s.push_str(&format!("\n{mark}{t}"));
                }
                s
            })
            .collect();
        assert_eq!(ours, theirs, "old: {old:?}\nnew: {new:?}");
    }

    #[test]
    fn matches_a_whole_diff() {
        let base: String = (1..=40).map(|i| format!("line {i}\n")).collect();
        let cases = [
            base.replace("line 20\n", "LINE 20\n"),
            base.replace("line 1\n", ""),
            base.replace("line 40\n", "line 40"),
            format!("{base}tail\n"),
            format!("head\n{base}"),
            base.replace("line 5\n", "five\n").replace("line 35\n", ""),
            String::new(),
            base.replace("line 2\n", "line 2\nline 2\n"),
        ];
        for new in &cases {
            same_as_diffy(&base, new);
            same_as_diffy(new, &base);
        }
        same_as_diffy("a\nb", "a\nc");
        same_as_diffy("same\n", "same\n");
    }
}
