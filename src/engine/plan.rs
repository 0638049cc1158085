//! Making a plan, in two steps that the plan loop and `--response` share.
//!
//! - [`check_answer`] reads a model's answer, validates it and dry-runs it on the base tree
//!   **without writing anything**: it returns a checked [`Candidate`] or every problem, which is
//!   exactly what a repair round sends back to the model.
//! - [`store_plans`] records one or several candidates (with their [`Provenance`]) as one
//!   undoable operation: a preview commit per plan and one note line each.
//!
//! A plan that is stored is known to apply at its base: the dry run is the same tree builder
//! that `apply` uses. The preview commit is kept reachable by the operation log; `diff` shows it
//! and `apply` reuses it once it has checked the plan again.

use crate::codes::{Code, Problem, Problems};
use crate::executor::{self, BuildOptions, Built, FileChange};
use crate::protocol::{self, Allowlist, Mode, ParseOptions, Parsed, Plan, ProtocolVersion};
use crate::store::oplog::{self, OpKind, Pending};
use crate::store::records::{Fingerprint, PlanRecord, PlanStats};
use crate::store::{Oid, Store, StoreError};

/// What the model was shown, which decides what it may change.
#[derive(Debug, Clone, Copy)]
pub enum Seen<'a> {
    /// A pasted answer: nobody knows what its author read, so the plan counts as having read
    /// exactly the existing files it touches.
    Pasted,
    /// The files sent to the model, as recorded in the context fingerprint.
    Sent(&'a [Fingerprint]),
}

/// How to check an answer.
#[derive(Debug, Clone)]
pub struct CheckOptions<'a> {
    /// Force a protocol version; `None` reads v2 when the answer is a valid v2 plan, else v1.
    pub protocol: Option<ProtocolVersion>,
    pub mode: Mode,
    pub normalize_eol: bool,
    pub allowlist: Option<Allowlist>,
    pub seen: Seen<'a>,
}

/// An answer that passed every check at its base, ready to be stored.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub base: Oid,
    pub plan: Plan,
    pub changes: Vec<FileChange>,
    /// Fingerprints of what the plan read: the files sent, or (pasted) the files it touches.
    pub context: Vec<Fingerprint>,
    pub warnings: Vec<String>,
}

/// Where a candidate came from. Timestamps and ids are passed in, never read from the clock
/// here, so a replayed answer stores the same record.
#[derive(Debug, Clone)]
pub struct Provenance {
    pub goal: String,
    pub provider: String,
    pub model: Option<String>,
    pub trace_id: String,
    /// Milliseconds since the epoch.
    pub created_at: i64,
    /// Hash of the schema actually sent to the model; `None` (pasted answers) records the
    /// normal schema of the plan's version.
    pub schema_hash: Option<String>,
    pub stats: Option<PlanStats>,
    /// The group of competing proposals of one `plan` command.
    pub group: Option<String>,
    /// Which of one provider's `--samples` answers this is.
    pub sample: Option<u32>,
    /// The conversation that led to the answer, encoded for the notes (see
    /// [`crate::trace::conversation::encode`]); `None` stores the plan without one.
    pub conversation: Option<String>,
    /// `Some(Repro)` for a reproduction test; `None` for a fix.
    pub kind: Option<crate::store::records::PlanKind>,
    /// The reproduction a fix is checked against (its plan id).
    pub repro: Option<String>,
}

/// A stored plan and its preview.
pub struct Planned {
    pub record: PlanRecord,
    pub changes: Vec<FileChange>,
    pub warnings: Vec<String>,
    /// The conversation's self-note (id and text), to append with the record.
    pub conversation: Option<(Oid, String)>,
}

/// The longest goal papayu takes, and the longest feedback a refinement takes, in bytes. A goal
/// says in a few sentences what a change is for; logs go with `--log` and files with the
/// context papayu gathers. Every goal is sent to a model and kept in the shared notes, so one
/// pasted by mistake (a whole log, a file) is refused before either, by the CLI and the MCP
/// server alike.
pub const MAX_GOAL_BYTES: usize = 16 * 1024;

/// Refuses a `what` (`goal`, `feedback`) longer than [`MAX_GOAL_BYTES`] with `ERR_GOAL_TOO_LONG`.
pub fn check_goal(what: &str, text: &str) -> Result<(), Problem> {
    if text.len() <= MAX_GOAL_BYTES {
        return Ok(());
    }
    Err(Problem::new(
        Code::GoalTooLong,
        format!(
            "the {what} is {} bytes; the limit is {MAX_GOAL_BYTES} bytes (16 KiB), and nothing was asked or stored",
            text.len()
        ),
    )
    .with_hint(format!(
        "say in a few sentences what the {what} is; pass a log with --log instead of pasting it, and leave files to the context papayu gathers"
    )))
}

/// Resolves `rev` to the commit a plan is made against.
pub fn resolve_base(store: &Store, rev: &str) -> Result<Oid, Problems> {
    store.resolve_commit(rev).map_err(|e| {
        let problem = match e {
            StoreError::BadRevision(_) if rev == "HEAD" => Problem::new(
                Code::BadRevision,
                "HEAD has no commit yet; commit something first or pass --base",
            ),
            other => other.to_problem(),
        };
        vec![problem]
    })
}

/// Validates `answer` and dry-runs it on `base`'s tree. Writes nothing to the repository.
pub fn check_answer(
    store: &Store,
    base: Oid,
    answer: &[u8],
    how: &CheckOptions<'_>,
) -> Result<Candidate, Problems> {
    let base_tree = store.commit_tree(base)?;
    let (parsed, built) = match how.protocol {
        Some(version) => attempt(store, base_tree, answer, how, version).map_err(|e| {
            let mut problems = Vec::from(e);
            let other = match version {
                ProtocolVersion::V1 => ProtocolVersion::V2,
                ProtocolVersion::V2 => ProtocolVersion::V1,
            };
            if attempt(store, base_tree, answer, how, other).is_ok() {
                hint(
                    &mut problems,
                    format!(
                        "the answer is a valid protocol v{0} plan: `--protocol {0}` reads it",
                        u8::from(other)
                    ),
                );
            } else if protocol::detect_protocol(answer).is_ok_and(|fits| fits == other) {
                hint(
                    &mut problems,
                    format!(
                        "the answer looks like protocol v{0}: try `--protocol {0}`",
                        u8::from(other)
                    ),
                );
            }
            problems
        })?,
        None => detect(store, base_tree, answer, how)?,
    };
    let mut plan = parsed.plan;
    if plan.mode.is_none() {
        plan.mode = Some(match how.mode {
            Mode::Plan => "plan".to_string(),
            Mode::Apply => "apply".to_string(),
        });
    }
    let context = match how.seen {
        Seen::Pasted => built.touched,
        Seen::Sent(sent) => {
            let problems = super::seen::check(store, base, &plan, sent);
            if !problems.is_empty() {
                return Err(problems);
            }
            sent.to_vec()
        }
    };
    Ok(Candidate {
        base,
        plan,
        changes: built.changes,
        context,
        warnings: parsed.warnings,
    })
}

/// Stores checked candidates as one operation (one undo step): a preview commit on each base
/// and one note line per plan. On any problem nothing is written.
pub fn store_plans(
    store: &Store,
    plans: Vec<(Candidate, Provenance)>,
) -> Result<Vec<Planned>, Problems> {
    let mut pending = Pending::new(OpKind::Plan, String::new());
    let mut stored = Vec::new();
    for (candidate, provenance) in plans {
        let planned = prepare(store, candidate, provenance)?;
        let line = planned.record.to_line();
        let base = planned.record.base;
        pending.note_lines.push((base, line));
        if let Some(note) = &planned.conversation {
            pending.note_lines.push(note.clone());
        }
        if let Some(preview) = planned.record.preview {
            pending.keep.push(preview);
        }
        stored.push(planned);
    }
    pending.description = describe(&stored);
    oplog::commit(store, &pending)?;
    Ok(stored)
}

/// Validates, dry-runs and stores a pasted answer (`plan --response`). On any problem nothing is
/// written.
pub fn make_pasted(
    store: &Store,
    base: Oid,
    answer: &[u8],
    how: &CheckOptions<'_>,
    provenance: Provenance,
) -> Result<Planned, Problems> {
    let candidate = check_answer(store, base, answer, how)?;
    if provenance.kind == Some(crate::store::records::PlanKind::Repro) {
        super::repro::only_tests(&candidate.plan)?;
    }
    let mut stored = store_plans(store, vec![(candidate, provenance)])?;
    Ok(stored.remove(0))
}

/// Builds the record and writes the plan's preview commit (an object no ref points at yet);
/// the caller records it in an operation.
pub fn prepare(
    store: &Store,
    candidate: Candidate,
    provenance: Provenance,
) -> Result<Planned, Problems> {
    let Candidate {
        base,
        plan,
        changes,
        context,
        warnings,
    } = candidate;
    let Provenance {
        goal,
        provider,
        model,
        trace_id,
        created_at,
        schema_hash,
        stats,
        group,
        sample,
        conversation,
        kind,
        repro,
    } = provenance;
    let conversation = conversation
        .map(|text| crate::store::notes::self_note(&text))
        .transpose()?;
    let base_tree = store.commit_tree(base)?;
    // The dry run's changes are the same as this build's: let them go first, so a large file
    // is not held twice over.
    drop(changes);
    let written = executor::build(
        store,
        base_tree,
        &plan,
        &BuildOptions {
            write: true,
            read: None,
        },
    )?;
    let changes = written.changes;
    let mut record = PlanRecord {
        // Named by its content once complete (see `PlanRecord::seal`).
        id: String::new(),
        // The goal travels with the notes to every teammate: a key typed into it must not.
        goal: crate::context::mask_secrets(&goal),
        base,
        created_at,
        provider,
        model,
        trace_id,
        schema_version: u8::from(plan.protocol),
        schema_hash: schema_hash.unwrap_or_else(|| protocol::schema_hash(plan.protocol, false)),
        plan,
        context,
        preview: None,
        stats,
        group,
        sample,
        conversation: conversation.as_ref().map(|(id, _)| *id),
        kind,
        repro,
        // Travels to every teammate, as the goal does.
        by: store
            .user_identity()
            .map(|who| crate::context::mask_secrets(&who)),
        verified: false,
    };
    // The preview is part of the record, so it cannot name the plan's id: it names the trace.
    let message = format!(
        "papayu preview: {}\n\nPapayu-Trace: {}\n",
        record.goal_line(),
        record.trace_id
    );
    let tree = written
        .tree
        .ok_or_else(|| Problem::new(Code::Internal, "the plan's build wrote no tree"))?;
    let preview = store.commit_on(base, tree, &message)?;
    record.preview = Some(preview);
    record.seal();
    Ok(Planned {
        record,
        changes,
        warnings,
        conversation,
    })
}

fn describe(stored: &[Planned]) -> String {
    match stored {
        [one] => format!("plan {}: {}", one.record.short_id(), one.record.goal_line()),
        many => format!(
            "plan {} plans: {}",
            many.len(),
            many.first().map_or(String::new(), |p| p.record.goal_line())
        ),
    }
}

/// Parses `answer` as `version` and dry-runs it on the base tree, writing nothing.
fn attempt(
    store: &Store,
    base_tree: Oid,
    answer: &[u8],
    how: &CheckOptions<'_>,
    version: ProtocolVersion,
) -> Result<(Parsed, Built), Attempt> {
    let options = ParseOptions {
        protocol: Some(version),
        mode: how.mode,
        normalize_eol: how.normalize_eol,
        allowlist: how.allowlist.clone(),
    };
    let parsed = protocol::parse_answer(answer, &options).map_err(Attempt::Parse)?;
    let built = executor::build(
        store,
        base_tree,
        &parsed.plan,
        &BuildOptions {
            write: false,
            read: None,
        },
    )
    .map_err(Attempt::Build)?;
    Ok((parsed, built))
}

/// Why one protocol version did not take.
enum Attempt {
    /// The answer is not a valid answer of this version.
    Parse(Vec<Problem>),
    /// It is, but it does not apply to the base tree.
    Build(Vec<Problem>),
}

impl From<Attempt> for Vec<Problem> {
    fn from(a: Attempt) -> Vec<Problem> {
        match a {
            Attempt::Parse(p) | Attempt::Build(p) => p,
        }
    }
}

/// An answer of unknown version is v2 when it is a valid v2 answer that applies; else v1. When
/// neither works, the problems reported are those of the version the answer is closest to (the
/// one `validate` reads it as), followed by a hint naming `--protocol` for the other.
fn detect(
    store: &Store,
    base_tree: Oid,
    answer: &[u8],
    how: &CheckOptions<'_>,
) -> Result<(Parsed, Built), Problems> {
    let v2 = match attempt(store, base_tree, answer, how, ProtocolVersion::V2) {
        Ok(done) => return Ok(done),
        Err(e) => e,
    };
    let v1 = match attempt(store, base_tree, answer, how, ProtocolVersion::V1) {
        Ok(done) => return Ok(done),
        Err(e) => e,
    };
    let Ok(closest) = protocol::detect_protocol(answer) else {
        // Not JSON at all: both versions say the same thing.
        return Err(v1.into());
    };
    let (mut problems, other): (Vec<Problem>, _) = match closest {
        ProtocolVersion::V2 => (v2.into(), ProtocolVersion::V1),
        ProtocolVersion::V1 => (v1.into(), ProtocolVersion::V2),
    };
    hint(
        &mut problems,
        format!(
            "read as protocol v{}, the version the answer fits best; as v{} it fails too (`--protocol {}` shows why)",
            u8::from(closest),
            u8::from(other),
            u8::from(other)
        ),
    );
    Err(problems)
}

/// Adds a hint under the first problem's reason.
fn hint(problems: &mut [Problem], text: String) {
    if let Some(first) = problems.first_mut() {
        let hint = format!("hint: {text}");
        first.detail = Some(match first.detail.take() {
            Some(d) => format!("{d}\n{hint}"),
            None => hint,
        });
    }
}
