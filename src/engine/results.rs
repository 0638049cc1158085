//! Per-test results read from what a check printed or wrote: the raw material of the
//! differential check (see [`crate::verdict`]).
//!
//! A check is any command, so nothing here asks which runner it was: every line is matched
//! against the summary lines of the runners people use — pytest (`-rA` and `-v`), `cargo test`
//! and nextest, `go test -v`, node's test runner (TAP and spec reporters), Jest, Vitest, Mocha,
//! Python's `unittest -v`, GoogleTest, CTest, Maven Surefire, `dotnet test`, XCTest, minitest,
//! PHPUnit's testdox — and a JUnit XML report, when the
//! user names one, is read after the check. A check that prints none of these has no per-test
//! results and is judged by its exit status alone. Pure: no process, no repository; output is
//! fed in chunks as it arrives, so the whole of a long run is read without being kept.

use std::sync::LazyLock;

use regex::Regex;

/// Each test seen, by name: `true` when it passed. A test reported twice (a retry, a summary
/// repeating the run) keeps its last result.
pub use crate::verdict::{Observed, Tests};

/// The longest line looked at; longer ones (minified output, a dumped blob) are skipped.
const MAX_LINE: usize = 4096;

/// The most tests remembered, so a runaway check cannot fill memory.
const MAX_TESTS: usize = 100_000;

/// Reads test results from output chunks.
#[derive(Debug, Default)]
pub struct Reader {
    partial: Vec<u8>,
    overlong: bool,
    tests: Tests,
    /// The first line that says the tests never ran (see [`not_run_line`]).
    not_run: Option<String>,
}

impl Reader {
    pub fn push(&mut self, chunk: &[u8]) {
        for piece in chunk.split_inclusive(|&b| b == b'\n') {
            let ends = piece.ends_with(b"\n");
            if !self.overlong {
                self.partial.extend_from_slice(piece);
                if self.partial.len() > MAX_LINE {
                    self.partial.clear();
                    self.overlong = true;
                }
            }
            if ends {
                if !self.overlong {
                    let line = String::from_utf8_lossy(&self.partial).into_owned();
                    self.line(&line);
                }
                self.partial.clear();
                self.overlong = false;
            }
        }
    }

    /// The results read, the last line included even without its newline.
    pub fn finish(self) -> Tests {
        self.observed().tests
    }

    /// The results read and, when the output said so, why the tests never ran.
    pub fn observed(mut self) -> Observed {
        if !self.overlong && !self.partial.is_empty() {
            let line = String::from_utf8_lossy(&self.partial).into_owned();
            self.line(&line);
        }
        Observed {
            tests: self.tests,
            not_run: self.not_run,
        }
    }

    fn line(&mut self, raw: &str) {
        if self.not_run.is_none() {
            self.not_run = not_run_line(raw);
        }
        if let Some((name, passed)) = parse_line(raw)
            && (self.tests.len() < MAX_TESTS || self.tests.contains_key(&name))
        {
            self.tests.insert(name, passed);
        }
    }
}

/// Results read from a whole output at once.
pub fn from_output(output: &[u8]) -> Tests {
    let mut reader = Reader::default();
    reader.push(output);
    reader.finish()
}

#[expect(
    clippy::expect_used,
    reason = "a regex literal: it compiles, as the tests show"
)]
static ANSI: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\x1b\[[0-9;?]*[A-Za-z]").expect("valid regex"));

/// `cargo test`: `test path::name ... ok`.
#[expect(
    clippy::expect_used,
    reason = "a regex literal: it compiles, as the tests show"
)]
static CARGO: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^test (\S.*?) \.\.\. (ok|FAILED)(?:\s|$)").expect("valid regex"));
/// pytest `-rA` short summary: `PASSED tests/t.py::test_x`, `FAILED tests/t.py::test_y - …`.
#[expect(
    clippy::expect_used,
    reason = "a regex literal: it compiles, as the tests show"
)]
static PYTEST_SUMMARY: LazyLock<Regex> = LazyLock::new(|| {
    // A parametrized id may hold spaces inside its brackets: `test_s[x y]`.
    Regex::new(r"^(PASSED|FAILED|ERROR|XFAIL|XPASS) (\S+::[^\s\[]+(?:\[.*?\])?)(?: - .*)?$")
        .expect("valid regex")
});
/// pytest `-v`: `tests/t.py::test_x PASSED   [ 50%]`.
#[expect(
    clippy::expect_used,
    reason = "a regex literal: it compiles, as the tests show"
)]
static PYTEST_VERBOSE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\S+::[^\s\[]+(?:\[.*?\])?) (PASSED|FAILED|ERROR|XFAIL|XPASS)(?:\s|$)")
        .expect("valid regex")
});
/// Python's `unittest -v`: `test_x (pkg.mod.Case.test_x) ... ok` (before 3.11 without the
/// method in the parentheses).
#[expect(
    clippy::expect_used,
    reason = "a regex literal: it compiles, as the tests show"
)]
static UNITTEST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\w+) \(([\w.]+)\) \.\.\. (ok|FAIL|ERROR|expected failure|unexpected success)$")
        .expect("valid regex")
});
/// `go test -v`: `--- PASS: TestX (0.00s)`, indented for subtests.
#[expect(
    clippy::expect_used,
    reason = "a regex literal: it compiles, as the tests show"
)]
static GO: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*--- (PASS|FAIL): (\S+)").expect("valid regex"));
/// TAP, node's default when not on a terminal: `ok 1 - name`, `not ok 2 - name # SKIP`.
#[expect(
    clippy::expect_used,
    reason = "a regex literal: it compiles, as the tests show"
)]
static TAP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(ok|not ok) \d+ - (.+?)(\s+#\s*(?i:skip|todo)\b.*)?$").expect("valid regex")
});
/// A check mark and a name, as spec-style reporters print them, with the time left out of the
/// name: node's test runner (`✔ name (1.2ms)`, `✖ name`), Jest (`✓ name (3 ms)`, `✕ name`),
/// Vitest (`✓ file > name 2ms`, `× name`), Mocha (`✓ name`), PHPUnit's testdox (`✔ Name`,
/// `✘ Name`).
#[expect(
    clippy::expect_used,
    reason = "a regex literal: it compiles, as the tests show"
)]
static SPEC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*([✔✓✖✕×✘]) (.+?)(?: \([\d.]+ ?m?s\)| [\d.]+ ?m?s)?$").expect("valid regex")
});

/// A runner's line: the pattern, and what its captures say (`None`: no result, a skip).
type Runner = (Regex, fn(&regex::Captures<'_>) -> Option<(String, bool)>);

/// The runners of compiled languages and other ecosystems, tried after the ones above.
#[expect(
    clippy::expect_used,
    reason = "regex literals: they compile, as the tests show"
)]
static MORE: LazyLock<Vec<Runner>> = LazyLock::new(|| {
    let runner = |pattern: &str, read: fn(&regex::Captures<'_>) -> Option<(String, bool)>| {
        (Regex::new(pattern).expect("valid regex"), read)
    };
    vec![
        // GoogleTest: `[       OK ] Suite.Name (0 ms)`, `[  FAILED  ] Inst/Suite.Name/0, where
        // GetParam() = 4 (1 ms)`; its summary (`[  FAILED  ] 1 test, listed below:`) names none.
        runner(
            r"^\[\s*(OK|FAILED)\s*\] ([^\s,]+\.[^\s,]+)(?:, where .*?)?(?: \(\d+ ms\))?$",
            |c| Some((c[2].to_string(), &c[1] == "OK")),
        ),
        // CTest: ` 1/3 Test #1: unit_a ......   Passed    0.01 sec`, `***Failed`,
        // `***Exception: SegFault`, `***Timeout` (`***Not Run` is no result).
        runner(
            r"^\s*\d+/\d+ Test\s+#\d+: (\S+) \.*\s*(?:\*\*\*)?(Passed|Failed|Exception|Timeout)\b",
            |c| Some((c[1].to_string(), &c[2] == "Passed")),
        ),
        // Maven Surefire, one line per test class: `Tests run: 3, Failures: 1, Errors: 0,
        // Skipped: 0, Time elapsed: 0.05 s <<< FAILURE! -- in com.example.FooTest`.
        runner(
            r"^(?:\[\w+\]\s+)?Tests run: \d+, Failures: (\d+), Errors: (\d+), Skipped: \d+, Time elapsed: .*? -+ in (\S+)$",
            |c| Some((c[3].to_string(), &c[1] == "0" && &c[2] == "0")),
        ),
        // cargo nextest: `PASS [   0.004s] (3/9) crate::bin module::test`, `TRY 2 FAIL [ … ]`.
        runner(
            r"^\s*(?:TRY \d+ )?(PASS|FAIL|SIGSEGV|SIGABRT|SIGBUS|TIMEOUT|ABORT) \[\s*[\d.]+s\] (?:\(\s*\d+/\d+\) )?(\S.*)$",
            |c| Some((c[2].trim().to_string(), &c[1] == "PASS")),
        ),
        // dotnet test: `  Passed Ns.Class.Method [2 ms]`, `  Failed Ns.Class.Method(x: 1) [< 1 ms]`.
        runner(r"^\s*(Passed|Failed) (\S.*?) \[<? ?[\d.]+ m?s\]$", |c| {
            Some((c[2].to_string(), &c[1] == "Passed"))
        }),
        // XCTest: `Test Case 'FooTests.testBar' passed (0.001 seconds).`
        runner(
            r"^Test Case '(.+?)' (passed|failed) \([\d.]+ seconds\)\.?$",
            |c| Some((c[1].to_string(), &c[2] == "passed")),
        ),
        // Ruby's minitest with `-v`: `FooTest#test_bar = 0.00 s = .` (`F`, `E`; `S` skipped).
        runner(r"^(\S+#\S+) = [\d.]+ s = ([.FES])$", |c| match &c[2] {
            "S" => None,
            mark => Some((c[1].to_string(), mark == ".")),
        }),
    ]
});

/// Lines by which the runners people use say that the tests never ran: pytest's collection
/// errors (`ERROR tests/t.py - SyntaxError`, no `::` test id; `Interrupted: 1 error during
/// collection`; `no tests ran`), a test module unittest could not import (its stand-in
/// `unittest.loader._FailedTest`), a build that failed (`error: could not compile`, go's `[build
/// failed]` and `[setup failed]`, jest's `Test suite failed to run`, maven's `COMPILATION
/// ERROR`, gradle's `Compilation failed`, dotnet's `Build FAILED.`, a C, C++ or Java compiler's
/// `file.c:3:5: error:`, TypeScript's `file.ts(3,5): error TS2322:`, PHP's parse and fatal
/// errors), CTest's `No tests were found!!!`, and a shell that did not find the command.
#[expect(
    clippy::expect_used,
    reason = "a regex literal: it compiles, as the tests show"
)]
static NOT_RUN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(?:ERROR [^\s:]+(?: - .*)?$",
        r"|_+ ERROR collecting ",
        r"|!* ?Interrupted: \d+ errors? during collection",
        r"|=+ no tests ran",
        r"|ImportError while importing test module",
        r"|\w+ \(unittest\.loader\.(?:_FailedTest|ModuleImportFailure)",
        r"|ERROR: \w+ \(unittest\.loader\._FailedTest",
        r"|error: could not compile ",
        r"|FAIL\s+\S+\s+\[(?:build|setup) failed\]",
        r"|\s*● Test suite failed to run",
        r"|\[ERROR\] COMPILATION ERROR",
        r"|Compilation failed; see the compiler error output",
        r"|Build FAILED\.$",
        r"|No tests were found!!!",
        r"|PHP (?:Parse|Fatal) error: ",
        r"|\S+\.(?:c|cc|cpp|cxx|h|hpp|java):\d+:(?:\d+:)? (?:fatal )?error: ",
        r"|\S+\.tsx?\(\d+,\d+\): error TS\d+: ",
        r"|(?:sh|bash|dash): (?:\d+: )?.*(?:not found|No such file or directory)$)",
    ))
    .expect("valid regex")
});

/// The line, cleaned and cut to 200 characters, when it says the tests never ran.
pub fn not_run_line(raw: &str) -> Option<String> {
    let cleaned = ANSI.replace_all(raw, "");
    let line = cleaned.trim_end_matches(['\n', '\r']);
    if !NOT_RUN.is_match(line) {
        return None;
    }
    let mut shown: String = line.trim().chars().take(200).collect();
    if shown.len() < line.trim().len() {
        shown.push('…');
    }
    Some(shown)
}

/// The test a line reports and whether it passed, if it reports one.
pub fn parse_line(raw: &str) -> Option<(String, bool)> {
    let cleaned = ANSI.replace_all(raw, "");
    let line = cleaned.trim_end_matches(['\n', '\r']);
    if let Some(c) = CARGO.captures(line) {
        return Some((c[1].to_string(), &c[2] == "ok"));
    }
    if let Some(c) = PYTEST_SUMMARY.captures(line) {
        return Some((c[2].to_string(), pytest_passed(&c[1])));
    }
    if let Some(c) = PYTEST_VERBOSE.captures(line) {
        return Some((c[1].to_string(), pytest_passed(&c[2])));
    }
    if let Some(c) = UNITTEST.captures(line) {
        let (method, place) = (&c[1], &c[2]);
        // unittest's stand-in for a module it could not import is no test.
        if place.starts_with("unittest.loader.") {
            return None;
        }
        let name = match place.ends_with(&format!(".{method}")) {
            true => place.to_string(),
            false => format!("{place}.{method}"),
        };
        return Some((name, matches!(&c[3], "ok" | "expected failure")));
    }
    if let Some(c) = GO.captures(line) {
        return Some((c[2].to_string(), &c[1] == "PASS"));
    }
    if let Some(c) = TAP.captures(line) {
        if c.get(3).is_some() {
            return None;
        }
        return Some((c[2].trim().to_string(), &c[1] == "ok"));
    }
    if let Some(c) = SPEC.captures(line) {
        return Some((c[2].trim().to_string(), matches!(&c[1], "✔" | "✓")));
    }
    MORE.iter()
        .find_map(|(pattern, read)| pattern.captures(line).map(|c| read(&c)))
        .flatten()
}

/// An expected failure (`XFAIL`) is a pass, as pytest's exit status counts it.
fn pytest_passed(outcome: &str) -> bool {
    matches!(outcome, "PASSED" | "XFAIL" | "XPASS")
}

/// The test cases of a JUnit XML report: `classname::name` (or `name`), failed when the case
/// holds a `<failure>` or an `<error>`; skipped cases are left out.
pub fn from_junit(xml: &str) -> Tests {
    let mut tests = Tests::new();
    let mut rest = xml;
    while let Some(start) = rest.find("<testcase") {
        rest = &rest[start + "<testcase".len()..];
        if !rest.starts_with(|c: char| c.is_whitespace() || c == '>' || c == '/') {
            continue;
        }
        let Some(tag_end) = rest.find('>') else {
            break;
        };
        let tag = &rest[..tag_end];
        let (body, after) = match tag.ends_with('/') {
            true => ("", &rest[tag_end + 1..]),
            false => {
                let inner = &rest[tag_end + 1..];
                match inner.find("</testcase") {
                    Some(close) => (&inner[..close], &inner[close..]),
                    None => (inner, ""),
                }
            }
        };
        rest = after;
        let Some(name) = attribute(tag, "name") else {
            continue;
        };
        if body.contains("<skipped") {
            continue;
        }
        let full = match attribute(tag, "classname").filter(|c| !c.is_empty()) {
            Some(class) => format!("{class}::{name}"),
            None => name,
        };
        if tests.len() < MAX_TESTS {
            tests.insert(
                full,
                !(body.contains("<failure") || body.contains("<error")),
            );
        }
    }
    tests
}

/// The value of `name="…"` (or `'…'`) in a tag, entities decoded.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let mut at = 0;
    while let Some(found) = tag[at..].find(name) {
        let i = at + found;
        at = i + name.len();
        let before_ok = i == 0 || tag[..i].ends_with(char::is_whitespace);
        let rest = tag[at..].trim_start();
        let Some(rest) = rest.strip_prefix('=').map(str::trim_start) else {
            continue;
        };
        if !before_ok {
            continue;
        }
        let quote = rest.chars().next()?;
        if quote != '"' && quote != '\'' {
            return None;
        }
        let value = &rest[1..];
        let end = value.find(quote)?;
        return Some(unescape(&value[..end]));
    }
    None
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<(String, bool)> {
        from_output(text.as_bytes()).into_iter().collect()
    }

    #[test]
    fn pytest_short_summary_and_verbose_lines() {
        let out = "============ short test summary info ============\n\
                   PASSED tests/test_a.py::test_ok\n\
                   FAILED tests/test_a.py::test_bad - AssertionError: assert 1 == 2\n\
                   ERROR tests/test_b.py::test_setup - fixture 'db' not found\n\
                   SKIPPED [1] tests/test_c.py:3: no network\n\
                   tests/test_c.py::test_v PASSED                        [100%]\n\
                   ========= 1 failed, 2 passed in 0.03s =========\n";
        assert_eq!(
            read(out),
            vec![
                ("tests/test_a.py::test_bad".into(), false),
                ("tests/test_a.py::test_ok".into(), true),
                ("tests/test_b.py::test_setup".into(), false),
                ("tests/test_c.py::test_v".into(), true),
            ]
        );
    }

    #[test]
    fn pytest_ids_with_spaces_in_their_parameters() {
        let out = "FAILED tests/test_d.py::test_s[x y] - AssertionError: assert 'x y' != 'x y'\n\
                   PASSED tests/test_d.py::test_s[z]\n\
                   tests/test_d.py::test_t[a - b] PASSED                  [100%]\n";
        assert_eq!(
            read(out),
            vec![
                ("tests/test_d.py::test_s[x y]".into(), false),
                ("tests/test_d.py::test_s[z]".into(), true),
                ("tests/test_d.py::test_t[a - b]".into(), true),
            ]
        );
    }

    #[test]
    fn cargo_test_lines() {
        let out = "running 3 tests\ntest a::one ... ok\ntest a::two ... FAILED\n\
                   test a::three ... ignored\ntest a::four - should panic ... ok\n\
                   test result: FAILED. 2 passed; 1 failed\n";
        assert_eq!(
            read(out),
            vec![
                ("a::four - should panic".into(), true),
                ("a::one".into(), true),
                ("a::two".into(), false),
            ]
        );
    }

    #[test]
    fn go_and_node_lines() {
        let out = "=== RUN   TestA\n--- PASS: TestA (0.00s)\n    --- FAIL: TestA/sub (0.01s)\n\
                   ok 1 - adds numbers\nnot ok 2 - divides # Todo later\nnot ok 3 - subtracts\n\
                   ok 4 - rounds # SKIP no floats here\n\
                   \u{1b}[32m✔ spec passes (1.2ms)\u{1b}[39m\n✖ spec fails (0.4ms)\n";
        assert_eq!(
            read(out),
            vec![
                ("TestA".into(), true),
                ("TestA/sub".into(), false),
                ("adds numbers".into(), true),
                ("spec fails".into(), false),
                ("spec passes".into(), true),
                ("subtracts".into(), false),
            ]
        );
    }

    #[test]
    fn jest_vitest_mocha_and_testdox_lines_leave_the_time_out_of_the_name() {
        let out = "  ✓ adds numbers (3 ms)\n  ✕ divides by zero (12 ms)\n\
                   ✓ src/sum.test.ts > sum > carries 2ms\n × src/sum.test.ts > sum > overflows 1ms\n\
                   ✓ mocha passes\n ✘ Testdox fails\n ✔ Testdox passes\n";
        assert_eq!(
            read(out),
            vec![
                ("Testdox fails".into(), false),
                ("Testdox passes".into(), true),
                ("adds numbers".into(), true),
                ("divides by zero".into(), false),
                ("mocha passes".into(), true),
                ("src/sum.test.ts > sum > carries".into(), true),
                ("src/sum.test.ts > sum > overflows".into(), false),
            ]
        );
    }

    #[test]
    fn googletest_ctest_surefire_nextest_dotnet_xctest_and_minitest_lines() {
        let out = "[ RUN      ] Parse.Empty\n[       OK ] Parse.Empty (0 ms)\n\
                   [  FAILED  ] Inst/Parse.Width/1, where GetParam() = 4 (1 ms)\n\
                   [  FAILED  ] 1 test, listed below:\n[  FAILED  ] Inst/Parse.Width/1, where GetParam() = 4\n\
                   [  PASSED  ] 1 test.\n\
                   1/3 Test #1: unit_a ...........................   Passed    0.01 sec\n\
                   2/3 Test #2: unit_b ...........................***Failed    0.02 sec\n\
                   3/3 Test #3: unit_c ...........................***Not Run   0.00 sec\n\
                   [INFO] Tests run: 2, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.1 s -- in com.x.OkTest\n\
                   [ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.05 s <<< FAILURE! - in com.x.BadTest\n\
                   [ERROR] Tests run: 5, Failures: 1, Errors: 0, Skipped: 0\n\
                   PASS [   0.004s] (1/2) tool::bin cli::parses\n\
                   TRY 2 FAIL [   0.010s] tool lib::flaky\n\
                   \u{20}\u{20}Passed Ns.CalcTests.Adds [2 ms]\n  Failed Ns.CalcTests.Divides(x: 0) [< 1 ms]\n\
                   Test Case 'CalcTests.testAdd' passed (0.001 seconds).\n\
                   Test Case '-[CalcTests.CalcTests testDiv]' failed (0.002 seconds).\n\
                   CalcTest#test_add = 0.00 s = .\nCalcTest#test_div = 0.01 s = F\nCalcTest#test_later = 0.00 s = S\n";
        assert_eq!(
            read(out),
            vec![
                ("-[CalcTests.CalcTests testDiv]".into(), false),
                ("CalcTest#test_add".into(), true),
                ("CalcTest#test_div".into(), false),
                ("CalcTests.testAdd".into(), true),
                ("Inst/Parse.Width/1".into(), false),
                ("Ns.CalcTests.Adds".into(), true),
                ("Ns.CalcTests.Divides(x: 0)".into(), false),
                ("Parse.Empty".into(), true),
                ("com.x.BadTest".into(), false),
                ("com.x.OkTest".into(), true),
                ("tool lib::flaky".into(), false),
                ("tool::bin cli::parses".into(), true),
                ("unit_a".into(), true),
                ("unit_b".into(), false),
            ]
        );
    }

    #[test]
    fn python_unittest_lines() {
        let out = "test_add (test_calc.CalcTest.test_add) ... ok\n\
                   test_div (test_calc.CalcTest) ... FAIL\n\
                   test_mod (test_calc.CalcTest.test_mod) ... ERROR\n\
                   test_skip (test_calc.CalcTest.test_skip) ... skipped 'later'\n";
        assert_eq!(
            read(out),
            vec![
                ("test_calc.CalcTest.test_add".into(), true),
                ("test_calc.CalcTest.test_div".into(), false),
                ("test_calc.CalcTest.test_mod".into(), false),
            ]
        );
    }

    #[test]
    fn chunks_split_anywhere_read_the_same() {
        let out = "test x ... ok\ntest y ... FAILED\nPASSED t.py::z";
        let whole = from_output(out.as_bytes());
        for cut in 0..out.len() {
            let mut r = Reader::default();
            r.push(&out.as_bytes()[..cut]);
            r.push(&out.as_bytes()[cut..]);
            assert_eq!(r.finish(), whole, "cut at {cut}");
        }
        assert_eq!(whole.len(), 3);
    }

    #[test]
    fn other_output_reports_nothing() {
        assert!(read("make: *** [all] Error 1\nok\nPASSED\ntest: 3 failed\n").is_empty());
        // Summaries and progress of the runners read above name no test.
        let summaries = "[  PASSED  ] 3 tests.\n[  FAILED  ] 2 tests, listed below:\n[ 50%] Building CXX object a.o\n\
                         Tests run: 5, Failures: 1, Errors: 0, Skipped: 0\n\
                         100% tests passed, 0 tests failed out of 3\n Test Files  1 failed | 1 passed (2)\n\
                         Failed!  - Failed:     1, Passed:     2, Skipped:     0, Total:     3\n";
        assert!(read(summaries).is_empty(), "{:?}", read(summaries));
    }

    #[test]
    fn junit_cases_failures_errors_and_skips() {
        let xml = r#"<?xml version="1.0"?>
<testsuites><testsuite name="s" tests="4">
  <testcase classname="pkg.Mod" name="test_ok" time="0.1"/>
  <testcase classname="pkg.Mod" name="test_bad"><failure message="x &lt; y">trace</failure></testcase>
  <testcase name="err &amp; co"><error type="E"/></testcase>
  <testcase classname="pkg.Mod" name="skipped"><skipped/></testcase>
  <testcase classname='q' name='single'>
  </testcase>
</testsuite></testsuites>"#;
        let tests: Vec<(String, bool)> = from_junit(xml).into_iter().collect();
        assert_eq!(
            tests,
            vec![
                ("err & co".into(), false),
                ("pkg.Mod::test_bad".into(), false),
                ("pkg.Mod::test_ok".into(), true),
                ("q::single".into(), true),
            ]
        );
        assert!(from_junit("<testcases/><testcase").is_empty());
    }

    #[test]
    fn lines_that_say_the_tests_never_ran() {
        for line in [
            "ERROR tests/test_calc.py - SyntaxError: invalid syntax",
            "ERROR test_calc.py",
            "_____________ ERROR collecting tests/test_calc.py _____________",
            "!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!",
            "============================ no tests ran in 0.01s =============================",
            "ImportError while importing test module '/w/tests/test_calc.py'.",
            "ERROR: test_calc (unittest.loader._FailedTest.test_calc)",
            "test_calc (unittest.loader._FailedTest.test_calc) ... ERROR",
            "error: could not compile `calc` (lib test) due to 1 previous error",
            "FAIL\texample.com/calc [build failed]",
            "FAIL\texample.com/calc [setup failed]",
            "  \u{25cf} Test suite failed to run",
            "[ERROR] COMPILATION ERROR : ",
            "sh: 1: pytest: not found",
            "bash: pytest: command not found",
            "Compilation failed; see the compiler error output for details.",
            "Build FAILED.",
            "No tests were found!!!",
            "PHP Parse error:  syntax error, unexpected '}' in /w/src/Calc.php on line 9",
            "src/calc.c:12:5: error: expected ';' before 'return'",
            "include/fmt/base.h:40:1: fatal error: missing.h: No such file or directory",
            "src/main/java/x/Calc.java:7: error: ';' expected",
            "src/calc.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.",
        ] {
            assert!(not_run_line(line).is_some(), "{line}");
        }
        for line in [
            "ERROR tests/test_calc.py::test_add - AssertionError",
            "FAILED tests/test_calc.py::test_add",
            "test_add (calc.Case.test_add) ... ERROR",
            "error[E0308]: mismatched types",
            "FAIL\texample.com/calc\t0.01s",
            "src/calc.c:12:5: warning: unused variable 'x'",
            "Build succeeded.",
        ] {
            assert_eq!(not_run_line(line), None, "{line}");
        }
        let mut reader = Reader::default();
        reader.push(b"test_calc (unittest.loader._FailedTest.test_calc) ... ERROR\n");
        reader.push(b"test_other (pkg.Case.test_other) ... ok\n");
        let seen = reader.observed();
        assert_eq!(seen.tests.len(), 1, "the loader's stand-in is no test");
        assert!(seen.not_run.unwrap().contains("_FailedTest"));
    }
}
