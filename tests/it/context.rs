//! What `git papayu context` gathers: the files failing tests live in and the modules they
//! test, and a repository map with the definitions of the files the goal is about.

use crate::common;

use common::TestRepo;
use serde_json::Value;

fn context_env(repo: &TestRepo, goal: &str, env: &[(&str, &str)]) -> Value {
    let out = repo.papayu_env(["context", goal, "--json"], env).ok();
    serde_json::from_str(&out.stdout).expect("context --json is JSON")
}

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
    assert!(stats.1.starts_with("defines a failing test"), "{}", stats.1);
    // Whole, or a window from 80 lines before the test.
    assert!(
        stats.2.is_empty() || stats.2.iter().any(|&(a, b)| a <= line - 80 && line <= b),
        "{line}: {:?}",
        stats.2
    );
    // With no room for more, the window alone.
    let only = [("PAPAYU_CONTEXT_MAX_FILES", "1")];
    repo.write("failure.log", log);
    let out = repo
        .papayu_env(
            [
                "context",
                "make the failing test pass",
                "--json",
                "--log",
                "failure.log",
            ],
            &only,
        )
        .ok();
    let ctx: Value = serde_json::from_str(&out.stdout).unwrap();
    let found = files(&ctx);
    assert_eq!(found[0].1, "defines a failing test");
    assert_eq!(found[0].2.len(), 1, "{:?}", found[0].2);
    assert_eq!(found[0].2[0].0, line - 80, "80 lines before the test");
}

#[test]
fn a_java_stack_trace_sends_the_frames_file_found_by_its_package() {
    let mut text = String::from("package com.acme.billing;\n\npublic final class Invoice {\n");
    for i in 0..400 {
        text.push_str(&format!(
            "    int helper{i}(int x) {{\n        return x + {i};\n    }}\n"
        ));
    }
    text.push_str("    long total() {\n        return lines.get(0).amount();\n    }\n}\n");
    let lines: Vec<&str> = text.lines().collect();
    let line = lines
        .iter()
        .position(|l| l.contains("lines.get(0)"))
        .unwrap() as u64
        + 1;
    let other = "package com.acme.legacy;\n\npublic final class Invoice {}\n";
    let repo = repo_with(
        &[
            (
                "billing/src/main/java/com/acme/billing/Invoice.java",
                text.as_str(),
            ),
            ("legacy/src/main/java/com/acme/legacy/Invoice.java", other),
        ],
        20,
    );
    let log = format!(
        "Exception in thread \"main\" java.lang.IndexOutOfBoundsException: Index 0 out of bounds for length 0\n\tat java.base/java.util.ArrayList.get(ArrayList.java:427)\n\tat com.acme.billing.Invoice.total(Invoice.java:{line})\n\tat com.acme.App.main(App.java:9)\n"
    );
    let ctx = context(&repo, "total() fails on an empty invoice", Some(&log));
    let sent = files(&ctx);
    let (_, source, ranges) = sent
        .iter()
        .find(|f| f.0 == "billing/src/main/java/com/acme/billing/Invoice.java")
        .unwrap_or_else(|| panic!("{sent:?}"));
    assert!(source.starts_with("named in a log"), "{source}");
    assert!(
        ranges.is_empty() || ranges.iter().any(|&(a, b)| a + 80 <= line && line <= b),
        "{line}: {ranges:?}"
    );
    assert!(
        !sent
            .iter()
            .any(|f| f.0.starts_with("legacy/") && f.1.contains("named in a log")),
        "{sent:?}"
    );
}

#[test]
fn a_traceback_frame_comes_with_the_part_of_its_file_the_goal_is_about() {
    // A long file: the log names a line near its end (the caller); the goal's message is raised
    // near its start.
    let mut text = String::from("import logging\n\n\ndef format_error(boom):\n");
    text.push_str("    return \"%s - %s\" % (boom.__class__.__name__, \"detailed message\")\n\n");
    for i in 0..900 {
        text.push_str(&format!("\ndef helper_{i}(x):\n    return x + {i}\n"));
    }
    text.push_str("\ndef call(env):\n    return dispatch(env)\n");
    let lines: Vec<&str> = text.lines().collect();
    let call = lines
        .iter()
        .position(|l| l.starts_with("def call"))
        .unwrap() as u64
        + 2;
    let raise = lines
        .iter()
        .position(|l| l.contains("detailed message"))
        .unwrap() as u64
        + 1;
    let repo = repo_with(&[("app/base.py", text.as_str())], 20);
    let log = format!(
        "Traceback (most recent call last):\n  File \"/srv/app/base.py\", line {call}, in call\n    return dispatch(env)\nNoMethodError\n"
    );
    let goal = "show the \"detailed message\" of the error in the log line";
    let ctx = context(&repo, goal, Some(&log));
    let sent = files(&ctx);
    let (_, source, ranges) = sent
        .iter()
        .find(|f| f.0 == "app/base.py")
        .unwrap_or_else(|| panic!("{sent:?}"));
    assert!(
        ranges.iter().any(|&(a, b)| a <= call && call <= b),
        "the frame {call}: {ranges:?}"
    );
    assert!(
        ranges.iter().any(|&(a, b)| a <= raise && raise <= b),
        "the message {raise}: {ranges:?}"
    );
    assert!(
        source.starts_with("named in a log; kept ") && source.contains("(the lines pointed at)"),
        "{source}"
    );
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
    let other = titles.iter().position(|t| t.0 == "pkg/other.py");
    assert!(
        other.is_some_and(|i| i == titles.len() - 1 && titles[i].1 == "the whole tree fits"),
        "an unrelated file comes only because the whole tree fits, last: {titles:?}"
    );
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
    // No room for files: the map alone says what the tree offers.
    let out = repo
        .papayu_env(
            ["context", "Invoices need a discount line", "--json"],
            &[("PAPAYU_CONTEXT_MAX_FILES", "0")],
        )
        .ok();
    let ctx: Value = serde_json::from_str(&out.stdout).unwrap();
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

/// A tree too large to send whole: `n` filler modules of about 3 KB each.
fn filler(n: usize) -> Vec<(String, String)> {
    (0..n)
        .map(|i| {
            let body: String = (0..60)
                .map(|j| format!("def helper_{i}_{j}(value):\n    return value + {j}\n\n"))
                .collect();
            (format!("pkg/util{i:02}.py"), body)
        })
        .collect()
}

fn repo_with(extra: &[(&str, &str)], fill: usize) -> TestRepo {
    let filler = filler(fill);
    let mut files: Vec<(&str, &str)> = filler
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    files.extend_from_slice(extra);
    TestRepo::with_files(&files)
}

#[test]
fn a_goal_naming_only_a_function_sends_the_file_that_defines_it() {
    let repo = TestRepo::with_files(&[
        ("src/calc.py", "def add(a, b):\n    return a - b\n"),
        ("src/io.py", "def show(x):\n    print(x)\n"),
        ("README.md", "# calc\n"),
    ]);
    let ctx = context(&repo, "fix the add function", None);
    let titles: Vec<String> = files(&ctx).into_iter().map(|f| f.0).collect();
    assert_eq!(
        titles.first().map(String::as_str),
        Some("src/calc.py"),
        "{titles:?}"
    );
    assert_eq!(
        titles.len(),
        3,
        "a tree that fits is sent whole: {titles:?}"
    );
    // With room for one file only, the one defining `add` is it.
    let ctx = context_env(
        &repo,
        "fix the add function",
        &[("PAPAYU_CONTEXT_MAX_FILES", "1")],
    );
    let sent = files(&ctx);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].0, "src/calc.py");
    assert!(sent[0].1.contains("defines add"), "{:?}", sent[0].1);
    let block = &ctx["blocks"][0];
    assert!(block["score"].as_f64().is_some_and(|s| s > 0.0), "{block}");
}

#[test]
fn a_goal_naming_a_class_method_sends_the_window_of_the_class() {
    let mut long = String::from("import os\n\n");
    for i in 0..400 {
        long.push_str(&format!("def unrelated_{i}(x):\n    return x * {i}\n\n"));
    }
    long.push_str("class Request:\n    def __init__(self, url, headers=None):\n        self.url = url\n        self.headers = headers\n");
    for i in 0..400 {
        long.push_str(&format!("def tail_{i}(x):\n    return x - {i}\n\n"));
    }
    let repo = repo_with(&[("web/models.py", long.as_str())], 40);
    let ctx = context(
        &repo,
        "`Request.__init__` drops the headers it is given",
        None,
    );
    let sent = files(&ctx);
    let (_, source, ranges) = sent
        .iter()
        .find(|f| f.0 == "web/models.py")
        .unwrap_or_else(|| panic!("the class's file is sent: {sent:?}"));
    assert!(source.contains("defines request"), "{source}");
    let class_line = long
        .lines()
        .position(|l| l.starts_with("class Request"))
        .unwrap() as u64
        + 1;
    assert!(
        ranges
            .iter()
            .any(|&(a, b)| a <= class_line && class_line + 3 <= b),
        "the window holds the class and its __init__: {ranges:?} (line {class_line})"
    );
    let body = ctx["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["title"] == "web/models.py")
        .unwrap()["body"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(body.contains("self.headers = headers"), "{body}");
    assert!(body.chars().count() <= 20_000);
}

#[test]
fn a_quoted_error_message_finds_the_file_that_raises_it() {
    let repo = repo_with(
        &[
            (
                "net/parse.py",
                "def split_host(url):\n    if '[' in url:\n        raise ValueError(\"Invalid IPv6 URL\")\n    return url\n",
            ),
            (
                "net/url.py",
                "class URL:\n    def host(self):\n        return self.url  # url url url\n",
            ),
        ],
        40,
    );
    let ctx = context_env(
        &repo,
        "Parsing an URL fails with \"Invalid IPv6 URL\" for a valid url",
        &[("PAPAYU_CONTEXT_MAX_FILES", "1")],
    );
    let sent = files(&ctx);
    assert_eq!(sent[0].0, "net/parse.py", "{sent:?}");
    assert!(
        sent[0].1.contains("contains \"Invalid IPv6 URL\""),
        "{:?}",
        sent[0].1
    );
}

#[test]
fn a_vendored_directory_never_outranks_the_package_the_goal_names() {
    let vendored =
        "def extract_cookies(jar):\n    # cookies cookies cookies cookies\n    return jar\n"
            .repeat(5);
    let repo = repo_with(
        &[
            ("requests/_vendor/cookielib/cookies.py", vendored.as_str()),
            ("vendor/cookies.py", vendored.as_str()),
            (
                "requests/cookies.py",
                "def extract_cookies_to_jar(jar, request, response):\n    return jar\n",
            ),
        ],
        40,
    );
    let ctx = context(
        &repo,
        "requests: cookies from a redirect are not extracted",
        None,
    );
    let titles: Vec<String> = files(&ctx).into_iter().map(|f| f.0).collect();
    let ours = titles.iter().position(|t| t == "requests/cookies.py");
    assert!(ours.is_some(), "{titles:?}");
    for vendored in ["requests/_vendor/cookielib/cookies.py", "vendor/cookies.py"] {
        if let Some(v) = titles.iter().position(|t| t == vendored) {
            assert!(v > ours.unwrap(), "{titles:?}");
        }
    }
}

#[test]
fn the_map_lists_the_directory_of_every_top_ranked_file() {
    // Many directories of many files: the map must collapse some, never those that matter.
    let mut owned: Vec<(String, String)> = Vec::new();
    for d in 0..30 {
        for f in 0..20 {
            owned.push((
                format!("area{d:02}/mod{f:02}.py"),
                format!("def f{d}_{f}():\n    return {f}\n"),
            ));
        }
    }
    for f in 0..20 {
        owned.push((
            format!("billing/part{f:02}.py"),
            format!("def part{f}():\n    return {f}\n"),
        ));
    }
    owned.push((
        "billing/discount.py".into(),
        "def apply_discount(invoice, rate):\n    return invoice\n".into(),
    ));
    let files_: Vec<(&str, &str)> = owned
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let repo = TestRepo::with_files(&files_);
    let ctx = context_env(
        &repo,
        "apply_discount ignores the rate",
        &[("PAPAYU_CONTEXT_MAX_FILES", "0")],
    );
    let map = map(&ctx);
    assert!(
        map.contains("billing/discount.py\n  def apply_discount(invoice, rate)"),
        "{map}"
    );
    let line = map
        .lines()
        .find(|l| l.starts_with("billing/ "))
        .unwrap_or_else(|| panic!("{map}"));
    assert!(
        line.contains("discount.py") && line.contains("part00.py"),
        "listed with its names: {line}"
    );
    assert!(map.contains("(20 files)"), "others collapse: {map}");
}

#[test]
fn context_shows_each_ranked_blocks_reason_and_score() {
    let repo = TestRepo::with_files(&[
        ("src/calc.py", "def add(a, b):\n    return a - b\n"),
        ("src/io.py", "def show(x):\n    print(x)\n"),
    ]);
    let out = repo.papayu(["context", "fix the add function"]).ok();
    let line = out
        .stderr
        .lines()
        .find(|l| l.contains("src/calc.py"))
        .unwrap_or_else(|| panic!("{}", out.stderr));
    assert!(
        line.contains("defines add") && line.contains("score "),
        "{line}"
    );
}

#[test]
fn ranking_never_reads_a_private_or_protected_file() {
    let repo = repo_with(
        &[
            (".gitattributes", "config/keys.py papayu-private\n"),
            (
                "config/keys.py",
                "def rotate_api_key():\n    return 'MARKER-PRIVATE'\n",
            ),
            (
                "deploy/secrets/rotate.py",
                "def rotate_api_key():\n    return 'MARKER-PROTECTED'\n",
            ),
            (
                "app/keys.py",
                "from config.keys import rotate_api_key\n\ndef use():\n    return rotate_api_key()\n",
            ),
        ],
        40,
    );
    let ctx = context(&repo, "`rotate_api_key` fails after a rotation", None);
    let text = ctx["blocks"].to_string();
    assert!(text.contains("app/keys.py"), "{text}");
    assert!(
        !text.contains("MARKER-PRIVATE") && !text.contains("MARKER-PROTECTED"),
        "{text}"
    );
    let map = map(&ctx);
    assert!(!map.contains("config/keys.py\n  def"), "named only: {map}");
}

#[test]
fn java_and_c_definitions_are_ranked_and_mapped() {
    let service = "package org.acme.billing;\n\nimport java.util.List;\n\n/** Invoices. */\npublic class InvoiceService {\n    private static final int MAX_LINES = 100;\n\n    public Invoice applyDiscount(\n            Invoice invoice,\n            double rate) {\n        return invoice;\n    }\n}\n";
    let url = "#include \"url.h\"\n\nstatic int\nparse_port(const char *s)\n{\n    return 0;\n}\n";
    let repo = repo_with(
        &[
            (
                "src/main/java/org/acme/billing/InvoiceService.java",
                service,
            ),
            ("lib/url.c", url),
        ],
        40,
    );
    let one = [("PAPAYU_CONTEXT_MAX_FILES", "1")];
    let ctx = context_env(&repo, "applyDiscount ignores the rate", &one);
    let sent = files(&ctx);
    assert!(sent[0].0.ends_with("InvoiceService.java"), "{sent:?}");
    assert!(
        sent[0].1.contains("defines applydiscount"),
        "{:?}",
        sent[0].1
    );
    let ctx = context_env(&repo, "parse_port accepts port 0", &one);
    let sent = files(&ctx);
    assert_eq!(sent[0].0, "lib/url.c", "{sent:?}");
    assert!(sent[0].1.contains("defines parse_port"), "{:?}", sent[0].1);
    let ctx = context_env(
        &repo,
        "applyDiscount ignores the rate",
        &[("PAPAYU_CONTEXT_MAX_FILES", "0")],
    );
    let map = map(&ctx);
    assert!(
        map.contains("InvoiceService.java\n  public class InvoiceService\n")
            && map.contains("\n    public Invoice applyDiscount(Invoice invoice, double rate)\n"),
        "{map}"
    );
}

#[test]
fn a_ranked_file_among_hundreds_of_siblings_is_listed_in_the_map() {
    let mut owned: Vec<(String, String)> = (0..45)
        .map(|i| {
            let text =
                "def evict(widget_cache):\n    # widget cache eviction\n    return widget_cache\n"
                    .repeat(3);
            (format!("core/c{i:02}.py"), text)
        })
        .collect();
    owned.extend((0..300).map(|i| (format!("pkg/item_{i:03}.py"), format!("X = {i}\n"))));
    owned.push((
        "pkg/aaa_widget.py".into(),
        "def widget_cache():\n    pass\n".into(),
    ));
    owned.push(("pkg/zz_store.py".into(), "# eviction\nSTORE = {}\n".into()));
    let files_: Vec<(&str, &str)> = owned
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let repo = TestRepo::with_files(&files_);
    let ctx = context_env(
        &repo,
        "widget cache eviction drops entries",
        &[
            ("PAPAYU_CONTEXT_MAX_FILES", "0"),
            ("PAPAYU_CONTEXT_MAP_CHARS", "20000"),
        ],
    );
    let map = map(&ctx);
    let line = map
        .lines()
        .find(|l| l.starts_with("pkg/ "))
        .unwrap_or_else(|| panic!("{map}"));
    assert!(
        line.contains("aaa_widget.py") && line.contains("zz_store.py"),
        "{line}"
    );
    assert!(line.contains("(+"), "the directory is cut: {line}");
}

#[test]
fn a_long_file_shows_the_whole_function_the_goal_names_and_says_why() {
    let mut text = String::from("#include \"url.h\"\n\n");
    for i in 0..300 {
        text.push_str(&format!(
            "static int helper_{i}(int x)\n{{\n    return x + {i};\n}}\n\n"
        ));
    }
    text.push_str("int\nurl_parse(const char *url, struct url *out)\n{\n");
    for i in 0..110 {
        if i == 90 {
            text.push_str(
                "    if (out->port == 0)\n        return fail(\"Invalid port number\");\n",
            );
        }
        text.push_str(&format!("    step_{i}(out);\n"));
    }
    text.push_str("    return 0;\n}\n\n");
    for i in 300..600 {
        text.push_str(&format!(
            "static int helper_{i}(int x)\n{{\n    return x - {i};\n}}\n\n"
        ));
    }
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with("url_parse("))
        .unwrap() as u64
        + 1;
    let end = start
        + lines[start as usize..]
            .iter()
            .position(|l| *l == "}")
            .unwrap() as u64
        + 1;
    let repo = repo_with(&[("src/net/url.c", text.as_str())], 40);
    let goal = "url_parse fails with \"Invalid port number\" for a valid URL";
    let env = [("PAPAYU_CONTEXT_MAX_FILES", "1")];
    let ctx = context_env(&repo, goal, &env);
    let sent = files(&ctx);
    let (title, source, ranges) = &sent[0];
    assert_eq!(title, "src/net/url.c", "{sent:?}");
    assert!(
        ranges.iter().any(|&(a, b)| a <= start && end <= b),
        "the whole of url_parse ({start}-{end}): {ranges:?}"
    );
    assert!(
        source.contains("kept ") && source.contains("defines url_parse"),
        "{source}"
    );
    let out = repo.papayu_env(["context", goal], &env).ok();
    let line = out
        .stderr
        .lines()
        .find(|l| l.contains("src/net/url.c"))
        .unwrap_or_else(|| panic!("{}", out.stderr));
    assert!(line.contains("kept "), "{line}");
}

#[test]
fn a_two_file_fix_in_c_finds_the_header_of_the_source() {
    let source = "#include \"url.h\"\n\nint url_set_port(struct url *u, int port)\n{\n    if (port < 1)\n        return fail(\"Invalid port number\");\n    u->port = port;\n    return 0;\n}\n";
    let header = "#ifndef URL_H\n#define URL_H\n\nstruct url {\n    char *host;\n    int port;\n};\n\n#endif\n";
    let repo = repo_with(&[("src/url.c", source), ("include/url.h", header)], 40);
    let ctx = context_env(
        &repo,
        "Setting a port fails with \"Invalid port number\" for valid ports",
        &[("PAPAYU_CONTEXT_MAX_FILES", "2")],
    );
    let sent = files(&ctx);
    assert_eq!(sent[0].0, "src/url.c", "{sent:?}");
    let header = sent
        .iter()
        .find(|f| f.0 == "include/url.h")
        .unwrap_or_else(|| panic!("the header is sent: {sent:?}"));
    assert!(header.1.contains("header of src/url.c"), "{}", header.1);
}

#[test]
fn a_two_file_fix_in_go_finds_the_function_the_top_file_calls() {
    let cart = "package cart\n\nimport \"fmt\"\n\n// Checkout charges the cart.\nfunc (c *Cart) Checkout() error {\n\tif err := applyDiscounts(c.items); err != nil {\n\t\treturn fmt.Errorf(\"checkout failed: %w\", err)\n\t}\n\treturn nil\n}\n";
    let discounts = "package cart\n\nfunc applyDiscounts(items []Item) error {\n\tfor range items {\n\t}\n\treturn nil\n}\n";
    let repo = repo_with(
        &[
            ("go.mod", "module example.com/shop\n"),
            ("pkg/cart/cart.go", cart),
            ("pkg/cart/discounts.go", discounts),
            ("pkg/cart/items.go", "package cart\n\ntype Item struct{}\n"),
        ],
        40,
    );
    let ctx = context_env(
        &repo,
        "Checkout fails with \"checkout failed\" when a cart has no items",
        &[("PAPAYU_CONTEXT_MAX_FILES", "2")],
    );
    let sent = files(&ctx);
    assert_eq!(sent[0].0, "pkg/cart/cart.go", "{sent:?}");
    let callee = sent
        .iter()
        .find(|f| f.0 == "pkg/cart/discounts.go")
        .unwrap_or_else(|| panic!("the callee's file is sent: {sent:?}"));
    assert!(
        callee.1.contains("called by pkg/cart/cart.go"),
        "{}",
        callee.1
    );
}

/// A fix that spans two files where the second shares no word with the goal, is neither
/// imported nor called, and is found only because the two changed together before; a commit
/// after the base that would pair the first with a third file is never read.
#[test]
fn the_second_file_of_a_fix_is_found_by_what_changed_with_the_first_before() {
    let invoice = "def render_invoice(items):\n    return '\\n'.join(str(i) for i in items[:-1])\n";
    let repo = repo_with(
        &[
            ("billing/invoice.py", invoice),
            ("billing/columns.py", "WIDTHS = [12, 40, 8]\n"),
            ("billing/ledger.py", "ACCOUNTS = []\n"),
            (
                "notes/lines.txt",
                "the last line of the invoice is dropped\n",
            ),
        ],
        40,
    );
    for n in 0..3 {
        repo.write("billing/invoice.py", &format!("{invoice}# {n}\n"));
        repo.write("billing/columns.py", &format!("WIDTHS = [12, 40, {n}]\n"));
        repo.commit_all("widen the invoice");
        repo.write(&format!("pkg/util{n:02}.py"), &format!("X = {n}\n"));
        repo.commit_all("a helper");
    }
    let base = repo.rev("HEAD");
    for n in 0..5 {
        repo.write("billing/invoice.py", &format!("{invoice}# later {n}\n"));
        repo.write("billing/ledger.py", &format!("ACCOUNTS = [{n}]\n"));
        repo.commit_all("after the base");
    }
    let goal = "`render_invoice` drops the last line of the invoice";
    let out = repo
        .papayu_env(
            ["context", goal, "--json", "--base", &base],
            &[("PAPAYU_CONTEXT_MAX_FILES", "3")],
        )
        .ok();
    let ctx: Value = serde_json::from_str(&out.stdout).expect("context --json is JSON");
    let sent = files(&ctx);
    let columns = sent.iter().find(|f| f.0 == "billing/columns.py");
    assert!(
        columns.is_some_and(|f| f
            .1
            .contains("changes with billing/invoice.py (3 of 3 commits)")),
        "{sent:?}"
    );
    assert!(
        !sent.iter().any(|f| f.0 == "billing/ledger.py"),
        "the history after the base is not read: {sent:?}"
    );
}

/// A single-header library of 600 kB is in the corpus, so the map lists its definitions too.
#[test]
fn the_map_lists_the_definitions_of_a_large_header() {
    let padding = "// the parser keeps its state between calls\n".repeat(14_000);
    let big = format!(
        "#pragma once\n{padding}namespace lib {{\nclass token_parser {{\n  int depth;\n}};\n}}\n"
    );
    assert!(big.len() > 600_000);
    let repo = repo_with(&[("include/lib/big.hpp", big.as_str())], 40);
    let ctx = context(&repo, "the token_parser loses its depth", None);
    let map = map(&ctx);
    assert!(
        map.contains("include/lib/big.hpp\n  ") && map.contains("token_parser"),
        "{map}"
    );
}

/// A header whose code a single-header build also holds: the fix changes both, so the lines of
/// the build that hold the code shown of the header are sent beside it, and say so.
#[test]
fn the_single_header_build_is_sent_with_the_header_it_holds() {
    let pointer: String = (0..400)
        .map(|i| {
            format!(
                "    inline int pointer_step_number_{i:04}(int value) {{ return value + {i}; }}\n"
            )
        })
        .collect();
    let pointer =
        format!("#pragma once\nnamespace lib {{\nint resolve_pointer(int depth);\n{pointer}}}\n");
    let other: String = (0..300)
        .map(|i| {
            format!(
                "    inline int parser_state_number_{i:04}(int value) {{ return value - {i}; }}\n"
            )
        })
        .collect();
    let single = format!("// amalgamated\n#pragma once\n{other}\n{pointer}");
    let repo = repo_with(
        &[
            ("include/lib/pointer.hpp", pointer.as_str()),
            ("include/lib/parser.hpp", other.as_str()),
            ("single_include/lib.hpp", single.as_str()),
        ],
        40,
    );
    let ctx = context_env(
        &repo,
        "`resolve_pointer` returns the wrong depth",
        &[("PAPAYU_CONTEXT_MAX_FILES", "2")],
    );
    let sent = files(&ctx);
    assert_eq!(sent[0].0, "include/lib/pointer.hpp", "{sent:?}");
    let copy = sent
        .iter()
        .find(|f| f.0 == "single_include/lib.hpp")
        .unwrap_or_else(|| panic!("the single header is sent: {sent:?}"));
    assert!(
        copy.1
            .starts_with("holds the code shown of include/lib/pointer.hpp; kept "),
        "{}",
        copy.1
    );
    // `resolve_pointer` is line 3 of the header and line 305 of the build.
    assert!(
        copy.2.iter().any(|&(a, b)| a <= 305 && 305 <= b),
        "{:?}",
        copy.2
    );
}

/// When many files share the goal's words, the map lists the definitions of more of them than
/// the eight blocks hold: a fix's second file ranked twentieth or thirtieth is still seen.
#[test]
fn the_map_lists_definitions_of_the_thirty_best_files_not_sent() {
    let owned: Vec<(String, String)> = (0..44)
        .map(|i| {
            (
                format!("pkg/rotate/r{i:02}.py"),
                format!("def rotate_{i}(path):\n    return path\n"),
            )
        })
        .collect();
    let rotate: Vec<(&str, &str)> = owned
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let repo = repo_with(&rotate, 40);
    let ctx = context(&repo, "rotate the log files", None);
    let map = map(&ctx);
    let listed = (0..44)
        .filter(|i| map.contains(&format!("pkg/rotate/r{i:02}.py\n  def rotate_{i}")))
        .count();
    let sent = files(&ctx).len();
    assert!(listed + sent >= 40, "{sent} sent, {listed} listed:\n{map}");
}

/// Two headers the goal is about, both held by one single-header build: the build's block
/// shows the lines holding each, not only the first's.
#[test]
fn the_single_header_build_shows_the_code_of_every_header_sent() {
    let header = |name: &str, n: usize| -> String {
        let body: String = (0..n)
            .map(|i| format!("    inline int {name}_step_number_{i:04}(int value) {{ return value + {i}; }}\n"))
            .collect();
        format!("#pragma once\nnamespace lib {{\nint {name}_entry(int depth);\n{body}}}\n")
    };
    let (pointer, parser, other) = (
        header("pointer", 120),
        header("parser", 120),
        header("other", 2200),
    );
    // Past 128 kB, the build ranks low as a very large header: only its parts point at it.
    let single = format!("// amalgamated\n#pragma once\n{pointer}{other}{parser}");
    let repo = repo_with(
        &[
            ("include/lib/pointer.hpp", pointer.as_str()),
            ("include/lib/parser.hpp", parser.as_str()),
            ("include/lib/other.hpp", other.as_str()),
            ("single_include/lib.hpp", single.as_str()),
        ],
        40,
    );
    let ctx = context_env(
        &repo,
        "`pointer_entry` and `parser_entry` return the wrong depth",
        &[("PAPAYU_CONTEXT_MAX_FILES", "3")],
    );
    let sent = files(&ctx);
    let copy = sent
        .iter()
        .find(|f| f.0 == "single_include/lib.hpp")
        .unwrap_or_else(|| panic!("the single header is sent: {sent:?}"));
    let line_of =
        |needle: &str| single.lines().position(|l| l.contains(needle)).unwrap_or(0) as u64 + 1;
    for entry in ["int pointer_entry", "int parser_entry"] {
        let line = line_of(entry);
        assert!(
            copy.2.iter().any(|&(a, b)| a <= line && line <= b),
            "{entry} at {line}: {copy:?}"
        );
    }
    assert!(
        copy.1.contains("include/lib/pointer.hpp") && copy.1.contains("include/lib/parser.hpp"),
        "{}",
        copy.1
    );
}
