//! Running one case through one applier and counting the outcomes.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::damage::{CATEGORIES, Case, Expect};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Engine {
    Papayu,
    GitStrict,
    GitLoose,
}

impl Engine {
    fn label(self) -> &'static str {
        match self {
            Engine::Papayu => "papayu",
            Engine::GitStrict => "git apply",
            Engine::GitLoose => "git apply --recount -C1 --ignore-whitespace",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The expected text, or a refusal where a refusal is right.
    Correct,
    /// Applied, but the result is not the expected text (or a refusal was right).
    Wrong,
    /// Refused where the expected text was reachable.
    Refused,
}

#[derive(Default, Clone, Copy)]
pub struct Tally {
    pub cases: usize,
    pub correct: usize,
    pub wrong: usize,
    pub refused: usize,
}

impl Tally {
    pub fn add(&mut self, o: Outcome) {
        self.cases += 1;
        match o {
            Outcome::Correct => self.correct += 1,
            Outcome::Wrong => self.wrong += 1,
            Outcome::Refused => self.refused += 1,
        }
    }

    fn merge(&mut self, o: &Tally) {
        self.cases += o.cases;
        self.correct += o.correct;
        self.wrong += o.wrong;
        self.refused += o.refused;
    }

    fn cell(&self) -> String {
        if self.cases == 0 {
            return "–".to_string();
        }
        let pct = 100.0 * self.correct as f64 / self.cases as f64;
        format!("{pct:.1} % | {}", self.wrong)
    }
}

pub fn run(engine: Engine, case: &Case, scratch: &Path) -> Outcome {
    let result = match engine {
        Engine::Papayu => git_papayu::patch::apply(&case.original, &case.diff)
            .ok()
            .map(|a| a.content),
        Engine::GitStrict => git_apply(case, scratch, &[]),
        Engine::GitLoose => git_apply(case, scratch, &["--recount", "-C1", "--ignore-whitespace"]),
    };
    match (result, &case.expected) {
        (None, None) => Outcome::Correct,
        (None, Some(_)) => Outcome::Refused,
        (Some(r), Some(e)) if r == *e => Outcome::Correct,
        (Some(_), _) => Outcome::Wrong,
    }
}

/// Runs `git apply FLAGS` on a copy of the case in `scratch` (not a repository).
fn git_apply(case: &Case, scratch: &Path, flags: &[&str]) -> Option<String> {
    let file = scratch.join("f");
    std::fs::write(&file, &case.original).expect("write scratch file");
    std::fs::write(scratch.join("p.diff"), &case.diff).expect("write scratch diff");
    let status = Command::new("git")
        .arg("apply")
        .args(flags)
        .arg("p.diff")
        .current_dir(scratch)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env(
            "GIT_CEILING_DIRECTORIES",
            scratch.parent().unwrap_or(scratch),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("run git apply");
    let result = status
        .success()
        .then(|| std::fs::read_to_string(&file).ok())
        .flatten();
    let _ = std::fs::remove_file(&file);
    result
}

/// Prints one row per category and the totals, as a Markdown table.
pub fn print_table(tally: &BTreeMap<(&str, Engine), Tally>, engines: &[Engine]) {
    let mut head = String::from("| category | kind | cases |");
    let mut rule = String::from("|---|---|---:|");
    for e in engines {
        head.push_str(&format!(" {} ok | wrong |", e.label()));
        rule.push_str("---:|---:|");
    }
    println!("{head}\n{rule}");
    let mut groups: BTreeMap<(u8, Engine), Tally> = BTreeMap::new();
    for &(category, expect) in CATEGORIES {
        let (kind, group) = match expect {
            Expect::Recoverable => ("recoverable", 0),
            Expect::Ambiguous => ("ambiguous", 1),
            Expect::ShouldFail => ("should fail", 2),
        };
        let cases = tally.get(&(category, engines[0])).map_or(0, |t| t.cases);
        let mut row = format!("| {category} | {kind} | {cases} |");
        for &e in engines {
            let t = tally.get(&(category, e)).copied().unwrap_or_default();
            groups.entry((group, e)).or_default().merge(&t);
            row.push_str(&format!(" {} |", t.cell()));
        }
        println!("{row}");
    }
    for (group, label) in [
        (0, "**all recoverable**"),
        (1, "**all ambiguous**"),
        (2, "**all should-fail**"),
    ] {
        let cases = groups.get(&(group, engines[0])).map_or(0, |t| t.cases);
        let mut row = format!("| {label} | | {cases} |");
        for &e in engines {
            row.push_str(&format!(
                " {} |",
                groups.get(&(group, e)).copied().unwrap_or_default().cell()
            ));
        }
        println!("{row}");
    }
    println!(
        "\n`ok` = expected text produced (recoverable) or refused (ambiguous, should fail); \
         `wrong` = applied with a result other than the expected one."
    );
}
