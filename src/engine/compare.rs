//! Competing proposals: the plans of one goal side by side, ranked by what their checks did.
//!
//! One `plan` command gives one **group**: several providers (`--provider a,b`), or one asked
//! several times (`--samples N`), each answer its own plan and, once applied, its own branch.
//! Nothing beyond notes and branches is needed to compare them: the group id is in each
//! record, the verdict of each check in its `applied` or `failed` event. Only the verdicts of
//! checks this clone ran count, and those a worker it trusts signed (`apply --on`); a
//! teammate's verdict that arrived with the notes, or an untrusted worker's, is a claim, shown
//! beside the proposal and never ranked.
//!
//! The ranking puts last a proposal whose check never ran its tests (a syntax error that stops
//! the runner at collection must not look better than a harmless change that ran them all),
//! and before that puts first what breaks least, then what fixes most, then what leaves least
//! failing, then (a tie-break of ours) the better check status — passed, partial, unchecked,
//! failed — and then the smaller change: of two proposals that do the same, the one with fewer
//! lines changed is easier to review. Plan age breaks the last tie, so the order is stable.

use crate::codes::{Code, Problem};
use crate::executor::{self, BuildOptions, ChangeKind};
use crate::store::records::{EventKind, Ledger, PlanRecord, Status, spec_prefix};
use crate::store::{Oid, Store};

use crate::verdict::{CheckStatus, Verdict};

/// A new group id: `g` and 10 hex digits, which no plan id prefix can be mistaken for.
pub fn new_group_id() -> String {
    let hex = uuid::Uuid::new_v4().simple().to_string();
    format!("g{}", &hex[..10])
}

/// Whether a user's argument names a group rather than a plan.
pub fn is_group_spec(spec: &str) -> bool {
    let spec = spec.trim();
    spec.len() >= 2 && spec.starts_with('g') && spec[1..].bytes().all(|b| b.is_ascii_hexdigit())
}

/// Lines a proposal changes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Diffstat {
    pub files: usize,
    pub insertions: usize,
    pub deletions: usize,
}

impl Diffstat {
    pub fn lines(&self) -> usize {
        self.insertions + self.deletions
    }
}

/// One proposal as `compare` shows it.
#[derive(Debug, Clone)]
pub struct Proposal {
    pub record: PlanRecord,
    pub status: Status,
    pub branch: Option<String>,
    /// Its newest check this clone trusts, or unchecked.
    pub check: Verdict,
    /// Verdicts from shared notes nobody this clone trusts wrote: shown, never ranked.
    pub claims: Vec<ClaimedCheck>,
    pub diffstat: Diffstat,
    /// What it changes, normalized (see [`super::votes`]); `None` when it no longer builds.
    pub answer: Option<String>,
    /// How many ranked proposals compared with it are the same answer, itself included.
    pub votes: usize,
}

/// A verdict from the shared notes that this clone does not act on, and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ClaimedCheck {
    /// `applied` or `failed`.
    pub event: EventKind,
    pub at: i64,
    pub check: Verdict,
    /// The notes commit that brought the line, and its author as that commit says (`null`
    /// when it is not found in the notes history).
    pub notes_commit: Option<String>,
    pub by: Option<String>,
    /// For a worker's result: the worker's name, and why its verdict is a claim here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worker: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// The proposals compared, and their ranking (ids, best first).
#[derive(Debug, Clone)]
pub struct Comparison {
    /// The group, when every proposal is of one.
    pub group: Option<String>,
    pub proposals: Vec<Proposal>,
    /// Every proposal not discarded nor refined, best first.
    pub ranking: Vec<String>,
    /// Proposals asked of a remote's workers (`apply --on`) with no verdict back yet.
    pub remote: std::collections::BTreeMap<String, super::workers::pending::Remote>,
}

impl Comparison {
    /// What the group's answers cost in all, when any of them had a price.
    pub fn cost_usd(&self) -> Option<f64> {
        let costs: Vec<f64> = self
            .proposals
            .iter()
            .filter_map(|p| p.record.stats.as_ref().and_then(|s| s.cost_usd))
            .collect();
        (!costs.is_empty()).then(|| costs.iter().sum())
    }

    pub fn get(&self, id: &str) -> Option<&Proposal> {
        self.proposals.iter().find(|p| p.record.id == id)
    }
}

/// The newest check verdict of a plan that this clone trusts: the newest `applied` or `failed`
/// event someone this clone trusts vouches for (see [`crate::store::vouch`]) that carries one
/// (an apply with `--no-check` is no check: the one before it still counts), or a verdict a
/// trusted worker signed for the plan's proposal commit (see [`crate::store::results`]),
/// whichever is newer; such a failed event from before verdicts reads as `failed`; none is
/// `unchecked`. A verdict from anyone else is a claim (see [`claimed_checks`]): it never ranks
/// a proposal, picks it, or lets `merge` through.
pub fn last_check(ledger: &Ledger, id: &str) -> Verdict {
    let own = own_check(ledger, id);
    let worker = ledger
        .worker_verdicts
        .get(id)
        .and_then(|list| list.iter().rev().find(|e| e.vouched.is_some()))
        .and_then(|e| Some((e.at, (**e.check.as_ref()?).clone())));
    match (own, worker) {
        (Some((mine, _)), Some((theirs, verdict))) if theirs > mine => verdict,
        (Some((_, verdict)), _) | (None, Some((_, verdict))) => verdict,
        (None, None) => Verdict::unchecked(),
    }
}

/// The worker that made plan `id`'s [`last_check`] when it was a trusted worker's (`checked by
/// worker NAME`), `None` when this clone's own check made it or none did.
pub fn last_check_by(ledger: &Ledger, id: &str) -> Option<String> {
    let own = own_check(ledger, id).map(|(at, _)| at);
    let worker = ledger
        .worker_verdicts
        .get(id)
        .and_then(|list| list.iter().rev().find(|e| e.vouched.is_some()))?;
    match own {
        Some(mine) if mine >= worker.at => None,
        _ => worker.detail.clone(),
    }
}

/// The newest verdict of this clone's own checks on plan `id`, and when it was recorded.
fn own_check(ledger: &Ledger, id: &str) -> Option<(i64, Verdict)> {
    for event in ledger.events_of(id).iter().rev() {
        if event.vouched.is_none() {
            continue;
        }
        if let Some(verdict) = &event.check {
            return Some((event.at, (**verdict).clone()));
        }
        if event.event == EventKind::Failed {
            return Some((
                event.at,
                Verdict {
                    status: CheckStatus::Failed,
                    ..Verdict::unchecked()
                },
            ));
        }
    }
    None
}

/// The verdicts on plan `id` from shared notes that this clone does not act on, oldest first,
/// each with the notes commit that brought it and that commit's author.
pub fn claimed_checks(store: &Store, ledger: &Ledger, id: &str) -> Vec<ClaimedCheck> {
    let claimed = ledger
        .claimed_verdicts
        .get(id)
        .map_or(&[][..], Vec::as_slice);
    claimed
        .iter()
        .map(|c| {
            let origin = match c.worker {
                Some(_) => None,
                None => store.line_origin(c.on, &c.line),
            };
            ClaimedCheck {
                event: c.event.event,
                at: c.event.at,
                check: c.event.check.as_deref().cloned().unwrap_or(Verdict {
                    status: CheckStatus::Failed,
                    ..Verdict::unchecked()
                }),
                notes_commit: origin.as_ref().map(|o| o.commit.to_string()),
                by: origin.map(|o| o.author),
                worker: c.worker.clone(),
                why: c.why.clone(),
            }
        })
        .collect()
}

/// The proposals `specs` name: a group id (or a unique prefix of one), or plan ids; with none,
/// the newest group on `HEAD`.
pub fn select(store: &Store, specs: &[String]) -> Result<Comparison, Problem> {
    let ledger = store.ledger()?;
    let records: Vec<&PlanRecord> = match specs {
        [] => newest_group_on_head(store, &ledger)?,
        [one] if is_group_spec(one) => group_named(&ledger, one)?,
        many => {
            let mut out: Vec<&PlanRecord> = Vec::new();
            for spec in many {
                let record = ledger.resolve(&spec_prefix(spec)?)?;
                if !out.iter().any(|r| r.id == record.id) {
                    out.push(record);
                }
            }
            out
        }
    };
    let group = records
        .first()
        .and_then(|r| r.group.clone())
        .filter(|g| records.iter().all(|r| r.group.as_ref() == Some(g)));
    let mut proposals = Vec::new();
    for record in records {
        let (diffstat, answer) = diffstat(store, record);
        proposals.push(Proposal {
            status: ledger.status(&record.id),
            branch: ledger.branch(&record.id).map(str::to_string),
            check: last_check(&ledger, &record.id),
            claims: claimed_checks(store, &ledger, &record.id),
            diffstat,
            answer,
            votes: 1,
            record: record.clone(),
        });
    }
    count_votes(&mut proposals);
    let ranking = rank(&proposals);
    let remote = super::workers::pending::remote_states(store, &ledger);
    Ok(Comparison {
        group,
        proposals,
        ranking,
        remote,
    })
}

fn newest_group_on_head<'l>(
    store: &Store,
    ledger: &'l Ledger,
) -> Result<Vec<&'l PlanRecord>, Problem> {
    let head = store.resolve_commit("HEAD").map_err(|e| e.to_problem())?;
    let group = ledger
        .records
        .iter()
        .rev()
        .filter(|r| ledger.is_on(r, head))
        .find_map(|r| r.group.clone())
        .ok_or_else(|| {
            Problem::new(
                Code::PlanNotFound,
                "no group of proposals on HEAD; make one with git papayu plan \"goal\" --provider a,b or --samples N, or name plans to compare",
            )
        })?;
    Ok(members(ledger, &group))
}

fn group_named<'l>(ledger: &'l Ledger, spec: &str) -> Result<Vec<&'l PlanRecord>, Problem> {
    let spec = spec.trim().to_ascii_lowercase();
    let mut groups: Vec<&str> = ledger
        .records
        .iter()
        .filter_map(|r| r.group.as_deref())
        .filter(|g| g.starts_with(&spec))
        .collect();
    groups.sort_unstable();
    groups.dedup();
    match groups.as_slice() {
        [one] => Ok(members(ledger, one)),
        [] => Err(Problem::new(
            Code::PlanNotFound,
            format!("no group {spec}; git papayu list --json shows each plan's group"),
        )),
        many => Err(Problem::new(
            Code::PlanAmbiguous,
            format!(
                "group {spec} is ambiguous ({}); give more digits",
                many.join(", ")
            ),
        )),
    }
}

/// The plans of a group, oldest first.
fn members<'l>(ledger: &'l Ledger, group: &str) -> Vec<&'l PlanRecord> {
    ledger
        .records
        .iter()
        .filter(|r| r.group.as_deref() == Some(group))
        .collect()
}

/// Each candidate's votes: how many candidates (not discarded nor refined) are the same answer.
fn count_votes(proposals: &mut [Proposal]) {
    let candidate = |p: &Proposal| !matches!(p.status, Status::Discarded | Status::Refined);
    let answers: Vec<Option<String>> = proposals
        .iter()
        .map(|p| p.answer.clone().filter(|_| candidate(p)))
        .collect();
    for p in proposals.iter_mut() {
        p.votes = match &p.answer {
            Some(answer) => answers
                .iter()
                .flatten()
                .filter(|a| *a == answer)
                .count()
                .max(1),
            None => 1,
        };
    }
}

/// The lines the plan changes at its base and its answer for votes (nothing when it no longer
/// builds there).
fn diffstat(store: &Store, record: &PlanRecord) -> (Diffstat, Option<String>) {
    let built = store.commit_tree(record.base).ok().and_then(|tree| {
        let options = BuildOptions {
            write: false,
            read: None,
        };
        executor::build(store, tree, &record.plan, &options).ok()
    });
    let Some(built) = built else {
        return (Diffstat::default(), None);
    };
    let mut stat = Diffstat {
        files: built.changes.len(),
        ..Diffstat::default()
    };
    for change in &built.changes {
        let text = |side: Option<&std::sync::Arc<[u8]>>| {
            side.map(|b| String::from_utf8_lossy(b).into_owned())
                .unwrap_or_default()
        };
        let (old, new) = (text(change.old.as_ref()), text(change.new.as_ref()));
        let lines = |t: &str| t.split_inclusive('\n').count();
        match change.kind {
            ChangeKind::Added => stat.insertions += lines(&new),
            ChangeKind::Deleted => stat.deletions += lines(&old),
            ChangeKind::Modified => {
                for hunk in diffy::create_patch(&old, &new).hunks() {
                    for line in hunk.lines() {
                        match line {
                            diffy::Line::Insert(_) => stat.insertions += 1,
                            diffy::Line::Delete(_) => stat.deletions += 1,
                            diffy::Line::Context(_) => {}
                        }
                    }
                }
            }
        }
    }
    (stat, Some(super::votes::answer(&built.changes)))
}

/// The ranking: a proposal that weakens tests last of all, a check that did not run its tests
/// last of the rest, then breaks ascending, a reproduction that passes before one that still
/// fails, fixes descending, still failing ascending, check
/// status, votes descending (how many samples reached the same answer), lines changed
/// ascending, then the older plan first. Discarded and refined proposals are left out: they are
/// no longer candidates.
pub fn rank(proposals: &[Proposal]) -> Vec<String> {
    let mut ranked: Vec<&Proposal> = proposals
        .iter()
        .filter(|p| !matches!(p.status, Status::Discarded | Status::Refined))
        .collect();
    ranked.sort_by_key(|p| {
        let c = &p.check;
        (
            c.weakens_tests(),
            c.status == CheckStatus::DidNotRun,
            c.breaks.unwrap_or(0),
            c.reproduction == Some(false),
            std::cmp::Reverse(c.fixes.unwrap_or(0)),
            c.still_failing.unwrap_or(0),
            c.status,
            std::cmp::Reverse(p.votes),
            p.diffstat.lines(),
            p.record.created_at,
            p.record.id.clone(),
        )
    });
    ranked.into_iter().map(|p| p.record.id.clone()).collect()
}

/// The commit a proposal's branch points at, when it has one.
pub fn tip(store: &Store, proposal: &Proposal) -> Option<Oid> {
    let branch = proposal.branch.as_deref()?;
    store
        .ref_value(&format!("refs/heads/{branch}"))
        .ok()
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proposal(id: char, check: Verdict, lines: usize, status: Status) -> Proposal {
        let record: PlanRecord = serde_json::from_value(serde_json::json!({
            "id": id.to_string().repeat(40), "goal": "g", "base": "1".repeat(40),
            "created_at": 1, "provider": "p", "trace_id": "t", "schema_version": 2,
            "schema_hash": "h", "protocol": 2, "actions": []
        }))
        .unwrap();
        Proposal {
            record,
            status,
            branch: None,
            check,
            claims: Vec::new(),
            diffstat: Diffstat {
                files: 1,
                insertions: lines,
                deletions: 0,
            },
            answer: None,
            votes: 1,
        }
    }

    fn verdict(status: CheckStatus, counts: Option<(u32, u32, u32)>) -> Verdict {
        Verdict {
            status,
            fixes: counts.map(|c| c.0),
            breaks: counts.map(|c| c.1),
            still_failing: counts.map(|c| c.2),
            ..Verdict::unchecked()
        }
    }

    #[test]
    fn breaks_then_fixes_then_still_failing_then_status_then_size() {
        let all = vec![
            proposal(
                'a',
                verdict(CheckStatus::Failed, Some((1, 1, 0))),
                1,
                Status::Failed,
            ),
            proposal(
                'b',
                verdict(CheckStatus::Failed, Some((0, 0, 1))),
                1,
                Status::Failed,
            ),
            proposal(
                'c',
                verdict(CheckStatus::Passed, Some((1, 0, 0))),
                30,
                Status::Applied,
            ),
            proposal(
                'd',
                verdict(CheckStatus::Passed, Some((1, 0, 0))),
                3,
                Status::Applied,
            ),
            proposal('e', Verdict::unchecked(), 1, Status::Proposed),
            proposal(
                'f',
                verdict(CheckStatus::Passed, Some((1, 0, 0))),
                1,
                Status::Discarded,
            ),
            proposal('g', verdict(CheckStatus::Failed, None), 1, Status::Failed),
            proposal(
                'h',
                Verdict::did_not_run("ERROR t.py - SyntaxError".into()),
                1,
                Status::Failed,
            ),
        ];
        let ids: Vec<char> = rank(&all)
            .iter()
            .map(|id| id.chars().next().unwrap())
            .collect();
        assert_eq!(ids, vec!['d', 'c', 'e', 'g', 'b', 'a', 'h']);
    }

    #[test]
    fn group_ids_are_told_from_plan_ids() {
        let id = new_group_id();
        assert!(is_group_spec(&id) && id.len() == 11, "{id}");
        assert!(is_group_spec("g1a2"));
        assert!(!is_group_spec("1a2b3c") && !is_group_spec("g") && !is_group_spec("gx12"));
    }
}
