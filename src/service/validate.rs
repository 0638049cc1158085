//! Checking an answer against the protocol without storing anything: `git papayu validate`,
//! `validate --json` and the MCP tool `papayu_validate`.

use serde::Serialize;

use crate::codes::Problems;
use crate::protocol::{self, Allowlist, Mode, ParseOptions, Plan, ProtocolVersion};
use crate::settings::Settings;

/// What to validate.
pub struct Validate<'a> {
    pub answer: &'a [u8],
    /// Read the answer as this version; `None`: v2 when it is one, else v1.
    pub protocol: Option<ProtocolVersion>,
    pub mode: Mode,
    pub allowlist: Option<Allowlist>,
}

/// A valid answer, normalized.
#[derive(Debug, Clone, Serialize)]
pub struct Validated {
    /// Always true: an answer that is not valid is its problems instead.
    pub valid: bool,
    pub protocol: u8,
    /// The plan, actions in apply order.
    pub plan: Plan,
    /// What was dropped or changed on the way (an unknown memory key, say).
    pub notes: Vec<String>,
}

/// Validates `request.answer` with the settings in force (`PAPAYU_NORMALIZE_EOL`).
pub fn validate(config: &Settings, request: Validate<'_>) -> Result<Validated, Problems> {
    let options = ParseOptions {
        protocol: request.protocol,
        mode: request.mode,
        normalize_eol: super::normalize_eol(config)?,
        allowlist: request.allowlist,
    };
    let parsed = protocol::parse_answer(request.answer, &options)?;
    Ok(Validated {
        valid: true,
        protocol: u8::from(parsed.plan.protocol),
        plan: parsed.plan,
        notes: parsed.warnings,
    })
}
