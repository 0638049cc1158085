//! Verdicts that judge exactly the tree they name, through the real binary: bytecode an earlier
//! check compiled, a `.pyc` a proposal planted, a process that leaves its check's session, a
//! report an earlier check left behind, a check that never ran its tests, and the user's Rust
//! toolchain inside the sandbox. Each test shows the verdict the tree earns.

use crate::common;

use common::TestRepo;
use serde_json::{Value, json};

/// Stores `answer` (protocol v1) as a plan and returns its full id.
fn plan(repo: &TestRepo, goal: &str, answer: &Value) -> String {
    let text = answer.to_string();
    let args = ["plan", goal, "--response", "-", "--json", "--protocol", "1"];
    let run = repo.papayu_stdin(args, text.as_bytes()).ok();
    let out: Value = serde_json::from_str(&run.stdout).expect("plan --json prints JSON");
    out["plans"][0]["plan"]["id"]
        .as_str()
        .expect("plan id")
        .to_string()
}

fn update(path: &str, content: &str) -> Value {
    json!({"actions": [{"kind": "UPDATE_FILE", "path": path, "content": content}]})
}

/// `apply --json` with `args`; the JSON document whether it succeeded or not.
fn apply(repo: &TestRepo, args: &[&str]) -> Value {
    let mut all = vec!["apply", "--json"];
    all.extend_from_slice(args);
    let run = repo.papayu(all);
    serde_json::from_str(&run.stdout).unwrap_or_else(|_| panic!("apply --json: {run:?}"))
}

fn python_available() -> bool {
    common::tool("python3", "the checks here run Python's unittest")
}

const CALC_BUG: &str = "def add(a, b):\n    return a - b\n";
const CALC_FIX: &str = "def add(a, b):\n    return a + b\n";
const TEST_CALC: &str = "import unittest\n\nfrom calc import add\n\n\nclass Calc(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n    def test_zero(self):\n        self.assertEqual(add(0, 0), 0)\n";

/// The check: every checkout of calc.py gets one fixed mtime, as two checkouts in the same
/// second would, so Python's timestamp-keyed bytecode cannot tell the trees apart.
const SAME_SECOND: &str = "touch -d '2020-01-01 00:00:00' calc.py && python3 -m unittest -v";

#[test]
fn bytecode_compiled_for_one_tree_never_judges_another() {
    if !python_available() {
        return;
    }
    let repo = TestRepo::with_files(&[("calc.py", CALC_BUG), ("test_calc.py", TEST_CALC)]);
    // A first proposal, checked: its bytecode would be left in the worktree for the next.
    plan(
        &repo,
        "touch readme",
        &update("calc.py", CALC_BUG.replace("a - b", "b - a").as_str()),
    );
    apply(&repo, &["--check", SAME_SECOND]);
    let fix = plan(&repo, "fix add", &update("calc.py", CALC_FIX));
    let out = apply(&repo, &[&fix[..8], "--check", SAME_SECOND]);
    assert_eq!(out["verdict"]["status"], "passed", "{out:#}");
    assert_eq!(
        out["verdict"]["fixes"], 1,
        "the fix is judged on its own code: {out:#}"
    );
    assert_eq!(out["verdict"]["breaks"], 0, "{out:#}");
    repo.fsck();
}

/// A proposal whose check compiles a forged `calc.py` into the tree's `__pycache__` with an
/// unchecked hash (PEP 552), which Python would load without looking at the source.
#[test]
fn a_planted_unchecked_pyc_forges_no_base_run() {
    if !python_available() {
        return;
    }
    let repo = TestRepo::with_files(&[("calc.py", CALC_BUG), ("test_calc.py", TEST_CALC)]);
    let plant = "import pathlib, py_compile, sys\n\
                 pathlib.Path('forged.py').write_text('def add(a, b):\\n    return a + b\\n')\n\
                 py_compile.compile('forged.py', cfile='__pycache__/calc.' + sys.implementation.cache_tag + '.pyc', \
                 invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)\n";
    let check = "python3 plant.py 2>/dev/null; python3 -m unittest -v";
    plan(
        &repo,
        "plant",
        &json!({"actions": [{"kind": "CREATE_FILE", "path": "plant.py", "content": plant}]}),
    );
    let planted = apply(&repo, &["--check", check]);
    assert_ne!(planted["verdict"]["status"], "passed", "{planted:#}");
    // The honest fix of another proposal is judged against the base as it is: add is broken.
    let fix = plan(&repo, "fix add", &update("calc.py", CALC_FIX));
    let out = apply(&repo, &[&fix[..8], "--check", check]);
    assert_eq!(out["verdict"]["fixes"], 1, "{out:#}");
    assert_eq!(out["verdict"]["status"], "passed", "{out:#}");
}

#[test]
fn a_process_that_leaves_its_checks_session_dies_with_the_check() {
    let repo = TestRepo::with_files(&[("app.txt", "v1\n")]);
    let outside = tempfile::tempdir().unwrap();
    let late = outside.path().join("late");
    repo.git([
        "config",
        "papayu.checkWritable",
        &outside.path().display().to_string(),
    ])
    .ok();
    plan(&repo, "one", &update("app.txt", "v2\n"));
    let check = format!(
        "setsid sh -c 'sleep 1; echo escaped > \"{}\"' </dev/null >/dev/null 2>&1 & true",
        late.display()
    );
    let out = apply(&repo, &["--check", &check]);
    assert_eq!(out["check"]["passed"], true, "{out:#}");
    std::thread::sleep(std::time::Duration::from_millis(1800));
    assert!(
        !late.exists(),
        "a process of the check outlived it (pid namespace: {})",
        out["check"]["pid_namespace"]
    );
}

#[test]
fn a_report_left_by_an_earlier_check_is_never_read() {
    let repo = TestRepo::with_files(&[
        ("Cargo.toml", "[package]\nname = \"demo\"\n"),
        ("app.txt", "v1\n"),
    ]);
    repo.git(["config", "papayu.checkJunit", "target/junit.xml"])
        .ok();
    let report = "<testsuite><testcase classname=\"t\" name=\"a\"/><testcase classname=\"t\" name=\"b\"><failure/></testcase></testsuite>";
    // The base writes a report (b fails); a first proposal's check writes one where b passes.
    let writes = format!(
        "mkdir -p target && if grep -q v1 app.txt; then printf '%s' '{report}' > target/junit.xml; else printf '%s' '{}' > target/junit.xml; fi",
        report.replace("<failure/>", "")
    );
    plan(&repo, "one", &update("app.txt", "v2\n"));
    let first = apply(&repo, &["--check", &writes]);
    assert_eq!(first["verdict"]["fixes"], 1, "{first:#}");
    // A proposal that does not build writes no report: it is judged by what it did, not by
    // the report the earlier check left in the kept target/.
    let broken = plan(&repo, "two", &update("app.txt", "v3\n"));
    let check = format!(
        "if grep -q v3 app.txt; then echo 'error: could not compile `demo`'; exit 101; fi; {writes}"
    );
    let out = apply(&repo, &[&broken[..8], "--check", &check]);
    assert_eq!(out["verdict"]["status"], "did_not_run", "{out:#}");
    assert_eq!(out["errors"][0]["code"], "ERR_CHECK_FAILED", "{out:#}");
    let branches = repo.git(["branch", "--list", "papayu/*"]).ok().stdout;
    assert_eq!(
        branches.lines().count(),
        1,
        "only the first proposal is kept: {branches}"
    );
}

/// A proposal whose test module does not even import ranks below a harmless one that ran.
#[test]
fn a_check_stopped_at_collection_did_not_run_and_ranks_last() {
    let repo = TestRepo::with_files(&[("app.txt", "v1\n"), ("tests/test_app.py", "ok\n")]);
    // pytest -rA as printed: a syntax error in the test module stops it at collection.
    let check = r#"if grep -q broken tests/test_app.py; then
echo '==================================== ERRORS ===================================='
echo '_____________________ ERROR collecting tests/test_app.py ______________________'
echo 'E   SyntaxError: invalid syntax'
echo '=========================== short test summary info ============================'
echo 'ERROR tests/test_app.py - SyntaxError: invalid syntax'
echo '!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!'
exit 2; fi
echo 'PASSED tests/test_app.py::test_one'
echo 'FAILED tests/test_app.py::test_two - assert 1 == 2'
exit 1"#;
    let answers = [
        update("tests/test_app.py", "broken(\n"),
        update("app.txt", "v2\n"),
    ];
    let mut ids = Vec::new();
    for (n, answer) in answers.iter().enumerate() {
        ids.push(plan(&repo, &format!("goal {n}"), answer));
    }
    let syntax = apply(&repo, &[&ids[0][..8], "--check", check]);
    assert_eq!(syntax["verdict"]["status"], "did_not_run", "{syntax:#}");
    assert!(
        syntax["verdict"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("SyntaxError") || r.contains("collecting")),
        "{syntax:#}"
    );
    assert!(
        syntax["errors"][0]["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("did not run its tests"),
        "{syntax:#}"
    );
    // The harmless proposal ran every test: it fixes nothing and breaks nothing.
    let harmless = apply(&repo, &[&ids[1][..8], "--check", check]);
    assert_eq!(harmless["verdict"]["breaks"], 0, "{harmless:#}");
    let out = repo
        .papayu(["compare", "--json", &ids[0][..8], &ids[1][..8]])
        .ok();
    let compared: Value = serde_json::from_str(&out.stdout).unwrap();
    let ranking: Vec<&str> = compared["ranking"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        ranking,
        vec![ids[1].as_str(), ids[0].as_str()],
        "{compared:#}"
    );
    repo.fsck();
}

/// The user's own Rust toolchain is found inside the sandbox, though its `HOME` is private:
/// rustup's directories under the user's home are passed on; without them, the failure says
/// what to set.
#[test]
fn the_users_rust_toolchain_is_found_by_the_check() {
    if !common::tool("cargo", "the check runs cargo") {
        return;
    }
    let real_home = std::path::PathBuf::from(std::env::var_os("HOME").expect("HOME"));
    let rustup = std::env::var_os("RUSTUP_HOME")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| real_home.join(".rustup"));
    if !rustup.is_dir() {
        common::skip("the toolchain here is not managed by rustup");
        return;
    }
    // The harness runs papayu with HOME at the repository, where no toolchain lives.
    let repo = TestRepo::with_files(&[("app.txt", "v1\n")]);
    plan(&repo, "one", &update("app.txt", "v2\n"));
    let check = "cargo --version && rustc --version";
    let hidden = apply(&repo, &["--check", check]);
    if hidden["check"]["passed"] == false {
        let reason = hidden["errors"][0]["reason"].as_str().unwrap_or_default();
        assert!(
            reason.contains("could not find your Rust toolchain"),
            "{hidden:#}"
        );
    }
    // The user's home as rustup installs into it.
    std::os::unix::fs::symlink(&rustup, repo.path().join(".rustup")).unwrap();
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| real_home.join(".cargo"));
    if cargo_home.is_dir() {
        std::os::unix::fs::symlink(&cargo_home, repo.path().join(".cargo")).unwrap();
    }
    plan(&repo, "two", &update("app.txt", "v3\n"));
    let out = apply(&repo, &["--check", check]);
    assert_eq!(out["check"]["passed"], true, "{out:#}");
}

#[test]
fn the_base_run_is_made_in_a_slot_no_proposal_used() {
    let repo = TestRepo::with_files(&[("app.txt", "v1\n")]);
    plan(&repo, "one", &update("app.txt", "v2\n"));
    let check = "pwd > \"$TMPDIR/../where-$PAPAYU_PLAN\" 2>/dev/null; echo 'test t::a ... ok'; grep -q v2 app.txt";
    let out = apply(&repo, &["--check", check]);
    assert_eq!(out["verdict"]["status"], "passed", "{out:#}");
    let worktrees = repo.path().join(".git/papayu/worktrees");
    assert!(worktrees.join("check-1").is_dir() && worktrees.join("base-1").is_dir());
    let listed = repo.git(["worktree", "list"]).ok().stdout;
    assert!(
        listed.contains("base-1") && listed.contains("check-1"),
        "{listed}"
    );
}
