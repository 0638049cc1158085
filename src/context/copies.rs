//! The block of a copy: the lines of a single-header build or an amalgamation that hold the code
//! shown of the files it was built from ([`super::twins`]): the first part's windows, best
//! first, then the next part's, each part adding to the characters the copy may take.

use super::Block;
use super::blocks::file_block;
use super::corpus::Corpus;
use crate::store::Snapshot;

/// Characters a `... lines a-b of N:` header costs, at most.
const WINDOW_HEADER: usize = 40;
/// Windows a block's reason names, at most.
const SAID: usize = 4;

/// A copy sent: the file, its block's place among the blocks, the characters it may take (never
/// more than a file may), and for each part it holds code of, the copy's windows, best first.
pub(super) struct Copy {
    pub(super) file: usize,
    pub(super) block: usize,
    allowance: usize,
    most: usize,
    parts: Vec<(usize, Vec<(u32, u32)>)>,
}

impl Copy {
    /// A copy of `file`, whose block is `block`, taking `allowance` characters and at most
    /// `most` however many parts it holds.
    pub(super) fn new(file: usize, block: usize, allowance: usize, most: usize) -> Copy {
        Copy {
            file,
            block,
            allowance: allowance.min(most),
            most,
            parts: Vec::new(),
        }
    }

    /// The copy also holds the code shown of `part`, in these windows (best first), and may
    /// take `chars` more characters for them.
    pub(super) fn add(&mut self, part: usize, windows: Vec<(u32, u32)>, chars: usize) {
        self.parts.push((part, windows));
        self.allowance = (self.allowance + chars).min(self.most);
    }

    /// The first part's windows, then the next part's.
    fn in_turn(&self) -> Vec<(u32, u32)> {
        self.parts
            .iter()
            .flat_map(|p| p.1.iter().copied())
            .collect()
    }

    /// The copy's block: the windows that fit, and why.
    pub(super) fn block(&self, snap: &Snapshot<'_>, corpus: &Corpus) -> Option<Block> {
        let text = corpus.text(self.file);
        let lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
        let windows = fitting(&self.in_turn(), &lines, self.allowance);
        if windows.is_empty() {
            return None;
        }
        let kept: Vec<String> = windows
            .iter()
            .take(SAID)
            .map(|(a, b)| format!("{a}-{b}"))
            .collect();
        let more = if windows.len() > SAID { ", …" } else { "" };
        let parts: Vec<&str> = self
            .parts
            .iter()
            .map(|p| corpus.paths[p.0].as_str())
            .collect();
        let reason = format!(
            "holds the code shown of {}; kept {}{more}",
            parts.join(", "),
            kept.join(", ")
        );
        file_block(snap, &corpus.paths[self.file], &windows, &reason, 3)
    }
}

/// The windows, in order, that fit `chars` with their lines and a header each.
fn fitting(windows: &[(u32, u32)], lines: &[&[u8]], chars: usize) -> Vec<(u32, u32)> {
    let mut cost = 0;
    let mut out: Vec<(u32, u32)> = Vec::new();
    for &(a, b) in windows {
        if out.iter().any(|&(x, y)| x <= a && b <= y) {
            continue;
        }
        let (from, to) = ((a as usize).min(lines.len()), (b as usize).min(lines.len()));
        let size: usize = lines[from.saturating_sub(1)..to]
            .iter()
            .map(|l| String::from_utf8_lossy(l).chars().count())
            .sum::<usize>()
            + WINDOW_HEADER;
        if cost + size > chars {
            continue;
        }
        cost += size;
        out.push((a, b));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_part_adds_its_windows_and_its_room() {
        let mut copy = Copy::new(0, 0, 2 * (121 + 40), 2 * (121 + 40) + 66 + 40);
        copy.add(1, vec![(100, 110), (300, 310), (500, 510)], 0);
        // More than it may take: the copy keeps to the most a file may.
        copy.add(2, vec![(900, 905), (105, 108)], 10_000);
        assert_eq!(
            copy.in_turn(),
            [(100, 110), (300, 310), (500, 510), (900, 905), (105, 108)]
        );
        let lines: Vec<&[u8]> = vec![b"0123456789\n"; 1000];
        // Room for two windows of 11 lines (with their headers) and one of 6; a window
        // already shown costs nothing.
        let kept = fitting(&copy.in_turn(), &lines, copy.allowance);
        assert_eq!(kept, [(100, 110), (300, 310), (900, 905)]);
    }
}
