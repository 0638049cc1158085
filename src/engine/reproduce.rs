//! Running a reproduction on its base and recording what it showed (see [`super::repro`]):
//! the `papayu/repro-…` branch and its evidence when a test fails there, a `failed` event saying
//! why when none does.

use super::apply::{self, Progress};
use super::attribution::Attribution;
use super::baseline::Sources;
use super::check::{CheckSettings, ResolvedCheck};
use super::refine::{FAILURE_OUTPUT_BUDGET, trim_middle};
use super::repro::{failure_lines, instruction, only_tests};
use crate::codes::Problems;
use crate::context::mask_secrets;
use crate::executor::FileChange;
use crate::store::oplog::{self, OpKind, Pending};
use crate::store::records::{Event, EventKind, PlanRecord};
use crate::store::refs::RefChange;
use crate::store::{Oid, Store};
use crate::verdict::{CheckStatus, Verdict};

/// What the model is told when its reproduction did not reproduce (one repair round).
pub fn instruction_again(goal: &str, check: &str, (why, output): (&str, &str)) -> String {
    let mut text = format!(
        "{}\n\nThe test you wrote does not reproduce the problem: {why}.",
        instruction(goal, check),
    );
    if !output.is_empty() {
        text.push_str(&format!(
            " Its output (trimmed):\n{}",
            trim_middle(output, FAILURE_OUTPUT_BUDGET)
        ));
    }
    text
}

/// A reproduction that fails at the base, on its own branch.
#[derive(Debug, Clone)]
pub struct Reproduced {
    pub record: PlanRecord,
    pub branch: String,
    pub commit: Oid,
    pub verdict: Verdict,
    /// The tests that fail at the base.
    pub tests: Vec<String>,
    /// Each failing test with the first line of its failure, masked.
    pub evidence: Vec<String>,
    /// The test files as the reproduction leaves them.
    pub changes: Vec<FileChange>,
}

/// A reproduction that reproduced nothing: why, in a few words, and the check's output.
#[derive(Debug, Clone)]
pub struct NotReproduced {
    pub record: PlanRecord,
    pub why: String,
    pub output_tail: String,
}

pub enum Tried {
    Reproduces(Box<Reproduced>),
    DoesNotReproduce(Box<NotReproduced>),
}

/// Runs a stored reproduction plan on its base: builds it, runs the check against the base,
/// and records the outcome as one operation — an `applied` event and the `papayu/repro-…`
/// branch when it reproduces, a `failed` event (its commit kept) when it does not.
pub fn run(
    store: &Store,
    record: &PlanRecord,
    check: &ResolvedCheck,
    (settings, sources): (&CheckSettings, &Sources),
    attribution: Attribution,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Tried, Problems> {
    only_tests(&record.plan)?;
    let base = record.base;
    let (built, tree) = apply::build_onto(store, store.commit_tree(base)?, record)?;
    let commit = store.commit_for_user(base, tree, &apply::commit_message(record, attribution))?;
    let (report, mut verdict, _) = apply::check_proposal(
        store,
        (base, commit),
        (check, &built.changes),
        (settings, sources),
        &record.id,
        progress,
    )?;
    let output_tail = mask_secrets(&report.output_tail);
    let tests: Vec<String> = match (verdict.status, verdict.fixes) {
        (CheckStatus::DidNotRun, _) => Vec::new(),
        (_, Some(_)) => verdict.broken.clone(),
        // The base reported no test one by one (a project with no tests yet): every test the
        // reproduction's run reports failing is its own.
        (_, None) => super::results::from_output(report.output_tail.as_bytes())
            .into_iter()
            .filter(|(_, passed)| !passed)
            .map(|(name, _)| name)
            .take(crate::verdict::NAMES_KEPT)
            .collect(),
    };
    if tests.is_empty() {
        let why = not_reproduced(&verdict);
        let mut event = Event::new(&record.id, EventKind::Failed);
        event.commit = Some(commit);
        event.exit_code = report.exit_code;
        event.check = Some(Box::new(apply::shared(&verdict)));
        event.output_tail = Some(output_tail.clone());
        event.detail = Some(format!("does not reproduce: {}", mask_secrets(&why)));
        let mut pending = Pending::new(
            OpKind::Apply,
            format!("reproduce {} (does not reproduce)", record.short_id()),
        );
        pending.note_lines.push((base, event.to_line()));
        pending.keep.push(commit);
        oplog::commit(store, &pending)?;
        return Ok(Tried::DoesNotReproduce(Box::new(NotReproduced {
            record: record.clone(),
            why,
            output_tail,
        })));
    }
    if verdict.broken.is_empty() {
        // Found without a base to judge against: they are new tests that fail.
        verdict.broken = tests.clone();
        verdict.added_failing = tests.clone();
    }
    let evidence = failure_lines(&report.output_tail, &tests);
    let branch = apply::branch_name(record);
    let mut event = Event::new(&record.id, EventKind::Applied);
    event.branch = Some(branch.clone());
    event.commit = Some(commit);
    event.check = Some(Box::new(apply::shared(&verdict)));
    event.evidence = evidence.clone();
    let mut pending = Pending::new(
        OpKind::Apply,
        format!("reproduce {} as {branch}", record.short_id()),
    );
    pending.refs.push(RefChange::new(
        format!("refs/heads/{branch}"),
        None,
        Some(commit),
    ));
    pending.note_lines.push((base, event.to_line()));
    oplog::commit(store, &pending)?;
    Ok(Tried::Reproduces(Box::new(Reproduced {
        record: record.clone(),
        branch,
        commit,
        verdict,
        tests,
        evidence,
        changes: built.changes,
    })))
}

/// Why a reproduction's check reproduced nothing, in a few words.
fn not_reproduced(verdict: &Verdict) -> String {
    match (&verdict.status, &verdict.reason, verdict.fixes) {
        (CheckStatus::DidNotRun, Some(reason), _) => format!("its tests did not run ({reason})"),
        (CheckStatus::DidNotRun, None, _) => "its tests did not run".to_string(),
        (_, _, None) => {
            "the check reported no per-test results, so no failing test could be named".to_string()
        }
        _ => "every test it adds or changes passes at the base".to_string(),
    }
}

/// The most characters of one reproduction file shown to a fix's model.
pub const BRIEF_FILE_BUDGET: usize = 6000;

/// What a fix's model is told of the reproduction: its files and what fails.
pub fn brief(reproduced: &Reproduced) -> String {
    let mut text = format!(
        "A test that reproduces this problem was written ({}); it fails now:\n{}\nMake it pass without changing it. The test files, as the fix will be checked with them:",
        reproduced
            .changes
            .iter()
            .map(|c| c.path.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        reproduced.evidence.join("\n")
    );
    for change in &reproduced.changes {
        let content = change
            .new
            .as_deref()
            .map(String::from_utf8_lossy)
            .unwrap_or_default();
        text.push_str(&format!(
            "\n--- {} ---\n{}",
            change.path,
            trim_middle(&content, BRIEF_FILE_BUDGET)
        ));
    }
    text
}
