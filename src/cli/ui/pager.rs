//! git's pager rules: which command pages long output, and running it.
//!
//! The pager is `GIT_PAGER`, else `pager.papayu` when that names a command, else `core.pager`,
//! `PAGER`, and finally `less` (git's own order); `cat` or an empty value means none. Nothing is paged when
//! stdout is not a terminal, when git already started a pager for us (`GIT_PAGER_IN_USE`), with
//! `--no-pager` or `pager.papayu=false`. The pager is started as git starts it: through the
//! shell, with `LESS=FRX` and `LV=-c` unless they are set, so short output does not wait.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Child, ChildStdin, Stdio};

/// The environment the pager choice reads.
pub struct PagerEnv {
    pub git_pager: Option<String>,
    pub pager: Option<String>,
    pub in_use: bool,
}

impl PagerEnv {
    pub fn from_process() -> PagerEnv {
        PagerEnv {
            git_pager: std::env::var("GIT_PAGER").ok(),
            pager: std::env::var("PAGER").ok(),
            in_use: std::env::var("GIT_PAGER_IN_USE").is_ok_and(|v| is_true(&v)),
        }
    }
}

fn is_true(value: &str) -> bool {
    matches!(
        value.to_ascii_lowercase().as_str(),
        "true" | "yes" | "on" | "1"
    )
}

fn is_false(value: &str) -> bool {
    matches!(
        value.to_ascii_lowercase().as_str(),
        "false" | "no" | "off" | "0"
    )
}

/// The pager command to use for long output on a terminal, if any.
pub fn command(env: &PagerEnv, config: &BTreeMap<String, String>) -> Option<String> {
    if env.in_use {
        return None;
    }
    let own = config.get("pager.papayu").map(String::as_str);
    if own.is_some_and(is_false) {
        return None;
    }
    let named = own.filter(|v| !is_true(v)).map(str::to_string);
    let chosen = env
        .git_pager
        .clone()
        .or(named)
        .or_else(|| config.get("core.pager").cloned())
        .or_else(|| env.pager.clone())
        .unwrap_or_else(|| "less".to_string());
    let trimmed = chosen.trim();
    (!trimmed.is_empty() && trimmed != "cat").then(|| trimmed.to_string())
}

/// A running pager: what papayu writes to stdout goes to its input.
pub struct Pager {
    child: Child,
    input: Option<ChildStdin>,
}

impl Pager {
    /// Starts `command` through the shell; `None` when it cannot be started (output then goes
    /// to stdout as if there were no pager).
    pub fn start(command: &str) -> Option<Pager> {
        let mut cmd = std::process::Command::new("sh");
        cmd.arg("-c").arg(command).stdin(Stdio::piped());
        if std::env::var_os("LESS").is_none() {
            cmd.env("LESS", "FRX");
        }
        if std::env::var_os("LV").is_none() {
            cmd.env("LV", "-c");
        }
        let mut child = cmd.spawn().ok()?;
        let input = child.stdin.take();
        Some(Pager { child, input })
    }

    /// Writes to the pager; `false` once the reader has gone (the user quit the pager).
    pub fn write(&mut self, bytes: &[u8]) -> bool {
        match &mut self.input {
            Some(input) => input.write_all(bytes).and_then(|()| input.flush()).is_ok(),
            None => false,
        }
    }

    /// Ends the input and waits for the user to leave the pager.
    pub fn finish(mut self) {
        drop(self.input.take());
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(git_pager: Option<&str>, pager: Option<&str>) -> PagerEnv {
        PagerEnv {
            git_pager: git_pager.map(str::to_string),
            pager: pager.map(str::to_string),
            in_use: false,
        }
    }

    fn config(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn git_order_of_pager_settings() {
        let none = config(&[]);
        assert_eq!(command(&env(None, None), &none).as_deref(), Some("less"));
        assert_eq!(
            command(&env(None, Some("more")), &none).as_deref(),
            Some("more")
        );
        let core = config(&[("core.pager", "most")]);
        assert_eq!(
            command(&env(None, Some("more")), &core).as_deref(),
            Some("most")
        );
        assert_eq!(
            command(&env(Some("bat"), Some("more")), &core).as_deref(),
            Some("bat")
        );
        let own = config(&[("core.pager", "most"), ("pager.papayu", "less -S")]);
        assert_eq!(
            command(&env(None, Some("more")), &own).as_deref(),
            Some("less -S")
        );
        assert_eq!(
            command(&env(Some("bat"), None), &own).as_deref(),
            Some("bat")
        );
    }

    #[test]
    fn cat_false_and_in_use_mean_no_pager() {
        assert_eq!(command(&env(Some("cat"), None), &config(&[])), None);
        assert_eq!(command(&env(Some(""), None), &config(&[])), None);
        let off = config(&[("pager.papayu", "false")]);
        assert_eq!(command(&env(Some("less"), None), &off), None);
        let on = config(&[("pager.papayu", "true")]);
        assert_eq!(
            command(&env(Some("bat"), None), &on).as_deref(),
            Some("bat")
        );
        let in_use = PagerEnv {
            in_use: true,
            ..env(None, None)
        };
        assert_eq!(command(&in_use, &config(&[])), None);
    }
}
