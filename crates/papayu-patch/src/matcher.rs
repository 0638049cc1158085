//! Finding every place a run of lines occurs in a file, and choosing among several only when the
//! choice is beyond doubt.
//!
//! The file is indexed lazily once per comparison level (line key → positions), so a search
//! costs the occurrences of the pattern's rarest line rather than the file's length. Searches
//! always return *all* positions: uniqueness is decided by the caller from the full list. This
//! module must never pick "the first match".

use std::borrow::Cow;
use std::cell::OnceCell;
use std::hash::{DefaultHasher, Hash, Hasher};

use super::normalize::{Norm, is_blank, is_trivial};
use super::text::FileText;

fn hash(s: &str) -> u64 {
    let mut h = DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

/// Keys of a sequence of lines at one level, and where each key occurs: the (hash, position)
/// pairs sorted, as two arrays, so the positions of one hash are one run in file order. Two
/// flat arrays rather than a map of lists: a file of a million distinct lines costs 12 bytes a
/// line and one sort, not a million small allocations.
struct Keyed<'a> {
    keys: Vec<Cow<'a, str>>,
    hashes: Vec<u64>,
    positions: Vec<u32>,
}

impl<'a> Keyed<'a> {
    fn new(keys: Vec<Cow<'a, str>>) -> Keyed<'a> {
        let mut pairs: Vec<(u64, u32)> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| (hash(k), i as u32))
            .collect();
        pairs.sort_unstable();
        let (hashes, positions) = pairs.into_iter().unzip();
        Keyed {
            keys,
            hashes,
            positions,
        }
    }

    /// The lines whose key hashes to `h`, in file order (a hash collision may add lines whose
    /// key differs: callers compare keys).
    fn lookup(&self, h: u64) -> &[u32] {
        let from = self.hashes.partition_point(|&x| x < h);
        let to = from + self.hashes[from..].partition_point(|&x| x == h);
        &self.positions[from..to]
    }

    /// Every start `p >= lo` where `pattern` (already keyed) occurs.
    fn find(&self, pattern: &[Cow<'_, str>], lo: usize) -> Vec<usize> {
        let m = pattern.len();
        let n = self.keys.len();
        if m == 0 || m > n {
            return Vec::new();
        }
        let mut pivot: Option<(usize, &[u32])> = None;
        for (t, key) in pattern.iter().enumerate() {
            let list = self.lookup(hash(key));
            if list.is_empty() {
                return Vec::new();
            }
            if pivot.is_none_or(|(_, best)| list.len() < best.len()) {
                pivot = Some((t, list));
            }
        }
        let Some((t, list)) = pivot else {
            return Vec::new();
        };
        let mut found = Vec::new();
        for &q in list {
            let q = q as usize;
            if q < t {
                continue;
            }
            let p = q - t;
            if p < lo || p + m > n {
                continue;
            }
            if pattern
                .iter()
                .zip(&self.keys[p..p + m])
                .all(|(a, b)| a == b)
            {
                found.push(p);
            }
        }
        found
    }
}

/// The file being patched, with its per-level indexes built on first use.
pub(crate) struct Haystack<'a> {
    pub file: &'a FileText<'a>,
    levels: [OnceCell<Keyed<'a>>; 4],
    /// Positions of the non-blank lines, and their `Punct` keys indexed.
    nonblank: OnceCell<(Vec<usize>, Keyed<'a>)>,
}

fn slot(norm: Norm) -> usize {
    match norm {
        Norm::Text => 0,
        Norm::TrimEnd => 1,
        Norm::Trim => 2,
        Norm::Punct => 3,
    }
}

impl<'a> Haystack<'a> {
    pub fn new(file: &'a FileText<'a>) -> Haystack<'a> {
        Haystack {
            file,
            levels: Default::default(),
            nonblank: OnceCell::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.file.len()
    }

    pub fn line(&self, i: usize) -> &'a str {
        self.file.lines[i].text
    }

    fn keyed(&self, norm: Norm) -> &Keyed<'a> {
        self.levels[slot(norm)]
            .get_or_init(|| Keyed::new(self.file.lines.iter().map(|l| norm.key(l.text)).collect()))
    }

    /// The key of file line `i` at `norm`.
    pub fn key(&self, norm: Norm, i: usize) -> &str {
        &self.keyed(norm).keys[i]
    }

    /// Every start `p >= lo` where `lines` occur at `norm`.
    pub fn find(&self, norm: Norm, lines: &[&str], lo: usize) -> Vec<usize> {
        let pattern: Vec<Cow<'_, str>> = lines.iter().map(|l| norm.key(l)).collect();
        self.keyed(norm).find(&pattern, lo)
    }

    /// Lines equal to `line` at `norm`.
    pub fn positions(&self, norm: Norm, line: &str) -> &[u32] {
        let key = norm.key(line);
        self.keyed(norm).lookup(hash(&key))
    }

    /// The positions of the file's non-blank lines.
    pub fn nonblank(&self) -> &[usize] {
        &self.nonblank_index().0
    }

    fn nonblank_index(&self) -> &(Vec<usize>, Keyed<'a>) {
        self.nonblank.get_or_init(|| {
            let lines = &self.file.lines;
            let pos: Vec<usize> = (0..lines.len())
                .filter(|&i| !is_blank(lines[i].text))
                .collect();
            let keys = pos
                .iter()
                .map(|&i| Norm::Punct.key(lines[i].text))
                .collect();
            (pos, Keyed::new(keys))
        })
    }

    /// Every index `j` into [`Haystack::nonblank`] from which the non-blank file lines equal
    /// `lines` at `Punct`, starting at or after file line `lo`.
    pub fn find_nonblank(&self, lines: &[&str], lo: usize) -> Vec<usize> {
        let (pos, keyed) = self.nonblank_index();
        let pattern: Vec<Cow<'_, str>> = lines.iter().map(|l| Norm::Punct.key(l)).collect();
        let first = pos.partition_point(|&p| p < lo);
        keyed.find(&pattern, first)
    }

    /// File lines (at or after `lo`) that the anchor text names: their `Punct` key starts with
    /// the anchor's. Empty when the anchor is too weak to tell places apart.
    pub fn anchor_lines(&self, anchor: &str) -> Vec<usize> {
        let key = Norm::Punct.key(anchor);
        if key.chars().count() < 4 || is_trivial(&key) {
            return Vec::new();
        }
        (0..self.len())
            .filter(|&i| self.key(Norm::Punct, i).starts_with(key.as_ref()))
            .collect()
    }
}

/// Chooses one of several candidate starts, or none when the choice would be a guess.
///
/// The line hint decides only when the nearest candidate is unmistakably nearest: strictly more
/// than twice as close as the runner-up. The anchor (the text after `@@`) decides only when
/// exactly one candidate is the first to follow an occurrence of it. When both decide, they
/// must agree.
pub(crate) fn choose(
    candidates: &[usize],
    hint: Option<usize>,
    anchors: &[usize],
) -> Option<usize> {
    match candidates {
        [] => return None,
        [one] => return Some(*one),
        _ => {}
    }
    let by_hint = hint.and_then(|h| {
        let mut d: Vec<(usize, usize)> = candidates.iter().map(|&c| (c.abs_diff(h), c)).collect();
        d.sort_unstable();
        (d[1].0 > 2 * d[0].0).then_some(d[0].1)
    });
    let by_anchor = {
        let mut sorted = candidates.to_vec();
        sorted.sort_unstable();
        let mut chosen: Vec<usize> = anchors
            .iter()
            .filter_map(|&a| sorted.iter().copied().find(|&c| c > a))
            .collect();
        chosen.sort_unstable();
        chosen.dedup();
        match chosen.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    };
    match (by_hint, by_anchor) {
        (Some(h), Some(a)) if h != a => None,
        (Some(h), _) => Some(h),
        (None, a) => a,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_all_occurrences() {
        let file = FileText::new("a\nb\nc\na\nb\n");
        let hay = Haystack::new(&file);
        assert_eq!(hay.find(Norm::Text, &["a", "b"], 0), vec![0, 3]);
        assert_eq!(hay.find(Norm::Text, &["a", "b"], 1), vec![3]);
        assert_eq!(hay.find(Norm::Text, &["b", "x"], 0), Vec::<usize>::new());
    }

    #[test]
    fn nonblank_projection() {
        let file = FileText::new("a\n\nb\nc\n\n\nd\n");
        let hay = Haystack::new(&file);
        assert_eq!(hay.nonblank(), &[0, 2, 3, 6]);
        assert_eq!(hay.find_nonblank(&["c", "d"], 0), vec![2]);
        assert_eq!(hay.find_nonblank(&["a", "b"], 1), Vec::<usize>::new());
    }

    #[test]
    fn hint_must_be_clearly_nearest() {
        assert_eq!(choose(&[10, 50], Some(12), &[]), Some(10));
        assert_eq!(choose(&[10, 50], Some(30), &[]), None);
        assert_eq!(choose(&[10, 50], Some(25), &[]), None);
        assert_eq!(choose(&[10, 50], Some(22), &[]), Some(10));
        assert_eq!(choose(&[10, 50], None, &[]), None);
        assert_eq!(choose(&[10], None, &[]), Some(10));
    }

    #[test]
    fn anchor_picks_the_first_after_it() {
        assert_eq!(choose(&[10, 50], None, &[40]), Some(50));
        assert_eq!(choose(&[10, 50], None, &[5, 40]), None);
        assert_eq!(choose(&[10, 50], Some(12), &[40]), None);
    }
}
