//! The manual and shell completions: `install-man`, `completions`, and the hidden helper the
//! completion scripts call for plan ids and proposal branches.
//!
//! git turns `git papayu --help` into `man git-papayu`, so the pages are named as git names its
//! own (`git-papayu.1`, `git-papayu-plan.1`, …) and installed by default where `man` looks
//! beside the running binary (`<bin>/../share/man/man1`).

use std::path::{Path, PathBuf};

use clap::{Args, CommandFactory, ValueEnum};
use clap_complete::Shell;
use git_papayu::store::Store;
use git_papayu::{Code, Problem};

use super::{Cli, CliResult, ui};

/// Write the manual pages (git-papayu.1 and one page per command).
///
/// By default into the share/man/man1 directory beside the directory of the running binary
/// (for ~/.cargo/bin/git-papayu: ~/.cargo/share/man/man1), which man searches for every directory
/// on PATH, so `git papayu --help` works without setting MANPATH.
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

/// Where `man` finds pages for the running binary.
fn default_man_dir() -> Result<PathBuf, Problem> {
    let exe = std::env::current_exe()
        .map_err(|e| Problem::new(Code::Io, format!("cannot find the running binary: {e}")))?;
    let bin = exe
        .parent()
        .ok_or_else(|| Problem::new(Code::Io, "the running binary has no directory; pass a DIR"))?;
    let prefix = bin.parent().unwrap_or(bin);
    Ok(prefix.join("share").join("man").join("man1"))
}

fn render(cmd: clap::Command) -> Vec<u8> {
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd)
        .render(&mut out)
        .expect("rendering to memory does not fail");
    out
}

fn write_page(dir: &Path, name: &str, page: &[u8]) -> Result<PathBuf, Problem> {
    let path = dir.join(format!("{name}.1"));
    std::fs::write(&path, page)
        .map_err(|e| Problem::new(Code::Io, format!("writing {}: {e}", path.display())))?;
    Ok(path)
}

pub fn install_man(args: InstallManArgs) -> CliResult {
    let InstallManArgs { dir } = args;
    let dir = match dir {
        Some(dir) => dir,
        None => default_man_dir()?,
    };
    std::fs::create_dir_all(&dir)
        .map_err(|e| Problem::new(Code::Io, format!("creating {}: {e}", dir.display())))?;
    let top = command();
    let mut written = vec![write_page(&dir, "git-papayu", &render(top.clone()))?];
    for sub in top.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("git-papayu-{}", sub.get_name());
        let page = render(
            sub.clone()
                .name(name.clone())
                .bin_name(format!("git papayu {}", sub.get_name())),
        );
        written.push(write_page(&dir, &name, &page)?);
    }
    ui::data(&serde_json::json!({ "dir": dir, "pages": written }));
    ui::outln(&format!(
        "Wrote {} manual pages to {}",
        written.len(),
        dir.display()
    ));
    Ok(())
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
    ui::data(
        &serde_json::json!({ "shell": format!("{shell:?}").to_lowercase(), "script": script }),
    );
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
