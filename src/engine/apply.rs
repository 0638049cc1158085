//! Applying a stored plan: one commit, built from the object database, on a new
//! `papayu/<slug>-<id>` branch — after the user's check passed in a worktree, when there is one.
//!
//! The branch only comes into existence once the commit has passed its check, and it is created
//! in the same compare-and-swap as the plan's `applied` event and the operation-log entry; so a
//! failed check, a base mismatch, or a kill at any moment leaves every ref as it was.

use super::attribution::Attribution;
use super::baseline::{self, Sources};
use super::check::{self, CheckChoice, CheckReport, CheckSettings};
use super::results::{Observed, Reader};
use crate::codes::{Code, Problem, Problems};
use crate::context::mask_secrets;
use crate::executor::{self, BuildOptions, FileChange};
use crate::store::oplog::{self, OpKind, Pending};
use crate::store::records::{Event, EventKind, Ledger, PlanRecord, Status};
use crate::store::refs::RefChange;
use crate::store::worktree::{self, SlotKind};
use crate::store::{Oid, Store, StoreError};
use crate::verdict::{self, BaseRun, Verdict};

pub struct ApplyRequest {
    /// Plan id prefix or proposal branch; `None` = the newest plan on `HEAD`.
    pub plan: Option<String>,
    /// Apply onto this revision instead of the plan's base.
    pub onto: Option<String>,
    pub check: CheckChoice,
    /// How the check runs: sandbox, network, time limit.
    pub settings: CheckSettings,
    /// Where per-test results come from besides the check's output.
    pub sources: Sources,
    /// The trailer naming the assistance (`papayu.attribution`).
    pub attribution: Attribution,
}

/// How an apply ended (failures that leave nothing behind are `Err`).
pub enum Outcome {
    Applied {
        record: PlanRecord,
        branch: String,
        commit: Oid,
        /// The commit it was applied onto (the base, a rewrite of it, or `--onto`).
        onto: Oid,
        changes: Vec<FileChange>,
        check: Option<CheckReport>,
        /// The check judged against the base; `None` when no check ran.
        verdict: Option<Verdict>,
    },
    /// The plan changes nothing at its target: there is nothing to commit.
    NothingToApply { record: PlanRecord },
    /// The check failed: no branch, a `failed` event on the plan.
    CheckFailed {
        record: PlanRecord,
        report: CheckReport,
        verdict: Verdict,
        /// The check failed the same way on the base (see [`fails_like_base`]): the check
        /// command, not the plan, is the likely culprit.
        like_base: bool,
    },
}

pub fn apply(store: &Store, request: &ApplyRequest) -> Result<Outcome, Problems> {
    apply_with(store, request, &mut |_| {})
}

/// What an apply reports while it runs its check.
pub enum Progress<'a> {
    /// Every check worktree is busy with another process's check: waiting for one (of this
    /// many) to be freed.
    WaitingForSlot(usize),
    /// Output of the check, as it arrives.
    Output(&'a [u8]),
    /// The check is about to run on the base (the differential check's other half).
    CheckingBase,
    /// This many tests changed their result: the proposal and the base run again, to tell a
    /// flaky test from a real change.
    CheckingFlaky(usize),
    /// The base run came from the cache, sparing this many milliseconds.
    BaseCached(u64),
    /// No plan was named: which one was chosen, and why (one sentence).
    Chose(&'a str),
}

/// [`apply`], reporting the check's progress to `progress` as it happens.
pub fn apply_with(
    store: &Store,
    request: &ApplyRequest,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Outcome, Problems> {
    let (ledger, record, why) = super::find::find_explained(store, request.plan.as_deref())?;
    if let Some(why) = &why {
        progress(Progress::Chose(why));
    }
    refuse_reapply(store, &ledger, &record)?;
    // Notes can come from teammates or a hand edit: never trust that a stored plan was valid.
    crate::protocol::check_plan(&record.plan)?;
    // A fix made after a reproduction applies onto the reproduction's commit: its check runs
    // the reproduction's tests, against the base with them.
    let repro = super::repro::link(store, &record)?;
    let target = match (&request.onto, &repro) {
        (Some(rev), _) => store.resolve_commit(rev)?,
        (None, Some(link)) => link.commit,
        (None, None) => super::find::target_of(store, &ledger, &record)?,
    };
    let target_tree = store.commit_tree(target)?;
    let (built, new_tree) = build_onto(store, target_tree, &record)?;
    if new_tree == target_tree {
        return Ok(Outcome::NothingToApply { record });
    }
    // Chosen from the target's history before anything runs: never from a proposal.
    let check = check::resolve(store, &request.check, &request.settings, target)?;
    let commit = store.commit_for_user(
        target,
        new_tree,
        &commit_message(&record, request.attribution),
    )?;
    let branch = branch_name(&record);

    let mut report = None;
    let mut judged = None;
    if let Some(check) = check {
        let (result, mut verdict, base) = check_proposal(
            store,
            (target, commit),
            (&check, &built.changes),
            (&request.settings, &request.sources),
            &record.id,
            progress,
        )?;
        if let Some(link) = &repro {
            link.judge(&mut verdict, &built.changes);
        }
        if !verdict.kept() {
            record_failure(store, &record, target, commit, &result, &verdict)?;
            let like_base = fails_like_base(&base, &result, &verdict);
            return Ok(Outcome::CheckFailed {
                record,
                report: result,
                verdict,
                like_base,
            });
        }
        report = Some(result);
        judged = Some(verdict);
    }

    let mut event = Event::new(&record.id, EventKind::Applied);
    event.branch = Some(branch.clone());
    event.commit = Some(commit);
    event.check = judged.as_ref().map(|v| Box::new(shared(v)));
    let mut pending = Pending::new(
        OpKind::Apply,
        format!("apply {} as {branch}", record.short_id()),
    );
    pending.refs.push(RefChange::new(
        format!("refs/heads/{branch}"),
        None,
        Some(commit),
    ));
    pending.note_lines.push((record.base, event.to_line()));
    oplog::commit(store, &pending)?;
    Ok(Outcome::Applied {
        record,
        branch,
        commit,
        onto: target,
        changes: built.changes,
        check: report,
        verdict: judged,
    })
}

/// Builds `record`'s plan onto `target_tree`, writing what it makes; the build and its tree.
///
/// `plan` already wrote the plan's tree at its base (its preview): the plan is checked again
/// here, and when the result is exactly that tree (same id, computed from the edits) nothing is
/// written; otherwise (another target, a pruned preview) it is written now.
pub(crate) fn build_onto(
    store: &Store,
    target_tree: Oid,
    record: &PlanRecord,
) -> Result<(executor::Built, Oid), Problems> {
    let built = executor::build(
        store,
        target_tree,
        &record.plan,
        &BuildOptions {
            write: true,
            read: Some(record.context.as_slice()),
        },
    )?;
    let tree = built.tree.ok_or_else(|| {
        vec![Problem::new(
            Code::Git,
            "building the plan's tree wrote no tree",
        )]
    })?;
    Ok((built, tree))
}

/// Runs the check on the proposal's `commit` in a proposal slot, then — when the verdict needs
/// it — on the `target` it applies onto, and judges the one against the other. Tests whose
/// result flips when both are run again are flaky: named, never counted (see [`flaky`]). The
/// base run is returned too (empty when none was needed).
pub(crate) fn check_proposal(
    store: &Store,
    (target, commit): (Oid, Oid),
    (check, changes): (&check::ResolvedCheck, &[FileChange]),
    request: (&CheckSettings, &Sources),
    plan: &str,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<(CheckReport, Verdict, BaseRun), StoreError> {
    let (result, mut seen) = run_proposal(store, commit, check, request, plan, progress)?;
    // A check that passed without reporting its tests one by one is judged by its exit status
    // alone: a base run would change nothing, and is not made.
    let mut base = match seen.tests.is_empty() && result.passed {
        true => BaseRun::default(),
        false => run_base(store, target, check, request, progress)?,
    };
    let mut passed = result.passed;
    let mut flaky = Vec::new();
    let suspects = newly_failing(&base, &seen);
    if !result.timed_out && !base.tests.is_empty() && !suspects.is_empty() {
        progress(Progress::CheckingFlaky(suspects.len()));
        let (_, again) = run_proposal(store, commit, check, request, plan, progress)?;
        let (base_again, _) = baseline::run_now(store, target, check, request, &mut |event| {
            if let baseline::BaseRunEvent::Output(chunk) = event {
                progress(Progress::Output(chunk));
            }
        })?;
        flaky = self::flaky(&suspects, (&base, &seen), (&base_again, &again));
        for name in &flaky {
            base.tests.remove(name);
            seen.tests.remove(name);
        }
        // Failed by flaky tests alone: what is left passed.
        passed = passed || (!flaky.is_empty() && seen.tests.values().all(|&ok| ok));
    }
    let mut verdict = verdict::judge(&base, passed, &seen);
    if result.timed_out {
        verdict.status = verdict::CheckStatus::Failed;
    }
    verdict.flaky = flaky.into_iter().take(verdict::NAMES_KEPT).collect();
    let failing: Vec<String> = base
        .tests
        .iter()
        .filter(|(_, passed)| !**passed)
        .map(|(name, _)| name.clone())
        .collect();
    verdict.weakens = super::weaken::weakened(changes, &failing)
        .iter()
        .map(super::weaken::Weakened::line)
        .take(verdict::NAMES_KEPT)
        .collect();
    Ok((result, verdict, base))
}

/// The check run on the proposal's `commit` in a proposal slot: its report and what it showed.
fn run_proposal(
    store: &Store,
    commit: Oid,
    check: &check::ResolvedCheck,
    (settings, sources): (&CheckSettings, &Sources),
    plan: &str,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<(CheckReport, Observed), StoreError> {
    let slot = worktree::acquire(store, SlotKind::Proposal, &mut |n| {
        progress(Progress::WaitingForSlot(n))
    })?;
    let mut reader = Reader::default();
    let result = check::run(
        store,
        &slot,
        commit,
        (check, sources.junit.as_deref()),
        plan,
        settings,
        &mut |chunk: &[u8]| {
            reader.push(chunk);
            progress(Progress::Output(chunk));
        },
    )?;
    Ok((result, sources.observed(&slot, reader)))
}

/// The tests that newly fail with the proposal: they passed at the base, or are new. These are
/// what a flaky test would fake, and what is run again (a fix is not: a second run of every
/// fixing proposal would double the cost of the common case).
fn newly_failing(base: &BaseRun, now: &Observed) -> Vec<String> {
    now.tests
        .iter()
        .filter(|(name, ok)| !**ok && base.tests.get(*name) != Some(&false))
        .map(|(name, _)| name.clone())
        .collect()
}

/// Of the `suspects`, the tests whose result flipped between two runs of the same tree: on the
/// proposal (first and second run) or on the base (cached run and a new one).
fn flaky(
    suspects: &[String],
    (base, now): (&BaseRun, &Observed),
    (base_again, now_again): (&BaseRun, &Observed),
) -> Vec<String> {
    let flipped = |first: Option<&bool>, second: Option<&bool>| matches!((first, second), (Some(a), Some(b)) if a != b);
    suspects
        .iter()
        .filter(|name| {
            flipped(now.tests.get(*name), now_again.tests.get(*name))
                || flipped(base.tests.get(*name), base_again.tests.get(*name))
        })
        .cloned()
        .collect()
}

/// Whether a failed check failed on the base the same way: it ran its tests on neither (or
/// reported none on either with the same exit status), or it failed there with the same exit
/// status while the proposal fixed and broke nothing. A proposal is not to blame then; the
/// check command may be wrong (a missing tool, a collection error in every run).
pub fn fails_like_base(base: &BaseRun, report: &CheckReport, verdict: &Verdict) -> bool {
    if base.passed || report.timed_out || base.exit_code != report.exit_code {
        return false;
    }
    match verdict.status {
        verdict::CheckStatus::DidNotRun => base.not_run.is_some() || base.tests.is_empty(),
        verdict::CheckStatus::Failed => {
            base.not_run.is_none() && !verdict.breaks_any() && verdict.fixes.unwrap_or(0) == 0
        }
        _ => false,
    }
}

/// The check's run on the base, from the cache or run now in a base slot.
fn run_base(
    store: &Store,
    target: Oid,
    check: &check::ResolvedCheck,
    request: (&CheckSettings, &Sources),
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<BaseRun, StoreError> {
    let (run, cached) =
        baseline::base_run(store, target, check, request, &mut |event| match event {
            baseline::BaseRunEvent::Starting => progress(Progress::CheckingBase),
            baseline::BaseRunEvent::Output(chunk) => progress(Progress::Output(chunk)),
        })?;
    if cached {
        progress(Progress::BaseCached(run.millis));
    }
    Ok(run)
}

/// A plan is applied at most once at a time: re-applying an applied plan would only produce a
/// second identical branch, and re-applying a merged one a branch that duplicates what it was
/// merged into (and its status would go back from `merged` to `applied`).
fn refuse_reapply(store: &Store, ledger: &Ledger, record: &PlanRecord) -> Result<(), Problem> {
    let status = ledger.status(&record.id);
    if status == Status::Merged {
        return Err(merged_already(ledger, record));
    }
    if status == Status::Applied {
        let branch = ledger.branch(&record.id).unwrap_or("its branch");
        let exists = store
            .ref_value(&format!("refs/heads/{branch}"))
            .ok()
            .flatten()
            .is_some();
        if exists {
            return Err(Problem::new(
                Code::PlanState,
                format!(
                    "plan {} is already {} as {branch}; review it with git papayu show, or discard it first",
                    record.short_id(),
                    status.as_str()
                ),
            ));
        }
    }
    Ok(())
}

/// `nothing to apply: plan X is merged (into main as abc1234)`, and what to do instead.
fn merged_already(ledger: &Ledger, record: &PlanRecord) -> Problem {
    let merge = ledger
        .events_of(&record.id)
        .iter()
        .rev()
        .find(|e| e.event == EventKind::Merged);
    let into = merge
        .and_then(|e| e.detail.as_deref())
        .and_then(|d| d.strip_prefix("into "))
        .map(|r| r.trim_start_matches("refs/heads/"));
    let place = match (into, merge.and_then(|e| e.commit)) {
        (Some(into), Some(commit)) => format!(" (into {into} as {})", crate::store::short(commit)),
        (Some(into), None) => format!(" (into {into})"),
        _ => String::new(),
    };
    let id = record.short_id();
    Problem::new(
        Code::PlanState,
        format!("nothing to apply: plan {id} is merged{place}"),
    )
    .with_hint(format!(
        "make a new plan with git papayu plan \"goal\", or see this one with git papayu show {id}"
    ))
}

fn record_failure(
    store: &Store,
    record: &PlanRecord,
    target: Oid,
    commit: Oid,
    result: &CheckReport,
    verdict: &Verdict,
) -> Result<(), StoreError> {
    let mut event = Event::new(&record.id, EventKind::Failed);
    event.commit = Some(commit);
    event.exit_code = result.exit_code;
    event.check = Some(Box::new(shared(verdict)));
    // Notes are shared: a token the check printed or was given must not travel with them.
    event.output_tail = Some(mask_secrets(&result.output_tail));
    let how = if result.timed_out {
        "timed out"
    } else {
        "failed"
    };
    event.detail = Some(mask_secrets(&format!(
        "check `{}` {how} onto {target}",
        result.command
    )));
    let mut pending = Pending::new(
        OpKind::Apply,
        format!("apply {} (check failed)", record.short_id()),
    );
    pending.note_lines.push((record.base, event.to_line()));
    // The commit that failed stays reachable, so `git show <commit>` from the event works.
    pending.keep.push(commit);
    oplog::commit(store, &pending).map(|_| ())
}

/// The verdict as the shared notes keep it: its test names masked, since a parametrized test's
/// name carries its values (`test_db[postgres://admin:pw@db/x]`) and notes travel to teammates.
pub(crate) fn shared(verdict: &Verdict) -> Verdict {
    let masked = |names: &[String]| names.iter().map(|n| mask_secrets(n)).collect();
    Verdict {
        fixed: masked(&verdict.fixed),
        broken: masked(&verdict.broken),
        failing: masked(&verdict.failing),
        added_failing: masked(&verdict.added_failing),
        reason: verdict.reason.as_deref().map(mask_secrets),
        weakens: masked(&verdict.weakens),
        flaky: masked(&verdict.flaky),
        ..verdict.clone()
    }
}

/// The commit message: a subject of at most [`SUBJECT_MAX`] characters, the whole summary in the
/// body when the subject had to be cut, then the trailers that tie the commit to its plan and
/// say who assisted (see [`super::attribution`]).
pub fn commit_message(record: &PlanRecord, attribution: Attribution) -> String {
    let summary = record
        .plan
        .summary
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .unwrap_or_else(|| format!("papayu: {}", record.goal_line()));
    let first = summary.lines().next().unwrap_or("").trim();
    let subject = subject_line(first);
    let mut message = if subject == first {
        summary.clone()
    } else {
        format!("{subject}\n\n{summary}")
    };
    message.push_str(&format!(
        "\n\nPapayu-Plan: {}\nPapayu-Trace: {}\n",
        record.id, record.trace_id
    ));
    if let Some(trailer) = attribution.trailer(record) {
        message.push_str(&trailer);
        message.push('\n');
    }
    message
}

/// The longest subject git's tools show without cutting it, as `git log --oneline` users expect.
pub const SUBJECT_MAX: usize = 72;

/// `line` cut to [`SUBJECT_MAX`] characters at the last space that fits (mid-word only when a
/// single word is longer), with trailing punctuation and spaces dropped.
fn subject_line(line: &str) -> &str {
    if line.chars().count() <= SUBJECT_MAX {
        return line;
    }
    let limit = line
        .char_indices()
        .nth(SUBJECT_MAX)
        .map_or(line.len(), |(i, _)| i);
    let cut = if line[limit..].starts_with(' ') {
        &line[..limit]
    } else {
        match line[..limit].rfind(' ') {
            Some(space) if space > 0 => &line[..space],
            _ => &line[..limit],
        }
    };
    cut.trim_end_matches([' ', ',', ';', ':', '-'])
}

/// `papayu/<slug>-<id10>`, where the slug comes from the goal: its letters and digits in any
/// script (a Cyrillic goal gives a Cyrillic slug), lowercased, everything else folded to single
/// dashes. Letters and digits never break git's ref rules, so the name is always valid.
pub fn branch_name(record: &PlanRecord) -> String {
    let mut slug = String::new();
    let mut count = 0;
    for c in record.goal.chars() {
        if c.is_alphanumeric() {
            slug.extend(c.to_lowercase());
            count += 1;
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
            count += 1;
        }
        if count >= 40 {
            break;
        }
    }
    let slug = slug.trim_matches('-');
    let slug = if slug.is_empty() { "plan" } else { slug };
    match record.kind {
        Some(crate::store::records::PlanKind::Repro) => {
            format!("papayu/repro-{slug}-{}", record.short_id())
        }
        None => format!("papayu/{slug}-{}", record.short_id()),
    }
}

/// The problem a failed check is reported with: what happened (what it broke, when it broke
/// tests that pass at the base; the tests it added that fail; that the base fails alike, when
/// `like_base`), and as its hint the next command to run.
pub fn check_failure(
    report: &CheckReport,
    verdict: &Verdict,
    plan: &str,
    like_base: bool,
) -> Problem {
    let failed = Failed {
        command: &report.command,
        plan,
        exit: report
            .exit_code
            .map_or_else(|| "a signal".to_string(), |c| format!("exit {c}")),
        rolled_back: format!("no branch was created and plan {plan} is marked failed"),
        anyway: format!("git papayu apply {plan} --no-check"),
    };
    if report.timed_out {
        return failed.timed_out(report.seconds);
    }
    failed
        .environment(report, verdict, like_base)
        .unwrap_or_else(|| failed.by_the_plan(verdict))
}

/// A failed check's problem, as its parts are worded.
struct Failed<'a> {
    command: &'a str,
    plan: &'a str,
    /// `exit 1`, or `a signal`.
    exit: String,
    rolled_back: String,
    /// The command that keeps the plan anyway.
    anyway: String,
}

impl Failed<'_> {
    /// The check ran past its time limit.
    fn timed_out(&self, seconds: f64) -> Problem {
        let Failed {
            command,
            plan,
            rolled_back,
            ..
        } = self;
        // Twice the time it had, in whole seconds, as the next try.
        let longer = (seconds * 2.0).ceil().max(1.0);
        Problem::new(
            Code::CheckTimeout,
            format!(
                "check `{command}` ran past its time limit ({seconds:.0}s: --check-timeout, or git config papayu.checkTimeout) and was killed with everything it started; {rolled_back}"
            ),
        )
        .with_hint(format!(
            "give it longer with git papayu apply {plan} --check-timeout {longer:.0}"
        ))
    }

    /// A check that failed for a reason of its own, not the plan's: the sandbox denied it, a
    /// toolchain was hidden from it, it fails the same way on the base, or it ran no tests.
    fn environment(
        &self,
        report: &CheckReport,
        verdict: &Verdict,
        like_base: bool,
    ) -> Option<Problem> {
        let Failed {
            command,
            plan,
            exit,
            rolled_back,
            anyway,
        } = self;
        if let Some(line) = report.sandbox.denial(&report.output_tail) {
            return Some(Problem::new(
                Code::CheckFailed,
                format!(
                    "check `{command}` failed ({exit}), denied by the sandbox: {line}; {rolled_back}; see papayu.checkWritable (docs/security.md)"
                ),
            )
            .with_hint(format!(
                "let the check write there with git config --add papayu.checkWritable DIR, then git papayu apply {plan}"
            )));
        }
        if let Some((what, fix)) = toolchain_hint(&report.output_tail) {
            return Some(
                Problem::new(
                    Code::CheckFailed,
                    format!("check `{command}` failed ({exit}): {what}; {rolled_back}"),
                )
                .with_hint(format!("{fix}, then git papayu apply {plan}")),
            );
        }
        if like_base {
            let how = match &verdict.reason {
                Some(why) => format!("did not run its tests ({exit}): {why}"),
                None => format!("failed ({exit})"),
            };
            return Some(Problem::new(
                Code::CheckFailed,
                format!(
                    "check `{command}` {how}, and fails the same way on the base without the plan; {rolled_back}"
                ),
            )
            .with_hint(format!(
                "is `{command}` the right check command? Run it by hand; once it runs, check the plan again with git papayu apply {plan} --check \"CMD\""
            )));
        }
        if verdict.status == verdict::CheckStatus::DidNotRun {
            let why = verdict.reason.as_deref().unwrap_or("no test results");
            return Some(Problem::new(
                Code::CheckFailed,
                format!("check `{command}` did not run its tests ({exit}): {why}; {rolled_back}"),
            )
            .with_hint(format!(
                "if the check command is wrong, check again with git papayu apply {plan} --check \"CMD\"; else ask for a fix from where it failed with git papayu refine {plan} \"make the tests run again\", or keep it anyway with {anyway}"
            )));
        }
        None
    }

    /// A check the plan failed: the tests it breaks or adds failing, else the counts.
    fn by_the_plan(&self, verdict: &Verdict) -> Problem {
        let Failed {
            command,
            plan,
            exit,
            rolled_back,
            anyway,
        } = self;
        if !verdict.breaks_any() {
            let counts = match verdict.fixes {
                Some(_) => format!(" ({})", verdict.counts()),
                None => String::new(),
            };
            return Problem::new(
                Code::CheckFailed,
                format!("check `{command}` failed ({exit}){counts}; {rolled_back}"),
            )
            .with_hint(format!(
                "ask for a fix from where it failed with git papayu refine {plan} \"make the check pass\" (or apply with --rounds N), or keep it anyway with {anyway}"
            ));
        }
        let broken = verdict.broken_passing();
        let mut what = Vec::new();
        if !broken.is_empty() {
            what.push(format!(
                "the plan breaks tests that pass at the base: {}",
                broken.join(", ")
            ));
        }
        if !verdict.added_failing.is_empty() {
            let tests = match verdict.added_failing.len() {
                1 => "a failing test",
                _ => "failing tests",
            };
            what.push(format!(
                "it adds {tests}: {}",
                verdict.added_failing.join(", ")
            ));
        }
        let feedback = match broken.first() {
            Some(name) => format!("keep {name} passing"),
            None => format!(
                "make {} pass",
                verdict
                    .added_failing
                    .first()
                    .map_or("the new tests", String::as_str)
            ),
        };
        Problem::new(
            Code::CheckFailed,
            format!(
                "check `{command}` failed ({exit}) and {}; {}; {rolled_back}",
                what.join(", and "),
                verdict.counts()
            ),
        )
        .with_hint(format!(
            "ask for a fix from where it failed with git papayu refine {plan} \"{feedback}\" (or apply with --rounds N), or keep it anyway with {anyway}"
        ))
    }
}

/// What happened and what to change, when the check's output says the sandbox hid a toolchain
/// from it.
fn toolchain_hint(output: &str) -> Option<(&'static str, &'static str)> {
    if output.contains("rustup could not choose a version")
        || output.contains("no default toolchain configured")
    {
        return Some((
            "the check could not find your Rust toolchain",
            "set RUSTUP_HOME and CARGO_HOME where it lives, or name the variables it needs with git config --add papayu.checkEnv NAME",
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{SUBJECT_MAX, subject_line};

    #[test]
    fn a_subject_is_cut_at_a_word_and_never_inside_a_character() {
        assert_eq!(subject_line("short"), "short");
        let words = "слово ".repeat(20);
        let cut = subject_line(words.trim_end());
        assert!(cut.chars().count() <= SUBJECT_MAX);
        assert!(cut.ends_with("слово"), "{cut}");
        let one = "x".repeat(100);
        assert_eq!(subject_line(&one).len(), SUBJECT_MAX);
        let exact = format!("{} tail", "y".repeat(SUBJECT_MAX));
        assert_eq!(subject_line(&exact), "y".repeat(SUBJECT_MAX));
    }
}
