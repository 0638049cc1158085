//! Finding the files and lines a goal or a log talks about: Python tracebacks and pytest
//! output, Rust panics, backtraces and cargo test failures, Node.js and Go stack traces, and
//! plain `path:line` mentions. Absolute paths from another checkout are mapped onto the
//! repository by their longest suffix that names a file in the tree.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

/// A place a text points at.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Mention {
    pub path: String,
    pub line: Option<u32>,
}

#[expect(
    clippy::expect_used,
    reason = "a regular expression written here, which the tests compile: it cannot fail"
)]
static PATTERNS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        // Python: File "/x/y.py", line 12, in f
        r#"File "(?P<path>[^"]+)", line (?P<line>\d+)"#,
        // Rust panic: panicked at src/lib.rs:10:5   /  backtrace: at ./src/main.rs:3:9
        r"(?:panicked at|at) '?(?P<path>[^\s:'()]+\.rs):(?P<line>\d+)(?::\d+)?",
        // Node: at fn (/x/y.js:10:5)  /  at /x/y.js:10:5
        r"\(?(?P<path>[^\s():]+\.(?:js|mjs|cjs|ts|tsx|jsx)):(?P<line>\d+):\d+\)?",
        // Go: \t/x/y.go:12 +0x1d   /   y_test.go:12: message
        r"(?P<path>[^\s:]+\.go):(?P<line>\d+)",
        // pytest and compilers: path.py:12: AssertionError  /  path.ext:12:3: error
        r"(?P<path>[A-Za-z0-9_./\\-]+\.[A-Za-z0-9]{1,5}):(?P<line>\d+)",
        // pytest: FAILED tests/test_x.py::test_y
        r"(?:FAILED|ERROR)\s+(?P<path>[^\s:]+\.py)::",
        // PHP: #0 /var/www/src/Handler/Curl.php(123): …  /  in /x/y.php on line 12
        r"(?P<path>[^\s(]+\.php)\((?P<line>\d+)\)",
        r"in (?P<path>[^\s]+\.php) on line (?P<line>\d+)",
        // .NET: at App.Parse() in C:\src\App\Parser.cs:line 42
        r"in (?P<path>[^\s]+\.(?:cs|fs|vb)):line (?P<line>\d+)",
    ]
    .iter()
    .map(|p| Regex::new(p).expect("static regex"))
    .collect()
});

#[expect(
    clippy::expect_used,
    reason = "a regular expression written here, which the tests compile: it cannot fail"
)]
static BARE_PATH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[A-Za-z0-9_.\-]*(?:/[A-Za-z0-9_.\-]+)*\.[A-Za-z0-9]{1,10}|[A-Za-z0-9_.\-]+/[A-Za-z0-9_.\-/]+")
        .expect("static regex")
});

#[expect(
    clippy::expect_used,
    reason = "a regular expression written here, which the tests compile: it cannot fail"
)]
static JVM_FRAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bat (?:[\w.$/]+/)?(?P<class>[A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)+)\.[\w$<>-]+\((?P<file>[\w$-]+\.(?:java|kt|scala|groovy|clj)):(?P<line>\d+)\)")
        .expect("static regex")
});

/// Stack frames read per text: the first ones, where the failure is.
const MAX_FRAMES: usize = 16;

/// A JVM stack frame's file in the tree: `at com.acme.billing.Invoice.total(Invoice.java:42)`
/// names `Invoice.java` by its name alone; its class's package says where it lives
/// (`…/com/acme/billing/Invoice.java`, found by that ending). A frame of a library is in no
/// file of the tree.
fn jvm_frame(
    caps: &regex::Captures<'_>,
    exists: &dyn Fn(&str) -> bool,
    ending: &dyn Fn(&str) -> Option<String>,
) -> Option<String> {
    let class = caps.name("class")?.as_str();
    let file = caps.name("file")?.as_str();
    let package = class.rsplit_once('.').map_or("", |(p, _)| p);
    let suffix = if package.is_empty() {
        file.to_string()
    } else {
        format!("{}/{file}", package.replace('.', "/"))
    };
    if exists(&suffix) {
        return Some(suffix);
    }
    ending(&suffix)
}

/// Every place `text` mentions that exists in the tree, deduplicated, in order of appearance.
/// `ending` finds the one file whose path ends with a given suffix (a JVM frame names its file
/// by its package, not its path).
pub fn mentions(
    text: &str,
    exists: &dyn Fn(&str) -> bool,
    ending: &dyn Fn(&str) -> Option<String>,
) -> Vec<Mention> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    let mut found = |path: String, caps: &regex::Captures<'_>| {
        let line = caps.name("line").and_then(|l| l.as_str().parse().ok());
        let mention = Mention { path, line };
        if seen.insert(mention.clone()) {
            out.push(mention);
        }
    };
    let mut frames = 0;
    for line in text.lines() {
        if let Some(caps) = JVM_FRAME.captures(line) {
            frames += 1;
            if frames <= MAX_FRAMES
                && let Some(path) = jvm_frame(&caps, exists, ending)
            {
                found(path, &caps);
            }
            continue;
        }
        for re in PATTERNS.iter() {
            for caps in re.captures_iter(line) {
                if let Some(path) = caps.name("path").and_then(|p| map_path(p.as_str(), exists)) {
                    found(path, &caps);
                }
            }
        }
    }
    out
}

/// Paths named anywhere in free text (a goal), without line numbers.
pub fn named_paths(text: &str, exists: &dyn Fn(&str) -> bool) -> Vec<String> {
    let mut out = Vec::new();
    for m in BARE_PATH.find_iter(text) {
        let candidate = m.as_str().trim_end_matches(['.', '/']);
        if let Some(path) = map_path(candidate, exists)
            && !out.contains(&path)
        {
            out.push(path);
        }
    }
    out
}

/// Partial paths the goal writes (`fmt/fmt-c.h` for `include/fmt/fmt-c.h`): a directory and a
/// file name that are the end of exactly one path of the tree, as `ending` says (the one file
/// whose path ends with `/` and the text given, if exactly one does). Whole paths are
/// [`named_paths`].
pub fn partial_paths(text: &str, ending: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
    let mut out = Vec::new();
    for m in BARE_PATH.find_iter(text) {
        let candidate = m
            .as_str()
            .trim_end_matches(['.', '/'])
            .trim_start_matches("./");
        let (dir, name) = candidate.rsplit_once('/').unwrap_or(("", candidate));
        if dir.is_empty() || dir.starts_with('/') || !name.contains('.') {
            continue;
        }
        if let Some(path) = ending(candidate)
            && !out.contains(&path)
        {
            out.push(path);
        }
    }
    out
}

/// Maps a path from a log onto the tree: as given (without `./`), else its longest suffix that
/// is a file in the tree (`/home/ci/checkout/src/x.py` → `src/x.py`).
pub fn map_path(raw: &str, exists: &dyn Fn(&str) -> bool) -> Option<String> {
    let cleaned = raw.replace('\\', "/");
    let cleaned = cleaned.trim_start_matches("./");
    if cleaned.is_empty() {
        return None;
    }
    if !cleaned.starts_with('/') && exists(cleaned) {
        return Some(cleaned.to_string());
    }
    let parts: Vec<&str> = cleaned.split('/').filter(|p| !p.is_empty()).collect();
    (0..parts.len())
        .map(|i| parts[i..].join("/"))
        .find(|candidate| exists(candidate))
}

/// Whether a text reports a missing module or dependency (then the environment and the
/// manifests are worth sending).
pub fn mentions_missing_dependency(text: &str) -> bool {
    #[expect(
        clippy::expect_used,
        reason = "a regular expression written here, which the tests compile: it cannot fail"
    )]
    static MISSING: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)ImportError|ModuleNotFoundError|cannot find module|unresolved import|can't find crate|could not find `[^`]+` in|no required module provides package|cannot find package")
            .expect("static regex")
    });
    MISSING.is_match(text)
}

/// Names of failing tests a text reports: cargo test (`---- a::b::name stdout ----`,
/// `test a::b::name ... FAILED`), Go (`--- FAIL: TestName`), pytest section headers
/// (`____ test_name ____`), and `test_…` / `TestX…` words in a goal. Deduplicated, in order.
pub fn test_names(text: &str) -> Vec<String> {
    #[expect(
        clippy::expect_used,
        reason = "a regular expression written here, which the tests compile: it cannot fail"
    )]
    static NAMES: LazyLock<Vec<Regex>> = LazyLock::new(|| {
        [
            r"^---- (?:[A-Za-z0-9_]+::)*(?P<name>[A-Za-z0-9_]+) stdout ----",
            r"^test (?:[A-Za-z0-9_]+::)*(?P<name>[A-Za-z0-9_]+) \.\.\. FAILED",
            r"--- FAIL: (?P<name>Test[A-Za-z0-9_]*)",
            r"^_{3,} (?:[A-Za-z0-9_]+\.)?(?P<name>test_[A-Za-z0-9_]+)(?:\[[^\]]*\])? _{3,}",
            r"(?:^|[\s`'(])(?P<name>test_[A-Za-z0-9_]+|Test[A-Z][A-Za-z0-9_]*)\b",
        ]
        .iter()
        .map(|p| Regex::new(&format!("(?m){p}")).expect("static regex"))
        .collect()
    });
    let mut out: Vec<String> = Vec::new();
    for re in NAMES.iter() {
        for caps in re.captures_iter(text) {
            let name = caps["name"].to_string();
            if !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

/// The pattern that finds where test `name` is defined, for a search over the tree.
pub fn test_definition_pattern(name: &str) -> String {
    format!(
        r"^\s*(?:(?:pub\s+)?(?:async\s+)?fn|(?:async\s+)?def|func) {}\b",
        regex::escape(name)
    )
}

/// The file a test file tests, by the naming conventions of each ecosystem: `tests/test_x.py`
/// or `x_test.py` → `x.py`, `x_test.go` → `x.go`, `x.test.ts` / `x.spec.js` / `__tests__/x.js`
/// → `x.ts` / `x.js`, Rust `tests/x.rs` → `src/x.rs`. Among several candidates, the one
/// sharing the longest directory prefix with the test wins.
pub fn under_test(test: &str, files: &[&str]) -> Option<String> {
    let (dir, name) = test.rsplit_once('/').unwrap_or(("", test));
    let (stem, ext) = name.rsplit_once('.')?;
    let (base, same_dir_only) = match ext {
        "py" => (
            stem.strip_prefix("test_")
                .or_else(|| stem.strip_suffix("_test"))?,
            false,
        ),
        "go" => (stem.strip_suffix("_test")?, true),
        "js" | "jsx" | "ts" | "tsx" | "mjs" | "cjs" => {
            let base = stem
                .strip_suffix(".test")
                .or_else(|| stem.strip_suffix(".spec"))
                .or_else(|| dir.ends_with("__tests__").then_some(stem))?;
            (base, false)
        }
        "rs" if dir == "tests" || dir.ends_with("/tests") => (stem, false),
        _ => return None,
    };
    let script = ["js", "jsx", "ts", "tsx", "mjs", "cjs"];
    let wanted = |path: &str| -> bool {
        let (pdir, pname) = path.rsplit_once('/').unwrap_or(("", path));
        let Some((pstem, pext)) = pname.rsplit_once('.') else {
            return false;
        };
        let same_kind = pext == ext || (script.contains(&ext) && script.contains(&pext));
        let named = pstem == base || (ext == "rs" && pstem == "mod" && pdir.ends_with(base));
        path != test && same_kind && named && (!same_dir_only || pdir == dir)
    };
    let common = |path: &str| {
        path.split('/')
            .zip(test.split('/'))
            .take_while(|(a, b)| a == b)
            .count()
    };
    files
        .iter()
        .filter(|p| wanted(p))
        .max_by_key(|p| (common(p), std::cmp::Reverse(p.len())))
        .map(|p| p.to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn failing_test_names_from_each_runner() {
        let cargo = "running 3 tests\ntest stats::tests::mean_of_empty ... FAILED\n\nfailures:\n\n---- stats::tests::mean_of_empty stdout ----\nthread panicked\n";
        assert_eq!(test_names(cargo), ["mean_of_empty"]);
        let go =
            "=== RUN   TestParse\n--- FAIL: TestParse (0.00s)\n    parse_test.go:12: got 1\nFAIL\n";
        assert_eq!(test_names(go), ["TestParse"]);
        let pytest = "______________________ test_empty_mean ______________________\n\n    def test_empty_mean():\n";
        assert_eq!(test_names(pytest), ["test_empty_mean"]);
        assert_eq!(
            test_names("make test_mean_of_empty pass"),
            ["test_mean_of_empty"]
        );
        assert!(test_names("the tests fail, please test it").is_empty());
    }

    #[test]
    fn the_module_under_test_by_each_convention() {
        let files = [
            "src/stats.py",
            "tests/test_stats.py",
            "pkg/parse.go",
            "pkg/parse_test.go",
            "other/parse.go",
            "web/app.ts",
            "web/app.test.ts",
            "web/__tests__/util.js",
            "web/util.js",
            "src/mean.rs",
            "tests/mean.rs",
            "lib/stats_test.py",
        ];
        let under = |t: &str| under_test(t, &files);
        assert_eq!(
            under("tests/test_stats.py").as_deref(),
            Some("src/stats.py")
        );
        assert_eq!(under("lib/stats_test.py").as_deref(), Some("src/stats.py"));
        assert_eq!(under("pkg/parse_test.go").as_deref(), Some("pkg/parse.go"));
        assert_eq!(under("web/app.test.ts").as_deref(), Some("web/app.ts"));
        assert_eq!(
            under("web/__tests__/util.js").as_deref(),
            Some("web/util.js")
        );
        assert_eq!(under("tests/mean.rs").as_deref(), Some("src/mean.rs"));
        assert_eq!(under("src/stats.py"), None, "not a test file");
        let re = regex::Regex::new(&test_definition_pattern("test_x")).unwrap();
        assert!(re.is_match("def test_x():") && re.is_match("    async def test_x(self):"));
        assert!(re.is_match("fn test_x() {") && re.is_match("func test_x(t *testing.T) {"));
        assert!(!re.is_match("def test_xy():"));
    }

    use super::*;

    fn tree(paths: &'static [&'static str]) -> impl Fn(&str) -> bool {
        move |p: &str| paths.contains(&p)
    }

    fn none(_: &str) -> Option<String> {
        None
    }

    /// The one path of `paths` that ends with `/suffix`.
    fn ending(paths: &'static [&'static str]) -> impl Fn(&str) -> Option<String> {
        move |suffix: &str| {
            let tail = format!("/{suffix}");
            let found: Vec<&&str> = paths.iter().filter(|p| p.ends_with(&tail)).collect();
            (found.len() == 1).then(|| found[0].to_string())
        }
    }

    #[test]
    fn java_php_and_dotnet_stacks() {
        let java = "Exception in thread \"main\" com.google.gson.JsonSyntaxException: bad\n\tat com.google.gson.internal.bind.TypeAdapters$7.read(TypeAdapters.java:241)\n\tat java.base/java.util.ArrayList.forEach(ArrayList.java:1541)\n\tat com.google.gson.Gson.fromJson(Gson.java:1227)\n";
        let paths: &'static [&'static str] = &[
            "gson/src/main/java/com/google/gson/internal/bind/TypeAdapters.java",
            "gson/src/main/java/com/google/gson/Gson.java",
            "extras/src/main/java/com/google/gson/extras/Gson.java",
        ];
        let found = mentions(java, &|_| false, &ending(paths));
        assert_eq!(
            found,
            [
                Mention {
                    path: paths[0].into(),
                    line: Some(241)
                },
                Mention {
                    path: paths[1].into(),
                    line: Some(1227)
                },
            ]
        );
        // A tree whose sources sit at its top.
        let found = mentions(java, &tree(&["com/google/gson/Gson.java"]), &none);
        assert_eq!(found[0].path, "com/google/gson/Gson.java");
        let php = "PHP Fatal error:  Uncaught TypeError in /var/www/vendor/guzzlehttp/guzzle/src/Handler/CurlFactory.php:88\n#0 /var/www/app/src/Handler/CurlFactory.php(123): curl_setopt()\n";
        let found = mentions(php, &tree(&["src/Handler/CurlFactory.php"]), &none);
        assert!(found.contains(&Mention {
            path: "src/Handler/CurlFactory.php".into(),
            line: Some(123)
        }));
        let dotnet = "   at App.Parser.Parse(String s) in C:\\src\\App\\Parser.cs:line 42\n";
        let found = mentions(dotnet, &tree(&["src/App/Parser.cs"]), &none);
        assert_eq!(
            found,
            [Mention {
                path: "src/App/Parser.cs".into(),
                line: Some(42)
            }]
        );
    }

    #[test]
    fn python_traceback_from_another_checkout() {
        let log = "Traceback (most recent call last):\n  File \"/home/ci/work/repo/src/app/views.py\", line 42, in index\n    return render(x)\n  File \"/usr/lib/python3.11/json/__init__.py\", line 346, in loads\nValueError: bad\n";
        let found = mentions(log, &tree(&["src/app/views.py"]), &none);
        assert_eq!(
            found,
            [Mention {
                path: "src/app/views.py".into(),
                line: Some(42)
            }]
        );
    }

    #[test]
    fn rust_panic_and_backtrace() {
        let log = "thread 'main' panicked at src/parser.rs:88:14:\ncalled `Option::unwrap()` on a `None` value\nstack backtrace:\n   4: app::run\n             at ./src/main.rs:12:5\n";
        let found = mentions(log, &tree(&["src/parser.rs", "src/main.rs"]), &none);
        assert!(found.contains(&Mention {
            path: "src/parser.rs".into(),
            line: Some(88)
        }));
        assert!(found.contains(&Mention {
            path: "src/main.rs".into(),
            line: Some(12)
        }));
    }

    #[test]
    fn cargo_test_failure() {
        let log = "---- tests::parses_empty stdout ----\nthread 'tests::parses_empty' panicked at crates/core/src/lib.rs:120:9:\nassertion `left == right` failed\n";
        let found = mentions(log, &tree(&["crates/core/src/lib.rs"]), &none);
        assert_eq!(found[0].line, Some(120));
    }

    #[test]
    fn node_and_go_stacks() {
        let node = "TypeError: x is undefined\n    at parse (/srv/app/lib/parse.js:17:11)\n    at Object.<anonymous> (/srv/app/index.js:3:1)\n";
        let found = mentions(node, &tree(&["lib/parse.js", "index.js"]), &none);
        assert_eq!(found.len(), 2);
        assert_eq!(
            found[0],
            Mention {
                path: "lib/parse.js".into(),
                line: Some(17)
            }
        );
        let go = "panic: runtime error: index out of range\n\ngoroutine 1 [running]:\nmain.run(...)\n\t/home/u/go/src/example.com/app/cmd/run.go:27 +0x1d\n";
        let found = mentions(go, &tree(&["cmd/run.go"]), &none);
        assert_eq!(
            found[0],
            Mention {
                path: "cmd/run.go".into(),
                line: Some(27)
            }
        );
    }

    #[test]
    fn pytest_failures() {
        let log = "FAILED tests/test_stats.py::test_empty - ZeroDivisionError\ntests/test_stats.py:4: in test_empty\nsrc/stats.py:6: ZeroDivisionError\n";
        let found = mentions(log, &tree(&["tests/test_stats.py", "src/stats.py"]), &none);
        assert!(
            found
                .iter()
                .any(|m| m.path == "src/stats.py" && m.line == Some(6))
        );
        assert!(found.iter().any(|m| m.path == "tests/test_stats.py"));
    }

    #[test]
    fn goal_names_files() {
        let found = named_paths(
            "fix the bug in src/stats.py, see README.md.",
            &tree(&["src/stats.py", "README.md"]),
        );
        assert_eq!(found, ["src/stats.py", "README.md"]);
    }

    #[test]
    fn goal_names_the_end_of_a_path() {
        let files = ["include/fmt/fmt-c.h", "src/fmt.cc", "a/util.h", "b/util.h"];
        let ending = |suffix: &str| {
            let tail = format!("/{suffix}");
            let mut found = files.iter().filter(|f| f.ends_with(&tail));
            match (found.next(), found.next()) {
                (Some(f), None) => Some(f.to_string()),
                _ => None,
            }
        };
        let found = partial_paths(
            "Make fmt/fmt-c.h compile, and fmt.cc, and x/util.h or util.h",
            &ending,
        );
        assert_eq!(found, ["include/fmt/fmt-c.h"]);
    }

    #[test]
    fn missing_dependencies() {
        assert!(mentions_missing_dependency(
            "ModuleNotFoundError: No module named 'yaml'"
        ));
        assert!(mentions_missing_dependency(
            "Error: Cannot find module 'express'"
        ));
        assert!(!mentions_missing_dependency("AssertionError"));
    }
}
