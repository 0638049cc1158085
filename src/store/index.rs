//! Which notes hold lines about which plan, per notes commit: what lets a command about one
//! plan read only the notes that concern it, whatever the number of plans stored.
//!
//! Every line about a plan — its record, its events, the events that cancel them, teammates'
//! lines merged in — names the plan and is written on the plan's own note (see
//! [`super::records::own_note`]), on the note of the plan's base (its record; every line, from
//! papayu versions before plans had their own note), or on the note of a commit a rewrite
//! copied that note to. The index lists, for each plan with a record (lines about any other
//! plan are read by nobody: see [`super::records`]), every object whose note holds a line
//! about it, so a ledger read from just those notes knows the plan's record, status, events
//! and copies exactly as a ledger of every note would. It also keeps when each plan was made,
//! so the newest plans are found without reading any note, and which notes hold nothing about
//! a plan but its sealed record: of those a reader needs one (the plan's own note), however
//! many other plans share them.
//!
//! The index is derived data, cached under `<gitdir>/papayu/cache/` keyed by the notes commit:
//! built once by reading every note (after a fetch, a notes merge, an amend that copied notes),
//! and carried forward by papayu's own appends, which know the lines they add. A missing or
//! damaged entry is rebuilt or not used; it never decides anything the notes do not say.

use std::collections::BTreeMap;

use git2::{Oid, Repository};

use super::records::{line_summaries, line_summary};
use super::{StoreError, cache, notes};

const KIND: &str = "plans2";

/// What the index knows of one plan while it is built.
#[derive(Debug, Default, Clone)]
struct Entry {
    /// When the plan was made (from its record), if a record was seen.
    created: Option<i64>,
    /// The time came from a record sealed by its id, which no other record can displace.
    sealed: bool,
    /// Each object whose note holds a line about the plan, and what it holds.
    carriers: BTreeMap<Oid, Holds>,
}

/// What one note holds about a plan: its sealed record, other lines, or both.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Holds {
    record: bool,
    other: bool,
}

impl Holds {
    fn merge(&mut self, more: Holds) {
        self.record |= more.record;
        self.other |= more.other;
    }

    /// `:r` for the record alone, `:R` for the record and more, nothing for no record.
    fn suffix(self) -> &'static str {
        match (self.record, self.other) {
            (true, false) => ":r",
            (true, true) => ":R",
            _ => "",
        }
    }
}

/// Which notes a reader of one plan needs: every note that holds something about it besides
/// its sealed record and, unless one of those holds the record too, one of the notes that hold
/// only that record (the same line on each).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading {
    pub read: Vec<Oid>,
    /// Notes that hold only the plan's sealed record: its base, its own note and the copies a
    /// rewrite made. They need not be read; which is which is known once the record is.
    pub record_only: Vec<Oid>,
    /// Whether one of [`Reading::read`] holds the sealed record.
    pub record_read: bool,
}

impl Reading {
    /// The notes to read: [`Reading::read`] and, when none of them holds the record, one of
    /// those that hold only the record — the plan's own note when it is one.
    pub fn objects(&self, id: &str) -> Vec<Oid> {
        let mut out = self.read.clone();
        if !self.record_read {
            let own = super::records::own_note(id);
            let one = self
                .record_only
                .iter()
                .find(|&&o| Some(o) == own)
                .or(self.record_only.first());
            out.extend(one.copied());
        }
        out
    }
}

/// The index as its cached text: one line per plan, `id created object object …` (`created`
/// is `-` for a plan only events mention; an object is followed by `:r` when its note holds
/// nothing about the plan but its sealed record, by `:R` when it holds that record and more),
/// sorted by id. A lookup is a binary search over the
/// lines, so reading the index costs one file read however many plans it lists.
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
        for line in line_summaries(&notes::all(repo, Some(notes))?) {
            add(&mut map, line.on, line.plan, line.made);
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
            let id = index.id(i);
            while let Some((next, entry)) = pending.next_if(|(next, _)| next.as_str() < id) {
                push_line(&mut merged, &next, &entry);
            }
            match pending.next_if(|(next, _)| next == id) {
                Some((_, mut entry)) => {
                    let Some(old) = parse_line(line) else {
                        return; // A damaged entry: the next reader rebuilds.
                    };
                    entry.created = entry.created.or(old.created);
                    for (on, holds) in old.carriers {
                        entry.carriers.entry(on).or_default().merge(holds);
                    }
                    push_line(&mut merged, id, &entry);
                }
                _ => {
                    merged.push_str(line);
                    merged.push('\n');
                }
            }
        }
        for (next, entry) in pending {
            push_line(&mut merged, &next, &entry);
        }
        cache::write(repo, KIND, new, merged.as_bytes());
    }

    fn from_map(map: &BTreeMap<String, Entry>) -> PlanIndex {
        let mut text = String::new();
        for (id, entry) in map {
            push_line(&mut text, id, entry);
        }
        PlanIndex::from_text(text)
    }

    fn from_bytes(bytes: Vec<u8>) -> Option<PlanIndex> {
        let text = String::from_utf8(bytes).ok()?;
        let index = PlanIndex::from_text(text);
        // Sorted, with 40-digit ids, or not used at all (the rest of a line is checked when it
        // is read).
        let ok = (0..index.starts.len()).all(|i| {
            let id = index.id(i);
            id.len() == 40
                && id.bytes().all(|b| b.is_ascii_hexdigit())
                && (i == 0 || index.id(i - 1) < id)
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
        self.reading(id).map(|r| {
            let mut all = r.read;
            all.extend(r.record_only);
            all.sort();
            all
        })
    }

    /// Which notes a reader of `id` needs (see [`Reading`]); `None` when its entry is damaged.
    pub fn reading(&self, id: &str) -> Option<Reading> {
        let i = self.starts_at(id);
        let carriers = match i < self.starts.len() && self.id(i) == id {
            true => parse_line(self.line(i))?.carriers,
            false => BTreeMap::new(),
        };
        let record_read = carriers.values().any(|h| h.record && h.other);
        let (only, read): (Vec<_>, Vec<_>) = carriers
            .into_iter()
            .partition(|(_, h)| h.record && !h.other);
        Some(Reading {
            read: read.into_iter().map(|(on, _)| on).collect(),
            record_only: only.into_iter().map(|(on, _)| on).collect(),
            record_read,
        })
    }

    /// Whether plan `id` has a record in these notes.
    pub fn has_record(&self, id: &str) -> bool {
        let i = self.starts_at(id);
        i < self.starts.len()
            && self.id(i) == id
            && self.line(i).split(' ').nth(1).is_some_and(|t| t != "-")
    }

    /// Up to `n` plan ids with a record, newest first (ties by id).
    pub fn newest(&self, n: usize) -> Vec<&str> {
        let mut made: Vec<(i64, &str)> = (0..self.starts.len())
            .filter_map(|i| {
                let line = self.line(i);
                let mut words = line.split(' ');
                let id = words.next()?;
                let created = words.next()?.parse::<i64>().ok()?;
                Some((created, id))
            })
            .collect();
        made.sort_unstable_by(|a, b| b.cmp(a));
        made.truncate(n);
        made.into_iter().map(|(_, id)| id).collect()
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

/// Adds the lines papayu itself appends: every one is about a plan with a record.
fn add_text(map: &mut BTreeMap<String, Entry>, on: Oid, text: &str) {
    for line in text.lines().filter(|l| l.starts_with('{')) {
        if let Some((plan, made)) = line_summary(line, on) {
            add(map, on, plan, made);
        }
    }
}

fn add(map: &mut BTreeMap<String, Entry>, on: Oid, plan: String, made: Option<(i64, bool)>) {
    let entry = map.entry(plan).or_default();
    if let Some((made, sealed)) = made
        && (entry.created.is_none() || (sealed && !entry.sealed))
    {
        entry.created = Some(made);
        entry.sealed = sealed;
    }
    let record = matches!(made, Some((_, true)));
    entry.carriers.entry(on).or_default().merge(Holds {
        record,
        other: !record,
    });
}

fn push_line(out: &mut String, id: &str, entry: &Entry) {
    out.push_str(id);
    match entry.created {
        Some(t) => out.push_str(&format!(" {t}")),
        None => out.push_str(" -"),
    }
    for (on, holds) in &entry.carriers {
        out.push(' ');
        out.push_str(&on.to_string());
        out.push_str(holds.suffix());
    }
    out.push('\n');
}

/// One line of the index read back; `None` when it does not read.
fn parse_line(line: &str) -> Option<Entry> {
    let mut words = line.split(' ').skip(1);
    let created = match words.next()? {
        "-" => None,
        t => Some(t.parse().ok()?),
    };
    let carriers = words
        .map(|w| {
            let (oid, record, other) = match (w.strip_suffix(":r"), w.strip_suffix(":R")) {
                (Some(oid), _) => (oid, true, false),
                (_, Some(oid)) => (oid, true, true),
                _ => (w, false, true),
            };
            Oid::from_str(oid)
                .ok()
                .map(|o| (o, Holds { record, other }))
        })
        .collect::<Option<BTreeMap<Oid, Holds>>>()?;
    Some(Entry {
        created,
        sealed: false,
        carriers,
    })
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
        map.insert(
            b.clone(),
            Entry {
                created: Some(7),
                sealed: true,
                carriers: [(
                    other,
                    Holds {
                        record: false,
                        other: true,
                    },
                )]
                .into(),
            },
        );
        let index = PlanIndex::from_map(&map);
        assert_eq!(index.carriers(&a), Some(vec![on]));
        assert_eq!(index.carriers(&b), Some(vec![other]));
        assert_eq!(index.carriers(&"c".repeat(40)), Some(Vec::new()));
        assert_eq!(index.ids_with_prefix("aaaa"), vec![a.as_str()]);
        assert!(index.has_record(&b) && !index.has_record(&a) && !index.has_record("c"));
        assert_eq!(index.ids_with_prefix("a").len(), 2);
        assert!(index.ids_with_prefix("b").is_empty());
        // Only plans with a record have an age.
        assert_eq!(index.newest(5), vec![b.as_str()]);
        let again = PlanIndex::from_bytes(index.text.clone().into_bytes());
        assert_eq!(again, Some(index));
        assert_eq!(PlanIndex::from_bytes(b"zz nothex\n".to_vec()), None);
        let unsorted = format!("{b} - {on}\n{a} - {on}\n");
        assert_eq!(PlanIndex::from_bytes(unsorted.into_bytes()), None);
        let damaged = PlanIndex::from_bytes(format!("{a} - {}\n", "z".repeat(40)).into_bytes());
        assert_eq!(damaged.and_then(|d| d.carriers(&a)), None);
    }

    #[test]
    fn a_reader_skips_notes_that_hold_only_a_record_another_note_holds() {
        let id = "b".repeat(40);
        let own = Oid::from_str(&id).unwrap();
        let (base, copy, old) = (
            Oid::from_str(&"1".repeat(40)).unwrap(),
            Oid::from_str(&"2".repeat(40)).unwrap(),
            Oid::from_str(&"3".repeat(40)).unwrap(),
        );
        let read = |line: String| {
            let index = PlanIndex::from_bytes(line.into_bytes()).unwrap();
            let reading = index.reading(&id).unwrap();
            (reading.objects(&id), reading.record_only)
        };
        // Its own note holds the record and its events: read alone, the others are copies.
        let (objects, only) = read(format!("{id} 5 {base}:r {copy}:r {own}:R\n"));
        assert_eq!((objects, only), (vec![own], vec![base, copy]));
        // No events yet: one of the notes that hold only the record, its own first.
        let (objects, _) = read(format!("{id} 5 {base}:r {own}:r\n"));
        assert_eq!(objects, vec![own]);
        // A record from before own notes, with events an older version put on its base.
        let (objects, _) = read(format!("{id} 5 {base}:R {own}\n"));
        assert_eq!(objects, vec![base, own]);
        let (objects, _) = read(format!("{id} 5 {base}:r {old} {own}\n"));
        assert_eq!(objects, vec![old, own, base]);
    }
}
