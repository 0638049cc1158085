//! Every command's `--json` document against docs/json.md: the envelope, and each command's
//! fields with their types, read from the documentation's own examples.

use crate::common;

use std::collections::BTreeMap;

use common::TestRepo;
use common::fake_llm::{self, FakeLlm};
use serde_json::{Value, json};

const ENVELOPE: &[&str] = &["version", "command", "ok", "warnings", "errors"];
/// The key that marks a documented object as open (more fields than shown).
const MORE: &str = "…";

/// `### \`name\`` headings of docs/json.md and the JSON example under each.
fn documented() -> BTreeMap<String, Value> {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/json.md"))
        .expect("docs/json.md");
    let mut out = BTreeMap::new();
    let mut heading: Option<String> = None;
    let mut block: Option<String> = None;
    for line in doc.lines() {
        if let Some(text) = &mut block {
            if line.starts_with("```") {
                if let Some(name) = heading.take() {
                    let value: Value = serde_json::from_str(text)
                        .unwrap_or_else(|e| panic!("docs/json.md `{name}` example: {e}"));
                    out.insert(name, value);
                }
                block = None;
            } else {
                text.push_str(line);
                text.push('\n');
            }
        } else if let Some(name) = line.strip_prefix("### `") {
            heading = Some(name.trim_end_matches('`').to_string());
        } else if line.starts_with("```json") {
            block = Some(String::new());
        }
    }
    out
}

/// Where `actual` strays from the documented `example`: missing or undocumented keys, or a
/// value of another type. `null` in the example, or in the output, matches anything.
fn differences(example: &Value, actual: &Value, at: &str, out: &mut Vec<String>) {
    match (example, actual) {
        (Value::Null, _) | (_, Value::Null) => {}
        (Value::Object(doc), Value::Object(got)) => {
            let open = doc.contains_key(MORE);
            for key in doc.keys().filter(|k| *k != MORE) {
                match got.get(key) {
                    Some(value) => differences(&doc[key], value, &format!("{at}.{key}"), out),
                    None => out.push(format!("{at}.{key} is documented but missing")),
                }
            }
            if !open {
                for key in got.keys().filter(|k| !doc.contains_key(*k)) {
                    out.push(format!("{at}.{key} is in the output but not documented"));
                }
            }
        }
        (Value::Array(doc), Value::Array(got)) => {
            if let Some(first) = doc.first() {
                for (i, item) in got.iter().enumerate() {
                    differences(first, item, &format!("{at}[{i}]"), out);
                }
            }
        }
        (Value::String(_), Value::String(_))
        | (Value::Bool(_), Value::Bool(_))
        | (Value::Number(_), Value::Number(_)) => {}
        (doc, got) => out.push(format!("{at} is documented as {doc} but is {got}")),
    }
}

struct Checker {
    docs: BTreeMap<String, Value>,
    seen: Vec<String>,
}

impl Checker {
    /// Checks one successful document of `command` against the documentation.
    fn check(&mut self, command: &str, stdout: &str) -> Value {
        let doc: Value = serde_json::from_str(stdout).unwrap_or_else(|e| {
            panic!("{command}: stdout is not one JSON document ({e}):\n{stdout}")
        });
        assert_eq!(doc["version"], 1, "{command}");
        assert_eq!(doc["ok"], true, "{command}: {doc}");
        assert_eq!(doc["errors"], json!([]), "{command}");
        assert!(doc["warnings"].is_array(), "{command}");
        let name = command.split(" --").next().unwrap();
        assert_eq!(doc["command"], name, "{command}");
        let example = self
            .docs
            .get(command)
            .unwrap_or_else(|| panic!("docs/json.md has no section for `{command}`"));
        let mut expected = example.clone();
        for key in ENVELOPE {
            expected[*key] = Value::Null;
        }
        let mut found = Vec::new();
        differences(&expected, &doc, command, &mut found);
        assert!(
            found.is_empty(),
            "{command}:\n{}\n{doc:#}",
            found.join("\n")
        );
        self.seen.push(command.to_string());
        doc
    }
}

fn answer(path: &str, content: &str) -> String {
    json!({"summary": format!("add {path}"), "actions": [
        {"kind": "CREATE_FILE", "path": path, "content": content}]})
    .to_string()
}

#[test]
fn every_command_prints_the_documented_json() {
    let mut c = Checker {
        docs: documented(),
        seen: Vec::new(),
    };
    let repo = TestRepo::with_files(&[("a.txt", "one\ntwo\n")]);
    repo.write("b.json", &answer("b.txt", "b\n"));
    let out = repo
        .papayu(["plan", "Add b", "--response", "b.json", "--json"])
        .ok();
    let planned = c.check("plan", &out.stdout);
    let id = planned["plans"][0]["plan"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    c.check(
        "validate",
        &repo.papayu(["validate", "b.json", "--json"]).ok().stdout,
    );
    c.check("list", &repo.papayu(["list", "--json"]).ok().stdout);
    let applied = c.check(
        "apply",
        &repo
            .papayu(["--json", "apply", &id, "--check", "true"])
            .ok()
            .stdout,
    );
    assert_eq!(applied["check"]["exit_code"], 0);
    c.check("show", &repo.papayu(["show", &id, "--json"]).ok().stdout);
    c.check(
        "show --conversation",
        &repo
            .papayu(["show", &id, "--conversation", "--json"])
            .ok()
            .stdout,
    );
    let remote = tempfile::tempdir().unwrap();
    common::run_in(
        remote.path(),
        "git",
        ["init", "-q", "--bare", "r.git"],
        None,
    )
    .ok();
    let url = remote.path().join("r.git");
    repo.git(["remote", "add", "origin", url.to_str().unwrap()])
        .ok();
    c.check("sync", &repo.papayu(["sync", "--json"]).ok().stdout);
    c.check(
        "publish",
        &repo.papayu(["publish", &id, "--json"]).ok().stdout,
    );
    let diff = c.check("diff", &repo.papayu(["diff", &id, "--json"]).ok().stdout);
    assert!(diff["diff"].as_str().unwrap().contains("+b"), "{diff}");
    c.check(
        "merge",
        &repo
            .papayu(["merge", &id, "--keep-branch", "--json"])
            .ok()
            .stdout,
    );
    c.check("undo", &repo.papayu(["undo", "--json"]).ok().stdout);
    c.check("redo", &repo.papayu(["redo", "--json"]).ok().stdout);

    repo.write("c.json", &answer("c.txt", "c\n"));
    repo.papayu(["plan", "Add c", "--response", "c.json"]).ok();
    repo.write("d.json", &answer("d.txt", "d\n"));
    repo.papayu(["plan", "Add d", "--response", "d.json"]).ok();
    let all = c.check(
        "apply --all",
        &repo
            .papayu(["apply", "--all", "--no-check", "--json"])
            .ok()
            .stdout,
    );
    assert_eq!(all["results"].as_array().unwrap().len(), 2);
    c.check("discard", &repo.papayu(["discard", "--json"]).ok().stdout);
    c.check("init", &repo.papayu(["init", "--json"]).ok().stdout);
    c.check("config", &repo.papayu(["config", "--json"]).ok().stdout);
    c.check(
        "context",
        &repo.papayu(["context", "a", "--json"]).ok().stdout,
    );

    repo.write("p.diff", "@@\n one\n-two\n+TWO\n");
    let patched = c.check(
        "patch",
        &repo
            .papayu(["patch", "a.txt", "p.diff", "--json"])
            .ok()
            .stdout,
    );
    assert_eq!(patched["content"], "one\nTWO\n");

    let trace = planned["plans"][0]["plan"]["trace_id"]
        .as_str()
        .unwrap()
        .to_string();
    c.check(
        "trace list",
        &repo.papayu(["trace", "list", "--json"]).ok().stdout,
    );
    c.check(
        "trace show",
        &repo.papayu(["trace", "show", &trace, "--json"]).ok().stdout,
    );
    c.check(
        "trace replay",
        &repo
            .papayu(["trace", "replay", &trace, "--json"])
            .ok()
            .stdout,
    );
    c.check(
        "trace report",
        &repo.papayu(["trace", "report", "--json"]).ok().stdout,
    );
    c.check(
        "trace prune",
        &repo
            .papayu(["trace", "prune", "--dry-run", "--json"])
            .ok()
            .stdout,
    );
    c.check(
        "gc",
        &repo.papayu(["gc", "--dry-run", "--json"]).ok().stdout,
    );
    c.check(
        "trace to-golden",
        &repo
            .papayu(["trace", "to-golden", &trace, "--json"])
            .ok()
            .stdout,
    );
    let man = repo.path().join("man");
    c.check(
        "install-man",
        &repo
            .papayu(["install-man", man.to_str().unwrap(), "--json"])
            .ok()
            .stdout,
    );
    c.check(
        "completions",
        &repo.papayu(["completions", "fish", "--json"]).ok().stdout,
    );

    // Checks on other machines, through the remote above: a request, and this very clone as
    // the worker.
    repo.git(["push", "-q", "origin", "main"]).ok();
    repo.write("h.json", &answer("h.txt", "h\n"));
    let h = repo
        .papayu(["plan", "Add h", "--response", "h.json", "--json"])
        .ok();
    let h: Value = serde_json::from_str(&h.stdout).unwrap();
    let h = h["plans"][0]["plan"]["id"].as_str().unwrap().to_string();
    c.check(
        "apply --on",
        &repo
            .papayu(["apply", &h, "--on", "origin", "--check", "true", "--json"])
            .ok()
            .stdout,
    );
    c.check("worker", &repo.papayu(["worker", "--json"]).ok().stdout);
    c.check("ci", &repo.papayu(["ci", "github", "--json"]).ok().stdout);

    // refine asks a model: a fake one, speaking the OpenAI wire format.
    let branch = applied["branch"].as_str().unwrap().to_string();
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&answer("e.txt", "e\n"))]);
    let url = format!("{}/v1", fake.url());
    let env = [
        ("PAPAYU_LLM_API_URL", url.as_str()),
        ("PAPAYU_LLM_MODEL", "test-model"),
        ("PAPAYU_LLM_TIMEOUT_SEC", "5"),
    ];
    c.check(
        "refine",
        &repo
            .papayu_env(
                ["refine", &branch, "also add e", "--no-check", "--json"],
                &env,
            )
            .ok()
            .stdout,
    );

    // Competing proposals: one provider asked twice makes a group.
    let fake = FakeLlm::start(vec![
        fake_llm::openai_chat(&answer("f.txt", "f\n")),
        fake_llm::openai_chat(&answer("g.txt", "g\n")),
    ]);
    let url = format!("{}/v1", fake.url());
    let env = [
        ("PAPAYU_LLM_API_URL", url.as_str()),
        ("PAPAYU_LLM_MODEL", "test-model"),
        ("PAPAYU_LLM_TIMEOUT_SEC", "5"),
    ];
    repo.papayu_env(["plan", "Add f", "--samples", "2"], &env)
        .ok();
    repo.papayu(["apply", "--all", "--check", "true"]).ok();
    let compared = c.check("compare", &repo.papayu(["compare", "--json"]).ok().stdout);
    assert_eq!(compared["ranking"].as_array().unwrap().len(), 2);
    c.check("pick", &repo.papayu(["pick", "--json"]).ok().stdout);

    let documented: Vec<&String> = c
        .docs
        .keys()
        .filter(|k| !matches!(k.as_str(), "request"))
        .collect();
    for name in documented {
        assert!(
            c.seen.contains(name),
            "docs/json.md documents `{name}` but no test ran it"
        );
    }
    repo.fsck();
}

#[test]
fn the_shape_check_catches_strays() {
    let mut found = Vec::new();
    differences(&json!({"a": 1}), &json!({"a": 1, "b": 2}), "x", &mut found);
    differences(
        &json!({"a": 1, "c": "s"}),
        &json!({"a": "1"}),
        "y",
        &mut found,
    );
    differences(
        &json!({"a": [{"k": 1}]}),
        &json!({"a": [{"k": 1}, {"j": 2}]}),
        "z",
        &mut found,
    );
    differences(
        &json!({"o": {MORE: 1, "k": 1}}),
        &json!({"o": {"k": 2, "extra": 3}}),
        "w",
        &mut found,
    );
    assert_eq!(
        found,
        [
            "x.b is in the output but not documented",
            "y.a is documented as 1 but is \"1\"",
            "y.c is documented but missing",
            "z.a[1].k is documented but missing",
            "z.a[1].j is in the output but not documented",
        ]
    );
}

#[test]
fn errors_are_a_json_document_with_the_same_exit_status() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let doc = repo
        .papayu(["show", "nope", "--json"])
        .json_err("ERR_PLAN_NOT_FOUND");
    assert_eq!(doc["command"], "show");
    assert!(doc["errors"][0]["reason"].as_str().unwrap().len() > 10);
    assert!(doc.get("detail").is_none());

    let usage = repo.papayu(["list", "--no-such-flag", "--json"]);
    assert_eq!(usage.status, Some(2), "{}", usage.stderr);
    let doc: Value = serde_json::from_str(&usage.stdout).unwrap();
    assert_eq!(doc["errors"][0]["code"], "ERR_USAGE");
    assert_eq!(doc["ok"], false);

    // A refused patch: the report is in the document, under its one code.
    repo.write("k.txt", "k\nv\nk\nv\n");
    repo.write("p.diff", "@@\n k\n-v\n+w\n");
    let doc = repo
        .papayu(["patch", "--json", "k.txt", "p.diff"])
        .json_err("ERR_PATCH_APPLY_FAILED");
    assert_eq!(doc["report"]["failures"][0]["verdict"]["kind"], "ambiguous");

    // Warnings go into the document, not stderr.
    repo.write(
        "b.json",
        r#"{"actions": [{"kind": "CREATE_FILE", "path": "b.txt", "content": "b\n"}],
            "memory_patch": {"user.favourite_colour": "green"}}"#,
    );
    let run = repo.papayu(["validate", "--json", "b.json"]).ok();
    let doc: Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(
        doc["warnings"][0]
            .as_str()
            .unwrap()
            .contains("memory_patch"),
        "{doc}"
    );
    assert!(!run.stderr.contains("warning:"), "{}", run.stderr);
}
