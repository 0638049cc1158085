//! Competing proposals through the real binary: groups from several providers and samples, the
//! differential check against the base (pytest `-rA`, `cargo test`, JUnit XML), `compare`,
//! `pick` and its undo, and the cost shown and capped — checked with the real `git` CLI.
//!
//! pytest need not be installed: the checks here are small shell scripts that print exactly
//! what `pytest -rA` (or `cargo test`) prints, judging each test from the files themselves.

use crate::common;

use common::TestRepo;
use common::fake_llm::{self, FakeLlm};
use serde_json::Value;

const CALC: &str = "def add(a, b):\n    return a + b\n\n\ndef div(a, b):\n    return a / b\n\n\ndef mod(a, m):\n    return a % m\n";

/// What `pytest -rA` prints for tests/test_calc.py, each test judged by a line of calc.py.
const PYTEST_RA: &str = r#"#!/bin/sh
pass=0; fail=0; summary=""
t() {
  if grep -q "$2" calc.py; then
    summary="$summary
PASSED tests/test_calc.py::$1"; pass=$((pass+1))
  else
    summary="$summary
FAILED tests/test_calc.py::$1 - AssertionError: assert False"; fail=$((fail+1))
  fi
}
t test_add "return a + b"
t test_div_zero "b == 0"
t test_mod_zero "m == 0"
echo "============================= test session starts =============================="
echo "collected 3 items"
echo
echo "tests/test_calc.py ...                                                   [100%]"
echo
echo "=========================== short test summary info ============================"
echo "$summary" | sed '/^$/d'
echo "========================= $fail failed, $pass passed in 0.02s ========================="
[ "$fail" = 0 ]
"#;

fn python_project() -> TestRepo {
    TestRepo::with_files(&[
        ("calc.py", CALC),
        ("check.sh", PYTEST_RA),
        ("tests/test_calc.py", "from calc import add, div, mod\n"),
    ])
}

/// calc.py with `div` (and, with `both`, `mod`) guarded against zero; `broken_add` breaks add.
fn fixed_calc(both: bool, broken_add: bool) -> String {
    let mut text = CALC.replace(
        "    return a / b\n",
        "    if b == 0:\n        return None\n    return a / b\n",
    );
    if both {
        text = text.replace(
            "    return a % m\n",
            "    if m == 0:\n        return None\n    return a % m\n",
        );
    }
    if broken_add {
        text = text.replace("return a + b", "return a - b");
    }
    text
}

fn update_answer(summary: &str, content: &str) -> String {
    serde_json::json!({
        "summary": summary,
        "actions": [{"kind": "UPDATE_FILE", "path": "calc.py", "content": content}]
    })
    .to_string()
}

fn create_answer(path: &str, content: &str) -> String {
    serde_json::json!({
        "summary": format!("Add {path}"),
        "actions": [{"kind": "CREATE_FILE", "path": path, "content": content}]
    })
    .to_string()
}

fn papayu(repo: &TestRepo, args: &[&str], providers: &str) -> common::Run {
    repo.papayu_env(
        args,
        &[
            ("PAPAYU_LLM_PROVIDERS", providers),
            ("PAPAYU_LLM_RETRY_BASE_MS", "1"),
            ("PAPAYU_LLM_TIMEOUT_SEC", "5"),
        ],
    )
}

fn dump(run: &common::Run) -> String {
    format!(
        "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        run.status, run.stdout, run.stderr
    )
}

fn json(run: &common::Run) -> Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}\n{}", dump(run)))
}

fn branches(repo: &TestRepo) -> Vec<String> {
    repo.git([
        "for-each-ref",
        "--format=%(refname:short)",
        "refs/heads/papayu/",
    ])
    .ok()
    .stdout
    .lines()
    .map(str::to_string)
    .collect()
}

/// The plans of the newest `plan --json`, by provider.
fn plans_by_provider(run: &common::Run) -> std::collections::BTreeMap<String, Value> {
    json(run)["plans"]
        .as_array()
        .expect("plans")
        .iter()
        .map(|p| {
            let plan = p["plan"].clone();
            (plan["provider"].as_str().unwrap().to_string(), plan)
        })
        .collect()
}

#[test]
fn competing_proposals_are_judged_against_the_base_ranked_picked_and_undone() {
    let repo = python_project();
    let answers = [
        (
            "alpha",
            update_answer("Guard div and mod", &fixed_calc(true, false)),
        ),
        (
            "beta",
            update_answer("Guard div, rewrite add", &fixed_calc(false, true)),
        ),
        ("gamma", create_answer("NOTES.md", "notes\n")),
        (
            "delta",
            update_answer("Guard div", &fixed_calc(false, false)),
        ),
    ];
    let fakes: Vec<FakeLlm> = answers
        .iter()
        .map(|(_, a)| FakeLlm::start(vec![fake_llm::openai_chat(a)]))
        .collect();
    for ((name, _), fake) in answers.iter().zip(&fakes) {
        common::openai_provider(&repo, name, fake, Some("1000,2000,100"));
    }
    let all = "alpha,beta,gamma,delta";
    let planned = papayu(
        &repo,
        &[
            "--json",
            "plan",
            "Fix division by zero in calc.py",
            "--protocol",
            "1",
        ],
        all,
    )
    .ok();
    let plans = plans_by_provider(&planned);
    assert_eq!(plans.len(), 4, "{}", planned.stdout);
    let group = plans["alpha"]["group"]
        .as_str()
        .expect("a group")
        .to_string();
    assert!(group.starts_with('g'), "{group}");
    assert!(plans.values().all(|p| p["group"] == group.as_str()));
    let id = |name: &str| plans[name]["id"].as_str().unwrap().to_string();

    let main_before = repo.rev("main");
    let applied = repo.papayu(["--json", "apply", "--all", "--check", "sh check.sh"]);
    assert_eq!(applied.status, Some(1), "{}", dump(&applied));
    let results = json(&applied)["results"].as_array().unwrap().clone();
    let result = |name: &str| {
        results
            .iter()
            .find(|r| r["plan"] == id(name).as_str())
            .unwrap_or_else(|| panic!("no result for {name}: {results:?}"))
            .clone()
    };
    let counts = |name: &str| {
        let r = result(name);
        let v = &r["verdict"];
        (
            v["status"]
                .as_str()
                .unwrap_or_else(|| panic!("{name}: {r}"))
                .to_string(),
            v["fixes"].as_u64().unwrap(),
            v["breaks"].as_u64().unwrap(),
            v["still_failing"].as_u64().unwrap(),
        )
    };
    assert_eq!(counts("alpha"), ("passed".into(), 2, 0, 0));
    assert_eq!(counts("delta"), ("partial".into(), 1, 0, 1));
    assert_eq!(counts("beta"), ("failed".into(), 1, 1, 1));
    // gamma breaks nothing: its check fails only by the tests that fail at the base.
    assert_eq!(counts("gamma"), ("partial".into(), 0, 0, 2));
    // The proposals were checked side by side, and the base ran once.
    let cached: Vec<bool> = ["alpha", "beta", "gamma", "delta"]
        .iter()
        .map(|name| result(name)["base"]["cached"].as_bool().unwrap())
        .collect();
    assert_eq!(cached.iter().filter(|c| !**c).count(), 1, "{cached:?}");
    let summary = json(&applied)["errors"][0]["reason"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        summary,
        format!(
            "1 of the 4 plans did not apply: {} (failed); the others are on their branches",
            &id("beta")[..10]
        )
    );
    let beta_error = result("beta")["errors"][0]["reason"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        beta_error.contains("tests/test_calc.py::test_add") && beta_error.contains("breaks 1"),
        "{beta_error}"
    );
    assert_eq!(result("gamma")["errors"], serde_json::json!([]));
    // Partial proposals are kept on their branches; the breaking one is rolled back.
    assert_eq!(branches(&repo).len(), 3, "{:?}", branches(&repo));
    let list = json(&repo.papayu(["--json", "list"]).ok());
    let status = |name: &str| {
        list["plans"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == id(name).as_str())
            .unwrap()["status"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        [
            status("alpha"),
            status("delta"),
            status("beta"),
            status("gamma")
        ],
        ["applied", "applied", "failed", "applied"]
    );
    let listed = repo.papayu(["list"]).ok().stdout;
    assert!(
        listed.contains("partial 1/0/1") && listed.contains("failed 1/1/1"),
        "{listed}"
    );
    assert!(
        listed.contains("COST") || listed.contains("$0."),
        "{listed}"
    );
    let shown = repo.papayu(["show", &id("beta")]).ok().stdout;
    assert!(
        shown.contains("Check: failed: fixes 1, breaks 1, still failing 1")
            && shown.contains("broken: tests/test_calc.py::test_add"),
        "{shown}"
    );
    assert!(
        shown.contains(&format!("Group: {group} (4 proposals")),
        "{shown}"
    );

    let compared = json(&repo.papayu(["--json", "compare"]).ok());
    assert_eq!(compared["group"], group.as_str());
    let ranking: Vec<String> = compared["ranking"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(ranking, [id("alpha"), id("delta"), id("gamma"), id("beta")]);
    let first = &compared["proposals"][0];
    let keys: Vec<&str> = first
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "check",
            "claimed_checks",
            "cost_usd",
            "diffstat",
            "id",
            "model",
            "provider",
            "remote_check",
            "tokens",
            "votes"
        ]
    );
    let alpha = compared["proposals"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["provider"] == "alpha")
        .unwrap();
    assert_eq!(alpha["diffstat"]["files"], 1);
    assert_eq!(alpha["diffstat"]["insertions"], 4);
    assert_eq!(alpha["tokens"]["input"], 1200);
    // 176 uncached, 1024 cached and 80 answer tokens at $1000, $100 and $2000 per million.
    let cost = alpha["cost_usd"].as_f64().unwrap();
    assert!((cost - (0.176 + 0.1024 + 0.16)).abs() < 1e-9, "{cost}");
    let table = repo.papayu(["compare"]).ok().stdout;
    assert!(
        table.contains(&format!("Group {group}: 4 proposals")),
        "{table}"
    );
    assert!(
        table.contains("passed: fixes 2, breaks 0, still failing 0"),
        "{table}"
    );

    let picked = repo.papayu(["pick"]).ok();
    assert!(
        picked
            .stderr
            .contains(&format!("Picking {}", &id("alpha")[..10]))
            && picked.stderr.contains("top of the ranking"),
        "{}",
        dump(&picked)
    );
    assert_eq!(repo.read("calc.py"), fixed_calc(true, false));
    assert!(branches(&repo).is_empty(), "{:?}", branches(&repo));
    let list = json(&repo.papayu(["--json", "list"]).ok());
    let statuses: Vec<&str> = list["plans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses.iter().filter(|s| **s == "merged").count(), 1);
    assert_eq!(statuses.iter().filter(|s| **s == "discarded").count(), 3);

    // One undo takes the merge out and brings every branch back.
    repo.papayu(["undo"]).ok();
    assert_eq!(repo.rev("main"), main_before);
    assert_eq!(repo.read("calc.py"), CALC);
    assert_eq!(branches(&repo).len(), 3, "{:?}", branches(&repo));
    let list = json(&repo.papayu(["--json", "list"]).ok());
    let applied: usize = list["plans"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["status"] == "applied")
        .count();
    assert_eq!(applied, 3);
    repo.fsck();
}

#[test]
fn a_change_that_breaks_nothing_is_kept_while_an_unrelated_test_fails() {
    let repo = python_project();
    let readme = repo.plan_id("Add a README", &create_answer("README.md", "# calc\n"));
    let out = repo
        .papayu(["--json", "apply", "--check", "sh check.sh"])
        .ok();
    let doc = json(&out);
    assert_eq!(doc["verdict"]["status"], "partial", "{doc:#}");
    assert_eq!(
        (
            &doc["verdict"]["fixes"],
            &doc["verdict"]["breaks"],
            &doc["verdict"]["still_failing"]
        ),
        (&Value::from(0), &Value::from(0), &Value::from(2)),
        "{doc:#}"
    );
    assert!(doc["branch"].as_str().is_some(), "{doc:#}");
    repo.papayu(["discard", &readme]).ok();
    let out = repo
        .papayu(["apply", &readme, "--check", "sh check.sh"])
        .ok();
    assert!(
        out.stderr.contains(
            "failed, but only by tests that already fail at the base \
             (tests/test_calc.py::test_div_zero, tests/test_calc.py::test_mod_zero), and the plan \
             breaks none: kept as partial: fixes 0, breaks 0, still failing 2"
        ),
        "{}",
        dump(&out)
    );
    let listed = repo.papayu(["list"]).ok().stdout;
    assert!(listed.contains("partial 0/0/2"), "{listed}");
}

/// A check printing `pytest -rA` lines for the tests listed in tests.txt (`name pass|fail`).
const LISTED_TESTS: &str = r#"while read -r name result; do
  if [ "$result" = pass ]; then echo "PASSED t.py::$name"; else echo "FAILED t.py::$name - assert 0"; failed=1; fi
done < tests.txt
exit ${failed:-0}"#;

#[test]
fn a_new_failing_test_is_added_not_broken_and_a_failure_ends_with_what_to_run() {
    let repo =
        TestRepo::with_files(&[("tests.txt", "test_old pass\n"), ("check.sh", LISTED_TESTS)]);
    let tests = |content: &str| {
        serde_json::json!({"actions": [{"kind": "UPDATE_FILE", "path": "tests.txt", "content": content}]})
            .to_string()
    };
    let adds = repo.plan_id("add a test", &tests("test_old pass\ntest_new fail\n"));
    let out = repo
        .papayu(["apply", &adds, "--check", "sh check.sh"])
        .err("ERR_CHECK_FAILED");
    let line = out
        .stderr
        .lines()
        .find(|l| l.starts_with("ERR_CHECK_FAILED"))
        .unwrap();
    assert!(
        line.contains("it adds a failing test: t.py::test_new;"),
        "{}",
        dump(&out)
    );
    assert!(!line.contains("pass at the base"), "{}", dump(&out));
    let short = &adds[..10];
    assert!(
        line.ends_with(&format!(
            "ask for a fix from where it failed with git papayu refine {short} \
             \"make t.py::test_new pass\" (or apply with --rounds N), or keep it anyway with \
             git papayu apply {short} --no-check"
        )),
        "{}",
        dump(&out)
    );
    let doc = json(&repo.papayu(["--json", "show", &adds]).ok());
    assert_eq!(
        doc["check"]["added_failing"],
        serde_json::json!(["t.py::test_new"]),
        "{doc:#}"
    );
    assert!(
        repo.papayu(["show", &adds])
            .ok()
            .stdout
            .contains("  added, failing: t.py::test_new"),
    );
    // The next step works as written.
    repo.papayu(["apply", &adds, "--no-check"]).ok();

    // A test that passes at the base and fails now is broken, and said so.
    let breaks = repo.plan_id("break a test", &tests("test_old fail\n"));
    let out = repo.papayu(["--json", "apply", &breaks, "--check", "sh check.sh"]);
    let doc = out.json_err("ERR_CHECK_FAILED");
    let error = &doc["errors"][0];
    assert!(
        error["reason"]
            .as_str()
            .unwrap()
            .contains("the plan breaks tests that pass at the base: t.py::test_old;"),
        "{doc:#}"
    );
    assert!(
        !error["reason"].as_str().unwrap().contains("adds"),
        "{doc:#}"
    );
    assert!(doc["verdict"].get("added_failing").is_none(), "{doc:#}");
    assert!(
        error["hint"].as_str().unwrap().contains(&format!(
            "git papayu refine {} \"keep t.py::test_old passing\"",
            &breaks[..10]
        )),
        "{doc:#}"
    );

    // Without per-test results, and when the check never ran its tests (both passing at the
    // base): a next command too.
    for check in [
        "if grep -q fail tests.txt; then exit 3; fi",
        "if grep -q fail tests.txt; then echo 'ERROR t.py - SyntaxError: invalid syntax'; exit 2; fi",
    ] {
        let out = repo
            .papayu(["apply", &breaks, "--check", check])
            .err("ERR_CHECK_FAILED");
        let line = out
            .stderr
            .lines()
            .find(|l| l.starts_with("ERR_CHECK_FAILED"))
            .unwrap();
        assert!(
            line.contains(&format!("git papayu apply {} --no-check", &breaks[..10])),
            "{line}"
        );
        assert!(
            line.contains(&format!("git papayu refine {}", &breaks[..10])),
            "{line}"
        );
    }
}

/// A check whose command is wrong for the project: pytest stops at collection in every run.
const COLLECTION_ERROR: &str = "echo 'ERROR tests/test_calc.py - ModuleNotFoundError: No module named calcs'; \
     echo '!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!'; exit 2";

#[test]
fn a_group_whose_checks_all_failed_names_them_and_asks_about_the_check_command() {
    let repo = python_project();
    let readme = repo.plan_id("Add a README", &create_answer("README.md", "# calc\n"));
    let notes = repo.plan_id("Add notes", &create_answer("NOTES.md", "notes\n"));
    let (readme, notes) = (&readme[..10], &notes[..10]);
    let before = repo.snapshot();
    let out = repo
        .papayu(["apply", "--all", "--check", COLLECTION_ERROR])
        .err("ERR_CHECK_FAILED");
    let last = out.stderr.lines().last().unwrap();
    assert!(
        last.starts_with(&format!(
            "ERR_CHECK_FAILED: none of the 2 plans applied: {readme} (did not run), {notes} (did \
             not run); no branch was created; the check failed the same way on the base without \
             any plan: is `{COLLECTION_ERROR}` the right check command?"
        )),
        "{}",
        dump(&out)
    );
    assert!(
        last.ends_with(&format!(
            "check the plans again with git papayu apply {readme} --check \"CMD\" and git papayu \
             apply {notes} --check \"CMD\""
        )),
        "{}",
        dump(&out)
    );
    assert!(
        out.stderr
            .contains("fails the same way on the base without the plan"),
        "{}",
        dump(&out)
    );
    assert!(!out.stderr.contains("the others are on their branches"));
    assert!(branches(&repo).is_empty());

    // The next apply --all names the failed plans and how to check them again.
    let out = repo.papayu(["apply", "--all"]).err("ERR_PLAN_NOT_FOUND");
    assert!(
        out.stderr.contains(&format!(
            "no proposed plan on HEAD; 2 plans failed there: {readme}, {notes}; check it again by \
             id with git papayu apply {readme} --check \"CMD\""
        )),
        "{}",
        dump(&out)
    );
    // Which works as said: the failed plan applies again by id, with the right command.
    repo.papayu(["apply", readme, "--check", "sh check.sh"])
        .ok();
    assert_eq!(branches(&repo).len(), 1);
    assert_ne!(repo.snapshot(), before);
}

#[test]
fn the_base_run_is_cached_per_base_tree_and_command() {
    let repo = python_project();
    let one = repo.plan_id(
        "guard div",
        &update_answer("div", &fixed_calc(false, false)),
    );
    let two = repo.plan_id(
        "guard both",
        &update_answer("both", &fixed_calc(true, false)),
    );
    let first = json(
        &repo
            .papayu(["--json", "apply", &one, "--check", "sh check.sh"])
            .ok(),
    );
    assert_eq!(first["base"]["cached"], false);
    assert_eq!(first["verdict"]["status"], "partial");
    let second = json(
        &repo
            .papayu(["--json", "apply", &two, "--check", "sh check.sh"])
            .ok(),
    );
    assert_eq!(second["base"]["cached"], true);
    assert_eq!(second["verdict"]["fixes"], 2);
    // Another command is another base run.
    repo.papayu(["discard", &two]).ok();
    let third = json(
        &repo
            .papayu(["--json", "apply", &two, "--check", "sh ./check.sh"])
            .ok(),
    );
    assert_eq!(third["base"]["cached"], false);
    // A check without per-test results is judged by its exit status: no base run is made.
    repo.papayu(["discard", &two]).ok();
    let plain = json(
        &repo
            .papayu(["--json", "apply", &two, "--check", "true"])
            .ok(),
    );
    assert_eq!(plain["base"], Value::Null);
    assert_eq!(plain["verdict"]["status"], "passed");
    assert_eq!(plain["verdict"]["fixes"], Value::Null);
    let applied = repo.papayu(["apply", &one, "--check", "sh check.sh"]);
    assert!(
        applied.stderr.contains("already applied"),
        "{}",
        dump(&applied)
    );
}

/// What `cargo test` prints for three tests, each judged by a line of lib.rs.
const CARGO_TEST: &str = r#"#!/bin/sh
fail=0
echo "running 3 tests"
for t in adds:"a + b" divides:"checked_div" parses:"fn parse"; do
  name=${t%%:*}; pattern=${t#*:}
  if grep -q "$pattern" lib.rs; then echo "test tests::$name ... ok"; else echo "test tests::$name ... FAILED"; fail=$((fail+1)); fi
done
[ "$fail" = 0 ] && echo "test result: ok." || echo "test result: FAILED. $fail failed"
[ "$fail" = 0 ]
"#;

/// A repository with three tests' worth of code (`adds`, `divides`, `parses`, as the checks
/// above print them) and `check` as check.sh.
fn three_tests(check: &str) -> TestRepo {
    TestRepo::with_files(&[
        (
            "lib.rs",
            "fn add(a: i32, b: i32) -> i32 { a + b }\nfn parse() {}\nfn div() {}\n",
        ),
        ("check.sh", check),
    ])
}

/// A plan that fixes `divides` and breaks `parses`.
fn checked_div(repo: &TestRepo) -> String {
    repo.plan_id(
        "use checked_div",
        &serde_json::json!({"summary": "s", "actions": [{"kind": "UPDATE_FILE", "path": "lib.rs",
            "content": "fn add(a: i32, b: i32) -> i32 { a + b }\nfn div() { 1i32.checked_div(0); }\n"}]})
        .to_string(),
    )
}

#[test]
fn cargo_test_lines_are_read_per_test() {
    let repo = three_tests(CARGO_TEST);
    let fix = checked_div(&repo);
    let run = repo.papayu(["--json", "apply", &fix, "--check", "sh check.sh"]);
    let out = run.json_err("ERR_CHECK_FAILED");
    assert_eq!(out["verdict"]["fixes"], 1, "{out}");
    assert_eq!(out["verdict"]["breaks"], 1);
    assert_eq!(out["verdict"]["broken"][0], "tests::parses");
    assert!(branches(&repo).is_empty());
}

#[test]
fn a_junit_report_named_by_papayu_check_junit_is_read() {
    let script = r#"#!/bin/sh
mkdir -p build
if grep -q fixed app.txt; then r=''; else r='<failure message="no"/>'; fi
cat > build/junit.xml <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<testsuites><testsuite name="app" tests="2">
<testcase classname="app.Spec" name="keeps &amp; works"/>
<testcase classname="app.Spec" name="is fixed">$r</testcase>
</testsuite></testsuites>
EOF
grep -q fixed app.txt
"#;
    let repo = TestRepo::with_files(&[("app.txt", "broken\n"), ("check.sh", script)]);
    repo.git(["config", "papayu.checkJunit", "build/junit.xml"])
        .ok();
    let id = repo.plan_id(
        "fix the app",
        &serde_json::json!({"summary": "s", "actions": [{"kind": "UPDATE_FILE", "path": "app.txt", "content": "fixed\n"}]}).to_string(),
    );
    let out = json(
        &repo
            .papayu(["--json", "apply", &id, "--check", "sh check.sh"])
            .ok(),
    );
    assert_eq!(out["verdict"]["status"], "passed", "{out}");
    assert_eq!(out["verdict"]["fixes"], 1);
    assert_eq!(out["verdict"]["fixed"][0], "app.Spec::is fixed");
    repo.git(["config", "papayu.checkJunit", "../outside.xml"])
        .ok();
    repo.papayu(["discard", &id]).ok();
    repo.papayu(["apply", &id, "--check", "sh check.sh"])
        .err("ERR_CHECK_CONFIG_INVALID");
}

#[test]
fn merge_refuses_a_proposal_whose_last_check_broke_tests_unless_forced() {
    let repo = python_project();
    let id = repo.plan_id(
        "rewrite",
        &update_answer("rewrite", &fixed_calc(false, true)),
    );
    let failed = repo.papayu(["apply", &id, "--check", "sh check.sh"]);
    assert!(
        failed.stderr.contains("breaks tests that pass at the base"),
        "{}",
        dump(&failed)
    );
    // Applied without a check, its last check is still the one that broke a test.
    repo.papayu(["apply", &id, "--no-check"]).ok();
    let main = repo.rev("main");
    let refused = repo.papayu(["merge", &id]).err("ERR_CHECK_BROKE");
    assert!(
        refused.stderr.contains("tests/test_calc.py::test_add"),
        "{}",
        dump(&refused)
    );
    assert_eq!(repo.rev("main"), main);
    repo.papayu(["merge", &id, "--force"]).ok();
    assert_eq!(repo.read("calc.py"), fixed_calc(false, true));
}

#[test]
fn max_cost_refuses_before_any_request_is_sent() {
    let repo = python_project();
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&create_answer("A.md", "a\n"))]);
    common::openai_provider(&repo, "alpha", &fake, Some("3,15,0.3"));
    let run = papayu(
        &repo,
        &["-v", "plan", "Add docs", "--max-cost", "0.0001"],
        "alpha",
    )
    .err("ERR_COST_CAP");
    assert!(run.stderr.contains("cost cap of $0.0001"), "{}", dump(&run));
    assert!(fake.requests().is_empty());
    assert!(
        !run.stderr.contains("LLM_REQUEST_SENT"),
        "a refused request is not said to be sent: {}",
        dump(&run)
    );
    assert!(
        repo.git(["notes", "--ref=papayu", "list"])
            .stdout
            .is_empty()
    );
    // The same from git config, and for a provider without a price.
    repo.git(["config", "papayu.maxCost", "5"]).ok();
    repo.git(["config", "--unset", "papayu.alpha.price"]).ok();
    let run = papayu(&repo, &["plan", "Add docs"], "alpha").err("ERR_COST_CAP");
    assert!(run.stderr.contains("papayu.alpha.price"), "{}", dump(&run));
    assert!(fake.requests().is_empty());
}

#[test]
fn samples_vary_the_sampling_and_a_group_stops_at_the_cap() {
    let repo = python_project();
    let fake = FakeLlm::start(vec![
        fake_llm::openai_chat(&create_answer("A.md", "a\n")),
        fake_llm::openai_chat(&create_answer("B.md", "b\n")),
        fake_llm::openai_chat(&create_answer("C.md", "c\n")),
    ]);
    common::openai_provider(&repo, "alpha", &fake, Some("1,2,0.5"));
    let planned = papayu(
        &repo,
        &["--json", "plan", "Add docs", "--samples", "3"],
        "alpha",
    )
    .ok();
    let plans = json(&planned)["plans"].as_array().unwrap().clone();
    assert_eq!(plans.len(), 3);
    let group = plans[0]["plan"]["group"].clone();
    let mut samples: Vec<u64> = plans
        .iter()
        .map(|p| {
            assert_eq!(p["plan"]["group"], group);
            p["plan"]["sample"].as_u64().unwrap()
        })
        .collect();
    samples.sort();
    assert_eq!(samples, [1, 2, 3]);
    let requests = fake.requests();
    assert_eq!(requests.len(), 3);
    let mut seeds: Vec<Value> = requests.iter().map(|r| r.json["seed"].clone()).collect();
    seeds.sort_by_key(|s| s.as_u64());
    assert_eq!(seeds, [Value::Null, Value::from(1), Value::from(2)]);
    for r in &requests {
        let t = r.json["temperature"].as_f64().unwrap();
        assert!(
            if r.json["seed"].is_null() {
                t == 0.0
            } else {
                t == 0.7
            },
            "{t}"
        );
    }
    assert!(
        planned.stderr.contains("3 competing plans, group g"),
        "{}",
        dump(&planned)
    );
    let shown = repo.papayu(["show"]).ok().stdout;
    assert!(
        shown.contains("Group: ") && shown.contains("in all"),
        "{shown}"
    );
    // 176 uncached, 1024 cached and 80 answer tokens at $1, $0.5 and $2 per million.
    let traced = repo.papayu(["trace", "show"]).ok().stdout;
    assert!(traced.contains("cost: $0.0008 (group g"), "{traced}");

    // A cap that lets one request through: the group stops, and what came back is kept.
    let capped = FakeLlm::start(vec![fake_llm::openai_chat(&create_answer("D.md", "d\n"))]);
    common::openai_provider(&repo, "beta", &capped, Some("1,2,0.5"));
    let run = papayu(
        &repo,
        &[
            "--json",
            "plan",
            "Add more docs",
            "--samples",
            "2",
            "--max-cost",
            "0.05",
        ],
        "beta",
    )
    .ok();
    assert_eq!(
        json(&run)["plans"].as_array().unwrap().len(),
        1,
        "{}",
        dump(&run)
    );
    assert!(run.stdout.contains("ERR_COST_CAP"), "{}", dump(&run));
    assert_eq!(capped.requests().len(), 1);
}

#[test]
fn a_refinement_competes_in_its_proposals_place() {
    let repo = python_project();
    let a = FakeLlm::start(vec![
        fake_llm::openai_chat(&create_answer("A.md", "a\n")),
        fake_llm::openai_chat(&create_answer("A2.md", "a2\n")),
    ]);
    let b = FakeLlm::start(vec![fake_llm::openai_chat(&create_answer("B.md", "b\n"))]);
    common::openai_provider(&repo, "alpha", &a, None);
    common::openai_provider(&repo, "beta", &b, None);
    let plans =
        plans_by_provider(&papayu(&repo, &["--json", "plan", "Add docs"], "alpha,beta").ok());
    repo.papayu(["apply", "--all", "--no-check"]).ok();
    let first = plans["alpha"]["id"].as_str().unwrap().to_string();
    let refined = papayu(
        &repo,
        &[
            "--json",
            "refine",
            &first,
            "add a second page",
            "--no-check",
        ],
        "alpha",
    )
    .ok();
    let refinement = json(&refined)["plan"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("{}", dump(&refined)))
        .to_string();
    let group = plans["alpha"]["group"].as_str().unwrap();
    let compared = json(&repo.papayu(["--json", "compare", group]).ok());
    let ids: Vec<&str> = compared["proposals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&refinement.as_str()), "{compared}");
    let ranking = compared["ranking"].as_array().unwrap();
    assert_eq!(ranking.len(), 2, "{compared}");
    assert!(!ranking.contains(&Value::from(first.as_str())));
    assert_eq!(compared["proposals"].as_array().unwrap().len(), 3);
}

/// `git worktree add` run side by side in one repository raced in git itself ("failed to read
/// .git/worktrees/check-3/commondir"): four new check worktrees at once must all be made.
#[test]
fn check_worktrees_created_side_by_side_do_not_race() {
    for round in 0..3 {
        let repo = python_project();
        for n in 0..4 {
            repo.plan_id(
                &format!("note {n}"),
                &create_answer(&format!("N{n}.md"), "n\n"),
            );
        }
        let out = json(
            &repo
                .papayu(["--json", "apply", "--all", "--check", "true"])
                .ok(),
        );
        let results = out["results"].as_array().unwrap();
        assert_eq!(results.len(), 4);
        for r in results {
            assert_eq!(r["check"]["exit_code"], 0, "round {round}: {r}");
        }
        assert_eq!(branches(&repo).len(), 4);
    }
}

/// A check that prints one runner's per-test lines for the three tests of [`CARGO_TEST`]:
/// `$1` is the line of a passing test, `$2` of a failing one, with `NAME` in each.
const ANY_RUNNER: &str = r#"fail=0
for t in adds:"a + b" divides:"checked_div" parses:"fn parse"; do
  name=${t%%:*}; pattern=${t#*:}
  if grep -q "$pattern" lib.rs; then line=$1; else line=$2; fail=$((fail+1)); fi
  printf '%s\n' "$line" | sed "s/NAME/$name/"
done
[ "$fail" = 0 ]
"#;

#[test]
fn googletest_ctest_jest_surefire_and_dotnet_lines_are_read_per_test() {
    let runners = [
        (
            "[       OK ] Calc.NAME (0 ms)",
            "[  FAILED  ] Calc.NAME (1 ms)",
            "Calc.parses",
        ),
        (
            "1/3 Test #1: NAME ....   Passed    0.01 sec",
            "2/3 Test #2: NAME ....***Failed    0.02 sec",
            "parses",
        ),
        (
            "  ✓ calc NAME (3 ms)",
            "  ✕ calc NAME (4 ms)",
            "calc parses",
        ),
        (
            "[INFO] Tests run: 1, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.1 s -- in com.x.NAME",
            "[ERROR] Tests run: 1, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.1 s <<< FAILURE! -- in com.x.NAME",
            "com.x.parses",
        ),
        (
            "  Passed Calc.NAME [2 ms]",
            "  Failed Calc.NAME [< 1 ms]",
            "Calc.parses",
        ),
    ];
    for (pass, fail, broken) in runners {
        let repo = three_tests(ANY_RUNNER);
        let fix = checked_div(&repo);
        let check = format!("sh check.sh '{pass}' '{fail}'");
        let run = repo.papayu(["--json", "apply", &fix, "--check", &check]);
        let out = run.json_err("ERR_CHECK_FAILED");
        assert_eq!(out["verdict"]["fixes"], 1, "{pass}: {out}");
        assert_eq!(out["verdict"]["breaks"], 1, "{pass}: {out}");
        assert_eq!(out["verdict"]["broken"][0], broken, "{pass}: {out}");
        assert!(branches(&repo).is_empty());
    }
}

/// A Maven-like check: one JUnit report per test in target/surefire-reports, nothing printed
/// per test; with `broken.txt` in the tree, the build fails and writes no report.
const SUREFIRE: &str = r#"test -f broken.txt && { echo "BUILD FAILURE"; exit 1; }
mkdir -p target/surefire-reports
fail=0
for t in adds:"a + b" divides:"checked_div" parses:"fn parse"; do
  name=${t%%:*}; pattern=${t#*:}
  body=""
  if ! grep -q "$pattern" lib.rs; then body='<failure message="no"/>'; fail=$((fail+1)); fi
  printf '<testsuite><testcase classname="com.x.CalcTest" name="%s">%s</testcase></testsuite>\n' \
    "$name" "$body" > "target/surefire-reports/TEST-$name.xml"
done
[ "$fail" = 0 ]
"#;

#[test]
fn reports_maven_writes_are_read_per_test_and_an_earlier_runs_never() {
    let repo = three_tests(SUREFIRE);
    // target/ is kept from one check to the next, so an earlier run's reports stay there.
    repo.git(["config", "papayu.checkCache", "target"]).ok();
    let fix = checked_div(&repo);
    let out = repo
        .papayu(["--json", "apply", &fix, "--check", "sh check.sh"])
        .json_err("ERR_CHECK_FAILED");
    assert_eq!(out["verdict"]["fixes"], 1, "{out}");
    assert_eq!(out["verdict"]["breaks"], 1, "{out}");
    assert_eq!(
        out["verdict"]["broken"][0], "com.x.CalcTest::parses",
        "{out}"
    );

    // A proposal whose build fails writes no report: neither the one left from the run before
    // nor one it planted in its own tree is its result.
    let forged = "<testsuite><testcase classname=\"com.x.CalcTest\" name=\"adds\"/></testsuite>\n";
    let broken = repo.plan_id(
        "break the build",
        &serde_json::json!({"summary": "s", "actions": [
            {"kind": "CREATE_FILE", "path": "broken.txt", "content": "x\n"},
            {"kind": "CREATE_FILE", "path": "core/target/surefire-reports/TEST-adds.xml", "content": forged}]})
        .to_string(),
    );
    let out = repo
        .papayu(["--json", "apply", &broken, "--check", "sh check.sh"])
        .json_err("ERR_CHECK_FAILED");
    assert_eq!(out["verdict"]["status"], "did_not_run", "{out}");
    assert_eq!(out["verdict"]["fixes"], Value::Null, "{out}");
    assert!(branches(&repo).is_empty());
}

#[test]
#[cfg(unix)]
fn a_tree_whose_report_directory_links_outside_never_has_papayu_delete_or_read_there() {
    let outside = tempfile::tempdir().unwrap();
    let reports = outside.path().join("surefire-reports");
    std::fs::create_dir_all(&reports).unwrap();
    let keep = reports.join("TEST-keep.xml");
    let xml = "<testsuite><testcase classname=\"o\" name=\"outside\"/></testsuite>\n";
    std::fs::write(&keep, xml).unwrap();
    std::fs::write(outside.path().join("junit.xml"), xml).unwrap();
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    // The tree itself holds the links: target/ and build/ lead outside it.
    std::os::unix::fs::symlink(outside.path(), repo.path().join("target")).unwrap();
    std::os::unix::fs::symlink(outside.path(), repo.path().join("build")).unwrap();
    repo.commit_all("links");
    repo.git(["config", "papayu.checkJunit", "build/junit.xml"])
        .ok();
    let id = repo.plan_id(
        "add b",
        &serde_json::json!({"summary": "s", "actions": [
            {"kind": "CREATE_FILE", "path": "b.txt", "content": "x\n"}]})
        .to_string(),
    );
    let out = repo
        .papayu(["--json", "apply", &id, "--check", "false"])
        .json_err("ERR_CHECK_FAILED");
    // Nothing was read from outside (no per-test result), and nothing there was deleted.
    assert_eq!(out["verdict"]["fixes"], Value::Null, "{out}");
    assert_eq!(std::fs::read_to_string(&keep).unwrap(), xml);
    assert_eq!(
        std::fs::read_to_string(outside.path().join("junit.xml")).unwrap(),
        xml
    );
}
