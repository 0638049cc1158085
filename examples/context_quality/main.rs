//! How often the first request of a plan carries the code that must change, measured on real
//! issue-fixing commits from the history of git repositories you point it at, against a plain
//! BM25 ranking of the same tree under the same diet, in the same run.
//!
//! A case is a commit whose message says it fixes something and that changed 1–4 existing
//! source files outside tests, documentation and changelogs (the *gold* files), at most 300
//! lines. The goal is the commit message (without trailers); the context is gathered at the
//! commit's parent, exactly as `git papayu context` would. For each case:
//! - *sent*: every gold file is in a FILE block;
//! - *hunks*: every gold hunk's old lines are in what was sent (whole, in a window, or in the
//!   part a cut kept; for a pure insertion, the line before it);
//! - *seen*: every gold file is sent, or listed in the map with its own definitions;
//! - the characters sent (as the diet counts them) and the time taken.
//!
//! The baseline ranks files by BM25 over their words (lowercase alphanumeric runs) and sends
//! the best 8, each cut to 20,000 characters (60 % head, 40 % tail), 120,000 in all.
//!
//! Besides the table by repository, the cases are reported by language set (Python; Rust, Go,
//! JavaScript; Java, PHP, Ruby, C, C++, TypeScript), by language, and for fixes of one file
//! against fixes of 2–4 files. A repository's language is the commonest among its source files
//! outside tests (a `.h` counts as C only in a tree without C++ sources).
//!
//! Usage: `bench/context_quality.sh [--cases N] [--issues FILE] [--misses] REPO…` (N newest
//! cases per repository, default 40). `--issues FILE` judges issues as users write them: the
//! file holds JSON lines `{"commit": "<id or prefix>", "goal": "<the issue's title and text>"}`,
//! and the cases are the commits it names (with the same limits on what they changed), the goal
//! the issue's text instead of the commit message. `--misses` (or `PAPAYU_BENCH_VERBOSE=1`) prints, to stderr, each
//! case whose gold was not all sent, or whose hunks were not all shown: its repository, goal and
//! gold hunks, every block sent with its reason (which windows were kept and why), and where each
//! unsent gold file stands in the ranking and whether the map shows its definitions.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use git_papayu::context::{
    Block, BlockKind, Budget, Corpus, Input, Query, diet, gather, is_test_path, rank,
};
use git_papayu::protocol::ProtocolVersion;
use git_papayu::store::{Oid, Store};

/// One gold file: its path and its hunks' old line ranges (start, count).
struct Gold {
    path: String,
    hunks: Vec<(u32, u32)>,
}

struct Case {
    commit: String,
    parent: String,
    goal: String,
    gold: Vec<Gold>,
}

#[derive(Default, Clone, Copy)]
struct Score {
    cases: usize,
    sent: usize,
    hunks: usize,
    seen: usize,
    chars: usize,
    max_chars: usize,
    millis: f64,
    max_millis: f64,
}

impl Score {
    fn add(&mut self, o: &Outcome) {
        self.cases += 1;
        self.sent += usize::from(o.sent);
        self.hunks += usize::from(o.hunks);
        self.seen += usize::from(o.seen);
        self.chars += o.chars;
        self.max_chars = self.max_chars.max(o.chars);
        self.millis += o.millis;
        self.max_millis = self.max_millis.max(o.millis);
    }

    fn pct(&self, n: usize) -> f64 {
        100.0 * n as f64 / self.cases.max(1) as f64
    }
}

struct Outcome {
    sent: bool,
    hunks: bool,
    seen: bool,
    chars: usize,
    millis: f64,
}

fn git(repo: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .output()
        .expect("git runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

const SOURCE: &[&str] = &[
    "py", "rs", "go", "js", "jsx", "ts", "tsx", "mjs", "cjs", "rb", "java", "php", "c", "h", "cc",
    "cpp", "cxx", "hpp", "hh", "kt", "cs", "swift",
];

/// The language a source file's extension says, `.h` left open (C or C++).
fn language_of(path: &str) -> Option<&'static str> {
    let ext = path.rsplit_once('.')?.1.to_lowercase();
    Some(match ext.as_str() {
        "py" => "Python",
        "rs" => "Rust",
        "go" => "Go",
        "js" | "jsx" | "mjs" | "cjs" => "JavaScript",
        "ts" | "tsx" => "TypeScript",
        "rb" => "Ruby",
        "java" => "Java",
        "php" => "PHP",
        "c" => "C",
        "cc" | "cpp" | "cxx" | "hpp" | "hh" => "C++",
        "kt" => "Kotlin",
        "cs" => "C#",
        "swift" => "Swift",
        _ => return None,
    })
}

/// A repository's language: the commonest among its source files outside tests at HEAD; a
/// tree of `.c` and `.h` files only is C.
fn repo_language(repo: &Path) -> &'static str {
    let mut counts: HashMap<&'static str, usize> = HashMap::new();
    let mut headers = 0;
    for path in git(repo, &["ls-tree", "-r", "--name-only", "HEAD"]).lines() {
        if !is_gold_candidate(path) {
            continue;
        }
        match language_of(path) {
            Some(l) => *counts.entry(l).or_default() += 1,
            None if path.ends_with(".h") => headers += 1,
            None => {}
        }
    }
    if counts.is_empty() && headers > 0 {
        return "C";
    }
    counts
        .into_iter()
        .max_by_key(|&(l, n)| (n, std::cmp::Reverse(l)))
        .map_or("other", |(l, _)| l)
}

/// The language sets the targets are set for.
fn language_set(language: &str) -> &'static str {
    match language {
        "Python" => "Python",
        "Rust" | "Go" | "JavaScript" => "Rust, Go, JavaScript",
        _ => "Java, PHP, Ruby, C, C++, TypeScript",
    }
}

fn is_gold_candidate(path: &str) -> bool {
    let lower = path.to_lowercase();
    let ext = lower.rsplit_once('.').map_or("", |(_, e)| e);
    SOURCE.contains(&ext)
        && !is_test_path(&lower)
        && !lower.starts_with("docs/")
        && !lower.starts_with(".github/")
        && !lower.contains("/docs/")
        && !lower.starts_with("examples/")
        && !lower.starts_with("benchmarks/")
}

fn fixes_something(subject: &str) -> bool {
    let s = subject.to_lowercase();
    let skip = [
        "bump",
        "release",
        "prepare",
        "revert",
        "typo",
        "lint",
        "format",
        "refactor",
        "docs:",
        "doc:",
        "ci:",
        "chore",
        "style",
        "changelog",
        "readme",
        "version",
    ];
    if skip.iter().any(|w| s.contains(w)) {
        return false;
    }
    let words = [
        "fix",
        "bug",
        "crash",
        "error",
        "wrong",
        "incorrect",
        "regression",
        "broken",
        "handle",
        "issue",
        "fail",
        "panic",
        "resolve",
        "should",
        "not ",
        "missing",
        "prevent",
        "avoid",
        "correct",
        "allow",
        "support",
    ];
    words.iter().any(|w| s.contains(w)) || s.contains('#')
}

/// The commit message without trailers and cherry-pick notes.
fn goal_of(message: &str) -> String {
    message
        .lines()
        .filter(|l| {
            let t = l.trim();
            !(t.starts_with("Signed-off-by:")
                || t.starts_with("Co-authored-by:")
                || t.starts_with("Co-Authored-By:")
                || t.starts_with("Reviewed-by:")
                || t.starts_with("(cherry picked")
                || t.starts_with("Change-Id:"))
        })
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
}

fn hunks_of(diff: &str) -> HashMap<String, Vec<(u32, u32)>> {
    let mut out: HashMap<String, Vec<(u32, u32)>> = HashMap::new();
    let mut current: Option<String> = None;
    for line in diff.lines() {
        if let Some(p) = line.strip_prefix("--- a/") {
            current = Some(p.to_string());
        } else if line.starts_with("--- ") {
            current = None;
        } else if let Some(rest) = line.strip_prefix("@@ -")
            && let Some(path) = &current
        {
            let old = rest.split_whitespace().next().unwrap_or("");
            let (start, count) = match old.split_once(',') {
                Some((a, b)) => (a.parse().unwrap_or(0), b.parse().unwrap_or(0)),
                None => (old.parse().unwrap_or(0), 1),
            };
            out.entry(path.clone()).or_default().push((start, count));
        }
    }
    out
}

/// Issue texts to use as goals, each with the commit that fixed it (a prefix of its id): read
/// from a file of JSON lines `{"commit": "…", "goal": "…"}` (other fields ignored).
fn issue_texts(file: &str) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(file).expect("the --issues file");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            let field = |k: &str| v[k].as_str().expect("commit and goal strings").to_string();
            (field("commit"), field("goal"))
        })
        .collect()
}

/// The cases of `repo`, newest first, at most `want`: fixing commits with the commit message as
/// the goal, or, given `issues`, the commits they name with the issue's text as the goal.
fn cases(repo: &Path, want: usize, issues: Option<&[(String, String)]>) -> Vec<Case> {
    let log = git(
        repo,
        &[
            "log",
            "--no-merges",
            "-n",
            "4000",
            "--format=%H%x00%P%x00%B%x1e",
            "HEAD",
        ],
    );
    let mut out = Vec::new();
    for entry in log.split('\x1e') {
        let mut fields = entry.trim_start_matches('\n').splitn(3, '\0');
        let (Some(commit), Some(parents), Some(message)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let parents: Vec<&str> = parents.split_whitespace().collect();
        let subject = message.lines().next().unwrap_or("");
        let goal = match issues {
            Some(issues) => match issues.iter().find(|(c, _)| commit.starts_with(c.as_str())) {
                Some((_, text)) => text.clone(),
                None => continue,
            },
            None if fixes_something(subject) => goal_of(message),
            None => continue,
        };
        if parents.len() != 1 || goal.split_whitespace().count() < 4 {
            continue;
        }
        let status = git(
            repo,
            &[
                "diff-tree",
                "-r",
                "--no-renames",
                "--name-status",
                parents[0],
                commit,
            ],
        );
        let changed: Vec<(&str, &str)> =
            status.lines().filter_map(|l| l.split_once('\t')).collect();
        let gold: Vec<&str> = changed
            .iter()
            .filter(|(_, p)| is_gold_candidate(p))
            .map(|(_, p)| *p)
            .collect();
        let all_modified = changed
            .iter()
            .filter(|(_, p)| is_gold_candidate(p))
            .all(|(s, _)| *s == "M");
        if gold.is_empty() || gold.len() > 4 || !all_modified {
            continue;
        }
        let mut args = vec!["diff", "-U0", "--no-renames", parents[0], commit, "--"];
        args.extend(gold.iter().copied());
        let diff = git(repo, &args);
        let changed_lines = diff
            .lines()
            .filter(|l| {
                (l.starts_with('+') || l.starts_with('-'))
                    && !l.starts_with("+++")
                    && !l.starts_with("---")
            })
            .count();
        if changed_lines == 0 || changed_lines > 300 {
            continue;
        }
        let hunks = hunks_of(&diff);
        out.push(Case {
            commit: commit.to_string(),
            parent: parents[0].to_string(),
            goal,
            gold: gold
                .iter()
                .map(|p| Gold {
                    path: p.to_string(),
                    hunks: hunks.get(*p).cloned().unwrap_or_default(),
                })
                .collect(),
        });
        if out.len() >= want {
            break;
        }
    }
    out
}

/// Whether a hunk's old lines are in a block: by its line ranges, or (for a cut block) by
/// its text. A pure insertion needs the line before it.
fn hunk_shown(block: &Block, old_text: &[&str], hunk: (u32, u32)) -> bool {
    let (start, count) = hunk;
    let (first, last) = if count == 0 {
        (start.max(1), start.max(1))
    } else {
        (start, start + count - 1)
    };
    if block.ranges.is_empty() && !block.truncated {
        return true;
    }
    // A block of windows the diet cut is judged by what its text still holds.
    if !block.ranges.is_empty() && !block.truncated {
        return block.ranges.iter().any(|&(a, b)| a <= first && last <= b);
    }
    let lines: Vec<&str> = block.body.lines().collect();
    (first..=last).all(|n| {
        let Some(text) = old_text.get(n as usize - 1) else {
            return true;
        };
        text.trim().is_empty() || lines.contains(text)
    })
}

fn judge(case: &Case, blocks: &[Block], texts: &HashMap<String, String>, millis: f64) -> Outcome {
    let file = |path: &str| {
        blocks
            .iter()
            .find(|b| b.kind == BlockKind::File && b.title == path)
    };
    let map = blocks
        .iter()
        .find(|b| b.kind == BlockKind::Map)
        .map_or("", |b| b.body.as_str());
    let sent = case.gold.iter().all(|g| file(&g.path).is_some());
    let hunks = case.gold.iter().all(|g| {
        let Some(block) = file(&g.path) else {
            return false;
        };
        let old: Vec<&str> = texts
            .get(&g.path)
            .map_or(Vec::new(), |t| t.lines().collect());
        g.hunks.iter().all(|&h| hunk_shown(block, &old, h))
    });
    let seen = case.gold.iter().all(|g| {
        file(&g.path).is_some()
            || map.starts_with(&format!("Definitions:\n{}\n  ", g.path))
            || map.contains(&format!("\n{}\n  ", g.path))
    });
    Outcome {
        sent,
        hunks,
        seen,
        chars: blocks.iter().map(|b| b.body.chars().count()).sum(),
        millis,
    }
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The baseline: BM25 over each file's words, the best 8 files cut to the diet.
fn bm25_blocks(files: &[(String, String)], goal: &str, budget: &Budget) -> Vec<Block> {
    let docs: Vec<HashMap<String, u32>> = files
        .iter()
        .map(|(_, text)| {
            let mut tf = HashMap::new();
            for w in words(text) {
                *tf.entry(w).or_insert(0) += 1;
            }
            tf
        })
        .collect();
    let lens: Vec<f64> = docs
        .iter()
        .map(|d| d.values().sum::<u32>() as f64)
        .collect();
    let n = docs.len() as f64;
    let avg = lens.iter().sum::<f64>() / n.max(1.0);
    let mut query = words(goal);
    query.sort();
    query.dedup();
    let mut scores = vec![0.0f64; docs.len()];
    for term in &query {
        let df = docs.iter().filter(|d| d.contains_key(term)).count() as f64;
        if df == 0.0 {
            continue;
        }
        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        for (i, d) in docs.iter().enumerate() {
            if let Some(&tf) = d.get(term) {
                let tf = f64::from(tf);
                scores[i] += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * lens[i] / avg));
            }
        }
    }
    let mut order: Vec<usize> = (0..docs.len()).filter(|&i| scores[i] > 0.0).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    let mut blocks = Vec::new();
    let mut total = 0;
    for i in order.into_iter().take(budget.max_files) {
        let (path, text) = &files[i];
        let room = budget
            .max_total_chars
            .saturating_sub(total)
            .min(budget.max_file_chars);
        if room < 100 {
            break;
        }
        let body = git_papayu::context::truncate(text, room);
        total += body.chars().count();
        blocks.push(Block {
            kind: BlockKind::File,
            title: path.clone(),
            source: "bm25".to_string(),
            priority: 3,
            truncated: body.len() != text.len(),
            full_chars: text.chars().count(),
            body,
            ranges: Vec::new(),
            blob: None,
            sha256: None,
            score: Some(scores[i]),
        });
    }
    blocks
}

/// One case's outcome, papayu's and the baseline's, with what it is sorted by.
struct Record {
    repo: String,
    language: &'static str,
    files: usize,
    ours: Outcome,
    base: Outcome,
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut want = 40;
    if let Some(i) = args.iter().position(|a| a == "--cases") {
        want = args.get(i + 1).and_then(|n| n.parse().ok()).unwrap_or(40);
        args.drain(i..=(i + 1).min(args.len() - 1));
    }
    let mut issues = None;
    if let Some(i) = args.iter().position(|a| a == "--issues") {
        issues = args.get(i + 1).map(|f| issue_texts(f));
        args.drain(i..=(i + 1).min(args.len() - 1));
    }
    let misses = match args.iter().position(|a| a == "--misses") {
        Some(i) => {
            args.remove(i);
            true
        }
        None => false,
    };
    if args.is_empty() {
        eprintln!("usage: bench/context_quality.sh [--cases N] [--issues FILE] [--misses] REPO…");
        std::process::exit(2);
    }
    let budget = Budget::default();
    let verbose = misses || std::env::var_os("PAPAYU_BENCH_VERBOSE").is_some();
    let mut records = Vec::new();
    for repo in &args {
        let path = Path::new(repo);
        let name = path
            .components()
            .rev()
            .find(|c| !matches!(c.as_os_str().to_str(), Some("repo" | ".git")))
            .map_or(repo.clone(), |c| {
                c.as_os_str().to_string_lossy().into_owned()
            });
        let language = repo_language(path);
        let store = Store::open_at(path).expect("a git repository");
        if verbose {
            eprintln!("== {name}");
        }
        for case in &cases(path, want, issues.as_deref()) {
            let (ours, base) = run_case(&store, case, &budget, verbose);
            records.push(Record {
                repo: name.clone(),
                language,
                files: case.gold.len(),
                ours,
                base,
            });
        }
    }
    report(&records, &budget);
}

/// Gathers a case's context as a plan would, and the baseline's, and judges both.
fn run_case(store: &Store, case: &Case, budget: &Budget, verbose: bool) -> (Outcome, Outcome) {
    let parent = Oid::from_str(&case.parent).expect("commit id");
    let snap = store.snapshot(parent).expect("parent commit");
    let input = Input {
        goal: case.goal.clone(),
        logs: Vec::new(),
        protocol: ProtocolVersion::V2,
    };
    let started = Instant::now();
    let (blocks, _) = diet(gather(&snap, &input, budget).blocks, budget);
    let millis = started.elapsed().as_secs_f64() * 1000.0;
    let ids: Vec<Oid> = snap.files().iter().map(|(_, id)| *id).collect();
    let files: Vec<(String, String)> = snap
        .map_blobs(&ids, |_, bytes| {
            (bytes.len() <= 1 << 20 && !bytes.contains(&0))
                .then(|| String::from_utf8_lossy(bytes).into_owned())
        })
        .into_iter()
        .map(|(i, text)| (snap.files()[i].0.clone(), text))
        .collect();
    let texts: HashMap<String, String> = case
        .gold
        .iter()
        .filter_map(|g| {
            files
                .iter()
                .find(|(p, _)| *p == g.path)
                .map(|(p, t)| (p.clone(), t.clone()))
        })
        .collect();
    let ours = judge(case, &blocks, &texts, millis);
    if verbose && !(ours.sent && ours.hunks) {
        print_miss(case, &blocks, &ours);
        print_places(&snap, case, &blocks);
    }
    let started = Instant::now();
    let baseline = bm25_blocks(&files, &case.goal, budget);
    let millis = started.elapsed().as_secs_f64() * 1000.0;
    (ours, judge(case, &baseline, &texts, millis))
}

/// What was sent for a case papayu missed, and where the gold hunks were.
fn print_miss(case: &Case, blocks: &[Block], ours: &Outcome) {
    let what = if ours.sent { "HUNKS" } else { "MISS" };
    eprintln!(
        "{what} {} (at its parent {}): {:?}",
        &case.commit[..8],
        &case.parent[..8],
        case.goal.lines().next().unwrap_or("")
    );
    for g in &case.gold {
        let block = blocks
            .iter()
            .find(|b| b.kind == BlockKind::File && b.title == g.path);
        let shown = match block {
            None => "not sent".to_string(),
            Some(b) if b.ranges.is_empty() => format!("sent, truncated {}", b.truncated),
            Some(b) => format!("sent {:?} ({})", b.ranges, b.source),
        };
        eprintln!("  gold {} hunks {:?}: {shown}", g.path, g.hunks);
    }
    for b in blocks.iter().filter(|b| b.kind == BlockKind::File) {
        if !case.gold.iter().any(|g| g.path == b.title) {
            eprintln!("  sent {} ({})", b.title, b.source);
        }
    }
}

/// Where each gold file that was not sent stands in the ranking, and why.
fn print_places(snap: &git_papayu::store::Snapshot<'_>, case: &Case, blocks: &[Block]) {
    let corpus = Corpus::of(snap);
    let query = Query::of(&case.goal, &[]);
    let ranking = rank(&corpus, &query, &snap.recent_changes(), &|_| true);
    let map = blocks
        .iter()
        .find(|b| b.kind == BlockKind::Map)
        .map_or("", |b| b.body.as_str());
    for g in &case.gold {
        if blocks
            .iter()
            .any(|b| b.kind == BlockKind::File && b.title == g.path)
        {
            continue;
        }
        let mapped = map.starts_with(&format!("Definitions:\n{}\n  ", g.path))
            || map.contains(&format!("\n{}\n  ", g.path));
        let seen = if mapped {
            "in the map"
        } else {
            "NOT in the map"
        };
        match ranking.files.iter().position(|r| r.path == g.path) {
            Some(i) => eprintln!(
                "  place {} of {}, {seen}: {} {:.2} ({}) vs #1 {:.2}",
                i + 1,
                ranking.files.len(),
                g.path,
                ranking.files[i].score,
                ranking.files[i].reasons.join("; "),
                ranking.files[0].score
            ),
            None => eprintln!("  place none, {seen}: {}", g.path),
        }
    }
}

fn score_of<'r>(records: impl Iterator<Item = &'r Record>) -> (Score, Score) {
    let (mut ours, mut base) = (Score::default(), Score::default());
    for r in records {
        ours.add(&r.ours);
        base.add(&r.base);
    }
    (ours, base)
}

fn report(records: &[Record], budget: &Budget) {
    let mut repos: Vec<(&str, &str)> = Vec::new();
    for r in records {
        if !repos.iter().any(|(name, _)| *name == r.repo) {
            repos.push((&r.repo, r.language));
        }
    }
    header("repository (language)");
    for (name, language) in &repos {
        let (ours, base) = score_of(records.iter().filter(|r| r.repo == *name));
        row(&format!("{name} ({language})"), &ours, &base);
    }
    let (ours_all, base_all) = score_of(records.iter());
    row("**all**", &ours_all, &base_all);

    let size = |r: &Record| {
        if r.files == 1 {
            "1 file"
        } else {
            "2–4 files"
        }
    };
    let mut sets: Vec<&str> = records.iter().map(|r| language_set(r.language)).collect();
    sets.sort_by_key(|s| (s.len(), *s));
    sets.dedup();
    println!();
    header("language set, fix size");
    for set in &sets {
        let of_set = |r: &&Record| language_set(r.language) == *set;
        for wanted in ["1 file", "2–4 files"] {
            let (ours, base) =
                score_of(records.iter().filter(of_set).filter(|r| size(r) == wanted));
            if ours.cases > 0 {
                row(&format!("{set}, {wanted}"), &ours, &base);
            }
        }
        let (ours, base) = score_of(records.iter().filter(of_set));
        row(&format!("**{set}**"), &ours, &base);
    }
    for wanted in ["1 file", "2–4 files"] {
        let (ours, base) = score_of(records.iter().filter(|r| size(r) == wanted));
        row(&format!("**all, {wanted}**"), &ours, &base);
    }

    let mut languages: Vec<&str> = records.iter().map(|r| r.language).collect();
    languages.sort();
    languages.dedup();
    println!();
    header("language");
    for language in languages {
        let (ours, base) = score_of(records.iter().filter(|r| r.language == language));
        row(language, &ours, &base);
    }
    println!();
    println!(
        "papayu sends every gold file in {:.1} % of {} cases, BM25 in {:.1} % ({:+.1} points, {:.2}×); gold hunks shown {:.1} % vs {:.1} %; every gold file seen {:.1} %; at most {} characters (diet: {}); {:.0} ms a plan on average, {:.0} ms at most.",
        ours_all.pct(ours_all.sent),
        ours_all.cases,
        base_all.pct(base_all.sent),
        ours_all.pct(ours_all.sent) - base_all.pct(base_all.sent),
        ours_all.sent as f64 / base_all.sent.max(1) as f64,
        ours_all.pct(ours_all.hunks),
        base_all.pct(base_all.hunks),
        ours_all.pct(ours_all.seen),
        ours_all.max_chars,
        budget.max_total_chars,
        ours_all.millis / ours_all.cases.max(1) as f64,
        ours_all.max_millis
    );
}

fn header(first: &str) {
    println!(
        "| {first} | cases | sent: papayu | sent: BM25 | hunks: papayu | hunks: BM25 | seen: papayu | chars: papayu (mean / max) | chars: BM25 | time: papayu (mean / max) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
}

fn row(name: &str, ours: &Score, base: &Score) {
    println!(
        "| {name} | {} | {:.1} % | {:.1} % | {:.1} % | {:.1} % | {:.1} % | {:.0} / {} | {:.0} | {:.0} / {:.0} ms |",
        ours.cases,
        ours.pct(ours.sent),
        base.pct(base.sent),
        ours.pct(ours.hunks),
        base.pct(base.hunks),
        ours.pct(ours.seen),
        ours.chars as f64 / ours.cases.max(1) as f64,
        ours.max_chars,
        base.chars as f64 / base.cases.max(1) as f64,
        ours.millis / ours.cases.max(1) as f64,
        ours.max_millis
    );
}
