//! What the benchmarks share: a generated repository of `n` files and a median timer.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

pub fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .current_dir(dir)
        .args(args)
        .stdout(Stdio::null())
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?} failed");
}

/// Commits after the first, each changing a few files, so that reading the history costs what
/// it costs in a real repository.
const HISTORY: usize = 1000;

/// A repository of `n` files in a two-level tree, made with fast-import, then [`HISTORY`]
/// commits of two or three files each.
pub fn make_repo(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    git(dir.path(), &["init", "-q", "-b", "main"]);
    let mut stream = String::from(
        "commit refs/heads/main\ncommitter bench <bench@example.com> 1700000000 +0000\ndata 4\ninit\n",
    );
    for i in 0..n {
        let path = format!("d{:02}/e{:03}/file{i:06}.py", i % 97, (i / 97) % 211);
        let body = format!("def f{i}():\n    return {i}\n");
        stream.push_str(&format!(
            "M 100644 inline {path}\ndata {}\n{body}\n",
            body.len()
        ));
    }
    let body = "def mean(items):\n    return sum(items) / len(items)\n";
    stream.push_str(&format!(
        "M 100644 inline src/stats.py\ndata {}\n{body}\n",
        body.len()
    ));
    for c in 0..HISTORY {
        stream.push_str(&format!(
            "commit refs/heads/main\ncommitter bench <bench@example.com> {} +0000\ndata 6\nchange\n",
            1_700_000_000 + c
        ));
        for k in 0..2 + c % 2 {
            let i = (c * 7919 + k * 104_729) % n.max(1);
            let path = format!("d{:02}/e{:03}/file{i:06}.py", i % 97, (i / 97) % 211);
            let body = format!("def f{i}():\n    return {c}\n");
            stream.push_str(&format!(
                "M 100644 inline {path}\ndata {}\n{body}\n",
                body.len()
            ));
        }
    }
    let mut child = Command::new("git")
        .current_dir(dir.path())
        .args(["fast-import", "--quiet"])
        .stdin(Stdio::piped())
        .spawn()
        .expect("fast-import");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stream.as_bytes())
        .expect("write");
    assert!(child.wait().expect("wait").success());
    git(dir.path(), &["reset", "-q", "--hard", "main"]);
    dir
}

pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    v[v.len() / 2]
}

pub fn time(runs: usize, mut f: impl FnMut()) -> f64 {
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64() * 1000.0
            })
            .collect(),
    )
}

/// `RUNS` (default 5) and the repository sizes given as arguments (default `default`).
pub fn runs_and_sizes(default: &[usize]) -> (usize, Vec<usize>) {
    let runs = std::env::var("RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    (
        runs,
        if sizes.is_empty() {
            default.to_vec()
        } else {
            sizes
        },
    )
}
