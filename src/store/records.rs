//! Plan records and their events, as stored one JSON line each in the papayu notes.
//!
//! A note may be merged with `git notes merge -s cat_sort_uniq`, which sorts its lines; so no
//! reader here relies on line order: events carry a timestamp, records carry their id, and the
//! status of a plan is derived from its events alone.

use std::collections::BTreeMap;

use git2::{Oid, Repository};
use serde::{Deserialize, Serialize};

use super::{StoreError, notes};
use crate::codes::{Code, Problem};
use crate::protocol::Plan;

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
    pub base: String,
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
    /// the base reuses its tree instead of building it again, and `diff` shows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
    /// What asking the model cost: tokens, requests, time, repairs (absent for pasted answers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stats: Option<PlanStats>,
}

/// The cost of making one plan with a model, summed over every request of its cycle.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
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
}

impl PlanRecord {
    /// The first 10 hex digits, as shown to users.
    pub fn short_id(&self) -> &str {
        &self.id[..self.id.len().min(10)]
    }

    pub fn base_oid(&self) -> Result<Oid, StoreError> {
        Oid::from_str(&self.base).map_err(|e| StoreError::git("plan record has a bad base", e))
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tail: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl Event {
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
        }
    }
}

/// A plan's status, derived from its newest event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Proposed,
    Applied,
    Failed,
    Merged,
    Discarded,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Proposed => "proposed",
            Status::Applied => "applied",
            Status::Failed => "failed",
            Status::Merged => "merged",
            Status::Discarded => "discarded",
        }
    }
}

/// Everything the notes say: plan records (deduplicated by id) and their events.
#[derive(Debug, Default)]
pub struct Ledger {
    pub records: Vec<PlanRecord>,
    pub events: BTreeMap<String, Vec<Event>>,
}

impl Ledger {
    /// Reads all records and events from the notes commit `notes`.
    pub fn load(repo: &Repository, notes: Option<Oid>) -> Result<Ledger, StoreError> {
        let mut ledger = Ledger::default();
        let mut index: BTreeMap<String, usize> = BTreeMap::new();
        for (annotated, text) in notes::all(repo, notes)? {
            for line in text.lines().filter(|l| l.starts_with('{')) {
                ledger.add_line(line, annotated, &mut index);
            }
        }
        ledger.sort_events();
        ledger
            .records
            .sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(ledger)
    }

    /// Orders each plan's events by time (ties by kind) and drops exact duplicates, which a
    /// `cat_sort_uniq` merge would also drop.
    fn sort_events(&mut self) {
        for events in self.events.values_mut() {
            events.sort_by_key(|e| (e.at, e.event));
            events.dedup();
        }
    }

    fn add_line(&mut self, line: &str, annotated: Oid, index: &mut BTreeMap<String, usize>) {
        let Ok(value) = serde_json::from_str::<serde_json::Value>(line) else {
            return;
        };
        if value.get("event").is_some() {
            if let Ok(event) = serde_json::from_value::<Event>(value) {
                self.events
                    .entry(event.plan.clone())
                    .or_default()
                    .push(event);
            }
            return;
        }
        let Ok(record) = serde_json::from_value::<PlanRecord>(value) else {
            return;
        };
        match index.get(&record.id) {
            // A note copied by a rebase holds the same record; the copy on its own base wins.
            Some(&i) => {
                if record.base == annotated.to_string() {
                    self.records[i] = record;
                }
            }
            None => {
                index.insert(record.id.clone(), self.records.len());
                self.records.push(record);
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

    pub fn status(&self, id: &str) -> Status {
        match self.last_event(id).map(|e| e.event) {
            None => Status::Proposed,
            Some(EventKind::Applied | EventKind::Refined) => Status::Applied,
            Some(EventKind::Failed) => Status::Failed,
            Some(EventKind::Merged) => Status::Merged,
            Some(EventKind::Discarded) => Status::Discarded,
        }
    }

    /// The proposal branch of a plan while it is applied or merged (not once discarded or
    /// failed), from its newest event.
    pub fn branch(&self, id: &str) -> Option<&str> {
        match self.status(id) {
            Status::Applied | Status::Merged => self
                .events_of(id)
                .iter()
                .rev()
                .find_map(|e| e.branch.as_deref()),
            Status::Proposed | Status::Failed | Status::Discarded => None,
        }
    }

    /// Resolves a user's plan argument: a hex id prefix (at least 4 digits) or a proposal
    /// branch name (`papayu/<slug>-<id>`).
    pub fn resolve(&self, spec: &str) -> Result<&PlanRecord, Problem> {
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
        let found: Vec<&PlanRecord> = self
            .records
            .iter()
            .filter(|r| r.id.starts_with(&prefix))
            .collect();
        match found.as_slice() {
            [one] => Ok(one),
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

    /// The newest plan whose base is `commit`.
    pub fn newest_on(&self, commit: Oid) -> Option<&PlanRecord> {
        let base = commit.to_string();
        self.records.iter().rev().find(|r| r.base == base)
    }
}

pub fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

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
            events: BTreeMap::new(),
        }
    }

    #[test]
    fn resolves_unique_prefixes_and_branch_names() {
        let l = ledger(vec![
            record(&format!("abcd1{}", "0".repeat(35)), "b", 1),
            record(&format!("abce2{}", "0".repeat(35)), "b", 2),
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
            record(&format!("abcd1{}", "0".repeat(35)), "b", 1),
            record(&format!("abcd2{}", "0".repeat(35)), "b", 2),
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

    #[test]
    fn status_follows_the_newest_event_whatever_the_line_order() {
        let id = "a".repeat(40);
        let mut l = ledger(vec![record(&id, "b", 1)]);
        let mut applied = Event::new(&id, EventKind::Applied);
        applied.at = 10;
        applied.branch = Some("papayu/x".into());
        let mut discarded = Event::new(&id, EventKind::Discarded);
        discarded.at = 20;
        l.events.insert(id.clone(), vec![discarded, applied]);
        l.sort_events();
        assert_eq!(l.status(&id), Status::Discarded);
        assert_eq!(l.branch(&id), None, "a discarded plan has no live branch");
    }
}
