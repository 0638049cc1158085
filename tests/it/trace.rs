//! Traces through the real binary: what a plan and an apply record, that no key or credential
//! reaches a trace or an event line, that event lines need -v, and the trace commands.

use crate::common;
use common::run_with_env as run;

use common::TestRepo;
use common::fake_llm::{self, FakeLlm};
use serde_json::Value;
use sha2::{Digest, Sha256};

const CALC: &str = "def add(a, b):\n    return a + b\n\n\ndef div(a, b):\n    return a / b\n";
const PLANTED_KEY: &str = "sk-proj-PLANTEDTRACEKEYabcdefghij";
const PLANTED_ENV_KEY: &str = "env-planted-secret-0123456789";

fn repo() -> TestRepo {
    TestRepo::with_files(&[
        ("calc.py", CALC),
        ("settings.py", &format!("OPENAI = \"{PLANTED_KEY}\"\n")),
    ])
}

fn sha(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A v2 patch making `div` refuse a zero divisor; `context` is the line after the header.
fn patch(context: &str) -> String {
    serde_json::json!({
        "summary": "div refuses zero",
        "actions": [{"kind": "PATCH_FILE", "path": "calc.py", "base_sha256": sha(CALC),
            "patch": format!("@@ -5,2 +5,4 @@\n def div(a, b):\n+    if b == 0:\n+        raise ValueError(\"b\")\n {context}\n")}]
    })
    .to_string()
}

fn env(fake: &FakeLlm, extra: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = vec![
        ("PAPAYU_LLM_API_URL".into(), format!("{}/v1", fake.url())),
        ("PAPAYU_LLM_MODEL".into(), "trace-model".into()),
        ("PAPAYU_LLM_API_KEY".into(), PLANTED_ENV_KEY.into()),
        ("OPENAI_API_KEY".into(), PLANTED_ENV_KEY.into()),
        ("PAPAYU_LLM_RETRY_BASE_MS".into(), "1".into()),
    ];
    out.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    out
}

fn traces(repo: &TestRepo) -> Vec<(String, Value)> {
    let dir = repo.path().join(".git/papayu/traces");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(String, Value)> = entries
        .map(|e| {
            let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
            let value = serde_json::from_str(&text).unwrap();
            (text, value)
        })
        .collect();
    out.sort_by_key(|(_, v)| v["created_at"].as_i64());
    out
}

fn of_kind<'a>(all: &'a [(String, Value)], kind: &str) -> Vec<&'a Value> {
    all.iter()
        .map(|(_, v)| v)
        .filter(|v| v["kind"] == kind)
        .collect()
}

#[test]
fn a_plan_with_a_repair_and_its_apply_record_everything_and_leak_nothing() {
    let repo = repo();
    let fake = FakeLlm::start(vec![
        fake_llm::openai_chat(&patch("    return a * b")),
        fake_llm::openai_chat(&patch("    return a / b")),
    ]);
    let env = env(&fake, &[("PAPAYU_TRACE", "1"), ("PAPAYU_TRACE_RAW", "1")]);
    let planned = run(
        &repo,
        &[
            "plan",
            "make div in calc.py refuse zero; see settings.py",
            "--json",
        ],
        &env,
    )
    .ok();
    let plan: Value = serde_json::from_str(&planned.stdout).unwrap();
    let id = plan["plans"][0]["plan"]["id"].as_str().unwrap().to_string();
    let applied = run(&repo, &["apply", &id, "--check", "echo checked-ok"], &env).ok();

    let all = traces(&repo);
    let plan_trace = of_kind(&all, "plan")[0];
    for field in [
        "config_snapshot",
        "context_stats",
        "cache_stats",
        "validated_json",
        "schema_version",
        "schema_hash",
        "protocol_default",
        "protocol_attempts",
        "protocol_fallback_reason",
        "protocol_repair_attempt",
        "protocol_fallback_stage",
        "requests",
        "patch_placements",
        "events",
        "raw_answers",
    ] {
        assert!(
            plan_trace.get(field).is_some(),
            "the plan trace has {field}"
        );
    }
    assert_eq!(plan_trace["plan_id"], id.as_str());
    assert_eq!(plan_trace["ok"], true);
    assert_eq!(plan_trace["protocol_default"], 2);
    assert_eq!(plan_trace["protocol_attempts"], serde_json::json!([2, 2]));
    assert_eq!(plan_trace["protocol_repair_attempt"], 1);
    assert_eq!(
        plan_trace["validation_failures"][0]["code"],
        "ERR_PATCH_APPLY_FAILED"
    );
    assert_eq!(plan_trace["validation_failures"][0]["path"], "calc.py");
    assert_eq!(plan_trace["requests"].as_array().unwrap().len(), 2);
    assert!(plan_trace["requests"][0]["input_tokens"].as_u64().unwrap() > 0);
    assert_eq!(plan_trace["raw_answers"].as_array().unwrap().len(), 2);
    assert_eq!(
        plan_trace["validated_json"]["actions"][0]["path"],
        "calc.py"
    );
    assert!(plan_trace["patch_placements"]["calc.py"].is_array());
    assert!(
        plan_trace["context_stats"]["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b["title"] == "calc.py")
    );
    assert_eq!(
        plan_trace["config_snapshot"]["PAPAYU_LLM_MODEL"],
        "trace-model"
    );
    assert!(
        plan_trace["config_snapshot"]
            .get("PAPAYU_LLM_API_KEY")
            .is_none()
    );
    let events: Vec<&str> = plan_trace["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    for name in [
        "LLM_REQUEST_SENT",
        "VALIDATION_FAILED",
        "LLM_RESPONSE_REPAIR",
        "LLM_RESPONSE_OK",
        "PREVIEW_READY",
    ] {
        assert!(
            events.iter().any(|e| e.starts_with(name)),
            "{name} in {events:?}"
        );
    }
    let note = repo
        .git(["notes", "--ref=papayu", "show", "HEAD"])
        .ok()
        .stdout;
    assert!(
        note.contains(plan_trace["trace_id"].as_str().unwrap()),
        "the note links the trace"
    );

    let apply_trace = of_kind(&all, "apply")[0];
    assert_eq!(apply_trace["plan_id"], id.as_str());
    assert_eq!(apply_trace["check"]["command"], "echo checked-ok");
    assert_eq!(apply_trace["check"]["exit_status"], 0);
    assert!(
        apply_trace["check"]["output_tail"]
            .as_str()
            .unwrap()
            .contains("checked-ok")
    );
    assert!(apply_trace["patch_placements"]["calc.py"].is_array());

    for (text, _) in &all {
        assert!(
            !text.contains(PLANTED_KEY),
            "a key from the context leaked into a trace"
        );
        assert!(
            !text.contains(PLANTED_ENV_KEY),
            "a key from the environment leaked into a trace"
        );
    }
    for (out, event) in [
        (&planned.stderr, "LLM_REQUEST_SENT"),
        (&applied.stderr, "APPLY_SUCCESS"),
    ] {
        assert!(!out.contains(PLANTED_KEY), "{out}");
        assert!(!out.contains(PLANTED_ENV_KEY), "{out}");
        assert!(out.contains(event), "PAPAYU_TRACE=1 shows {event}: {out}");
    }
    let branch = repo
        .git([
            "for-each-ref",
            "--format=%(refname:short)",
            "refs/heads/papayu",
        ])
        .ok()
        .stdout
        .trim()
        .to_string();
    let commit = repo
        .git(["rev-parse", &branch])
        .ok()
        .stdout
        .trim()
        .to_string();
    assert_eq!(
        apply_trace["events"][0],
        format!(
            "APPLY_SUCCESS plan={} branch={branch} commit={commit}",
            &id[..10]
        )
        .as_str()
    );
    // A merge shows its event under tracing and records it in its own trace.
    let merged = run(&repo, &["merge", &id], &env).ok();
    let merge_trace = of_kind(&traces(&repo), "merge")[0].clone();
    let merge_event = merge_trace["events"][0].as_str().unwrap().to_string();
    assert!(
        merge_event.starts_with(&format!(
            "MERGE_SUCCESS plan={} into=refs/heads/",
            &id[..10]
        )),
        "{merge_event}"
    );
    assert!(merged.stderr.contains(&merge_event), "{}", merged.stderr);
    let replay = repo
        .papayu(["trace", "replay", plan_trace["trace_id"].as_str().unwrap()])
        .ok();
    assert_eq!(replay.stdout.trim(), "same");
    let shown = repo
        .papayu([
            "trace",
            "show",
            &plan_trace["trace_id"].as_str().unwrap()[..8],
        ])
        .ok();
    assert!(
        shown.stdout.contains("ERR_PATCH_APPLY_FAILED") && shown.stdout.contains("attempts [2, 2]"),
        "{}",
        shown.stdout
    );
    repo.fsck();
}

#[test]
fn events_need_verbose_and_a_failed_plan_is_traced_too() {
    let repo = repo();
    let fake = FakeLlm::start(vec![
        fake_llm::openai_chat("not json at all"),
        fake_llm::openai_chat("still not json"),
        fake_llm::openai_chat(&patch("    return a / b")),
        fake_llm::openai_chat(&patch("    return a / b")),
    ]);
    let env = env(&fake, &[]);
    let before = repo.snapshot();
    let failed = run(&repo, &["plan", "fix div in calc.py"], &env).code(1);
    assert!(failed.stderr.contains("ERR_"), "{}", failed.stderr);
    assert!(
        !failed.stderr.contains("LLM_REQUEST_SENT"),
        "no event lines without -v: {}",
        failed.stderr
    );
    assert_eq!(repo.snapshot(), before, "a failed plan changes nothing");
    let all = traces(&repo);
    let t = of_kind(&all, "plan")[0];
    assert_eq!(t["ok"], false);
    assert!(
        t["problems"][0]["code"]
            .as_str()
            .unwrap()
            .starts_with("ERR_")
    );
    assert!(
        t.get("raw_answers").unwrap().as_array().unwrap().is_empty(),
        "raw answers need PAPAYU_TRACE_RAW=1"
    );

    let verbose = run(&repo, &["plan", "fix div in calc.py", "-v"], &env).ok();
    assert!(
        verbose.stderr.contains("LLM_REQUEST_SENT provider="),
        "{}",
        verbose.stderr
    );
    let off = env
        .iter()
        .cloned()
        .chain([("PAPAYU_TRACE".to_string(), "0".to_string())])
        .collect::<Vec<_>>();
    let count = traces(&repo).len();
    run(&repo, &["plan", "fix div in calc.py", "-q"], &off).ok();
    assert_eq!(traces(&repo).len(), count, "PAPAYU_TRACE=0 writes no trace");
}

#[test]
fn report_counts_the_traces_it_finds() {
    let repo = repo();
    let fake = FakeLlm::start(vec![
        fake_llm::openai_chat(&patch("    return a * b")),
        fake_llm::openai_chat(&patch("    return a / b")),
    ]);
    let env = env(&fake, &[]);
    let planned = run(&repo, &["plan", "fix div in calc.py", "--json"], &env).ok();
    let id = serde_json::from_str::<Value>(&planned.stdout).unwrap()["plans"][0]["plan"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    run(&repo, &["apply", &id, "--no-check"], &env).ok();
    let report: Value =
        serde_json::from_str(&repo.papayu(["trace", "report", "--json"]).ok().stdout).unwrap();
    let report = &report["report"];
    assert_eq!(report["plans"], 1);
    assert_eq!(report["applies"], 1);
    assert_eq!(report["repairs"], 1);
    assert_eq!(report["repairs_succeeded"], 1);
    assert_eq!(report["fallback_count"], 0);
    assert_eq!(
        report["most_repaired_paths"][0],
        serde_json::json!(["calc.py", 1])
    );
    assert_eq!(report["providers"]["openai-compatible"]["requests"], 2);
    assert!(
        report["graduation"]["verdict"]
            .as_str()
            .unwrap()
            .starts_with("not enough data (1 of 100")
    );
    let future: Value = serde_json::from_str(
        &repo
            .papayu(["trace", "report", "--since", "2999-01-01", "--json"])
            .ok()
            .stdout,
    )
    .unwrap();
    assert_eq!(future["report"]["traces"], 0);
    repo.papayu(["trace", "report", "--since", "someday"])
        .code(2);
    repo.papayu(["trace", "show", "no-such-trace"])
        .err("ERR_TRACE_NOT_FOUND");
}

#[test]
fn prune_deletes_old_traces_only() {
    let repo = repo();
    let dir = repo.path().join(".git/papayu/traces");
    std::fs::create_dir_all(&dir).unwrap();
    let day = 86_400_000i64;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    for (name, age_days) in [("old", 40), ("recent", 3)] {
        let trace = serde_json::json!({"version": 1, "trace_id": name, "kind": "plan", "created_at": now - age_days * day, "ok": true});
        std::fs::write(dir.join(format!("{name}.json")), trace.to_string()).unwrap();
    }
    let dry = repo.papayu(["trace", "prune", "--dry-run"]).ok();
    assert!(
        dry.stdout.starts_with("would delete 1 trace, "),
        "{}",
        dry.stdout
    );
    assert!(dir.join("old.json").exists());
    repo.papayu(["trace", "prune"]).ok();
    assert!(!dir.join("old.json").exists() && dir.join("recent.json").exists());
    repo.git(["config", "papayu.traceExpire", "1.days"]).ok();
    repo.papayu(["trace", "prune"]).ok();
    assert!(
        !dir.join("recent.json").exists(),
        "papayu.traceExpire is honoured"
    );
    repo.git(["config", "papayu.traceExpire", "soon"]).ok();
    repo.papayu(["trace", "prune"]).err("ERR_CONFIG_INVALID");
    // --expire reads like gc's: relative ages, and a typo is a usage error.
    std::fs::write(
        dir.join("week.json"),
        serde_json::json!({"version": 1, "trace_id": "week", "kind": "plan",
            "created_at": now - 8 * day, "ok": true})
        .to_string(),
    )
    .unwrap();
    repo.papayu(["trace", "prune", "--expire", "10.days.ago"])
        .ok();
    assert!(dir.join("week.json").exists());
    repo.papayu(["trace", "prune", "--expire", "7.days.ago"])
        .ok();
    assert!(!dir.join("week.json").exists());
    repo.papayu(["trace", "prune", "--expire", "sooon"]).code(2);
}
