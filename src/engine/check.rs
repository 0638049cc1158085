//! Running the user's check command inside a check worktree.
//!
//! The command comes from the user only: `--check`, `PAPAYU_CHECK_COMMAND`, `git config
//! papayu.checkCommand`, or `default_test_command` in `.papa-yu/project.json` as committed in
//! a commit the user made (see [`Store::trusted_commit`]). Never from a plan, which could otherwise
//! choose how it is judged: not from the plan under test, and not from an earlier proposal that
//! nobody merged yet.
//!
//! The command runs code a model wrote, so it runs in a sandbox (see [`super::sandbox`]), with
//! an environment reduced to an allowlist, in its own process group that a timeout, a Ctrl-C or
//! papayu's own death kills whole, in a worktree cleaned of whatever an earlier check left
//! behind and locked for as long as any process of the check lives. This module never prints:
//! live output goes to the caller's sink.

use std::io::Read;
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::sandbox::{self, Enforced, Policy};
use crate::codes::{Code, Problem};
use crate::settings::Settings;
use crate::store::worktree::Slot;
use crate::store::{FileAt, Oid, Store, StoreError};

#[cfg(test)]
use super::check_env::passes;
use super::check_env::set_environment;
pub use super::check_env::{environment, is_secret_var};

/// The project file a repository may commit, with its default check.
pub const PROJECT_FILE: &str = ".papa-yu/project.json";

/// The default time a check may take.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// Where the check command should come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckChoice {
    /// Look it up in the environment, git config, then the project file.
    Configured,
    /// Run exactly this.
    Command(String),
    /// Do not run a check.
    Skip,
}

/// How a check runs: sandbox, network, time limit.
#[derive(Debug, Clone)]
pub struct CheckSettings {
    /// Allow network access (`--check-network`, `papayu.checkNetwork`).
    pub network: bool,
    /// Kill the check's whole process group after this long; `None` = no limit.
    pub timeout: Option<Duration>,
    /// Confine the check with Landlock where the kernel has it (`papayu.checkSandbox`).
    pub sandbox: bool,
    /// Extra directories the check may write (`papayu.checkWritable`, one per value).
    pub writable: Vec<std::path::PathBuf>,
    /// Environment variables passed to the check beyond the built-in few (`papayu.checkEnv`):
    /// names, or prefixes ending in `*`.
    pub env: Vec<String>,
    /// Build caches kept in the check worktree from one check to the next (`papayu.checkCache`,
    /// gitignore patterns); `None` keeps [`DEFAULT_CACHES`].
    pub cache: Option<Vec<String>>,
    /// The configured command and what set it (`PAPAYU_CHECK_COMMAND`, then
    /// `papayu.checkCommand`); without one, the project file's test command.
    pub configured: Option<(String, &'static str)>,
}

/// The build caches kept by default; `/target` only where the tree has a `Cargo.toml`.
///
/// Only caches whose tools key what they keep by content (or rebuild whatever changed since):
/// Python's bytecode is keyed by a source's size and mtime in whole seconds, so a same-size edit
/// checked out within a second reuses the other tree's code, and a `.pyc` can be told to skip
/// the check entirely (PEP 552). Python therefore writes its bytecode outside the tree, in the
/// check's private directory (`PYTHONPYCACHEPREFIX`); pytest's cache (`--lf`, `--sw`) and
/// Gradle's project directory, which remember earlier runs, are not kept either.
pub const DEFAULT_CACHES: &[&str] = &["node_modules/.cache"];

impl Default for CheckSettings {
    fn default() -> Self {
        CheckSettings {
            network: false,
            timeout: Some(DEFAULT_TIMEOUT),
            sandbox: true,
            writable: Vec::new(),
            env: Vec::new(),
            cache: None,
            configured: None,
        }
    }
}

impl CheckSettings {
    /// The settings from git config, overridden by flags: `network` is `--check-network`,
    /// `timeout_secs` is `--check-timeout` (0 = no limit).
    pub fn resolve(
        config: &Settings,
        network: bool,
        timeout_secs: Option<u64>,
    ) -> Result<CheckSettings, Problem> {
        let network = network || config.flag("papayu.checkNetwork")?.unwrap_or(false);
        let sandbox = config.flag("papayu.checkSandbox")?.unwrap_or(true);
        let secs = match timeout_secs {
            Some(s) => s,
            None => config
                .number("papayu.checkTimeout")?
                .and_then(|n| u64::try_from(n).ok())
                .unwrap_or(DEFAULT_TIMEOUT.as_secs()),
        };
        let writable = config
            .git_all("papayu.checkWritable")
            .iter()
            .filter(|v| !v.trim().is_empty())
            .map(|v| expand_home(v))
            .collect();
        let names: Vec<String> = config
            .git_all("papayu.checkEnv")
            .into_iter()
            .map(str::to_string)
            .collect();
        let env = parse_env_names(&names).ok_or_else(|| {
            invalid_config(
                "papayu.checkEnv",
                "environment variable names (NAME, or PREFIX* for several)",
            )
        })?;
        // Set at all, it replaces the defaults; a single empty value keeps nothing.
        let cache = config.git_all("papayu.checkCache");
        let cache = (!cache.is_empty()).then(|| {
            cache
                .iter()
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
                .collect()
        });
        let configured = match config.env("PAPAYU_CHECK_COMMAND") {
            Some(c) if !c.trim().is_empty() => Some((c.to_string(), "PAPAYU_CHECK_COMMAND")),
            _ => config
                .git("papayu.checkCommand")
                .filter(|c| !c.trim().is_empty())
                .map(|c| (c.to_string(), "git config papayu.checkCommand")),
        };
        Ok(CheckSettings {
            network,
            timeout: (secs > 0).then(|| Duration::from_secs(secs)),
            sandbox,
            writable,
            env,
            cache,
            configured,
        })
    }
}

/// The names in `papayu.checkEnv` values (several per value, separated by spaces or commas);
/// `None` when one is not a variable name or a prefix ending in `*`.
fn parse_env_names(values: &[String]) -> Option<Vec<String>> {
    let mut names = Vec::new();
    for name in values
        .iter()
        .flat_map(|v| v.split(|c: char| c == ',' || c.is_whitespace()))
        .filter(|n| !n.is_empty())
    {
        let stem = name.strip_suffix('*').unwrap_or(name);
        let valid = stem.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !stem.starts_with(|c: char| c.is_ascii_digit())
            && (!stem.is_empty() || name.is_empty());
        if !valid {
            return None;
        }
        names.push(name.to_string());
    }
    Some(names)
}

fn invalid_config(key: &str, expected: &str) -> Problem {
    Problem::new(
        Code::CheckConfigInvalid,
        format!("git config {key} must be {expected}; fix it with git config {key} VALUE"),
    )
}

fn expand_home(value: &str) -> std::path::PathBuf {
    match (value.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => std::path::PathBuf::from(home).join(rest),
        _ => std::path::PathBuf::from(value),
    }
}

/// A check command and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedCheck {
    pub command: String,
    /// `--check`, `PAPAYU_CHECK_COMMAND`, `papayu.checkCommand`, or the project file and the
    /// commit it was read from.
    pub source: String,
}

/// What a check did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CheckReport {
    pub command: String,
    /// Where the command came from.
    pub source: String,
    pub exit_code: Option<i32>,
    pub passed: bool,
    /// The check ran past its time limit and its process group was killed.
    pub timed_out: bool,
    /// What the sandbox enforced.
    pub sandbox: Enforced,
    /// The check's processes ran in a PID namespace of their own, so none outlived it; without
    /// one, its process group and the orphans marked as its own were killed at its end.
    pub pid_namespace: bool,
    /// The last lines of the command's combined output.
    pub output_tail: String,
    /// `true` when the worktree had to be created rather than updated.
    pub fresh_worktree: bool,
    pub seconds: f64,
}

/// The check command to run, if any. `base` is the commit the plan applies onto.
pub fn resolve(
    store: &Store,
    choice: &CheckChoice,
    settings: &CheckSettings,
    base: Oid,
) -> Result<Option<ResolvedCheck>, Problem> {
    let found = |command: String, source: &str| {
        Some(ResolvedCheck {
            command,
            source: source.to_string(),
        })
    };
    match choice {
        CheckChoice::Skip => return Ok(None),
        CheckChoice::Command(c) => return Ok(found(c.clone(), "--check")),
        CheckChoice::Configured => {}
    }
    if let Some((c, source)) = &settings.configured {
        return Ok(found(c.clone(), source));
    }
    let commit = store
        .trusted_commit(base)
        .map_err(|e| Problem::new(Code::Git, format!("reading history: {e}")))?;
    Ok(project_test_command(store, commit)?.map(|c| ResolvedCheck {
        command: c,
        source: format!("{PROJECT_FILE} at {}", crate::store::short(commit)),
    }))
}

/// The project preferences, type-checked. Only the test command is used here; the other fields
/// are declared so that a wrong type in any of them is reported rather than ignored.
#[derive(serde::Deserialize)]
#[allow(dead_code)]
struct ProjectFile {
    default_test_command: Option<String>,
    #[serde(default)]
    default_lint_command: Option<String>,
    #[serde(default)]
    default_format_command: Option<String>,
    #[serde(default)]
    build_command: Option<String>,
    #[serde(default)]
    package_manager: Option<String>,
    #[serde(default)]
    ci_notes: Option<String>,
    #[serde(default)]
    src_roots: Option<Vec<String>>,
    #[serde(default)]
    test_roots: Option<Vec<String>>,
}

/// `default_test_command` from the project file at `commit`; an unreadable or ill-typed file is
/// an error, never a silently skipped check.
fn project_test_command(store: &Store, commit: Oid) -> Result<Option<String>, Problem> {
    let Some(text) = read_project_file(store, commit)? else {
        return Ok(None);
    };
    let invalid = |why: String| {
        Problem::new(
            Code::ProjectConfigInvalid,
            format!(
                "{PROJECT_FILE} at {}: {why}; fix it, or choose the check with --check or --no-check",
                crate::store::short(commit)
            ),
        )
    };
    let value: serde_json::Value =
        serde_json::from_slice(&text).map_err(|e| invalid(format!("not valid JSON ({e})")))?;
    if !value.is_object() {
        return Err(invalid("the top level must be a JSON object".into()));
    }
    let file: ProjectFile = serde_json::from_value(value).map_err(|e| invalid(format!("{e}")))?;
    Ok(file.default_test_command.filter(|c| !c.trim().is_empty()))
}

fn read_project_file(store: &Store, commit: Oid) -> Result<Option<Vec<u8>>, Problem> {
    match store.file_at(commit, PROJECT_FILE) {
        Ok(FileAt::File(bytes)) => Ok(Some(bytes)),
        Ok(FileAt::Missing) => Ok(None),
        Ok(FileAt::NotAFile) => Err(Problem::new(
            Code::ProjectConfigInvalid,
            format!("{PROJECT_FILE} is not a file; make it one, or choose the check with --check"),
        )),
        Err(e) => Err(Problem::new(
            Code::Git,
            format!("reading {PROJECT_FILE}: {e}"),
        )),
    }
}

/// Deletes what an earlier check left where the verdict is read from (a report in a kept cache
/// survives the clean). A directory there is left alone: nothing is read from it.
fn forget_report(path: &std::path::Path) -> Result<(), StoreError> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if !meta.is_dir() => std::fs::remove_file(path)
            .map_err(|e| StoreError::io(format!("removing {}", path.display()), e)),
        _ => Ok(()),
    }
}

/// The build caches the slot keeps for a check of `commit`.
pub fn caches(store: &Store, commit: Oid, settings: &CheckSettings) -> Vec<String> {
    if let Some(list) = &settings.cache {
        return list.clone();
    }
    let mut list: Vec<String> = DEFAULT_CACHES.iter().map(|c| c.to_string()).collect();
    if matches!(store.file_at(commit, "Cargo.toml"), Ok(FileAt::File(_))) {
        list.insert(0, "/target".into());
    }
    list
}

/// Moves a slot to `commit`, cleans it, and runs `command` there with `sh -c`, sandboxed, in
/// its own process group. Every chunk of output is passed to `output` as it arrives. `report`
/// is a file the verdict will be read from (a JUnit report, relative to the top): it is
/// deleted before the check starts, so only this run can have written what is read there.
pub fn run(
    store: &Store,
    slot: &Slot,
    commit: Oid,
    (check, report): (&ResolvedCheck, Option<&std::path::Path>),
    plan_id: &str,
    settings: &CheckSettings,
    output: &mut dyn FnMut(&[u8]),
) -> Result<CheckReport, StoreError> {
    let started = Instant::now();
    let fresh = slot.update(store, commit, &caches(store, commit, settings))?;
    // Through real directories only: a symbolic link in the tree cannot point papayu's
    // deletion outside it.
    if let Some(report) = report.and_then(|r| super::reports::inside(&slot.path, r)) {
        forget_report(&report)?;
    }
    // The build tools' own reports too: one a kept directory held, or the tree itself planted.
    for stale in super::reports::report_files(&slot.path) {
        forget_report(&stale)?;
    }
    let tmp = tempfile::Builder::new()
        .prefix("papayu-check-")
        .tempdir()
        .map_err(|e| StoreError::io("creating the check's temporary directory", e))?;
    let token = uuid::Uuid::new_v4().simple().to_string();
    let env = CheckEnv {
        commit,
        plan_id,
        token: &token,
        tmp: tmp.path(),
    };
    let (cmd, reader) = check_command(slot, &check.command, settings, &env)?;
    let mut writable = vec![slot.path.clone(), tmp.path().to_path_buf()];
    writable.extend(settings.writable.iter().cloned());
    let policy = Policy {
        writable,
        network: settings.network,
    };
    // Watched from before the check starts: a Ctrl-C at any moment after this cancels it.
    let interrupt = super::interrupt::Watch::install();
    let sandbox::Spawned {
        child,
        enforced: sandbox,
        contained,
    } = spawn_check(cmd, check, settings.sandbox.then_some(&policy))?;
    if !contained.pid_namespace {
        super::contain::become_subreaper();
    }
    // From here on the check's group dies with papayu, however papayu dies.
    let reaper = Reaper::start(child.id());
    let (chunks, received) = mpsc::channel::<Vec<u8>>();
    let pump = std::thread::spawn(move || pump(reader, chunks));
    let mut running = Running {
        child,
        pid_namespace: contained.pid_namespace,
        token,
        received,
        kept: Tail::default(),
    };
    let deadline = settings.timeout.map(|t| started + t);
    let (status, timed_out) = match running.wait(&interrupt, deadline, output)? {
        Ended::Exited { status, timed_out } => (status, timed_out),
        Ended::Interrupted => return Err(cancelled(check)),
    };
    running.end_what_it_started();
    drop(reaper);
    // A Ctrl-C as the check ended still cancels: the user asked before anything was applied.
    if interrupt.hit() {
        return Err(cancelled(check));
    }
    drop(interrupt);
    running.drain(output);
    if pump.is_finished() {
        let _ = pump.join();
    }
    Ok(CheckReport {
        command: check.command.clone(),
        source: check.source.clone(),
        exit_code: status.code(),
        passed: status.success() && !timed_out,
        timed_out,
        sandbox,
        pid_namespace: contained.pid_namespace,
        output_tail: tail(&String::from_utf8_lossy(&running.kept.bytes), 40, 4000),
        fresh_worktree: fresh,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// What a check's environment names besides the allowlist: the commit and plan it checks,
/// the token that marks its processes, its private temporary directory.
struct CheckEnv<'a> {
    commit: Oid,
    plan_id: &'a str,
    token: &'a str,
    tmp: &'a std::path::Path,
}

/// `sh -c COMMAND` in the slot, in a process group of its own, its stdout and stderr one
/// pipe whose reading end is returned.
fn check_command(
    slot: &Slot,
    command: &str,
    settings: &CheckSettings,
    env: &CheckEnv<'_>,
) -> Result<(std::process::Command, std::io::PipeReader), StoreError> {
    let (reader, writer) =
        std::io::pipe().map_err(|e| StoreError::io("creating a pipe for the check output", e))?;
    let writer2 = writer
        .try_clone()
        .map_err(|e| StoreError::io("sharing the check output pipe", e))?;
    let mut cmd = crate::store::command("sh");
    cmd.arg("-c")
        .arg(command)
        .current_dir(&slot.path)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(writer2);
    set_environment(&mut cmd, &settings.env, env.tmp);
    cmd.env("PAPAYU_PLAN", env.plan_id)
        .env("PAPAYU_COMMIT", env.commit.to_string())
        .env(super::contain::TOKEN_VAR, env.token);
    #[cfg(unix)]
    {
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        share_lock(&mut cmd, slot);
    }
    Ok((cmd, reader))
}

/// Starts the check, confined to `policy` when given. Spawning consumes `cmd`, closing our
/// ends of the output pipe, so the reader sees EOF once the check's processes are gone.
fn spawn_check(
    cmd: std::process::Command,
    check: &ResolvedCheck,
    policy: Option<&Policy>,
) -> Result<sandbox::Spawned, StoreError> {
    sandbox::spawn(cmd, policy).map_err(|e| {
        StoreError::Problem(Problem::new(
            Code::CheckSandbox,
            format!(
                "could not start the check `{}`: {e}; if its sandbox is the cause, git config papayu.checkSandbox false runs checks unconfined",
                check.command
            ),
        ))
    })
}

/// How a check's process ended.
enum Ended {
    Exited {
        status: std::process::ExitStatus,
        /// It was killed at its deadline.
        timed_out: bool,
    },
    /// A Ctrl-C stopped it, and everything it started.
    Interrupted,
}

/// A check's process as it runs, and the output it has sent so far.
struct Running {
    child: std::process::Child,
    pid_namespace: bool,
    /// The mark its processes carry, to find those that left its group.
    token: String,
    received: mpsc::Receiver<Vec<u8>>,
    kept: Tail,
}

impl Running {
    /// Waits for the check to end, passing its output on as it comes; at the `deadline` its
    /// group is killed, and at an `interrupt` everything it started.
    fn wait(
        &mut self,
        interrupt: &super::interrupt::Watch,
        deadline: Option<Instant>,
        output: &mut dyn FnMut(&[u8]),
    ) -> Result<Ended, StoreError> {
        let mut closed = false;
        loop {
            if interrupt.hit() {
                kill_group(self.child.id());
                let _ = self.child.wait();
                self.sweep();
                return Ok(Ended::Interrupted);
            }
            if !closed {
                closed = !self.receive_a_while(output);
            }
            if let Some(status) = self
                .child
                .try_wait()
                .map_err(|e| StoreError::io("waiting for the check", e))?
            {
                return Ok(Ended::Exited {
                    status,
                    timed_out: false,
                });
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                kill_group(self.child.id());
                let status = self
                    .child
                    .wait()
                    .map_err(|e| StoreError::io("waiting for the killed check", e))?;
                return Ok(Ended::Exited {
                    status,
                    timed_out: true,
                });
            }
            if closed {
                // The output is closed but the check runs on: poll its exit.
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    }

    /// Passes on the output that arrives within 50 ms; `false` once the output is closed.
    fn receive_a_while(&mut self, output: &mut dyn FnMut(&[u8])) -> bool {
        match self.received.recv_timeout(Duration::from_millis(50)) {
            Ok(chunk) => {
                output(&chunk);
                self.kept.push(&chunk);
                true
            }
            Err(mpsc::RecvTimeoutError::Timeout) => true,
            Err(mpsc::RecvTimeoutError::Disconnected) => false,
        }
    }

    /// Whatever the check left running (a server it started, a stray background job) goes
    /// with it: nothing it started outlives the check. In a PID namespace the kernel has done
    /// this already, for every session; without one, the group and the marked orphans go.
    fn end_what_it_started(&self) {
        kill_group(self.child.id());
        self.sweep();
    }

    fn sweep(&self) {
        if !self.pid_namespace {
            super::contain::sweep(&self.token);
        }
    }

    /// Passes on the output still in the pipe, waiting for it up to two seconds.
    fn drain(&mut self, output: &mut dyn FnMut(&[u8])) {
        let drain_until = Instant::now() + Duration::from_secs(2);
        while let Ok(chunk) = self
            .received
            .recv_timeout(drain_until.saturating_duration_since(Instant::now()))
        {
            output(&chunk);
            self.kept.push(&chunk);
        }
    }
}

/// Makes every process of the check hold the slot's lock: the child clears close-on-exec on
/// the lock's descriptor, which its own children then inherit.
#[cfg(unix)]
fn share_lock(cmd: &mut std::process::Command, slot: &Slot) {
    use std::os::unix::process::CommandExt;
    let lock = slot.lock_fd();
    // SAFETY: runs in the forked child before exec; fcntl is async-signal-safe.
    unsafe {
        cmd.pre_exec(move || {
            if libc::fcntl(lock, libc::F_SETFD, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// The refusal for a check cancelled by Ctrl-C (or SIGTERM, SIGHUP).
fn cancelled(check: &ResolvedCheck) -> StoreError {
    StoreError::Problem(Problem::new(
        Code::Cancelled,
        format!(
            "cancelled; nothing applied: the check `{}` and everything it started were stopped; run the same command again to retry",
            check.command
        ),
    ))
}

fn pump(mut reader: std::io::PipeReader, chunks: mpsc::Sender<Vec<u8>>) {
    let mut buf = [0u8; 8192];
    while let Ok(n) = reader.read(&mut buf) {
        if n == 0 || chunks.send(buf[..n].to_vec()).is_err() {
            break;
        }
    }
}

/// Kills the check's process group when papayu dies, however it dies (SIGKILL included): a
/// shell, outside the check's group and sandbox, blocks reading a pipe that only papayu holds
/// open. The kernel closes it when papayu exits, the read returns, and the shell kills the
/// group. The check's own leader also has `PR_SET_PDEATHSIG`; this reaches the processes it
/// started.
struct Reaper {
    shell: Option<std::process::Child>,
    _alive: Option<std::io::PipeWriter>,
}

impl Reaper {
    fn start(pgid: u32) -> Reaper {
        let spawned = std::io::pipe().and_then(|(reader, writer)| {
            let mut cmd = crate::store::command("sh");
            cmd.arg("-c")
                .arg(r#"read _ ; kill -s KILL -- "-$1""#)
                .arg("papayu-check-reaper")
                .arg(pgid.to_string())
                .stdin(reader)
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            // Its own group: a Ctrl-C meant for papayu must not end it.
            #[cfg(unix)]
            std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
            Ok((cmd.spawn()?, writer))
        });
        match spawned {
            Ok((shell, writer)) => Reaper {
                shell: Some(shell),
                _alive: Some(writer),
            },
            // Without it the leader still dies with papayu (PR_SET_PDEATHSIG).
            Err(_) => Reaper {
                shell: None,
                _alive: None,
            },
        }
    }
}

impl Drop for Reaper {
    /// papayu is alive and has killed the group itself: stop the shell before closing the
    /// pipe, so it never signals a process group id the system may have reused.
    fn drop(&mut self) {
        if let Some(shell) = &mut self.shell {
            let _ = shell.kill();
            let _ = shell.wait();
        }
    }
}

/// Kills every process in the check's process group.
fn kill_group(pid: u32) {
    #[cfg(unix)]
    if let Ok(pid) = i32::try_from(pid) {
        // SAFETY: kill(2) with a negative pid signals the process group the check leads; it
        // was created for the check alone (`process_group(0)`).
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}

/// The last bytes of the output, bounded so a chatty check cannot fill memory.
#[derive(Default)]
struct Tail {
    bytes: Vec<u8>,
}

impl Tail {
    const KEEP: usize = 64 * 1024;

    fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend_from_slice(chunk);
        if self.bytes.len() > 2 * Self::KEEP {
            let cut = self.bytes.len() - Self::KEEP;
            self.bytes.drain(..cut);
        }
    }
}

/// The last `lines` lines of `text`, at most `chars` characters.
fn tail(text: &str, lines: usize, chars: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    let kept = all[all.len().saturating_sub(lines)..].join("\n");
    let count = kept.chars().count();
    if count > chars {
        kept.chars().skip(count - chars).collect()
    } else {
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_the_end() {
        assert_eq!(tail("a\nb\nc\n", 2, 100), "b\nc");
        assert_eq!(tail("abcdef", 5, 3), "def");
    }

    #[test]
    fn secret_variables() {
        for name in [
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
            "PAPAYU_LLM_API_KEY",
            "FOO_TOKEN",
            "BAR_SECRET",
            "X_API_KEY",
            "github_token",
            "AWS_SECRET_ACCESS_KEY",
            "DB_PASSWORD",
        ] {
            assert!(is_secret_var(name), "{name}");
        }
        for name in ["PATH", "HOME", "TOKENIZERS_PARALLELISM", "KEYBOARD", "LANG"] {
            assert!(!is_secret_var(name), "{name}");
        }
    }

    #[test]
    fn only_the_allowlist_and_named_variables_pass() {
        let named = parse_env_names(&["CARGO_HOME, RUSTUP_HOME".into(), "MY_*".into()]).unwrap();
        for name in [
            "PATH",
            "LANG",
            "LC_ALL",
            "TERM",
            "TZ",
            "CARGO_HOME",
            "MY_FLAG",
        ] {
            assert!(passes(name, &named), "{name}");
        }
        for name in [
            "HOME",
            "MY_API_TOKEN",
            "PRIVATE_KEY",
            "DATABASE_URL",
            "SSH_AUTH_SOCK",
            "OPENAI_API_KEY",
            "MYFLAG",
        ] {
            assert!(!passes(name, &named), "{name}");
        }
        assert!(parse_env_names(&["9LIVES".into()]).is_none());
        assert!(parse_env_names(&["A=B".into()]).is_none());
        assert!(parse_env_names(&["*".into()]).is_none());
        assert_eq!(parse_env_names(&[" ".into()]), Some(vec![]));
    }

    #[test]
    fn the_tail_buffer_stays_bounded() {
        let mut t = Tail::default();
        for _ in 0..100 {
            t.push(&[b'x'; 10_000]);
        }
        assert!(t.bytes.len() <= 2 * Tail::KEEP);
        assert!(t.bytes.len() >= Tail::KEEP);
    }
}
