//! Reading git config values with their types, for the engine: a value of the wrong type is
//! reported with the text git holds, never silently replaced by a default. git's command-line
//! settings (`git -c`, see [`super::cmdline`]) are laid over the files, as git lays them.

use super::cmdline::{self, CommandLine};
use super::{Store, StoreError};

/// A config value that does not read as the type asked for: its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrongType(pub String);

impl Store {
    fn config(&self) -> Result<git2::Config, StoreError> {
        self.repo
            .config()
            .and_then(|mut c| c.snapshot())
            .map_err(|e| StoreError::git("reading git config", e))
    }

    /// A boolean setting (git's spellings): `None` when unset.
    pub fn config_bool(&self, key: &str) -> Result<Result<Option<bool>, WrongType>, StoreError> {
        self.typed(key, git2::Config::get_bool, cmdline::parse_bool)
    }

    /// A whole-number setting (git's `k`/`m`/`g` suffixes): `None` when unset.
    pub fn config_i64(&self, key: &str) -> Result<Result<Option<i64>, WrongType>, StoreError> {
        self.typed(key, git2::Config::get_i64, |v| {
            cmdline::parse_i64(v.unwrap_or_default())
        })
    }

    fn typed<T>(
        &self,
        key: &str,
        get: fn(&git2::Config, &str) -> Result<T, git2::Error>,
        parse: fn(Option<&str>) -> Option<T>,
    ) -> Result<Result<Option<T>, WrongType>, StoreError> {
        if let Some(given) = CommandLine::get().last(key) {
            return Ok(parse(given)
                .map(Some)
                .ok_or_else(|| WrongType(given.unwrap_or_default().to_string())));
        }
        let config = self.config()?;
        Ok(match config.get_entry(key) {
            Err(_) => Ok(None),
            Ok(entry) => get(&config, key)
                .map(Some)
                .map_err(|_| WrongType(entry.value().unwrap_or_default().to_string())),
        })
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
