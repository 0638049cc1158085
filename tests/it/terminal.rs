//! On a terminal: colour by git's settings (`--color`, `color.ui`, `color.papayu`, `color.diff`
//! and its slots, `NO_COLOR`, `TERM=dumb`) and the pager (`GIT_PAGER`, `core.pager`,
//! `pager.papayu`), run under a real pseudo-terminal; and neither when output is a pipe.

use crate::common;

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::process::Stdio;

use common::TestRepo;

/// An `on_terminal` environment value that removes the variable.
const UNSET: &str = "\0unset";
const GREEN_ADD: &str = "\x1b[32m+b";
const ANSWER: &str = r#"{"summary": "add b", "actions": [{"kind": "CREATE_FILE", "path": "b.txt", "content": "b\n"}]}"#;

/// Runs `git papayu ARGS` with stdout and stderr on a new pseudo-terminal; returns what the
/// terminal received and the exit status.
fn on_terminal(repo: &TestRepo, args: &[&str], env: &[(&str, &str)]) -> (String, Option<i32>) {
    on_terminal_with(repo, &[], args, env)
}

/// [`on_terminal`] with git's own options before the subcommand: `git OPTS papayu ARGS`.
fn on_terminal_with(
    repo: &TestRepo,
    git_opts: &[&str],
    args: &[&str],
    env: &[(&str, &str)],
) -> (String, Option<i32>) {
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty writes two new descriptors into the integers passed; the name, termios
    // and window size arguments may be null.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(rc, 0, "openpty");
    // SAFETY: both descriptors were just opened by openpty and are owned here alone.
    let (master, slave) = unsafe { (File::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let mut cmd = common::hermetic("git", repo.path());
    cmd.args(git_opts)
        .arg("papayu")
        .args(args)
        .env_remove("NO_COLOR")
        .env("TERM", "xterm")
        .stdin(Stdio::null())
        .stdout(Stdio::from(slave.try_clone().unwrap()))
        .stderr(Stdio::from(slave));
    for (k, v) in env {
        match *v {
            UNSET => cmd.env_remove(k),
            v => cmd.env(k, v),
        };
    }
    let mut child = cmd.spawn().expect("git papayu runs");
    // The command holds the terminal's other end until dropped; the reader sees its end only
    // when every copy is closed.
    drop(cmd);
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    let mut master = master;
    loop {
        match master.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
        }
    }
    let status = child.wait().unwrap().code();
    (String::from_utf8_lossy(&out).replace("\r\n", "\n"), status)
}

/// Like [`on_terminal`], with stdin on the terminal too: when the terminal has shown `prompt`,
/// `answer` is typed. Returns everything the terminal showed, the typed answer's echo included.
fn on_terminal_answering(
    repo: &TestRepo,
    args: &[&str],
    env: &[(&str, &str)],
    prompt: &str,
    answer: &str,
) -> (String, Option<i32>) {
    on_sized_terminal(repo, args, env, 80, Some((prompt, answer)))
}

/// `git papayu ARGS` on a terminal `columns` wide, stdin included; `answer.1` is typed once the
/// terminal has shown `answer.0`.
fn on_sized_terminal(
    repo: &TestRepo,
    args: &[&str],
    env: &[(&str, &str)],
    columns: u16,
    answer: Option<(&str, &str)>,
) -> (String, Option<i32>) {
    let (mut master, mut slave) = (0, 0);
    let size = libc::winsize {
        ws_row: 24,
        ws_col: columns,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: as in `on_terminal`; the window size is read, not kept.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        )
    };
    assert_eq!(rc, 0, "openpty");
    // SAFETY: both descriptors were just opened by openpty and are owned here alone.
    let (mut master, slave) = unsafe { (File::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let mut cmd = common::hermetic("git", repo.path());
    cmd.arg("papayu")
        .args(args)
        .env_remove("NO_COLOR")
        .env("TERM", "xterm")
        .stdin(Stdio::from(slave.try_clone().unwrap()))
        .stdout(Stdio::from(slave.try_clone().unwrap()))
        .stderr(Stdio::from(slave));
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("git papayu runs");
    drop(cmd);
    let mut typist = master.try_clone().unwrap();
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    let mut answered = false;
    loop {
        match master.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
        }
        if let Some((prompt, answer)) = answer
            && !answered
            && String::from_utf8_lossy(&out).contains(prompt)
        {
            answered = true;
            typist.write_all(answer.as_bytes()).unwrap();
        }
    }
    let status = child.wait().unwrap().code();
    (String::from_utf8_lossy(&out).replace("\r\n", "\n"), status)
}

fn repo() -> TestRepo {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.write(".git/answer.json", ANSWER);
    repo
}

fn plan(repo: &TestRepo, extra: &[&str], env: &[(&str, &str)]) -> String {
    let mut args = vec!["plan", "Add b", "--response", ".git/answer.json"];
    args.extend_from_slice(extra);
    let (out, status) = on_terminal(repo, &args, env);
    assert_eq!(status, Some(0), "{out}");
    out
}

#[test]
fn the_preview_is_coloured_on_a_terminal_by_git_settings() {
    let repo = repo();
    let out = plan(&repo, &[], &[]);
    assert!(out.contains(GREEN_ADD), "{out:?}");
    assert!(out.contains("\x1b[1mdiff --git a/b.txt b/b.txt"), "{out:?}");

    repo.git(["config", "color.diff.new", "blue bold"]).ok();
    let out = plan(&repo, &[], &[]);
    assert!(
        out.contains("\x1b[34;1m+b"),
        "color.diff.new is used: {out:?}"
    );

    for (extra, env, why) in [
        (vec!["--color=never"], vec![], "--color=never"),
        (vec![], vec![("NO_COLOR", "1")], "NO_COLOR"),
        (vec![], vec![("TERM", "dumb")], "TERM=dumb"),
    ] {
        let out = plan(&repo, &extra, &env);
        assert!(!out.contains("\x1b["), "{why} turns colour off: {out:?}");
    }

    repo.git(["config", "color.ui", "never"]).ok();
    let out = plan(&repo, &[], &[]);
    assert!(!out.contains("\x1b["), "color.ui=never: {out:?}");
    repo.git(["config", "color.diff", "auto"]).ok();
    let out = plan(&repo, &[], &[]);
    assert!(
        out.contains("\x1b[34;1m+b"),
        "color.diff wins over color.ui for diffs: {out:?}"
    );
    let out = plan(&repo, &["--color=always"], &[("NO_COLOR", "1")]);
    assert!(out.contains("\x1b[34;1m+b"), "--color=always wins: {out:?}");
}

#[test]
fn git_papayu_diff_honours_no_color_as_the_preview_does() {
    let repo = repo();
    plan(&repo, &[], &[]);
    let (out, status) = on_terminal(&repo, &["diff"], &[]);
    assert_eq!(status, Some(0), "{out}");
    assert!(
        out.contains("\x1b[32m+\x1b[m\x1b[32mb"),
        "git diff colours a terminal: {out:?}"
    );
    let (out, status) = on_terminal(&repo, &["diff"], &[("NO_COLOR", "1")]);
    assert_eq!(status, Some(0), "{out}");
    assert!(out.contains("+b"), "{out:?}");
    assert!(!out.contains("\x1b["), "NO_COLOR turns colour off: {out:?}");
    let (out, _) = on_terminal(&repo, &["--color=always", "diff"], &[("NO_COLOR", "1")]);
    assert!(
        out.contains("\x1b[32m+\x1b[m\x1b[32mb"),
        "--color=always wins: {out:?}"
    );
    repo.git(["config", "color.diff", "always"]).ok();
    let (out, _) = on_terminal(&repo, &["diff"], &[("NO_COLOR", "1")]);
    assert!(
        out.contains("\x1b[32m+\x1b[m\x1b[32mb"),
        "a setting of always wins: {out:?}"
    );
}

#[test]
fn colour_settings_given_with_git_c_or_read_after_dash_c_are_in_force() {
    let repo = repo();
    let args = ["plan", "Add b", "--response", ".git/answer.json"];
    let (out, status) = on_terminal_with(&repo, &["-c", "color.ui=never"], &args, &[]);
    assert_eq!(status, Some(0), "{out}");
    assert!(!out.contains("\x1b["), "git -c color.ui=never: {out:?}");
    let (out, _) = on_terminal_with(&repo, &["-c", "color.diff.new=blue bold"], &args, &[]);
    assert!(
        out.contains("\x1b[34;1m+b"),
        "git -c color.diff.new: {out:?}"
    );

    // -C DIR: the colour settings are those of DIR's repository, not the current one's.
    let other = TestRepo::with_files(&[("a.txt", "a\n")]);
    other.git(["config", "color.ui", "never"]).ok();
    let dir = repo.path().to_str().unwrap();
    let (out, status) = on_terminal_with(
        &other,
        &[],
        &["-C", dir, "plan", "Add b", "--response", ".git/answer.json"],
        &[],
    );
    assert_eq!(status, Some(0), "{out}");
    assert!(
        out.contains(GREEN_ADD),
        "-C reads the named repository's colours: {out:?}"
    );
    repo.git(["config", "color.ui", "never"]).ok();
    other.git(["config", "color.ui", "always"]).ok();
    let (out, _) = on_terminal_with(
        &other,
        &[],
        &["-C", dir, "plan", "Add b", "--response", ".git/answer.json"],
        &[],
    );
    assert!(
        !out.contains("\x1b["),
        "-C reads the named repository's colours: {out:?}"
    );
}

#[test]
fn errors_are_coloured_on_a_terminal_and_plain_in_a_pipe() {
    let repo = repo();
    let (out, status) = on_terminal(&repo, &["show", "nope"], &[]);
    assert_eq!(status, Some(1));
    assert!(
        out.contains("\x1b[1;31mERR_PLAN_NOT_FOUND\x1b[m: "),
        "{out:?}"
    );
    let piped = repo.papayu_env(["show", "nope"], &[("TERM", "xterm")]);
    assert!(
        piped.stderr.starts_with("ERR_PLAN_NOT_FOUND: "),
        "{}",
        piped.stderr
    );
}

/// `context` (hundreds of lines) and the built-in help of a command without a manual page
/// (`help plan`: about a hundred) were printed straight to the terminal.
#[test]
fn context_and_the_built_in_help_go_through_the_pager() {
    let repo = repo();
    let pager = "sed s/^/PAGED:/";
    let no_pages = repo.path().join(".git/no-man-pages");
    std::fs::create_dir_all(&no_pages).unwrap();
    let env = [
        ("GIT_PAGER", pager),
        ("MANPATH", no_pages.to_str().unwrap()),
    ];
    let (out, status) = on_terminal(&repo, &["context", "Add b"], &env);
    assert_eq!(status, Some(0), "{out}");
    assert!(out.contains("PAGED:REPOSITORY MAP"), "{out:?}");
    for args in [&["help", "plan"][..], &["plan", "--help"], &["help"]] {
        let (out, status) = on_terminal(&repo, args, &env);
        assert_eq!(status, Some(0), "{args:?}: {out}");
        assert!(out.contains("PAGED:Usage: git papayu"), "{args:?}: {out:?}");
    }
    let (out, _) = on_terminal(&repo, &["--no-pager", "help", "plan"], &env);
    assert!(!out.contains("PAGED:"), "{out:?}");
    // A pipe gets the help as it is, and plan's help no longer offers validate's --mode.
    let piped = repo.papayu(["plan", "--help"]).ok().stdout;
    assert!(piped.starts_with("Ask a model for a plan"), "{piped}");
    assert!(!piped.contains("--mode "), "{piped}");
    let (out, status) = on_terminal(&repo, &["--version"], &env);
    assert_eq!(status, Some(0));
    assert!(!out.contains("PAGED:"), "{out:?}");
}

#[test]
fn long_output_goes_through_the_pager_only_on_a_terminal() {
    let repo = repo();
    plan(&repo, &[], &[]);
    let pager = "sed s/^/PAGED:/";
    let (out, _) = on_terminal(&repo, &["show"], &[("GIT_PAGER", pager)]);
    assert!(out.contains("PAGED:Goal: Add b"), "{out:?}");

    // git's order: GIT_PAGER, then core.pager, then PAGER; pager.papayu names its own.
    let (out, _) = on_terminal(&repo, &["show"], &[("GIT_PAGER", "")]);
    assert!(
        !out.contains("PAGED:"),
        "an empty GIT_PAGER means none: {out:?}"
    );
    let (out, _) = on_terminal(
        &repo,
        &["show"],
        &[("GIT_PAGER", UNSET), ("PAGER", "sed s/^/ENV:/")],
    );
    assert!(out.contains("ENV:Goal: Add b"), "{out:?}");
    repo.git(["config", "core.pager", "sed s/^/CORE:/"]).ok();
    let (out, _) = on_terminal(
        &repo,
        &["show"],
        &[("GIT_PAGER", UNSET), ("PAGER", "sed s/^/ENV:/")],
    );
    assert!(out.contains("CORE:Goal: Add b"), "{out:?}");
    for (args, env, why) in [
        (vec!["show", "--no-pager"], vec![], "--no-pager"),
        (vec!["show", "--json"], vec![], "--json"),
        (
            vec!["show"],
            vec![("GIT_PAGER_IN_USE", "true")],
            "git's pager already runs",
        ),
    ] {
        let mut env = env.clone();
        env.push(("GIT_PAGER", UNSET));
        let (out, _) = on_terminal(&repo, &args, &env);
        assert!(!out.contains("CORE:"), "{why}: {out:?}");
    }
    // git itself starts pager.papayu before papayu runs (`git --no-pager papayu` stops it).
    repo.git(["config", "pager.papayu", "sed s/^/OWN:/"]).ok();
    let (out, _) = on_terminal(&repo, &["show"], &[("GIT_PAGER", UNSET)]);
    assert!(out.contains("OWN:Goal: Add b"), "{out:?}");
    let (out, _) = on_terminal(&repo, &["show"], &[("GIT_PAGER", pager)]);
    assert!(
        out.contains("PAGED:Goal: Add b"),
        "GIT_PAGER first: {out:?}"
    );

    repo.git(["config", "pager.papayu", "false"]).ok();
    let (out, _) = on_terminal(&repo, &["show"], &[("GIT_PAGER", UNSET)]);
    assert!(
        !out.contains("CORE:") && out.contains("Goal: Add b"),
        "pager.papayu=false: {out:?}"
    );

    repo.git(["config", "--unset", "pager.papayu"]).ok();
    let piped = repo
        .papayu_env(["show"], &[("GIT_PAGER", pager), ("TERM", "xterm")])
        .ok();
    assert!(!piped.stdout.contains("PAGED:"), "{}", piped.stdout);
    assert!(piped.stdout.contains("Goal: Add b"), "{}", piped.stdout);
}

#[test]
fn colour_in_a_pipe_only_when_asked() {
    let repo = repo();
    let env = [("TERM", "xterm")];
    let plain = repo
        .papayu_env(["plan", "Add b", "--response", ".git/answer.json"], &env)
        .ok();
    assert!(!plain.stdout.contains("\x1b["), "{}", plain.stdout);
    let forced = repo
        .papayu_env(
            [
                "plan",
                "Add b2",
                "--response",
                ".git/answer.json",
                "--color=always",
            ],
            &env,
        )
        .ok();
    assert!(forced.stdout.contains(GREEN_ADD), "{:?}", forced.stdout);
}

#[test]
fn long_work_shows_a_spinner_on_a_terminal_only() {
    let repo = repo();
    plan(&repo, &[], &[]);
    let (out, status) = on_terminal(&repo, &["apply", "--check", "sleep 2"], &[]);
    assert_eq!(status, Some(0), "{out}");
    assert!(out.contains("apply HEAD's newest plan 1s"), "{out:?}");
    assert!(out.contains("Applied plan"), "{out:?}");

    repo.papayu(["undo"]).ok();
    let (out, _) = on_terminal(&repo, &["apply", "-q", "--check", "sleep 1"], &[]);
    assert!(!out.contains("newest plan"), "-q: {out:?}");
    let piped = repo.papayu(["apply", "--check", "sleep 1"]);
    assert!(!piped.stderr.contains("newest plan"), "{}", piped.stderr);
}

#[test]
fn a_patched_file_on_a_terminal_keeps_its_line_endings_and_shows_escapes() {
    let repo = repo();
    repo.write("w.txt", "one\r\n\x1b[2Jtwo\r\nthree\r\n");
    repo.write(
        "p.diff",
        "--- a/w.txt\n+++ b/w.txt\n@@ -3,1 +3,1 @@\n-three\n+THREE\n",
    );
    let (out, status) = on_terminal(&repo, &["patch", "w.txt", "p.diff"], &[]);
    assert_eq!(status, Some(0), "{out}");
    assert!(out.contains("^[[2Jtwo"), "ESC made visible: {out:?}");
    assert!(!out.contains("^M"), "CRLF kept as a line ending: {out:?}");
    assert!(out.contains("THREE"), "{out:?}");
}

#[test]
fn the_memory_question_comes_after_the_pager_has_closed() {
    let repo = repo();
    repo.write(
        ".git/memory.json",
        r#"{"summary": "add b", "actions": [{"kind": "CREATE_FILE", "path": "b.txt", "content": "b\n"}],
            "memory_patch": {"user.preferred_style": "brief"}}"#,
    );
    // A pager that says when it has ended: before the fix, papayu asked while still holding
    // the pager's input, so the pager ended only after the answer.
    let pager = "sed s/^/PAGED:/; echo PAGER-END";
    let (out, status) = on_terminal_answering(
        &repo,
        &["plan", "Add b", "--response", ".git/memory.json"],
        &[("GIT_PAGER", pager)],
        "Remember this? [y/N]",
        "y\n",
    );
    assert_eq!(status, Some(0), "{out}");
    assert!(out.contains("PAGED:Goal: Add b"), "{out:?}");
    let end = out.find("PAGER-END").expect("the pager ended");
    let proposal = out.find("The model proposes to remember").expect("asked");
    let question = out.find("Remember this?").expect("asked");
    assert!(end < proposal && proposal < question, "{out:?}");
    assert!(out.contains("Remembered: user.preferred_style"), "{out:?}");
}

#[test]
fn list_fits_the_terminal_and_colours_statuses_and_show_is_coloured_like_git_show() {
    let repo = repo();
    let long = "Add b, and then explain at length why b is needed in this repository at all";
    plan(&repo, &[], &[]);
    repo.papayu(["apply", "--no-check"]).ok();
    repo.papayu([
        "plan",
        long,
        "--response",
        ".git/answer.json",
        "--provider",
        "x",
    ])
    .ok();
    let env = [("GIT_PAGER", "cat")];
    let (out, status) = on_sized_terminal(&repo, &["list"], &env, 100, None);
    assert_eq!(status, Some(0), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("PLAN "), "a header row: {out:?}");
    assert!(
        lines[0].contains("STATUS") && lines[0].contains("CHECK"),
        "{out:?}"
    );
    assert!(
        lines[2].contains("\x1b[32mapplied\x1b[m"),
        "applied is green: {out:?}"
    );
    assert!(lines[1].contains("\x1b[33mproposed\x1b[m"), "{out:?}");
    let plain = |l: &str| {
        l.replace("\x1b[32m", "")
            .replace("\x1b[33m", "")
            .replace("\x1b[m", "")
    };
    assert!(lines[1].ends_with('…'), "the goal is cut to fit: {out:?}");
    for line in &lines[..3] {
        assert!(
            plain(line).chars().count() <= 100,
            "fits 100 columns: {out:?}"
        );
    }
    let goal_at = |l: &str| plain(l).find("Add b").unwrap();
    assert_eq!(goal_at(lines[1]), goal_at(lines[2]), "aligned: {out:?}");
    assert_eq!(
        goal_at(lines[1]),
        plain(lines[0]).find("GOAL").unwrap(),
        "{out:?}"
    );

    let (never, _) = on_sized_terminal(&repo, &["list", "--color=never"], &env, 100, None);
    assert!(!never.contains("\x1b["), "{never:?}");
    repo.git(["config", "color.ui", "never"]).ok();
    let (off, _) = on_sized_terminal(&repo, &["list"], &env, 100, None);
    assert!(!off.contains("\x1b["), "color.ui=never: {off:?}");
    let (show, _) = on_sized_terminal(&repo, &["show", "--color=always"], &env, 100, None);
    assert!(show.starts_with("\x1b[33mplan "), "{show:?}");
    assert!(show.contains("Status: \x1b[33mproposed\x1b[m"), "{show:?}");
    repo.git(["config", "--unset", "color.ui"]).ok();
    let (show, _) = on_sized_terminal(&repo, &["show"], &env, 100, None);
    assert!(show.starts_with("\x1b[33mplan "), "{show:?}");

    let piped = repo.papayu(["list"]).ok();
    assert!(
        piped.stdout.contains(long),
        "a pipe gets whole lines: {}",
        piped.stdout
    );
    assert_eq!(
        piped.stdout.lines().count(),
        2,
        "and no header: {}",
        piped.stdout
    );
}

#[test]
fn config_shows_the_provider_in_use_first_and_is_paged() {
    let repo = repo();
    repo.git(["config", "papayu.provider", "openai:gpt-5-mini"])
        .ok();
    let env = [
        ("GIT_PAGER", "sed s/^/PAGED:/"),
        ("OPENAI_API_KEY", "sk-test-not-a-key"),
    ];
    let (out, status) = on_terminal(&repo, &["config"], &env);
    assert_eq!(status, Some(0), "{out}");
    assert!(
        out.starts_with(
            "PAGED:provider in use: openai:gpt-5-mini at https://api.openai.com/v1  \
             (papayu.provider from file:.git/config)\n"
        ),
        "{out:?}"
    );
    assert!(!out.contains("sk-test-not-a-key"), "{out:?}");

    let env = [
        ("PAPAYU_LLM_PROVIDERS", "anthropic:claude-x"),
        ("ANTHROPIC_API_KEY", "k"),
    ];
    let run = repo.papayu_env(["config"], &env).ok();
    assert!(
        run.stdout.starts_with(
            "provider in use: anthropic:claude-x at https://api.anthropic.com  \
             (papayu.provider from env PAPAYU_LLM_PROVIDERS)\n"
        ),
        "the environment wins over git config: {}",
        run.stdout
    );
    let unset = TestRepo::with_files(&[("a.txt", "a\n")]);
    let default = unset.papayu(["config"]).ok();
    assert!(
        default
            .stdout
            .starts_with("provider in use: ollama at http://127.0.0.1:11434  (default"),
        "{}",
        default.stdout
    );
}

#[test]
fn help_opens_the_commands_manual_page_and_falls_back_to_the_built_in_help() {
    if !common::tool("man", "help has no manual page to open") {
        return;
    }
    let repo = repo();
    let root = repo.path().join(".git/manual");
    repo.papayu(["install-man", root.join("man1").to_str().unwrap()])
        .ok();
    let manpath = root.to_str().unwrap().to_string();
    let env = [
        ("MANPATH", manpath.as_str()),
        ("MANPAGER", "cat"),
        ("MANWIDTH", "80"),
    ];
    // man on a terminal overstrikes bold text (`X\x08X`): keep the letters.
    let unstrike = |text: String| {
        let mut out = String::new();
        for c in text.chars() {
            match c {
                '\x08' => {
                    out.pop();
                }
                c => out.push(c),
            }
        }
        out
    };
    for args in [&["help", "plan"][..], &["plan", "--help"]] {
        let (out, status) = on_terminal(&repo, args, &env);
        let out = unstrike(out);
        assert_eq!(status, Some(0), "{out}");
        for section in ["OPTIONS", "GLOBAL OPTIONS", "EXAMPLES", "EXIT STATUS"] {
            assert!(out.contains(section), "{args:?}: {section}: {out:?}");
        }
        assert!(out.contains("--response"), "{out:?}");
    }
    let top = unstrike(on_terminal(&repo, &["help"], &env).0);
    assert!(top.contains("REQUESTS IN WORDS"), "{top:?}");

    let nowhere = repo.path().join(".git/no-manual");
    std::fs::create_dir_all(&nowhere).unwrap();
    let env = [("MANPATH", nowhere.to_str().unwrap()), ("MANPAGER", "cat")];
    let (out, status) = on_terminal(&repo, &["help", "plan"], &env);
    assert_eq!(status, Some(0), "{out}");
    // clap styles its headings on a terminal: keep the text.
    let mut plain = String::new();
    let mut rest = out.as_str();
    while let Some(at) = rest.find("\x1b[") {
        plain.push_str(&rest[..at]);
        let end = rest[at..].find('m').map_or(rest.len(), |m| at + m + 1);
        rest = &rest[end..];
    }
    plain.push_str(rest);
    let out = plain;
    assert!(
        out.contains("Usage: git papayu plan"),
        "built-in help: {out:?}"
    );
    let global = out.find("Global options:").expect("global options apart");
    assert!(
        out.find("--response").unwrap() < global && out[global..].contains("--json"),
        "{out:?}"
    );
}

/// `plan --provider priced,unpriced --samples 2 --max-cost 1`: the unpriced provider's samples
/// are refused before anything is sent. It drew a spinner that waited for nothing, and each
/// sample warned the same sentence.
#[test]
fn a_provider_refused_before_sending_warns_once_and_draws_no_spinner() {
    let repo = repo();
    let fake = common::fake_llm::FakeLlm::start(vec![
        common::fake_llm::openai_chat(ANSWER).delay(std::time::Duration::from_millis(400)),
    ]);
    common::openai_provider(&repo, "priced", &fake, Some("1,2,0.5"));
    common::openai_provider(&repo, "unpriced", &fake, None);
    let (out, status) = on_terminal(
        &repo,
        &[
            "--no-pager",
            "plan",
            "Add b",
            "--samples",
            "2",
            "--max-cost",
            "1",
        ],
        &[
            ("PAPAYU_LLM_PROVIDERS", "priced,unpriced"),
            ("PAPAYU_LLM_RETRY_BASE_MS", "1"),
        ],
    );
    assert_eq!(status, Some(0), "{out}");
    assert!(
        out.contains("priced/priced-model"),
        "the asked one spins: {out:?}"
    );
    assert!(
        !out.contains("unpriced/unpriced-model"),
        "no spinner for the refused one: {out:?}"
    );
    assert_eq!(
        out.matches("unpriced has no price").count(),
        1,
        "one warning for both samples: {out:?}"
    );
    assert!(
        out.contains("no plan from this provider (2 requests, each refused alike): ERR_COST_CAP: unpriced has no price"),
        "{out:?}"
    );
    assert_eq!(
        fake.requests().len(),
        2,
        "the priced provider's two samples"
    );
}
