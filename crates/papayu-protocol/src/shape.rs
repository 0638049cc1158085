//! Reading a JSON value into the plan's parts, leniently: a field with the wrong JSON type is
//! marked [`Field::Bad`] (the schema already reports it) so that every other rule can still run
//! and the model gets all its mistakes back in one round.
//!
//! Only reads; this module must never decide whether an answer is acceptable.

use serde_json::{Map, Value};

use papayu_core::plan::{ActionKind, ProtocolVersion};

/// A field as found in the answer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Field<T> {
    /// Missing or `null`.
    Absent,
    /// Present with the wrong type (the schema reports it).
    Bad,
    Ok(T),
}

impl<T> Field<T> {
    pub(crate) fn ok(&self) -> Option<&T> {
        match self {
            Field::Ok(v) => Some(v),
            _ => None,
        }
    }

    pub(crate) fn is_present(&self) -> bool {
        !matches!(self, Field::Absent)
    }
}

/// One action as written, before any rule ran.
#[derive(Debug)]
pub(crate) struct RawAction {
    /// 1-based position among the answer's actions.
    pub number: usize,
    /// JSON pointer of the action object.
    pub pointer: String,
    pub kind: Field<ActionKind>,
    pub path: Field<String>,
    pub content: Field<String>,
    pub patch: Field<String>,
    pub base_sha256: Field<String>,
    pub start_line: Field<i128>,
    pub end_line: Field<i128>,
}

impl RawAction {
    /// `action 3 (UPDATE_FILE src/x.rs)`, for reasons.
    pub(crate) fn label(&self) -> String {
        let kind = self.kind.ok().map_or("?", |k| k.as_str());
        let path = self
            .path
            .ok()
            .map_or("?".to_string(), |p| super::paths::show(p));
        format!("action {} ({kind} {path})", self.number)
    }
}

/// Where the answer's actions came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ActionSource {
    None,
    RootArray,
    Root,
    Nested,
}

/// The answer, read.
#[derive(Debug)]
pub(crate) struct RawPlan<'a> {
    pub source: ActionSource,
    pub actions: Vec<RawAction>,
    /// Root `actions` that were ignored because `proposed_changes.actions` was given.
    pub ignored_root_actions: usize,
    pub nested_actions_present: bool,
    pub root: Option<&'a Map<String, Value>>,
}

impl<'a> RawPlan<'a> {
    pub(crate) fn read(value: &'a Value) -> RawPlan<'a> {
        let mut plan = RawPlan {
            source: ActionSource::None,
            actions: Vec::new(),
            ignored_root_actions: 0,
            nested_actions_present: false,
            root: None,
        };
        match value {
            Value::Array(items) => {
                plan.source = ActionSource::RootArray;
                plan.actions = read_actions(items, "");
            }
            Value::Object(root) => {
                plan.root = Some(root);
                let nested = root
                    .get("proposed_changes")
                    .and_then(|p| p.get("actions"))
                    .filter(|a| !a.is_null());
                let top = root.get("actions").and_then(Value::as_array);
                if let Some(nested) = nested {
                    plan.nested_actions_present = true;
                    plan.source = ActionSource::Nested;
                    plan.actions = nested
                        .as_array()
                        .map(|items| read_actions(items, "/proposed_changes/actions"))
                        .unwrap_or_default();
                    plan.ignored_root_actions = top.map_or(0, Vec::len);
                } else if let Some(items) = top {
                    plan.source = ActionSource::Root;
                    plan.actions = read_actions(items, "/actions");
                }
            }
            _ => {}
        }
        plan
    }

    /// A root string field.
    pub(crate) fn text(&self, key: &str) -> Option<String> {
        self.root?.get(key)?.as_str().map(str::to_string)
    }

    /// A root string list; wrong types are skipped (the schema reports them).
    pub(crate) fn list(&self, key: &str) -> Vec<String> {
        strings(self.root.and_then(|r| r.get(key)))
    }

    /// A field of `proposed_changes`.
    pub(crate) fn nested(&self, key: &str) -> Option<&'a Value> {
        self.root?.get("proposed_changes")?.get(key)
    }
}

pub(crate) fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|i| i.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn read_actions(items: &[Value], base: &str) -> Vec<RawAction> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| read_action(item, i + 1, format!("{base}/{i}")))
        .collect()
}

fn read_action(item: &Value, number: usize, pointer: String) -> RawAction {
    let get = |key: &str| item.as_object().and_then(|o| o.get(key));
    RawAction {
        number,
        pointer,
        kind: field(get("kind"), |v| v.as_str().and_then(parse_kind)),
        path: text_field(get("path")),
        content: text_field(get("content")),
        patch: text_field(get("patch")),
        base_sha256: text_field(get("base_sha256")),
        start_line: field(get("start_line"), json_int),
        end_line: field(get("end_line"), json_int),
    }
}

pub(crate) fn field<T>(value: Option<&Value>, read: impl Fn(&Value) -> Option<T>) -> Field<T> {
    match value {
        None | Some(Value::Null) => Field::Absent,
        Some(v) => read(v).map_or(Field::Bad, Field::Ok),
    }
}

pub(crate) fn text_field(value: Option<&Value>) -> Field<String> {
    field(value, |v| v.as_str().map(str::to_string))
}

/// An integral JSON number (`3` or `3.0`), widened so no value can overflow the checks.
pub(crate) fn json_int(v: &Value) -> Option<i128> {
    if let Some(n) = v.as_i64() {
        return Some(n.into());
    }
    if let Some(n) = v.as_u64() {
        return Some(n.into());
    }
    let f = v.as_f64()?;
    (f.is_finite() && f.fract() == 0.0 && f.abs() < 1e30).then_some(f as i128)
}

fn parse_kind(text: &str) -> Option<ActionKind> {
    Some(match text {
        "CREATE_DIR" => ActionKind::CreateDir,
        "CREATE_FILE" => ActionKind::CreateFile,
        "UPDATE_FILE" => ActionKind::UpdateFile,
        "PATCH_FILE" => ActionKind::PatchFile,
        "REPLACE_RANGE" => ActionKind::ReplaceRange,
        "DELETE_FILE" => ActionKind::DeleteFile,
        "DELETE_DIR" => ActionKind::DeleteDir,
        _ => return None,
    })
}

/// Whether an answer that fits neither schema was meant as v2: an object root without nested
/// actions that uses a v2-only kind or field. Used only to report errors against the version the
/// model was evidently writing.
pub(crate) fn looks_like_v2(value: &Value) -> bool {
    let Some(root) = value.as_object() else {
        return false;
    };
    if root
        .get("proposed_changes")
        .and_then(|p| p.get("actions"))
        .is_some_and(|a| !a.is_null())
    {
        return false;
    }
    let Some(actions) = root.get("actions").and_then(Value::as_array) else {
        return false;
    };
    actions.iter().any(|a| {
        let Some(o) = a.as_object() else { return false };
        matches!(
            o.get("kind").and_then(Value::as_str),
            Some("PATCH_FILE" | "REPLACE_RANGE")
        ) || ["patch", "base_sha256", "start_line", "end_line"]
            .iter()
            .any(|k| o.get(*k).is_some_and(|v| !v.is_null()))
    })
}

/// The protocol an answer is read as when none is forced: v2 when it fits the v2 schema, else v1
/// (errors of an answer that fits neither are reported against the version it evidently meant).
pub(crate) fn detect(value: &Value) -> ProtocolVersion {
    if super::schema::is_valid(value, ProtocolVersion::V2) {
        ProtocolVersion::V2
    } else if super::schema::is_valid(value, ProtocolVersion::V1) || !looks_like_v2(value) {
        ProtocolVersion::V1
    } else {
        ProtocolVersion::V2
    }
}
