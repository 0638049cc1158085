//! `search` context requests over a commit give the hits `git grep -n` gives on that commit,
//! from a cold start and from the per-tree cache alike.

use crate::common;

use common::TestRepo;
use git_papayu::context::{Hit, search};
use git_papayu::store::Store;

/// A repository with ordinary text in several shapes, plus files `search` must skip.
fn repo() -> TestRepo {
    let repo = TestRepo::with_files(&[
        (
            "src/stats.py",
            "import math\n\ndef mean(items):\n    return sum(items) / len(items)\n\ndef median(xs):\n    xs = sorted(xs)\n    return xs[len(xs) // 2]\n",
        ),
        (
            "src/lib.rs",
            "pub fn parse(input: &str) -> Result<u32, String> {\n    input.trim().parse().map_err(|e| format!(\"bad: {e}\"))\n}\n\npub struct Config {\n    pub name: String,\n}\n",
        ),
        (
            "web/app.js",
            "import x from './x.js';\nexport function start() {\n  return x(1);\n}\nconst y = 2;",
        ),
        ("crlf.txt", "first line\r\ndef in crlf\r\nreturn here\r\n"),
        ("empty.txt", ""),
        (
            "nested/deep/dir/notes.md",
            "# Notes\n\nreturn to sender\ndef-initely\n",
        ),
        ("blank-lines.txt", "\n\n\nx = 1\n\n"),
    ]);
    std::fs::write(repo.path().join("bin.dat"), b"def \0 binary return\n").unwrap();
    repo.write(".env", "return SECRET=1\ndef x\n");
    repo.commit_all("more files");
    repo
}

/// `git grep -n` hits as (path, line, text), protected `.env` excluded as search excludes it.
fn git_grep(repo: &TestRepo, flag: &str, pattern: &str, rev: &str) -> Vec<(String, u32, String)> {
    let out = repo
        .git([
            "grep",
            "-n",
            "-I",
            "--no-color",
            flag,
            "-e",
            pattern,
            rev,
            "--",
            ".",
            ":!.env",
        ])
        .stdout;
    let prefix = format!("{rev}:");
    out.lines()
        .map(|line| {
            let rest = line.strip_prefix(&prefix).expect("rev prefix");
            let mut parts = rest.splitn(3, ':');
            let path = parts.next().unwrap().to_string();
            let n: u32 = parts.next().unwrap().parse().unwrap();
            (path, n, parts.next().unwrap_or("").trim_end().to_string())
        })
        .collect()
}

fn ours(repo: &TestRepo, pattern: &str, rev: &str) -> Vec<(String, u32, String)> {
    let store = Store::open_at(repo.path()).unwrap();
    let commit = store.resolve_commit(rev).unwrap();
    let snap = store.snapshot(commit).unwrap();
    search(&snap, pattern, None)
        .into_iter()
        .map(|Hit { path, line, text }| (path, line, text))
        .collect()
}

/// Patterns that can match the empty string at the very end of a file are left out: git grep's
/// look-ahead reports a phantom line after the last newline for them, a line that does not exist.
const PATTERNS: &[(&str, &str)] = &[
    ("-E", "def [a-z_]+"),
    ("-E", "^return"),
    ("-E", "return"),
    ("-E", "x\\)?;?$"),
    ("-E", "^#"),
    ("-E", "(pub|export) (fn|function|struct)"),
    ("-E", "[0-9]+"),
    ("-E", "s\\.py|\\.js"),
    ("-F", "parse("),
    ("-E", "no such text anywhere"),
];

#[test]
fn hits_are_those_of_git_grep_on_the_same_commit() {
    let repo = repo();
    for (flag, pattern) in PATTERNS {
        let expected = git_grep(&repo, flag, pattern, "HEAD");
        assert!(
            expected.len() < git_papayu::context::MAX_SEARCH_HITS,
            "the pattern {pattern} stays under the hit limit"
        );
        assert_eq!(ours(&repo, pattern, "HEAD"), expected, "cold: {pattern}");
        assert_eq!(ours(&repo, pattern, "HEAD"), expected, "cached: {pattern}");
    }
    assert!(!git_grep(&repo, "-E", "return", "HEAD").is_empty());
}

#[test]
fn an_older_commit_is_searched_as_it_was() {
    let repo = repo();
    repo.write("src/stats.py", "def replaced():\n    pass\n");
    repo.commit_all("rewrite stats");
    for (flag, pattern) in PATTERNS {
        assert_eq!(
            ours(&repo, pattern, "HEAD~1"),
            git_grep(&repo, flag, pattern, "HEAD~1"),
            "{pattern}"
        );
        assert_eq!(
            ours(&repo, pattern, "HEAD"),
            git_grep(&repo, flag, pattern, "HEAD"),
            "{pattern}"
        );
    }
}

#[test]
fn a_damaged_cache_is_a_miss_not_a_wrong_answer() {
    let repo = repo();
    let expected = git_grep(&repo, "-E", "return", "HEAD");
    assert_eq!(ours(&repo, "return", "HEAD"), expected);
    let cache = repo.path().join(".git/papayu/cache");
    let mut damaged = 0;
    for entry in std::fs::read_dir(&cache).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        damaged += 1;
    }
    assert!(damaged >= 2, "the file list and the corpus are cached");
    assert_eq!(ours(&repo, "return", "HEAD"), expected);
    repo.fsck();
}
