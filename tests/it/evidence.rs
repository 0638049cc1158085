//! Selection by evidence through the real binary: answers from several chats (or another
//! tool) recorded with `--response` compete in one group, are checked side by side and picked.

use crate::common;

use common::TestRepo;
use serde_json::{Value, json};

/// A check printing pytest's `-rA` summary: `test_add` passes when calc.py adds, `test_sub`
/// when it subtracts.
const CHECK: &str = r#"t() { if grep -q "$2" calc.py; then echo "PASSED tests/test_calc.py::$1"; else echo "FAILED tests/test_calc.py::$1 - assert False"; f=1; fi; }
f=0; t test_add 'a + b'; t test_sub 'a - b'; exit $f"#;

fn project() -> TestRepo {
    TestRepo::with_files(&[(
        "calc.py",
        "def add(a, b):\n    return a * b\n\n\ndef sub(a, b):\n    return a - b\n",
    )])
}

fn answer_file(repo: &TestRepo, name: &str, calc: &str) -> String {
    let answer = json!({
        "summary": format!("answer {name}"),
        "actions": [{"kind": "UPDATE_FILE", "path": "calc.py", "content": calc}]
    });
    let path = repo.path().join(format!("../{name}.json"));
    std::fs::write(&path, answer.to_string()).unwrap();
    path.display().to_string()
}

/// `plan "fix add" --response F …` for every file: the plan document it printed.
fn plan_group(repo: &TestRepo, files: &[String]) -> Value {
    let mut args = vec!["plan", "fix add", "--json", "--protocol", "1"];
    for f in files {
        args.extend(["--response", f.as_str()]);
    }
    serde_json::from_str(&repo.papayu(args).ok().stdout).unwrap()
}

/// `apply PLAN --check CHECK --rounds N` against a fake model answering `answer`.
fn apply_rounds(
    repo: &TestRepo,
    plan: &str,
    rounds: &str,
    answer: &str,
) -> (common::Run, common::fake_llm::FakeLlm) {
    use common::fake_llm::{self, FakeLlm};
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(answer)]);
    let run = common::run_with_env(
        repo,
        &["apply", &plan[..10], "--check", CHECK, "--rounds", rounds],
        &common::compat_env(&fake),
    );
    (run, fake)
}

#[test]
fn several_recorded_answers_form_one_group_that_pick_chooses_from() {
    let repo = project();
    let files = [
        answer_file(
            &repo,
            "breaks",
            "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return b\n",
        ),
        answer_file(
            &repo,
            "fixes",
            "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
        ),
        answer_file(
            &repo,
            "nothing",
            "def add(a, b):\n    return b * a\n\n\ndef sub(a, b):\n    return a - b\n",
        ),
    ];
    let out = plan_group(&repo, &files);
    let plans = out["plans"].as_array().unwrap();
    assert_eq!(plans.len(), 3, "{out:#}");
    let group = plans[0]["plan"]["group"]
        .as_str()
        .expect("a group")
        .to_string();
    assert!(
        plans.iter().all(|p| p["plan"]["group"] == group.as_str()),
        "{out:#}"
    );
    // One operation: one undo takes all three back.
    repo.papayu(["undo"]).ok();
    let listed: Value = serde_json::from_str(&repo.papayu(["list", "--json"]).ok().stdout).unwrap();
    assert_eq!(listed["plans"], json!([]), "{listed:#}");
    repo.papayu(["redo"]).ok();

    repo.papayu(["apply", "--all", "--check", CHECK]).code(1);
    let compared: Value =
        serde_json::from_str(&repo.papayu(["compare", "--json"]).ok().stdout).unwrap();
    let best = compared["ranking"][0].as_str().unwrap();
    let fixes = plans[1]["plan"]["id"].as_str().unwrap();
    assert_eq!(best, fixes, "{compared:#}");
    repo.papayu(["pick"]).ok();
    assert!(repo.read("calc.py").contains("return a + b"));
    let left = repo.git(["branch", "--list", "papayu/*"]).ok().stdout;
    assert!(left.trim().is_empty(), "pick discarded the others: {left}");
    repo.fsck();
}

#[test]
fn one_bad_answer_among_several_stores_none_and_names_its_file() {
    let repo = project();
    let good = answer_file(&repo, "good", "def add(a, b):\n    return a + b\n");
    let bad = repo.path().join("../bad.json");
    std::fs::write(&bad, "{\"actions\": [{\"kind\": \"UPDATE_FILE\"}]}").unwrap();
    let bad = bad.display().to_string();
    let before = repo.snapshot();
    let run = repo
        .papayu([
            "plan",
            "fix",
            "--protocol",
            "1",
            "--response",
            &good,
            "--response",
            &bad,
        ])
        .code(1);
    assert!(run.stderr.contains("bad.json"), "{run:?}");
    assert!(run.stderr.contains("no answer was stored"), "{run:?}");
    assert_eq!(repo.snapshot(), before);
    // Standard input holds one answer.
    let run = repo
        .papayu(["plan", "fix", "--response", "-", "--response", "-"])
        .code(2);
    assert!(run.stderr.contains("ERR_USAGE"), "{run:?}");
    assert!(run.stderr.contains("one answer"), "{run:?}");
    assert_eq!(repo.snapshot(), before);
}

const CALC_BUG: &str = "def add(a, b):\n    return a - b\n";
const TEST_CALC: &str = "import unittest\n\nfrom calc import add\n\n\nclass Calc(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n    def test_zero(self):\n        self.assertEqual(add(0, 0), 0)\n";

fn update_answer(repo: &TestRepo, name: &str, path: &str, content: &str) -> String {
    let answer = json!({
        "summary": format!("answer {name}"),
        "actions": [{"kind": "UPDATE_FILE", "path": path, "content": content}]
    });
    let file = repo.path().join(format!("../{name}.json"));
    std::fs::write(&file, answer.to_string()).unwrap();
    file.display().to_string()
}

/// A proposal that skips (or loosens) the failing test instead of fixing the code passes its
/// check, and is marked: it ranks below an honest proposal, and merge refuses it.
#[test]
fn a_proposal_that_weakens_a_failing_test_is_marked_ranked_last_and_not_merged() {
    if !common::tool("python3", "the check runs Python's unittest") {
        return;
    }
    let repo = TestRepo::with_files(&[("calc.py", CALC_BUG), ("test_calc.py", TEST_CALC)]);
    let skipped = TEST_CALC.replace(
        "    def test_add",
        "    @unittest.skip(\"flaky\")\n    def test_add",
    );
    let loosened = TEST_CALC.replace("assertEqual(add(2, 3), 5)", "assertIsNotNone(add(2, 3))");
    let files = [
        update_answer(&repo, "skip", "test_calc.py", &skipped),
        update_answer(&repo, "loosen", "test_calc.py", &loosened),
        update_answer(&repo, "readme", "calc.py", &format!("# adds\n{CALC_BUG}")),
    ];
    let out = plan_group(&repo, &files);
    let ids: Vec<String> = out["plans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["plan"]["id"].as_str().unwrap().to_string())
        .collect();
    let check = "python3 -m unittest -v";
    let skip = serde_json::from_str::<Value>(
        &repo
            .papayu(["apply", &ids[0][..10], "--json", "--check", check])
            .ok()
            .stdout,
    )
    .unwrap();
    assert_eq!(skip["verdict"]["status"], "passed", "{skip:#}");
    assert_eq!(
        skip["verdict"]["weakens"],
        json!(["test_calc.Calc.test_add (skipped)"]),
        "{skip:#}"
    );
    let loosen = repo
        .papayu(["apply", &ids[1][..10], "--json", "--check", check])
        .ok();
    let loosen: Value = serde_json::from_str(&loosen.stdout).unwrap();
    assert_eq!(
        loosen["verdict"]["weakens"],
        json!(["test_calc.Calc.test_add (assertions changed)"]),
        "{loosen:#}"
    );
    // The honest proposal that fixes nothing still ranks above both.
    repo.papayu(["apply", &ids[2][..10], "--check", check]);
    let compared: Value =
        serde_json::from_str(&repo.papayu(["compare", "--json"]).ok().stdout).unwrap();
    assert_eq!(compared["ranking"][0], ids[2].as_str(), "{compared:#}");
    let shown = repo.papayu(["compare"]).ok().stdout;
    assert!(shown.contains("weakens tests"), "{shown}");

    let before = repo.snapshot();
    let run = repo
        .papayu(["merge", &ids[0][..10]])
        .err("ERR_TESTS_WEAKENED");
    assert!(
        run.stderr.contains("test_calc.Calc.test_add (skipped)"),
        "{run:?}"
    );
    assert_eq!(repo.snapshot(), before, "a refused merge changes nothing");
    repo.papayu(["merge", &ids[0][..10], "--force"]).ok();
    assert!(repo.read("test_calc.py").contains("@unittest.skip"));
    repo.fsck();
}

/// Of three passing samples, the two that are one answer written differently outvote a third
/// that would otherwise win on size.
#[test]
fn votes_among_three_samples_of_which_two_are_equivalent() {
    if !common::tool("python3", "the check runs Python's unittest") {
        return;
    }
    let base = "def add(a, b):\n    return a * b\n";
    let repo = TestRepo::with_files(&[("calc.py", base), ("test_calc.py", TEST_CALC)]);
    let files = [
        update_answer(
            &repo,
            "a",
            "calc.py",
            "def add(a, b):\n    total = a + b\n    return total\n",
        ),
        update_answer(
            &repo,
            "b",
            "calc.py",
            "def add(a,b):\n    total = a+b  # the sum\n\n    return total\n",
        ),
        update_answer(&repo, "c", "calc.py", "def add(a, b):\n    return b + a\n"),
    ];
    let out = plan_group(&repo, &files);
    let ids: Vec<&str> = out["plans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["plan"]["id"].as_str().unwrap())
        .collect();
    repo.papayu(["apply", "--all", "--check", "python3 -m unittest -v"])
        .ok();
    let compared: Value =
        serde_json::from_str(&repo.papayu(["compare", "--json"]).ok().stdout).unwrap();
    let votes = |id: &str| {
        compared["proposals"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == id)
            .and_then(|p| p["votes"].as_u64())
    };
    let counted: Vec<Option<u64>> = ids.iter().map(|id| votes(id)).collect();
    assert_eq!(counted, vec![Some(2), Some(2), Some(1)], "{compared:#}");
    assert_eq!(
        compared["ranking"],
        json!([ids[0], ids[1], ids[2]]),
        "{compared:#}"
    );
    let shown = repo.papayu(["compare"]).ok().stdout;
    assert!(shown.contains("VOTES"), "{shown}");
}

/// A check printing `cargo test` lines: `t::flaky` fails the first time it ever runs (a marker
/// file in a directory the checks share says so), `t::real` fails when app.txt is not v1.
fn flaky_check(dir: &std::path::Path) -> String {
    format!(
        r#"f=0; echo "test t::stable ... ok"
if grep -q v1 app.txt; then echo "test t::real ... ok"; else echo "test t::real ... FAILED"; f=1; fi
if [ -e "{d}/seen" ]; then echo "test t::flaky ... ok"; else touch "{d}/seen"; echo "test t::flaky ... FAILED"; f=1; fi
exit $f"#,
        d = dir.display()
    )
}

fn plan_update(repo: &TestRepo, goal: &str, path: &str, content: &str) -> String {
    let answer = json!({"actions": [{"kind": "UPDATE_FILE", "path": path, "content": content}]});
    let run = repo
        .papayu_stdin(
            ["plan", goal, "--response", "-", "--json", "--protocol", "1"],
            answer.to_string().as_bytes(),
        )
        .ok();
    let out: Value = serde_json::from_str(&run.stdout).unwrap();
    out["plans"][0]["plan"]["id"].as_str().unwrap().to_string()
}

#[test]
fn a_test_whose_result_flips_is_flaky_and_never_counted() {
    let shared = tempfile::tempdir().unwrap();
    let repo = TestRepo::with_files(&[("app.txt", "v1\n"), ("notes.txt", "a\n")]);
    repo.git([
        "config",
        "papayu.checkWritable",
        &shared.path().display().to_string(),
    ])
    .ok();
    let check = flaky_check(shared.path());
    // Breaks nothing: only the flaky test failed, once.
    let id = plan_update(&repo, "notes", "notes.txt", "b\n");
    let out = repo
        .papayu(["apply", &id[..10], "--json", "--check", &check])
        .ok();
    let out: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(out["verdict"]["flaky"], json!(["t::flaky"]), "{out:#}");
    assert_eq!(out["verdict"]["breaks"], 0, "{out:#}");
    assert_eq!(out["verdict"]["status"], "passed", "{out:#}");
    let shown = repo.papayu(["show", &id[..10]]).ok().stdout;
    assert!(shown.contains("flaky: t::flaky"), "{shown}");

    // A real break stays a break beside a flaky test.
    std::fs::remove_file(shared.path().join("seen")).unwrap();
    let id = plan_update(&repo, "app", "app.txt", "v2\n");
    let out = repo.papayu(["apply", &id[..10], "--json", "--check", &check]);
    let out: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(out["verdict"]["broken"], json!(["t::real"]), "{out:#}");
    assert_eq!(out["verdict"]["flaky"], json!(["t::flaky"]), "{out:#}");
    assert_eq!(out["verdict"]["breaks"], 1, "{out:#}");
    repo.fsck();
}

/// A plan whose check failed is refined from the commit that failed: the model is told what
/// failed, the new commit sits on the failed one, and the branch is created once it passes.
#[test]
fn refine_works_from_a_failed_check() {
    use common::fake_llm::{self, FakeLlm};
    let repo = project();
    // Still wrong about add, and breaks sub: rolled back.
    let wrong = answer_file(
        &repo,
        "wrong",
        "def add(a, b):\n    return a * b\n\n\ndef sub(a, b):\n    return b\n",
    );
    let id = plan_group(&repo, &[wrong])["plans"][0]["plan"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    repo.papayu(["apply", &id[..10], "--json", "--check", CHECK])
        .code(1);
    assert!(
        repo.git(["branch", "--list", "papayu/*"])
            .ok()
            .stdout
            .is_empty()
    );

    let fixed = json!({
        "summary": "Add, do not multiply",
        "actions": [{"kind": "UPDATE_FILE", "path": "calc.py",
                     "content": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"}]
    })
    .to_string();
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&fixed)]);
    let run = common::run_with_env(
        &repo,
        &[
            "refine",
            &id[..10],
            "make test_add pass",
            "--check",
            CHECK,
            "--json",
        ],
        &common::compat_env(&fake),
    )
    .ok();
    let refined: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(refined["verdict"]["status"], "passed", "{refined:#}");
    assert_eq!(refined["verdict"]["fixes"], 1, "{refined:#}");
    // The model was told what failed.
    let sent = fake.requests()[0].body.clone();
    assert!(sent.contains("its check failed"), "{sent}");
    assert!(sent.contains("tests/test_calc.py::test_add"), "{sent}");
    // The branch now exists, its commit on top of the one that failed.
    let branch = refined["branch"].as_str().unwrap();
    let tip = repo.rev(branch);
    let parent = repo.rev(&format!("{tip}^"));
    let message = repo.git(["log", "-1", "--format=%B", &parent]).ok().stdout;
    assert!(
        message.contains(&format!("Papayu-Plan: {id}")),
        "the failed round is kept under the new one: {message}"
    );
    assert_eq!(repo.rev(&format!("{parent}^")), repo.rev("HEAD"));
    assert!(
        repo.git(["show", &format!("{branch}:calc.py")])
            .ok()
            .stdout
            .contains("a + b")
    );
    // One undo takes the branch away again.
    repo.papayu(["undo"]).ok();
    assert!(
        repo.git(["branch", "--list", "papayu/*"])
            .ok()
            .stdout
            .is_empty()
    );
    repo.fsck();
}

fn calc_answer(summary: &str, calc: &str) -> String {
    json!({
        "summary": summary,
        "actions": [{"kind": "UPDATE_FILE", "path": "calc.py", "content": calc}]
    })
    .to_string()
}

const ADD_FIXED_SUB_BROKEN: &str =
    "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return b\n";
const BOTH_RIGHT: &str = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n";

/// Stores a recorded answer breaking `sub` while fixing `add`; returns its id.
fn breaking_plan(repo: &TestRepo) -> String {
    let file = answer_file(repo, "first", ADD_FIXED_SUB_BROKEN);
    plan_group(repo, &[file])["plans"][0]["plan"]["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// A second round fixes what the first broke: the model is told, its answer passes, the branch
/// holds both rounds, and the stop says why.
#[test]
fn a_second_round_fixes_what_the_first_broke() {
    use common::fake_llm::{self, FakeLlm};
    let repo = project();
    let id = breaking_plan(&repo);
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&calc_answer(
        "Keep sub", BOTH_RIGHT,
    ))]);
    let run = common::run_with_env(
        &repo,
        &["apply", &id[..10], "--check", CHECK, "--rounds", "3"],
        &common::compat_env(&fake),
    )
    .ok();
    assert!(
        run.stderr
            .contains("rounds: stopped after round 2: the check passes and nothing is broken"),
        "{run:?}"
    );
    let told = fake.requests()[0].body.clone();
    assert!(
        told.contains("tests/test_calc.py::test_sub"),
        "the model was told what broke: {told}"
    );
    let branch = repo.proposal_branch();
    assert_eq!(
        repo.git(["show", &format!("{branch}:calc.py")]).ok().stdout,
        BOTH_RIGHT
    );
    let rounds = repo
        .git(["rev-list", "--count", &format!("HEAD..{branch}")])
        .ok()
        .stdout;
    assert_eq!(
        rounds.trim(),
        "2",
        "the failed first round is kept under the second"
    );
    // show lists the rounds with their verdicts.
    let shown = repo.papayu(["show", &id[..10]]).ok().stdout;
    assert!(shown.contains("Refinements:"), "{shown}");
    assert!(
        shown.contains(&format!("{} [failed: fixes 1, breaks 1", &id[..10])),
        "{shown}"
    );
    assert!(shown.contains("[passed: fixes 1, breaks 0"), "{shown}");
    repo.fsck();
}

/// A model that is never right stops the rounds: the same answer again changes nothing, and a
/// different answer failing the same tests is no progress.
#[test]
fn rounds_stop_without_progress_and_say_why() {
    use common::fake_llm::{self, FakeLlm};
    let repo = project();
    let id = breaking_plan(&repo);
    let same = FakeLlm::start(vec![fake_llm::openai_chat(&calc_answer(
        "Again",
        ADD_FIXED_SUB_BROKEN,
    ))]);
    let run = common::run_with_env(
        &repo,
        &["apply", &id[..10], "--check", CHECK, "--rounds", "5"],
        &common::compat_env(&same),
    )
    .code(1);
    assert!(
        run.stderr
            .contains("stopped after round 2: the model's answer changes nothing"),
        "{run:?}"
    );
    assert!(!same.requests().is_empty());

    let repo = project();
    let id = breaking_plan(&repo);
    let other = "def add(a, b):\n    return a + b  # the sum\n\n\ndef sub(a, b):\n    return b\n";
    let (run, _fake) = apply_rounds(&repo, &id, "5", &calc_answer("Other", other));
    let run = run.code(1);
    assert!(
        run.stderr
            .contains("stopped after round 2: no progress: the same tests fail as in round 1"),
        "{run:?}"
    );
    assert!(
        repo.git(["branch", "--list", "papayu/*"])
            .ok()
            .stdout
            .is_empty()
    );
    repo.fsck();
}

#[test]
fn a_bad_round_count_is_refused_and_changes_nothing() {
    let repo = project();
    let id = breaking_plan(&repo);
    let before = repo.snapshot();
    for n in ["0", "6"] {
        let run = repo
            .papayu(["apply", &id[..10], "--check", CHECK, "--rounds", n])
            .code(2);
        assert!(run.stderr.contains("rounds"), "{run:?}");
    }
    repo.git(["config", "papayu.rounds", "9"]).ok();
    let run = repo
        .papayu(["apply", &id[..10], "--check", CHECK])
        .err("ERR_CONFIG_INVALID");
    assert!(run.stderr.contains("papayu.rounds"), "{run:?}");
    repo.git(["config", "--unset", "papayu.rounds"]).ok();
    assert_eq!(repo.snapshot(), before);
}

/// `refine --rounds N` goes on from its own round as `apply --rounds` does; the router's
/// `apply: …` and `ok` take `--rounds` too, and a request that only plans refuses it.
#[test]
fn refine_and_the_router_take_rounds() {
    use common::fake_llm::{self, FakeLlm};
    let repo = project();
    let id = breaking_plan(&repo);
    repo.papayu(["apply", &id[..10], "--check", CHECK])
        .err("ERR_CHECK_FAILED");
    // The refinement breaks sub again; its second round puts it right.
    let fake = FakeLlm::start(vec![
        fake_llm::openai_chat(&calc_answer(
            "Again",
            ADD_FIXED_SUB_BROKEN
                .replace("return b", "return a")
                .as_str(),
        )),
        fake_llm::openai_chat(&calc_answer("Keep sub", BOTH_RIGHT)),
    ]);
    let mut env = common::compat_env(&fake);
    env.push(("PAPAYU_PROTOCOL_VERSION".into(), "1".into()));
    let run = common::run_with_env(
        &repo,
        &[
            "refine",
            &id[..10],
            "keep sub working",
            "--check",
            CHECK,
            "--rounds",
            "2",
        ],
        &env,
    )
    .ok();
    assert!(
        run.stderr
            .contains("rounds: stopped after round 2: the check passes"),
        "{run:?}"
    );
    assert_eq!(fake.requests().len(), 2);
    let branch = repo.proposal_branch();
    assert_eq!(
        repo.git(["show", &format!("{branch}:calc.py")]).ok().stdout,
        BOTH_RIGHT
    );

    let before = repo.snapshot();
    let refused = common::run_with_env(&repo, &["fix the add test", "--rounds", "2"], &env).code(2);
    assert!(
        refused.stderr.starts_with("ERR_USAGE: --rounds"),
        "{refused:?}"
    );
    assert_eq!(repo.snapshot(), before);
    assert_eq!(fake.requests().len(), 2, "nothing was asked");
}
