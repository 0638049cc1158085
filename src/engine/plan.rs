//! Making a plan: validate a model's answer, dry-run it on the base tree, store it as a note.
//!
//! A plan that is stored is known to apply at its base: the dry run is the same tree builder
//! that `apply` uses. Its result is kept as a preview commit on the base (reachable from the
//! operation log), which `diff` shows and `apply` reuses once it has checked the plan again.
//! Nothing is stored when any check fails.

use git2::Oid;

use super::trace;
use super::tree::{self, BuildOptions, Built, FileChange};
use crate::codes::{Code, Problem};
use crate::protocol::{self, Mode, ParseOptions, Parsed, ProtocolVersion, sha256_hex};
use crate::store::oplog::{self, OpKind, Pending};
use crate::store::records::{PlanRecord, now_millis};
use crate::store::{Store, StoreError};

/// Everything `plan` needs to know.
pub struct PlanRequest {
    pub goal: String,
    /// The model's raw answer.
    pub answer: Vec<u8>,
    /// Revision to plan against (default `HEAD`).
    pub base: Option<String>,
    pub protocol: Option<ProtocolVersion>,
    pub mode: Mode,
    pub normalize_eol: bool,
    pub provider: String,
    pub model: Option<String>,
}

/// A stored plan and its preview.
pub struct Planned {
    pub record: PlanRecord,
    pub changes: Vec<FileChange>,
    pub warnings: Vec<String>,
}

/// Validates, dry-runs and stores a plan. On any problem nothing is written.
pub fn make(store: &Store, request: PlanRequest) -> Result<Planned, Vec<Problem>> {
    let base_rev = request.base.as_deref().unwrap_or("HEAD");
    let base = resolve_base(store, base_rev)?;
    let base_tree = store
        .repo
        .find_commit(base)
        .and_then(|c| c.tree())
        .map_err(|e| vec![StoreError::git("reading the base tree", e).to_problem()])?;
    let (parsed, built) = match request.protocol {
        Some(version) => {
            attempt(store, &base_tree, &request, version).map_err(Vec::<Problem>::from)?
        }
        None => detect(store, &base_tree, &request)?,
    };
    let mut plan = parsed.plan;
    if plan.mode.is_none() {
        plan.mode = Some(match request.mode {
            Mode::Plan => "plan".to_string(),
            Mode::Apply => "apply".to_string(),
        });
    }
    let trace_id = uuid::Uuid::new_v4().to_string();
    let created_at = now_millis();
    let canonical = serde_json::to_string(&plan).expect("plan serializes");
    let id = sha256_hex(format!("{trace_id}\n{base}\n{created_at}\n{canonical}").as_bytes())[..40]
        .to_string();
    let mut record = PlanRecord {
        id,
        goal: request.goal,
        base: base.to_string(),
        created_at,
        provider: request.provider,
        model: request.model,
        trace_id,
        schema_version: u8::from(plan.protocol),
        schema_hash: protocol::schema_hash(plan.protocol, false),
        plan,
        context: built.touched,
        preview: None,
    };
    let message = format!(
        "papayu preview of plan {}

Papayu-Plan: {}
",
        record.short_id(),
        record.id
    );
    let preview = store
        .commit_on(
            base,
            built.tree.expect("written builds have a tree"),
            &message,
        )
        .map_err(|e| vec![e.to_problem()])?;
    record.preview = Some(preview.to_string());
    let line = serde_json::to_string(&record).expect("record serializes");
    let mut pending = Pending::new(
        OpKind::Plan,
        format!("plan {}: {}", record.short_id(), one_line(&record.goal)),
    );
    pending.note_lines.push((base, line));
    pending.keep.push(preview);
    oplog::commit(store, &pending).map_err(|e| vec![e.to_problem()])?;
    trace::write_plan_trace(store, &record, &built.changes, &parsed.warnings);
    Ok(Planned {
        record,
        changes: built.changes,
        warnings: parsed.warnings,
    })
}

/// Parses `request.answer` as `version` and dry-runs it on the base tree.
fn attempt(
    store: &Store,
    base_tree: &git2::Tree<'_>,
    request: &PlanRequest,
    version: ProtocolVersion,
) -> Result<(Parsed, Built), Attempt> {
    let options = ParseOptions {
        protocol: Some(version),
        mode: request.mode,
        normalize_eol: request.normalize_eol,
        ..ParseOptions::default()
    };
    let parsed = protocol::parse_answer(&request.answer, &options).map_err(Attempt::Parse)?;
    let built = tree::build(
        &store.repo,
        base_tree,
        &parsed.plan,
        &BuildOptions {
            write: true,
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

/// A pasted answer is v2 when it is a valid v2 answer that applies; else v1. When neither
/// works, the problems reported are those of the version the answer is written in: v2's when
/// only v2 could read it, v1's otherwise.
fn detect(
    store: &Store,
    base_tree: &git2::Tree<'_>,
    request: &PlanRequest,
) -> Result<(Parsed, Built), Vec<Problem>> {
    let v2 = match attempt(store, base_tree, request, ProtocolVersion::V2) {
        Ok(done) => return Ok(done),
        Err(e) => e,
    };
    match (attempt(store, base_tree, request, ProtocolVersion::V1), v2) {
        (Ok(done), _) => Ok(done),
        (Err(Attempt::Parse(_)), v2 @ Attempt::Build(_)) => Err(v2.into()),
        (Err(v1), _) => Err(v1.into()),
    }
}

fn resolve_base(store: &Store, rev: &str) -> Result<Oid, Vec<Problem>> {
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

/// The first line of a text, for one-line descriptions.
pub fn one_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or("").trim();
    if line.chars().count() > 72 {
        format!("{}…", line.chars().take(71).collect::<String>())
    } else {
        line.to_string()
    }
}
