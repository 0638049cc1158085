//! The tools `git papayu mcp` serves: their names, descriptions and JSON Schema inputs, and each
//! one's work, done through the same library calls as the commands of the same name.
//!
//! A tool that fails answers with a tool error (`isError`), never a protocol error: its
//! structured content carries the stable `ERR_*` code, the reason and every problem, so an agent
//! can correct its plan and try again.

use std::sync::Arc;

use git_papayu::engine::check::CheckChoice;
use git_papayu::engine::plan;
use git_papayu::engine::sync::{self, SyncRequest};
use git_papayu::protocol::{Mode, ProtocolVersion};
use git_papayu::service::propose::{self, Propose};
use git_papayu::service::refine::{self, Refine};
use git_papayu::service::repro::Source;
use git_papayu::service::validate::{self, Validate};
use git_papayu::service::{Service, compare, context, listing, review, rounds, view};
use git_papayu::settings::Settings as Config;
use git_papayu::store::Store;
use git_papayu::{Code, Problem};
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use super::observed::Observed;

/// What the server tells the client about itself at the handshake.
pub const INSTRUCTIONS: &str = "papayu turns a plan of file changes into a reviewable commit on a \
papayu/* branch, without touching the user's working tree, index or branch. Write your change as \
a papayu plan (JSON: {\"summary\", \"actions\": [{\"kind\": \"CREATE_FILE\"|\"PATCH_FILE\"|…, \
\"path\", …}]}, protocol v1 or v2; see docs/protocol.md), check it with papayu_validate, then \
papayu_propose it. Merging a proposal is the user's decision: there is no merge tool.";

/// Every tool's name, as `tools/list` gives them.
pub const NAMES: &[&str] = &[
    "papayu_validate",
    "papayu_propose",
    "papayu_refine",
    "papayu_list",
    "papayu_show",
    "papayu_diff",
    "papayu_compare",
    "papayu_context",
    "papayu_discard",
    "papayu_sync",
];

const NO_MERGE: &str = "papayu offers no merge tool: merging into the user's branch stays the \
user's decision (git papayu merge).";

/// The tools, with their input schemas.
pub fn all() -> Vec<Tool> {
    let id = json!({"type": "string", "description": "A plan id (a unique prefix of at least 4 hex digits) or its proposal branch (papayu/…)."});
    let goal = json!({"type": "string", "minLength": 1, "description": "What the change is for, in a sentence or a few: at most 16 KiB (16,384 bytes)."});
    let answer = json!({"type": "string", "minLength": 1, "description": "The plan as JSON text: {\"summary\", \"actions\": [...]}, protocol v1 or v2 (docs/protocol.md)."});
    let base =
        json!({"type": "string", "description": "The revision to plan against (default HEAD)."});
    let log = json!({"type": "string", "minLength": 1, "description": "A log or error report for the context (a traceback, a failing test's output, a compiler error), as `git papayu plan --log` takes it: papayu sends the files and lines it names."});
    vec![
        tool(
            "papayu_validate",
            "Validate a plan against papayu's protocol without storing anything: returns the \
             normalized plan (actions in apply order) or every problem with its ERR_* code.",
            json!({"answer": answer, "protocol": {"type": "integer", "enum": [1, 2], "description": "Read the answer as this protocol version (default: v2 when it is one, else v1)."}}),
            &["answer"],
            true,
        ),
        tool(
            "papayu_propose",
            &format!(
                "Propose a change: validate the plan, dry-run it on the base commit, store it and \
                 apply it as a commit on a new papayu/* branch, run the user's configured check, and \
                 return {{id, branch, commit, diffstat, check}}. The user's working tree, index and \
                 branch are not touched. With `answer`, your plan text is used (any protocol \
                 version); without it, papayu asks its own configured model, as `git papayu plan` \
                 would. The check is always the user's own: an agent cannot choose or skip it. {NO_MERGE}"
            ),
            json!({
                "goal": goal, "answer": answer, "base": base, "log": log,
                "rounds": {"type": "integer", "minimum": 1, "maximum": 5, "description": "Rounds in all (default papayu.rounds, else 1): while the check leaves tests failing, papayu's configured model is told what failed and asked for a correction on top of the proposal, each round a commit of its own. The result's `rounds` says where and why they stopped."},
                "repro": {"type": "boolean", "description": "Ask papayu's configured model for a test that reproduces the problem first (run on the base; it must fail there). Fixes are then checked with it: the verdict's `reproduction` says whether it passes."},
                "repro_answer": {"type": "string", "minLength": 1, "description": "Your own reproduction test, as a plan that only adds or changes test files (same format as `answer`); run on the base first, and every fix is checked with it."},
            }),
            &["goal"],
            false,
        ),
        tool(
            "papayu_refine",
            &format!(
                "Refine a proposal: papayu's configured model is given the goal, your feedback and \
                 the files as the proposal left them (with what failed, when its check failed), \
                 and its answer is validated, checked with the user's check against the plan's \
                 base, recorded as a new plan and committed on the same papayu/* branch, which \
                 moves only when the check passes. Returns {{plan, refines, branch, commit, \
                 changes, check, verdict}}, with `rounds` when more than one was asked for; \
                 `commit` is null when the answer changed nothing. A failed check (or rounds \
                 that end with tests still failing) is a tool error ERR_CHECK_FAILED with the \
                 check's last output; the refinement stays stored, marked failed. {NO_MERGE}"
            ),
            json!({
                "id": {"type": "string", "description": "The plan to refine: a plan id (a unique prefix of at least 4 hex digits) or its proposal branch; default: the newest plan on HEAD."},
                "feedback": {"type": "string", "minLength": 1, "description": "What to change in the proposal: at most 16 KiB (16,384 bytes)."},
                "rounds": {"type": "integer", "minimum": 1, "maximum": 5, "description": "Rounds in all, this one included (default 1): while the check leaves tests failing, the model is told what failed and asked for another correction."},
            }),
            &["feedback"],
            false,
        ),
        tool(
            "papayu_list",
            &format!(
                "List stored plans, newest first: id, goal, status (proposed, applied, refined, failed, merged, discarded), proposal branch. {NO_MERGE}"
            ),
            json!({"limit": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "How many (default 20)."}}),
            &[],
            true,
        ),
        tool(
            "papayu_show",
            "Show one plan: its record (goal, summary, steps, risks, actions), status, proposal branch and history.",
            json!({"id": id}),
            &["id"],
            true,
        ),
        tool(
            "papayu_diff",
            "The changes a plan made (or would make), as git diff text.",
            json!({"id": id}),
            &["id"],
            true,
        ),
        tool(
            "papayu_compare",
            &format!(
                "Compare competing proposals of one goal and rank them: each one's check \
                 (fixes, breaks, still failing, weakened tests), votes (samples that reached the \
                 same answer), diffstat, tokens and cost, best first, as `git papayu compare` \
                 ranks them. {NO_MERGE}"
            ),
            json!({"plans": {"type": "array", "items": {"type": "string"}, "description": "A group id (g…, from papayu_list's `group`) or plan ids; default: the newest group on HEAD."}}),
            &[],
            true,
        ),
        tool(
            "papayu_context",
            "What papayu would show a model for a goal: the files and snippets it would gather from the base commit, each with why, and the rendered text. Asks no model.",
            json!({"goal": goal, "base": base, "log": log}),
            &["goal"],
            true,
        ),
        tool(
            "papayu_discard",
            &format!(
                "Discard a plan: delete its papayu/* proposal branch and mark it discarded (the user can undo with git papayu undo). Refuses a branch holding commits papayu did not make. {NO_MERGE}"
            ),
            json!({"id": id}),
            &["id"],
            false,
        ),
        tool(
            "papayu_sync",
            "Share plans through a git remote, as `git papayu sync` does: fetch the remote's \
             papayu notes, merge them into the local ones (every local line is kept; what comes in \
             is bounded, and what is refused is counted in `refused`), and, with `push: true`, push \
             the result back as a fast-forward (never a force-push). Teammates' records stay \
             claims: their verdicts rank nothing here. Returns {remote, fetched, merge, pushed, \
             taken, kept, refused, plans_before, plans_after, …}: `sync --json`'s document.",
            json!({
                "remote": {"type": "string", "description": "The remote (default: the current branch's upstream remote, else origin)."},
                "push": {"type": "boolean", "description": "Push the merged notes back to the remote (default false: fetch and merge only)."},
            }),
            &[],
            false,
        ),
    ]
}

fn tool(
    name: &'static str,
    description: &str,
    properties: Value,
    required: &[&str],
    read_only: bool,
) -> Tool {
    let schema = json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    });
    let Value::Object(schema) = schema else {
        unreachable!("a schema is an object")
    };
    let annotations = ToolAnnotations::new()
        .read_only(read_only)
        .destructive(name == "papayu_discard")
        .open_world(name == "papayu_sync");
    Tool::new(name, description.to_string(), Arc::new(schema)).with_annotations(annotations)
}

/// Runs tool `name` with `arguments` for the client `agent`; blocking.
pub fn call(name: &str, arguments: &JsonObject, agent: &str) -> CallToolResult {
    let result = match name {
        "papayu_validate" => validate(arguments),
        "papayu_propose" => propose(arguments, agent),
        "papayu_refine" => refine(arguments),
        "papayu_list" => list(arguments),
        "papayu_show" => show(arguments),
        "papayu_diff" => diff(arguments),
        "papayu_compare" => compare(arguments),
        "papayu_context" => context(arguments),
        "papayu_discard" => discard(arguments),
        "papayu_sync" => sync(arguments),
        other => Err(vec![Problem::new(
            Code::Usage,
            format!("no tool named {other}"),
        )]),
    };
    // Notices the store gathered (a forged record set aside) reach the agent as warnings.
    let notices = git_papayu::store::take_notices();
    match result {
        Ok(mut value) => {
            if let Some(map) = value.as_object_mut() {
                // The operation's own warnings first, then the store's notices.
                let mut warnings = match map.remove("warnings") {
                    Some(Value::Array(warnings)) => warnings,
                    _ => Vec::new(),
                };
                warnings.extend(notices.iter().map(|n| json!(n)));
                map.insert("warnings".to_string(), Value::Array(warnings));
            }
            CallToolResult::structured(value)
        }
        Err(problems) => tool_error(&problems),
    }
}

/// A tool error: the first problem's code and reason, every problem, as structured content and
/// as text (`ERR_CODE: reason` lines) for clients that only show text.
fn tool_error(problems: &[Problem]) -> CallToolResult {
    let first = problems
        .first()
        .cloned()
        .unwrap_or_else(|| Problem::new(Code::Internal, "the tool failed without saying why"));
    let text: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
    let value = json!({
        "code": first.code,
        "reason": first.reason,
        "problems": problems,
    });
    let mut result = CallToolResult::structured_error(value);
    result.content = vec![ContentBlock::text(text.join("\n"))];
    result
}

type Answer = Result<Value, Vec<Problem>>;

fn text_arg<'a>(arguments: &'a JsonObject, key: &str) -> Result<Option<&'a str>, Vec<Problem>> {
    match arguments.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.as_str())),
        Some(_) => Err(vec![Problem::new(
            Code::Usage,
            format!("`{key}` must be a string"),
        )]),
    }
}

fn required<'a>(arguments: &'a JsonObject, key: &str) -> Result<&'a str, Vec<Problem>> {
    text_arg(arguments, key)?
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| {
            vec![Problem::new(
                Code::Usage,
                format!("`{key}` is required and must not be empty"),
            )]
        })
}

fn open() -> Result<Store, Vec<Problem>> {
    Store::open().map_err(|e| vec![e.to_problem()])
}

fn validate(arguments: &JsonObject) -> Answer {
    let answer = required(arguments, "answer")?;
    let protocol = match arguments.get("protocol").and_then(Value::as_u64) {
        Some(1) => Some(ProtocolVersion::V1),
        Some(2) => Some(ProtocolVersion::V2),
        Some(_) => return Err(vec![Problem::new(Code::Usage, "`protocol` is 1 or 2")]),
        None => None,
    };
    // Validating reads no repository: the settings are those git would read here.
    let config = Config::here();
    config.check()?;
    let request = Validate {
        answer: answer.as_bytes(),
        protocol,
        mode: Mode::Plan,
        allowlist: None,
    };
    report(&validate::validate(&config, request)?, &Observed::default())
}

fn propose(arguments: &JsonObject, agent: &str) -> Answer {
    let goal = required(arguments, "goal")?.to_string();
    plan::check_goal("goal", &goal)?;
    let answer = text_arg(arguments, "answer")?.map(str::to_string);
    let logs = log_arg(arguments)?;
    if answer.is_some() && !logs.is_empty() {
        return Err(vec![
            Problem::new(
                Code::Usage,
                "`log` goes into the context papayu's model is asked with; with `answer` no model \
                 is asked, so it would be ignored",
            )
            .with_hint("drop `log`, or drop `answer` to have papayu's model plan with the log"),
        ]);
    }
    let base = text_arg(arguments, "base")?.unwrap_or("HEAD");
    let rounds = rounds_arg(arguments)?;
    let repro = repro_arg(arguments, agent)?;
    let store = open()?;
    let base = plan::resolve_base(&store, base)?;
    // A typo in any setting is refused here as every command refuses it.
    let config = settings(&store)?;
    let rounds = match rounds {
        Some(n) => n,
        None => rounds::configured(None, &config)?,
    };
    let observer = Arc::new(Observed::default());
    let service = Service::new(&store, &config, observer.clone());
    let request = Propose {
        goal,
        base,
        answer,
        agent: agent.to_string(),
        rounds,
        repro,
        logs,
    };
    let proposal = propose::propose(&service, request)?;
    report(&proposal, &observer)
}

/// `log`, as the one log `plan --log` would read, named `log`.
fn log_arg(arguments: &JsonObject) -> Result<Vec<(String, String)>, Vec<Problem>> {
    Ok(text_arg(arguments, "log")?
        .map(|text| ("log".to_string(), text.to_string()))
        .into_iter()
        .collect())
}

/// `rounds`: 1 to [`rounds::MAX_ROUNDS`], when given.
fn rounds_arg(arguments: &JsonObject) -> Result<Option<u32>, Vec<Problem>> {
    let max = rounds::MAX_ROUNDS;
    match arguments.get("rounds") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .filter(|n| (1..=max).contains(n))
            .map(Some)
            .ok_or_else(|| {
                vec![Problem::new(
                    Code::Usage,
                    format!("`rounds` must be a whole number from 1 to {max}"),
                )]
            }),
    }
}

/// Where the reproduction comes from: the agent's own test (`repro_answer`), papayu's model
/// (`repro: true`), or none (the default: an agent's call never costs a model call it did not
/// ask for).
fn repro_arg(arguments: &JsonObject, agent: &str) -> Result<Option<Source>, Vec<Problem>> {
    if let Some(answer) = text_arg(arguments, "repro_answer")? {
        return Ok(Some(Source::Agent {
            answer: answer.to_string(),
            agent: agent.to_string(),
        }));
    }
    match arguments.get("repro") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => Ok(None),
        Some(Value::Bool(true)) => Ok(Some(Source::Model)),
        Some(_) => Err(vec![Problem::new(
            Code::Usage,
            "`repro` must be true or false",
        )]),
    }
}

fn refine(arguments: &JsonObject) -> Answer {
    // Its length is checked by the refinement, as the command's is.
    let feedback = required(arguments, "feedback")?.to_string();
    let plan = text_arg(arguments, "id")?.map(str::to_string);
    let rounds = rounds_arg(arguments)?.unwrap_or(1);
    // The check is the user's own, as for a proposal: an agent cannot choose or skip it.
    let request = Refine {
        plan,
        feedback,
        provider: None,
        model: None,
        choice: CheckChoice::Configured,
        rounds,
    };
    // A failed check is a tool error, as for a proposal: its code, reason and the check's
    // last output; the refinement stays stored, marked failed.
    serve(|service| {
        let refined = refine::refine(service, request)?;
        match refined.failure() {
            Some(problem) => Err(vec![problem]),
            None => Ok(refined),
        }
    })
}

fn list(arguments: &JsonObject) -> Answer {
    let limit = arguments.get("limit").and_then(Value::as_u64).unwrap_or(20);
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    serve(|service| listing::list(service, Some(limit)))
}

fn show(arguments: &JsonObject) -> Answer {
    let id = required(arguments, "id")?;
    serve(|service| view::show(service, Some(id)))
}

/// Runs one operation with the repository, its settings and an observer that keeps warnings,
/// and gives its report as the tool's result.
fn serve<R: serde::Serialize, E>(operation: impl FnOnce(&Service<'_>) -> Result<R, E>) -> Answer
where
    Vec<Problem>: From<E>,
{
    let store = open()?;
    let config = settings(&store)?;
    let observer = Arc::new(Observed::default());
    let done = operation(&Service::new(&store, &config, observer.clone()))?;
    report(&done, &observer)
}

/// The settings in force, refused as every command refuses them when one is not understood.
fn settings(store: &Store) -> Result<Config, Vec<Problem>> {
    let config = Config::load(store);
    config.check()?;
    Ok(config)
}

/// An operation's report as the tool's result, with the warnings it gave on the way.
fn report(value: &impl serde::Serialize, observer: &Observed) -> Answer {
    let mut value = serde_json::to_value(value)
        .map_err(|e| vec![Problem::new(Code::Internal, e.to_string())])?;
    value["warnings"] = json!(observer.warnings());
    Ok(value)
}

fn diff(arguments: &JsonObject) -> Answer {
    let id = required(arguments, "id")?;
    serve(|service| review::diff(service, Some(id), Vec::new(), Vec::new()))
}

fn compare(arguments: &JsonObject) -> Answer {
    let specs = match arguments.get("plans") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| vec![Problem::new(Code::Usage, "`plans` must be strings")])?,
        Some(_) => {
            return Err(vec![Problem::new(
                Code::Usage,
                "`plans` must be an array of plan or group ids",
            )]);
        }
    };
    serve(|service| compare::compare(service, &specs))
}

fn context(arguments: &JsonObject) -> Answer {
    let goal = required(arguments, "goal")?.to_string();
    let base = text_arg(arguments, "base")?.unwrap_or("HEAD");
    let store = open()?;
    let base = plan::resolve_base(&store, base)?;
    let config = settings(&store)?;
    let observer = Arc::new(Observed::default());
    let service = Service::new(&store, &config, observer.clone());
    let logs = log_arg(arguments)?;
    let gathered =
        context::gather(&service, goal, base, logs, ProtocolVersion::V2).map_err(|p| vec![p])?;
    report(&gathered, &observer)
}

fn discard(arguments: &JsonObject) -> Answer {
    let id = required(arguments, "id")?;
    serve(|service| review::discard(service, Some(id), false))
}

fn sync(arguments: &JsonObject) -> Answer {
    let remote = text_arg(arguments, "remote")?.map(str::to_string);
    let push = match arguments.get("push") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(push)) => *push,
        Some(_) => {
            return Err(vec![Problem::new(
                Code::Usage,
                "`push` must be true or false",
            )]);
        }
    };
    let request = SyncRequest { remote, push };
    serve(|service| {
        let report = sync::sync(service.store, service.config, &request)?;
        // What the merge refused is said as the command says it: a warning.
        if let Some(refusal) = report.refusal() {
            service.observer().warn(&refusal);
        }
        Ok::<_, Problem>(report)
    })
}
