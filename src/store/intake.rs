//! Merging a remote's papayu notes into the local ones: what `sync` takes in.
//!
//! Three rules hold for every merge, whatever `notes.papayu.mergeStrategy` says and whatever the
//! two histories are:
//!
//! - **Every local line stays.** A remote whose notes lack lines the local notes hold (a
//!   teammate ran `git notes prune`, edited or removed a note, and pushed) removes nothing here:
//!   where the remote's tip descends from the local one but drops lines, the result is a merge
//!   commit holding the union, never a fast-forward to the remote's tip.
//! - **What comes in is bounded**: per line ([`MAX_LINE_BYTES`], [`MAX_EVENT_BYTES`]), per plan
//!   and note ([`MAX_EVENTS_PER_PLAN`]) and per note ([`MAX_NOTE_BYTES`]), and only lines about
//!   plans that have a record (here or arriving) are taken; a conversation only when an arriving
//!   record names it. The rest is refused and counted ([`Refused`]). The merge leaves it out, so
//!   the next push leaves it out of the remote's notes too.
//! - Within those two, as `git notes merge` does: a note only one side changed since the merge
//!   base takes that side, and a note both changed is combined by the [`Strategy`].
//!
//! Nothing here moves a ref: the caller moves `refs/notes/papayu` to the commit returned.

use std::collections::{BTreeMap, HashMap, HashSet};

use git2::{FileMode, Oid, Repository};
use serde::Serialize;

use super::index::PlanIndex;
use super::notes::blobs;
use super::records::{Mention, mention, names_a_plan, plan_of_line, record_of_line};
use super::{NOTES_REF, StoreError};

/// The longest line taken from a remote. A plan record holds the plan's files, and no record
/// papayu writes is longer than the largest answer it accepts from a model (16 MB).
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// The longest event line taken from a remote. An event papayu writes is a few hundred bytes;
/// its largest field, a failed check's output tail, is cut at 4,000 characters.
pub const MAX_EVENT_BYTES: usize = 64 * 1024;

/// The most event lines one note takes from a remote about one plan, its local ones counted
/// first. Apply, a check, refine, merge and discard write one each, undo and redo one more: a
/// plan reaches a few dozen in a long life.
pub const MAX_EVENTS_PER_PLAN: usize = 1_000;

/// The largest a note grows by taking lines from a remote (local lines are kept whatever their
/// size): room for a few plans of the largest kind, or thousands of usual ones, on one commit.
pub const MAX_NOTE_BYTES: usize = 64 * 1024 * 1024;

/// The bounds a merge applies (the constants above; smaller ones in tests).
#[derive(Debug, Clone, Copy)]
struct Limits {
    line: usize,
    event: usize,
    events_per_plan: usize,
    note: usize,
}

impl Limits {
    const DEFAULT: Limits = Limits {
        line: MAX_LINE_BYTES,
        event: MAX_EVENT_BYTES,
        events_per_plan: MAX_EVENTS_PER_PLAN,
        note: MAX_NOTE_BYTES,
    };
}

/// How two notes that both sides changed are combined: git's `notes.<ref>.mergeStrategy`
/// values, read exactly as `git notes merge` reads them. `manual` is not among them: papayu has
/// no conflict to hand to a person, since every side only ever appends lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// Both sides' lines, sorted, each once (what `init` sets).
    CatSortUniq,
    /// The local note, then the remote one.
    Union,
    Ours,
    /// The remote note (then, as after every strategy, the local lines it lacks).
    Theirs,
}

impl Strategy {
    pub fn parse(text: &str) -> Option<Strategy> {
        match text.trim() {
            "cat_sort_uniq" => Some(Strategy::CatSortUniq),
            "union" => Some(Strategy::Union),
            "ours" => Some(Strategy::Ours),
            "theirs" => Some(Strategy::Theirs),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::CatSortUniq => "cat_sort_uniq",
            Strategy::Union => "union",
            Strategy::Ours => "ours",
            Strategy::Theirs => "theirs",
        }
    }

    fn combine(self, ours: &[&[u8]], theirs: &[&[u8]]) -> Vec<u8> {
        let all: Vec<&[u8]> = match self {
            Strategy::Ours => ours.to_vec(),
            Strategy::Theirs => theirs.to_vec(),
            Strategy::Union => {
                let mut all = ours.to_vec();
                all.extend_from_slice(theirs);
                all
            }
            Strategy::CatSortUniq => {
                let mut all = ours.to_vec();
                all.extend_from_slice(theirs);
                all.sort_unstable();
                all.dedup();
                all
            }
        };
        joined(&all)
    }
}

/// What merging a remote's notes into the local ones gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Merged {
    /// The local notes already hold the remote's.
    UpToDate,
    /// The local notes are behind the remote's, which lack no local line and bring nothing
    /// refused: take the remote commit as it is.
    FastForward(Oid),
    /// A new merge commit with both as parents (the remote's alone when there are no local
    /// notes).
    Commit(Oid),
}

/// Lines of a remote's notes a merge did not take, by reason.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Refused {
    /// Lines longer than [`MAX_LINE_BYTES`], or events longer than [`MAX_EVENT_BYTES`].
    pub too_long: usize,
    /// Lines about no plan that has a record: events of unknown plans, lines no papayu reads,
    /// conversations no arriving record names.
    pub no_record: usize,
    /// Event lines beyond [`MAX_EVENTS_PER_PLAN`] about one plan in one note.
    pub too_many_events: usize,
    /// Lines that would have grown a note past [`MAX_NOTE_BYTES`].
    pub note_full: usize,
    /// Their bytes, in all.
    pub bytes: u64,
}

impl Refused {
    /// How many lines were refused, in all.
    pub fn lines(&self) -> usize {
        self.too_long + self.no_record + self.too_many_events + self.note_full
    }

    /// Adds what another merge refused.
    pub fn add(&mut self, other: &Refused) {
        self.too_long += other.too_long;
        self.no_record += other.no_record;
        self.too_many_events += other.too_many_events;
        self.note_full += other.note_full;
        self.bytes += other.bytes;
    }

    fn count(&mut self, reason: Reason, line: &[u8]) {
        *match reason {
            Reason::TooLong => &mut self.too_long,
            Reason::NoRecord => &mut self.no_record,
            Reason::TooManyEvents => &mut self.too_many_events,
            Reason::NoteFull => &mut self.note_full,
        } += 1;
        self.bytes += line.len() as u64 + 1;
    }
}

/// Why a line is refused (see [`Refused`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reason {
    TooLong,
    NoRecord,
    TooManyEvents,
    NoteFull,
}

/// What a merge did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Merge {
    pub merged: Merged,
    /// Lines of the remote's notes the local ones lacked, taken.
    pub taken: usize,
    /// Local lines the remote's notes had removed, kept.
    pub kept: usize,
    pub refused: Refused,
}

/// Merges the notes commit `theirs` into `ours` under the rules above and writes the merge
/// commit when one is needed (no ref is moved).
pub fn merge(
    repo: &Repository,
    ours: Option<Oid>,
    theirs: Oid,
    strategy: Strategy,
    message: &str,
) -> Result<Merge, StoreError> {
    merge_within(repo, (ours, theirs), strategy, message, Limits::DEFAULT)
}

fn merge_within(
    repo: &Repository,
    (ours, theirs): (Option<Oid>, Oid),
    strategy: Strategy,
    message: &str,
    limits: Limits,
) -> Result<Merge, StoreError> {
    let related = |a: Oid, b: Oid| a == b || repo.graph_descendant_of(a, b).unwrap_or(false);
    let up_to_date = Merge {
        merged: Merged::UpToDate,
        taken: 0,
        kept: 0,
        refused: Refused::default(),
    };
    if ours.is_some_and(|o| related(o, theirs)) {
        return Ok(up_to_date);
    }
    let base = ours.and_then(|o| repo.merge_base(o, theirs).ok());
    let sides = Sides::read(repo, base, ours, theirs)?;
    let mut gate = Gate::new(repo, ours, limits)?;
    let notes = sides.changed(repo)?;
    gate.learn(&notes);
    let mut result = sides.ours.clone();
    let (mut taken, mut kept) = (0, sides.removed_whole(repo)?);
    for note in &notes {
        let admitted = gate.admit(note);
        let outcome = note.result(&admitted, strategy);
        if !matches!(outcome, Outcome::Keep) && !note.keeps_ours_only(strategy) {
            taken += admitted.len();
        }
        kept += note.removed;
        match outcome {
            Outcome::Keep => {}
            Outcome::Theirs => {
                result.insert(note.target, note.their_blob);
            }
            Outcome::Text(text) => {
                let blob = repo
                    .blob(&text)
                    .map_err(|e| StoreError::git("writing a merged note", e))?;
                result.insert(note.target, blob);
            }
        }
    }
    let merged = match ours {
        Some(o) if result == sides.theirs && related(theirs, o) => Merged::FastForward(theirs),
        None if result == sides.theirs => Merged::FastForward(theirs),
        _ => Merged::Commit(write(repo, &result, ours, theirs, message)?),
    };
    Ok(Merge {
        merged,
        taken,
        kept,
        refused: gate.refused,
    })
}

/// Annotated object → note blob, for the merge base and both sides.
struct Sides {
    base: BTreeMap<Oid, Oid>,
    ours: BTreeMap<Oid, Oid>,
    theirs: BTreeMap<Oid, Oid>,
}

impl Sides {
    fn read(
        repo: &Repository,
        base: Option<Oid>,
        ours: Option<Oid>,
        theirs: Oid,
    ) -> Result<Sides, StoreError> {
        let map = |c: Option<Oid>| -> Result<BTreeMap<Oid, Oid>, StoreError> {
            Ok(match c {
                Some(c) => blobs(repo, c)?.into_iter().collect(),
                None => BTreeMap::new(),
            })
        };
        Ok(Sides {
            base: map(base)?,
            ours: map(ours)?,
            theirs: map(Some(theirs))?,
        })
    }

    /// The notes the remote changed since the merge base, as the remote and the local side
    /// hold them. A note only the local side changed is the local one: not listed.
    fn changed(&self, repo: &Repository) -> Result<Vec<Note>, StoreError> {
        let mut out = Vec::new();
        for (&target, &their_blob) in &self.theirs {
            let mine = self.ours.get(&target).copied();
            let base = self.base.get(&target).copied();
            if mine == Some(their_blob) || (mine.is_some() && base == Some(their_blob)) {
                continue;
            }
            let theirs = content(repo, their_blob)?;
            let ours = mine.map(|b| content(repo, b)).transpose()?;
            // Local lines that were at the merge base and the remote no longer has: the
            // remote removed them (a note new on both sides had none to remove).
            let removed = match (&ours, base) {
                (Some(mine_text), Some(b)) if Some(b) == mine => removed(mine_text, &theirs, None),
                (Some(mine_text), Some(b)) => removed(mine_text, &theirs, Some(&content(repo, b)?)),
                _ => 0,
            };
            let unchanged = mine.is_some() && base == mine;
            out.push(Note::new(
                target, their_blob, theirs, ours, unchanged, removed,
            ));
        }
        Ok(out)
    }

    /// The lines of local notes the remote removed whole (a note the merge base had and the
    /// remote no longer has): kept, since every local note not in the remote's is.
    fn removed_whole(&self, repo: &Repository) -> Result<usize, StoreError> {
        let mut kept = 0;
        for (target, mine) in &self.ours {
            if self.theirs.contains_key(target) {
                continue;
            }
            let Some(base) = self.base.get(target) else {
                continue;
            };
            let base = content(repo, *base)?;
            let base: HashSet<&[u8]> = lines(&base).into_iter().collect();
            kept += lines(&content(repo, *mine)?)
                .into_iter()
                .filter(|l| base.contains(l))
                .count();
        }
        Ok(kept)
    }
}

/// One note the remote changed: its lines on both sides, and which of the remote's are new.
struct Note {
    target: Oid,
    their_blob: Oid,
    theirs: Vec<u8>,
    ours: Option<Vec<u8>>,
    /// Where the remote's lines the local note lacks are in `theirs`, in order.
    new: Vec<std::ops::Range<usize>>,
    /// Whether the local note is as it was at the merge base (only the remote changed it).
    ours_unchanged: bool,
    /// Local lines that were at the merge base and the remote no longer has.
    removed: usize,
}

impl Note {
    fn new(
        target: Oid,
        their_blob: Oid,
        theirs: Vec<u8>,
        ours: Option<Vec<u8>>,
        ours_unchanged: bool,
        removed: usize,
    ) -> Note {
        let mine: HashSet<&[u8]> = ours
            .as_deref()
            .map(lines)
            .unwrap_or_default()
            .into_iter()
            .collect();
        let new = line_ranges(&theirs)
            .filter(|r| !mine.contains(&theirs[r.clone()]))
            .collect();
        Note {
            target,
            their_blob,
            theirs,
            ours,
            new,
            ours_unchanged,
            removed,
        }
    }

    /// Whether the note is a stored object of its own (a conversation), not lines.
    fn is_self_note(&self) -> bool {
        self.target == self.their_blob
    }

    /// The remote's lines the local note does not hold, in the remote's order.
    fn new_lines(&self) -> impl Iterator<Item = &[u8]> {
        self.new.iter().map(|r| &self.theirs[r.clone()])
    }

    /// Whether the merge keeps the local note alone whatever the remote added: both sides
    /// changed it and the strategy is `ours`.
    fn keeps_ours_only(&self, strategy: Strategy) -> bool {
        strategy == Strategy::Ours && self.ours.is_some() && !self.ours_unchanged
    }

    /// The note after the merge, given the remote's new lines the gate admitted.
    fn result(&self, admitted: &HashSet<&[u8]>, strategy: Strategy) -> Outcome {
        let new: HashSet<&[u8]> = self.new_lines().collect();
        let all_taken = new.len() == admitted.len();
        if self.is_self_note() {
            return match all_taken && self.ours.is_none() {
                true => Outcome::Theirs,
                false => Outcome::Keep,
            };
        }
        if all_taken && self.removed == 0 && (self.ours.is_none() || self.ours_unchanged) {
            return Outcome::Theirs;
        }
        let theirs: Vec<&[u8]> = lines(&self.theirs)
            .into_iter()
            .filter(|l| admitted.contains(l) || !new.contains(l))
            .collect();
        let Some(ours) = self.ours.as_deref() else {
            return match theirs.is_empty() {
                true => Outcome::Keep,
                false => Outcome::Text(joined(&theirs)),
            };
        };
        if admitted.is_empty() {
            return Outcome::Keep;
        }
        let ours = lines(ours);
        let text = match self.ours_unchanged {
            true => Strategy::Theirs.combine(&ours, &theirs),
            false => strategy.combine(&ours, &theirs),
        };
        Outcome::Text(with_every_line_of(text, &ours))
    }
}

/// How many lines of `ours` `theirs` lacks, of those `base` holds (all, without a base).
fn removed(ours: &[u8], theirs: &[u8], base: Option<&[u8]>) -> usize {
    let theirs: HashSet<&[u8]> = lines(theirs).into_iter().collect();
    let base: Option<HashSet<&[u8]>> = base.map(|b| lines(b).into_iter().collect());
    lines(ours)
        .into_iter()
        .filter(|l| !theirs.contains(l))
        .filter(|l| base.as_ref().is_none_or(|b| b.contains(l)))
        .count()
}

/// What becomes of one note the remote changed.
enum Outcome {
    /// The local note (or none) stays.
    Keep,
    /// The remote's blob, as it is.
    Theirs,
    Text(Vec<u8>),
}

/// Decides which of a remote's new lines a merge takes (see the module's rules).
struct Gate {
    limits: Limits,
    /// The local notes' plan index: which plans have a record here.
    index: PlanIndex,
    /// Plans whose records arrive, and the conversations those records name.
    arriving: HashSet<String>,
    conversations: HashSet<Oid>,
    refused: Refused,
}

impl Gate {
    fn new(repo: &Repository, ours: Option<Oid>, limits: Limits) -> Result<Gate, StoreError> {
        Ok(Gate {
            limits,
            index: PlanIndex::load(repo, ours)?,
            arriving: HashSet::new(),
            conversations: HashSet::new(),
            refused: Refused::default(),
        })
    }

    /// Learns the records that arrive: the plans the remote's events may be about.
    fn learn(&mut self, notes: &[Note]) {
        for note in notes.iter().filter(|n| !n.is_self_note()) {
            for line in note.new_lines() {
                let Ok(text) = std::str::from_utf8(line) else {
                    continue;
                };
                if line.len() > self.limits.line || names_a_plan(text) {
                    continue;
                }
                let record = record_of_line(text);
                if let Some(record) = record {
                    self.conversations.extend(record.conversation);
                    self.arriving.insert(record.id);
                }
            }
        }
    }

    fn known(&self, id: &str) -> bool {
        self.arriving.contains(id) || self.index.has_record(id)
    }

    /// The remote's new lines of `note` that are taken; the others are counted as refused.
    fn admit<'n>(&mut self, note: &'n Note) -> HashSet<&'n [u8]> {
        let mut taken = HashSet::new();
        if note.is_self_note() {
            let named = self.conversations.contains(&note.target);
            match (named, note.theirs.len() <= self.limits.line) {
                (true, true) => taken.extend(note.new_lines()),
                (true, false) => self.refused.count(Reason::TooLong, &note.theirs),
                (false, _) => self.refused.count(Reason::NoRecord, &note.theirs),
            }
            return taken;
        }
        let mut size = note.ours.as_ref().map_or(0, Vec::len);
        let mut events = EventCounts::default();
        for line in note.new_lines() {
            match self.judge(line, note, &mut events) {
                Some(reason) => self.refused.count(reason, line),
                None if size + line.len() + 1 > self.limits.note => {
                    self.refused.count(Reason::NoteFull, line)
                }
                None => {
                    size += line.len() + 1;
                    taken.insert(line);
                }
            }
        }
        taken
    }

    /// Why `line` is refused, if it is (the note's size aside).
    fn judge(&self, line: &[u8], note: &Note, events: &mut EventCounts) -> Option<Reason> {
        if line.len() > self.limits.line {
            return Some(Reason::TooLong);
        }
        let Ok(text) = std::str::from_utf8(line) else {
            return Some(Reason::NoRecord);
        };
        if !names_a_plan(text) {
            return match record_of_line(text) {
                Some(_) => None,
                None => self.judge_event(text, note, events),
            };
        }
        self.judge_event(text, note, events)
    }

    /// Why the event line `text` is refused, if it is (the note's size aside).
    fn judge_event(&self, text: &str, note: &Note, events: &mut EventCounts) -> Option<Reason> {
        if text.len() > self.limits.event {
            return Some(Reason::TooLong);
        }
        let plan = match mention(text, &|id| self.known(id)) {
            Mention::Known(id) => id.to_string(),
            Mention::Unknown => return Some(Reason::NoRecord),
            Mention::Silent => match plan_of_line(text, note.target) {
                Some(id) if self.known(&id) => id,
                _ => return Some(Reason::NoRecord),
            },
        };
        let within = events.add(&plan, note, &|id| self.known(id)) <= self.limits.events_per_plan;
        (!within).then_some(Reason::TooManyEvents)
    }
}

/// Event lines per plan in one note, the local ones counted when first asked.
#[derive(Default)]
struct EventCounts {
    counts: Option<HashMap<String, usize>>,
}

impl EventCounts {
    /// Counts one more event about `plan`; returns how many the note would hold with it.
    fn add(&mut self, plan: &str, note: &Note, known: &dyn Fn(&str) -> bool) -> usize {
        let counts = self.counts.get_or_insert_with(|| {
            let mut counts = HashMap::new();
            for line in note.ours.as_deref().map(lines).unwrap_or_default() {
                let text = String::from_utf8_lossy(line);
                if let Mention::Known(id) = mention(&text, known) {
                    *counts.entry(id.to_string()).or_insert(0) += 1;
                }
            }
            counts
        });
        let count = counts.entry(plan.to_string()).or_insert(0);
        *count += 1;
        *count
    }
}

/// The non-empty lines of a note, without their newlines.
fn lines(text: &[u8]) -> Vec<&[u8]> {
    line_ranges(text).map(|r| &text[r]).collect()
}

/// Where the non-empty lines of a note are.
fn line_ranges(text: &[u8]) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    let mut start = 0;
    text.split(|c| *c == b'\n').filter_map(move |l| {
        let range = start..start + l.len();
        start += l.len() + 1;
        (!l.is_empty()).then_some(range)
    })
}

fn joined(lines: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    for l in lines {
        out.extend_from_slice(l);
        out.push(b'\n');
    }
    out
}

/// `text` with every line of `ours` it lacks appended.
fn with_every_line_of(mut text: Vec<u8>, ours: &[&[u8]]) -> Vec<u8> {
    let missing: Vec<&[u8]> = {
        let have: HashSet<&[u8]> = lines(&text).into_iter().collect();
        ours.iter().copied().filter(|l| !have.contains(l)).collect()
    };
    text.extend(joined(&missing));
    text
}

fn content(repo: &Repository, blob: Oid) -> Result<Vec<u8>, StoreError> {
    repo.find_blob(blob)
        .map(|b| b.content().to_vec())
        .map_err(|e| StoreError::git("reading a note to merge", e))
}

/// Writes the merged notes as a flat tree and a commit on `ours` (when there is one) and
/// `theirs`.
fn write(
    repo: &Repository,
    result: &BTreeMap<Oid, Oid>,
    ours: Option<Oid>,
    theirs: Oid,
    message: &str,
) -> Result<Oid, StoreError> {
    let git = |e| StoreError::git("writing merged notes", e);
    let mut builder = repo.treebuilder(None).map_err(git)?;
    for (target, blob) in result {
        builder
            .insert(target.to_string(), *blob, FileMode::Blob.into())
            .map_err(git)?;
    }
    let tree = builder
        .write()
        .and_then(|t| repo.find_tree(t))
        .map_err(git)?;
    let find = |c: Oid| {
        repo.find_commit(c)
            .map_err(|e| StoreError::reading(NOTES_REF, c, "reading notes", e))
    };
    let mut parents = Vec::new();
    if let Some(ours) = ours {
        parents.push(find(ours)?);
    }
    parents.push(find(theirs)?);
    let parents: Vec<&git2::Commit<'_>> = parents.iter().collect();
    let sig = super::signature(repo);
    repo.commit(None, &sig, &sig, message, &tree, &parents)
        .map_err(git)
}

#[cfg(test)]
mod tests {
    use super::super::notes::{all, append, read, read_self_note, self_note};
    use super::super::records::PlanRecord;
    use super::*;

    fn repo() -> (tempfile::TempDir, Repository) {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        (dir, repo)
    }

    /// A notes commit on `parents` whose flat tree holds `notes` (annotated object, text).
    fn notes_commit(repo: &Repository, parents: &[Oid], notes: &[(Oid, &str)]) -> Oid {
        let mut builder = repo.treebuilder(None).unwrap();
        for (target, text) in notes {
            let blob = repo.blob(text.as_bytes()).unwrap();
            builder
                .insert(target.to_string(), blob, FileMode::Blob.into())
                .unwrap();
        }
        let tree = repo.find_tree(builder.write().unwrap()).unwrap();
        let parents: Vec<git2::Commit<'_>> = parents
            .iter()
            .map(|p| repo.find_commit(*p).unwrap())
            .collect();
        let parents: Vec<&git2::Commit<'_>> = parents.iter().collect();
        let sig = git2::Signature::now("t", "t@example.com").unwrap();
        repo.commit(None, &sig, &sig, "notes", &tree, &parents)
            .unwrap()
    }

    fn target(repo: &Repository, name: &str) -> Oid {
        repo.blob(name.as_bytes()).unwrap()
    }

    /// A sealed record line on `base`, naming `conversation`; returns its id and line.
    fn record(base: Oid, conversation: Option<Oid>) -> (String, String) {
        let mut record: PlanRecord = serde_json::from_value(serde_json::json!({
            "id": "0".repeat(40), "goal": "g", "base": base.to_string(), "created_at": 1,
            "provider": "manual", "trace_id": "t", "schema_version": 2, "schema_hash": "h",
            "protocol": 2, "actions": [],
            "conversation": conversation.map(|c| c.to_string()),
        }))
        .unwrap();
        let line = record.seal();
        (record.id, line)
    }

    fn event(plan: &str, at: i64) -> String {
        serde_json::json!({"plan": plan, "event": "discarded", "at": at}).to_string()
    }

    fn note_of(repo: &Repository, notes: Oid, on: Oid) -> String {
        read(repo, Some(notes), on).unwrap().unwrap_or_default()
    }

    fn commit_of(merged: Merged) -> Oid {
        match merged {
            Merged::Commit(c) => c,
            other => panic!("a merge commit, not {other:?}"),
        }
    }

    #[test]
    fn a_remote_that_removed_lines_gets_a_merge_commit_holding_the_union() {
        let (_dir, repo) = repo();
        let (t, u) = (target(&repo, "t"), target(&repo, "u"));
        let (id, rec) = record(t, None);
        let mine = format!("{rec}\n{}\n", event(&id, 1));
        let ours = notes_commit(&repo, &[], &[(t, &mine), (u, "kept whole\n")]);
        // The remote pruned `u`, rewrote `t` without the event, and added a line of its own.
        let theirs_text = format!("{rec}\n{}\n", event(&id, 2));
        let theirs = notes_commit(&repo, &[ours], &[(t, &theirs_text)]);
        let merge = merge(&repo, Some(ours), theirs, Strategy::CatSortUniq, "m").unwrap();
        assert_eq!((merge.kept, merge.taken), (2, 1));
        let commit = commit_of(merge.merged);
        let parents: Vec<Oid> = repo.find_commit(commit).unwrap().parent_ids().collect();
        assert_eq!(parents, [ours, theirs]);
        let text = note_of(&repo, commit, t);
        for line in [rec.as_str(), &event(&id, 1), &event(&id, 2)] {
            assert!(text.lines().any(|l| l == line), "{line} missing:\n{text}");
        }
        assert_eq!(note_of(&repo, commit, u), "kept whole\n");
        // A remote that only adds lines is taken as it is.
        let more = format!("{mine}{}\n", event(&id, 3));
        let ahead = notes_commit(&repo, &[ours], &[(t, &more), (u, "kept whole\n")]);
        let merge = super::merge(&repo, Some(ours), ahead, Strategy::CatSortUniq, "m").unwrap();
        assert_eq!(merge.merged, Merged::FastForward(ahead));
        assert_eq!((merge.kept, merge.taken), (0, 1));
    }

    #[test]
    fn diverged_notes_keep_every_line_of_both_sides_and_self_notes_whole() {
        let (_dir, repo) = repo();
        let t = target(&repo, "t");
        let (id, rec) = record(t, None);
        let base = append(&repo, None, &[(t, rec.clone())], "base").unwrap();
        let ours = append(&repo, Some(base), &[(t, event(&id, 1))], "o").unwrap();
        let (conversation, text) = self_note("papayu-conversation {}").unwrap();
        let (_, theirs_rec) = record(t, Some(conversation));
        let additions = [
            (t, event(&id, 2)),
            (t, theirs_rec.clone()),
            (conversation, text.clone()),
        ];
        let theirs = append(&repo, Some(base), &additions, "t").unwrap();
        let merged = commit_of(
            merge(&repo, Some(ours), theirs, Strategy::CatSortUniq, "m")
                .unwrap()
                .merged,
        );
        let mut expected = [rec, event(&id, 1), event(&id, 2), theirs_rec];
        expected.sort();
        assert_eq!(note_of(&repo, merged, t), expected.join("\n") + "\n");
        assert_eq!(
            read_self_note(&repo, Some(merged), conversation).unwrap(),
            Some(text)
        );
        assert!(
            all(&repo, Some(merged))
                .unwrap()
                .iter()
                .all(|(t, _)| *t != conversation),
            "a self-note is not read as lines"
        );
        let again = merge(&repo, Some(merged), ours, Strategy::CatSortUniq, "m").unwrap();
        assert_eq!(again.merged, Merged::UpToDate);
        let behind = merge(&repo, Some(base), merged, Strategy::CatSortUniq, "m").unwrap();
        assert_eq!(behind.merged, Merged::FastForward(merged));
    }

    #[test]
    fn what_a_remote_sends_is_bounded() {
        let (_dir, repo) = repo();
        let t = target(&repo, "t");
        let (id, rec) = record(t, None);
        let unknown = event(&"b".repeat(40), 1);
        let long =
            serde_json::json!({"plan": id, "event": "failed", "at": 9, "detail": "x".repeat(300)});
        let lines = [
            rec.clone(),
            event(&id, 1),
            event(&id, 2),
            event(&id, 3),
            unknown,
            long.to_string(),
            "not a plan line".to_string(),
        ];
        let theirs = notes_commit(&repo, &[], &[(t, &(lines.join("\n") + "\n"))]);
        let limits = Limits {
            line: 4096,
            event: 200,
            events_per_plan: 2,
            note: 1 << 20,
        };
        let merge =
            merge_within(&repo, (None, theirs), Strategy::CatSortUniq, "m", limits).unwrap();
        let r = merge.refused;
        assert_eq!(
            (r.too_many_events, r.no_record, r.too_long, r.note_full),
            (1, 2, 1, 0)
        );
        let text = note_of(&repo, commit_of(merge.merged), t);
        assert_eq!(
            text,
            format!("{rec}\n{}\n{}\n", event(&id, 1), event(&id, 2))
        );
        // A note that would grow past its bound takes no more lines.
        let tight = Limits {
            note: rec.len() + 1 + 10,
            ..limits
        };
        let merge = merge_within(&repo, (None, theirs), Strategy::CatSortUniq, "m", tight).unwrap();
        assert_eq!(merge.refused.note_full, 2, "{:?}", merge.refused);
        assert_eq!(
            note_of(&repo, commit_of(merge.merged), t),
            format!("{rec}\n")
        );
    }

    #[test]
    fn a_conversation_arrives_only_with_a_record_that_names_it() {
        let (_dir, repo) = repo();
        let t = target(&repo, "t");
        let (named, named_text) = self_note("papayu-conversation {\"a\":1}").unwrap();
        let (stray, stray_text) = self_note("papayu-conversation {\"b\":2}").unwrap();
        for (id, text) in [(named, &named_text), (stray, &stray_text)] {
            assert_eq!(repo.blob(text.as_bytes()).unwrap(), id);
        }
        let (_, rec) = record(t, Some(named));
        let theirs = notes_commit(
            &repo,
            &[],
            &[
                (t, &format!("{rec}\n")),
                (named, &named_text),
                (stray, &stray_text),
            ],
        );
        let merge = merge(&repo, None, theirs, Strategy::CatSortUniq, "m").unwrap();
        assert_eq!(merge.refused.no_record, 1);
        let commit = commit_of(merge.merged);
        let kept: Vec<Oid> = blobs(&repo, commit)
            .unwrap()
            .into_iter()
            .map(|(t, _)| t)
            .collect();
        assert!(kept.contains(&named) && !kept.contains(&stray), "{kept:?}");
    }

    fn combine(strategy: Strategy, ours: &[u8], theirs: &[u8]) -> Vec<u8> {
        strategy.combine(&lines(ours), &lines(theirs))
    }

    #[test]
    fn strategies_combine_two_changed_notes_as_git_notes_merge_does() {
        let (ours, theirs) = (b"b\na\n".as_slice(), b"c\na\n".as_slice());
        assert_eq!(combine(Strategy::CatSortUniq, ours, theirs), b"a\nb\nc\n");
        assert_eq!(combine(Strategy::Union, ours, theirs), b"b\na\nc\na\n");
        assert_eq!(combine(Strategy::Ours, ours, theirs), ours);
        assert_eq!(combine(Strategy::Theirs, ours, theirs), theirs);
        assert_eq!(Strategy::parse("manual"), None);
        assert_eq!(Strategy::parse(" union "), Some(Strategy::Union));
    }
}
