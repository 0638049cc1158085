//! The manual and shell completions: `install-man`, `completions`, and the hidden helper the
//! completion scripts call for plan ids and proposal branches.
//!
//! git turns `git papayu --help` into `man git-papayu`, so the pages are named as git names its
//! own (`git-papayu.1`, `git-papayu-plan.1`, …) and installed by default where `man` looks
//! beside the running binary (`<bin>/../share/man/man1`). `git papayu help CMD` and
//! `git papayu CMD --help` open `git-papayu-CMD(1)` the same way when `man` has it, and fall back
//! to the built-in help otherwise. Every page ends with EXAMPLES and EXIT STATUS, and the main
//! page says how requests in words are routed.

use std::path::{Path, PathBuf};

use clap::{Args, CommandFactory, ValueEnum};
use clap_complete::Shell;
use git_papayu::settings::Settings;
use git_papayu::store::Store;
use git_papayu::{Code, Problem};

use super::{Cli, CliResult, ui};

/// Write the manual pages (git-papayu.1 and one page per command).
///
/// By default into the share/man/man1 directory beside the PATH directory git runs papayu from
/// (for ~/.cargo/bin/git-papayu: ~/.cargo/share/man/man1; for a symlink ~/bin/git-papayu:
/// ~/share/man/man1), which man searches for every directory on PATH, so `git papayu --help`
/// works without setting MANPATH. When man still does not find the pages, it says which
/// MANPATH to add. The first papayu command run without them writes them there too, once
/// (papayu.installMan false turns that off).
#[derive(Debug, Args)]
pub struct InstallManArgs {
    /// Directory to write the pages into.
    pub dir: Option<PathBuf>,
}

/// Print a completion script for bash, zsh or fish.
///
/// bash: save it as ~/.local/share/bash-completion/completions/git-papayu (it defines
/// _git_papayu, which git's own completion calls for `git papayu <TAB>`). zsh: save it as _git-papayu
/// in a directory on $fpath. fish: save it as ~/.config/fish/completions/git-papayu.fish.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    #[arg(value_enum)]
    pub shell: ShellArg,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ShellArg {
    Bash,
    Zsh,
    Fish,
}

/// What the completion scripts ask for at TAB time.
#[derive(Debug, Args)]
pub struct CompleteArgs {
    #[arg(value_enum)]
    pub what: CompleteWhat,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum CompleteWhat {
    /// Short ids of stored plans and proposal branch names.
    Plans,
}

/// The top-level command as the manual and completions present it.
fn command() -> clap::Command {
    Cli::command().name("git-papayu").bin_name("git papayu")
}

/// Where `man` finds pages for the running binary: `share/man/man1` beside the `PATH` entry
/// git runs it from (man derives `../share/man` from every `PATH` directory), which is not the
/// binary's real directory when `PATH` holds a symlink to it; else beside the real binary.
fn default_man_dir() -> Result<PathBuf, Problem> {
    let exe = std::env::current_exe()
        .map_err(|e| Problem::new(Code::Io, format!("cannot find the running binary: {e}")))?;
    let real = std::fs::canonicalize(&exe).unwrap_or_else(|_| exe.clone());
    let on_path = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path).find(|dir| {
            dir.is_absolute()
                && std::fs::canonicalize(dir.join("git-papayu")).is_ok_and(|found| found == real)
        })
    });
    let bin = match on_path {
        Some(dir) => dir,
        None => real
            .parent()
            .ok_or_else(|| {
                Problem::new(Code::Io, "the running binary has no directory; pass a DIR")
            })?
            .to_path_buf(),
    };
    let prefix = bin.parent().unwrap_or(&bin);
    Ok(prefix.join("share").join("man").join("man1"))
}

/// Whether `man -w` finds `page`; `None` when there is no `man` to ask.
fn man_finds(page: &str) -> Option<bool> {
    std::process::Command::new("man")
        .args(["-w", page])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .ok()
        .map(|s| s.success())
}

/// A page as clap_mangen renders it, with papayu's own sections before VERSION.
#[expect(
    clippy::expect_used,
    reason = "rendering into a Vec<u8> has no I/O that can fail"
)]
fn render(cmd: clap::Command, sub: Option<&str>) -> Vec<u8> {
    let has_args = cmd.get_arguments().any(|a| !a.is_hide_set());
    let has_subs = cmd.get_subcommands().any(|s| !s.is_hide_set());
    let has_version = cmd.get_version().is_some() || cmd.get_long_version().is_some();
    let man = clap_mangen::Man::new(cmd);
    let mut out = Vec::new();
    let mut parts = || -> std::io::Result<()> {
        man.render_title(&mut out)?;
        man.render_name_section(&mut out)?;
        man.render_synopsis_section(&mut out)?;
        man.render_description_section(&mut out)?;
        if has_args {
            man.render_options_section(&mut out)?;
        }
        if has_subs {
            man.render_subcommands_section(&mut out)?;
        }
        if sub.is_none() {
            out.extend_from_slice(REQUESTS.as_bytes());
        }
        out.extend_from_slice(examples(sub).as_bytes());
        out.extend_from_slice(EXIT_STATUS.as_bytes());
        match has_version {
            true => man.render_version_section(&mut out),
            false => Ok(()),
        }
    };
    parts().expect("rendering to memory does not fail");
    out
}

/// How `git papayu "<words>"` is routed (see the router).
const REQUESTS: &str = r#".SH "REQUESTS IN WORDS"
Anything that is not a command is read as a request:
.TP
\fBplan:\fR \fIgoal\fR, \fBapply:\fR \fIgoal\fR
plan for the goal; \fBapply:\fR then applies the plan.
.TP
\fBok\fR, \fBapply\fR, \fByes\fR, \fBда\fR, \fBприменяй\fR
apply the newest plan on HEAD.
.TP
\fBfix\fR ..., \fBисправь\fR ..., \fBпочини\fR ...
plan in fixit mode.
.TP
\fBcreate\fR ..., \fBсоздай\fR ..., \fBсгенерируй\fR ...
plan, then apply.
.TP
any other request of several words
plan for it.
.PP
A single unknown word is taken for a mistyped command: a usage error (exit status 2).
"#;

const EXIT_STATUS: &str = r#".SH "EXIT STATUS"
.TP
\fB0\fR
success.
.TP
\fB1\fR
a rejection: the plan, the input or the repository's state was refused; each problem is printed as
\fIERR_CODE: reason\fR with a hint. Nothing was changed.
.TP
\fB2\fR
a usage error: the command line itself is wrong.
.TP
\fB3\fR
an internal failure, or git or the file system failed.
.PP
Under \fB\-\-json\fR the exit status is the same.
"#;

/// Examples for a page: `(command line, what it does)`.
fn example_lines(sub: Option<&str>) -> &'static [(&'static str, &'static str)] {
    match sub {
        None => &[
            (
                "git papayu plan \"handle None in parse\"",
                "ask for a plan and show its preview",
            ),
            (
                "git papayu apply --check \"pytest -q\"",
                "apply the newest plan on a papayu/* branch and run a check",
            ),
            (
                "git papayu \"fix the failing test\"",
                "a request in words: plan in fixit mode",
            ),
            ("git papayu ok", "apply the newest plan"),
            ("git papayu merge", "merge the applied plan"),
            ("git papayu undo", "undo the last operation"),
        ],
        Some("plan") => &[
            (
                "git papayu plan \"add a --verbose flag\"",
                "ask the configured provider",
            ),
            (
                "git papayu plan \"fix the flaky test\" --provider openai,anthropic --samples 2 --max-cost 0.50",
                "four competing proposals, at most 50 cents",
            ),
            (
                "git papayu plan \"fix the crash\" --log crash.txt",
                "with a log for context",
            ),
            (
                "git papayu plan \"rename foo\" --response answer.json",
                "use an answer pasted from elsewhere",
            ),
        ],
        Some("apply") => &[
            (
                "git papayu apply",
                "apply HEAD's newest plan, checked by the configured command",
            ),
            (
                "git papayu apply 3f9c1d2e --check \"cargo test\"",
                "apply one plan and check it",
            ),
            (
                "git papayu apply --all --on origin --check \"cargo test\"",
                "apply every proposal without a check here and ask origin's workers to check them",
            ),
        ],
        Some("worker") => &[
            (
                "git papayu worker origin --once",
                "take one open check request from origin, run it, push the verdicts",
            ),
            (
                "git papayu worker --loop",
                "keep checking requests as they come",
            ),
        ],
        Some("ci") => &[(
            "git papayu ci github > .github/workflows/papayu-check.yml",
            "make GitHub Actions a papayu worker",
        )],
        Some("list") => &[("git papayu list -n 10", "the ten newest plans")],
        Some("show") => &[
            (
                "git papayu show papayu/add-b-3f9c1d2e7a",
                "a plan by its branch",
            ),
            (
                "git papayu show 3f9c1d2e --conversation",
                "what the model was shown and said, also for a teammate's plan",
            ),
        ],
        Some("diff") => &[(
            "git papayu diff -- --stat",
            "what the applied plan changed, as a diffstat",
        )],
        Some("merge") => &[(
            "git papayu merge --squash",
            "merge the applied plan as one commit",
        )],
        Some("discard") => &[("git papayu discard 3f9c1d2e", "drop a plan and its branch")],
        Some("compare") => &[
            (
                "git papayu compare",
                "the proposals of the newest group on HEAD, ranked",
            ),
            (
                "git papayu compare 3f9c1d2e 8a7b6c5d --json",
                "two plans side by side, as JSON",
            ),
        ],
        Some("pick") => &[
            (
                "git papayu pick",
                "merge the best-ranked proposal and discard the rest",
            ),
            (
                "git papayu pick 3f9c1d2e",
                "merge this proposal and discard its group's others",
            ),
        ],
        Some("undo") => &[("git papayu undo", "undo the last operation")],
        Some("redo") => &[("git papayu redo", "redo what undo undid")],
        Some("refine") => &[(
            "git papayu refine 3f9c1d2e \"also update the docs\"",
            "ask for a change to an applied plan",
        )],
        Some("config") => &[(
            "git papayu config --json",
            "every setting, with where it came from",
        )],
        Some("context") => &[(
            "git papayu context \"fix the parser\"",
            "what a model would be shown for a goal",
        )],
        Some("trace") => &[
            ("git papayu trace list", "the newest traces"),
            ("git papayu trace show", "the newest trace"),
        ],
        Some("gc") => &[("git papayu gc --dry-run", "what would be pruned")],
        Some("init") => &[(
            "git papayu init --share origin",
            "share plans with a remote",
        )],
        Some("sync") => &[
            (
                "git papayu sync",
                "fetch, merge and push the plans of the upstream remote",
            ),
            (
                "git papayu sync upstream --no-push",
                "only take in upstream's plans",
            ),
        ],
        Some("publish") => &[(
            "git papayu publish 3f9c1d2e",
            "push the plan's proposal branch and the plans for review",
        )],
        Some("mcp") => &[(
            "claude mcp add papayu -- git papayu mcp",
            "let Claude Code propose changes through papayu",
        )],
        Some("validate") => &[(
            "git papayu validate answer.json",
            "check a plan without storing it",
        )],
        Some("patch") => &[(
            "git papayu patch src/a.rs fix.diff --in-place",
            "apply a unified diff to one file",
        )],
        Some("install-man") => &[(
            "git papayu install-man ~/.local/share/man/man1",
            "write the pages there",
        )],
        Some("completions") => &[(
            "git papayu completions bash > ~/.local/share/bash-completion/completions/git-papayu",
            "bash completion",
        )],
        Some(_) => &[],
    }
}

fn examples(sub: Option<&str>) -> String {
    let lines = example_lines(sub);
    if lines.is_empty() {
        return String::new();
    }
    let mut out = ".SH EXAMPLES\n".to_string();
    for (cmd, what) in lines {
        out.push_str(&format!(
            ".TP\n\\fB{}\\fR\n{}\n",
            roff_escape(cmd),
            roff_escape(what)
        ));
    }
    out
}

/// Text safe in a roff line: backslashes and dashes escaped, no line starting with a dot.
fn roff_escape(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    match escaped.starts_with(['.', '\'']) {
        true => format!("\\&{escaped}"),
        false => escaped,
    }
}

/// The page `git papayu help CMD` or `git papayu CMD --help` asks for, when it asks for one:
/// `git-papayu` or `git-papayu-CMD`. `-h` is the short help, as with git.
pub fn help_page(args: &[String]) -> Option<String> {
    let mut words = Vec::new();
    let mut rest = args.iter();
    let mut long_help = false;
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--" => break,
            "-C" | "--color" => {
                rest.next();
            }
            "--help" => long_help = true,
            a if a.starts_with('-') => {}
            a => words.push(a),
        }
    }
    let name = match words.split_first() {
        Some((&"help", rest)) => rest.first().copied(),
        _ if long_help => words.first().copied(),
        _ => return None,
    };
    let top = command();
    match name {
        None => Some("git-papayu".to_string()),
        Some(name) => top
            .get_subcommands()
            .find(|s| !s.is_hide_set() && s.get_name() == name)
            .map(|s| format!("git-papayu-{}", s.get_name())),
    }
}

/// Opens `page` with `man` when stdout is a terminal and `man` has the page; its exit status
/// then. `None` (use the built-in help) otherwise.
pub fn open_page(page: &str) -> Option<u8> {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return None;
    }
    let found = std::process::Command::new("man")
        .args(["-w", page])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        return None;
    }
    let status = std::process::Command::new("man").arg(page).status().ok()?;
    Some(status.code().map_or(1, |c| u8::try_from(c).unwrap_or(1)))
}

fn write_page(dir: &Path, name: &str, page: &[u8]) -> Result<PathBuf, Problem> {
    let path = dir.join(format!("{name}.1"));
    std::fs::write(&path, page)
        .map_err(|e| Problem::new(Code::Io, format!("writing {}: {e}", path.display())))?;
    Ok(path)
}

/// Writes every page into `dir`: `git-papayu.1` and one per command.
fn write_pages(dir: &Path) -> Result<Vec<PathBuf>, Problem> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Problem::new(Code::Io, format!("creating {}: {e}", dir.display())))?;
    let mut top = command();
    // Built, each command carries the global options (under their own heading).
    top.build();
    let mut written = vec![write_page(dir, "git-papayu", &render(top.clone(), None))?];
    for sub in top
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
    {
        let name = format!("git-papayu-{}", sub.get_name());
        let page = render(
            sub.clone()
                .name(name.clone())
                .bin_name(format!("git papayu {}", sub.get_name())),
            Some(sub.get_name()),
        );
        written.push(write_page(dir, &name, &page)?);
    }
    Ok(written)
}

/// The warning for a manual written where `man` does not look, when `man` says so.
fn unseen_warning(dir: &Path) -> Option<String> {
    if man_finds("git-papayu") != Some(false) {
        return None;
    }
    let root = dir.parent().unwrap_or(dir);
    Some(format!(
        "man does not look in {}: add export MANPATH=\"{}:\" to your shell's profile (the trailing colon keeps man's own directories), then git papayu --help opens the manual",
        root.display(),
        root.display()
    ))
}

pub fn install_man(args: InstallManArgs) -> CliResult {
    let InstallManArgs { dir } = args;
    let dir = match dir {
        Some(dir) => dir,
        None => default_man_dir()?,
    };
    let written = write_pages(&dir)?;
    ui::data(&Installed {
        dir: &dir,
        pages: &written,
    });
    ui::outln(&format!(
        "Wrote {} manual pages to {}",
        written.len(),
        dir.display()
    ));
    if let Some(warning) = unseen_warning(&dir) {
        ui::warn(&warning);
    }
    Ok(())
}

/// git turns `git papayu --help` into `man git-papayu` without running papayu, so a manual that
/// is not installed yet cannot be helped at that moment. Instead the first papayu command run
/// from an installation whose manual is missing (or from another version) writes it where
/// `install-man` would, and says so in one status line; `papayu.installMan false`
/// (`PAPAYU_INSTALL_MAN=0`) turns this off. A directory it cannot write (a system-wide
/// install) is left alone without a word: the package's own pages, or `install-man DIR`, serve.
pub fn install_if_missing(settings: &Settings) {
    let wanted = settings.flag("papayu.installMan").ok().flatten();
    if wanted == Some(false) {
        return;
    }
    let Ok(dir) = default_man_dir() else {
        return;
    };
    if current_page(&dir.join("git-papayu.1")) {
        return;
    }
    let Ok(written) = write_pages(&dir) else {
        return;
    };
    ui::status(&format!(
        "Installed the manual ({} pages) in {}, so git papayu --help opens it (papayu.installMan false turns this off)",
        written.len(),
        dir.display()
    ));
    if let Some(warning) = unseen_warning(&dir) {
        ui::warn(&warning);
    }
}

/// Whether `page` is this version's main page (its title line names the version).
fn current_page(page: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 512];
    let Ok(mut file) = std::fs::File::open(page) else {
        return false;
    };
    let n = file.read(&mut head).unwrap_or(0);
    let title = String::from_utf8_lossy(&head[..n]);
    title
        .lines()
        .find(|l| l.starts_with(".TH"))
        .is_some_and(|l| l.contains(&format!("git-papayu {}", env!("CARGO_PKG_VERSION"))))
}

pub fn completions(args: CompletionsArgs) -> CliResult {
    let CompletionsArgs { shell } = args;
    let mut cmd = command();
    let mut out = Vec::new();
    match shell {
        ShellArg::Bash => {
            clap_complete::generate(Shell::Bash, &mut cmd, "git-papayu", &mut out);
            out.extend_from_slice(bash_git_hook(&cmd).as_bytes());
        }
        ShellArg::Zsh => clap_complete::generate(Shell::Zsh, &mut cmd, "git-papayu", &mut out),
        ShellArg::Fish => clap_complete::generate(Shell::Fish, &mut cmd, "git-papayu", &mut out),
    }
    let script = String::from_utf8_lossy(&out);
    ui::data(&Completions {
        shell: format!("{shell:?}").to_lowercase(),
        script: &script,
    });
    ui::out(&script);
    Ok(())
}

/// `_git_papayu`: what git's bash completion calls for `git papayu <TAB>`. Commands and flags are
/// written in from the command definitions; plan ids and branches are asked for at TAB time.
fn bash_git_hook(cmd: &clap::Command) -> String {
    let subs: Vec<&clap::Command> = cmd.get_subcommands().filter(|s| !s.is_hide_set()).collect();
    let names: Vec<&str> = subs.iter().map(|s| s.get_name()).collect();
    let mut cases = String::new();
    for sub in &subs {
        let flags: Vec<String> = sub
            .get_arguments()
            .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
            .collect();
        let takes_plan = sub
            .get_positionals()
            .next()
            .is_some_and(|p| p.get_id() == "plan");
        cases.push_str(&format!(
            "\t{}) flags=\"{}\"; plans={} ;;\n",
            sub.get_name(),
            flags.join(" "),
            if takes_plan { 1 } else { 0 }
        ));
    }
    format!(
        r#"
# git's completion calls _git_papayu for `git papayu <TAB>`.
_git_papayu ()
{{
	local subcommands="{subs}"
	local subcommand flags plans=0
	subcommand="$(__git_find_on_cmdline "$subcommands")"
	if [ -z "$subcommand" ]; then
		__gitcomp "$subcommands"
		return
	fi
	case "$subcommand" in
{cases}	esac
	case "$cur" in
	--*) __gitcomp "$flags" ;;
	*)
		if [ "$plans" = 1 ]; then
			__gitcomp_nl "$(git papayu __complete plans 2>/dev/null)"
		fi
		;;
	esac
}}
"#,
        subs = names.join(" "),
    )
}

/// Plan ids and proposal branches, one per line (for completion scripts; errors are silent).
pub fn complete(args: CompleteArgs) -> CliResult {
    let CompleteArgs { what } = args;
    match what {
        CompleteWhat::Plans => {
            let Ok(store) = Store::open() else {
                return Ok(());
            };
            let Ok(ledger) = store.ledger() else {
                return Ok(());
            };
            let mut out = String::new();
            for record in ledger.records.iter().rev() {
                out.push_str(record.short_id());
                out.push('\n');
                if let Some(branch) = ledger.branch(&record.id) {
                    out.push_str(branch);
                    out.push('\n');
                }
            }
            ui::out(&out);
        }
    }
    Ok(())
}

/// `install-man --json`: the directory and the pages written there.
#[derive(serde::Serialize)]
struct Installed<'a> {
    dir: &'a Path,
    pages: &'a [PathBuf],
}

/// `completions --json`: the shell and its script.
#[derive(serde::Serialize)]
struct Completions<'a> {
    shell: String,
    script: &'a str,
}
