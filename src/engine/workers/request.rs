//! The check request: what a worker needs to run the check papayu would run here.
//!
//! A request names the candidates (plan id → proposal branch and commit, with the base each is
//! judged against), the check command and its settings, the sandbox policy, and the papayu
//! version and request format that wrote it. It is stored as `request.json` in a commit of its
//! own (see [`crate::store::checks`]). Reading one is strict: a request that does not parse, or
//! whose ids are not object ids, is `ERR_REQUEST_MALFORMED`; one written in a newer format than
//! this papayu reads is `ERR_REQUEST_TOO_NEW`, never half-understood.

use serde::{Deserialize, Serialize};

use crate::codes::{Code, Problem};
use crate::store::checks::is_ref_component;

/// The request format this papayu writes, and the newest it reads.
pub const REQUEST_FORMAT: u32 = 1;

/// This papayu's version, as requests and results name it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// A check request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// The request format ([`REQUEST_FORMAT`]).
    pub format: u32,
    /// The papayu version that wrote it.
    pub papayu: String,
    /// The request's id: its branch is `papayu/check/<id>`.
    pub id: String,
    /// When it was made (milliseconds since the epoch).
    pub requested_at: i64,
    /// The remote it was pushed to, as the requester names it (for people; workers ignore it).
    pub remote: String,
    pub candidates: Vec<Candidate>,
    pub check: CheckSpec,
    pub sandbox: SandboxSpec,
}

/// One proposal to check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Candidate {
    pub plan: String,
    /// The proposal branch (`papayu/…`), which must still point at `commit` on the remote.
    pub branch: String,
    pub commit: String,
    /// The commit the proposal is judged against: `commit`'s parent.
    pub base: String,
}

/// The check to run, as the requester resolved it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckSpec {
    /// Run through `sh -c` in a worktree of the candidate (and of the base).
    pub command: String,
    /// Where the requester's papayu took the command from.
    pub source: String,
    /// Seconds before the check is killed; `None`: no limit.
    pub timeout_secs: Option<u64>,
    /// Whether the check may use the network.
    pub network: bool,
    /// A JUnit XML report the check writes, relative to the top of the tree.
    #[serde(default)]
    pub junit: Option<String>,
    /// Variables passed to the check beyond the built-in few (names, or `PREFIX*`): their
    /// values are the worker's.
    #[serde(default)]
    pub env: Vec<String>,
}

/// How the check must be confined.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxSpec {
    /// Confine the check where the kernel can (Landlock): the requester's `papayu.checkSandbox`.
    pub confine: bool,
    /// Provider keys and other credentials are removed from the check's environment.
    pub no_credentials: bool,
}

impl Request {
    /// The request as stored: pretty JSON, one field a line, so that a person reading the
    /// branch in a CI system's web view reads it too.
    pub fn to_text(&self) -> String {
        #[expect(
            clippy::expect_used,
            reason = "serializing a derived type with string keys cannot fail"
        )]
        let mut text = serde_json::to_string_pretty(self).expect("a request serializes");
        text.push('\n');
        text
    }

    /// The request commit's message: a subject a CI system shows, and what it asks.
    pub fn message(&self) -> String {
        let plans: Vec<String> = self
            .candidates
            .iter()
            .map(|c| format!("  {} {} ({})", &c.plan[..10], c.branch, &c.commit[..10]))
            .collect();
        format!(
            "papayu: check request {}\n\nCheck {} proposal(s) with `{}`:\n{}\n\nRun it with: git papayu worker --request {}\n",
            self.id,
            self.candidates.len(),
            self.check.command,
            plans.join("\n"),
            self.id
        )
    }

    /// Reads a stored request, strictly.
    pub fn parse(text: &str) -> Result<Request, Problem> {
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| malformed(format!("request.json is not JSON ({e})")))?;
        let format = value
            .get("format")
            .and_then(serde_json::Value::as_u64)
            .ok_or_else(|| malformed("request.json has no format number".to_string()))?;
        if format > u64::from(REQUEST_FORMAT) {
            let by = value
                .get("papayu")
                .and_then(serde_json::Value::as_str)
                .unwrap_or("a newer papayu");
            return Err(Problem::new(
                Code::RequestTooNew,
                format!(
                    "the request is in format {format}, written by papayu {by}; this papayu ({VERSION}) reads format {REQUEST_FORMAT} at most, and nothing was run"
                ),
            )
            .with_hint("upgrade papayu on this worker (the request stays open for another worker)"));
        }
        let request: Request = serde_json::from_value(value)
            .map_err(|e| malformed(format!("request.json does not read as a request ({e})")))?;
        request.validate()?;
        Ok(request)
    }

    fn validate(&self) -> Result<(), Problem> {
        let hex = |s: &str| s.len() == 40 && s.bytes().all(|b| b.is_ascii_hexdigit());
        if !is_ref_component(&self.id) {
            return Err(malformed(format!("its id '{}' is no ref name", self.id)));
        }
        if self.candidates.is_empty() {
            return Err(malformed("it names no candidate".to_string()));
        }
        for c in &self.candidates {
            let branch_ok = c
                .branch
                .strip_prefix("papayu/")
                .is_some_and(|rest| rest.split('/').all(is_ref_component));
            if !hex(&c.plan) || !hex(&c.commit) || !hex(&c.base) || !branch_ok {
                return Err(malformed(format!(
                    "candidate {} names no plan id, commit, base or papayu/ branch",
                    c.plan
                )));
            }
        }
        if self.check.command.trim().is_empty() {
            return Err(malformed("its check command is empty".to_string()));
        }
        Ok(())
    }
}

fn malformed(what: String) -> Problem {
    Problem::new(
        Code::RequestMalformed,
        format!("the check request is malformed: {what}; nothing was run"),
    )
    .with_hint("ask again from the requesting clone with git papayu apply --on REMOTE")
}

/// A new request id: 12 hex digits.
pub fn new_id() -> String {
    let hex = uuid::Uuid::new_v4().simple().to_string();
    hex[..12].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Request {
        Request {
            format: REQUEST_FORMAT,
            papayu: VERSION.to_string(),
            id: "0123456789ab".to_string(),
            requested_at: 1,
            remote: "origin".to_string(),
            candidates: vec![Candidate {
                plan: "a".repeat(40),
                branch: "papayu/fix-aaaaaaaaaa".to_string(),
                commit: "b".repeat(40),
                base: "c".repeat(40),
            }],
            check: CheckSpec {
                command: "make test".to_string(),
                source: "--check".to_string(),
                timeout_secs: Some(600),
                network: false,
                junit: None,
                env: Vec::new(),
            },
            sandbox: SandboxSpec {
                confine: true,
                no_credentials: true,
            },
        }
    }

    #[test]
    fn a_request_reads_back_as_written() {
        let r = sample();
        assert_eq!(Request::parse(&r.to_text()).unwrap(), r);
    }

    #[test]
    fn newer_and_malformed_requests_are_refused_by_code() {
        let mut newer: serde_json::Value = serde_json::from_str(&sample().to_text()).unwrap();
        newer["format"] = (REQUEST_FORMAT + 1).into();
        newer["whatever"] = "new".into();
        let e = Request::parse(&newer.to_string()).unwrap_err();
        assert_eq!(e.code, Code::RequestTooNew);
        assert_eq!(
            Request::parse("{").unwrap_err().code,
            Code::RequestMalformed
        );
        let mut bad = sample();
        bad.candidates[0].branch = "main".to_string();
        assert_eq!(
            Request::parse(&bad.to_text()).unwrap_err().code,
            Code::RequestMalformed
        );
    }
}
