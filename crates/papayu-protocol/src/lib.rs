//! The plan protocol (v1 and v2): reading a model's answer into a validated [`Plan`].
//!
//! Everything here is pure: no repository, no network, no terminal. Checks that need the base
//! tree (does the file exist, does `base_sha256` match the blob) belong to the apply engine,
//! which calls back into [`check_path`] for the path rules it shares with validation.
//!
//! Reading an answer goes through fixed stages, each in its own module:
//!
//! 1. [`extract`](self) finds the JSON value (bare, fenced, or inside prose) under size, UTF-8
//!    and nesting guards;
//! 2. the protocol version is forced by the caller or detected (v2 when the answer fits the v2
//!    schema, else v1);
//! 3. the answer is validated against that version's JSON Schema (`schemas/`);
//! 4. it is read leniently into its parts, so that every rule runs even when the shape is off;
//! 5. rules, memory whitelist and context requests add their problems;
//! 6. with no problems, the normalized [`Plan`] is built: actions in apply order, `base_sha256`
//!    lowercased, line endings normalized when asked.
//!
//! All problems are returned together, so one repair round can fix them all.

// A ratchet: no function of the product grows past 79 lines (clippy.toml); the few that
// were longer carry an `expect` until they are split.
#![deny(clippy::too_many_lines)]
// Another: no unwrap or expect outside tests; a true invariant carries an `expect` that says
// why it holds.
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod attributes;
mod content;
mod extract;
pub mod gitmodules;
mod memory;
mod paths;
mod rules;
mod schema;
mod shape;
pub mod validator;

pub use content::{MAX_FILE_BYTES, MAX_TOTAL_BYTES, is_non_printable, normalize_eol};
pub use extract::{MAX_INPUT_BYTES, MAX_JSON_DEPTH};
pub use memory::{MEMORY_KEYS, MemoryType};
pub use papayu_core::plan::{
    Action, ActionKind, ContextRequest, Mode, Plan, ProtocolVersion, Step,
};
pub use paths::{Allowlist, MAX_PATH_LEN, check_path, is_invisible, is_protected};
pub use rules::{MAX_QUERY_CHARS, is_sha256_hex, looks_unified, query_problem};
pub use schema::{request_schema, schema_file_name, schema_hash, schema_text, schema_value};

use serde_json::Value;
use sha2::{Digest, Sha256};

use papayu_core::codes::{Code, Problem, Problems};
use rules::Report;
use schema::Cover;
use shape::{ActionSource, Field, RawAction, RawPlan, field, json_int, text_field};

/// Most actions one answer may carry.
pub const MAX_ACTIONS: usize = 200;

/// Every code this module can report (kept in sync with docs/protocol.md by a test).
pub const PROTOCOL_CODES: &[Code] = &[
    Code::EmptyInput,
    Code::InputNotUtf8,
    Code::InputTooLarge,
    Code::NoJson,
    Code::JsonParse,
    Code::JsonTooDeep,
    Code::SchemaViolation,
    Code::V2RootNotObject,
    Code::V2NestedActions,
    Code::PathEmpty,
    Code::PathAbsolute,
    Code::PathDrive,
    Code::PathUnc,
    Code::PathHome,
    Code::PathDotDot,
    Code::PathDot,
    Code::PathBackslash,
    Code::PathControlChar,
    Code::PathTooLong,
    Code::PathInvisibleChar,
    Code::PathGitInternal,
    Code::ProtectedPath,
    Code::ForbiddenPath,
    Code::AllowlistInvalid,
    Code::TooManyActions,
    Code::FileTooLarge,
    Code::TotalTooLarge,
    Code::ContentNul,
    Code::PseudoBinary,
    Code::ContentMissing,
    Code::ContentUnexpected,
    Code::ActionConflict,
    Code::NoChangesMarker,
    Code::V1KindNotAllowed,
    Code::PatchMissing,
    Code::PatchWithContent,
    Code::PatchNotUnified,
    Code::RangeInvalid,
    Code::BaseSha256Invalid,
    Code::MemoryPatchType,
];

/// Lowercase hex SHA-256 of `bytes` (the protocol's `base_sha256` and the context fingerprint).
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest.iter() {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// The JSON an answer holds — bare, in a ```` ```json ```` fence or amid prose — before any rule
/// is checked: what a rejected answer is read from to be shown.
pub fn answer_json(input: &[u8]) -> Result<serde_json::Value, Problem> {
    extract::extract(input)
}

/// The protocol an answer is read as when none is forced: v2 when it fits the v2 schema,
/// otherwise v1 (an answer that fits neither is reported against the version it evidently meant).
pub fn detect_protocol(input: &[u8]) -> Result<ProtocolVersion, Problem> {
    let value = extract::extract(input)?;
    Ok(shape::detect(&value))
}

/// How to read an answer.
#[derive(Debug, Clone, Default)]
pub struct ParseOptions {
    /// Force a protocol version; `None` detects it (v2 when the answer fits the v2 schema).
    pub protocol: Option<ProtocolVersion>,
    /// The phase the answer was asked for (APPLY requires `NO_CHANGES:` on an empty plan).
    pub mode: Mode,
    /// `\r\n` → `\n` and a final newline in every `content` (`PAPAYU_NORMALIZE_EOL=lf`).
    pub normalize_eol: bool,
    /// Optional `config/llm_whitelist.json`-style allowlist.
    pub allowlist: Option<Allowlist>,
}

/// An accepted answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    pub plan: Plan,
    /// Things the user should know that do not reject the answer (dropped memory keys, ...).
    pub warnings: Vec<String>,
}

/// Reads a model's answer into a validated, normalized plan, or returns every problem found.
pub fn parse_answer(input: &[u8], opts: &ParseOptions) -> Result<Parsed, Problems> {
    let value = extract::extract(input)?;
    let version = opts.protocol.unwrap_or_else(|| shape::detect(&value));
    let raw = RawPlan::read(&value);
    let mut report = Report::new();

    let covers = structure(&raw, version, &mut report);
    if !(version == ProtocolVersion::V2 && raw.source == ActionSource::RootArray) {
        report
            .problems
            .extend(schema::problems(&value, version, &covers));
    }
    if raw.ignored_root_actions > 0 {
        report.warnings.push(format!(
            "both 'actions' ({}) and 'proposed_changes.actions' were given; the root 'actions' were ignored",
            raw.ignored_root_actions
        ));
    }

    let count = raw.actions.len();
    check_actions(&raw, version, opts, &mut report);
    let summary = raw.text("summary");
    rules::check_no_changes(opts.mode, count, summary.as_deref(), &mut report);

    let context_requests = context_requests(&raw, &mut report);
    let memory_patch = match raw.root.and_then(|r| r.get("memory_patch")) {
        Some(Value::Object(map)) => {
            memory::check_memory_patch(map, &mut report.problems, &mut report.warnings)
        }
        _ => Default::default(),
    };

    if !report.problems.is_empty() {
        return Err(report.problems);
    }
    let mut plan = Plan::empty(version);
    plan.mode = raw.text("mode");
    plan.summary = summary;
    plan.actions = raw
        .actions
        .iter()
        .filter_map(|a| normalized(a, opts))
        .collect();
    plan.actions.sort_by_key(|a| a.kind.phase());
    plan.questions = raw.list("questions");
    plan.context_requests = context_requests;
    plan.steps = steps(&raw);
    plan.risks = raw.list("risks");
    plan.commands_to_run = raw.list("commands_to_run");
    for cmd in shape::strings(raw.nested("commands_to_run")) {
        if !plan.commands_to_run.contains(&cmd) {
            plan.commands_to_run.push(cmd);
        }
    }
    plan.verification = raw.list("verification");
    plan.rollback = raw.list("rollback");
    plan.patch = raw.text("patch").or_else(|| {
        raw.nested("patch")
            .and_then(Value::as_str)
            .map(str::to_string)
    });
    plan.memory_patch = memory_patch;
    Ok(Parsed {
        plan,
        warnings: report.warnings,
    })
}

/// Every per-action rule, the conflict rules and the limits.
fn check_actions(
    raw: &RawPlan<'_>,
    version: ProtocolVersion,
    opts: &ParseOptions,
    report: &mut Report,
) {
    let count = raw.actions.len();
    let mut total = 0usize;
    if count <= MAX_ACTIONS {
        for action in &raw.actions {
            total += rules::check_action(action, version, opts, report);
        }
        rules::check_conflicts(&raw.actions, report);
    }
    rules::check_limits(count, total, report);
}

/// Checks the actions of an already normalized plan (a stored record, which may come from a
/// teammate's notes or a hand edit) against every action rule, conflict rule and limit. The
/// JSON Schema pass is skipped: a [`Plan`]'s types already have the schema's shape.
pub fn check_plan(plan: &Plan) -> Result<(), Problems> {
    let value = serde_json::json!({ "actions": plan.actions });
    let raw = RawPlan::read(&value);
    let mut report = Report::new();
    let opts = ParseOptions {
        protocol: Some(plan.protocol),
        ..ParseOptions::default()
    };
    structure(&raw, plan.protocol, &mut report);
    check_actions(&raw, plan.protocol, &opts, &mut report);
    if report.problems.is_empty() {
        Ok(())
    } else {
        Err(report.problems)
    }
}

/// Version-specific structure rules that have their own codes; returns the places whose schema
/// errors those codes already explain.
fn structure(raw: &RawPlan<'_>, version: ProtocolVersion, report: &mut Report) -> Vec<Cover> {
    let mut covers = long_queries(raw);
    match version {
        ProtocolVersion::V2 => {
            if raw.source == ActionSource::RootArray {
                report.add(
                    Code::V2RootNotObject,
                    "protocol v2 answers are one JSON object; wrap the actions as {\"actions\": [...]}".into(),
                );
            }
            if raw.nested_actions_present {
                report.add(
                    Code::V2NestedActions,
                    "protocol v2 takes actions only at the root; move 'proposed_changes.actions' to 'actions'".into(),
                );
                covers.push(Cover::ExtraProperty("/proposed_changes".into(), "actions"));
            }
        }
        ProtocolVersion::V1 => {
            for action in &raw.actions {
                if matches!(
                    action.kind.ok(),
                    Some(ActionKind::PatchFile | ActionKind::ReplaceRange)
                ) {
                    covers.push(Cover::Subtree(action.pointer.clone()));
                }
            }
        }
    }
    covers
}

/// Search queries past the cap: the rule in [`context_request`] explains them, with the length.
fn long_queries(raw: &RawPlan<'_>) -> Vec<Cover> {
    let Some(items) = raw
        .root
        .and_then(|r| r.get("context_requests"))
        .and_then(Value::as_array)
    else {
        return Vec::new();
    };
    items
        .iter()
        .enumerate()
        .filter(|(_, item)| {
            item.get("query")
                .and_then(Value::as_str)
                .is_some_and(|q| query_problem(q).is_some())
        })
        .map(|(i, _)| Cover::Subtree(format!("/context_requests/{i}/query")))
        .collect()
}

fn normalized(raw: &RawAction, opts: &ParseOptions) -> Option<Action> {
    let mut action = Action::new(*raw.kind.ok()?, raw.path.ok()?.clone());
    action.content = raw.content.ok().map(|c| {
        if opts.normalize_eol {
            normalize_eol(c)
        } else {
            c.clone()
        }
    });
    action.patch = raw.patch.ok().cloned();
    action.base_sha256 = raw.base_sha256.ok().map(|s| s.to_ascii_lowercase());
    action.start_line = raw.start_line.ok().map(|n| *n as u64);
    action.end_line = raw.end_line.ok().map(|n| *n as u64);
    Some(action)
}

fn steps(raw: &RawPlan<'_>) -> Vec<Step> {
    let Some(items) = raw
        .root
        .and_then(|r| r.get("plan"))
        .and_then(Value::as_array)
    else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| {
            Some(Step {
                step: item.get("step")?.as_str()?.to_string(),
                details: item
                    .get("details")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            })
        })
        .collect()
}

/// Reads `context_requests`, checking what each type needs (paths obey the plan's path rules).
fn context_requests(raw: &RawPlan<'_>, report: &mut Report) -> Vec<ContextRequest> {
    let Some(items) = raw
        .root
        .and_then(|r| r.get("context_requests"))
        .and_then(Value::as_array)
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        if let Some(request) = context_request(item, i, report) {
            out.push(request);
        }
    }
    out
}

fn context_request(item: &Value, i: usize, report: &mut Report) -> Option<ContextRequest> {
    let get = |key: &str| item.get(key);
    let kind = get("type")?.as_str()?;
    let label = format!("context request {} ({kind})", i + 1);
    let mut need = |name: &str, f: &Field<String>| -> Option<String> {
        match f {
            Field::Ok(s) if !s.trim().is_empty() => Some(s.clone()),
            Field::Bad => None,
            _ => {
                report.add(
                    Code::SchemaViolation,
                    format!("at /context_requests/{i}: {label} needs a non-empty '{name}'"),
                );
                None
            }
        }
    };
    let number = |key: &str| field(get(key), json_int);
    match kind {
        "read_file" => {
            let path = need("path", &text_field(get("path")))?;
            if let Some((code, why)) = paths::path_problem(&path) {
                report.add(code, format!("{label} {}: {why}", paths::show(&path)));
                return None;
            }
            if is_protected(&path) {
                report.warnings.push(format!(
                    "{label} {}: a protected file is never sent to a model; the request will be refused",
                    paths::show(&path)
                ));
            }
            let start = line_number(&label, "start_line", number("start_line"), report)?;
            let end = line_number(&label, "end_line", number("end_line"), report)?;
            if let (Some(s), Some(e)) = (start, end)
                && e < s
            {
                report.add(
                    Code::RangeInvalid,
                    format!("{label}: end_line {e} is before start_line {s}"),
                );
                return None;
            }
            Some(ContextRequest::ReadFile {
                path,
                start_line: start,
                end_line: end,
            })
        }
        "search" => {
            let query = need("query", &text_field(get("query")))?;
            if let Some(why) = query_problem(&query) {
                report.add(
                    Code::SchemaViolation,
                    format!("at /context_requests/{i}/query: {label}: {why}"),
                );
                return None;
            }
            Some(ContextRequest::Search {
                query,
                glob: get("glob").and_then(Value::as_str).map(str::to_string),
            })
        }
        "logs" => {
            let source = need("source", &text_field(get("source")))?;
            let last_n = line_number(&label, "last_n", number("last_n"), report)?;
            Some(ContextRequest::Logs { source, last_n })
        }
        "env" => Some(ContextRequest::Env),
        _ => None,
    }
}

/// A positive count or line number; `Some(None)` when absent, `None` after a problem.
fn line_number(
    label: &str,
    name: &str,
    value: Field<i128>,
    report: &mut Report,
) -> Option<Option<u64>> {
    match value {
        Field::Absent => Some(None),
        Field::Bad => None,
        Field::Ok(n) if n >= 1 && n <= i128::from(u32::MAX) => Some(Some(n as u64)),
        Field::Ok(n) => {
            report.add(
                Code::RangeInvalid,
                format!(
                    "{label}: {name} is {n}; it must be between 1 and {}",
                    u32::MAX
                ),
            );
            None
        }
    }
}
