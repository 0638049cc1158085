//! Plan records and their events, as stored one JSON line each in the papayu notes.
//!
//! A note may be merged with `git notes merge -s cat_sort_uniq`, which sorts its lines; so no
//! reader here relies on line order: events carry a timestamp, records carry their id, and ties
//! are broken by the line's own hash.
//!
//! Notes are shared: every line is a *claim* from whoever wrote it. The reader never panics on
//! a line and drops every line that is not a well-formed record or event (bad ids, a branch
//! outside `papayu/`, a cancel that names nothing) and every event about a plan that has no
//! record, the latter after a substring search alone, so junk costs what scanning it costs.
//! Lines are never removed: undo appends an `undone` event that cancels a line by its hash, redo
//! a `redone` event that cancels the `undone`, so the notes ref only ever moves forward. A
//! plan's status comes from the local proposal branches first (see [`super::proposals`]) and
//! from its events second. Cancels and check verdicts take effect only when someone this clone
//! trusts vouches for them (see [`super::vouch`]); the others are kept as claims.

use std::collections::{BTreeMap, HashMap};

use git2::{ObjectType, Oid};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::ids::oid_hex;
pub use super::ids::{is_object_id, is_plan_id, is_proposal_branch};
pub use super::vouch::{Trust, Voucher};
use crate::codes::{Code, Problem};
use crate::plan::Plan;

mod ledger;
use ledger::read_lines;
pub use ledger::{ClaimedVerdict, Ledger, Status};

/// The digest of one file a plan read: what it saw, so apply can tell if the file moved on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    pub path: String,
    pub blob_oid: String,
    pub sha256: String,
    /// Line ranges shown (1-based, inclusive); empty when the whole file was shown.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ranges: Vec<(u32, u32)>,
    /// The file was shown cut by the context diet.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

/// One stored plan. Serialized flat: record fields plus the normalized plan's fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanRecord {
    pub id: String,
    pub goal: String,
    #[serde(with = "oid_hex")]
    pub base: Oid,
    pub created_at: i64,
    pub provider: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub trace_id: String,
    pub schema_version: u8,
    pub schema_hash: String,
    #[serde(flatten)]
    pub plan: Plan,
    #[serde(default)]
    pub context: Vec<Fingerprint>,
    /// The dry run as a commit on the base (kept reachable by the operation log): apply at
    /// the base finds its tree already stored and writes none, and `diff` shows it.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "oid_hex::option"
    )]
    pub preview: Option<Oid>,
    /// What asking the model cost: tokens, requests, time, repairs (absent for pasted answers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stats: Option<PlanStats>,
    /// The group of competing proposals this plan belongs to: one id shared by every plan one
    /// `plan` command made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// Which of `--samples N` answers of one provider this is (1 to N); absent for one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample: Option<u32>,
    /// Who made the plan: the git identity (`Name <email>`) papayu ran under, when it had one.
    /// A claim, as everything in the notes is: whoever writes a line chooses what it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// The plan's conversation: the id of a self-note in the notes (see
    /// [`crate::trace::conversation`]), so it travels with the plan and is bound to its id.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "oid_hex::option"
    )]
    pub conversation: Option<Oid>,
    /// What the plan is for, when it is not a fix: `repro` for a reproduction test (see
    /// [`crate::engine::repro`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<PlanKind>,
    /// The reproduction this fix is checked against: its tests are laid under the fix (the fix
    /// applies onto the reproduction's commit), so the verdict says whether they pass now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repro: Option<String>,
    /// Whether the id is the hash of this very content (see [`PlanRecord::seal`]). Records
    /// stored before ids were content hashes cannot be checked: they read as before, marked so.
    #[serde(skip)]
    pub verified: bool,
}

/// A plan that is not a fix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PlanKind {
    /// A test that reproduces the goal's problem: it only adds or changes test files, and
    /// reproduces when one of its tests fails at the base.
    Repro,
}

/// The cost of making one plan with a model, summed over every request of its cycle.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PlanStats {
    /// Prompt tokens, cached ones included.
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
    /// Prompt tokens served from the provider's cache.
    #[serde(default)]
    pub cached_tokens: u64,
    /// Prompt tokens written to the provider's cache.
    #[serde(default)]
    pub cache_write_tokens: u64,
    #[serde(default)]
    pub requests: u32,
    /// Time spent waiting for the model, over all requests.
    #[serde(default)]
    pub latency_ms: u64,
    #[serde(default)]
    pub repairs: u32,
    #[serde(default)]
    pub context_rounds: u32,
    /// Why the plan fell back from protocol v2 to v1, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
    /// What the requests cost in US dollars at the provider's configured price
    /// (`papayu.<provider>.price`); absent when no price was configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

impl PlanRecord {
    /// Names the record by its content and returns its note line.
    ///
    /// The id is what git names the canonical record as a blob: the record without its id, as
    /// compact JSON with sorted keys, so `git hash-object --stdin` of that text prints the id.
    /// The note line is that text with the id put first, so a reader recovers the hashed text
    /// byte for byte and no other content can claim the id.
    pub fn seal(&mut self) -> String {
        let body = self.body();
        self.id = blob_id(&body);
        self.verified = true;
        sealed_line(&self.id, &body)
    }

    /// The record as one note line: sealed (content-addressed) when it was made that way.
    #[expect(
        clippy::expect_used,
        reason = "serializing a derived type with string keys cannot fail"
    )]
    pub fn to_line(&self) -> String {
        match self.verified {
            true => sealed_line(&self.id, &self.body()),
            false => serde_json::to_string(self).expect("record serializes"),
        }
    }

    /// The canonical record: everything but the id, compact JSON, keys sorted.
    fn body(&self) -> String {
        #[expect(
            clippy::expect_used,
            reason = "serializing a derived type with string keys cannot fail"
        )]
        let mut value = serde_json::to_value(self).expect("record serializes");
        if let Some(map) = value.as_object_mut() {
            map.remove("id");
        }
        value.to_string()
    }

    /// The first line of the goal, at most 72 characters: for one-line descriptions.
    pub fn goal_line(&self) -> String {
        let line = self.goal.lines().next().unwrap_or("").trim();
        if line.chars().count() > 72 {
            format!("{}…", line.chars().take(71).collect::<String>())
        } else {
            line.to_string()
        }
    }

    /// The first 10 hex digits, as shown to users.
    pub fn short_id(&self) -> &str {
        &self.id[..self.id.len().min(super::SHORT)]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EventKind {
    Applied,
    Refined,
    Failed,
    Merged,
    Discarded,
    /// Undo cancelled the line named by `cancels`.
    Undone,
    /// Redo cancelled the `undone` line named by `cancels`.
    Redone,
}

impl EventKind {
    /// Whether this event cancels another line rather than changing a status.
    pub fn is_cancel(self) -> bool {
        matches!(self, EventKind::Undone | EventKind::Redone)
    }
}

/// A status change of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    pub plan: String,
    pub event: EventKind,
    /// Milliseconds since the epoch.
    pub at: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "oid_hex::option"
    )]
    pub commit: Option<Oid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tail: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// For `refined`: the review feedback the refinement addressed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback: Option<String>,
    /// For `undone` and `redone`: the [`line_hash`] of the line this event cancels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancels: Option<String>,
    /// For `applied` and `failed` after a check: the check judged against the base.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<Box<crate::verdict::Verdict>>,
    /// For a reproduction's `applied` or `failed`: each test that reproduces the problem with
    /// the first line of its failure (`id: line`, masked), or why nothing reproduced.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<String>,
    /// Who vouches for the verdict the event carries, as the reader found it (never stored):
    /// `None` for a verdict nobody this clone trusts wrote, which is a claim.
    #[serde(skip)]
    pub vouched: Option<Voucher>,
}

impl Event {
    /// The event as one note line (compact JSON).
    #[expect(
        clippy::expect_used,
        reason = "serializing a derived type with string keys cannot fail"
    )]
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("event serializes")
    }

    pub fn new(plan: &str, event: EventKind) -> Event {
        Event {
            plan: plan.to_string(),
            event,
            at: now_millis(),
            branch: None,
            commit: None,
            exit_code: None,
            output_tail: None,
            detail: None,
            feedback: None,
            cancels: None,
            check: None,
            evidence: Vec::new(),
            vouched: None,
        }
    }

    /// Whether the event is a verdict on the plan: it carries a check's, or it is a `failed`
    /// (from before verdicts, or a refinement's check).
    pub fn is_verdict(&self) -> bool {
        self.check.is_some() || self.event == EventKind::Failed
    }

    /// Whether the event is well-formed: a plan id, a branch only under `papayu/`, object ids
    /// where ids belong, and a cancel exactly when the kind is one.
    fn is_well_formed(&self) -> bool {
        is_plan_id(&self.plan)
            && self.branch.as_deref().is_none_or(is_proposal_branch)
            && match &self.cancels {
                Some(hash) => self.event.is_cancel() && is_plan_id(hash),
                None => !self.event.is_cancel(),
            }
    }
}

/// The object whose note is the plan's own: the object its id names (what git names its
/// canonical record as a blob). A sealed record is stored there as well as on its base's note,
/// and every event about the plan goes there, so reading or changing one plan reads and
/// rewrites a note about that plan alone, however many plans share its base. The object is a
/// name only, as the id is: nothing stores the blob, and no reader needs it.
pub fn own_note(id: &str) -> Option<Oid> {
    is_plan_id(id).then(|| Oid::from_str(id).ok()).flatten()
}

/// Where the note lines an operation appends are stored: an event about a plan (not a cancel)
/// on the plan's own note instead of the note it was meant for; a sealed record on its base's
/// note (where the plans on a commit are found, and where papayu versions before plans had
/// their own note read it) and on its own note; anything else (a cancel, which goes where the
/// line it cancels lives, an unsealed record, a conversation) where it was meant to go.
pub fn place_lines(lines: &[(Oid, String)]) -> Vec<(Oid, String)> {
    let mut out: Vec<(Oid, String)> = Vec::with_capacity(lines.len() + 1);
    let mut push = |on: Oid, line: &String| {
        if !out.iter().any(|(o, l)| *o == on && l == line) {
            out.push((on, line.clone()));
        }
    };
    for (on, line) in lines {
        let own = match parse_line(line, *on) {
            Some(Line::Event(e)) if !e.event.is_cancel() => own_note(&e.plan),
            Some(Line::Record(r, _)) if r.verified => {
                push(*on, line);
                own_note(&r.id)
            }
            _ => None,
        };
        push(own.unwrap_or(*on), line);
    }
    out
}

/// The name of one note line: the first 40 hex digits of the SHA-256 of its text (without its
/// newline). Undo and redo cancel lines by this name.
pub fn line_hash(line: &str) -> String {
    let digest = Sha256::digest(line.trim_end_matches(['\n', '\r']).as_bytes());
    let mut out = String::with_capacity(40);
    for byte in &digest[..20] {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// What git names `text` as a blob: `git hash-object --stdin`.
fn blob_id(text: &str) -> String {
    Oid::hash_object(ObjectType::Blob, text.as_bytes())
        .map_or_else(|_| String::new(), |o| o.to_string())
}

fn sealed_line(id: &str, body: &str) -> String {
    format!(
        "{{\"id\":\"{id}\",{}",
        body.strip_prefix('{').unwrap_or(body)
    )
}

/// Whether a record line is sealed by `id`: it starts with that id and the rest, read as the
/// canonical record, hashes to it.
fn is_sealed(raw: &str, id: &str) -> bool {
    let rest = raw
        .strip_prefix("{\"id\":\"")
        .and_then(|r| r.strip_prefix(id))
        .and_then(|r| r.strip_prefix("\","));
    rest.is_some_and(|rest| blob_id(&format!("{{{rest}")) == id)
}

/// The plan a note line is about (`plan` of an event, `id` of a record), if it names one.
pub fn line_plan(line: &str) -> Option<String> {
    // A record's `plan` is its steps: which id a line names is decided as the ledger reads it.
    plan_of_line(line, Oid::ZERO_SHA1)
}

impl PlanRecord {
    /// Whether the record's ids are well-formed, so slicing and lookups on them are safe.
    fn is_well_formed(&self) -> bool {
        is_plan_id(&self.id)
    }
}

/// One well-formed line of the notes.
enum Line {
    Record(Box<PlanRecord>, Oid),
    Event(Event),
}

impl Line {
    fn plan(&self) -> &str {
        match self {
            Line::Record(r, _) => &r.id,
            Line::Event(e) => &e.plan,
        }
    }
}

/// Whether `raw` reads as an event line that names its plan by a `"plan":"<id>"` key: what
/// can be judged by [`mention`] before, or instead of, parsing it. Anything else (a record, an
/// event laid out otherwise) has to be parsed to tell what it is about.
pub(crate) fn names_a_plan(raw: &str) -> bool {
    raw.contains("\"event\"") && mention(raw, &|_| false) == Mention::Unknown
}

/// What the `"plan":"<id>"` keys of an event line say about it, read without parsing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mention<'l> {
    /// One names a plan that is known: the first such.
    Known(&'l str),
    /// Every one names a plan that is not.
    Unknown,
    /// There is none: only parsing the line tells what it is about.
    Silent,
}

/// What the `"plan":"<id>"` keys of `raw` say, `known` telling which ids have a record. Inside
/// a JSON string a quote is escaped, so the pattern only ever matches a key of the line (or of
/// an object nested in it); papayu writes `plan` as the first key of every event.
pub(crate) fn mention<'l>(raw: &'l str, known: &dyn Fn(&str) -> bool) -> Mention<'l> {
    const KEY: &str = "\"plan\":\"";
    let mut seen = false;
    for (at, _) in raw.match_indices(KEY) {
        let from = at + KEY.len();
        match raw.get(from..from + 40) {
            Some(id) if known(id) => return Mention::Known(id),
            _ => seen = true,
        }
    }
    match seen {
        true => Mention::Unknown,
        false => Mention::Silent,
    }
}

/// One well-formed line about a plan with a record, as the plan index takes it in.
pub(crate) struct Summary {
    /// The object whose note holds the line.
    pub on: Oid,
    pub plan: String,
    /// For a record: when the plan was made, and whether the record is sealed by its id.
    pub made: Option<(i64, bool)>,
}

/// A [`Summary`] of each well-formed line of `notes` about a plan with a record there (see
/// [`read_lines`]), for each note that holds it.
pub(crate) fn line_summaries(notes: &[(Oid, String)]) -> Vec<Summary> {
    let (lines, carriers) = read_lines(notes);
    let mut out = Vec::new();
    for (hash, line) in &lines {
        let made = match line {
            Line::Record(r, _) => Some((r.created_at, r.verified)),
            Line::Event(_) => None,
        };
        for on in carriers.get(hash).into_iter().flatten() {
            out.push(Summary {
                on: *on,
                plan: line.plan().to_string(),
                made,
            });
        }
    }
    out
}

/// The plan a well-formed note line is about (a record's id, an event's plan), as the ledger
/// reads it; `None` for anything the ledger ignores.
pub(crate) fn plan_of_line(raw: &str, annotated: Oid) -> Option<String> {
    line_summary(raw, annotated).map(|(plan, _)| plan)
}

/// The plan a well-formed note line is about and, for a record, when the plan was made and
/// whether the record is sealed by its id.
pub(crate) fn line_summary(raw: &str, annotated: Oid) -> Option<(String, Option<(i64, bool)>)> {
    parse_line(raw, annotated).map(|line| match &line {
        Line::Record(r, _) => (r.id.clone(), Some((r.created_at, r.verified))),
        Line::Event(e) => (e.plan.clone(), None),
    })
}

/// Whether a note line is an event that carries a check verdict (see [`Event::is_verdict`]).
pub fn carries_verdict(line: &str) -> bool {
    matches!(parse_line(line, Oid::ZERO_SHA1), Some(Line::Event(e)) if e.is_verdict())
}

/// The record a note line holds, when it is a well-formed one (sealed or not).
pub(crate) fn record_of_line(raw: &str) -> Option<PlanRecord> {
    match parse_line(raw, Oid::ZERO_SHA1)? {
        Line::Record(record, _) => Some(*record),
        Line::Event(_) => None,
    }
}

/// Which of the plans whose id starts with `prefix` the user meant: the only one, or
/// `ERR_PLAN_NOT_FOUND` / `ERR_PLAN_AMBIGUOUS` (listing them).
pub fn one_of(prefix: &str, found: &[&PlanRecord]) -> Result<usize, Problem> {
    match found {
        [_] => Ok(0),
        [] => Err(Problem::new(
            Code::PlanNotFound,
            format!("no plan with id {prefix}; see git papayu list"),
        )),
        many => Err(Problem::new(
            Code::PlanAmbiguous,
            format!(
                "plan id {prefix} is ambiguous ({}); give more digits",
                many.iter()
                    .map(|r| r.short_id())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

/// The id prefix a user's plan argument names: a hex id prefix (at least 4 digits) or a
/// proposal branch name (`papayu/<slug>-<id>`, with or without `refs/heads/`).
pub fn spec_prefix(spec: &str) -> Result<String, Problem> {
    let spec = spec.trim();
    let prefix = spec
        .strip_prefix("refs/heads/")
        .unwrap_or(spec)
        .strip_prefix("papayu/")
        .and_then(|b| b.rsplit('-').next())
        .unwrap_or(spec)
        .to_ascii_lowercase();
    if prefix.len() < 4 || !prefix.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(Problem::new(
            Code::PlanNotFound,
            format!(
                "'{spec}' is not a plan id; give at least 4 hex digits of one (see git papayu list)"
            ),
        ));
    }
    Ok(prefix)
}

/// Parses one note line into a well-formed record or event; anything else is `None`.
///
/// A line is an event when it has a top-level `event` key, else a record. The usual line is
/// parsed once, straight into its type; only a line that does not read that way goes through a
/// generic value first, which decides.
fn parse_line(raw: &str, annotated: Oid) -> Option<Line> {
    let fast = match raw.contains("\"event\"") {
        true => serde_json::from_str::<Event>(raw).ok().map(Line::Event),
        false => serde_json::from_str::<PlanRecord>(raw)
            .ok()
            .map(|r| Line::Record(Box::new(r), annotated)),
    };
    let line = match fast {
        Some(line) => line,
        None => {
            let value: serde_json::Value = serde_json::from_str(raw).ok()?;
            if value.get("event").is_some() {
                Line::Event(serde_json::from_value(value).ok()?)
            } else {
                Line::Record(Box::new(serde_json::from_value(value).ok()?), annotated)
            }
        }
    };
    let well_formed = match &line {
        Line::Event(e) => e.is_well_formed(),
        Line::Record(r, _) => r.is_well_formed(),
    };
    let mut line = well_formed.then_some(line)?;
    if let Line::Record(r, _) = &mut line {
        r.verified = is_sealed(raw, &r.id);
    }
    Some(line)
}

/// Which lines are in effect: a line is cancelled by any line in effect that cancels it and is
/// about the same plan. Hashes come from the text, so cancels cannot form a cycle; a chain of
/// any length is walked without recursion.
fn live_lines(lines: &BTreeMap<String, Line>) -> HashMap<&str, bool> {
    let mut cancellers: HashMap<&str, Vec<&str>> = HashMap::new();
    for (hash, line) in lines {
        if let Line::Event(Event {
            cancels: Some(target),
            plan,
            ..
        }) = line
            && lines.get(target).is_some_and(|t| t.plan() == plan)
        {
            cancellers.entry(target.as_str()).or_default().push(hash);
        }
    }
    let mut live: HashMap<&str, bool> = HashMap::new();
    let mut open: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for start in lines.keys() {
        let mut stack: Vec<&str> = vec![start];
        open.insert(start);
        while let Some(&hash) = stack.last() {
            let by = cancellers.get(hash).map_or(&[][..], Vec::as_slice);
            let next = by
                .iter()
                .copied()
                .find(|c| !live.contains_key(c) && !open.contains(c));
            match next {
                Some(c) => {
                    open.insert(c);
                    stack.push(c);
                }
                None => {
                    let cancelled = by.iter().any(|c| live.get(c).copied().unwrap_or(false));
                    live.insert(hash, !cancelled);
                    open.remove(hash);
                    stack.pop();
                }
            }
        }
    }
    live
}

/// Now, in milliseconds since the epoch (`PAPAYU_TIMESTAMP` fixes it: see [`crate::clock`]).
pub use crate::clock::now_millis;

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn record(id: &str, base: &str, created_at: i64) -> PlanRecord {
        serde_json::from_value(serde_json::json!({
            "id": id, "goal": "g", "base": base, "created_at": created_at, "provider": "manual",
            "trace_id": "t", "schema_version": 2, "schema_hash": "h", "protocol": 2, "actions": []
        }))
        .expect("a minimal record deserializes")
    }

    fn ledger(records: Vec<PlanRecord>) -> Ledger {
        Ledger {
            records,
            ..Ledger::default()
        }
    }

    #[test]
    fn resolves_unique_prefixes_and_branch_names() {
        let l = ledger(vec![
            record(&format!("abcd1{}", "0".repeat(35)), BASE, 1),
            record(&format!("abce2{}", "0".repeat(35)), BASE, 2),
        ]);
        assert!(l.resolve("abcd").unwrap().id.starts_with("abcd1"));
        assert!(l.resolve("ABCE").unwrap().id.starts_with("abce2"));
        assert!(
            l.resolve("papayu/fix-it-abce200000")
                .unwrap()
                .id
                .starts_with("abce2")
        );
        assert_eq!(l.resolve("abc").unwrap_err().code, Code::PlanNotFound);
        assert_eq!(l.resolve("ffff").unwrap_err().code, Code::PlanNotFound);
    }

    #[test]
    fn an_ambiguous_prefix_lists_the_candidates() {
        let l = ledger(vec![
            record(&format!("abcd1{}", "0".repeat(35)), BASE, 1),
            record(&format!("abcd2{}", "0".repeat(35)), BASE, 2),
        ]);
        let err = l.resolve("abcd").unwrap_err();
        assert_eq!(err.code, Code::PlanAmbiguous);
        assert!(
            err.reason.contains("abcd100000") && err.reason.contains("abcd200000"),
            "{}",
            err.reason
        );
        assert!(l.resolve("abcd2").is_ok());
    }

    const BASE: &str = "1111111111111111111111111111111111111111";

    fn base() -> Oid {
        Oid::from_str(BASE).unwrap()
    }

    fn event_line(id: &str, kind: &str, at: i64, extra: serde_json::Value) -> String {
        let mut v = serde_json::json!({"plan": id, "event": kind, "at": at});
        if let serde_json::Value::Object(extra) = extra {
            v.as_object_mut().unwrap().extend(extra);
        }
        v.to_string()
    }

    fn from_lines(lines: &[String]) -> Ledger {
        Ledger::from_notes([(base(), lines.join("\n"))])
    }

    #[test]
    fn status_follows_the_newest_event_whatever_the_line_order() {
        let id = "a".repeat(40);
        let rec = serde_json::to_string(&record(&id, BASE, 1)).unwrap();
        let applied = event_line(
            &id,
            "applied",
            10,
            serde_json::json!({"branch": "papayu/x"}),
        );
        let discarded = event_line(&id, "discarded", 20, serde_json::json!({}));
        for lines in [
            vec![rec.clone(), applied.clone(), discarded.clone()],
            vec![discarded.clone(), applied.clone(), rec.clone()],
        ] {
            let l = from_lines(&lines);
            assert_eq!(l.status(&id), Status::Discarded);
            assert_eq!(
                l.branch(&id),
                None,
                "no local branch, whatever the events say"
            );
        }
    }

    #[test]
    fn equal_timestamps_resolve_the_same_whatever_the_order() {
        let id = "a".repeat(40);
        let rec = serde_json::to_string(&record(&id, BASE, 1)).unwrap();
        let failed = event_line(&id, "failed", 10, serde_json::json!({}));
        let discarded = event_line(&id, "discarded", 10, serde_json::json!({}));
        let one = from_lines(&[rec.clone(), failed.clone(), discarded.clone()]);
        let two = from_lines(&[discarded, failed, rec]);
        assert_eq!(one.status(&id), two.status(&id));
        assert_eq!(one.events_of(&id), two.events_of(&id));
    }

    #[test]
    fn a_cancelled_line_is_out_of_effect_until_its_cancel_is_cancelled() {
        let id = "a".repeat(40);
        let rec = serde_json::to_string(&record(&id, BASE, 1)).unwrap();
        let discarded = event_line(&id, "discarded", 20, serde_json::json!({}));
        let undone = event_line(
            &id,
            "undone",
            30,
            serde_json::json!({"cancels": line_hash(&discarded)}),
        );
        let redone = event_line(
            &id,
            "redone",
            40,
            serde_json::json!({"cancels": line_hash(&undone)}),
        );
        let undone_rec = event_line(
            &id,
            "undone",
            50,
            serde_json::json!({"cancels": line_hash(&rec)}),
        );

        let l = from_lines(&[rec.clone(), discarded.clone()]);
        assert_eq!(l.status(&id), Status::Discarded);
        let l = from_lines(&[undone.clone(), rec.clone(), discarded.clone()]);
        assert_eq!(l.status(&id), Status::Proposed);
        assert!(l.events_of(&id).is_empty(), "cancels are not status events");
        let l = from_lines(&[
            redone.clone(),
            undone.clone(),
            rec.clone(),
            discarded.clone(),
        ]);
        assert_eq!(l.status(&id), Status::Discarded);
        let l = from_lines(&[rec.clone(), undone_rec]);
        assert!(l.records.is_empty(), "an undone plan is withdrawn");
    }

    #[test]
    fn a_cancel_about_another_plan_cancels_nothing() {
        let id = "a".repeat(40);
        let other = "b".repeat(40);
        let rec = serde_json::to_string(&record(&id, BASE, 1)).unwrap();
        let forged = event_line(
            &other,
            "undone",
            50,
            serde_json::json!({"cancels": line_hash(&rec)}),
        );
        assert_eq!(from_lines(&[rec, forged]).records.len(), 1);
    }

    #[test]
    fn malformed_lines_are_dropped() {
        let id = "a".repeat(40);
        let rec = serde_json::to_string(&record(&id, BASE, 1)).unwrap();
        let bad = [
            event_line(&id, "applied", 1, serde_json::json!({"branch": "release"})),
            event_line(
                &id,
                "applied",
                1,
                serde_json::json!({"branch": "papayu/../x"}),
            ),
            event_line(&id, "applied", 1, serde_json::json!({"commit": "abc"})),
            event_line("ab", "discarded", 1, serde_json::json!({})),
            event_line(&id, "undone", 1, serde_json::json!({})),
            event_line(
                &id,
                "discarded",
                1,
                serde_json::json!({"cancels": "a".repeat(40)}),
            ),
            serde_json::to_string(&record("é".repeat(20).as_str(), BASE, 1)).unwrap(),
            serde_json::to_string(&record(&"c".repeat(40), BASE, 1))
                .unwrap()
                .replace(BASE, "abc"),
        ];
        let mut lines = vec![rec];
        lines.extend(bad);
        let l = from_lines(&lines);
        assert_eq!(l.records.len(), 1);
        assert!(l.events_of(&id).is_empty());
        assert_eq!(l.status(&id), Status::Proposed);
    }

    #[test]
    fn a_sealed_id_is_the_blob_id_of_the_canonical_record_and_only_it_claims_the_id() {
        let mut mine = record(&"0".repeat(40), BASE, 1);
        let line = mine.seal();
        assert!(mine.verified && is_plan_id(&mine.id));
        let body = format!("{{{}", &line[49..]);
        assert_eq!(
            blob_id(&body),
            mine.id,
            "the id is git's name of the record"
        );
        assert_eq!(mine.to_line(), line);
        // A teammate's record with the same id but other actions, padded to sort after mine.
        let mut forged = serde_json::to_value(&mine).unwrap();
        forged["goal"] = serde_json::json!("g (forged)");
        forged["zz_padding"] = serde_json::json!("z".repeat(64));
        let forged = forged.to_string();
        for lines in [
            vec![line.clone(), forged.clone()],
            vec![forged.clone(), line.clone()],
        ] {
            let l = from_lines(&lines);
            assert_eq!(l.records.len(), 1);
            assert_eq!(l.records[0].goal, "g");
            assert!(l.records[0].verified);
            assert_eq!(l.warnings.len(), 1, "{:?}", l.warnings);
            assert!(l.warnings[0].contains(&BASE[..10]), "{:?}", l.warnings);
        }
        // The same forgery alone is not a plan either: its content does not hash to its id...
        let alone = from_lines(std::slice::from_ref(&forged));
        assert_eq!(
            alone.records.len(),
            1,
            "...but an unsealed record reads as before"
        );
        assert!(!alone.records[0].verified);
    }

    #[test]
    fn unsealed_records_that_disagree_about_one_id_are_all_set_aside() {
        let id = "a".repeat(40);
        let one = serde_json::to_string(&record(&id, BASE, 1)).unwrap();
        let two = serde_json::to_string(&record(&id, BASE, 2)).unwrap();
        let l = from_lines(&[one.clone(), two]);
        assert!(l.records.is_empty());
        assert_eq!(l.warnings.len(), 2);
        assert_eq!(from_lines(&[one.clone(), one]).records.len(), 1);
    }

    #[test]
    fn a_cancel_no_local_operation_wrote_is_a_claim() {
        let id = "a".repeat(40);
        let rec = serde_json::to_string(&record(&id, BASE, 1)).unwrap();
        let undone = event_line(
            &id,
            "undone",
            30,
            serde_json::json!({"cancels": line_hash(&rec)}),
        );
        let text = [rec, undone.clone()].join("\n");
        let l = Ledger::from_notes_with([(base(), text.clone())], &Trust::nothing());
        assert_eq!(l.records.len(), 1, "the forged undo withdraws nothing");
        assert_eq!(l.claims[&id].len(), 1);
        let logged = Trust::Logged {
            cancels: [line_hash(&undone)].into(),
            verdicts: HashSet::new(),
        };
        let l = Ledger::from_notes_with([(base(), text)], &logged);
        assert!(l.records.is_empty(), "an undo this clone made takes effect");
        assert!(l.claims.is_empty());
    }

    #[test]
    fn a_verdict_no_local_operation_wrote_is_a_claim() {
        let id = "a".repeat(40);
        let rec = serde_json::to_string(&record(&id, BASE, 1)).unwrap();
        let check =
            serde_json::json!({"status": "passed", "fixes": 3, "breaks": 0, "still_failing": 0});
        let applied = event_line(&id, "applied", 30, serde_json::json!({"check": check}));
        let plain = event_line(&id, "discarded", 40, serde_json::json!({}));
        let text = [rec, applied.clone(), plain].join("\n");
        let l = Ledger::from_notes_with([(base(), text.clone())], &Trust::nothing());
        assert_eq!(
            l.events_of(&id).len(),
            2,
            "a claimed verdict stays in the history"
        );
        assert!(l.events_of(&id).iter().all(|e| e.vouched.is_none()));
        let claimed = &l.claimed_verdicts[&id];
        assert_eq!(claimed.len(), 1);
        assert_eq!(
            (claimed[0].line.as_str(), claimed[0].on),
            (line_hash(&applied).as_str(), base())
        );
        let logged = Trust::Logged {
            cancels: HashSet::new(),
            verdicts: [line_hash(&applied)].into(),
        };
        let l = Ledger::from_notes_with([(base(), text)], &logged);
        assert_eq!(l.events_of(&id)[0].vouched, Some(Voucher::ThisClone));
        assert!(l.claimed_verdicts.is_empty());
    }

    #[test]
    fn events_about_plans_without_a_record_are_skipped() {
        let id = "a".repeat(40);
        // A record whose text holds `"event"` is still read as one, before the events.
        let mut made = record(&id, BASE, 1);
        made.goal = "event".into();
        let rec = serde_json::to_string(&made).unwrap();
        let mut lines = vec![rec, event_line(&id, "discarded", 5, serde_json::json!({}))];
        for i in 0..1000 {
            let other = format!("{i:040x}");
            lines.push(event_line(&other, "applied", i, serde_json::json!({})));
        }
        // One names a known plan in a nested key as well: it is parsed, and belongs to its own.
        lines.push(event_line(
            &"b".repeat(40),
            "failed",
            1,
            serde_json::json!({"x": {"plan": id}}),
        ));
        let l = from_lines(&lines);
        assert_eq!(l.events.keys().collect::<Vec<_>>(), [&id]);
        assert_eq!(l.events_of(&id).len(), 1);
        let notes = [(base(), lines.join("\n"))];
        let summaries = line_summaries(&notes);
        assert_eq!(summaries.len(), 2, "the record and its event");
        assert!(summaries.iter().all(|s| s.plan == id));
        assert_eq!(mention(&lines[1], &|p| p == id), Mention::Known(&id));
        assert_eq!(mention(&lines[2], &|p| p == id), Mention::Unknown);
        assert_eq!(mention(&lines[0], &|p| p == id), Mention::Silent);
    }

    #[test]
    fn a_long_cancel_chain_is_read_without_recursion() {
        let id = "a".repeat(40);
        let rec = serde_json::to_string(&record(&id, BASE, 1)).unwrap();
        let mut lines = vec![rec];
        for i in 0..20_000 {
            let kind = if i % 2 == 0 { "undone" } else { "redone" };
            let prev = line_hash(lines.last().unwrap());
            lines.push(event_line(
                &id,
                kind,
                i,
                serde_json::json!({"cancels": prev}),
            ));
        }
        // Cancels alternate undo and redo; an even number of them leaves the record in effect.
        let l = from_lines(&lines);
        assert_eq!(
            l.records.len(),
            1,
            "20000 cancels: the record is back in effect"
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// Arbitrary lines, and mutations of real ones, never panic the reader, and whatever it
        /// keeps is well-formed, so nothing downstream acts on a malformed record.
        #[test]
        fn the_note_reader_survives_any_lines(
            lines in proptest::collection::vec(any_line(), 0..24),
        ) {
            let l = from_lines(&lines);
            for r in &l.records {
                proptest::prop_assert!(r.is_well_formed());
                let _ = (r.short_id(), l.status(&r.id), l.branch(&r.id), r.base);
                proptest::prop_assert!(l.resolve(&r.id).is_ok());
            }
            for (plan, events) in &l.events {
                proptest::prop_assert!(is_plan_id(plan));
                for e in events {
                    proptest::prop_assert!(e.is_well_formed() && !e.event.is_cancel());
                    if let Some(b) = &e.branch {
                        proptest::prop_assert!(b.starts_with("papayu/"));
                    }
                }
            }
            let _ = l.resolve("abcd");
            let _ = l.newest_on(base());
        }
    }

    fn any_line() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let id = "[0-9a-f]{40}|[0-9a-fA-Fé]{0,44}";
        let kind = prop_oneof![
            Just("applied"),
            Just("refined"),
            Just("failed"),
            Just("merged"),
            Just("discarded"),
            Just("undone"),
            Just("redone"),
            Just("bogus"),
        ];
        let event = (
            id,
            kind,
            any::<i64>(),
            proptest::option::of("papayu/[a-z]{1,8}|release|papayu/\\.\\.|[ -~]{0,12}"),
            proptest::option::of(id),
            proptest::option::of(id),
        )
            .prop_map(|(plan, kind, at, branch, commit, cancels)| {
                serde_json::json!({"plan": plan, "event": kind, "at": at, "branch": branch,
                    "commit": commit, "cancels": cancels})
                .to_string()
            });
        let rec = (id, id, any::<i64>(), proptest::option::of(id)).prop_map(
            |(rid, base, at, preview)| {
                serde_json::json!({"id": rid, "goal": "g\u{1b}[2J", "base": base, "created_at": at,
                "provider": "p", "trace_id": "t", "schema_version": 2, "schema_hash": "h",
                "protocol": 2, "actions": [], "preview": preview})
                .to_string()
            },
        );
        let mutated = (
            rec.clone(),
            any::<prop::sample::Index>(),
            "[ -~\u{80}-\u{10ffff}]{0,4}",
        )
            .prop_map(|(line, at, insert)| {
                let mut cut = at.index(line.len() + 1);
                while !line.is_char_boundary(cut) {
                    cut -= 1;
                }
                format!("{}{insert}{}", &line[..cut], &line[cut..])
            });
        prop_oneof![event, rec, mutated, "\\{.{0,60}", ".{0,80}"]
    }
}
