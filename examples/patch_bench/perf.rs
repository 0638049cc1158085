//! Speed on a large input: a ~10 MB file and a 5,000-hunk patch.

use std::fmt::Write as _;
use std::time::Instant;

const LINES: usize = 200_000;
const EVERY: usize = 40;

fn line(i: usize) -> String {
    format!(
        "{i:07} the quick brown fox {:06} jumps over the lazy dog\n",
        (i * 7919) % 1_000_003
    )
}

/// The file, the patch (one hunk per `EVERY` lines, three lines of context) and the result.
fn inputs(numbers: bool) -> (String, String, String) {
    let mut old = String::with_capacity(LINES * 60);
    let mut new = String::with_capacity(LINES * 60);
    for i in 0..LINES {
        let l = line(i);
        old.push_str(&l);
        if i % EVERY == 20 {
            new.push_str(&l.replace("quick", "slow"));
        } else {
            new.push_str(&l);
        }
    }
    let mut diff = String::from("--- a/f\n+++ b/f\n");
    for i in (20..LINES).step_by(EVERY) {
        if numbers {
            let _ = writeln!(diff, "@@ -{},7 +{},7 @@", i - 2, i - 2);
        } else {
            diff.push_str("@@\n");
        }
        for j in i - 3..=i + 3 {
            let l = line(j);
            if j == i {
                diff.push('-');
                diff.push_str(&l);
                diff.push('+');
                diff.push_str(&l.replace("quick", "slow"));
            } else {
                diff.push(' ');
                diff.push_str(&l);
            }
        }
    }
    (old, diff, new)
}

fn time<T>(label: &str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    println!(
        "| {label} | {:.1} ms |",
        start.elapsed().as_secs_f64() * 1000.0
    );
    out
}

pub fn run(git: bool) {
    let (old, diff, new) = inputs(true);
    let (_, bare, _) = inputs(false);
    let hunks = diff.matches("\n@@").count();
    println!(
        "\n# Speed: {:.1} MB file, {} lines, {hunks}-hunk patch ({:.1} MB)\n",
        old.len() as f64 / 1e6,
        LINES,
        diff.len() as f64 / 1e6
    );
    println!("| run | time |\n|---|---:|");
    let a = time("papayu, correct line numbers", || {
        git_papayu::patch::apply(&old, &diff).expect("applies")
    });
    assert!(a.content == new, "wrong result");
    let a = time("papayu, no line numbers (`@@` only)", || {
        git_papayu::patch::apply(&old, &bare).expect("applies")
    });
    assert!(a.content == new, "wrong result");
    let drifted = format!("{}{old}", "// drift\n".repeat(100));
    let a = time("papayu, file drifted by 100 lines", || {
        git_papayu::patch::apply(&drifted, &diff).expect("applies")
    });
    assert!(a.content.ends_with(&new));
    let loose: String = diff
        .lines()
        .map(|l| match l.starts_with(' ') {
            true => format!("{l}  \n"),
            false => format!("{l}\n"),
        })
        .collect();
    let a = time("papayu, trailing spaces on every context line", || {
        git_papayu::patch::apply(&old, &loose).expect("applies")
    });
    assert!(a.content == new, "wrong result");
    let broken = diff.replacen("-0000020 the quick", "-0000020 the QUICK", 1);
    time("papayu, refusal (first hunk's `-` line wrong)", || {
        git_papayu::patch::apply(&old, &broken).expect_err("refuses")
    });
    if git {
        let dir = tempfile::tempdir().expect("scratch dir");
        std::fs::write(dir.path().join("f"), &old).expect("write");
        std::fs::write(dir.path().join("p.diff"), &diff).expect("write");
        time(
            "git apply, correct line numbers (incl. process start)",
            || {
                let ok = std::process::Command::new("git")
                    .args(["apply", "p.diff"])
                    .current_dir(dir.path())
                    .env("GIT_CONFIG_NOSYSTEM", "1")
                    .env("GIT_CONFIG_GLOBAL", "/dev/null")
                    .status()
                    .expect("git apply")
                    .success();
                assert!(ok, "git apply failed on the perf patch");
            },
        );
    }
}
