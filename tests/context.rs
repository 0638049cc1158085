//! What `git papayu context` gathers: the files failing tests live in and the modules they
//! test, and a repository map with the definitions of the files the goal is about.

mod common;

use common::TestRepo;
use serde_json::Value;

fn context(repo: &TestRepo, goal: &str, log: Option<&str>) -> Value {
    let mut args = vec!["context", goal, "--json"];
    if let Some(log) = log {
        repo.write("failure.log", log);
        args.extend(["--log", "failure.log"]);
    }
    let out = repo.papayu(&args).ok();
    serde_json::from_str(&out.stdout).expect("context --json is JSON")
}

/// A FILE block: title, source, line ranges.
type FileBlock = (String, String, Vec<(u64, u64)>);

fn files(ctx: &Value) -> Vec<FileBlock> {
    ctx["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["kind"] == "file")
        .map(|b| {
            let ranges = b["ranges"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| (r[0].as_u64().unwrap(), r[1].as_u64().unwrap()))
                .collect();
            (
                b["title"].as_str().unwrap().to_string(),
                b["source"].as_str().unwrap().to_string(),
                ranges,
            )
        })
        .collect()
}

fn map(ctx: &Value) -> String {
    ctx["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["kind"] == "map")
        .map(|b| b["body"].as_str().unwrap().to_string())
        .unwrap_or_default()
}

fn long_rust_file() -> String {
    let mut text = String::from(
        "pub fn mean(xs: &[f64]) -> f64 {\n    xs.iter().sum::<f64>() / xs.len() as f64\n}\n",
    );
    for i in 0..300 {
        text.push_str(&format!("\npub fn helper_{i}() -> u32 {{\n    {i}\n}}\n"));
    }
    text.push_str("\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn mean_of_empty() {\n        assert_eq!(super::mean(&[]), 0.0);\n    }\n}\n");
    text
}

#[test]
fn a_cargo_test_failure_brings_the_test_and_its_surroundings() {
    let text = long_rust_file();
    let repo = TestRepo::with_files(&[("src/stats.rs", &text), ("src/lib.rs", "pub mod stats;\n")]);
    let line = text
        .lines()
        .position(|l| l.contains("fn mean_of_empty"))
        .unwrap() as u64
        + 1;
    let log = "running 1 test\ntest stats::tests::mean_of_empty ... FAILED\n\nfailures:\n\n---- stats::tests::mean_of_empty stdout ----\nassertion failed\n\nfailures:\n    stats::tests::mean_of_empty\n";
    let ctx = context(&repo, "make the failing test pass", Some(log));
    let found = files(&ctx);
    let stats = found
        .iter()
        .find(|f| f.0 == "src/stats.rs")
        .expect("the test's file is sent");
    assert_eq!(stats.1, "defines a failing test");
    assert_eq!(stats.2.len(), 1);
    let (from, to) = stats.2[0];
    assert!(from <= line && line <= to, "{line} in {from}-{to}");
    assert_eq!(from, line - 80, "80 lines before the test");
}

#[test]
fn a_pytest_failure_brings_the_test_file_and_the_module_under_test() {
    let repo = TestRepo::with_files(&[
        (
            "pkg/stats.py",
            "def mean(items):\n    return sum(items) / len(items)\n",
        ),
        (
            "tests/test_stats.py",
            "from pkg.stats import mean\n\ndef test_empty():\n    assert mean([]) == 0\n",
        ),
        ("pkg/other.py", "X = 1\n"),
    ]);
    let log = "============ FAILURES ============\n___________ test_empty ___________\n\n    def test_empty():\n>       assert mean([]) == 0\nE       ZeroDivisionError: division by zero\n\nFAILED tests/test_stats.py::test_empty - ZeroDivisionError\n";
    let ctx = context(&repo, "fix it", Some(log));
    let titles: Vec<(String, String)> = files(&ctx).into_iter().map(|f| (f.0, f.1)).collect();
    assert!(
        titles.iter().any(|t| t.0 == "tests/test_stats.py"),
        "{titles:?}"
    );
    assert!(
        titles.contains(&("pkg/stats.py".to_string(), "module under test".to_string())),
        "{titles:?}"
    );
    assert!(!titles.iter().any(|t| t.0 == "pkg/other.py"));
}

#[test]
fn a_go_failure_by_test_name_finds_the_test_and_the_file_beside_it() {
    let repo = TestRepo::with_files(&[
        ("go.mod", "module example.com/x\n"),
        (
            "pkg/parse/parse.go",
            "package parse\n\nfunc Parse(s string) int {\n\treturn 0\n}\n",
        ),
        (
            "pkg/parse/parse_test.go",
            "package parse\n\nimport \"testing\"\n\nfunc TestParse(t *testing.T) {\n\tif Parse(\"1\") != 1 {\n\t\tt.Fatal(\"want 1\")\n\t}\n}\n",
        ),
    ]);
    let log = "=== RUN   TestParse\n--- FAIL: TestParse (0.00s)\nFAIL\nFAIL\texample.com/x/pkg/parse\t0.002s\n";
    let ctx = context(&repo, "fix the failing test", Some(log));
    let titles: Vec<String> = files(&ctx).into_iter().map(|f| f.0).collect();
    assert!(
        titles.contains(&"pkg/parse/parse_test.go".to_string()),
        "{titles:?}"
    );
    assert!(
        titles.contains(&"pkg/parse/parse.go".to_string()),
        "{titles:?}"
    );
}

#[test]
fn the_map_lists_definitions_of_the_files_the_goal_names_and_hides_protected_ones() {
    let repo = TestRepo::with_files(&[
        (
            "src/billing/invoice.py",
            "class Invoice:\n    def total(self):\n        return 0\n\ndef render(invoice):\n    pass\n",
        ),
        (
            "src/billing/tax.rs",
            "pub fn vat(amount: u64) -> u64 {\n    amount / 5\n}\n",
        ),
        (
            "web/invoice.ts",
            "export function showInvoice(id: string): void {\n}\n",
        ),
        (
            "deploy/secrets/invoice.py",
            "def leaked_definition():\n    pass\n",
        ),
        ("README.md", "# shop\n"),
    ]);
    let ctx = context(&repo, "Invoices need a discount line", None);
    let map = map(&ctx);
    assert!(map.starts_with("Definitions:\n"), "{map}");
    for expected in [
        "src/billing/invoice.py\n  class Invoice\n    def total(self)\n  def render(invoice)\n",
        "web/invoice.ts\n  export function showInvoice(id: string): void\n",
    ] {
        assert!(map.contains(expected), "{expected:?} in\n{map}");
    }
    assert!(
        !map.contains("leaked_definition"),
        "protected files are named only:\n{map}"
    );
    assert!(map.contains("deploy/secrets/ invoice.py"), "{map}");
    assert!(map.contains("\nPaths:\n"));
}

#[test]
fn the_map_stays_within_its_budget() {
    let mut files = Vec::new();
    for i in 0..400 {
        files.push((
            format!("src/mod{i:03}/invoice{i}.py"),
            format!("def f{i}():\n    return {i}\n"),
        ));
    }
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let repo = TestRepo::with_files(&refs);
    for budget in ["6000", "900"] {
        let out = repo
            .papayu_env(
                ["context", "invoice", "--json"],
                &[("PAPAYU_CONTEXT_MAP_CHARS", budget)],
            )
            .ok();
        let ctx: Value = serde_json::from_str(&out.stdout).unwrap();
        let len = map(&ctx).chars().count();
        assert!(len <= budget.parse().unwrap(), "{len} > {budget}");
        assert!(len > 500, "the budget is used: {len}");
    }
}

#[test]
fn private_marks_in_any_gitattributes_and_in_info_attributes_withhold_files() {
    let repo = TestRepo::with_files(&[
        ("sub/.gitattributes", "conf.yml papayu-private\n"),
        ("sub/conf.yml", "password: MARKER-SUB\n"),
        ("local.txt", "MARKER-LOCAL\n"),
        ("open.txt", "MARKER-OPEN\n"),
    ]);
    std::fs::create_dir_all(repo.path().join(".git/info")).unwrap();
    std::fs::write(
        repo.path().join(".git/info/attributes"),
        "local.txt papayu-private\n",
    )
    .unwrap();
    let ctx = context(&repo, "look at sub/conf.yml, local.txt and open.txt", None);
    let text = ctx["blocks"].to_string();
    assert!(text.contains("MARKER-OPEN"), "ordinary files are sent");
    assert!(
        !text.contains("MARKER-SUB") && !text.contains("MARKER-LOCAL"),
        "{text}"
    );
    let withheld = ctx["withheld"].to_string();
    assert!(
        withheld.contains("sub/conf.yml") && withheld.contains("local.txt"),
        "{withheld}"
    );
    let store = git_papayu::store::Store::open_at(repo.path()).unwrap();
    let snap = store
        .snapshot(store.resolve_commit("HEAD").unwrap())
        .unwrap();
    let hits: Vec<String> = git_papayu::context::search(&snap, "MARKER", None)
        .into_iter()
        .map(|h| h.path)
        .collect();
    assert_eq!(hits, ["open.txt"]);
}

#[test]
fn a_private_mark_added_after_a_search_applies_to_the_next_one() {
    let repo = TestRepo::with_files(&[("a.txt", "MARKER-A\n"), ("b.txt", "MARKER-B\n")]);
    let store = git_papayu::store::Store::open_at(repo.path()).unwrap();
    let snap = store
        .snapshot(store.resolve_commit("HEAD").unwrap())
        .unwrap();
    let paths = |snap: &git_papayu::store::Snapshot<'_>| -> Vec<String> {
        git_papayu::context::search(snap, "MARKER", None)
            .into_iter()
            .map(|h| h.path)
            .collect()
    };
    assert_eq!(paths(&snap), ["a.txt", "b.txt"]);
    std::fs::create_dir_all(repo.path().join(".git/info")).unwrap();
    std::fs::write(
        repo.path().join(".git/info/attributes"),
        "a.txt papayu-private\n",
    )
    .unwrap();
    let snap = store
        .snapshot(store.resolve_commit("HEAD").unwrap())
        .unwrap();
    assert_eq!(
        paths(&snap),
        ["b.txt"],
        "the cached corpus is filtered at search time"
    );
}
