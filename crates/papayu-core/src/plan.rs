//! The normalized plan: what every accepted model answer becomes, whatever its spelling.
//!
//! The bottom layer beside [`crate::codes`]: the protocol module reads answers into these types,
//! the store keeps them in records without knowing how they were read, and the executor runs
//! them. These types are what the rest of the tool sees. They carry no trace of the answer's surface
//! form (array root or object root, `proposed_changes.actions` or root `actions`, fences, prose):
//! that is the parser's business. Serialized, a `Plan` is the record stored in the git note.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Protocol version of an answer: v1 (whole-file actions) or v2 (patches pinned by hash).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "u8", try_from = "u8")]
pub enum ProtocolVersion {
    V1,
    V2,
}

impl From<ProtocolVersion> for u8 {
    fn from(v: ProtocolVersion) -> u8 {
        match v {
            ProtocolVersion::V1 => 1,
            ProtocolVersion::V2 => 2,
        }
    }
}

impl TryFrom<u8> for ProtocolVersion {
    type Error = String;
    fn try_from(n: u8) -> Result<Self, String> {
        match n {
            1 => Ok(ProtocolVersion::V1),
            2 => Ok(ProtocolVersion::V2),
            other => Err(format!("unknown protocol version {other}")),
        }
    }
}

/// Which phase an answer is validated for: a PLAN answer may carry no actions; an APPLY answer
/// with no actions must say `NO_CHANGES:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    #[default]
    Plan,
    Apply,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ActionKind {
    CreateDir,
    CreateFile,
    UpdateFile,
    PatchFile,
    ReplaceRange,
    DeleteFile,
    DeleteDir,
}

impl ActionKind {
    /// Position in the apply order: CREATE_DIR → CREATE/UPDATE/PATCH/REPLACE → DELETE_FILE →
    /// DELETE_DIR.
    pub fn phase(self) -> u8 {
        match self {
            ActionKind::CreateDir => 0,
            ActionKind::CreateFile
            | ActionKind::UpdateFile
            | ActionKind::PatchFile
            | ActionKind::ReplaceRange => 1,
            ActionKind::DeleteFile => 2,
            ActionKind::DeleteDir => 3,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ActionKind::CreateDir => "CREATE_DIR",
            ActionKind::CreateFile => "CREATE_FILE",
            ActionKind::UpdateFile => "UPDATE_FILE",
            ActionKind::PatchFile => "PATCH_FILE",
            ActionKind::ReplaceRange => "REPLACE_RANGE",
            ActionKind::DeleteFile => "DELETE_FILE",
            ActionKind::DeleteDir => "DELETE_DIR",
        }
    }
}

/// One file operation, normalized.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Action {
    pub kind: ActionKind,
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_line: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u64>,
}

impl Action {
    pub fn new(kind: ActionKind, path: impl Into<String>) -> Action {
        Action {
            kind,
            path: path.into(),
            content: None,
            patch: None,
            base_sha256: None,
            start_line: None,
            end_line: None,
        }
    }
}

/// One step of the model's plan (`plan: [{step, details}]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    pub step: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<String>,
}

/// What the model asks to see before answering again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContextRequest {
    ReadFile {
        path: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        start_line: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        end_line: Option<u64>,
    },
    Search {
        query: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        glob: Option<String>,
    },
    Logs {
        source: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        last_n: Option<u64>,
    },
    Env,
}

/// A model answer after parsing, schema validation and normalization.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub protocol: ProtocolVersion,
    /// The answer's own `mode` field (`fix-plan`, `apply`), when it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Actions in apply order (CREATE_DIR → writes → DELETE_FILE → DELETE_DIR), stable within a
    /// phase.
    #[serde(default)]
    pub actions: Vec<Action>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub questions: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub context_requests: Vec<ContextRequest>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<Step>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub risks: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commands_to_run: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verification: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rollback: Vec<String>,
    /// A whole-answer unified diff (`patch` at the root or in `proposed_changes`), kept as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch: Option<String>,
    /// Whitelisted, type-checked memory updates (`user.*`, `project.*`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub memory_patch: BTreeMap<String, serde_json::Value>,
}

impl Plan {
    /// An empty plan of the given protocol (used by tests and by callers building plans).
    pub fn empty(protocol: ProtocolVersion) -> Plan {
        Plan {
            protocol,
            mode: None,
            summary: None,
            actions: Vec::new(),
            questions: Vec::new(),
            context_requests: Vec::new(),
            steps: Vec::new(),
            risks: Vec::new(),
            commands_to_run: Vec::new(),
            verification: Vec::new(),
            rollback: Vec::new(),
            patch: None,
            memory_patch: BTreeMap::new(),
        }
    }

    /// `true` when the plan says, as the protocol asks, that nothing needs to change.
    pub fn is_no_changes(&self) -> bool {
        self.actions.is_empty()
            && self
                .summary
                .as_deref()
                .is_some_and(|s| s.trim_start().starts_with("NO_CHANGES:"))
    }
}
