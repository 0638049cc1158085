//! Minimal answer reading used until the full validator is wired in.

use crate::codes::{Code, Problem};

use super::{Mode, Plan, ProtocolVersion};

#[derive(Debug, Clone, Default)]
pub struct ParseOptions {
    pub protocol: Option<ProtocolVersion>,
    pub mode: Mode,
    pub normalize_eol: bool,
}

#[derive(Debug, Clone)]
pub struct Parsed {
    pub plan: Plan,
    pub warnings: Vec<String>,
}

pub fn parse_answer(input: &[u8], opts: &ParseOptions) -> Result<Parsed, Vec<Problem>> {
    let mut value: serde_json::Value = serde_json::from_slice(input)
        .map_err(|e| vec![Problem::new(Code::JsonParse, e.to_string())])?;
    if value.is_array() {
        value = serde_json::json!({ "actions": value });
    }
    let protocol = opts.protocol.unwrap_or(ProtocolVersion::V2);
    value["protocol"] = serde_json::json!(u8::from(protocol));
    let plan: Plan = serde_json::from_value(value)
        .map_err(|e| vec![Problem::new(Code::SchemaViolation, e.to_string())])?;
    Ok(Parsed {
        plan,
        warnings: Vec::new(),
    })
}

pub fn check_path(path: &str) -> Result<(), Problem> {
    if path.is_empty()
        || path.starts_with('/')
        || path
            .split('/')
            .any(|s| s.is_empty() || s == "." || s == ".." || s.eq_ignore_ascii_case(".git"))
    {
        return Err(Problem::new(Code::PathDotDot, format!("bad path {path}")));
    }
    Ok(())
}

pub fn schema_hash(_version: ProtocolVersion, _strict: bool) -> String {
    String::new()
}
