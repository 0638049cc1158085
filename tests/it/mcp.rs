//! `git papayu mcp` driven as an MCP client drives it: JSON-RPC lines over stdio, the handshake,
//! `tools/list`, a `tools/call` of every tool, tool errors carrying `ERR_*` codes — and the
//! user's working tree, index and HEAD untouched throughout.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use common::TestRepo;
use common::fake_llm::{self, FakeLlm};
use serde_json::{Value, json};

/// A client talking to one `git papayu mcp`.
struct Client {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next: u64,
}

impl Client {
    fn start(repo: &TestRepo, env: &[(&str, &str)]) -> Client {
        let mut cmd = common::hermetic("git", repo.path());
        cmd.envs(env.iter().copied())
            .args(["papayu", "mcp"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = cmd.spawn().expect("spawn git papayu mcp");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Client {
            child,
            stdin,
            lines,
            next: 1,
        }
    }

    /// A client whose server asks `fake` when papayu's own model is asked.
    fn with_model(repo: &TestRepo, fake: &FakeLlm) -> Client {
        let url = format!("{}/v1", fake.url());
        Client::start(
            repo,
            &[
                ("PAPAYU_LLM_API_URL", url.as_str()),
                ("PAPAYU_LLM_MODEL", "test-model"),
                ("PAPAYU_LLM_TIMEOUT_SEC", "5"),
            ],
        )
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends `bytes` as they are, then a newline, and returns the next line the server writes.
    fn send_raw(&mut self, bytes: &[u8]) -> Value {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| {
                panic!(
                    "no answer to {:?}",
                    String::from_utf8_lossy(&bytes[..bytes.len().min(80)])
                )
            });
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Sends a request and returns its response; every line on stdout must be JSON-RPC.
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("no answer to {method}"));
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout carried a line that is not JSON ({e}): {line}"));
            assert_eq!(message["jsonrpc"], "2.0", "{line}");
            if message["id"] == id {
                return message;
            }
        }
    }

    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let response = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        response
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("{tool}: {response}"))
    }

    fn ok(&mut self, tool: &str, arguments: Value) -> Value {
        let result = self.call(tool, arguments);
        assert_eq!(result["isError"], false, "{tool}: {result}");
        result["structuredContent"].clone()
    }

    fn error(&mut self, tool: &str, arguments: Value, code: &str) -> Value {
        let result = self.call(tool, arguments);
        assert_eq!(result["isError"], true, "{tool}: {result}");
        assert_eq!(
            result["structuredContent"]["code"], code,
            "{tool}: {result}"
        );
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(text.starts_with(code), "{text}");
        result["structuredContent"].clone()
    }

    fn initialize(&mut self, client: &str) -> Value {
        let response = self.request(
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": client, "version": "1.0"},
            }),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        response["result"].clone()
    }

    fn finish(mut self) {
        drop(self.stdin);
        let status = self.child.wait().unwrap();
        assert!(
            status.success(),
            "the server exits 0 when its client leaves"
        );
    }
}

/// What an agent must never change: HEAD, the index, the working tree.
fn users_side(repo: &TestRepo) -> String {
    let head = repo.git(["rev-parse", "HEAD"]).ok().stdout;
    let branch = repo.git(["symbolic-ref", "HEAD"]).ok().stdout;
    let index = std::fs::read(repo.path().join(".git/index")).unwrap();
    let status = repo
        .git(["status", "--porcelain=v2", "--untracked-files=all"])
        .ok()
        .stdout;
    let files = repo.read("a.txt");
    format!("{head}{branch}{index:?}{status}{files}")
}

fn answer(path: &str, content: &str) -> String {
    json!({"summary": format!("add {path}"), "actions": [
        {"kind": "CREATE_FILE", "path": path, "content": content}]})
    .to_string()
}

#[test]
fn an_agent_validates_proposes_lists_shows_diffs_reads_context_and_discards() {
    let repo = TestRepo::with_files(&[("a.txt", "one\ntwo\n"), ("notes.txt", "draft\n")]);
    // The user has work in progress: staged and unstaged.
    repo.write("a.txt", "one\ntwo\nthree\n");
    repo.git(["add", "a.txt"]).ok();
    repo.write("notes.txt", "draft, edited\n");
    let before = users_side(&repo);
    let mut client = Client::start(&repo, &[]);

    let info = client.initialize("test-agent");
    assert_eq!(info["protocolVersion"], "2025-11-25");
    assert_eq!(info["serverInfo"]["name"], "git-papayu");
    assert!(info["capabilities"]["tools"].is_object(), "{info}");

    let listed = client.request("tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "papayu_validate",
            "papayu_propose",
            "papayu_refine",
            "papayu_list",
            "papayu_show",
            "papayu_diff",
            "papayu_compare",
            "papayu_context",
            "papayu_discard",
            "papayu_sync"
        ]
    );
    for tool in tools {
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
        assert!(!tool["description"].as_str().unwrap().is_empty());
        assert!(!tool["name"].as_str().unwrap().contains("merge"));
    }
    let propose = &tools[1];
    assert!(
        propose["description"]
            .as_str()
            .unwrap()
            .contains("no merge tool"),
        "{propose}"
    );
    assert_eq!(propose["inputSchema"]["required"], json!(["goal"]));

    let valid = client.ok("papayu_validate", json!({"answer": answer("b.txt", "b\n")}));
    assert_eq!(valid["valid"], true);
    assert_eq!(valid["plan"]["actions"][0]["path"], "b.txt");
    let bad = client.error(
        "papayu_validate",
        json!({"answer": answer("../b.txt", "b\n")}),
        "ERR_PATH_DOTDOT",
    );
    assert_eq!(bad["problems"][0]["code"], "ERR_PATH_DOTDOT");
    client.error("papayu_validate", json!({"answer": 7}), "ERR_USAGE");

    let proposed = client.ok(
        "papayu_propose",
        json!({"goal": "Add b", "answer": answer("b.txt", "b\n")}),
    );
    let id = proposed["id"].as_str().unwrap().to_string();
    let branch = proposed["branch"].as_str().unwrap().to_string();
    assert_eq!(proposed["commit"], repo.rev(&branch).as_str());
    assert_eq!(proposed["diffstat"]["files"][0]["path"], "b.txt");
    assert!(
        proposed["check"].is_null(),
        "no check is configured: {proposed}"
    );
    assert_eq!(
        repo.git(["show", &format!("{branch}:b.txt")]).ok().stdout,
        "b\n"
    );
    let message = repo.git(["log", "-1", "--format=%B", &branch]).ok().stdout;
    assert!(
        message.contains("Assisted-by: git-papayu:test-agent"),
        "{message}"
    );
    // A plan that does not apply is a tool error with its code, and stores nothing.
    client.error(
        "papayu_propose",
        json!({"goal": "Add a", "answer": answer("a.txt", "again\n")}),
        "ERR_TARGET_EXISTS",
    );

    let plans = client.ok("papayu_list", json!({}));
    assert_eq!(plans["plans"].as_array().unwrap().len(), 1, "{plans}");
    assert_eq!(plans["plans"][0]["status"], "applied");
    let shown = client.ok("papayu_show", json!({"id": &id[..8]}));
    assert_eq!(shown["plan"]["goal"], "Add b");
    assert_eq!(shown["branch"], branch.as_str());
    let diff = client.ok("papayu_diff", json!({"id": id}));
    assert!(diff["diff"].as_str().unwrap().contains("+b"), "{diff}");
    client.error(
        "papayu_show",
        json!({"id": "ffffffff"}),
        "ERR_PLAN_NOT_FOUND",
    );
    let context = client.ok("papayu_context", json!({"goal": "fix a.txt"}));
    assert!(
        context["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b["title"] == "a.txt" && !b["source"].as_str().unwrap().is_empty()),
        "{context}"
    );
    assert!(context["text"].as_str().unwrap().contains("one\ntwo\n"));

    let discarded = client.ok("papayu_discard", json!({"id": id}));
    assert_eq!(discarded["deleted_branches"], json!([branch]));
    let gone = repo.git(["rev-parse", "--verify", "-q", &branch]);
    assert_ne!(gone.status, Some(0), "the branch is deleted");

    // No such tool: a protocol error, not a tool result.
    let unknown = client.request(
        "tools/call",
        json!({"name": "papayu_merge", "arguments": {}}),
    );
    assert!(unknown["error"].is_object(), "{unknown}");
    client.finish();

    assert_eq!(
        users_side(&repo),
        before,
        "the user's tree, index and HEAD are untouched"
    );
    repo.papayu(["show", &id]).ok();
    repo.fsck();
}

#[test]
fn propose_without_an_answer_asks_the_configured_model_and_runs_the_users_check() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    repo.git(["config", "papayu.checkCommand", "test -f c.txt"])
        .ok();
    let before = users_side(&repo);
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&answer("c.txt", "c\n"))]);
    let mut client = Client::with_model(&repo, &fake);
    client.initialize("another-agent");
    let proposed = client.ok("papayu_propose", json!({"goal": "Add c"}));
    assert_eq!(proposed["check"]["command"], "test -f c.txt");
    assert_eq!(proposed["check"]["passed"], true);
    let branch = proposed["branch"].as_str().unwrap();
    let message = repo.git(["log", "-1", "--format=%B", branch]).ok().stdout;
    assert!(
        message.contains("Assisted-by: git-papayu:fake-model"),
        "{message}"
    );
    let id = proposed["id"].as_str().unwrap();
    // The model's conversation is kept with the plan, as for `git papayu plan`.
    let conversation = repo.papayu(["show", id, "--conversation"]).ok().stdout;
    assert!(conversation.contains("Round 1:"), "{conversation}");

    // A failing check leaves no branch, and says so with its code.
    repo.git(["config", "papayu.checkCommand", "false"]).ok();
    let failed = client.error(
        "papayu_propose",
        json!({"goal": "Add d", "answer": answer("d.txt", "d\n")}),
        "ERR_CHECK_FAILED",
    );
    assert!(
        failed["reason"].as_str().unwrap().contains("false"),
        "{failed}"
    );
    client.finish();
    assert_eq!(users_side(&repo), before);
}

/// The error a line that is no request was answered with: its code, and its id.
fn refused(answer: &Value) -> (i64, Value) {
    assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
    assert!(answer["error"]["message"].is_string(), "{answer}");
    (
        answer["error"]["code"]
            .as_i64()
            .unwrap_or_else(|| panic!("{answer}")),
        answer["id"].clone(),
    )
}

#[test]
fn a_line_that_is_no_request_is_answered_with_an_error_and_the_next_one_is_served() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    let mut client = Client::start(&repo, &[]);
    // Before the handshake, too.
    let not_utf8 = client.send_raw(b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"\xff\xfe\"}");
    assert_eq!(refused(&not_utf8), (-32700, Value::Null));
    client.initialize("test-agent");
    let not_json = client.send_raw(b"tools/list please");
    assert_eq!(refused(&not_json), (-32700, Value::Null));
    let cut = client.send_raw(br#"{"jsonrpc": "2.0", "id": 5, "method": "tools/li"#);
    assert_eq!(refused(&cut), (-32700, Value::Null));
    let array = client.send_raw(b"[1, 2, 3]");
    assert_eq!(refused(&array), (-32600, Value::Null));
    let no_method = client.send_raw(br#"{"jsonrpc": "2.0", "id": 41, "params": {}}"#);
    assert_eq!(refused(&no_method), (-32600, json!(41)));
    // Past the limit (32 MiB): answered, skipped unread, and the connection goes on.
    let huge = vec![b'x'; 32 * 1024 * 1024 + 1];
    let oversized = client.send_raw(&huge);
    assert_eq!(refused(&oversized), (-32600, Value::Null));
    assert_eq!(oversized["error"]["data"]["limit_bytes"], 32 * 1024 * 1024);
    let listed = client.request("tools/list", json!({}));
    assert_eq!(
        listed["result"]["tools"].as_array().unwrap().len(),
        10,
        "{listed}"
    );
    let valid = client.ok("papayu_validate", json!({"answer": answer("b.txt", "b\n")}));
    assert_eq!(valid["valid"], true);
    client.finish();
}

#[test]
fn a_five_megabyte_goal_is_refused_as_the_cli_refuses_it_and_nothing_is_stored() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    let before = users_side(&repo);
    let mut client = Client::start(&repo, &[]);
    client.initialize("test-agent");
    let goal = "Add b. ".repeat(5 * 1024 * 1024 / 7);
    let refused = client.error(
        "papayu_propose",
        json!({"goal": goal, "answer": answer("b.txt", "b\n")}),
        "ERR_GOAL_TOO_LONG",
    );
    assert!(
        refused["reason"].as_str().unwrap().contains("16384 bytes"),
        "{refused}"
    );
    assert!(refused["problems"][0]["hint"].is_string(), "{refused}");
    client.error("papayu_context", json!({"goal": goal}), "ERR_GOAL_TOO_LONG");
    client.error(
        "papayu_refine",
        json!({"feedback": goal, "id": "papayu/x"}),
        "ERR_GOAL_TOO_LONG",
    );
    // Just within the limit is a goal like any other.
    let fits = "Add b. ".repeat(16 * 1024 / 7);
    client.ok("papayu_context", json!({"goal": fits}));
    client.finish();
    assert!(
        repo.git(["notes", "--ref=papayu", "list"])
            .ok()
            .stdout
            .is_empty(),
        "nothing is stored"
    );
    assert_eq!(users_side(&repo), before);

    // The command line has the same limit, for a goal and for a refinement's feedback.
    let long = "Add b. ".repeat(17 * 1024 / 7);
    let snapshot = repo.snapshot();
    repo.papayu_stdin(
        ["plan", &long, "--response", "-"],
        answer("b.txt", "b\n").as_bytes(),
    )
    .err("ERR_GOAL_TOO_LONG");
    repo.papayu(["refine", "papayu/x", &long, "--no-check"])
        .err("ERR_GOAL_TOO_LONG");
    assert_eq!(repo.snapshot(), snapshot);
}

#[test]
fn a_stateless_clients_name_reaches_the_commit_trailer() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    let mut client = Client::start(&repo, &[]);
    // The 2026-07-28 revision: no handshake, the client's context in every request's `_meta`.
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "stateless-agent", "version": "2.0"},
    });
    let response = client.request(
        "tools/call",
        json!({"name": "papayu_propose", "_meta": meta,
               "arguments": {"goal": "Add b", "answer": answer("b.txt", "b\n")}}),
    );
    let result = &response["result"];
    assert_eq!(result["isError"], false, "{response}");
    let branch = result["structuredContent"]["branch"].as_str().unwrap();
    let message = repo.git(["log", "-1", "--format=%B", branch]).ok().stdout;
    assert!(
        message.contains("Assisted-by: git-papayu:stateless-agent"),
        "{message}"
    );
    client.finish();
}

#[test]
fn propose_takes_a_reproduction_and_fix_rounds_and_returns_their_evidence() {
    if !common::tool("python3", "the check runs unittest") {
        return;
    }
    let buggy = "def add(a, b):\n    return a * b\n";
    let repo = TestRepo::with_files(&[("a.txt", "one\n"), ("calc.py", buggy)]);
    repo.git(["config", "papayu.checkCommand", "python3 -m unittest -v"])
        .ok();
    let before = users_side(&repo);
    let update = |content: &str| {
        json!({"summary": "fix", "actions": [
            {"kind": "UPDATE_FILE", "path": "calc.py", "content": content}]})
        .to_string()
    };
    // papayu's own model makes the correction in round 2.
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&update(
        "def add(a, b):\n    return a + b\n",
    ))]);
    let mut client = Client::with_model(&repo, &fake);
    client.initialize("an-agent");
    let test = "import unittest\nfrom calc import add\n\n\nclass R(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n";
    // Bad input is refused and changes nothing.
    client.error(
        "papayu_propose",
        json!({"goal": "add", "answer": update(buggy), "rounds": 0}),
        "ERR_USAGE",
    );
    client.error(
        "papayu_propose",
        json!({"goal": "add", "repro_answer": answer("calc2.py", "x = 1\n")}),
        "ERR_REPRO_NOT_TESTS",
    );
    assert!(repo.papayu(["list"]).ok().stdout.trim().is_empty());
    // The agent's fix only reorders the product: the reproduction still fails, so round 2 asks.
    let proposed = client.ok(
        "papayu_propose",
        json!({
            "goal": "add(2, 3) gives 6", "repro_answer": answer("test_repro.py", test),
            "answer": update("def add(a, b):\n    return b * a\n"), "rounds": 2,
        }),
    );
    assert!(
        proposed["repro"]["evidence"][0]
            .as_str()
            .unwrap()
            .contains("AssertionError: 6 != 5"),
        "{proposed}"
    );
    assert_eq!(proposed["rounds"]["reached"], true, "{proposed}");
    assert_eq!(proposed["rounds"]["round"], 2, "{proposed}");
    assert_eq!(proposed["verdict"]["reproduction"], true, "{proposed}");
    let branch = proposed["branch"].as_str().unwrap();
    let calc = repo.git(["show", &format!("{branch}:calc.py")]).ok().stdout;
    assert!(calc.contains("a + b"), "{calc}");
    assert!(fake.requests()[0].body.contains("AssertionError: 6 != 5"));
    client.finish();
    assert_eq!(users_side(&repo), before);
    repo.fsck();
}

#[test]
fn a_proposal_through_mcp_writes_the_traces_the_cli_writes() {
    let traces = trace_kinds;
    let plan = answer("c.txt", "c\n");
    let cli = TestRepo::with_files(&[("a.txt", "one\n")]);
    let file = cli.path().join("../answer.json");
    std::fs::write(&file, &plan).unwrap();
    cli.papayu(["plan", "Add c", "--response", file.to_str().unwrap()])
        .ok();
    cli.papayu(["apply"]).ok();

    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    let mut client = Client::start(&repo, &[]);
    client.initialize("an-agent");
    client.ok("papayu_propose", json!({"goal": "Add c", "answer": plan}));
    client.finish();
    assert_eq!(traces(&repo), traces(&cli));
    assert_eq!(traces(&repo), ["apply", "plan"]);
}

#[test]
fn a_proposal_through_mcp_normalizes_line_endings_as_the_cli_does() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    let mut client = Client::start(&repo, &[("PAPAYU_NORMALIZE_EOL", "lf")]);
    client.initialize("an-agent");
    let crlf = answer("c.txt", "one\r\ntwo\r\n");
    let validated = client.ok("papayu_validate", json!({"answer": &crlf}));
    let proposed = client.ok("papayu_propose", json!({"goal": "Add c", "answer": &crlf}));
    client.finish();
    let branch = proposed["branch"].as_str().unwrap();
    let stored = repo.git(["show", &format!("{branch}:c.txt")]).ok().stdout;
    assert_eq!(stored, "one\ntwo\n");
    // Validating reads the same setting, and gives the document `validate --json` prints.
    assert_eq!(validated["plan"]["actions"][0]["content"], "one\ntwo\n");
    repo.write("answer.json", &crlf);
    let shown = repo.papayu_env(
        ["--json", "validate", "answer.json"],
        &[("PAPAYU_NORMALIZE_EOL", "lf")],
    );
    let mut shown: Value = serde_json::from_str(&shown.ok().stdout).unwrap();
    for envelope in ["ok", "command", "version", "errors", "warnings"] {
        shown.as_object_mut().unwrap().remove(envelope);
    }
    assert_eq!(report_of(validated), shown);
}

#[test]
fn a_typo_in_a_setting_is_refused_by_the_tools_as_by_the_commands() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    let before = users_side(&repo);
    let mut client = Client::start(&repo, &[("PAPAYU_LLM_STRICT_JSON", "maybe")]);
    client.initialize("an-agent");
    let refused = client.error(
        "papayu_propose",
        json!({"goal": "Add c", "answer": answer("c.txt", "c\n")}),
        "ERR_CONFIG_INVALID",
    );
    assert!(
        refused["reason"]
            .as_str()
            .unwrap()
            .contains("(env PAPAYU_LLM_STRICT_JSON)"),
        "{refused}"
    );
    client.error(
        "papayu_context",
        json!({"goal": "Add c"}),
        "ERR_CONFIG_INVALID",
    );
    client.finish();
    assert_eq!(users_side(&repo), before);
    let listed = repo.papayu(["list"]).ok().stdout;
    assert!(listed.trim().is_empty(), "nothing was stored: {listed}");
}

/// The kinds of the traces a repository holds, sorted.
fn trace_kinds(repo: &TestRepo) -> Vec<String> {
    let listed: Value =
        serde_json::from_str(&repo.papayu(["trace", "list", "--json"]).ok().stdout).unwrap();
    let mut kinds: Vec<String> = listed["traces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["kind"].as_str().unwrap_or("?").to_string())
        .collect();
    kinds.sort();
    kinds
}

/// What an operation left in a repository, as the `git` CLI and papayu's own listing read it:
/// each plan's goal, status and size; the kinds of the traces; the tree of every proposal
/// branch. Ids, times and providers differ between front ends by design and are left out.
fn what_was_stored(repo: &TestRepo) -> (Vec<String>, Vec<String>, Vec<String>) {
    let listed: Value =
        serde_json::from_str(&repo.papayu(["list", "--all", "--json"]).ok().stdout).unwrap();
    let mut plans: Vec<String> = listed["plans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| format!("{} | {} | {}", p["goal"], p["status"], p["actions"]))
        .collect();
    plans.sort();
    let traces = trace_kinds(repo);
    let refs = repo
        .git([
            "for-each-ref",
            "--format=%(objectname)",
            "refs/heads/papayu/",
        ])
        .ok()
        .stdout;
    let mut trees: Vec<String> = refs
        .lines()
        .map(|commit| {
            let tree = repo.git(["rev-parse", &format!("{commit}^{{tree}}")]).ok();
            tree.stdout.trim().to_string()
        })
        .collect();
    trees.sort();
    repo.fsck();
    (plans, traces, trees)
}

#[test]
fn a_reproduction_a_fix_and_its_rounds_store_the_same_through_the_cli_and_mcp() {
    if !common::tool("python3", "the check runs unittest") {
        return;
    }
    let buggy = "def add(a, b):\n    return a * b\n";
    let files = [("a.txt", "one\n"), ("calc.py", buggy)];
    let goal = "add(2, 3) gives 6";
    let test = "import unittest\nfrom calc import add\n\n\nclass R(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n";
    let update = |content: &str| {
        json!({"summary": "fix", "actions": [
            {"kind": "UPDATE_FILE", "path": "calc.py", "content": content}]})
        .to_string()
    };
    let repro = answer("test_repro.py", test);
    // The first fix only reorders the product; round 2 (papayu's model) corrects it.
    let fix = update("def add(a, b):\n    return b * a\n");
    let correction = update("def add(a, b):\n    return a + b\n");
    let project = || {
        let repo = TestRepo::with_files(&files);
        repo.git(["config", "papayu.checkCommand", "python3 -m unittest -v"])
            .ok();
        repo
    };

    let cli = project();
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&correction)]);
    let env = common::compat_env(&fake);
    let dir = tempfile::tempdir().unwrap();
    let (repro_file, fix_file) = (dir.path().join("repro.json"), dir.path().join("fix.json"));
    std::fs::write(&repro_file, &repro).unwrap();
    std::fs::write(&fix_file, &fix).unwrap();
    let planned = [
        "plan",
        goal,
        "--repro-response",
        repro_file.to_str().unwrap(),
        "--response",
        fix_file.to_str().unwrap(),
    ];
    common::run_with_env(&cli, &planned, &env).ok();
    let applied = common::run_with_env(&cli, &["apply", "--rounds", "2", "--json"], &env).ok();
    assert!(
        applied.stdout.contains("\"reached\": true"),
        "{}",
        applied.stdout
    );

    let mcp = project();
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&correction)]);
    let mut client = Client::with_model(&mcp, &fake);
    client.initialize("an-agent");
    let proposed = client.ok(
        "papayu_propose",
        json!({"goal": goal, "repro_answer": repro, "answer": fix, "rounds": 2}),
    );
    assert_eq!(proposed["rounds"]["reached"], true, "{proposed}");
    client.finish();

    let (cli_plans, cli_traces, cli_trees) = what_was_stored(&cli);
    let (mcp_plans, mcp_traces, mcp_trees) = what_was_stored(&mcp);
    assert_eq!(mcp_plans, cli_plans);
    assert_eq!(mcp_traces, cli_traces);
    assert_eq!(mcp_trees, cli_trees);
    // The reproduction, the fix and its correction: three plans, three branches' trees.
    assert_eq!(cli_plans.len(), 3, "{cli_plans:?}");
    assert!(cli_traces.contains(&"refine".to_string()), "{cli_traces:?}");
}

#[test]
fn the_context_an_agent_reads_is_the_one_the_cli_shows() {
    let repo = TestRepo::with_files(&[
        (
            "src/parser.py",
            "def parse_port(text):\n    return int(text)\n",
        ),
        ("README.md", "A parser.\n"),
    ]);
    let goal = "parse_port accepts a negative port";
    let shown = cli_json(&repo, &["context", goal]);
    let mut client = Client::start(&repo, &[]);
    client.initialize("an-agent");
    let read = report_of(client.ok("papayu_context", json!({"goal": goal})));
    client.finish();
    // One document: the same blocks, bodies, reasons, fingerprints and rendered text.
    assert_eq!(read, shown);
    let titles: Vec<&str> = shown["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["title"].as_str().unwrap())
        .collect();
    assert!(titles.iter().any(|t| t.contains("parser.py")), "{shown}");
    let text = shown["text"].as_str().unwrap();
    assert!(text.contains("def parse_port(text):"), "{text}");
    assert_eq!(shown["total_chars"], text.chars().count());
}

/// A tool's result without the warnings every tool adds: the operation's own report.
fn report_of(mut result: Value) -> Value {
    let warnings = result
        .as_object_mut()
        .and_then(|m| m.remove("warnings"))
        .unwrap_or_default();
    assert_eq!(warnings, json!([]), "no warnings here: {result}");
    result
}

/// A command's `--json` document without the envelope every command has (`ok`, `command`,
/// `version`, `errors`, `warnings`): the operation's own report.
fn cli_json(repo: &TestRepo, args: &[&str]) -> Value {
    let mut words = vec!["--json"];
    words.extend_from_slice(args);
    without_envelope(&repo.papayu(words).ok().stdout)
}

/// A successful command's `--json` document without its envelope.
fn without_envelope(stdout: &str) -> Value {
    let mut document: Value =
        serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    let map = document.as_object_mut().unwrap();
    assert_eq!(map.remove("ok"), Some(json!(true)), "{stdout}");
    assert_eq!(map.remove("warnings"), Some(json!([])), "{stdout}");
    assert_eq!(map.remove("errors"), Some(json!([])), "{stdout}");
    for envelope in ["command", "version"] {
        assert!(map.remove(envelope).is_some(), "{stdout}");
    }
    document
}

#[test]
fn list_show_diff_compare_and_discard_give_the_cli_json_documents() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    let fakes: Vec<FakeLlm> = [("alpha", "b.txt"), ("beta", "c.txt")]
        .iter()
        .map(|(name, path)| {
            let fake = FakeLlm::start(vec![fake_llm::openai_chat(&answer(path, "x\n"))]);
            common::openai_provider(&repo, name, &fake, Some("1000,2000,100"));
            fake
        })
        .collect();
    repo.papayu_env(
        ["plan", "Add a file", "--protocol", "1"],
        &[("PAPAYU_LLM_PROVIDERS", "alpha,beta")],
    )
    .ok();
    drop(fakes);
    repo.papayu(["apply", "--all", "--no-check"]).ok();
    let listed = cli_json(&repo, &["list"]);
    let ids: Vec<String> = listed["plans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 2, "{listed}");
    let group = listed["plans"][0]["group"].as_str().unwrap().to_string();

    let mut client = Client::start(&repo, &[]);
    client.initialize("an-agent");
    let mut same = |tool: &str, arguments: Value, cli: &[&str]| {
        let read = report_of(client.ok(tool, arguments));
        assert_eq!(read, cli_json(&repo, cli), "{tool} and {cli:?} differ");
        read
    };
    same("papayu_list", json!({}), &["list"]);
    let shown = same("papayu_show", json!({"id": &ids[0]}), &["show", &ids[0]]);
    assert_eq!(
        shown["group"]["plans"].as_array().unwrap().len(),
        2,
        "{shown}"
    );
    let diff = same("papayu_diff", json!({"id": &ids[1]}), &["diff", &ids[1]]);
    assert!(diff["diff"].as_str().unwrap().contains("+x"), "{diff}");
    let ranked = same(
        "papayu_compare",
        json!({"plans": [&group]}),
        &["compare", &group],
    );
    assert_eq!(ranked["ranking"].as_array().unwrap().len(), 2, "{ranked}");
    same("papayu_compare", json!({}), &["compare"]);
    client.error("papayu_compare", json!({"plans": 7}), "ERR_USAGE");

    // Discarding changes the repository: one plan each way, then the same document shape.
    let by_agent = report_of(client.ok("papayu_discard", json!({"id": &ids[0]})));
    client.finish();
    let by_cli = cli_json(&repo, &["discard", &ids[1]]);
    for (discarded, id) in [(&by_agent, &ids[0]), (&by_cli, &ids[1])] {
        assert_eq!(discarded["plan"], id.as_str(), "{discarded}");
        let branches = discarded["deleted_branches"].as_array().unwrap();
        assert_eq!(branches.len(), 1, "{discarded}");
        let gone = repo.git(["rev-parse", "--verify", "-q", branches[0].as_str().unwrap()]);
        assert_ne!(gone.status, Some(0), "{discarded}");
    }
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&by_agent), keys(&by_cli));
    let statuses: Vec<Value> = cli_json(&repo, &["list"])["plans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["status"].clone())
        .collect();
    assert_eq!(statuses, [json!("discarded"), json!("discarded")]);
}

/// The parts of a refinement's report that do not depend on ids and times.
fn refinement_shape(report: &Value) -> Value {
    let keys: Vec<&String> = report.as_object().unwrap().keys().collect();
    json!({
        "keys": keys,
        "goal": report["plan"]["goal"],
        "changes": report["changes"],
        "check": report["check"]["command"],
        "verdict": report["verdict"]["status"],
        "committed": report["commit"].is_string(),
    })
}

#[test]
fn a_refinement_stores_and_reports_the_same_through_the_cli_and_mcp() {
    let goal = "Add b.txt";
    let better = json!({"summary": "b.txt, two lines", "actions": [
        {"kind": "UPDATE_FILE", "path": "b.txt", "content": "x\ny\n"}]})
    .to_string();
    let project = || {
        let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
        let check = "test -f b.txt || { echo b.txt is gone; exit 1; }";
        repo.git(["config", "papayu.checkCommand", check]).ok();
        let dir = tempfile::tempdir().unwrap();
        let first = dir.path().join("first.json");
        std::fs::write(&first, answer("b.txt", "x\n")).unwrap();
        repo.papayu(["plan", goal, "--response", first.to_str().unwrap()])
            .ok();
        repo.papayu(["apply"]).ok();
        repo
    };

    let cli = project();
    // The second answer deletes b.txt: the check (`test -f b.txt`) fails.
    let drop = json!({"summary": "drop b", "actions": [{"kind": "DELETE_FILE", "path": "b.txt"}]})
        .to_string();
    let answers = || vec![fake_llm::openai_chat(&better), fake_llm::openai_chat(&drop)];
    let fake = FakeLlm::start(answers());
    let mut env = common::compat_env(&fake);
    env.push(("PAPAYU_PROTOCOL_VERSION".into(), "1".into()));
    let run = common::run_with_env(&cli, &["--json", "refine", "add a second line"], &env).ok();
    let by_cli = without_envelope(&run.stdout);
    let failed = common::run_with_env(&cli, &["--json", "refine", "drop it"], &env);
    let failed: Value = failed.json_err("ERR_CHECK_FAILED");
    assert_eq!(failed["commit"], Value::Null, "{failed}");

    let mcp = project();
    let before = users_side(&mcp);
    let fake = FakeLlm::start(answers());
    let url = format!("{}/v1", fake.url());
    let mut client = Client::start(
        &mcp,
        &[
            ("PAPAYU_LLM_API_URL", url.as_str()),
            ("PAPAYU_LLM_MODEL", "test-model"),
            ("PAPAYU_PROTOCOL_VERSION", "1"),
        ],
    );
    client.initialize("an-agent");
    client.error(
        "papayu_refine",
        json!({"feedback": "more", "rounds": 9}),
        "ERR_USAGE",
    );
    client.error(
        "papayu_refine",
        json!({"id": "ffffffff", "feedback": "more"}),
        "ERR_PLAN_NOT_FOUND",
    );
    let by_agent = report_of(client.ok("papayu_refine", json!({"feedback": "add a second line"})));
    // A refinement whose check fails is a tool error, as the command's is, with the check's
    // last output; the branch stays where it was.
    let tip = mcp.rev(by_agent["branch"].as_str().unwrap());
    let refused = client.error(
        "papayu_refine",
        json!({"feedback": "drop it"}),
        "ERR_CHECK_FAILED",
    );
    assert!(
        refused["reason"]
            .as_str()
            .unwrap()
            .contains("test -f b.txt"),
        "{refused}"
    );
    let start = |reason: &Value| {
        reason
            .as_str()
            .unwrap()
            .split(';')
            .next()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        start(&refused["reason"]),
        start(&failed["errors"][0]["reason"])
    );
    assert_eq!(
        refused["problems"][0]["detail"], "b.txt is gone",
        "the check's output comes with it: {refused}"
    );
    assert_eq!(mcp.rev(by_agent["branch"].as_str().unwrap()), tip);
    client.finish();
    assert_eq!(users_side(&mcp), before, "the user's side is untouched");

    assert_eq!(refinement_shape(&by_agent), refinement_shape(&by_cli));
    assert_eq!(by_agent["verdict"]["status"], "passed", "{by_agent}");
    assert!(by_agent.get("rounds").is_none(), "{by_agent}");
    let branch = by_agent["branch"].as_str().unwrap();
    assert_eq!(mcp.rev(branch), by_agent["commit"].as_str().unwrap());
    assert_eq!(
        mcp.git(["show", &format!("{branch}:b.txt")]).ok().stdout,
        "x\ny\n"
    );
    // The same plans (the proposal, refined; its refinement; the failed one), traces and trees.
    let (cli_plans, cli_traces, cli_trees) = what_was_stored(&cli);
    let (mcp_plans, mcp_traces, mcp_trees) = what_was_stored(&mcp);
    assert_eq!(mcp_plans, cli_plans);
    assert_eq!(mcp_traces, cli_traces);
    assert_eq!(mcp_trees, cli_trees);
    assert!(mcp_traces.contains(&"refine".to_string()), "{mcp_traces:?}");
    assert_eq!(mcp_plans.len(), 3, "{mcp_plans:?}");
}

#[test]
fn an_agent_syncs_a_teammates_plans_as_sync_does_and_pushes_only_when_asked() {
    let origin = TestRepo::with_files(&[("a.txt", "one\n")]);
    let (_home, remote) = common::bare_remote(&origin);
    let alice = common::clone_of(&remote);
    let dir = tempfile::tempdir().unwrap();
    let response = dir.path().join("answer.json");
    std::fs::write(&response, answer("b.txt", "x\n")).unwrap();
    alice
        .papayu([
            "plan",
            "Add b.txt",
            "--response",
            response.to_str().unwrap(),
        ])
        .ok();
    alice.papayu(["sync"]).ok();
    let remote_notes = || {
        common::run_in(&remote, "git", ["rev-parse", "refs/notes/papayu"], None)
            .ok()
            .stdout
    };
    let shared = remote_notes();

    // Bob syncs through the command, Carol through an agent: the same document, the same plans.
    let bob = common::clone_of(&remote);
    let by_cli = cli_json(&bob, &["sync", "--no-push"]);
    let carol = common::clone_of(&remote);
    let mut client = Client::start(&carol, &[]);
    client.initialize("an-agent");
    client.error("papayu_sync", json!({"push": "yes"}), "ERR_USAGE");
    let by_agent = report_of(client.ok("papayu_sync", json!({})));
    assert_eq!(by_agent, by_cli);
    assert_eq!(by_agent["plans_after"], 1, "{by_agent}");
    assert_eq!(by_agent["pushed"], false, "{by_agent}");
    assert_eq!(what_was_stored(&carol), what_was_stored(&bob));

    // Pushing is asked for, and only then does the remote move: a plan of Carol's reaches it.
    carol
        .papayu([
            "plan",
            "Add c.txt",
            "--response",
            response.to_str().unwrap(),
        ])
        .ok();
    let untouched = report_of(client.ok("papayu_sync", json!({})));
    assert_eq!(untouched["pushed"], false, "{untouched}");
    assert_eq!(remote_notes(), shared, "no push without push: true");
    let pushed = report_of(client.ok("papayu_sync", json!({"push": true})));
    client.finish();
    assert_eq!(pushed["pushed"], true, "{pushed}");
    assert_ne!(remote_notes(), shared);
    let bob_again = cli_json(&bob, &["sync", "--no-push"]);
    assert_eq!(bob_again["plans_after"], 2, "{bob_again}");
    alice.fsck();
}

#[test]
fn a_log_an_agent_passes_reaches_the_context_as_plan_log_brings_it() {
    let mut files = vec![(
        "pkg/ports.py".to_string(),
        "def parse_port(text):\n    return int(text)\n".to_string(),
    )];
    // Enough other files that the context is ranked, not sent whole.
    for i in 0..40 {
        files.push((
            format!("pkg/mod{i}.py"),
            format!("def helper_{i}(value):\n    return value + {i}\n").repeat(60),
        ));
    }
    let borrowed: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let repo = TestRepo::with_files(&borrowed);
    let log = "Traceback (most recent call last):\n  File \"pkg/ports.py\", line 2, in parse_port\nValueError: invalid literal for int() with base 10: '-1'\n";
    let goal = "negative ports crash";
    let dir = tempfile::tempdir().unwrap();
    let log_file = dir.path().join("error.log");
    std::fs::write(&log_file, log).unwrap();
    let shown = cli_json(
        &repo,
        &["context", goal, "--log", log_file.to_str().unwrap()],
    );
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&answer("c.txt", "c\n"))]);
    let mut client = Client::with_model(&repo, &fake);
    client.initialize("an-agent");
    let read = report_of(client.ok("papayu_context", json!({"goal": goal, "log": log})));
    let block = |doc: &Value, kind: &str| -> Option<Value> {
        doc["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["kind"] == kind)
            .cloned()
    };
    // The same log block (named by its file, or `log`), and the file its traceback names.
    let (cli_log, mcp_log) = (block(&shown, "log").unwrap(), block(&read, "log").unwrap());
    assert_eq!(mcp_log["body"], cli_log["body"], "{read}");
    assert!(mcp_log["body"].as_str().unwrap().contains("ValueError"));
    let ports = read["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["title"] == "pkg/ports.py")
        .unwrap_or_else(|| panic!("{read}"));
    assert!(
        ports["source"].as_str().unwrap().contains("named in a log"),
        "{ports}"
    );
    assert_eq!(
        read["fingerprint"], shown["fingerprint"],
        "the same files are sent"
    );

    // With its own answer no model is asked: a log would go nowhere, and is refused.
    client.error(
        "papayu_propose",
        json!({"goal": goal, "log": log, "answer": answer("c.txt", "c\n")}),
        "ERR_USAGE",
    );
    // Without one, papayu's model is asked with the log in its context.
    client.ok("papayu_propose", json!({"goal": goal, "log": log}));
    client.finish();
    let sent = &fake.requests()[0].body;
    assert!(sent.contains("invalid literal for int()"), "{sent}");
}
