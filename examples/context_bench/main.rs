//! Context-engine benchmark on generated repositories (default 100,000 files): a `search`
//! request over the base commit against `git grep -n PATTERN HEAD`, and a plan's whole context
//! (ranking the tree, filling the diet, the map) against `git ls-tree -r HEAD`, each cold (no
//! cache for the tree yet) and warm (cached per tree id), in the same run on the same data. Run it with `bench/context.sh`.

#[path = "../common/bench_repo.rs"]
mod bench_repo;

use std::path::Path;
use std::process::{Command, Stdio};

use bench_repo::{make_repo, time};
use git_papayu::context::{Budget, Input, diet, gather, search};
use git_papayu::protocol::ProtocolVersion;
use git_papayu::store::Store;

fn git_time(dir: &Path, runs: usize, args: &[&str]) -> f64 {
    time(runs, || {
        let out = Command::new("git")
            .current_dir(dir)
            .args(args)
            .stdout(Stdio::piped())
            .output()
            .expect("git runs");
        assert!(out.status.code().is_some_and(|c| c <= 1), "git {args:?}");
    })
}

fn drop_cache(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir.join(".git/papayu/cache"));
}

fn main() {
    let (runs, sizes) = bench_repo::runs_and_sizes(&[100_000]);
    let pattern = "return 4242";
    println!("| files | what | papayu cold | papayu warm | git | warm ratio | cold ratio |");
    println!("|---:|---|---:|---:|---:|---:|---:|");
    for n in sizes {
        let repo = make_repo(n);
        let dir = repo.path();
        let store = Store::open_at(dir).expect("repository");
        let head = store.resolve_commit("HEAD").expect("HEAD");
        let expected = String::from_utf8(
            Command::new("git")
                .current_dir(dir)
                .args(["grep", "-n", "-e", pattern, "HEAD"])
                .output()
                .expect("git grep")
                .stdout,
        )
        .expect("utf-8")
        .lines()
        .count();
        let searched = |cold: bool| {
            time(runs, || {
                if cold {
                    drop_cache(dir);
                }
                let snap = store.snapshot(head).expect("snapshot");
                let hits = search(&snap, pattern, None);
                assert_eq!(hits.len(), expected, "the same hits as git grep");
            })
        };
        let (cold, warm) = (searched(true), searched(false));
        let grep = git_time(dir, runs, &["grep", "-n", "-e", pattern, "HEAD"]);
        println!(
            "| {n} | search `{pattern}` | {cold:.0} ms | {warm:.0} ms | {grep:.0} ms (git grep) | {:.2}× | {:.2}× |",
            warm / grep,
            cold / grep
        );
        let mapped = |cold: bool| {
            time(runs, || {
                if cold {
                    drop_cache(dir);
                }
                let snap = store.snapshot(head).expect("snapshot");
                let input = Input {
                    goal: "Make mean of an empty list 0 in src/stats.py; `helper_parse` fails with \"invalid token\"".to_string(),
                    logs: Vec::new(),
                    protocol: ProtocolVersion::V2,
                };
                let budget = Budget::default();
                let (blocks, report) = diet(gather(&snap, &input, &budget).blocks, &budget);
                assert!(blocks.iter().any(|b| b.title == "src/stats.py"));
                assert!(report.total_chars <= budget.max_total_chars);
            })
        };
        let (cold, warm) = (mapped(true), mapped(false));
        let ls = git_time(dir, runs, &["ls-tree", "-r", "HEAD"]);
        println!(
            "| {n} | a plan's context (rank, fill, map) | {cold:.0} ms | {warm:.0} ms | {ls:.0} ms (git ls-tree -r) | {:.2}× | {:.2}× |",
            warm / ls,
            cold / ls
        );
    }
}
