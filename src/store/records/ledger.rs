//! The ledger: every plan record and event of the notes read together, with each plan's local
//! proposal branches, what this clone trusts and what stays a claim; and a plan's status.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use git2::{Oid, Repository};
use serde::Serialize;

use super::{
    Event, EventKind, Line, Mention, PlanRecord, Trust, line_hash, live_lines, mention,
    names_a_plan, one_of, own_note, parse_line, spec_prefix,
};
use crate::codes::Problem;
use crate::store::proposals::{self, LocalBranch};
use crate::store::{StoreError, notes};

/// A plan's status, derived from its newest event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Proposed,
    Applied,
    /// Superseded by a refinement that carries its proposal branch now.
    Refined,
    Failed,
    Merged,
    Discarded,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Proposed => "proposed",
            Status::Applied => "applied",
            Status::Refined => "refined",
            Status::Failed => "failed",
            Status::Merged => "merged",
            Status::Discarded => "discarded",
        }
    }
}

/// Everything the notes say — plan records (one per id, forged ones left out) and their status
/// events, with cancelled lines left out — plus the local proposal branches of each plan.
#[derive(Debug, Default)]
pub struct Ledger {
    pub records: Vec<PlanRecord>,
    /// Status events per plan, oldest first (cancel events are not listed).
    pub events: BTreeMap<String, Vec<Event>>,
    /// Local proposal branches per plan, as found from the commits themselves.
    pub local: BTreeMap<String, Vec<LocalBranch>>,
    /// Commits other than its base whose note holds a plan's record: copies that `git commit
    /// --amend` or `git rebase` made of the base's note (`notes.rewriteRef`).
    pub copies: BTreeMap<String, Vec<Oid>>,
    /// `undone` and `redone` events no local operation wrote: claims, shown, never in effect.
    pub claims: BTreeMap<String, Vec<Event>>,
    /// Verdicts nobody this clone trusts vouches for, per plan, oldest first: also in
    /// [`Ledger::events`] (unvouched there), shown, never in effect.
    pub claimed_verdicts: BTreeMap<String, Vec<ClaimedVerdict>>,
    /// Verdicts trusted workers signed for a plan's proposal commit, oldest first: they count
    /// as this clone's own do (see [`crate::store::results`]), and are kept apart from
    /// [`Ledger::events`] because they say nothing of a plan's status.
    pub worker_verdicts: BTreeMap<String, Vec<Event>>,
    /// What the reader set aside and why (forged records), one sentence each.
    pub warnings: Vec<String>,
}

/// A verdict from the shared notes that nobody this clone trusts vouches for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimedVerdict {
    pub event: Event,
    /// The line's [`line_hash`], and an object whose note holds it: what finds who wrote it.
    pub line: String,
    pub on: Oid,
    /// For a verdict a worker wrote in its result notes (see [`crate::store::results`]): the name
    /// it gave, and why it is a claim here (unsigned, a key not trusted, a signature that does
    /// not verify). `None` for a line of the shared notes.
    pub worker: Option<String>,
    pub why: Option<String>,
}

impl Ledger {
    /// Reads all records and events from the notes commit `notes`, and the local proposal
    /// branches. `trust` is asked for only when a note holds a cancel or a verdict.
    pub fn load(
        repo: &Repository,
        notes: Option<Oid>,
        trust: &dyn Fn() -> Result<Trust, StoreError>,
    ) -> Result<Ledger, StoreError> {
        let texts = notes::all(repo, notes)?;
        let trust = trust_for(&texts, trust)?;
        let mut ledger = Ledger::from_notes_with(texts, &trust);
        ledger.local = proposals::scan(repo)?;
        Ok(ledger)
    }

    /// Reads the records and events on the notes of `objects` only (no local branches): exact
    /// for every plan all of whose lines are on those notes.
    ///
    /// With `only`, lines that do not mention that plan id are skipped unread: every line about
    /// a plan names it (a record's `id`, an event's `plan`).
    pub fn load_from(
        repo: &Repository,
        notes: Option<Oid>,
        objects: &[Oid],
        only: Option<&str>,
        trust: &dyn Fn() -> Result<Trust, StoreError>,
    ) -> Result<Ledger, StoreError> {
        match only {
            Some(id) => Ledger::load_lines(repo, notes, objects, &|l| l.contains(id), trust),
            None => Ledger::load_lines(repo, notes, objects, &|_| true, trust),
        }
    }

    /// [`Ledger::load_from`] for the plans `ids` only: lines that mention none of them are
    /// skipped unparsed (every line about a plan names it), found in one pass over each note
    /// however many ids there are.
    pub fn load_about(
        repo: &Repository,
        notes: Option<Oid>,
        objects: &[Oid],
        ids: &HashSet<&str>,
        trust: &dyn Fn() -> Result<Trust, StoreError>,
    ) -> Result<Ledger, StoreError> {
        let Ok(any) = aho_corasick::AhoCorasick::new(ids.iter()) else {
            return Ledger::load_lines(repo, notes, objects, &|_| true, trust);
        };
        Ledger::load_lines(repo, notes, objects, &|l| any.is_match(l), trust)
    }

    /// The ledger of the lines of the notes of `objects` that `keep` keeps.
    fn load_lines(
        repo: &Repository,
        notes: Option<Oid>,
        objects: &[Oid],
        keep: &dyn Fn(&str) -> bool,
        trust: &dyn Fn() -> Result<Trust, StoreError>,
    ) -> Result<Ledger, StoreError> {
        let mut texts = Vec::with_capacity(objects.len());
        for &on in objects {
            if let Some(text) = notes::read(repo, notes, on)? {
                let text = text.lines().filter(|l| keep(l)).collect::<Vec<_>>();
                texts.push((on, text.join("\n")));
            }
        }
        let trust = trust_for(&texts, trust)?;
        Ok(Ledger::from_notes_with(texts, &trust))
    }

    /// Builds the ledger from (annotated object, note text) pairs, every cancel and verdict in
    /// effect.
    pub fn from_notes(notes: impl IntoIterator<Item = (Oid, String)>) -> Ledger {
        Ledger::from_notes_with(notes, &Trust::All)
    }

    /// Builds the ledger from (annotated object, note text) pairs, with only the cancels and
    /// verdicts `trust` vouches for in effect. Pure: never panics, whatever the text, and keeps
    /// only well-formed lines about plans with a record.
    pub fn from_notes_with(
        notes: impl IntoIterator<Item = (Oid, String)>,
        trust: &Trust,
    ) -> Ledger {
        let notes: Vec<(Oid, String)> = notes.into_iter().collect();
        let (mut lines, carriers) = read_lines(&notes);
        let mut ledger = Ledger::default();
        ledger.set_aside_forged(&mut lines, &carriers);
        ledger.set_aside_claims(&mut lines, trust);
        let live = live_lines(&lines);
        let mut events: BTreeMap<String, Vec<(i64, EventKind, &str, Event)>> = BTreeMap::new();
        for (hash, line) in &lines {
            if !live.get(hash.as_str()).copied().unwrap_or(false) {
                continue;
            }
            let on = carriers.get(hash).and_then(|c| c.first().copied());
            match line {
                Line::Record(record, _) => ledger.add_record(record, hash, &carriers),
                Line::Event(event) if !event.event.is_cancel() => {
                    let event = ledger.vouched(event, hash, on, trust);
                    let list = events.entry(event.plan.clone()).or_default();
                    list.push((event.at, event.event, hash, event));
                }
                Line::Event(_) => {}
            }
        }
        for (plan, mut list) in events {
            list.sort_by(|a, b| (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)));
            ledger
                .events
                .insert(plan, list.into_iter().map(|(_, _, _, e)| e).collect());
        }
        for list in ledger.claimed_verdicts.values_mut() {
            list.sort_by(|a, b| (a.event.at, &a.line).cmp(&(b.event.at, &b.line)));
        }
        ledger
            .records
            .sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        ledger
    }

    /// Adds, as copies of plan `id`'s record, the notes `holding` hold it (notes left unread
    /// because they hold only that record): all but its base and its own note.
    pub fn add_copies(&mut self, id: &str, holding: &[Oid]) {
        let Some(record) = self.records.iter().find(|r| r.id == id) else {
            return;
        };
        let (base, own) = (record.base, own_note(id));
        let copies = self.copies.entry(id.to_string()).or_default();
        for &on in holding {
            if on != base && Some(on) != own && !copies.contains(&on) {
                copies.push(on);
            }
        }
        copies.sort();
        if copies.is_empty() {
            self.copies.remove(id);
        }
    }

    /// Takes a record in effect in, with the commits a rewrite copied it to (the plan's own
    /// note is not a copy: see [`own_note`]).
    fn add_record(&mut self, record: &PlanRecord, hash: &str, carriers: &Carriers) {
        let own = own_note(&record.id);
        let copies: Vec<Oid> = carriers
            .get(hash)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&on| on != record.base && Some(on) != own)
            .collect();
        if !copies.is_empty() {
            self.copies.insert(record.id.clone(), copies);
        }
        self.records.push(record.clone());
    }

    /// The event as it takes effect: a verdict says who vouches for it, and one nobody this
    /// clone trusts vouches for is listed as a claim too.
    fn vouched(&mut self, event: &Event, hash: &str, on: Option<Oid>, trust: &Trust) -> Event {
        let mut event = event.clone();
        if !event.is_verdict() {
            return event;
        }
        event.vouched = trust.vouch(hash);
        if event.vouched.is_none()
            && let Some(on) = on
        {
            self.claimed_verdicts
                .entry(event.plan.clone())
                .or_default()
                .push(ClaimedVerdict {
                    event: event.clone(),
                    line: hash.to_string(),
                    on,
                    worker: None,
                    why: None,
                });
        }
        event
    }

    /// Keeps one record per id: the one whose content hashes to it. Any other record claiming
    /// that id is forged (or damaged) and set aside with a warning naming its note. Records
    /// made before ids were content hashes cannot be checked: one alone is kept as before;
    /// several different ones with one id cannot be told apart, and none is kept.
    fn set_aside_forged(
        &mut self,
        lines: &mut BTreeMap<String, Line>,
        carriers: &BTreeMap<String, BTreeSet<Oid>>,
    ) {
        let mut by_id: BTreeMap<String, Vec<(String, bool)>> = BTreeMap::new();
        for (hash, line) in lines.iter() {
            if let Line::Record(r, _) = line {
                by_id
                    .entry(r.id.clone())
                    .or_default()
                    .push((hash.clone(), r.verified));
            }
        }
        let notes_of = |hash: &str| -> String {
            carriers
                .get(hash)
                .into_iter()
                .flatten()
                .map(crate::store::short)
                .collect::<Vec<_>>()
                .join(", ")
        };
        for (id, claims) in by_id {
            let sealed = claims.iter().any(|(_, verified)| *verified);
            if !sealed && claims.len() == 1 {
                continue;
            }
            for (hash, verified) in claims {
                if verified {
                    continue;
                }
                lines.remove(&hash);
                self.warnings.push(match sealed {
                    true => format!(
                        "ignored a record claiming plan {} in the papayu note of {}: its content \
                         does not hash to its id (forged or damaged)",
                        crate::store::short(&id),
                        notes_of(&hash)
                    ),
                    false => format!(
                        "ignored a record of plan {} in the papayu note of {}: several different \
                         records claim that id and none can be checked (stored before plan ids \
                         were content hashes)",
                        crate::store::short(&id),
                        notes_of(&hash)
                    ),
                });
            }
        }
    }

    /// Takes the cancel events this clone did not write out of effect: they become claims.
    fn set_aside_claims(&mut self, lines: &mut BTreeMap<String, Line>, trust: &Trust) {
        let untrusted: Vec<String> = lines
            .iter()
            .filter(|(hash, line)| {
                matches!(line, Line::Event(e) if e.event.is_cancel()) && !trust.trusts_cancel(hash)
            })
            .map(|(hash, _)| hash.clone())
            .collect();
        for hash in untrusted {
            if let Some(Line::Event(event)) = lines.remove(&hash) {
                let list = self.claims.entry(event.plan.clone()).or_default();
                list.push(event);
                list.sort_by_key(|e| e.at);
            }
        }
    }

    pub fn events_of(&self, id: &str) -> &[Event] {
        self.events.get(id).map_or(&[], Vec::as_slice)
    }

    /// The newest event of a plan, if any.
    pub fn last_event(&self, id: &str) -> Option<&Event> {
        self.events_of(id).last()
    }

    /// A plan's status here: local proposal branches first, events second. A plan with a local
    /// branch is applied (or merged, when that is its newest event) whatever a teammate's
    /// events say; without one, an `applied` claim means nothing locally and the plan is
    /// proposed again.
    pub fn status(&self, id: &str) -> Status {
        let newest = self.last_event(id).map(|e| e.event);
        if self.proposal(id).is_some() {
            return match newest {
                Some(EventKind::Merged) => Status::Merged,
                _ => Status::Applied,
            };
        }
        match newest {
            None | Some(EventKind::Applied) | Some(EventKind::Undone | EventKind::Redone) => {
                Status::Proposed
            }
            Some(EventKind::Refined) => Status::Refined,
            Some(EventKind::Failed) => Status::Failed,
            Some(EventKind::Merged) => Status::Merged,
            Some(EventKind::Discarded) => Status::Discarded,
        }
    }

    /// The local proposal branches of a plan, the preferred one first.
    pub fn proposals(&self, id: &str) -> &[LocalBranch] {
        self.local.get(id).map_or(&[], Vec::as_slice)
    }

    /// The plan's local proposal branch, if it has one.
    pub fn proposal(&self, id: &str) -> Option<&LocalBranch> {
        self.proposals(id).first()
    }

    /// The name of the plan's local proposal branch (`papayu/…`), if it has one. Never taken
    /// from a note.
    pub fn branch(&self, id: &str) -> Option<&str> {
        self.proposal(id).map(|b| b.name.as_str())
    }

    /// Resolves a user's plan argument: a hex id prefix (at least 4 digits) or a proposal
    /// branch name (`papayu/<slug>-<id>`).
    pub fn resolve(&self, spec: &str) -> Result<&PlanRecord, Problem> {
        let prefix = spec_prefix(spec)?;
        let found: Vec<&PlanRecord> = self
            .records
            .iter()
            .filter(|r| r.id.starts_with(&prefix))
            .collect();
        let i = one_of(&prefix, &found)?;
        Ok(found[i])
    }

    /// The newest plan on `commit`: based on it, or carried over to it by a rewrite.
    pub fn newest_on(&self, commit: Oid) -> Option<&PlanRecord> {
        self.records.iter().rev().find(|r| self.is_on(r, commit))
    }

    /// The plan is based on `commit`, or its note was copied to `commit` by a rewrite.
    pub fn is_on(&self, record: &PlanRecord, commit: Oid) -> bool {
        record.base == commit || self.copies_of(&record.id).contains(&commit)
    }

    /// The commits a rewrite copied the plan's note to (its base excluded).
    pub fn copies_of(&self, id: &str) -> &[Oid] {
        self.copies.get(id).map_or(&[], Vec::as_slice)
    }
}

/// The trust to read these notes with: asked for only when one of them holds a cancel or a
/// verdict, the only lines it decides about.
fn trust_for(
    texts: &[(Oid, String)],
    trust: &dyn Fn() -> Result<Trust, StoreError>,
) -> Result<Trust, StoreError> {
    let decides =
        |t: &str| t.contains("\"cancels\"") || t.contains("\"check\"") || t.contains("\"failed\"");
    match texts.iter().any(|(_, t)| decides(t)) {
        true => trust(),
        false => Ok(Trust::nothing()),
    }
}

/// Every note an accepted line sits on, by line hash: amend and rebase copy notes, so one line
/// may be on several.
type Carriers = BTreeMap<String, BTreeSet<Oid>>;

/// The well-formed lines of `notes` about plans that have a record there, by line hash, with
/// the notes that hold each. Event lines that name their plan (see [`names_a_plan`]) are read
/// after every other line: one whose every `"plan":"…"` names a plan without a record is
/// skipped after that substring search, neither parsed nor hashed, so lines about no plan cost
/// what scanning them costs.
pub(super) fn read_lines(notes: &[(Oid, String)]) -> (BTreeMap<String, Line>, Carriers) {
    let mut lines: BTreeMap<String, Line> = BTreeMap::new();
    let mut carriers = Carriers::new();
    let mut events: Vec<(Oid, &str)> = Vec::new();
    for (annotated, text) in notes {
        for raw in text.lines().filter(|l| l.starts_with('{')) {
            match names_a_plan(raw) {
                true => events.push((*annotated, raw)),
                false => keep_line(raw, *annotated, &mut lines, &mut carriers),
            }
        }
    }
    let known = record_ids(&lines);
    for (annotated, raw) in events {
        if mention(raw, &|id| known.contains(id)) != Mention::Unknown {
            keep_line(raw, annotated, &mut lines, &mut carriers);
        }
    }
    let known = record_ids(&lines);
    lines.retain(|_, line| known.contains(line.plan()));
    carriers.retain(|hash, _| lines.contains_key(hash));
    (lines, carriers)
}

/// Parses one line and keeps it when well-formed. The same line on two commits is one line;
/// for a record, the copy on its own base is the one kept.
fn keep_line(
    raw: &str,
    annotated: Oid,
    lines: &mut BTreeMap<String, Line>,
    carriers: &mut Carriers,
) {
    let Some(line) = parse_line(raw, annotated) else {
        return;
    };
    let hash = line_hash(raw);
    carriers.entry(hash.clone()).or_default().insert(annotated);
    let replace = match (&line, lines.get(&hash)) {
        (_, None) => true,
        (Line::Record(r, on), Some(_)) => r.base == *on,
        (Line::Event(_), Some(_)) => false,
    };
    if replace {
        lines.insert(hash, line);
    }
}

fn record_ids(lines: &BTreeMap<String, Line>) -> HashSet<String> {
    lines
        .values()
        .filter_map(|l| match l {
            Line::Record(r, _) => Some(r.id.clone()),
            Line::Event(_) => None,
        })
        .collect()
}
