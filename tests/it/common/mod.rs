//! Shared harness for integration tests: temporary repositories with a clean git environment
//! and fixed dates, and the built binary run as `git papayu`.
#![allow(dead_code)]

pub mod fake_llm;

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Directory holding the built `git-papayu`, so `git papayu` finds it on `PATH`.
pub fn bin_dir() -> PathBuf {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_git-papayu"));
    exe.parent().expect("binary has a parent").to_path_buf()
}

fn path_with_bin() -> std::ffi::OsString {
    let mut paths = vec![bin_dir()];
    if let Some(p) = std::env::var_os("PATH") {
        paths.extend(std::env::split_paths(&p));
    }
    std::env::join_paths(paths).expect("joinable PATH")
}

/// A command with the hermetic environment every test uses.
pub fn hermetic(program: &str, cwd: &Path) -> Command {
    let mut cmd = Command::new(program);
    cmd.current_dir(cwd)
        .env_clear()
        .env("PATH", path_with_bin())
        .env("HOME", cwd)
        .env("XDG_CONFIG_HOME", cwd.join(".xdg-test-config"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Test Author")
        .env("GIT_AUTHOR_EMAIL", "author@example.com")
        .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_COMMITTER_NAME", "Test Committer")
        .env("GIT_COMMITTER_EMAIL", "committer@example.com")
        .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_PAGER", "cat")
        .env("PAGER", "cat")
        .env("LANG", "C")
        .env("NO_COLOR", "1")
        // The manual's first-run install writes beside the built binary; its own tests turn it on.
        .env("PAPAYU_INSTALL_MAN", "0");
    cmd
}

/// The result of one command, with everything needed to explain a failure.
#[derive(Debug)]
pub struct Run {
    pub cmdline: String,
    pub status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    fn from_output(cmdline: String, out: Output) -> Run {
        Run {
            cmdline,
            status: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    fn dump(&self) -> String {
        format!(
            "command: {}\nexit: {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.cmdline, self.status, self.stdout, self.stderr
        )
    }

    /// Asserts exit 0 and returns self.
    pub fn ok(self) -> Run {
        assert_eq!(self.status, Some(0), "expected success\n{}", self.dump());
        self
    }

    /// Asserts the given exit code and returns self.
    pub fn code(self, code: i32) -> Run {
        assert_eq!(
            self.status,
            Some(code),
            "expected exit {code}\n{}",
            self.dump()
        );
        self
    }

    /// Asserts exit 1 with `ERR_CODE` on stderr.
    pub fn err(self, err_code: &str) -> Run {
        assert_eq!(
            self.status,
            Some(1),
            "expected exit 1 with {err_code}\n{}",
            self.dump()
        );
        assert!(
            self.stderr.contains(err_code),
            "expected {err_code} on stderr\n{}",
            self.dump()
        );
        self
    }

    /// Exit 1 under `--json`: one JSON document on stdout whose `errors` hold `err_code`.
    pub fn json_err(self, err_code: &str) -> serde_json::Value {
        assert_eq!(
            self.status,
            Some(1),
            "expected exit 1 with {err_code}\n{}",
            self.dump()
        );
        let doc: serde_json::Value = serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not one JSON document ({e})\n{}", self.dump()));
        assert_eq!(doc["ok"], false, "{}", self.dump());
        let codes: Vec<&str> = doc["errors"]
            .as_array()
            .expect("errors")
            .iter()
            .filter_map(|e| e["code"].as_str())
            .collect();
        assert!(
            codes.contains(&err_code),
            "expected {err_code} in the JSON errors\n{}",
            self.dump()
        );
        doc
    }
}

/// Runs `program args…` in `cwd` with optional stdin.
pub fn run_in<I, S>(cwd: &Path, program: &str, args: I, stdin: Option<&[u8]>) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    run_in_env(cwd, program, args, &[], stdin)
}

/// Runs `program args…` in `cwd` with extra environment variables and optional stdin.
pub fn run_in_env<I, S>(
    cwd: &Path,
    program: &str,
    args: I,
    env: &[(&str, &str)],
    stdin: Option<&[u8]>,
) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let args: Vec<std::ffi::OsString> = args.into_iter().map(|a| a.as_ref().to_owned()).collect();
    let cmdline = std::iter::once(program.to_string())
        .chain(args.iter().map(|a| a.to_string_lossy().into_owned()))
        .collect::<Vec<_>>()
        .join(" ");
    let mut cmd = hermetic(program, cwd);
    cmd.envs(env.iter().copied());
    cmd.args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {cmdline}: {e}"));
    if let Some(input) = stdin {
        let mut pipe = child.stdin.take().expect("stdin piped");
        let input = input.to_vec();
        std::thread::spawn(move || {
            let _ = pipe.write_all(&input);
        });
    }
    let out = child.wait_with_output().expect("wait");
    Run::from_output(cmdline, out)
}

/// A temporary git repository with one initial commit on `main`.
pub struct TestRepo {
    pub dir: tempfile::TempDir,
}

impl TestRepo {
    /// An empty repository (no commits yet) on branch `main`.
    pub fn empty() -> TestRepo {
        let dir = tempfile::Builder::new()
            .prefix("papayu-test")
            .tempdir()
            .expect("tempdir");
        let repo = TestRepo { dir };
        repo.git(["init", "-q", "-b", "main"]).ok();
        repo
    }

    /// A repository whose first commit holds `files` (path, content).
    pub fn with_files(files: &[(&str, &str)]) -> TestRepo {
        let repo = TestRepo::empty();
        for (path, content) in files {
            repo.write(path, content);
        }
        repo.commit_all("initial");
        repo
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn write(&self, path: &str, content: &str) {
        let full = self.path().join(path);
        std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
        std::fs::write(full, content).expect("write");
    }

    pub fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.path().join(path)).expect("read")
    }

    pub fn commit_all(&self, message: &str) -> String {
        self.git(["add", "-A"]).ok();
        self.git(["commit", "-q", "-m", message]).ok();
        self.rev("HEAD")
    }

    pub fn git<I, S>(&self, args: I) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        run_in(self.path(), "git", args, None)
    }

    /// Runs `git papayu args…`.
    pub fn papayu<I, S>(&self, args: I) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut all: Vec<std::ffi::OsString> = vec!["papayu".into()];
        all.extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        run_in(self.path(), "git", all, None)
    }

    /// Runs `git papayu args…` with extra environment variables.
    pub fn papayu_env<I, S>(&self, args: I, env: &[(&str, &str)]) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut all: Vec<std::ffi::OsString> = vec!["papayu".into()];
        all.extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        run_in_env(self.path(), "git", all, env, None)
    }

    /// Runs `git papayu args…` with `stdin` fed to it.
    pub fn papayu_stdin<I, S>(&self, args: I, stdin: &[u8]) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut all: Vec<std::ffi::OsString> = vec!["papayu".into()];
        all.extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        run_in(self.path(), "git", all, Some(stdin))
    }

    /// Stores `answer` as a plan for `goal` (`plan GOAL --response -`) and returns its full id.
    pub fn plan_id(&self, goal: &str, answer: &str) -> String {
        let run = self
            .papayu_stdin(
                ["--json", "plan", goal, "--response", "-"],
                answer.as_bytes(),
            )
            .ok();
        let out: serde_json::Value =
            serde_json::from_str(&run.stdout).expect("plan --json prints JSON");
        out["plans"][0]["plan"]["id"]
            .as_str()
            .expect("plan id")
            .to_string()
    }

    /// The one proposal branch (`papayu/…`) the repository has, by its short name.
    pub fn proposal_branch(&self) -> String {
        self.git([
            "for-each-ref",
            "--format=%(refname:short)",
            "refs/heads/papayu/",
        ])
        .ok()
        .stdout
        .trim()
        .to_string()
    }

    /// The full object id `rev` resolves to.
    pub fn rev(&self, rev: &str) -> String {
        self.git(["rev-parse", "--verify", "-q", rev])
            .ok()
            .stdout
            .trim()
            .to_string()
    }

    /// Asserts `git fsck --strict` reports nothing wrong.
    pub fn fsck(&self) {
        let run = self.git(["fsck", "--strict", "--no-progress"]);
        assert_eq!(run.status, Some(0), "git fsck failed\n{}", run.dump());
        assert!(
            !run.stderr.contains("error"),
            "git fsck complained\n{}",
            run.dump()
        );
    }

    /// Refs, HEAD, staged entries and status: like `snapshot`, but blind to the index file's
    /// stat cache (git rewrites it on an aborted merge without changing what it records).
    pub fn logical_snapshot(&self) -> String {
        let refs = self
            .git(["for-each-ref", "--format=%(refname) %(objectname)"])
            .ok()
            .stdout;
        let head = self.git(["symbolic-ref", "-q", "HEAD"]).stdout;
        let staged = self.git(["ls-files", "--stage"]).ok().stdout;
        let status = self
            .git(["status", "--porcelain=v2", "--untracked-files=all"])
            .ok()
            .stdout;
        format!("{refs}\nHEAD={head}\nstaged={staged}\nstatus={status}")
    }

    /// Every ref and its value, plus HEAD, index and status: compare before/after to prove a
    /// command left the user's repository alone.
    pub fn snapshot(&self) -> String {
        let refs = self
            .git(["for-each-ref", "--format=%(refname) %(objectname)"])
            .ok()
            .stdout;
        let head = self.git(["symbolic-ref", "-q", "HEAD"]).stdout;
        let index = std::fs::read(self.path().join(".git/index")).unwrap_or_default();
        let index = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            index.hash(&mut h);
            h.finish()
        };
        let status = self
            .git(["status", "--porcelain=v2", "--untracked-files=all"])
            .ok()
            .stdout;
        format!("{refs}\nHEAD={head}\nindex={index:x}\nstatus={status}")
    }
}

/// A tiny deterministic generator (xorshift), so a failing case can be replayed from its seed.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Whether `program` is on `PATH`. A test that cannot run without it calls this first and
/// returns early when it is missing, saying so on stderr; with `PAPAYU_TEST_REQUIRE_TOOLS=1`
/// (set by `.ci/run`, which installs them) a missing tool fails the test instead, so CI can never
/// pass a test that did not run.
pub fn tool(program: &str, why: &str) -> bool {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        skip(&format!("{program} is not installed: {why}"));
    }
    found
}

/// Reports a test that cannot run here: on stderr, or as a failure under
/// `PAPAYU_TEST_REQUIRE_TOOLS=1`.
pub fn skip(why: &str) {
    if std::env::var_os("PAPAYU_TEST_REQUIRE_TOOLS").is_some_and(|v| v == "1") {
        panic!("PAPAYU_TEST_REQUIRE_TOOLS=1, yet {why}");
    }
    eprintln!("skipped: {why}");
}

/// Waits (at most a minute) until a process named `name` runs below process `ancestor`;
/// `false` if none appeared. Read from `/proc`, so a test can act at a known moment rather
/// than after a guessed sleep.
pub fn wait_for_descendant(ancestor: u32, name: &str) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::time::Instant::now() < deadline {
        if descendants_named(ancestor, name) {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    false
}

fn descendants_named(ancestor: u32, name: &str) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    let parent_of = |pid: u32| -> Option<(u32, String)> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // pid (comm) state ppid …; comm may hold spaces and parentheses.
        let open = stat.find('(')?;
        let close = stat.rfind(')')?;
        let comm = stat[open + 1..close].to_string();
        let ppid = stat[close + 2..].split(' ').nth(1)?.parse().ok()?;
        Some((ppid, comm))
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        let Some((mut up, comm)) = parent_of(pid) else {
            continue;
        };
        if comm != name {
            continue;
        }
        while up > 1 {
            if up == ancestor {
                return true;
            }
            match parent_of(up) {
                Some((next, _)) => up = next,
                None => break,
            }
        }
    }
    false
}

/// The small Python project most scenarios start from, and its one function.
pub const PARSER: &str = "def parse(value):\n    return value.strip()\n";

/// A repository holding [`PARSER`] as `src/parser.py`, and a README.
pub fn parser_repo() -> TestRepo {
    TestRepo::with_files(&[("src/parser.py", PARSER), ("README.md", "# demo\n")])
}

/// An environment pointing papayu at an OpenAI-compatible fake server.
pub fn compat_env(fake: &fake_llm::FakeLlm) -> Vec<(String, String)> {
    vec![
        ("PAPAYU_LLM_API_URL".into(), format!("{}/v1", fake.url())),
        ("PAPAYU_LLM_MODEL".into(), "test-model".into()),
        ("PAPAYU_LLM_TIMEOUT_SEC".into(), "5".into()),
        ("PAPAYU_LLM_RETRY_BASE_MS".into(), "1".into()),
    ]
}

/// `git papayu ARGS` in `repo` with `env` added.
pub fn run_with_env(repo: &TestRepo, args: &[&str], env: &[(String, String)]) -> Run {
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    repo.papayu_env(args, &env)
}

/// A plan answer creating one file.
pub fn create_answer(path: &str, content: &str) -> String {
    serde_json::json!({
        "summary": format!("Add {path}"),
        "actions": [{"kind": "CREATE_FILE", "path": path, "content": content}]
    })
    .to_string()
}

/// A clone of the repository at `remote`, in a new temporary directory.
pub fn clone_of(remote: &Path) -> TestRepo {
    let dir = tempfile::Builder::new()
        .prefix("papayu-clone")
        .tempdir()
        .expect("tempdir");
    run_in(
        dir.path(),
        "git",
        ["clone", "-q", remote.to_str().unwrap(), "."],
        None,
    )
    .ok();
    TestRepo { dir }
}

/// Configures a provider `name` served by `fake` on the OpenAI wire (model `<name>-model`),
/// with a price when given.
pub fn openai_provider(repo: &TestRepo, name: &str, fake: &fake_llm::FakeLlm, price: Option<&str>) {
    let url = format!("{}/v1", fake.url());
    repo.git(["config", &format!("papayu.{name}.url"), &url])
        .ok();
    repo.git(["config", &format!("papayu.{name}.wire"), "openai"])
        .ok();
    repo.git([
        "config",
        &format!("papayu.{name}.model"),
        &format!("{name}-model"),
    ])
    .ok();
    if let Some(price) = price {
        repo.git(["config", &format!("papayu.{name}.price"), price])
            .ok();
    }
}

/// Fetches papayu's notes from `from` (a remote name or a path) straight into the notes ref,
/// as a teammate's arrive without `git papayu sync`.
pub fn fetch_notes(repo: &TestRepo, from: &str) {
    repo.git(["fetch", "-q", from, "refs/notes/papayu:refs/notes/papayu"])
        .ok();
}

/// A bare repository holding `origin`'s history in a directory of its own: the team's remote
/// for clones made with [`clone_of`]. The directory lives as long as the returned handle.
pub fn bare_remote(origin: &TestRepo) -> (tempfile::TempDir, PathBuf) {
    let home = tempfile::Builder::new()
        .prefix("papayu-test")
        .tempdir()
        .expect("tempdir");
    let remote = home.path().join("remote.git");
    let (from, to) = (origin.path().to_str().unwrap(), remote.to_str().unwrap());
    run_in(
        home.path(),
        "git",
        ["clone", "-q", "--bare", from, to],
        None,
    )
    .ok();
    (home, remote)
}
