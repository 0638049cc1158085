//! Why a request to a provider failed, and what the user should do about it.

use crate::codes::{Code, Problem};

/// A provider call that did not produce an answer. Messages never carry a key: server text is
/// masked before it is kept.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error("no provider is configured and no Ollama answers at {url}")]
    NotConfigured { url: String },
    #[error("{provider} at {url} cannot be reached: {reason}")]
    Unreachable {
        provider: String,
        url: String,
        reason: String,
    },
    #[error("{provider} refused {} ({status}): {message}", if *.key_sent { "the key" } else { "the request without a key" })]
    Auth {
        provider: String,
        status: u16,
        /// The variable the key is read from, when the provider has one.
        key_var: Option<String>,
        /// Whether a key was sent at all.
        key_sent: bool,
        message: String,
    },
    #[error("{provider} says the quota is used up: {message}")]
    Quota { provider: String, message: String },
    #[error("{provider} rejected the request ({status}): {message}")]
    BadRequest {
        provider: String,
        status: u16,
        message: String,
    },
    #[error("{provider} is still rate limiting after {tries} tries: {message}")]
    RateLimited {
        provider: String,
        tries: u32,
        message: String,
    },
    #[error("{provider} failed {tries} times (last status {status}): {message}")]
    Server {
        provider: String,
        status: u16,
        tries: u32,
        message: String,
    },
    #[error("{provider} sent nothing for {seconds}s, {tries} times")]
    Timeout {
        provider: String,
        seconds: u64,
        tries: u32,
    },
    #[error("{provider} answered something that is not its API's format: {reason}")]
    BadResponse { provider: String, reason: String },
    #[error("{provider} used only {used} of about {sent} prompt tokens: the prompt was cut")]
    ContextTruncated {
        provider: String,
        used: u64,
        sent: u64,
    },
    #[error("no model is configured for {provider}")]
    ModelMissing { provider: String },
    #[error(
        "{provider}'s answer stream ended without its end marker ({chars} characters in), {tries} times: the connection was dropped"
    )]
    StreamCut {
        provider: String,
        chars: usize,
        tries: u32,
    },
    #[error("{provider}'s answer went past {limit} bytes, more than its token budget allows")]
    AnswerTooLarge { provider: String, limit: usize },
    /// The caller's [`super::Meter`] refused a try (the cost cap): its problem, as it is.
    #[error("{}", .0.text())]
    Refused(Problem),
    #[error(
        "{provider} cannot take a prompt this long ({chars} characters, about {tokens} tokens): {message}"
    )]
    ContextTooLong {
        provider: String,
        chars: usize,
        tokens: u64,
        message: String,
    },
}

impl LlmError {
    /// The stable code and a one-line reason that says what to do next.
    pub fn to_problem(&self) -> Problem {
        if let LlmError::Auth {
            provider,
            key_var,
            key_sent,
            ..
        } = self
        {
            return Problem::new(
                Code::LlmAuth,
                format!(
                    "{self}; {}",
                    auth_hint(provider, key_var.as_deref(), *key_sent)
                ),
            );
        }
        let (code, hint) = match self {
            LlmError::Refused(problem) => return problem.clone(),
            LlmError::NotConfigured { .. } => (
                Code::LlmNotConfigured,
                "set papayu.provider (git papayu config), or pass the answer with --response FILE",
            ),
            LlmError::Unreachable { .. } => (
                Code::LlmUnreachable,
                "check the URL (git papayu config) and that the server is running",
            ),
            LlmError::Auth { .. } => (Code::LlmAuth, ""),
            LlmError::Quota { .. } => (
                Code::LlmQuota,
                "add credit or raise the spend limit at the provider, or use another provider",
            ),
            LlmError::BadRequest { .. } => (
                Code::LlmBadRequest,
                "check the model name and settings (git papayu config)",
            ),
            LlmError::RateLimited { .. } => (
                Code::LlmRateLimited,
                "wait and run the command again, or use another provider",
            ),
            LlmError::Server { .. } => (
                Code::LlmServer,
                "the provider is failing; try again later or use another provider",
            ),
            LlmError::Timeout { .. } => (
                Code::LlmTimeout,
                "raise PAPAYU_LLM_TIMEOUT_SEC or use a faster model",
            ),
            LlmError::BadResponse { .. } => (
                Code::LlmBadResponse,
                "check that the URL points at the API the wire setting names (papayu.<name>.wire)",
            ),
            LlmError::ContextTruncated { .. } => (
                Code::LlmContextTruncated,
                "use a model with a larger context window, or send less (PAPAYU_CONTEXT_MAX_TOTAL_CHARS)",
            ),
            LlmError::StreamCut { .. } => (
                Code::LlmStreamCut,
                "check the server's log and any proxy in between (one that closes long responses), then run the command again",
            ),
            LlmError::AnswerTooLarge { .. } => (
                Code::LlmAnswerTooLarge,
                "the model ignored its token budget; check the server's settings for the model, or ask for a smaller change",
            ),
            LlmError::ContextTooLong { .. } => (
                Code::LlmContextTooLong,
                "raise the server's window above the prompt's tokens (Ollama: num_ctx, e.g. OLLAMA_CONTEXT_LENGTH=8192 ollama serve; llama.cpp: llama-server --ctx-size 8192; vLLM: --max-model-len), send less context (lower PAPAYU_CONTEXT_MAX_TOTAL_CHARS), or use a model with a larger window",
            ),
            LlmError::ModelMissing { .. } => (
                Code::LlmModelMissing,
                "name one with --model, PAPAYU_LLM_MODEL or git config papayu.model",
            ),
        };
        if let LlmError::NotConfigured { .. } = self {
            // Two short lines: what is wrong, then what to do.
            return Problem::new(code, self.to_string()).with_detail(format!("hint: {hint}"));
        }
        Problem::new(code, format!("{self}; {hint}"))
    }
}

/// What to do when `provider` refused its key: the variable to set (its name, never its
/// value), and where another one is named.
fn auth_hint(provider: &str, key_var: Option<&str>, key_sent: bool) -> String {
    let other = format!("git config papayu.{provider}.keyEnv names another variable");
    match (key_var, key_sent) {
        (Some(var), true) => format!(
            "the key came from {var}: set {var} to a valid key with access to the model ({other})"
        ),
        (Some(var), false) => format!("set {var} to {provider}'s key ({other})"),
        (None, _) => format!("set the variable holding {provider}'s key ({other})"),
    }
}
