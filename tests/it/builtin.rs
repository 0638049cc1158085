//! Behaving like a git built-in: the manual, completions, settings with their origin, `-C`,
//! branch names from any script, and usage errors for empty arguments.

use crate::common;

use common::TestRepo;

fn answer() -> String {
    serde_json::json!({"summary": "Добавить заметки", "actions": [
        {"kind": "CREATE_FILE", "path": "NOTES.md", "content": "n\n"}]})
    .to_string()
}

#[test]
fn install_man_writes_a_page_per_command() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let dir = repo.path().join("man/man1");
    let out = repo.papayu(["install-man", dir.to_str().unwrap()]).ok();
    assert!(out.stdout.contains("Wrote"), "{}", out.stdout);
    for page in [
        "git-papayu.1",
        "git-papayu-plan.1",
        "git-papayu-apply.1",
        "git-papayu-refine.1",
    ] {
        let text =
            std::fs::read_to_string(dir.join(page)).unwrap_or_else(|_| panic!("{page} written"));
        assert!(text.contains(".TH"), "{page} is a man page");
    }
    assert!(
        !dir.join("git-papayu-__complete.1").exists(),
        "hidden commands get no page"
    );
}

#[test]
fn bash_completion_hooks_into_git_and_completes_plan_ids() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let run = repo
        .papayu_stdin(
            ["plan", "Add notes", "--response", "-", "--json"],
            answer().as_bytes(),
        )
        .ok();
    let id: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let short = &id["plans"][0]["plan"]["id"].as_str().unwrap()[..10];
    let script = repo.papayu(["completions", "bash"]).ok().stdout;
    std::fs::write(repo.path().join("completion.bash"), &script).unwrap();
    let probe = r#"
source ./completion.bash
__gitcomp () { COMPREPLY=($1); }
__gitcomp_nl () { COMPREPLY=($1); }
__git_find_on_cmdline () { for w in "${words[@]}"; do for c in $1; do [ "$w" = "$c" ] && { echo "$c"; return; }; done; done; }
words=(git papayu); cur=""; _git_papayu; echo "TOP: ${COMPREPLY[*]}"
words=(git papayu apply ""); cur=""; _git_papayu; echo "PLANS: ${COMPREPLY[*]}"
words=(git papayu apply --); cur="--"; _git_papayu; echo "FLAGS: ${COMPREPLY[*]}"
"#;
    let out = common::run_in(repo.path(), "bash", ["-c", probe], None).ok();
    let line = |p: &str| {
        out.stdout
            .lines()
            .find(|l| l.starts_with(p))
            .unwrap_or("")
            .to_string()
    };
    assert!(
        line("TOP:").contains("plan") && line("TOP:").contains("refine"),
        "{}",
        out.stdout
    );
    assert!(line("PLANS:").contains(short), "{}", out.stdout);
    assert!(line("FLAGS:").contains("--no-check"), "{}", out.stdout);
    for shell in ["zsh", "fish"] {
        assert!(!repo.papayu(["completions", shell]).ok().stdout.is_empty());
    }
}

#[test]
fn config_lists_settings_with_their_origin_and_hides_keys() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.git(["config", "papayu.provider", "anthropic:claude-x"])
        .ok();
    let out = common::run_in_env(
        repo.path(),
        "git",
        ["papayu", "config"],
        &[
            ("PAPAYU_LLM_TIMEOUT_SEC", "30"),
            ("ANTHROPIC_API_KEY", "sk-ant-hidden-123456"),
        ],
        None,
    )
    .ok();
    let line = |k: &str| {
        out.stdout
            .lines()
            .find(|l| l.starts_with(k))
            .unwrap_or("")
            .to_string()
    };
    assert!(
        line("papayu.provider").contains("anthropic:claude-x"),
        "{}",
        out.stdout
    );
    assert!(
        line("papayu.provider").contains("file:"),
        "origin is the config file: {}",
        out.stdout
    );
    assert!(
        line("papayu.timeoutSec").contains("env PAPAYU_LLM_TIMEOUT_SEC"),
        "{}",
        out.stdout
    );
    assert!(
        line("ANTHROPIC_API_KEY").contains("(set, hidden)"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("sk-ant-hidden"));
    repo.git(["config", "color.diff.new", "blue"]).ok();
    let json: serde_json::Value =
        serde_json::from_str(&repo.papayu(["config", "--json"]).ok().stdout).unwrap();
    assert_eq!(json["version"], 1);
    let settings = json["settings"].as_array().unwrap();
    let new = settings
        .iter()
        .find(|s| s["name"] == "color.diff.new")
        .expect("colour settings are listed");
    assert_eq!(new["value"], "blue");
    assert!(
        new["origin"].as_str().unwrap().starts_with("file:"),
        "{new}"
    );

    // docs/config.md is the one table of settings: every listed setting is in it.
    let table =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/config.md")).unwrap();
    for s in settings {
        let name = s["name"].as_str().unwrap();
        assert!(
            table.contains(&format!("`{name}`")),
            "docs/config.md does not document {name}"
        );
    }
}

#[test]
fn dash_c_runs_in_another_directory() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let elsewhere = tempfile::tempdir().unwrap();
    let out = common::run_in(
        elsewhere.path(),
        "git-papayu",
        ["-C", repo.path().to_str().unwrap(), "list"],
        None,
    );
    assert_eq!(out.status, Some(0), "{}", out.stderr);
    let missing = common::run_in(
        elsewhere.path(),
        "git-papayu",
        ["-C", "/no/such/dir", "list"],
        None,
    );
    assert_eq!(missing.status, Some(2));
}

#[test]
fn a_cyrillic_goal_gives_a_cyrillic_branch() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.papayu_stdin(
        ["plan", "Добавить заметки", "--response", "-"],
        answer().as_bytes(),
    )
    .ok();
    repo.papayu(["apply", "--no-check"]).ok();
    let branches = repo
        .git([
            "for-each-ref",
            "--format=%(refname:short)",
            "refs/heads/papayu/",
        ])
        .ok()
        .stdout;
    assert!(
        branches.starts_with("papayu/добавить-заметки-"),
        "{branches}"
    );
    repo.git(["check-ref-format", "--branch", branches.trim()])
        .ok();
}

#[test]
fn empty_goal_and_empty_check_are_usage_errors() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.papayu(["plan", "  ", "--response", "-"]).code(2);
    repo.papayu(["apply", "--check", ""]).code(2);
}

/// A binary on PATH through a symlink (~/bin/git-papayu -> the real one): the pages went beside
/// the real binary, where man does not look, and `git papayu --help` found no manual.
#[test]
fn install_man_writes_where_man_looks_for_the_path_entry_of_a_symlinked_binary() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let prefix = repo.path().join(".git/home");
    let bin = prefix.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(common::bin_dir().join("git-papayu"), bin.join("git-papayu"))
        .unwrap();
    let path = std::env::join_paths(
        std::iter::once(bin.clone())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let env = [("PATH", path.to_str().unwrap())];
    common::run_in_env(repo.path(), "git", ["papayu", "install-man"], &env, None).ok();
    let page = prefix.join("share/man/man1/git-papayu.1");
    assert!(page.is_file(), "{} written", page.display());
    if !common::tool("man", "man -w cannot be asked without it") {
        return;
    }
    let found = common::run_in_env(repo.path(), "man", ["-w", "git-papayu"], &env, None).ok();
    assert!(
        found.stdout.contains(".git/home/share/man"),
        "{}",
        found.stdout
    );
}

#[test]
fn help_opens_the_installed_manual_through_man() {
    if !common::tool("man", "git papayu --help cannot open a manual without it") {
        return;
    }
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let root = repo.path().join("manual");
    repo.papayu(["install-man", root.join("man1").to_str().unwrap()])
        .ok();
    let env = [
        ("MANPATH", root.to_str().unwrap()),
        ("MANPAGER", "cat"),
        ("MANWIDTH", "80"),
    ];
    let top = common::run_in_env(repo.path(), "git", ["papayu", "--help"], &env, None).ok();
    assert!(top.stdout.contains("git-papayu"), "{}", top.stdout);
    assert!(top.stdout.contains("SUBCOMMANDS"), "{}", top.stdout);
    assert!(top.stdout.contains("git-papayu-plan(1)"), "{}", top.stdout);
    let plan = common::run_in_env(repo.path(), "man", ["git-papayu-plan"], &env, None).ok();
    assert!(plan.stdout.contains("--response"), "{}", plan.stdout);
    // Without the manual, `git papayu help CMD` still works.
    let help = repo.papayu(["help", "plan"]).ok();
    assert!(help.stdout.contains("--response"), "{}", help.stdout);
}

/// git runs `man git-papayu` for `git papayu --help` without asking papayu, so right after
/// `cargo install` (before `install-man`) it said "No manual entry for git-papayu". The first
/// command run from an installation without its manual now writes it where man looks, once.
#[test]
fn the_first_run_installs_the_manual_so_help_opens_it() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let prefix = repo.path().join(".git/install");
    let bin = prefix.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(common::bin_dir().join("git-papayu"), bin.join("git-papayu"))
        .unwrap();
    let path = std::env::join_paths(
        std::iter::once(bin.clone())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let path = path.to_str().unwrap();
    let page = prefix.join("share/man/man1/git-papayu.1");

    let off = [("PATH", path), ("PAPAYU_INSTALL_MAN", "0")];
    common::run_in_env(repo.path(), "git", ["papayu", "list"], &off, None).ok();
    assert!(!page.exists(), "PAPAYU_INSTALL_MAN=0 writes nothing");
    repo.git(["config", "papayu.installMan", "false"]).ok();
    let env = [("PATH", path), ("PAPAYU_INSTALL_MAN", "")];
    common::run_in_env(repo.path(), "git", ["papayu", "list"], &env, None).ok();
    assert!(!page.exists(), "papayu.installMan false writes nothing");
    repo.git(["config", "--unset", "papayu.installMan"]).ok();

    let first = common::run_in_env(repo.path(), "git", ["papayu", "list"], &env, None).ok();
    assert!(page.is_file(), "{} written", page.display());
    let lines: Vec<&str> = first
        .stderr
        .lines()
        .filter(|l| l.contains("Installed the manual"))
        .collect();
    assert_eq!(lines.len(), 1, "one line says so: {}", first.stderr);
    assert!(
        lines[0].contains(&prefix.join("share/man/man1").display().to_string())
            && lines[0].contains("git papayu --help opens it"),
        "{}",
        first.stderr
    );
    assert!(
        prefix.join("share/man/man1/git-papayu-plan.1").is_file(),
        "every command's page"
    );
    let again = common::run_in_env(repo.path(), "git", ["papayu", "list"], &env, None).ok();
    assert!(
        !again.stderr.contains("Installed the manual"),
        "only once: {}",
        again.stderr
    );

    if !common::tool("man", "git papayu --help cannot open a manual without it") {
        return;
    }
    let env = [("PATH", path), ("MANPAGER", "cat"), ("MANWIDTH", "80")];
    let help = common::run_in_env(repo.path(), "git", ["papayu", "--help"], &env, None).ok();
    assert!(help.stdout.contains("SUBCOMMANDS"), "{}", help.stdout);
    assert!(
        help.stdout.contains("git-papayu-plan(1)"),
        "{}",
        help.stdout
    );
}
