//! Every command block of the README runs as written, in order, as a reader would type them:
//! with the built binary on PATH instead of an installed one, and the providers' base URLs
//! pointing at in-process fake servers that speak OpenAI's and Anthropic's wire formats.
//!
//! The convention the README follows:
//!
//! - commands are in ```` ```sh ```` fences, and only there (no indented code blocks, no other
//!   shell fences), so none escapes this test;
//! - a block runs in the project the README speaks of — a repository whose tests fail, with
//!   their output in `test.log` and two answers pasted from chats in `a.json` and `b.json` —
//!   except the quickstart (between its `quickstart` markers), which starts from the root of this
//!   repository, as it says;
//! - a block preceded by `<!-- readme-test: skip: WHY -->` is not run; there are few such
//!   blocks (installing, running the tests), and each says why.
//!
//! The blocks run in one shell, so what one exports or configures holds for the next, and
//! `pytest` is a small stand-in that runs the project's test functions and prints pytest's `-rA`
//! summary lines.

use crate::common;
use common::fake_llm::{self, FakeLlm, Wire};

use std::path::Path;

/// One fenced command block of the README.
#[derive(Debug)]
struct Block {
    /// The line of its opening fence (from 1).
    line: usize,
    code: String,
    /// Why it is not run, when it is marked so.
    skip: Option<String>,
    /// Inside the quickstart markers: run from the root of this repository.
    quickstart: bool,
}

const SKIP: &str = "<!-- readme-test: skip:";
/// The most blocks the README may keep out of this test.
const MAX_SKIPPED: usize = 3;

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md")
}

/// The README's ```` ```sh ```` blocks, in order.
fn blocks(readme: &str) -> Vec<Block> {
    let lines: Vec<&str> = readme.lines().collect();
    let mut out = Vec::new();
    let mut quickstart = false;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        quickstart = match line.trim() {
            "<!-- quickstart:begin -->" => true,
            "<!-- quickstart:end -->" => false,
            _ => quickstart,
        };
        if line.trim_end() != "```sh" {
            i += 1;
            continue;
        }
        let skip = i
            .checked_sub(1)
            .and_then(|p| lines[p].trim().strip_prefix(SKIP))
            .map(|why| why.trim_end_matches("-->").trim().to_string());
        let end = (i + 1..lines.len())
            .find(|&j| lines[j].trim_end() == "```")
            .unwrap_or_else(|| panic!("README line {}: the fence is never closed", i + 1));
        out.push(Block {
            line: i + 1,
            code: lines[i + 1..end].join("\n"),
            skip,
            quickstart,
        });
        i = end + 1;
    }
    out
}

#[test]
fn readme_commands_are_in_sh_fences_and_few_are_skipped() {
    let readme = readme();
    let mut in_fence = false;
    let mut previous_blank = true;
    for (n, line) in readme.lines().enumerate() {
        if line.starts_with("```") {
            let info = line.trim_start_matches('`').trim();
            assert!(
                in_fence || !matches!(info, "bash" | "shell" | "console" | "zsh" | "shell-session"),
                "README line {}: commands go in ```sh fences, which tests/it/readme.rs runs",
                n + 1
            );
            in_fence = !in_fence;
        } else if !in_fence {
            assert!(
                !(previous_blank && line.starts_with("    ")),
                "README line {}: an indented code block; fence it as ```sh so the README test runs it",
                n + 1
            );
        }
        previous_blank = line.trim().is_empty();
    }
    let blocks = blocks(&readme);
    let skipped: Vec<&Block> = blocks.iter().filter(|b| b.skip.is_some()).collect();
    assert!(
        skipped.len() <= MAX_SKIPPED,
        "{} blocks skipped: {skipped:?}",
        skipped.len()
    );
    for b in &skipped {
        let why = b.skip.as_deref().unwrap_or_default();
        assert!(
            why.len() >= 20,
            "README line {}: say why the block is skipped",
            b.line
        );
    }
    assert!(blocks.iter().filter(|b| b.skip.is_none()).count() >= 5);
    assert_eq!(blocks.iter().filter(|b| b.quickstart).count(), 1);
}

/// The project the README's examples speak of.
const PARSER: &str = "def parse(value):\n    return value.strip()\n";
const TESTS: &str = "from textparse import parse\n\n\ndef test_strips():\n    assert parse(\"  a \") == \"a\"\n\n\ndef test_none():\n    assert parse(None) is None\n";
const LOG: &str = "=================================== FAILURES ===================================\n___________________________________ test_none __________________________________\n\n    def test_none():\n>       assert parse(None) is None\n\ntest_textparse.py:9:\n_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _\n\n    def parse(value):\n>       return value.strip()\nE       AttributeError: 'NoneType' object has no attribute 'strip'\n\ntextparse.py:2: AttributeError\n=========================== short test summary info ============================\nPASSED test_textparse.py::test_strips\nFAILED test_textparse.py::test_none - AttributeError: 'NoneType' object has no attribute 'strip'\n========================= 1 failed, 1 passed in 0.01s ==========================\n";

/// pytest's `-rA` summary for the project's test functions, without pytest.
const PYTEST: &str = r#"import glob, importlib.util, sys
sys.path.insert(0, ".")
sys.dont_write_bytecode = True
lines, failed = [], 0
for path in sorted(glob.glob("test_*.py")):
    spec = importlib.util.spec_from_file_location(path[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in sorted(n for n in dir(module) if n.startswith("test_")):
        try:
            getattr(module, name)()
            lines.append(f"PASSED {path}::{name}")
        except Exception as e:
            failed += 1
            lines.append(f"FAILED {path}::{name} - {type(e).__name__}")
print("=========================== short test summary info ============================")
print("\n".join(lines))
sys.exit(1 if failed else 0)
"#;

/// The guards the fake model adds to `parse()`, one per answer: the first the file lacks.
fn guard(body: &str) -> String {
    ["if value is None:", "if value == []:", "if not value:"]
        .iter()
        .map(|g| g.to_string())
        .chain((0..).map(|n| format!("if value == {n}:")))
        .find(|g| !body.contains(g.as_str()))
        .expect("an endless list")
}

/// A model that fixes `parse()` one case at a time: it reads `textparse.py` from the context it
/// is sent (the v2 FILE block carries the file's SHA-256) and answers with a REPLACE_RANGE that
/// adds the next guard under the `def` line; without the file, it asks for it.
fn parser_model(body: &str) -> String {
    if body.contains("Write a test that reproduces the problem") {
        return reproducing_test(body);
    }
    let marker = "FILE[textparse.py] (sha256=";
    let Some(at) = body.find(marker) else {
        return serde_json::json!({
            "summary": "need to see the parser",
            "actions": [],
            "context_requests": [{"type": "read_file", "path": "textparse.py"}]
        })
        .to_string();
    };
    let sha: String = body[at + marker.len()..].chars().take(64).collect();
    let guard = guard(body);
    let answer = serde_json::json!({
        "summary": format!("parse(): {guard} return None"),
        "actions": [{
            "kind": "REPLACE_RANGE",
            "path": "textparse.py",
            "start_line": 1,
            "end_line": 1,
            "base_sha256": sha,
            "content": format!("def parse(value):\n    {guard}\n        return None\n"),
        }]
    });
    format!("Here is the plan:\n```json\n{answer}\n```\n")
}

/// Asked for a reproduction, the model writes a test of the case its next guard handles: it
/// fails until the fix adds that guard.
fn reproducing_test(body: &str) -> String {
    let guard = guard(body);
    let case = match guard.as_str() {
        "if value is None:" => "None".to_string(),
        "if value == []:" => "[]".to_string(),
        "if not value:" => "\"\"".to_string(),
        other => other
            .trim_start_matches("if value == ")
            .trim_end_matches(':')
            .to_string(),
    };
    let test = format!(
        "from textparse import parse\n\n\ndef test_case():\n    assert parse({case}) is None\n"
    );
    serde_json::json!({
        "summary": format!("reproduce parse({case})"),
        "actions": [{"kind": "CREATE_FILE", "path": "test_repro.py", "content": test}]
    })
    .to_string()
}

/// A recorded answer, as pasted from a chat: a new file.
fn pasted(path: &str, text: &str) -> String {
    serde_json::json!({
        "summary": format!("Document parse() in {path}"),
        "actions": [{"kind": "CREATE_FILE", "path": path, "content": text}]
    })
    .to_string()
}

/// The project, committed, with the log and the pasted answers beside it (untracked).
fn project(dir: &Path) {
    for (path, text) in [
        ("textparse.py", PARSER),
        ("test_textparse.py", TESTS),
        (".gitignore", "__pycache__/\n"),
    ] {
        std::fs::write(dir.join(path), text).unwrap();
    }
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["add", "."],
        &["commit", "-q", "-m", "textparse"],
    ] {
        common::run_in(dir, "git", args, None).ok();
    }
    std::fs::write(dir.join("test.log"), LOG).unwrap();
    std::fs::write(
        dir.join("a.json"),
        pasted("PARSING.md", "parse() strips text.\n"),
    )
    .unwrap();
    std::fs::write(
        dir.join("b.json"),
        pasted("PARSING.md", "parse(value) strips whitespace.\n"),
    )
    .unwrap();
}

/// The shell script: the blocks in order, each announced, each from where it runs.
fn script(blocks: &[Block], root: &Path, project: &Path) -> String {
    let mut out = String::from("set -euo pipefail\n");
    for b in blocks.iter().filter(|b| b.skip.is_none()) {
        let from = if b.quickstart { root } else { project };
        out.push_str(&format!(
            "echo '### README line {line}' | tee /dev/stderr\ncd '{dir}'\n{code}\n",
            line = b.line,
            dir = from.display(),
            code = b.code
        ));
    }
    out.push_str("echo '### README done'\n");
    out
}

/// The real interpreter behind `python3` (a version manager's shim may need a HOME the check's
/// sandbox does not give it).
fn python() -> Option<String> {
    let out = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .ok()?;
    let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !path.is_empty()).then_some(path)
}

#[test]
fn readme_command_blocks_run_as_written() {
    if !common::tool(
        "man",
        "the README runs git papayu --help, which git hands to man",
    ) {
        return;
    }
    let Some(python) = python() else {
        common::skip("the README's check runs the project's Python tests");
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scratch = tempfile::tempdir().unwrap();
    let home = scratch.path().join("home");
    let dir = scratch.path().join("project");
    let bin = scratch.path().join("bin");
    for d in [&home, &dir, &bin] {
        std::fs::create_dir_all(d).unwrap();
    }
    project(&dir);
    // The team's remote the README's team lines name.
    let origin = scratch.path().join("origin.git");
    let origin_path = origin.to_str().unwrap();
    common::run_in(
        scratch.path(),
        "git",
        ["init", "-q", "--bare", origin_path],
        None,
    )
    .ok();
    common::run_in(&dir, "git", ["remote", "add", "origin", origin_path], None).ok();
    common::run_in(&dir, "git", ["push", "-q", "origin", "main"], None).ok();
    let pytest = bin.join("pytest");
    std::fs::write(&pytest, format!("#!{python}\n{PYTEST}")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&pytest, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(home.join(".gitconfig"), "").unwrap();

    let openai = FakeLlm::start(vec![fake_llm::computed(Wire::Chat, parser_model)]);
    let anthropic = FakeLlm::start(vec![fake_llm::computed(Wire::Anthropic, parser_model)]);
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::split_paths(&std::env::var_os("PATH").unwrap())
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(":")
    );
    let blocks = blocks(&readme());
    let run = common::hermetic("bash", &dir)
        .env("PATH", format!("{}:{path}", common::bin_dir().display()))
        .env("HOME", &home)
        .env("TMPDIR", scratch.path())
        .env("GIT_CONFIG_GLOBAL", home.join(".gitconfig"))
        .env("OPENAI_BASE_URL", format!("{}/v1", openai.url()))
        .env("ANTHROPIC_BASE_URL", anthropic.url())
        .env("PAPAYU_LLM_RETRY_BASE_MS", "1")
        .env("PAPAYU_LLM_TIMEOUT_SEC", "20")
        .env("LANG", "C.UTF-8")
        .env("MANPAGER", "cat")
        .env("MANWIDTH", "80")
        .args(["-c", &script(&blocks, root, &dir)])
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    let dump = format!("--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}");
    assert!(run.status.success(), "a README block failed\n{dump}");
    assert!(stdout.contains("### README done"), "{dump}");

    // The quickstart: plan → apply → merge → undo, and the completion script in place.
    for expected in [
        "Applied plan",
        "Merged plan",
        "Handle None in parse()",
        "Undid: merge",
    ] {
        assert!(stdout.contains(expected), "{expected:?}\n{dump}");
    }
    let completion = home.join(".local/share/bash-completion/completions/git-papayu");
    let script = std::fs::read_to_string(&completion).expect("the completion script is installed");
    assert!(script.contains("_git_papayu ()"), "{script}");
    assert!(
        !stderr.contains("APPLY_SUCCESS"),
        "no event lines unless verbose: {stderr}"
    );
    // Every provider the README names was asked, openai for the model configured globally
    // although `--provider openai,…` named it without one.
    let openai = openai.requests();
    assert!(!openai.is_empty() && !anthropic.requests().is_empty());
    assert!(
        openai.iter().all(|r| r.json["model"] == "gpt-5-mini"),
        "{:?}",
        openai.iter().map(|r| &r.json["model"]).collect::<Vec<_>>()
    );
    // Proposals applied side by side close each on lines of their own.
    assert_eq!(
        stdout.matches("Applied plan").count(),
        stdout
            .lines()
            .filter(|l| l.starts_with("Applied plan"))
            .count(),
        "{dump}"
    );
    assert!(!stderr.contains("troff"), "{dump}");
}
