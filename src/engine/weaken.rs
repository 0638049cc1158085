//! Tests made weaker instead of code made right: a plan that deletes, skips, or changes the
//! assertions of a test that was failing.
//!
//! A model asked to make a failing test pass has an easy way out: make the test stop failing.
//! This module reads a plan's changes against the names of the tests that were failing before
//! it (at the base) and says, per test, how the plan weakened it:
//!
//! - **deleted**: its definition is gone (the test, or its whole file);
//! - **skipped**: a skip marker that was not there before appears on it or in it
//!   (`@pytest.mark.skip`, `pytest.skip(`, `@unittest.skip`, `#[ignore]`, `t.Skip(`, `it.skip`,
//!   `xit(`, `test.skip`, `@Disabled`, …);
//! - **assertions changed**: a line of its body that asserts (`assert`, `expect(`, `t.Error`,
//!   …) was removed or rewritten.
//!
//! A test is found by the last segment of its id (`tests/t.py::Case::test_x[1]` → `test_x`,
//! `pkg.mod.Case.test_x` → `test_x`, `tests::adds` → `adds`, `TestX/sub` → `TestX`) as the
//! name a line of a changed file defines (`def test_x(`, `fn adds(`, `func TestX(`, a JS
//! `it('…')` title, a Java method). Its body runs to the next line, indented no deeper, that
//! defines something else. Pure: it reads bytes the caller built.

use std::sync::LazyLock;

use regex::Regex;

use crate::executor::{ChangeKind, FileChange};

/// How a plan weakened one test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Weakened {
    pub test: String,
    pub how: &'static str,
}

impl Weakened {
    /// `test_x (skipped)`, as a verdict lists it.
    pub fn line(&self) -> String {
        format!("{} ({})", self.test, self.how)
    }
}

/// The longest test body looked at, in lines.
const MAX_BODY: usize = 400;

/// Markers that skip a test, in every runner papayu reads.
#[expect(
    clippy::expect_used,
    reason = "a regex literal: it compiles, as the tests show"
)]
static SKIP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"@pytest\.mark\.(?:skip|skipif|xfail)\b|\bpytest\.(?:skip|xfail)\(|@unittest\.skip",
        r"|\bself\.skipTest\(|#\[ignore\b|\bt\.Skip(?:Now|f)?\(|\b(?:it|test|describe)\.skip\b",
        r"|\bx(?:it|describe|test)\(|@Disabled\b|@Ignore\b|\bmarkTestSkipped\(",
    ))
    .expect("valid regex")
});

/// Lines that assert something.
#[expect(
    clippy::expect_used,
    reason = "a regex literal: it compiles, as the tests show"
)]
static ASSERTS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\bassert|\bexpect\(|\.should\b|\bt\.(?:Error|Errorf|Fatal|Fatalf|Fail)\b",
        r"|\bpanic!\(|\brequire\.|\bverify\(|\bcheck\(",
    ))
    .expect("valid regex")
});

/// What `to` changes against `from`, both sides of each file: what tells a weakened test when
/// the changes are not one plan's own (a chain of rounds judged against its base, a worker's
/// candidate against the request's base).
pub fn changes_between(
    store: &crate::store::Store,
    from: crate::store::Oid,
    to: crate::store::Oid,
) -> Result<Vec<FileChange>, crate::store::StoreError> {
    use crate::store::FileAt;
    let side = |at, path: &str| -> Result<Option<std::sync::Arc<[u8]>>, crate::store::StoreError> {
        Ok(match store.file_at(at, path)? {
            FileAt::File(bytes) => Some(bytes.into()),
            FileAt::NotAFile | FileAt::Missing => None,
        })
    };
    let mut out = Vec::new();
    for path in store.changed_paths(from, to)? {
        let (old, new) = (side(from, &path)?, side(to, &path)?);
        let kind = match (&old, &new) {
            (None, Some(_)) => ChangeKind::Added,
            (Some(_), None) => ChangeKind::Deleted,
            (Some(_), Some(_)) => ChangeKind::Modified,
            (None, None) => continue,
        };
        out.push(FileChange {
            path,
            kind,
            old,
            new,
            hunks: Vec::new(),
        });
    }
    Ok(out)
}

/// How `changes` weaken the tests named in `failing` (test ids as the check reported them).
pub fn weakened(changes: &[FileChange], failing: &[String]) -> Vec<Weakened> {
    let mut found = Vec::new();
    for test in failing {
        let name = short_name(test);
        if name.is_empty() {
            continue;
        }
        let how = changes.iter().find_map(|change| weakened_in(change, name));
        if let Some(how) = how {
            found.push(Weakened {
                test: test.clone(),
                how,
            });
        }
    }
    found
}

/// How one changed file weakened the test `name`, when it defined it before.
fn weakened_in(change: &FileChange, name: &str) -> Option<&'static str> {
    let old = String::from_utf8_lossy(change.old.as_deref()?).into_owned();
    let old_lines: Vec<&str> = old.lines().collect();
    let old_body = body(&old_lines, name)?;
    let new = match (&change.kind, change.new.as_deref()) {
        (ChangeKind::Deleted, _) | (_, None) => return Some("deleted"),
        (_, Some(bytes)) => String::from_utf8_lossy(bytes).into_owned(),
    };
    let new_lines: Vec<&str> = new.lines().collect();
    let Some(new_body) = body(&new_lines, name) else {
        return Some("deleted");
    };
    if skips(&new_lines, new_body) > skips(&old_lines, old_body)
        || file_skips(&new_lines) > file_skips(&old_lines)
    {
        return Some("skipped");
    }
    let asserts = |lines: &[&str], (start, end): (usize, usize)| -> Vec<String> {
        lines[start..end]
            .iter()
            .filter(|l| ASSERTS.is_match(l))
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect()
    };
    let before = asserts(&old_lines, old_body);
    let after = asserts(&new_lines, new_body);
    before
        .iter()
        .any(|line| !after.contains(line))
        .then_some("assertions changed")
}

/// Skip markers on the test: in its body and on the few lines above its definition
/// (decorators, attributes, annotations).
fn skips(lines: &[&str], (start, end): (usize, usize)) -> usize {
    let from = start.saturating_sub(4);
    lines[from..end].iter().filter(|l| SKIP.is_match(l)).count()
}

/// Markers that skip a whole module (`pytestmark = pytest.mark.skip`, a skipped class).
fn file_skips(lines: &[&str]) -> usize {
    lines
        .iter()
        .filter(|l| {
            l.trim_start().starts_with("pytestmark")
                && ["mark.skip", "mark.xfail"].iter().any(|m| l.contains(m))
        })
        .count()
}

/// The name a test id ends with: its last segment, without parameters; a title with spaces
/// (node's and jest's `it('adds numbers')`) whole.
pub fn short_name(test: &str) -> &str {
    if test.contains(' ') {
        return test.trim();
    }
    let test = test.split('[').next().unwrap_or(test);
    // go's subtests: the test is the first segment.
    let test = match test.split_once('/') {
        Some((first, _)) if first.starts_with("Test") && !first.contains("::") => first,
        _ => test,
    };
    test.rsplit(['.', ':', '/', ' '])
        .find(|s| !s.is_empty())
        .unwrap_or("")
        .trim_end_matches("()")
}

/// The lines `[start, end)` of the definition of `name`, when a line defines it.
fn body(lines: &[&str], name: &str) -> Option<(usize, usize)> {
    let start = lines.iter().position(|l| defines(l, name))?;
    let indent = indentation(lines[start]);
    let mut end = start + 1;
    while end < lines.len() && end - start < MAX_BODY {
        let line = lines[end];
        if !line.trim().is_empty() && indentation(line) <= indent && starts_definition(line) {
            break;
        }
        end += 1;
    }
    Some((start, end))
}

fn indentation(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// `true` when `line` defines `name`: a function, method or a JS test titled so.
fn defines(line: &str, name: &str) -> bool {
    let Some(at) = line.find(name) else {
        return false;
    };
    let before = &line[..at];
    let after = &line[at + name.len()..];
    let whole = !before.ends_with(|c: char| c.is_alphanumeric() || c == '_')
        && !after.starts_with(|c: char| c.is_alphanumeric() || c == '_');
    if !whole {
        return false;
    }
    let keyword = ["def ", "fn ", "func ", "function ", "void ", "fun "]
        .iter()
        .any(|k| before.trim_end().ends_with(k.trim_end()) && before.contains(k));
    let titled = ["it(", "test(", ".skip(", ".only("]
        .iter()
        .any(|call| before.contains(call))
        && after.starts_with(['\'', '"', '`']);
    (keyword && after.trim_start().starts_with('(')) || titled
}

/// `true` when `line` starts a definition (or a decorator, attribute or annotation of one).
fn starts_definition(line: &str) -> bool {
    let t = line.trim_start();
    [
        "def ",
        "async def ",
        "class ",
        "fn ",
        "pub fn ",
        "func ",
        "function ",
        "it(",
        "test(",
        "describe(",
        "@",
        "#[",
        "}",
        "public ",
        "private ",
        "void ",
    ]
    .iter()
    .any(|p| t.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn change(old: &str, new: Option<&str>) -> FileChange {
        FileChange {
            path: "tests/test_calc.py".into(),
            kind: if new.is_some() {
                ChangeKind::Modified
            } else {
                ChangeKind::Deleted
            },
            old: Some(Arc::from(old.as_bytes())),
            new: new.map(|n| Arc::from(n.as_bytes())),
            hunks: Vec::new(),
        }
    }

    const PY: &str = "import pytest\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_sub():\n    assert sub(3, 2) == 1\n";

    fn how(old: &str, new: Option<&str>, test: &str) -> Option<&'static str> {
        weakened(&[change(old, new)], &[test.to_string()])
            .first()
            .map(|w| w.how)
    }

    #[test]
    fn each_way_of_weakening_a_test_is_named() {
        let id = "tests/test_calc.py::test_add";
        assert_eq!(how(PY, None, id), Some("deleted"));
        let gone = PY.replace("def test_add():\n    assert add(2, 3) == 5\n", "");
        assert_eq!(how(PY, Some(&gone), id), Some("deleted"));
        let skipped = PY.replace("def test_add", "@pytest.mark.skip\ndef test_add");
        assert_eq!(how(PY, Some(&skipped), id), Some("skipped"));
        let inline = PY.replace(
            "    assert add(2, 3) == 5",
            "    pytest.skip('later')\n    assert add(2, 3) == 5",
        );
        assert_eq!(how(PY, Some(&inline), id), Some("skipped"));
        let module = format!("pytestmark = pytest.mark.skip\n{PY}");
        assert_eq!(how(PY, Some(&module), id), Some("skipped"));
        let loosened = PY.replace("== 5", "is not None");
        assert_eq!(how(PY, Some(&loosened), id), Some("assertions changed"));
        // Another test's assertions, or code around it, are not this test's.
        let other = PY.replace("== 1", "is not None");
        assert_eq!(how(PY, Some(&other), id), None);
        let added = format!("{PY}\n\ndef test_mul():\n    assert mul(2, 3) == 6\n");
        assert_eq!(how(PY, Some(&added), id), None);
    }

    #[test]
    fn skip_markers_of_other_runners() {
        let rust = "#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {\n        assert_eq!(add(2, 3), 5);\n    }\n}\n";
        let ignored = rust.replace(
            "    #[test]\n    fn adds",
            "    #[test]\n    #[ignore]\n    fn adds",
        );
        assert_eq!(how(rust, Some(&ignored), "tests::adds"), Some("skipped"));
        let go =
            "func TestAdd(t *testing.T) {\n\tif add(2, 3) != 5 {\n\t\tt.Error(\"bad\")\n\t}\n}\n";
        let skipped = go.replace("{\n\tif", "{\n\tt.Skip(\"later\")\n\tif");
        assert_eq!(how(go, Some(&skipped), "TestAdd/small"), Some("skipped"));
        let js = "it('adds numbers', () => {\n  expect(add(2, 3)).toBe(5);\n});\n";
        let x = js.replace("it('adds", "it.skip('adds");
        assert_eq!(how(js, Some(&x), "adds numbers"), Some("skipped"));
        let x = js.replace("it('adds", "xit('adds");
        assert_eq!(how(js, Some(&x), "adds numbers"), Some("skipped"));
        let x = js.replace("it('adds", "test.skip('adds");
        assert_eq!(how(js, Some(&x), "adds numbers"), Some("skipped"));
        let java = "    @Test\n    void adds() {\n        assertEquals(5, add(2, 3));\n    }\n";
        let disabled = java.replace("@Test", "@Test\n    @Disabled");
        assert_eq!(
            how(java, Some(&disabled), "CalcTest::adds"),
            Some("skipped")
        );
        let unittest = "class Case(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n";
        let skip = unittest.replace(
            "        self.assertEqual",
            "        self.skipTest('x')\n        self.assertEqual",
        );
        assert_eq!(
            how(unittest, Some(&skip), "calc.Case.test_add"),
            Some("skipped")
        );
    }

    #[test]
    fn test_ids_end_in_the_name_a_file_defines() {
        assert_eq!(short_name("tests/t.py::Case::test_x[1-2]"), "test_x");
        assert_eq!(short_name("pkg.mod.Case.test_x"), "test_x");
        assert_eq!(short_name("tests::adds"), "adds");
        assert_eq!(short_name("TestX/sub_case"), "TestX");
        assert_eq!(short_name("CalcTest::adds()"), "adds");
    }
}
