//! The words sent to a model: one system prompt per mode and protocol version, the
//! `ENGINEERING_MEMORY` block, and the layout of a conversation.
//!
//! A request is laid out for prompt caching: a byte-stable prefix (system prompt, memory, the
//! context message) and then the volatile part (goal, context rounds, repair feedback). Every
//! later round appends to the conversation and never rewrites what came before, so a provider
//! that caches by prefix serves the whole earlier conversation from its cache. Nothing here may
//! depend on the clock, the environment or hash-map order.

use crate::codes::Problem;
use crate::protocol::{Mode, ProtocolVersion};

/// How the model is asked to work (the seeds' `PAPAYU_LLM_MODE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LlmMode {
    /// An engineering colleague: answers with the actions that reach the goal.
    #[default]
    Chat,
    /// Must fix: the actions that repair the failure and the command that verifies it.
    Fixit,
    /// A plan first: diagnosis, steps, questions, context requests and proposed changes.
    FixPlan,
}

impl LlmMode {
    pub fn parse(text: &str) -> Option<LlmMode> {
        match text.trim().to_ascii_lowercase().as_str() {
            "chat" => Some(LlmMode::Chat),
            "fixit" | "fix-it" => Some(LlmMode::Fixit),
            "fix-plan" | "fixplan" | "plan" => Some(LlmMode::FixPlan),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            LlmMode::Chat => "chat",
            LlmMode::Fixit => "fixit",
            LlmMode::FixPlan => "fix-plan",
        }
    }
}

const ROLE: &str = "\
You are the planning engine of git-papayu, a tool that turns your answer into a reviewable git \
commit. You never run anything: the tool validates your answer, applies it to the files of one \
commit, and the user reviews it as a branch.

Answer with ONE JSON object and nothing else: no prose, no markdown fences.";

const RULES: &str = "\
Rules:
- Never invent the content of files or logs. When you need to see a file, a search result, logs \
or the environment, ask with context_requests and no actions; the tool answers and asks you \
again (at most 2 rounds).
- Never claim that tests or commands ran: the tool did not run them. List them in \
commands_to_run; the tool prints them and never executes them.
- When information is missing, ask at most 2 questions in questions.
- Make the smallest change that reaches the goal. No broad refactoring unless asked.
- Paths are relative to the repository root, with / separators: no absolute paths, no .., no .git/.
- Never read, write or delete protected files: .env*, *.pem, *.key, *.p12, id_rsa*, **/secrets/**.
- Actions apply in this order: directories created, files written, files deleted, directories \
deleted. One path gets one write at most.
- If nothing needs to change, return no actions and a summary starting with \"NO_CHANGES:\".";

const SHAPE_V1: &str = "\
Protocol v1. The JSON object has these fields (all optional except what your answer needs):
- summary: string, one or two sentences: what is wrong and what you change.
- actions: [{\"kind\": \"CREATE_FILE\"|\"UPDATE_FILE\"|\"DELETE_FILE\"|\"CREATE_DIR\"|\"DELETE_DIR\", \
\"path\": \"relative/path\", \"content\": \"the complete new file\"}]. CREATE_FILE and UPDATE_FILE \
carry the COMPLETE file content: never elide existing code with comments like \"... rest \
unchanged ...\". UPDATE_FILE only for files shown to you in full.
";

const SHAPE_V2: &str = "\
Protocol v2. The JSON object has these fields (all optional except what your answer needs):
- summary: string, one or two sentences: what is wrong and what you change.
- actions (at the root only): a list of
  {\"kind\": \"PATCH_FILE\", \"path\", \"patch\": \"unified diff of this one file (@@ hunks with 3 \
lines of context)\", \"base_sha256\": \"the sha256 shown with the file\"} to change an existing file;
  {\"kind\": \"REPLACE_RANGE\", \"path\", \"start_line\", \"end_line\", \"content\", \"base_sha256\"} to \
replace lines start_line..end_line (1-based, inclusive);
  {\"kind\": \"CREATE_FILE\", \"path\", \"content\": \"the complete file\"} for a new file;
  {\"kind\": \"DELETE_FILE\"|\"CREATE_DIR\"|\"DELETE_DIR\", \"path\"}.
  Change existing files with PATCH_FILE (preferred) or REPLACE_RANGE: UPDATE_FILE of an existing \
file is refused. base_sha256 is the sha256 printed in the FILE[path] (sha256=…) header of the \
file you were shown. Copy context lines exactly as they appear in the file.
";

/// The fields both protocol versions share, after the actions.
const SHAPE_COMMON: &str = "\
- plan: [{\"step\": string, \"details\": string}]
- questions: [string]; risks: [string]; commands_to_run: [string]; verification: [string]
- context_requests: [{\"type\": \"read_file\", \"path\", \"start_line\"?, \"end_line\"?} | \
{\"type\": \"search\", \"query\", \"glob\"?} | {\"type\": \"logs\", \"source\", \"last_n\"?} | {\"type\": \"env\"}]
- memory_patch: {\"user.preferred_style\"|\"project.default_test_command\"|…: value}, only when the \
user asks you to remember something.";

fn mode_text(mode: LlmMode) -> &'static str {
    match mode {
        LlmMode::Chat => {
            "\
Mode: chat. Act as a senior engineer on the team: return the actions that reach the goal, \
with a short summary and the commands that verify the change."
        }
        LlmMode::Fixit => {
            "\
Mode: fixit. The goal describes a failure. You must return the actions that fix it and, in \
commands_to_run, the command that shows it fixed. Explain the cause in summary."
        }
        LlmMode::FixPlan => {
            "\
Mode: fix-plan. Set \"mode\": \"fix-plan\". Diagnose first: summary (why it fails and what you \
will do), plan (steps), risks, questions, then the proposed actions. Nothing is applied until \
the user says ok."
        }
    }
}

/// The system prompt for a mode and protocol version, followed by the memory block.
pub fn system(mode: LlmMode, version: ProtocolVersion, memory: &str) -> String {
    let shape = match version {
        ProtocolVersion::V1 => SHAPE_V1,
        ProtocolVersion::V2 => SHAPE_V2,
    };
    let mut text = format!(
        "{ROLE}\n\n{}\n\n{RULES}\n\n{shape}\n{SHAPE_COMMON}\n",
        mode_text(mode)
    );
    if !memory.is_empty() {
        text.push_str("\nENGINEERING_MEMORY (trusted by user; update only when user requests):\n");
        text.push_str(memory);
        text.push_str(
            "\nUse ENGINEERING_MEMORY as defaults (test, lint and format commands, source roots). \
If the user explicitly asks to change it, return memory_patch with the new values.\n",
        );
    }
    text
}

/// The message that states the goal (the first volatile part of a conversation).
pub fn goal(goal: &str, phase: Mode) -> String {
    let phase = match phase {
        Mode::Plan => "Return the plan with its actions.",
        Mode::Apply => {
            "Return the final actions; if nothing needs to change, no actions and a summary \
starting with NO_CHANGES:."
        }
    };
    format!(
        "GOAL:\n{}\n\n{phase} Answer with one JSON object.",
        crate::context::mask_secrets(goal.trim())
    )
}

/// The message that sends back every problem of a rejected answer.
pub fn repair(problems: &[Problem]) -> String {
    let mut text = String::from(
        "Your answer was rejected by local validation. Fix EVERY problem below and answer again \
with the complete corrected JSON object (the whole answer, not only the changed parts):\n",
    );
    for p in problems {
        text.push_str(&format!("- {}: {}\n", p.code, p.text()));
        if let Some(detail) = &p.detail {
            for line in detail.lines() {
                text.push_str(&format!("    {line}\n"));
            }
        }
    }
    text
}

/// The message that carries the answer to a round of context requests.
pub fn context_round(rendered: &str, withheld: &[String], rounds_left: u32) -> String {
    let mut text = String::from("CONTEXT you asked for:\n");
    text.push_str(rendered);
    if !text.ends_with('\n') {
        text.push('\n');
    }
    for line in withheld {
        text.push_str(&format!("withheld: {line}\n"));
    }
    if rounds_left == 0 {
        text.push_str(
            "\nThis was the last context round: answer now with the plan and its actions.",
        );
    } else {
        text.push_str("\nNow answer the goal with the JSON plan.");
    }
    text
}

/// The message that asks a model to answer again under protocol v1 after v2 failed.
pub fn fallback(reason: &str) -> String {
    format!(
        "The tool could not use your protocol v2 answer ({reason}). Answer again under protocol \
v1, as the system prompt describes: whole-file CREATE_FILE / UPDATE_FILE actions with complete \
content, no PATCH_FILE or REPLACE_RANGE."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::Code;

    #[test]
    fn system_prompt_is_stable_and_names_the_protocol() {
        let a = system(LlmMode::Chat, ProtocolVersion::V2, "{\"user\":{}}");
        let b = system(LlmMode::Chat, ProtocolVersion::V2, "{\"user\":{}}");
        assert_eq!(a, b);
        assert!(a.contains("PATCH_FILE"));
        assert!(a.contains("ENGINEERING_MEMORY"));
        let v1 = system(LlmMode::FixPlan, ProtocolVersion::V1, "");
        assert!(!v1.contains("PATCH_FILE"));
        assert!(v1.contains("fix-plan"));
        assert!(!v1.contains("ENGINEERING_MEMORY"));
    }

    #[test]
    fn repair_lists_every_problem_with_detail() {
        let problems = vec![
            Problem::new(Code::JsonParse, "bad json"),
            Problem::new(Code::PatchApplyFailed, "hunk 1").with_detail("tried exact\nnearest: 3"),
        ];
        let text = repair(&problems);
        assert!(text.contains("- ERR_JSON_PARSE: bad json"));
        assert!(text.contains("    nearest: 3"));
    }

    #[test]
    fn modes_parse_from_the_seeds_names() {
        assert_eq!(LlmMode::parse("fix-plan"), Some(LlmMode::FixPlan));
        assert_eq!(LlmMode::parse("FIXIT"), Some(LlmMode::Fixit));
        assert_eq!(LlmMode::parse("chat"), Some(LlmMode::Chat));
        assert_eq!(LlmMode::parse("other"), None);
    }
}
