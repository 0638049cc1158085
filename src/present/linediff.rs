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

/// The unified diff's hunks (three lines of context) of two texts. The common head and tail
/// are set aside before diffing, so a small change in a huge file costs a scan of the file, not
/// a diff of it.
pub fn line_hunks<'a>(old: &'a str, new: &'a str) -> Vec<LineHunk<'a>> {
    const CONTEXT: usize = 3;
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let same_head = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    // Whole lines only: back to the start of the line the difference is in.
    let head = a[..same_head]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |i| i + 1);
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
    let back = |text: &[u8], mut at: usize| {
        for _ in 0..CONTEXT {
            if at == 0 {
                break;
            }
            at = text[..at - 1]
                .iter()
                .rposition(|&c| c == b'\n')
                .map_or(0, |i| i + 1);
        }
        at
    };
    let forward = |text: &[u8], mut at: usize| {
        for _ in 0..CONTEXT {
            match text[at..].iter().position(|&c| c == b'\n') {
                Some(i) => at += i + 1,
                None => return text.len(),
            }
        }
        at
    };
    let from = back(a, head);
    let a_end = forward(a, a.len() - tail);
    let b_end = forward(b, b.len() - tail);
    let skipped = a[..from].iter().filter(|&&c| c == b'\n').count();
    let (old_mid, new_mid) = (&old[from..a_end], &new[from..b_end]);
    let old_lines: Vec<&'a str> = old_mid.split_inclusive('\n').collect();
    let new_lines: Vec<&'a str> = new_mid.split_inclusive('\n').collect();
    let patch = diffy::create_patch(old_mid, new_mid);
    patch
        .hunks()
        .iter()
        .map(|h| {
            let (o, n) = (h.old_range(), h.new_range());
            // diffy's ranges are 1-based, 0 for an empty side: walk them to borrow the text
            // from the inputs.
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
        })
        .collect()
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
