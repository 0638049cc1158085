//! Plan-cycle benchmark: the time `git papayu plan "<goal>"` spends on its own work — start,
//! context gathering, the repository map, checking the answer, storing the plan — with a fake
//! provider that answers at once, on a small repository and on a 100,000-file one. In the same
//! run, on the same repositories, it times `git ls-tree -r HEAD` (one full read of the tree) as
//! the git CLI reference and prints the ratio. Run it with `bench/plan.sh`.

#[path = "../../tests/common/fake_llm.rs"]
mod fake_llm;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .current_dir(dir)
        .args(args)
        .stdout(Stdio::null())
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?} failed");
}

/// A repository of `n` files in a two-level tree, made with fast-import.
fn make_repo(n: usize) -> tempfile::TempDir {
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

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    v[v.len() / 2]
}

fn time(runs: usize, mut f: impl FnMut()) -> f64 {
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

fn main() {
    let runs: usize = std::env::var("RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![100, 100_000]
    } else {
        sizes
    };
    let answer = serde_json::json!({
        "summary": "Add notes",
        "actions": [{"kind": "CREATE_FILE", "path": "NOTES.md", "content": "notes\n"}]
    })
    .to_string();
    let fake = fake_llm::FakeLlm::start(vec![fake_llm::openai_chat(&answer)]);
    println!("| files | plan cycle (fake model) | git ls-tree -r HEAD | ratio |");
    println!("|---:|---:|---:|---:|");
    for n in sizes {
        let repo = make_repo(n);
        let plan = time(runs, || {
            let out = Command::new("git")
                .current_dir(repo.path())
                .args([
                    "papayu",
                    "plan",
                    "Make mean of an empty list 0 in src/stats.py",
                    "-q",
                ])
                .env("PAPAYU_LLM_API_URL", format!("{}/v1", fake.url()))
                .env("PAPAYU_LLM_MODEL", "bench")
                .env("GIT_AUTHOR_NAME", "bench")
                .env("GIT_AUTHOR_EMAIL", "bench@example.com")
                .env("GIT_COMMITTER_NAME", "bench")
                .env("GIT_COMMITTER_EMAIL", "bench@example.com")
                .stdout(Stdio::null())
                .output()
                .expect("git papayu runs");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        });
        let ls = time(runs, || {
            let out = Command::new("git")
                .current_dir(repo.path())
                .args(["ls-tree", "-r", "HEAD"])
                .stdout(Stdio::piped())
                .output()
                .expect("git ls-tree");
            assert!(out.status.success());
        });
        println!("| {n} | {plan:.1} ms | {ls:.1} ms | {:.2}× |", plan / ls);
    }
}
