//! One-time repository setup: notes that follow rewrites, note merging, sharing, hooks.

use std::path::PathBuf;

use crate::codes::{Code, Problem};
use crate::store::{NOTES_REF, Store};

/// Sample hooks shipped with the tool: (file name, content).
pub const HOOKS: &[(&str, &str)] = &[("pre-push", include_str!("../../hooks/pre-push"))];

/// One thing `init` did or found already done.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Step {
    pub what: String,
    pub changed: bool,
}

pub struct InitRequest {
    pub share: Option<String>,
    pub hooks: bool,
}

pub fn init(store: &Store, request: &InitRequest) -> Result<Vec<Step>, Problem> {
    let mut config = store
        .repo
        .config()
        .and_then(|c| c.open_level(git2::ConfigLevel::Local))
        .map_err(config_problem)?;
    let mut steps = Vec::new();
    steps.push(ensure_multivar(&mut config, "notes.rewriteRef", NOTES_REF)?);
    steps.push(ensure_value(
        &mut config,
        "notes.papayu.mergeStrategy",
        "cat_sort_uniq",
    )?);
    if let Some(remote) = &request.share {
        if store.repo.find_remote(remote).is_err() {
            return Err(Problem::new(
                Code::NoSuchRemote,
                format!("no remote named '{remote}'; see git remote -v"),
            ));
        }
        let refspec = format!("+{NOTES_REF}:refs/notes/remotes/{remote}/papayu");
        steps.push(ensure_multivar(
            &mut config,
            &format!("remote.{remote}.fetch"),
            &refspec,
        )?);
    }
    if request.hooks {
        steps.extend(install_hooks(store)?);
    }
    Ok(steps)
}

fn config_problem(e: git2::Error) -> Problem {
    Problem::new(Code::Git, format!("writing git config: {}", e.message()))
}

fn ensure_value(config: &mut git2::Config, key: &str, value: &str) -> Result<Step, Problem> {
    let what = format!("{key} = {value}");
    if config.get_string(key).ok().as_deref() == Some(value) {
        return Ok(Step {
            what,
            changed: false,
        });
    }
    config.set_str(key, value).map_err(config_problem)?;
    Ok(Step {
        what,
        changed: true,
    })
}

fn ensure_multivar(config: &mut git2::Config, key: &str, value: &str) -> Result<Step, Problem> {
    let what = format!("{key} += {value}");
    let mut present = false;
    if let Ok(entries) = config.multivar(key, None) {
        let _ = entries.for_each(|e| {
            if e.value().ok() == Some(value) {
                present = true;
            }
        });
    }
    if present {
        return Ok(Step {
            what,
            changed: false,
        });
    }
    let anchored = format!("^{}$", regex::escape(value));
    config
        .set_multivar(key, &anchored, value)
        .map_err(config_problem)?;
    Ok(Step {
        what,
        changed: true,
    })
}

fn hooks_dir(store: &Store) -> PathBuf {
    let configured = store
        .repo
        .config()
        .ok()
        .and_then(|c| c.get_path("core.hooksPath").ok());
    match configured {
        Some(p) if p.is_absolute() => p,
        Some(p) => store
            .repo
            .workdir()
            .unwrap_or_else(|| store.repo.path())
            .join(p),
        None => store.repo.commondir().join("hooks"),
    }
}

fn install_hooks(store: &Store) -> Result<Vec<Step>, Problem> {
    let dir = hooks_dir(store);
    std::fs::create_dir_all(&dir)
        .map_err(|e| Problem::new(Code::Io, format!("creating {}: {e}", dir.display())))?;
    let mut steps = Vec::new();
    for (name, content) in HOOKS {
        let path = dir.join(name);
        if path.exists() {
            steps.push(Step {
                what: format!(
                    "hook {name} exists already at {}; left as it is",
                    path.display()
                ),
                changed: false,
            });
            continue;
        }
        std::fs::write(&path, content)
            .map_err(|e| Problem::new(Code::Io, format!("writing {}: {e}", path.display())))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755));
        }
        steps.push(Step {
            what: format!("installed hook {name}"),
            changed: true,
        });
    }
    Ok(steps)
}
