//! Reading git's configuration in-process, as git would read it here: the files in git's
//! order, then git's command-line settings (`git -c`, see [`super::cmdline`]) over them. The
//! entries feed [`crate::settings::Settings`]; the few reads left here are git's own keys
//! (remotes, hooks, signing) that the store needs to act as git would.

use super::cmdline::{self, CommandLine};
use super::{Store, StoreError};

/// One value of git's configuration as git would see it here, and where it was set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigEntry {
    /// The name, lowercased whole (`papayu.checktimeout`, `papayu.openai.price`).
    pub name: String,
    /// `None` for a key given without a value (`git -c papayu.x`), which git reads as true.
    pub value: Option<String>,
    /// Where: `file:PATH` as `git config --show-origin` prints it, or `command line:`.
    pub origin: String,
}

/// Every configuration value git would read here, lowest precedence first: the repository's
/// (the one the current directory and `GIT_DIR` name, as [`Store::open`] finds it), or outside
/// any repository the system and global files; then git's command-line settings. What the
/// terminal's settings (colour, pager) are read from before a command opens its store.
pub fn entries_here() -> Vec<ConfigEntry> {
    super::configure_libgit2();
    match git2::Repository::open_from_env() {
        Ok(repo) => entries(repo.config(), Some(&repo)),
        Err(_) => entries(files_outside_a_repository(), None),
    }
}

/// The files git reads outside a repository, honouring `GIT_CONFIG_NOSYSTEM`,
/// `GIT_CONFIG_SYSTEM` and `GIT_CONFIG_GLOBAL` as git does (libgit2's default config does not).
fn files_outside_a_repository() -> Result<git2::Config, git2::Error> {
    use std::path::PathBuf;
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let mut config = git2::Config::new()?;
    let no_system = var("GIT_CONFIG_NOSYSTEM")
        .and_then(|v| cmdline::parse_bool(Some(v.to_str()?)))
        .unwrap_or(false);
    let system = match no_system {
        true => None,
        false => var("GIT_CONFIG_SYSTEM")
            .map(PathBuf::from)
            .or_else(|| git2::Config::find_system().ok()),
    };
    // GIT_CONFIG_GLOBAL stands for both global files (`~/.gitconfig` and the XDG one).
    let (xdg, global) = match var("GIT_CONFIG_GLOBAL") {
        Some(path) => (None, Some(PathBuf::from(path))),
        None => (
            git2::Config::find_xdg().ok(),
            git2::Config::find_global().ok(),
        ),
    };
    let files = [
        (system, git2::ConfigLevel::System),
        (xdg, git2::ConfigLevel::XDG),
        (global, git2::ConfigLevel::Global),
    ];
    for (path, level) in files {
        if let Some(path) = path.filter(|p| p.exists()) {
            config.add_file(&path, level, false)?;
        }
    }
    Ok(config)
}

/// The values of `config` (a snapshot is taken), files in git's order, then `git -c`'s.
fn entries(
    config: Result<git2::Config, git2::Error>,
    repo: Option<&git2::Repository>,
) -> Vec<ConfigEntry> {
    let mut found = Vec::new();
    if let Ok(config) = config.and_then(|mut c| c.snapshot())
        && let Ok(mut entries) = config.entries(None)
    {
        while let Some(Ok(entry)) = entries.next() {
            let (Ok(name), level) = (entry.name(), entry.level()) else {
                continue;
            };
            found.push((
                level_rank(level),
                ConfigEntry {
                    name: name.to_ascii_lowercase(),
                    value: entry.value().ok().map(str::to_string),
                    origin: level_origin(repo, level),
                },
            ));
        }
    }
    // Stable: within one file, git's order stands.
    found.sort_by_key(|(rank, _)| *rank);
    let mut out: Vec<ConfigEntry> = found.into_iter().map(|(_, e)| e).collect();
    out.extend(
        CommandLine::get()
            .entries()
            .iter()
            .map(|(name, value)| ConfigEntry {
                name: name.to_ascii_lowercase(),
                value: value.clone(),
                origin: "command line:".to_string(),
            }),
    );
    out
}

/// The file git reads at `level`, as `git config --show-origin` names it.
fn level_origin(repo: Option<&git2::Repository>, level: git2::ConfigLevel) -> String {
    let home = || std::env::var_os("HOME").map(std::path::PathBuf::from);
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let path = match level {
        git2::ConfigLevel::Local => repo.map(|r| r.path().join("config")),
        git2::ConfigLevel::Worktree => repo.map(|r| r.path().join("config.worktree")),
        git2::ConfigLevel::Global => var("GIT_CONFIG_GLOBAL")
            .map(Into::into)
            .or_else(|| home().map(|h| h.join(".gitconfig"))),
        git2::ConfigLevel::XDG => var("XDG_CONFIG_HOME")
            .map(std::path::PathBuf::from)
            .or_else(|| home().map(|h| h.join(".config")))
            .map(|d| d.join("git").join("config")),
        git2::ConfigLevel::System => Some(
            var("GIT_CONFIG_SYSTEM")
                .map_or_else(|| "/etc/gitconfig".into(), std::path::PathBuf::from),
        ),
        _ => None,
    };
    let Some(path) = path else {
        return "file:".to_string();
    };
    let shown = repo
        .and_then(|r| r.workdir())
        .and_then(|w| path.strip_prefix(w).ok())
        .unwrap_or(&path);
    format!("file:{}", shown.display())
}

impl Store {
    /// Every configuration value in force, lowest precedence first, so the last value of a
    /// name wins: the files (system, global, local, worktree), then git's command-line settings.
    /// Read in-process: no git is started.
    pub fn config_entries(&self) -> Vec<ConfigEntry> {
        entries(self.repo.config(), Some(&self.repo))
    }

    fn config(&self) -> Result<git2::Config, StoreError> {
        self.repo
            .config()
            .and_then(|mut c| c.snapshot())
            .map_err(|e| StoreError::git("reading git config", e))
    }

    /// A string setting, `None` when unset.
    pub fn config_string(&self, key: &str) -> Option<String> {
        if let Some(given) = CommandLine::get().last(key) {
            return Some(given.unwrap_or_default().to_string());
        }
        self.config().ok()?.get_string(key).ok()
    }

    /// Sets `key` to `value` in the repository's own config unless it already is; `true` when it
    /// changed.
    pub fn ensure_local_value(&self, key: &str, value: &str) -> Result<bool, StoreError> {
        let mut config = self.local_config()?;
        if config.get_string(key).ok().as_deref() == Some(value) {
            return Ok(false);
        }
        config
            .set_str(key, value)
            .map_err(|e| StoreError::git("writing git config", e))?;
        Ok(true)
    }

    /// Adds `value` to the multi-valued `key` in the repository's own config unless it is
    /// there; `true` when it changed.
    pub fn ensure_local_multivar(&self, key: &str, value: &str) -> Result<bool, StoreError> {
        let mut config = self.local_config()?;
        let mut present = false;
        if let Ok(entries) = config.multivar(key, None) {
            let _ = entries.for_each(|e| {
                if e.value().ok() == Some(value) {
                    present = true;
                }
            });
        }
        if present {
            return Ok(false);
        }
        let anchored = format!("^{}$", regex::escape(value));
        config
            .set_multivar(key, &anchored, value)
            .map_err(|e| StoreError::git("writing git config", e))?;
        Ok(true)
    }

    fn local_config(&self) -> Result<git2::Config, StoreError> {
        self.repo
            .config()
            .and_then(|c| c.open_level(git2::ConfigLevel::Local))
            .map_err(|e| StoreError::git("opening the repository's config", e))
    }

    /// `true` when a remote of this name is configured.
    pub fn has_remote(&self, name: &str) -> bool {
        self.repo.find_remote(name).is_ok()
    }

    /// Where git runs hooks from: `core.hooksPath` (relative to the working tree), else the
    /// common git directory's `hooks`.
    pub fn hooks_dir(&self) -> std::path::PathBuf {
        let configured = match CommandLine::get().last("core.hooksPath") {
            Some(given) => Some(expand_home(given.unwrap_or_default())),
            None => self
                .repo
                .config()
                .ok()
                .and_then(|c| c.get_path("core.hooksPath").ok()),
        };
        match configured {
            Some(p) if p.is_absolute() => p,
            Some(p) => self
                .repo
                .workdir()
                .unwrap_or_else(|| self.repo.path())
                .join(p),
            None => self.repo.commondir().join("hooks"),
        }
    }

    /// Every value of a multi-valued setting, in order.
    pub fn config_all(&self, key: &str) -> Vec<String> {
        let mut out = Vec::new();
        if let Ok(config) = self.config()
            && let Ok(mut entries) = config.multivar(key, None)
        {
            while let Some(Ok(entry)) = entries.next() {
                if let Ok(value) = entry.value() {
                    out.push(value.to_string());
                }
            }
        }
        out.extend(CommandLine::get().all(key));
        out
    }
}

/// A string setting from `config` with git's command-line settings laid over it.
pub(crate) fn layered_string(config: Option<&git2::Config>, key: &str) -> Option<String> {
    match CommandLine::get().last(key) {
        Some(given) => Some(given.unwrap_or_default().to_string()),
        None => config?.get_string(key).ok(),
    }
}

/// A boolean setting from `config` with git's command-line settings laid over it; `None` when
/// unset or not a boolean.
pub(crate) fn layered_bool(config: Option<&git2::Config>, key: &str) -> Option<bool> {
    match CommandLine::get().last(key) {
        Some(given) => cmdline::parse_bool(given),
        None => config?.get_bool(key).ok(),
    }
}

/// A path setting from `config` with git's command-line settings laid over it.
pub(crate) fn layered_path(config: Option<&git2::Config>, key: &str) -> Option<std::path::PathBuf> {
    match CommandLine::get().last(key) {
        Some(given) => Some(expand_home(given.unwrap_or_default())),
        None => config?.get_path(key).ok(),
    }
}

/// A path setting as git reads it: a leading `~/` is the home directory.
fn expand_home(path: &str) -> std::path::PathBuf {
    match (path.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => std::path::Path::new(&home).join(rest),
        _ => std::path::PathBuf::from(path),
    }
}

/// Files of lower precedence first, as git reads them.
fn level_rank(level: git2::ConfigLevel) -> u8 {
    match level {
        git2::ConfigLevel::ProgramData => 0,
        git2::ConfigLevel::System => 1,
        git2::ConfigLevel::XDG => 2,
        git2::ConfigLevel::Global => 3,
        git2::ConfigLevel::Local => 4,
        git2::ConfigLevel::Worktree => 5,
        git2::ConfigLevel::App => 6,
        git2::ConfigLevel::Highest => 7,
    }
}
