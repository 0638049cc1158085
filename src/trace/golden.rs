//! Golden traces and replay: a recorded conversation as a self-contained case (the base files,
//! the goal, what the model answered, what papayu made of it), and the comparison that tells
//! whether today's code still makes the same of it.
//!
//! Cases live in `docs/golden_traces/v1/` and `v2/`; a test replays each through the real
//! binary against a fake provider that answers with the recorded answers.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Trace;
use crate::engine::plan::{CheckOptions, Seen, check_answer};
use crate::protocol::{Mode, ProtocolVersion};
use crate::store::Store;

/// Base trees larger than this are cut down to the files the plan saw or touched.
const MAX_CASE_FILES: usize = 50;
const MAX_CASE_BYTES: usize = 256 * 1024;

/// One golden case.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Case {
    pub version: u32,
    pub name: String,
    /// The protocol the plan was asked under (1 or 2).
    pub protocol: u8,
    pub request: CaseRequest,
    /// Paths sent as FILE blocks before the first answer.
    pub context: Vec<String>,
    /// The model's answers, in order.
    pub answers: Vec<String>,
    pub result: CaseResult,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct CaseRequest {
    pub goal: String,
    /// May the plan fall back from v2 to v1.
    pub fallback_to_v1: bool,
    /// The base commit's files.
    pub files: BTreeMap<String, String>,
}

/// What papayu made of the answers: a validated plan, or an error code; with `tree`, the files
/// of the proposal branch after apply.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct CaseResult {
    pub plan: Option<serde_json::Value>,
    pub error: Option<String>,
    /// The protocol of the stored plan (after a fallback, 1).
    pub schema_version: Option<u8>,
    pub tree: Option<BTreeMap<String, String>>,
}

/// The differences between an expected and an actual result, one line each; empty when the
/// same. Only what the expectation states is compared.
pub fn compare(expected: &CaseResult, actual: &CaseResult) -> Vec<String> {
    let mut out = Vec::new();
    if expected.error != actual.error {
        out.push(format!(
            "error: expected {}, got {}",
            expected.error.as_deref().unwrap_or("none"),
            actual.error.as_deref().unwrap_or("none")
        ));
    }
    if expected.plan.is_some() && expected.plan != actual.plan {
        out.push(format!(
            "plan: expected {}, got {}",
            show(&expected.plan),
            show(&actual.plan)
        ));
    }
    if expected.schema_version.is_some() && expected.schema_version != actual.schema_version {
        out.push(format!(
            "schema_version: expected {:?}, got {:?}",
            expected.schema_version, actual.schema_version
        ));
    }
    if let Some(tree) = &expected.tree {
        let got = actual.tree.clone().unwrap_or_default();
        for (path, text) in tree {
            match got.get(path) {
                Some(t) if t == text => {}
                Some(t) => out.push(format!("tree: {path} is {t:?}, expected {text:?}")),
                None => out.push(format!("tree: {path} is missing")),
            }
        }
        for path in got.keys().filter(|p| !tree.contains_key(*p)) {
            out.push(format!("tree: {path} is not expected"));
        }
    }
    out
}

fn show(v: &Option<serde_json::Value>) -> String {
    v.as_ref().map_or("none".to_string(), |v| v.to_string())
}

/// The answers a trace recorded: the raw ones when kept, else the validated plan.
pub fn recorded_answers(trace: &Trace) -> Vec<String> {
    if !trace.raw_answers.is_empty() {
        return trace.raw_answers.clone();
    }
    // The validated plan as stored carries what papayu made of it (its protocol and mode);
    // an answer does not, and the schema rejects them.
    let as_answer = |plan: &serde_json::Value| {
        let mut plan = plan.clone();
        if let Some(fields) = plan.as_object_mut() {
            fields.remove("protocol");
            fields.remove("mode");
        }
        plan.to_string()
    };
    trace.validated_json.iter().map(as_answer).collect()
}

/// What a trace says papayu made of its answers: the plan, or the first error code.
fn recorded_result(trace: &Trace) -> CaseResult {
    CaseResult {
        plan: trace.validated_json.clone(),
        error: (!trace.ok)
            .then(|| trace.problems.first().map(|p| p.code.clone()))
            .flatten(),
        schema_version: trace.schema_version,
        tree: None,
    }
}

/// A golden case from a plan trace, with the base files read from the repository.
pub fn to_golden(store: &Store, trace: &Trace, name: &str) -> Result<Case, String> {
    if trace.kind != "plan" && trace.kind != "refine" {
        return Err(format!(
            "trace {} is a {} trace; golden cases come from plans",
            trace.trace_id, trace.kind
        ));
    }
    let answers = recorded_answers(trace);
    if answers.is_empty() {
        return Err(format!(
            "trace {} kept no answer (a failed plan keeps its answers only with PAPAYU_TRACE_RAW=1)",
            trace.trace_id
        ));
    }
    let base = trace
        .base
        .as_deref()
        .ok_or("the trace names no base commit")?;
    let commit = store.resolve_commit(base).map_err(|e| e.to_string())?;
    let snap = store.snapshot(commit).map_err(|e| e.to_string())?;
    let all = snap.files();
    let wanted: Vec<&str> = trace
        .transcript
        .sent
        .iter()
        .map(|f| f.path.as_str())
        .chain(
            trace
                .validated_json
                .iter()
                .filter_map(|p| p["actions"].as_array())
                .flatten()
                .filter_map(|a| a["path"].as_str()),
        )
        .collect();
    let mut files = BTreeMap::new();
    let mut bytes = 0;
    let whole = all.len() <= MAX_CASE_FILES;
    for (path, _) in all {
        if !whole && !wanted.contains(&path.as_str()) {
            continue;
        }
        if let Ok(Some(read)) = snap.read(path)
            && let Ok(text) = String::from_utf8(read.bytes)
        {
            bytes += text.len();
            if bytes > MAX_CASE_BYTES {
                return Err("the base files are too large for a golden case".to_string());
            }
            files.insert(path.clone(), text);
        }
    }
    let protocol = trace.transcript.protocol_default.max(1);
    Ok(Case {
        version: 1,
        name: name.to_string(),
        protocol,
        request: CaseRequest {
            goal: trace.goal.clone().unwrap_or_default(),
            fallback_to_v1: trace
                .config_snapshot
                .get("PAPAYU_PROTOCOL_FALLBACK_TO_V1")
                .is_none_or(|v| v != "0"),
            files,
        },
        context: trace
            .context_stats
            .iter()
            .flat_map(|c| &c.blocks)
            .filter(|b| b.kind == "file")
            .map(|b| b.title.clone())
            .collect(),
        answers,
        result: recorded_result(trace),
    })
}

/// Runs a trace's last recorded answer through today's checks, at the same base, with what the
/// model was shown then; returns the result to compare with the recorded one.
pub fn replay(store: &Store, trace: &Trace) -> Result<(CaseResult, CaseResult), String> {
    let answer = recorded_answers(trace)
        .pop()
        .ok_or("the trace kept no answer to replay (set PAPAYU_TRACE_RAW=1 to keep failed ones)")?;
    let base = trace
        .base
        .as_deref()
        .ok_or("the trace names no base commit")?;
    let base = store.resolve_commit(base).map_err(|e| e.to_string())?;
    // A pasted answer was read with whichever version takes it; a model's, with the version
    // it was asked under last.
    let version = trace.transcript.protocol_attempts.last().map(|v| {
        if *v == 1 {
            ProtocolVersion::V1
        } else {
            ProtocolVersion::V2
        }
    });
    let seen = if trace.transcript.sent.is_empty() {
        Seen::Pasted
    } else {
        Seen::Sent(&trace.transcript.sent)
    };
    let how = CheckOptions {
        protocol: version,
        mode: Mode::Plan,
        normalize_eol: trace
            .config_snapshot
            .get("PAPAYU_NORMALIZE_EOL")
            .is_some_and(|v| v.eq_ignore_ascii_case("lf")),
        allowlist: None,
        seen,
    };
    let actual = match check_answer(store, base, answer.as_bytes(), &how) {
        Ok(candidate) => CaseResult {
            plan: serde_json::to_value(&candidate.plan).ok(),
            schema_version: Some(u8::from(candidate.plan.protocol)),
            ..CaseResult::default()
        },
        Err(problems) => CaseResult {
            error: problems.first().map(|p| p.code.to_string()),
            ..CaseResult::default()
        },
    };
    Ok((recorded_result(trace), actual))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_names_every_difference_and_only_what_is_expected() {
        let plan = serde_json::json!({"actions": [{"kind": "CREATE_FILE", "path": "a"}]});
        let expected = CaseResult {
            plan: Some(plan.clone()),
            tree: Some([("a".to_string(), "x\n".to_string())].into()),
            ..CaseResult::default()
        };
        let same = CaseResult {
            plan: Some(plan),
            schema_version: Some(2),
            tree: Some([("a".to_string(), "x\n".to_string())].into()),
            ..CaseResult::default()
        };
        assert!(compare(&expected, &same).is_empty());
        let other = CaseResult {
            error: Some("ERR_X".to_string()),
            tree: Some([("b".to_string(), "y".to_string())].into()),
            ..CaseResult::default()
        };
        let diff = compare(&expected, &other);
        assert_eq!(diff.len(), 4, "{diff:?}");
        assert!(diff[0].starts_with("error: expected none, got ERR_X"));
    }
}
