//! Reading git config values with their types, for the engine: a value of the wrong type is
//! reported with the text git holds, never silently replaced by a default.

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
        self.typed(key, git2::Config::get_bool)
    }

    /// A whole-number setting (git's `k`/`m`/`g` suffixes): `None` when unset.
    pub fn config_i64(&self, key: &str) -> Result<Result<Option<i64>, WrongType>, StoreError> {
        self.typed(key, git2::Config::get_i64)
    }

    fn typed<T>(
        &self,
        key: &str,
        get: fn(&git2::Config, &str) -> Result<T, git2::Error>,
    ) -> Result<Result<Option<T>, WrongType>, StoreError> {
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
        let configured = self
            .repo
            .config()
            .ok()
            .and_then(|c| c.get_path("core.hooksPath").ok());
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
        let Ok(config) = self.config() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        if let Ok(mut entries) = config.multivar(key, None) {
            while let Some(Ok(entry)) = entries.next() {
                if let Ok(value) = entry.value() {
                    out.push(value.to_string());
                }
            }
        }
        out
    }
}

impl Store {
    /// A string setting as git would read it for this command: `git -c key=value` (passed to
    /// subcommands in `GIT_CONFIG_PARAMETERS`) first, then the configuration files.
    pub fn setting(&self, key: &str) -> Option<String> {
        let given = std::env::var("GIT_CONFIG_PARAMETERS").ok();
        given
            .as_deref()
            .and_then(|p| command_line_value(p, key))
            .or_else(|| self.config_string(key))
    }
}

/// The last value of `key` in `GIT_CONFIG_PARAMETERS`: shell-quoted entries, either
/// `'key=value'` (older git) or `'key'='value'`. Section and variable names compare without case.
fn command_line_value(parameters: &str, key: &str) -> Option<String> {
    let normal = |name: &str| match (name.find('.'), name.rfind('.')) {
        (Some(first), Some(last)) if first != last => format!(
            "{}{}{}",
            name[..first].to_ascii_lowercase(),
            &name[first..last],
            name[last..].to_ascii_lowercase()
        ),
        _ => name.to_ascii_lowercase(),
    };
    let wanted = normal(key);
    let mut found = None;
    let mut rest = parameters.trim_start();
    while !rest.is_empty() {
        let (first, after) = quoted(rest)?;
        let (name, value, after) = match after.strip_prefix('=') {
            Some(value) => {
                let (value, after) = quoted(value)?;
                (first, value, after)
            }
            None => match first.split_once('=') {
                Some((name, value)) => (name.to_string(), value.to_string(), after),
                None => (first, "true".to_string(), after),
            },
        };
        if normal(&name) == wanted {
            found = Some(value);
        }
        rest = after.trim_start();
    }
    found
}

/// One single-quoted word (`'\''` inside it is a quote) and what follows it.
fn quoted(text: &str) -> Option<(String, &str)> {
    let mut rest = text.strip_prefix('\'')?;
    let mut out = String::new();
    loop {
        let end = rest.find('\'')?;
        out.push_str(&rest[..end]);
        rest = &rest[end + 1..];
        match rest.strip_prefix("\\''") {
            Some(more) => {
                out.push('\'');
                rest = more;
            }
            None => return Some((out, rest)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::command_line_value;

    #[test]
    fn git_dash_c_values_are_read_in_both_of_gits_formats() {
        let old = "'papayu.attribution=none' 'user.name=A'";
        assert_eq!(
            command_line_value(old, "papayu.attribution").as_deref(),
            Some("none")
        );
        let new = "'Papayu.Attribution'='co-authored-by' 'notes.papayu.mergeStrategy'='union'";
        assert_eq!(
            command_line_value(new, "papayu.attribution").as_deref(),
            Some("co-authored-by")
        );
        assert_eq!(
            command_line_value(new, "notes.papayu.mergestrategy").as_deref(),
            Some("union")
        );
        let quote = "'papayu.x'='it'\\''s'";
        assert_eq!(
            command_line_value(quote, "papayu.x").as_deref(),
            Some("it's")
        );
        assert_eq!(
            command_line_value("'a.b=1' 'a.b=2'", "a.b").as_deref(),
            Some("2")
        );
        assert_eq!(command_line_value("", "a.b"), None);
    }
}
