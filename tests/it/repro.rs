//! A reproduction test first, through the real binary: a test that fails at the base goes on a
//! `papayu/repro-*` branch, every fix is checked with it, and one that reproduces nothing is
//! said so (a model is asked again once). The checks are Python's unittest, as users run it.

use crate::common;

use common::TestRepo;
use common::fake_llm::{self, FakeLlm};
use serde_json::{Value, json};

const CHECK: &str = "python3 -m unittest -v";

const BUGGY: &str = "def add(a, b):\n    return a * b\n\n\ndef sub(a, b):\n    return a - b\n";
const FIXED: &str = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n";

/// A project whose `add` multiplies, with a test of `sub` only (it passes), and the check set.
fn project() -> Option<TestRepo> {
    if !common::tool("python3", "the reproduction's check runs unittest") {
        return None;
    }
    let repo = TestRepo::with_files(&[
        ("calc.py", BUGGY),
        (
            "test_calc.py",
            "import unittest\nfrom calc import sub\n\n\nclass T(unittest.TestCase):\n    def test_sub(self):\n        self.assertEqual(sub(5, 3), 2)\n",
        ),
    ]);
    repo.git(["config", "papayu.checkCommand", CHECK]).ok();
    Some(repo)
}

/// A test file asserting `add(2, 3) == expected`.
fn repro_test(expected: &str) -> String {
    format!(
        "import unittest\nfrom calc import add\n\n\nclass R(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), {expected})\n"
    )
}

/// An answer writing `files` (path, content).
fn answer(files: &[(&str, &str)]) -> String {
    let actions: Vec<Value> = files
        .iter()
        .map(|(path, content)| json!({"kind": "CREATE_FILE", "path": path, "content": content}))
        .collect();
    json!({"summary": "answer", "actions": actions}).to_string()
}

fn update(path: &str, content: &str) -> String {
    json!({"summary": "fix", "actions": [{"kind": "UPDATE_FILE", "path": path, "content": content}]})
        .to_string()
}

/// Writes `text` beside the repository as `name` and returns its path.
fn file(repo: &TestRepo, name: &str, text: &str) -> String {
    let path = repo.path().join(format!("../{name}"));
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn json(run: &common::Run) -> Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

fn repro_branches(repo: &TestRepo) -> Vec<String> {
    repo.git([
        "branch",
        "--list",
        "papayu/repro-*",
        "--format=%(refname:short)",
    ])
    .ok()
    .stdout
    .lines()
    .map(str::to_string)
    .collect()
}

#[test]
fn a_reproduction_that_fails_at_the_base_is_kept_and_every_fix_is_checked_with_it() {
    let Some(repo) = project() else { return };
    let repro = file(
        &repo,
        "repro.json",
        &answer(&[("test_repro.py", &repro_test("5"))]),
    );
    let good = file(&repo, "good.json", &update("calc.py", FIXED));
    let idle = file(
        &repo,
        "idle.json",
        &update("calc.py", &BUGGY.replace("a * b", "b * a")),
    );
    let out = json(
        &repo
            .papayu([
                "plan",
                "add(2, 3) gives 6",
                "--repro-response",
                &repro,
                "--response",
                &good,
                "--response",
                &idle,
                "--json",
            ])
            .ok(),
    );
    assert_eq!(out["repro"]["reproduces"], true, "{out:#}");
    let tests = out["repro"]["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 1, "{out:#}");
    assert!(tests[0].as_str().unwrap().ends_with("test_add"), "{out:#}");
    let evidence = out["repro"]["evidence"][0].as_str().unwrap();
    assert!(evidence.contains("AssertionError: 6 != 5"), "{evidence}");
    let repro_id = out["repro"]["plan"].as_str().unwrap();
    let branch = out["repro"]["branch"].as_str().unwrap();
    assert_eq!(repro_branches(&repo), [branch]);
    assert!(branch.starts_with("papayu/repro-"), "{branch}");
    // The reproduction's commit is the base with the test laid over it.
    let files = repo
        .git(["show", "--name-only", "--format=", branch])
        .ok()
        .stdout;
    assert_eq!(files.trim(), "test_repro.py");
    assert_eq!(repo.rev(&format!("{branch}^")), repo.rev("HEAD"));
    let plans = out["plans"].as_array().unwrap();
    assert!(
        plans.iter().all(|p| p["plan"]["repro"] == repro_id),
        "{out:#}"
    );
    let shown = repo.papayu(["show", &repro_id[..10]]).ok().stdout;
    assert!(
        shown.contains("Reproduces: yes; failing at the base: test_repro.R.test_add"),
        "{shown}"
    );
    assert!(!shown.contains("Check: failed"), "{shown}");
    // The notes say so, as the git CLI reads them: the record on its base's note, the
    // evidence in its event on the plan's own note.
    let show = |object: &str| {
        repo.git(["notes", "--ref=papayu", "show", object])
            .ok()
            .stdout
    };
    let note = show("HEAD") + &show(repro_id);
    assert!(
        note.contains("\"kind\":\"repro\"") && note.contains("\"evidence\""),
        "{note}"
    );

    repo.papayu(["apply", "--all"]).ok();
    let compared = json(&repo.papayu(["compare", "--json"]).ok());
    let good_id = plans[0]["plan"]["id"].as_str().unwrap();
    assert_eq!(compared["ranking"][0], good_id, "{compared:#}");
    let listed = repo.papayu(["list"]).ok().stdout;
    assert!(
        listed.contains("repro passes") && listed.contains("repro fails"),
        "{listed}"
    );
    assert!(listed.contains("reproduces 1"), "{listed}");
    // The fix's branch holds the reproduction under it: merging it keeps the regression test.
    let shown = json(&repo.papayu(["show", &good_id[..10], "--json"]).ok());
    let fix_branch = shown["branch"].as_str().unwrap();
    assert_eq!(repo.rev(&format!("{fix_branch}^")), repo.rev(branch));
    assert_eq!(shown["check"]["reproduction"], true, "{shown:#}");
    repo.papayu(["pick"]).ok();
    assert_eq!(repo.read("calc.py"), FIXED);
    assert!(repo.path().join("test_repro.py").exists());
    repo.fsck();
}

#[test]
fn a_reproduction_that_passes_or_never_runs_reproduces_nothing_and_the_fix_goes_on_without_it() {
    let Some(repo) = project() else { return };
    for (name, test, why) in [
        ("passes", repro_test("6"), "passes at the base"),
        (
            "broken",
            "import unittest\nfrom calc import nothing_here\n".to_string(),
            "did not run",
        ),
    ] {
        let repro = file(
            &repo,
            "repro.json",
            &answer(&[(&format!("test_{name}.py"), &test)]),
        );
        let fix = file(&repo, "fix.json", &update("calc.py", FIXED));
        let run = repo
            .papayu([
                "plan",
                "add(2, 3) gives 6",
                "--repro-response",
                &repro,
                "--response",
                &fix,
                "--json",
            ])
            .ok();
        let out = json(&run);
        assert_eq!(out["repro"]["reproduces"], false, "{out:#}");
        assert!(
            out["repro"]["why"].as_str().unwrap().contains(why),
            "{name}: {out:#}"
        );
        assert!(out["plans"][0]["plan"].get("repro").is_none(), "{out:#}");
        let shown = repo
            .papayu(["show", &out["repro"]["plan"].as_str().unwrap()[..10]])
            .ok()
            .stdout;
        assert!(shown.contains("does not reproduce"), "{shown}");
        assert!(shown.contains("Reproduces: no"), "{shown}");
        assert!(repo.papayu(["list"]).ok().stdout.contains("no repro"));
    }
    assert!(repro_branches(&repo).is_empty());
    repo.fsck();
}

/// `plan --repro` against a model whose first reproduction is `first`, whose second is a test
/// that fails at the base, and whose fix is right.
fn plan_after(repo: &TestRepo, first: &str) -> (common::Run, FakeLlm) {
    let fake = FakeLlm::start(vec![
        fake_llm::openai_chat(first),
        fake_llm::openai_chat(&answer(&[("test_repro.py", &repro_test("5"))])),
        fake_llm::openai_chat(&update("calc.py", FIXED)),
    ]);
    let run = common::run_with_env(
        repo,
        &["plan", "add(2, 3) gives 6", "--repro", "--protocol", "1"],
        &common::compat_env(&fake),
    )
    .ok();
    (run, fake)
}

#[test]
fn a_model_s_reproduction_that_reproduces_nothing_gets_one_repair_round() {
    let Some(repo) = project() else { return };
    let (run, fake) = plan_after(&repo, &answer(&[("test_repro.py", &repro_test("6"))]));
    assert!(run.stderr.contains("does not reproduce"), "{}", run.stderr);
    assert!(run.stderr.contains("repair 1/1"), "{}", run.stderr);
    assert!(
        run.stderr.contains("1 test fails at the base"),
        "{}",
        run.stderr
    );
    let requests = fake.requests();
    assert_eq!(requests.len(), 3);
    assert!(requests[0].body.contains("reproduces the problem"));
    assert!(requests[1].body.contains("does not reproduce the problem"));
    // The fix's model is shown the reproduction and what fails.
    assert!(
        requests[2].body.contains("AssertionError: 6 != 5"),
        "{}",
        requests[2].body
    );
    assert_eq!(repro_branches(&repo).len(), 1);
    repo.papayu(["apply"]).ok();
    repo.fsck();
}

#[test]
fn a_round_that_changes_the_reproduction_weakens_tests() {
    let Some(repo) = project() else { return };
    let repro = file(
        &repo,
        "repro.json",
        &answer(&[("test_repro.py", &repro_test("5"))]),
    );
    // A fix that changes nothing the test sees: kept as partial, the reproduction still fails.
    let idle = file(
        &repo,
        "idle.json",
        &update("calc.py", &BUGGY.replace("a * b", "b * a")),
    );
    repo.papayu([
        "plan",
        "add(2, 3) gives 6",
        "--repro-response",
        &repro,
        "--response",
        &idle,
    ])
    .ok();
    let applied = json(&repo.papayu(["apply", "--json"]).ok());
    assert_eq!(applied["verdict"]["reproduction"], false, "{applied:#}");
    // The next round "fixes" it by changing what the reproduction expects.
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&update(
        "test_repro.py",
        &repro_test("6"),
    ))]);
    let env = common::compat_env(&fake);
    let run = common::run_with_env(&repo, &["refine", "make it pass", "--json"], &env).ok();
    let out = json(&run);
    let weakens = out["verdict"]["weakens"].to_string();
    assert!(
        weakens.contains("test_repro.py (changes the reproduction's test file)"),
        "{out:#}"
    );
    repo.papayu(["merge"]).err("ERR_TESTS_WEAKENED");
    repo.fsck();
}

#[test]
fn bad_reproductions_are_refused_and_change_nothing() {
    let Some(repo) = project() else { return };
    let before = repo.snapshot();
    let code = file(
        &repo,
        "code.json",
        &answer(&[("test_ok.py", "x = 1\n"), ("calc2.py", "y = 2\n")]),
    );
    let run = repo
        .papayu(["plan", "add", "--repro-response", &code])
        .err("ERR_REPRO_NOT_TESTS");
    assert!(run.stderr.contains("calc2.py"), "{}", run.stderr);
    assert_eq!(repo.snapshot(), before);

    repo.git(["config", "--unset", "papayu.checkCommand"]).ok();
    let before = repo.snapshot();
    let test = file(&repo, "test.json", &answer(&[("test_x.py", "x = 1\n")]));
    repo.papayu(["plan", "add", "--repro-response", &test])
        .err("ERR_REPRO_NEEDS_CHECK");
    repo.papayu(["plan", "add", "--repro"])
        .err("ERR_REPRO_NEEDS_CHECK");
    assert_eq!(repo.snapshot(), before);

    repo.git(["config", "papayu.repro", "sometimes"]).ok();
    repo.papayu(["plan", "add", "--response", &test])
        .err("ERR_CONFIG_INVALID");
    assert_eq!(repo.snapshot(), before);
}

#[test]
fn auto_asks_for_a_reproduction_only_when_a_check_is_set_and_no_test_is_named() {
    let Some(repo) = project() else { return };
    repo.git(["config", "papayu.repro", "auto"]).ok();
    // The goal names a failing test: no reproduction is asked for.
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&update("calc.py", FIXED))]);
    common::run_with_env(
        &repo,
        &["plan", "test_add fails", "--protocol", "1"],
        &common::compat_env(&fake),
    )
    .ok();
    assert_eq!(fake.requests().len(), 1);
    assert!(repro_branches(&repo).is_empty());
    // A goal that names no test: the reproduction first.
    let fake = FakeLlm::start(vec![
        fake_llm::openai_chat(&answer(&[("test_repro.py", &repro_test("5"))])),
        fake_llm::openai_chat(&update("calc.py", FIXED)),
    ]);
    common::run_with_env(
        &repo,
        &["plan", "add(2, 3) gives 6", "--protocol", "1"],
        &common::compat_env(&fake),
    )
    .ok();
    assert_eq!(fake.requests().len(), 2);
    assert_eq!(repro_branches(&repo).len(), 1);
}

/// The reproduction travels with the notes: a teammate who syncs sees it, its evidence, and the
/// fix that names it, and can apply the fix onto it.
#[test]
fn a_teammate_who_syncs_sees_the_reproduction_and_its_evidence() {
    let Some(origin) = project() else { return };
    let (_home, remote) = common::bare_remote(&origin);
    let alice = common::clone_of(&remote);
    let bob = common::clone_of(&remote);
    for repo in [&alice, &bob] {
        repo.git(["config", "papayu.checkCommand", CHECK]).ok();
    }
    let repro = file(
        &alice,
        "repro.json",
        &answer(&[("test_repro.py", &repro_test("5"))]),
    );
    let fix = file(&alice, "fix.json", &update("calc.py", FIXED));
    let out = json(
        &alice
            .papayu([
                "plan",
                "add(2, 3) gives 6",
                "--repro-response",
                &repro,
                "--response",
                &fix,
                "--json",
            ])
            .ok(),
    );
    let repro_id = out["repro"]["plan"].as_str().unwrap();
    alice.papayu(["sync"]).ok();
    alice
        .git([
            "push",
            "-q",
            "origin",
            "refs/heads/papayu/*:refs/heads/papayu/*",
        ])
        .ok();
    bob.papayu(["sync"]).ok();
    let shown = bob.papayu(["show", &repro_id[..10]]).ok().stdout;
    assert!(
        shown.contains("fails at the base: test_repro.R.test_add: AssertionError: 6 != 5"),
        "{shown}"
    );
    let fix_id = out["plans"][0]["plan"]["id"].as_str().unwrap();
    let fix_shown = bob.papayu(["show", &fix_id[..10]]).ok().stdout;
    assert!(
        fix_shown.contains(&format!("Reproduction: {}", &repro_id[..10])),
        "{fix_shown}"
    );
    // Without the reproduction's commit the fix is checked without it, and apply says so.
    let run = bob.papayu(["apply", &fix_id[..10]]).ok();
    assert!(
        run.stderr.contains("was checked without it"),
        "{}",
        run.stderr
    );
    bob.papayu(["discard", &fix_id[..10]]).ok();
    // Bob has the reproduction's commit once he fetches its branch: the fix applies onto it and
    // his own check says whether the reproduction passes.
    bob.git([
        "fetch",
        "-q",
        "origin",
        "refs/heads/papayu/*:refs/remotes/origin/papayu/*",
    ])
    .ok();
    let applied = json(&bob.papayu(["apply", &fix_id[..10], "--json"]).ok());
    assert_eq!(applied["verdict"]["reproduction"], true, "{applied:#}");
    bob.fsck();
}

/// A model's reproduction that changes code too is told so once, then asked again.
#[test]
fn a_model_s_reproduction_that_touches_code_is_sent_back_once() {
    let Some(repo) = project() else { return };
    let first = answer(&[
        ("test_repro.py", &repro_test("5")),
        ("helpers.py", "HELP = 1\n"),
    ]);
    let (run, fake) = plan_after(&repo, &first);
    assert!(
        run.stderr.contains("reproduction rejected"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("1 test fails at the base"),
        "{}",
        run.stderr
    );
    assert!(fake.requests()[1].body.contains("helpers.py"));
    assert!(
        fake.requests()[1]
            .body
            .contains("only test files may change"),
        "the model is told why"
    );
    assert_eq!(repro_branches(&repo).len(), 1);
}

/// `papayu.repro` holds for a request in words as it does for `plan`.
#[test]
fn a_request_in_words_asks_for_the_reproduction_first_when_configured() {
    let Some(repo) = project() else { return };
    repo.git(["config", "papayu.repro", "always"]).ok();
    let fake = FakeLlm::start(vec![
        fake_llm::openai_chat(&answer(&[("test_repro.py", &repro_test("5"))])),
        fake_llm::openai_chat(&update("calc.py", FIXED)),
    ]);
    let mut env = common::compat_env(&fake);
    env.push(("PAPAYU_PROTOCOL_VERSION".into(), "1".into()));
    let run = common::run_with_env(&repo, &["plan: add(2, 3) gives 6"], &env).ok();
    assert!(
        run.stderr.contains("1 test fails at the base"),
        "{}",
        run.stderr
    );
    assert_eq!(fake.requests().len(), 2);
    assert_eq!(repro_branches(&repo).len(), 1);
    let shown = json(&repo.papayu(["show", "--json"]).ok());
    assert!(shown["plan"]["repro"].is_string(), "{shown:#}");
}

/// Every round is judged against the plan's base, however many came before, and on what the
/// rounds changed since it: a round that puts back a test an earlier round loosened weakens
/// nothing, and the proposal merges.
#[test]
fn a_third_round_is_judged_against_the_plan_s_base() {
    let Some(repo) = project() else { return };
    let tests = |expected: &str| {
        format!(
            "import unittest\nfrom calc import add, sub\n\n\nclass T(unittest.TestCase):\n    def test_sub(self):\n        self.assertEqual(sub(5, 3), 2)\n\n    def test_add(self):\n        self.assertEqual(add(2, 3), {expected})\n"
        )
    };
    // Two tests fail at the base; the plan's first round fixes one of them (sub).
    let sub_broken = FIXED
        .replace("return a + b", "return a * b")
        .replace("return a - b", "return a + b");
    repo.write("calc.py", &sub_broken);
    repo.write("test_calc.py", &tests("5"));
    repo.commit_all("test add");
    let first = file(&repo, "first.json", &update("calc.py", BUGGY));
    let id = json(
        &repo
            .papayu(["plan", "add(2, 3) gives 6", "--response", &first, "--json"])
            .ok(),
    )["plans"][0]["plan"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let both = json!({"summary": "fix add, keep the test", "actions": [
        {"kind": "UPDATE_FILE", "path": "test_calc.py", "content": tests("5")},
        {"kind": "UPDATE_FILE", "path": "calc.py", "content": FIXED}]})
    .to_string();
    let fake = FakeLlm::start(vec![
        fake_llm::openai_chat(&update("test_calc.py", &tests("6"))),
        fake_llm::openai_chat(&both),
    ]);
    let mut env = common::compat_env(&fake);
    env.push(("PAPAYU_PROTOCOL_VERSION".into(), "1".into()));
    let run = common::run_with_env(&repo, &["apply", &id[..10], "--rounds", "3"], &env).ok();
    assert!(run.stderr.contains("round 2: passed"), "{}", run.stderr);
    assert!(run.stderr.contains("weakens tests"), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("rounds: stopped after round 3: the check passes and nothing is broken"),
        "{}",
        run.stderr
    );
    // Round 3 is judged against the plan's base, as round 2 was: both tests it fixes count
    // (against round 1's commit it would fix one).
    assert!(
        run.stderr.contains("round 1 of 3: partial: fixes 1"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("round 3: passed: fixes 2"),
        "{}",
        run.stderr
    );
    repo.papayu(["merge"]).ok();
    assert_eq!(repo.read("calc.py"), FIXED);
    assert_eq!(repo.read("test_calc.py"), tests("5"));
}

/// A later round whose answer cannot be used ends the rounds with a stop line, not an error.
#[test]
fn a_round_whose_answer_cannot_be_used_stops_the_rounds_in_one_line() {
    let Some(repo) = project() else { return };
    let idle = file(
        &repo,
        "idle.json",
        &update("calc.py", &BUGGY.replace("a * b", "b * a")),
    );
    let repro = file(
        &repo,
        "repro.json",
        &answer(&[("test_repro.py", &repro_test("5"))]),
    );
    repo.papayu([
        "plan",
        "add(2, 3) gives 6",
        "--repro-response",
        &repro,
        "--response",
        &idle,
    ])
    .ok();
    let missing = update("nowhere.py", "x = 1\n");
    let fake = FakeLlm::start(vec![
        fake_llm::openai_chat(&missing),
        fake_llm::openai_chat(&missing),
        fake_llm::openai_chat(&missing),
    ]);
    let mut env = common::compat_env(&fake);
    env.push(("PAPAYU_PROTOCOL_VERSION".into(), "1".into()));
    let run = common::run_with_env(&repo, &["apply", "--rounds", "2", "--json"], &env).code(1);
    assert!(
        run.stderr
            .contains("rounds: stopped after round 2: the model's answer could not be used (ERR_"),
        "{}",
        run.stderr
    );
    let out: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(out["rounds"]["reached"], false, "{out:#}");
}
