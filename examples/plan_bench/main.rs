//! Plan-cycle benchmark: the time `git papayu plan "<goal>"` spends on its own work — start,
//! context gathering, the repository map, checking the answer, storing the plan — with a fake
//! provider that answers at once, on a small repository and on a 100,000-file one. In the same
//! run, on the same repositories, it times `git ls-tree -r HEAD` (one full read of the tree) as
//! the git CLI reference and prints the ratio. Run it with `bench/plan.sh`.

#[path = "../common/bench_repo.rs"]
mod bench_repo;
#[path = "../../tests/it/common/fake_llm.rs"]
mod fake_llm;

use bench_repo::{make_repo, time};

use std::process::{Command, Stdio};

fn main() {
    let (runs, sizes) = bench_repo::runs_and_sizes(&[100, 100_000]);
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
