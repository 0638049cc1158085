//! Patch benchmark: how often does an applier get model-style damaged diffs right, how often
//! does it apply one wrongly, and how fast is it?
//!
//! Cases come from real history: per-file diffs between released versions of public crates
//! (see `bench/patch/corpus.txt`, fetched by `bench/patch/fetch.sh`), damaged the ways models
//! damage diffs. Each case is run through this crate's engine and, in the same run, through
//! `git apply` (strict) and `git apply --recount -C1 --ignore-whitespace` in a scratch
//! directory. Run it with `bench/patch/run.sh`.

mod damage;
mod perf;
mod runner;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use damage::{Case, Expect};
use runner::{Engine, Outcome, Tally};

struct Args {
    corpus: PathBuf,
    cache: PathBuf,
    out: PathBuf,
    git: bool,
    accuracy: bool,
    perf: bool,
}

fn parse_args() -> Args {
    let mut args = Args {
        corpus: PathBuf::from("bench/patch/corpus.txt"),
        cache: PathBuf::from("bench/.cache/crates"),
        out: PathBuf::from("bench/out"),
        git: true,
        accuracy: true,
        perf: true,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--corpus" => args.corpus = it.next().expect("--corpus FILE").into(),
            "--cache" => args.cache = it.next().expect("--cache DIR").into(),
            "--out" => args.out = it.next().expect("--out DIR").into(),
            "--no-git" => args.git = false,
            "--perf-only" => args.accuracy = false,
            "--no-perf" => args.perf = false,
            "--help" | "-h" => {
                println!(
                    "patch_bench [--corpus FILE] [--cache DIR] [--out DIR] [--no-git] \
                     [--perf-only] [--no-perf]"
                );
                std::process::exit(0);
            }
            other => panic!("unknown argument {other}"),
        }
    }
    args
}

fn main() {
    let args = parse_args();
    if args.accuracy {
        accuracy(&args);
    }
    if args.perf {
        perf::run(args.git);
    }
}

/// One file's two versions.
struct Pair {
    name: String,
    old: String,
    new: String,
    other: Option<String>,
}

fn rust_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p.strip_prefix(root).expect("under root").to_path_buf());
            }
        }
    }
    out.sort();
    out
}

fn pairs(args: &Args) -> Vec<Pair> {
    let manifest = std::fs::read_to_string(&args.corpus).expect("read the corpus manifest");
    let mut out = Vec::new();
    for line in manifest
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let mut words = line.split_whitespace();
        let krate = words.next().expect("crate name");
        let versions: Vec<&str> = words.collect();
        for w in versions.windows(2) {
            let old_root = args.cache.join(format!("{krate}-{}", w[0]));
            let new_root = args.cache.join(format!("{krate}-{}", w[1]));
            assert!(
                old_root.is_dir(),
                "{} missing: run bench/patch/fetch.sh",
                old_root.display()
            );
            let files = rust_files(&old_root);
            let mut changed = Vec::new();
            for rel in &files {
                let (Ok(old), Ok(new)) = (
                    std::fs::read_to_string(old_root.join(rel)),
                    std::fs::read_to_string(new_root.join(rel)),
                ) else {
                    continue;
                };
                if old != new && !old.is_empty() && !new.is_empty() {
                    changed.push((rel.clone(), old, new));
                }
            }
            for (i, (rel, old, new)) in changed.iter().enumerate() {
                let other = files
                    .iter()
                    .cycle()
                    .skip(files.iter().position(|f| f == rel).unwrap_or(0) + 1 + i % 5)
                    .find(|f| *f != rel)
                    .and_then(|f| std::fs::read_to_string(old_root.join(f)).ok());
                out.push(Pair {
                    name: format!("{krate} {}..{} {}", w[0], w[1], rel.display()),
                    old: old.clone(),
                    new: new.clone(),
                    other,
                });
            }
        }
    }
    out
}

fn accuracy(args: &Args) {
    let pairs = pairs(args);
    let engines: Vec<Engine> = if args.git {
        vec![Engine::Papayu, Engine::GitStrict, Engine::GitLoose]
    } else {
        vec![Engine::Papayu]
    };
    let scratch = tempfile::tempdir().expect("scratch dir");
    let _ = std::fs::remove_dir_all(args.out.join("wrong"));
    let mut tally: BTreeMap<(&str, Engine), Tally> = BTreeMap::new();
    let mut total_cases = 0;
    let mut hunks = 0;
    for pair in &pairs {
        hunks += damage::Diff::between(&pair.old, &pair.new).hunks.len();
        for case in damage::cases(&pair.name, &pair.old, &pair.new, pair.other.as_deref()) {
            total_cases += 1;
            for &engine in &engines {
                let outcome = runner::run(engine, &case, scratch.path());
                if engine == Engine::Papayu && outcome == Outcome::Wrong {
                    keep_wrong(&args.out, &pair.name, &case);
                }
                tally
                    .entry((case.category, engine))
                    .or_default()
                    .add(outcome);
            }
        }
    }
    println!(
        "# Patch benchmark: {} file pairs ({} hunks), {} cases\n",
        pairs.len(),
        hunks,
        total_cases
    );
    runner::print_table(&tally, &engines);
}

/// Writes a case the engine got wrong to `out/wrong/` for inspection.
fn keep_wrong(out: &Path, name: &str, case: &Case) {
    let dir = out.join("wrong").join(format!(
        "{}-{}",
        case.category,
        name.replace(['/', ' '], "_")
    ));
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join("original"), &case.original);
    let _ = std::fs::write(dir.join("diff"), &case.diff);
    if let Some(e) = &case.expected {
        let _ = std::fs::write(dir.join("expected"), e);
    }
    if case.expect != Expect::Recoverable {
        let _ = std::fs::write(dir.join("expected"), "(a refusal)\n");
    }
}
