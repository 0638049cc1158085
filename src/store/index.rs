//! Which notes hold lines about which plan, per notes commit: what lets a command about one
//! plan read only the notes that concern it, whatever the number of plans stored.
//!
//! Every line about a plan — its record, its events, the events that cancel them, teammates'
//! lines merged in — is written on the note of the plan's base or of a commit a rewrite copied
//! that note to. So the notes that hold any line about plan X hold *every* line about X, and a
//! ledger read from just those notes knows X's record, status, events and copies exactly as a
//! ledger of every note would.
//!
//! The index is derived data, cached under `<gitdir>/papayu/cache/` keyed by the notes commit:
//! built once by reading every note (after a fetch, a notes merge, an amend that copied notes),
//! and carried forward by papayu's own appends, which know the lines they add. A missing or
//! unreadable entry is rebuilt; it never decides anything the notes do not say.

use std::collections::{BTreeMap, BTreeSet};

use git2::{Oid, Repository};

use super::records::plan_of_line;
use super::{StoreError, cache, notes};

const KIND: &str = "plans";

/// Plan id → the annotated objects whose notes hold a line about it, kept as its cached text:
/// one line per plan, `id on on …`, sorted by id. A lookup is a binary search over the lines,
/// so reading the index costs one file read however many plans it lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlanIndex {
    text: String,
    /// Byte offset of each line, in order.
    starts: Vec<usize>,
}

impl PlanIndex {
    /// The index of the notes commit `notes`, from the cache or built from the notes.
    pub fn load(repo: &Repository, notes: Option<Oid>) -> Result<PlanIndex, StoreError> {
        let Some(notes) = notes else {
            return Ok(PlanIndex::default());
        };
        if let Some(index) = cache::read(repo, KIND, notes).and_then(PlanIndex::from_bytes) {
            return Ok(index);
        }
        let mut map = BTreeMap::new();
        for (on, text) in notes::all(repo, Some(notes))? {
            add_text(&mut map, on, &text);
        }
        let index = PlanIndex::from_map(&map);
        cache::write(repo, KIND, notes, index.text.as_bytes());
        Ok(index)
    }

    /// Records that the notes commit `new` is `old` plus `additions`: its index is `old`'s with
    /// the added lines, when `old`'s is cached (else `new`'s is built when first needed).
    pub fn carry_forward(
        repo: &Repository,
        old: Option<Oid>,
        new: Oid,
        additions: &[(Oid, String)],
    ) {
        let index = match old {
            None => PlanIndex::default(),
            Some(old) => match cache::read(repo, KIND, old).and_then(PlanIndex::from_bytes) {
                Some(index) => index,
                None => return,
            },
        };
        let mut added = BTreeMap::new();
        for (on, line) in additions {
            add_text(&mut added, *on, line);
        }
        // Only the lines of the plans added to change: merge them in, in order.
        let mut merged = String::with_capacity(index.text.len() + 128 * added.len());
        let mut pending = added.into_iter().peekable();
        for i in 0..index.starts.len() {
            let line = index.line(i);
            let id = line.split(' ').next().unwrap_or_default();
            while let Some((next, _)) = pending.peek()
                && next.as_str() < id
            {
                let (next, ons) = pending.next().expect("peeked");
                push_line(&mut merged, &next, &ons);
            }
            match pending.peek() {
                Some((next, _)) if next == id => {
                    let (_, mut ons) = pending.next().expect("peeked");
                    let Some(old) = index.carriers_of_line(line) else {
                        return; // A damaged entry: the next reader rebuilds.
                    };
                    ons.extend(old);
                    push_line(&mut merged, id, &ons);
                }
                _ => {
                    merged.push_str(line);
                    merged.push('\n');
                }
            }
        }
        for (next, ons) in pending {
            push_line(&mut merged, &next, &ons);
        }
        cache::write(repo, KIND, new, merged.as_bytes());
    }

    fn from_map(map: &BTreeMap<String, BTreeSet<Oid>>) -> PlanIndex {
        let mut text = String::new();
        for (id, ons) in map {
            push_line(&mut text, id, ons);
        }
        PlanIndex::from_text(text)
    }

    fn from_bytes(bytes: Vec<u8>) -> Option<PlanIndex> {
        let text = String::from_utf8(bytes).ok()?;
        let index = PlanIndex::from_text(text);
        // Sorted, with 40-digit ids and carriers, or not used at all (a carrier that does not
        // parse is caught when it is read).
        let ok = (0..index.starts.len()).all(|i| {
            let line = index.line(i);
            line.len() % 41 == 40 && line.is_ascii() && (i == 0 || index.id(i - 1) < index.id(i))
        });
        ok.then_some(index)
    }

    fn from_text(text: String) -> PlanIndex {
        let mut starts = Vec::new();
        let mut at = 0;
        for line in text.split_inclusive('\n') {
            if !line.trim_end().is_empty() {
                starts.push(at);
            }
            at += line.len();
        }
        PlanIndex { text, starts }
    }

    fn line(&self, i: usize) -> &str {
        let rest = &self.text[self.starts[i]..];
        rest.split('\n').next().unwrap_or_default()
    }

    fn id(&self, i: usize) -> &str {
        self.line(i).split(' ').next().unwrap_or_default()
    }

    /// The carriers a line lists; `None` when one does not parse (the entry is then not used).
    fn carriers_of_line(&self, line: &str) -> Option<BTreeSet<Oid>> {
        line.split(' ')
            .skip(1)
            .map(|w| Oid::from_str(w).ok())
            .collect()
    }

    /// Full ids starting with `prefix` (lowercase hex).
    pub fn ids_with_prefix(&self, prefix: &str) -> Vec<&str> {
        let from = self.starts_at(prefix);
        (from..self.starts.len())
            .map(|i| self.id(i))
            .take_while(|id| id.starts_with(prefix))
            .collect()
    }

    /// The objects whose notes hold lines about `id`; `None` when its entry is damaged.
    pub fn carriers(&self, id: &str) -> Option<Vec<Oid>> {
        let i = self.starts_at(id);
        match i < self.starts.len() && self.id(i) == id {
            true => self
                .carriers_of_line(self.line(i))
                .map(|s| s.into_iter().collect()),
            false => Some(Vec::new()),
        }
    }

    /// The first line whose id is not less than `key`.
    fn starts_at(&self, key: &str) -> usize {
        let (mut lo, mut hi) = (0, self.starts.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.id(mid) < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// How many plans are indexed.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }
}

fn add_text(map: &mut BTreeMap<String, BTreeSet<Oid>>, on: Oid, text: &str) {
    for line in text.lines().filter(|l| l.starts_with('{')) {
        if let Some(plan) = plan_of_line(line, on) {
            map.entry(plan).or_default().insert(on);
        }
    }
}

fn push_line(out: &mut String, id: &str, ons: &BTreeSet<Oid>) {
    out.push_str(id);
    for on in ons {
        out.push(' ');
        out.push_str(&on.to_string());
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_found_by_binary_search() {
        let on = Oid::from_str("0123456789012345678901234567890123456789").unwrap();
        let other = Oid::from_str("1123456789012345678901234567890123456789").unwrap();
        let mut map = BTreeMap::new();
        let (a, b) = ("a".repeat(40), format!("ab{}", "0".repeat(38)));
        add_text(
            &mut map,
            on,
            &format!("{{\"plan\":\"{a}\",\"event\":\"merged\",\"at\":1}}\nnot json\n"),
        );
        map.entry(b.clone()).or_default().insert(other);
        let index = PlanIndex::from_map(&map);
        assert_eq!(index.carriers(&a), Some(vec![on]));
        assert_eq!(index.carriers(&b), Some(vec![other]));
        assert_eq!(index.carriers(&"c".repeat(40)), Some(Vec::new()));
        let damaged = PlanIndex::from_bytes(format!("{a} {}\n", "z".repeat(40)).into_bytes());
        assert_eq!(damaged.and_then(|d| d.carriers(&a)), None);
        assert_eq!(index.ids_with_prefix("aaaa"), vec![a.as_str()]);
        assert_eq!(index.ids_with_prefix("a").len(), 2);
        assert!(index.ids_with_prefix("b").is_empty());
        let again = PlanIndex::from_bytes(index.text.clone().into_bytes());
        assert_eq!(again, Some(index));
        assert_eq!(PlanIndex::from_bytes(b"zz nothex\n".to_vec()), None);
        let unsorted = format!("{b} {on}\n{a} {on}\n");
        assert_eq!(PlanIndex::from_bytes(unsorted.into_bytes()), None);
    }
}
