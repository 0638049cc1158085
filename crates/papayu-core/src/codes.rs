//! Stable error codes and the `Problem` type every rejection is reported with.
//!
//! A code is part of the tool's interface: scripts match on it, the repair round sends it back
//! to the model, and `trace report` counts it. Codes are never renamed or reused; a new rule gets
//! a new code. The reason that travels with a code is one line that says what went wrong *and*
//! what to do next.

use std::fmt;

use serde::{Serialize, Serializer};

macro_rules! codes {
    ($($variant:ident => $text:literal,)*) => {
        /// Every stable error code the tool can print.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code {
            $($variant,)*
        }

        impl Code {
            /// All codes, in declaration order (used by docs and tests to stay in sync).
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The code as printed, e.g. `ERR_PATH_DOTDOT`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $text,)*
                }
            }

            /// Looks a printed code up again (for traces and golden files).
            pub fn parse(text: &str) -> Option<Code> {
                match text {
                    $($text => Some(Code::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

codes! {
    // Reading the model's answer.
    EmptyInput => "ERR_EMPTY_INPUT",
    InputNotUtf8 => "ERR_INPUT_NOT_UTF8",
    InputTooLarge => "ERR_INPUT_TOO_LARGE",
    InputUnreadable => "ERR_INPUT_UNREADABLE",
    NoJson => "ERR_NO_JSON",
    JsonParse => "ERR_JSON_PARSE",
    JsonTooDeep => "ERR_JSON_TOO_DEEP",
    SchemaViolation => "ERR_SCHEMA_VIOLATION",
    V2RootNotObject => "ERR_V2_ROOT_NOT_OBJECT",
    V2NestedActions => "ERR_V2_NESTED_ACTIONS",
    // Paths.
    PathEmpty => "ERR_PATH_EMPTY",
    PathAbsolute => "ERR_PATH_ABSOLUTE",
    PathDrive => "ERR_PATH_DRIVE",
    PathUnc => "ERR_PATH_UNC",
    PathHome => "ERR_PATH_HOME",
    PathDotDot => "ERR_PATH_DOTDOT",
    PathDot => "ERR_PATH_DOT",
    PathBackslash => "ERR_PATH_BACKSLASH",
    PathControlChar => "ERR_PATH_CONTROL_CHAR",
    PathTooLong => "ERR_PATH_TOO_LONG",
    PathGitInternal => "ERR_PATH_GIT_INTERNAL",
    PathThroughSymlink => "ERR_PATH_THROUGH_SYMLINK",
    ProtectedPath => "ERR_PROTECTED_PATH",
    ForbiddenPath => "ERR_FORBIDDEN_PATH",
    AllowlistInvalid => "ERR_ALLOWLIST_INVALID",
    // Limits and content.
    TooManyActions => "ERR_TOO_MANY_ACTIONS",
    FileTooLarge => "ERR_FILE_TOO_LARGE",
    TotalTooLarge => "ERR_TOTAL_CONTENT_TOO_LARGE",
    ContentNul => "ERR_CONTENT_NUL",
    PseudoBinary => "ERR_PSEUDO_BINARY",
    ContentMissing => "ERR_CONTENT_MISSING",
    ContentUnexpected => "ERR_CONTENT_UNEXPECTED",
    // Plan shape.
    ActionConflict => "ERR_ACTION_CONFLICT",
    NoChangesMarker => "ERR_NO_CHANGES_MARKER",
    V2UpdateExistingForbidden => "ERR_V2_UPDATE_EXISTING_FORBIDDEN",
    V1KindNotAllowed => "ERR_V1_KIND_NOT_ALLOWED",
    PatchMissing => "ERR_PATCH_MISSING",
    PatchWithContent => "ERR_PATCH_WITH_CONTENT",
    PatchNotUnified => "ERR_PATCH_NOT_UNIFIED",
    PatchApplyFailed => "ERR_PATCH_APPLY_FAILED",
    PatchMultiFile => "ERR_PATCH_MULTI_FILE",
    PatchPathMismatch => "ERR_PATCH_PATH_MISMATCH",
    PatchDevNull => "ERR_PATCH_DEV_NULL",
    RangeInvalid => "ERR_RANGE_INVALID",
    BaseSha256Invalid => "ERR_BASE_SHA256_INVALID",
    BaseMismatch => "ERR_BASE_MISMATCH",
    NonUtf8File => "ERR_NON_UTF8_FILE",
    UpdateWithoutBase => "ERR_UPDATE_WITHOUT_BASE",
    UpdatePartialView => "ERR_UPDATE_PARTIAL_VIEW",
    ContentElided => "ERR_CONTENT_ELIDED",
    MemoryPatchType => "ERR_MEMORY_PATCH_TYPE",
    // Applying to a tree.
    TargetExists => "ERR_TARGET_EXISTS",
    TargetMissing => "ERR_TARGET_MISSING",
    FileDirConflict => "ERR_FILE_DIR_CONFLICT",
    // Repository and workflow.
    NotARepository => "ERR_NOT_A_REPOSITORY",
    RepositoryUnsupported => "ERR_REPOSITORY_UNSUPPORTED",
    NoSuchRemote => "ERR_NO_SUCH_REMOTE",
    RemoteFailed => "ERR_REMOTE_FAILED",
    PushRejected => "ERR_PUSH_REJECTED",
    // Checks on other machines.
    RequestNoCheck => "ERR_REQUEST_NO_CHECK",
    RequestMalformed => "ERR_REQUEST_MALFORMED",
    RequestTooNew => "ERR_REQUEST_TOO_NEW",
    RequestStale => "ERR_REQUEST_STALE",
    RequestNotFound => "ERR_REQUEST_NOT_FOUND",
    RequestCommandRefused => "ERR_REQUEST_COMMAND_REFUSED",
    WorkerKey => "ERR_WORKER_KEY",
    WorkerConfigInvalid => "ERR_WORKER_CONFIG_INVALID",
    BadRevision => "ERR_BAD_REVISION",
    PlanNotFound => "ERR_PLAN_NOT_FOUND",
    TraceNotFound => "ERR_TRACE_NOT_FOUND",
    ReplayDiffers => "ERR_REPLAY_DIFFERS",
    PlanAmbiguous => "ERR_PLAN_AMBIGUOUS",
    PlanState => "ERR_PLAN_STATE",
    DirtyWorktree => "ERR_DIRTY_WORKTREE",
    MergeFailed => "ERR_MERGE_FAILED",
    CheckFailed => "ERR_CHECK_FAILED",
    RefMoved => "ERR_REF_MOVED",
    RefLocked => "ERR_REF_LOCKED",
    RefDamaged => "ERR_REF_DAMAGED",
    ObjectsVanished => "ERR_OBJECTS_VANISHED",
    NothingToUndo => "ERR_NOTHING_TO_UNDO",
    NothingToRedo => "ERR_NOTHING_TO_REDO",
    Io => "ERR_IO",
    Git => "ERR_GIT",
    // The plan loop.
    LlmTruncated => "ERR_LLM_TRUNCATED",
    LlmContextRounds => "ERR_LLM_CONTEXT_ROUNDS",
    GoalTooLong => "ERR_GOAL_TOO_LONG",
    ReproNotTests => "ERR_REPRO_NOT_TESTS",
    ReproNeedsCheck => "ERR_REPRO_NEEDS_CHECK",
    Cancelled => "ERR_CANCELLED",
    UnknownCommand => "ERR_UNKNOWN_COMMAND",
    Usage => "ERR_USAGE",
    Internal => "ERR_INTERNAL",
    ConfigInvalid => "ERR_CONFIG_INVALID",
    // Providers.
    LlmNotConfigured => "ERR_LLM_NOT_CONFIGURED",
    LlmUnreachable => "ERR_LLM_UNREACHABLE",
    LlmAuth => "ERR_LLM_AUTH",
    LlmQuota => "ERR_LLM_QUOTA",
    LlmBadRequest => "ERR_LLM_BAD_REQUEST",
    LlmRateLimited => "ERR_LLM_RATE_LIMITED",
    LlmServer => "ERR_LLM_SERVER",
    LlmTimeout => "ERR_LLM_TIMEOUT",
    LlmBadResponse => "ERR_LLM_BAD_RESPONSE",
    LlmContextTruncated => "ERR_LLM_CONTEXT_TRUNCATED",
    LlmModelMissing => "ERR_LLM_MODEL_MISSING",
    LlmStreamCut => "ERR_LLM_STREAM_CUT",
    LlmAnswerTooLarge => "ERR_LLM_ANSWER_TOO_LARGE",
    LlmContextTooLong => "ERR_LLM_CONTEXT_TOO_LONG",
    // Shared notes, identity and signing.
    ForeignCommits => "ERR_FOREIGN_COMMITS",
    IdentityUnknown => "ERR_IDENTITY_UNKNOWN",
    SigningFailed => "ERR_SIGNING_FAILED",
    // Security and trust: paths, special files, the check's origin and its sandbox.
    PathInvisibleChar => "ERR_PATH_INVISIBLE_CHAR",
    GitmodulesInvalid => "ERR_GITMODULES_INVALID",
    ProjectConfigInvalid => "ERR_PROJECT_CONFIG_INVALID",
    CheckConfigInvalid => "ERR_CHECK_CONFIG_INVALID",
    CheckTimeout => "ERR_CHECK_TIMEOUT",
    CheckSandbox => "ERR_CHECK_SANDBOX",
    CheckBroke => "ERR_CHECK_BROKE",
    TestsWeakened => "ERR_TESTS_WEAKENED",
    CostCap => "ERR_COST_CAP",
    MaskedSecret => "ERR_MASKED_SECRET",
}

impl Code {
    /// The exit status a command that fails with this code ends with: 3 when git or the file
    /// system underneath failed (not the user's input, not the plan), else 1.
    pub fn exit_status(self) -> u8 {
        match self {
            Code::Io | Code::Git | Code::Internal | Code::RefDamaged | Code::ObjectsVanished => 3,
            Code::Usage => 2,
            _ => 1,
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Code {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// Everything one step found wrong, in the order found: what a step that can fail in several
/// ways at once (validating a plan, building its tree) returns. `?` turns a single [`Problem`],
/// or a store error, into a list of one.
pub type Problems = Vec<Problem>;

impl From<Problem> for Problems {
    fn from(p: Problem) -> Self {
        vec![p]
    }
}

/// One rejection: a stable code, a one-line reason that says what happened, a hint that says what
/// to do about it, and optionally a longer report (e.g. which patch hunk failed and what the
/// file holds instead). Shown as one line, `reason; hint`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{code}: {}", self.text())]
pub struct Problem {
    pub code: Code,
    pub reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The path of the action the problem is about, when it is about one: carried as data, so
    /// nothing has to read it back out of the reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

impl Problem {
    pub fn new(code: Code, reason: impl Into<String>) -> Problem {
        let reason: String = reason.into();
        // A reason is one line by contract: fold anything a caller let through.
        let reason = if reason.contains('\n') {
            reason.split('\n').collect::<Vec<_>>().join(" / ")
        } else {
            reason
        };
        Problem {
            code,
            reason,
            hint: None,
            detail: None,
            path: None,
        }
    }

    /// Says what to do about it (one line, like the reason).
    pub fn with_hint(mut self, hint: impl Into<String>) -> Problem {
        let hint = Problem::new(self.code, hint).reason;
        self.hint = (!hint.trim().is_empty()).then_some(hint);
        self
    }

    /// The path of the action it is about.
    pub fn at_path(mut self, path: impl Into<String>) -> Problem {
        self.path = Some(path.into());
        self
    }

    /// The reason, prefixed with what it is about (`action 2 (PATCH_FILE a.rs): …`).
    pub fn about(mut self, subject: impl std::fmt::Display) -> Problem {
        self.reason = format!("{subject}: {}", self.reason);
        self
    }

    /// The one line a person or a model reads: the reason, then the hint.
    pub fn text(&self) -> String {
        match &self.hint {
            Some(hint) => format!("{}; {hint}", self.reason),
            None => self.reason.clone(),
        }
    }

    /// Attaches a multi-line report, shown under the one-line reason.
    pub fn with_detail(mut self, detail: impl Into<String>) -> Problem {
        let detail: String = detail.into();
        self.detail = (!detail.trim().is_empty()).then_some(detail);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for code in Code::ALL {
            assert!(seen.insert(code.as_str()), "duplicate {code}");
            assert_eq!(Code::parse(code.as_str()), Some(*code));
        }
    }

    #[test]
    fn reasons_are_folded_to_one_line() {
        let p = Problem::new(Code::Io, "a\nb");
        assert_eq!(p.reason, "a / b");
        assert_eq!(p.to_string(), "ERR_IO: a / b");
    }

    #[test]
    fn a_hint_follows_the_reason_on_one_line() {
        let p = Problem::new(Code::TargetMissing, "no such file").with_hint("create it\nfirst");
        assert_eq!(p.text(), "no such file; create it / first");
        assert_eq!(
            p.to_string(),
            "ERR_TARGET_MISSING: no such file; create it / first"
        );
        let json = serde_json::to_value(&p).unwrap();
        assert_eq!(json["hint"], "create it / first");
        assert!(
            serde_json::to_value(Problem::new(Code::Io, "x"))
                .unwrap()
                .get("hint")
                .is_none()
        );
        assert_eq!(p.about("action 1").reason, "action 1: no such file");
    }
}
