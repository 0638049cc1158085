//! `memory_patch`: the whitelist of preference keys a model may propose to change, and their types.
//!
//! Only checks and filters; storing preferences is someone else's job, and this module must never
//! let a key outside [`MEMORY_KEYS`] through.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use papayu_core::codes::{Code, Problem};

/// What a whitelisted key accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryType {
    /// One of the listed strings.
    OneOf(&'static [&'static str]),
    /// An integer in the inclusive range.
    Int(i64, i64),
    /// Any string.
    Text,
    /// An array of strings.
    TextList,
}

/// Every key `memory_patch` may carry, with its type.
pub const MEMORY_KEYS: &[(&str, MemoryType)] = &[
    (
        "user.preferred_style",
        MemoryType::OneOf(&["brief", "normal", "verbose"]),
    ),
    ("user.ask_budget", MemoryType::Int(0, 2)),
    (
        "user.risk_tolerance",
        MemoryType::OneOf(&["low", "medium", "high"]),
    ),
    ("user.default_language", MemoryType::Text),
    (
        "user.output_format",
        MemoryType::OneOf(&["patch_first", "plan_first"]),
    ),
    ("project.default_test_command", MemoryType::Text),
    ("project.default_lint_command", MemoryType::Text),
    ("project.default_format_command", MemoryType::Text),
    ("project.package_manager", MemoryType::Text),
    ("project.build_command", MemoryType::Text),
    ("project.src_roots", MemoryType::TextList),
    ("project.test_roots", MemoryType::TextList),
    ("project.ci_notes", MemoryType::Text),
];

/// Keeps the whitelisted, well-typed entries; `null` values mean "not set" and are skipped.
/// Unknown keys become warnings, wrong types problems.
pub(crate) fn check_memory_patch(
    patch: &Map<String, Value>,
    problems: &mut Vec<Problem>,
    warnings: &mut Vec<String>,
) -> BTreeMap<String, Value> {
    let mut kept = BTreeMap::new();
    for (key, value) in patch {
        if value.is_null() {
            continue;
        }
        let Some((_, ty)) = MEMORY_KEYS.iter().find(|(k, _)| k == key) else {
            warnings.push(format!(
                "memory_patch: dropped '{}', which is not a whitelisted key",
                key.escape_default()
            ));
            continue;
        };
        match type_error(*ty, value) {
            None => {
                kept.insert(key.clone(), value.clone());
            }
            Some(expected) => problems.push(Problem::new(
                Code::MemoryPatchType,
                format!(
                    "memory_patch '{key}': expected {expected}, got {}; fix the value or leave the key out",
                    excerpt(value)
                ),
            )),
        }
    }
    kept
}

fn type_error(ty: MemoryType, value: &Value) -> Option<String> {
    let ok = match ty {
        MemoryType::OneOf(options) => value.as_str().is_some_and(|s| options.contains(&s)),
        MemoryType::Int(lo, hi) => value.as_i64().is_some_and(|n| (lo..=hi).contains(&n)),
        MemoryType::Text => value.is_string(),
        MemoryType::TextList => value
            .as_array()
            .is_some_and(|a| a.iter().all(Value::is_string)),
    };
    if ok {
        return None;
    }
    Some(match ty {
        MemoryType::OneOf(options) => format!("one of {}", options.join("|")),
        MemoryType::Int(lo, hi) => format!("an integer {lo}..{hi}"),
        MemoryType::Text => "a string".into(),
        MemoryType::TextList => "an array of strings".into(),
    })
}

fn excerpt(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 60 {
        let head: String = text.chars().take(57).collect();
        format!("{head}...")
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn whitelist_and_types() {
        let patch = json!({
            "user.ask_budget": 2,
            "project.src_roots": ["src"],
            "user.preferred_style": null,
            "test_command": "pytest",
            "user.risk_tolerance": "extreme",
            "user.ask_budget_x": 1
        });
        let mut problems = Vec::new();
        let mut warnings = Vec::new();
        let kept = check_memory_patch(patch.as_object().unwrap(), &mut problems, &mut warnings);
        assert_eq!(kept.len(), 2);
        assert_eq!(warnings.len(), 2);
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].code, Code::MemoryPatchType);
        for bad in [json!(3), json!(-1), json!("1"), json!(1.5)] {
            assert!(type_error(MemoryType::Int(0, 2), &bad).is_some(), "{bad}");
        }
        assert!(type_error(MemoryType::TextList, &json!(["a", 1])).is_some());
    }
}
