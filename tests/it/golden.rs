//! Golden traces: every case in `docs/golden_traces/v1/` and `v2/` is replayed through the real
//! binary against a fake provider answering with the recorded answers, and must give the
//! recorded plan, error code or applied tree. `make golden` regenerates the cases from the
//! scenarios below through `git papayu trace to-golden`.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::TestRepo;
use common::fake_llm::{self, FakeLlm};
use git_papayu::trace::golden::{Case, CaseResult, compare};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/golden_traces")
}

fn cases() -> Vec<(PathBuf, Case)> {
    let mut out = Vec::new();
    for version in ["v1", "v2"] {
        let dir = golden_dir().join(version);
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "json") {
                let text = std::fs::read_to_string(&path).unwrap();
                let case: Case = serde_json::from_str(&text)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                out.push((path, case));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Runs a case's request with its answers; returns what papayu made of it and the requests
/// the fake provider received.
fn play(case: &Case, with_tree: bool, raw_trace: bool) -> (CaseResult, TestRepo, Vec<String>) {
    let files: Vec<(&str, &str)> = case
        .request
        .files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let repo = TestRepo::with_files(&files);
    let fake = FakeLlm::start(
        case.answers
            .iter()
            .map(|a| fake_llm::openai_chat(a))
            .collect(),
    );
    let url = format!("{}/v1", fake.url());
    let protocol = case.protocol.to_string();
    let fallback = if case.request.fallback_to_v1 {
        "1"
    } else {
        "0"
    };
    let mut env = vec![
        ("PAPAYU_LLM_API_URL", url.as_str()),
        ("PAPAYU_LLM_MODEL", "golden"),
        ("PAPAYU_PROTOCOL_VERSION", protocol.as_str()),
        ("PAPAYU_PROTOCOL_FALLBACK_TO_V1", fallback),
    ];
    if raw_trace {
        env.push(("PAPAYU_TRACE_RAW", "1"));
    }
    let run = repo.papayu_env(["plan", case.request.goal.as_str(), "--json"], &env);
    let bodies = fake.requests().iter().map(|r| r.body.clone()).collect();
    let mut result = CaseResult::default();
    if run.status == Some(0) {
        let out: Value = serde_json::from_str(&run.stdout).expect("plan --json");
        // A record is flat: its own fields and the plan's; read the plan's back out.
        let plan: git_papayu::protocol::Plan =
            serde_json::from_value(out["plans"][0]["plan"].clone()).expect("a stored plan");
        result.plan = serde_json::to_value(&plan).ok();
        result.schema_version = out["plans"][0]["plan"]["schema_version"]
            .as_u64()
            .map(|v| v as u8);
        if with_tree {
            let id = out["plans"][0]["plan"]["id"].as_str().unwrap();
            let applied = repo.papayu(["apply", id, "--no-check", "--json"]).ok();
            let branch: Value = serde_json::from_str(&applied.stdout).unwrap();
            result.tree = Some(tree(&repo, branch["branch"].as_str().unwrap_or("HEAD")));
        }
    } else {
        let out: Value = serde_json::from_str(&run.stdout).expect("plan --json");
        result.error = out["errors"][0]["code"].as_str().map(str::to_string);
    }
    (result, repo, bodies)
}

/// The text files of a branch, from git itself.
fn tree(repo: &TestRepo, rev: &str) -> BTreeMap<String, String> {
    let paths = repo.git(["ls-tree", "-r", "--name-only", rev]).ok().stdout;
    paths
        .lines()
        .map(|p| {
            (
                p.to_string(),
                repo.git(["show", &format!("{rev}:{p}")]).ok().stdout,
            )
        })
        .collect()
}

fn check(path: &Path, case: &Case) -> Vec<String> {
    let (actual, _repo, bodies) = play(case, case.result.tree.is_some(), false);
    let mut diff = compare(&case.result, &actual);
    let first = bodies.first().cloned().unwrap_or_default();
    for file in &case.context {
        if !first.contains(&format!("FILE[{file}]")) {
            diff.push(format!("context: {file} was not sent first"));
        }
    }
    if bodies.len() != case.answers.len() {
        diff.push(format!(
            "{} requests for {} recorded answers",
            bodies.len(),
            case.answers.len()
        ));
    }
    diff.into_iter()
        .map(|d| format!("{}: {d}", path.display()))
        .collect()
}

#[test]
fn every_golden_trace_replays_to_its_recorded_result() {
    let cases = cases();
    assert!(
        cases.len() >= 10,
        "the golden set covers the classes: {}",
        cases.len()
    );
    let failures: Vec<String> = cases.iter().flat_map(|(p, c)| check(p, c)).collect();
    assert!(
        failures.is_empty(),
        "golden traces changed:\n{}",
        failures.join("\n")
    );
}

#[test]
fn a_mutated_expectation_fails_the_replay() {
    let cases = cases();
    let (path, case) = cases
        .iter()
        .find(|(_, c)| c.result.plan.is_some() && c.result.tree.is_some())
        .expect("a case with a plan and a tree");
    let mut plan = case.clone();
    plan.result.plan.as_mut().unwrap()["summary"] = json!("something else");
    assert!(!check(path, &plan).is_empty(), "a changed plan is caught");
    let mut tree = case.clone();
    tree.result
        .tree
        .as_mut()
        .unwrap()
        .values_mut()
        .for_each(|t| t.push('x'));
    assert!(!check(path, &tree).is_empty(), "a changed tree is caught");
    let (path, case) = cases
        .iter()
        .find(|(_, c)| c.result.error.is_some())
        .expect("a failing case");
    let mut error = case.clone();
    error.result.error = Some("ERR_SOMETHING_ELSE".to_string());
    assert!(
        !check(path, &error).is_empty(),
        "a changed error code is caught"
    );
}

// ---- scenarios, for `make golden` ----

const STATS: &str = "def total(items):\n    return sum(items)\n\n\ndef mean(items):\n    return total(items) / len(items)\n";

fn sha(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn files() -> BTreeMap<String, String> {
    [
        ("src/stats.py", STATS),
        (
            "tests/test_stats.py",
            "from src.stats import mean\n\ndef test_empty():\n    assert mean([]) == 0\n",
        ),
        ("README.md", "# stats\n"),
        (".env", "TOKEN=local\n"),
    ]
    .into_iter()
    .map(|(p, t)| (p.to_string(), t.to_string()))
    .collect()
}

/// The base files of a scenario. The model must never have been shown the file it updates in
/// `update-without-base`, so that tree is too large to be sent whole.
fn files_for(name: &str) -> BTreeMap<String, String> {
    let mut files = files();
    if name == "update-without-base" {
        for i in 0..8 {
            files.insert(format!("pkg/m{i}.py"), format!("VALUE = {i}\n"));
        }
    }
    files
}

fn patch(context: &str) -> String {
    json!({"summary": "mean([]) returns 0", "actions": [{"kind": "PATCH_FILE", "path": "src/stats.py",
        "base_sha256": sha(STATS),
        "patch": format!("@@ -5,2 +5,4 @@\n def mean(items):\n+    if not items:\n+        return 0\n {context}\n")}]})
    .to_string()
}

fn update(path: &str, content: &str) -> String {
    json!({"summary": format!("rewrite {path}"), "actions": [{"kind": "UPDATE_FILE", "path": path, "content": content}]}).to_string()
}

fn create(path: &str) -> String {
    json!({"summary": "add notes", "actions": [{"kind": "CREATE_FILE", "path": path, "content": "notes\n"}]}).to_string()
}

fn fixed() -> String {
    STATS.replace(
        "def mean(items):\n",
        "def mean(items):\n    if not items:\n        return 0\n",
    )
}

/// (version, name, goal, answers, record the applied tree)
fn scenarios() -> Vec<(u8, &'static str, &'static str, Vec<String>, bool)> {
    let good = patch("    return total(items) / len(items)");
    let bad = patch("    return something else");
    let goal = "make mean of an empty list 0 in src/stats.py";
    vec![
        (2, "create-file", "add NOTES.md", vec![create("NOTES.md")], true),
        (2, "patch-existing-file", goal, vec![good.clone()], true),
        (2, "no-changes", goal, vec![json!({"summary": "NO_CHANGES: mean already handles it", "actions": []}).to_string()], false),
        (2, "repair-success", goal, vec![bad.clone(), good.clone()], true),
        (2, "fallback-to-v1", goal, vec![bad.clone(), bad.clone(), update("src/stats.py", &fixed())], true),
        (2, "context-round", "make mean of an empty list 0",
            vec![json!({"summary": "need the code", "actions": [], "context_requests": [{"type": "read_file", "path": "src/stats.py"}]}).to_string(), good.clone()], true),
        (2, "invalid-json", goal, vec!["I would change mean.".to_string(), "{\"summary\": ".to_string()], false),
        (2, "path-escapes-repository", goal, vec![create("../outside.txt"), create("../outside.txt")], false),
        (2, "protected-path", goal, vec![create(".env"), update(".env", "TOKEN=x\n")], false),
        (2, "update-without-base", "add a line to the readme", vec![update("src/stats.py", "x = 1\n"), update("src/stats.py", "x = 1\n")], false),
        (2, "patch-base-mismatch", goal, vec![
            json!({"summary": "s", "actions": [{"kind": "PATCH_FILE", "path": "src/stats.py", "base_sha256": sha("other"), "patch": "@@ -1 +1 @@\n-x\n+y\n"}]}).to_string(),
            json!({"summary": "s", "actions": [{"kind": "PATCH_FILE", "path": "src/stats.py", "base_sha256": sha("other"), "patch": "@@ -1 +1 @@\n-x\n+y\n"}]}).to_string(),
            update("src/stats.py", "x = 1\n"), update("src/stats.py", "x = 1\n")], false),
        (1, "create-file", "add NOTES.md", vec![create("NOTES.md")], true),
        (1, "update-file", goal, vec![update("src/stats.py", &fixed())], true),
        (1, "repair-success", goal, vec![create("/abs/path.txt"), update("src/stats.py", &fixed())], true),
        (1, "schema-violation", goal, vec![json!({"summary": "s", "actions": [{"kind": "RENAME", "path": "a"}]}).to_string(), json!({"actions": "none"}).to_string()], false),
    ]
}

/// Regenerates `docs/golden_traces` from the scenarios: each is run through the binary with
/// raw tracing, turned into a case by `git papayu trace to-golden`, and given its applied tree.
#[test]
#[ignore = "writes docs/golden_traces; run with `make golden`"]
fn regenerate() {
    for (version, name, goal, answers, with_tree) in scenarios() {
        let seed = Case {
            version: 1,
            name: name.to_string(),
            protocol: version,
            request: git_papayu::trace::golden::CaseRequest {
                goal: goal.to_string(),
                fallback_to_v1: true,
                files: files_for(name),
            },
            answers,
            ..Case::default()
        };
        let (result, repo, _) = play(&seed, with_tree, true);
        let traces = repo.path().join(".git/papayu/traces");
        let plan_trace = std::fs::read_dir(&traces)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| {
                std::fs::read_to_string(p)
                    .unwrap()
                    .contains("\"kind\": \"plan\"")
            })
            .expect("a plan trace");
        let id = plan_trace
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .to_string();
        let out = golden_dir()
            .join(format!("v{version}"))
            .join(format!("{name}.json"));
        std::fs::create_dir_all(out.parent().unwrap()).unwrap();
        repo.papayu([
            "trace",
            "to-golden",
            &id,
            "--name",
            name,
            "-o",
            out.to_str().unwrap(),
        ])
        .ok();
        let mut case: Case = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        case.result.tree = result.tree;
        std::fs::write(&out, serde_json::to_string_pretty(&case).unwrap() + "\n").unwrap();
    }
}
