//! JUnit XML reports the usual Java build tools write on their own: Maven's Surefire and
//! Failsafe (`target/surefire-reports/TEST-*.xml`) and Gradle (`build/test-results/<task>/
//! TEST-*.xml`), at the top of the tree or one module down. Gradle prints no per-test line,
//! and Surefire only one per test class, so these reports are how a Java check is judged test
//! by test without any setting.
//!
//! Only a report the check itself wrote is read: every report there is deleted before the check
//! runs (one left in a kept directory, or one the tree itself holds), so a run is never judged
//! by an earlier run's results, nor by results a proposal wrote into its own tree.

use std::path::{Path, PathBuf};

use super::results::{self, Tests};

/// Where, below the top or one module down, the build tools write their reports.
const REPORT_DIRS: &[&str] = &[
    "target/surefire-reports",
    "target/failsafe-reports",
    "build/test-results",
];

/// The most report files read, and bytes in all (the configured report's limit too): a runaway
/// build cannot make papayu read without end; a bigger report is left unread (exit status only).
const MAX_FILES: usize = 5_000;
pub const MAX_BYTES: u64 = 64 * 1024 * 1024;

/// The tests of every report under `top` (the check ran since they were all deleted), within
/// [`MAX_FILES`] files and [`MAX_BYTES`] in all; empty when there is none.
pub fn fresh(top: &Path) -> Tests {
    let mut tests = Tests::new();
    let mut budget = MAX_BYTES;
    for file in report_files(top).into_iter().take(MAX_FILES) {
        if let Some((read, size)) = read(&file, budget) {
            budget -= size;
            tests.extend(read);
        }
    }
    tests
}

/// The tests of the JUnit report at `path`, and its size, when it is a regular file (a symbolic
/// link is not followed) of at most `limit` bytes.
pub fn read(path: &Path, limit: u64) -> Option<(Tests, u64)> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > limit {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    Some((
        results::from_junit(&String::from_utf8_lossy(&bytes)),
        meta.len(),
    ))
}

/// `TEST-*.xml` in the report directories of `top` and of its subdirectories (the modules of
/// a multi-module build), and in Gradle's per-task directories below them; sorted. A symbolic
/// link on the way is not followed: a tree cannot point papayu at files outside it.
pub fn report_files(top: &Path) -> Vec<PathBuf> {
    let mut roots = vec![top.to_path_buf()];
    roots.extend(subdirectories(top));
    let mut files = Vec::new();
    for root in roots {
        for dir in REPORT_DIRS {
            let Some(dir) = real_dir(&root, Path::new(dir)) else {
                continue;
            };
            let mut places = vec![dir.clone()];
            places.extend(subdirectories(&dir));
            for place in places {
                files.extend(xml_reports(&place));
            }
        }
    }
    files.sort();
    files
}

/// `base` joined with `relative` when every directory on the way is a real directory, not a
/// symbolic link.
pub fn real_dir(base: &Path, relative: &Path) -> Option<PathBuf> {
    let mut path = base.to_path_buf();
    for part in relative.components() {
        path.push(part);
        if !std::fs::symlink_metadata(&path).ok()?.is_dir() {
            return None;
        }
    }
    Some(path)
}

/// The file `relative` names below `top`, when every directory on its way is a real one (the
/// file itself may be anything: its caller looks at it without following it).
pub fn inside(top: &Path, relative: &Path) -> Option<PathBuf> {
    let name = relative.file_name()?;
    let parent = relative.parent().unwrap_or(Path::new(""));
    Some(real_dir(top, parent)?.join(name))
}

/// The real directories right below `dir` (symbolic links are not followed), sorted.
fn subdirectories(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    dirs.sort();
    dirs
}

/// `TEST-*.xml` files right in `dir`.
fn xml_reports(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("TEST-") && n.ends_with(".xml"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(dir: &Path, name: &str, case: &str, failed: bool) {
        std::fs::create_dir_all(dir).unwrap();
        let body = match failed {
            true => "<failure message=\"no\"/>",
            false => "",
        };
        let xml = format!(
            "<testsuite><testcase classname=\"x.CalcTest\" name=\"{case}\">{body}</testcase></testsuite>"
        );
        std::fs::write(dir.join(name), xml).unwrap();
    }

    #[test]
    fn reports_of_maven_gradle_and_their_modules_are_read() {
        let top = tempfile::tempdir().unwrap();
        report(
            &top.path().join("target/surefire-reports"),
            "TEST-a.xml",
            "adds",
            true,
        );
        report(
            &top.path().join("core/build/test-results/test"),
            "TEST-b.xml",
            "divides",
            false,
        );
        report(
            &top.path().join("target/surefire-reports"),
            "a.txt",
            "ignored",
            false,
        );
        let tests: Vec<(String, bool)> = fresh(top.path()).into_iter().collect();
        assert_eq!(
            tests,
            vec![
                ("x.CalcTest::adds".to_string(), false),
                ("x.CalcTest::divides".to_string(), true),
            ]
        );
    }

    #[test]
    #[cfg(unix)]
    fn a_symbolic_link_on_the_way_is_not_followed() {
        let outside = tempfile::tempdir().unwrap();
        report(
            &outside.path().join("surefire-reports"),
            "TEST-a.xml",
            "adds",
            true,
        );
        let top = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), top.path().join("target")).unwrap();
        std::os::unix::fs::symlink(outside.path(), top.path().join("build")).unwrap();
        assert!(report_files(top.path()).is_empty());
        assert_eq!(inside(top.path(), Path::new("build/junit.xml")), None);
        assert_eq!(
            inside(top.path(), Path::new("junit.xml")),
            Some(top.path().join("junit.xml"))
        );
        std::fs::create_dir(top.path().join("real")).unwrap();
        assert_eq!(
            inside(top.path(), Path::new("real/junit.xml")),
            Some(top.path().join("real/junit.xml"))
        );
    }
}
