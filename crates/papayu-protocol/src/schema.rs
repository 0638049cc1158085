//! The JSON Schemas of the plan format, embedded from `schemas/`, their hashes, and local
//! validation against them.
//!
//! Two schemas per protocol version: the *normal* one (what local validation uses; v1 accepts an
//! array root) and the *strict* one (object root, every property required and nullable, no
//! combinators), which is what strict structured-output providers are sent. Both are the exact
//! bytes of the files, so `schema_hash` is reproducible with `sha256sum schemas/…`. This module
//! must never edit a schema at run time except in [`request_schema`], which only drops
//! annotation keywords providers may not know.

use std::sync::OnceLock;

use serde_json::Value;

use super::sha256_hex;
use super::validator::{Schema, SchemaError, Violation};
use papayu_core::codes::{Code, Problem};
use papayu_core::plan::ProtocolVersion;

const V1: &str = include_str!("../../../schemas/plan_v1.schema.json");
const V2: &str = include_str!("../../../schemas/plan_v2.schema.json");
const V1_STRICT: &str = include_str!("../../../schemas/plan_v1.strict.schema.json");
const V2_STRICT: &str = include_str!("../../../schemas/plan_v2.strict.schema.json");

/// At most this many schema errors are reported one by one; the rest are counted.
const MAX_SCHEMA_PROBLEMS: usize = 100;

/// The schema file's text.
pub fn schema_text(version: ProtocolVersion, strict: bool) -> &'static str {
    match (version, strict) {
        (ProtocolVersion::V1, false) => V1,
        (ProtocolVersion::V2, false) => V2,
        (ProtocolVersion::V1, true) => V1_STRICT,
        (ProtocolVersion::V2, true) => V2_STRICT,
    }
}

/// The schema file's name under `schemas/`.
pub fn schema_file_name(version: ProtocolVersion, strict: bool) -> &'static str {
    match (version, strict) {
        (ProtocolVersion::V1, false) => "plan_v1.schema.json",
        (ProtocolVersion::V2, false) => "plan_v2.schema.json",
        (ProtocolVersion::V1, true) => "plan_v1.strict.schema.json",
        (ProtocolVersion::V2, true) => "plan_v2.strict.schema.json",
    }
}

/// Lowercase hex SHA-256 of the schema file's bytes (recorded in plans and traces).
pub fn schema_hash(version: ProtocolVersion, strict: bool) -> String {
    sha256_hex(schema_text(version, strict).as_bytes())
}

/// The schema as a JSON value, exactly as in its file.
#[expect(
    clippy::expect_used,
    reason = "the schema files are built in, and the tests read every one"
)]
pub fn schema_value(version: ProtocolVersion, strict: bool) -> Value {
    serde_json::from_str(schema_text(version, strict)).expect("embedded schema is valid JSON")
}

/// The strict schema as sent in a structured-output request: the file without its annotation
/// keywords (`$schema`, `title`, `x_schema_version`), which some providers refuse.
pub fn request_schema(version: ProtocolVersion) -> Value {
    let mut value = schema_value(version, true);
    if let Some(map) = value.as_object_mut() {
        for key in ["$schema", "title", "x_schema_version"] {
            map.remove(key);
        }
    }
    value
}

/// The compiled normal schema of `version` (compiled once per process).
pub(crate) fn validator(version: ProtocolVersion) -> &'static Schema {
    static V1_VALIDATOR: OnceLock<Schema> = OnceLock::new();
    static V2_VALIDATOR: OnceLock<Schema> = OnceLock::new();
    let cell = match version {
        ProtocolVersion::V1 => &V1_VALIDATOR,
        ProtocolVersion::V2 => &V2_VALIDATOR,
    };
    cell.get_or_init(|| compile(&schema_value(version, false)))
}

/// Compiles an embedded schema; the files are part of the build, so failure is a bug.
#[expect(
    clippy::expect_used,
    reason = "the schema files are built in, and the tests compile every one"
)]
pub(crate) fn compile(schema: &Value) -> Schema {
    Schema::compile(schema).expect("embedded schema compiles")
}

/// `true` when `value` satisfies the normal schema of `version`.
pub(crate) fn is_valid(value: &Value, version: ProtocolVersion) -> bool {
    validator(version).is_valid(value)
}

/// One `ERR_SCHEMA_VIOLATION` per schema error, skipping errors at or under any pointer in
/// `covered` (places a more specific code already explains).
pub(crate) fn problems(value: &Value, version: ProtocolVersion, covered: &[Cover]) -> Vec<Problem> {
    let mut out = Vec::new();
    let mut extra = 0usize;
    for error in validator(version).errors(value) {
        let pointer = error.pointer.clone();
        if covered.iter().any(|c| c.covers(&error)) {
            continue;
        }
        if out.len() == MAX_SCHEMA_PROBLEMS {
            extra += 1;
            continue;
        }
        let message = if is_short_scalar(&error.instance) {
            error.message()
        } else {
            error.masked()
        };
        let at = if pointer.is_empty() {
            "/"
        } else {
            pointer.as_str()
        };
        out.push(Problem::new(
            Code::SchemaViolation,
            format!(
                "at {at}: {message} (protocol v{} schema); fix the answer's shape",
                u8::from(version)
            ),
        ));
    }
    if extra > 0 {
        out.push(Problem::new(
            Code::SchemaViolation,
            format!("{extra} more schema errors not shown; fix the ones above first"),
        ));
    }
    out
}

/// A place whose schema errors are already explained by a more specific problem.
pub(crate) enum Cover {
    /// Everything at or under this pointer.
    Subtree(String),
    /// Only "additional property `name`" errors on the object at this pointer.
    ExtraProperty(String, &'static str),
}

impl Cover {
    fn covers(&self, error: &SchemaError) -> bool {
        let pointer = error.pointer.as_str();
        match self {
            Cover::Subtree(root) => {
                pointer == root
                    || (pointer.starts_with(root.as_str())
                        && pointer.as_bytes().get(root.len()) == Some(&b'/'))
            }
            Cover::ExtraProperty(at, name) => {
                pointer == at
                    && matches!(&error.violation,
                        Violation::Additional(unexpected) if unexpected.iter().all(|u| u == name))
            }
        }
    }
}

fn is_short_scalar(v: &Value) -> bool {
    match v {
        Value::String(s) => s.len() <= 60 && !s.chars().any(char::is_control),
        Value::Number(_) | Value::Bool(_) | Value::Null => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_compile_and_carry_their_version() {
        for version in [ProtocolVersion::V1, ProtocolVersion::V2] {
            for strict in [false, true] {
                let value = schema_value(version, strict);
                assert_eq!(value["x_schema_version"], u8::from(version));
                compile(&value);
                assert_eq!(schema_hash(version, strict).len(), 64);
            }
            assert!(request_schema(version).get("x_schema_version").is_none());
        }
    }
}
