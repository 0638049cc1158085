//! One-time repository setup: notes that follow rewrites, note merging, sharing, hooks.

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
    let mut steps = Vec::new();
    steps.push(Step {
        what: format!("notes.rewriteRef += {NOTES_REF}"),
        changed: store.ensure_local_multivar("notes.rewriteRef", NOTES_REF)?,
    });
    steps.push(Step {
        what: "notes.papayu.mergeStrategy = cat_sort_uniq".to_string(),
        changed: store.ensure_local_value("notes.papayu.mergeStrategy", "cat_sort_uniq")?,
    });
    if let Some(remote) = &request.share {
        if !store.has_remote(remote) {
            return Err(Problem::new(
                Code::NoSuchRemote,
                format!("no remote named '{remote}'; see git remote -v"),
            ));
        }
        let key = format!("remote.{remote}.fetch");
        let refspec = format!("+{NOTES_REF}:refs/notes/remotes/{remote}/papayu");
        steps.push(Step {
            what: format!("{key} += {refspec}"),
            changed: store.ensure_local_multivar(&key, &refspec)?,
        });
    }
    if request.hooks {
        steps.extend(install_hooks(store)?);
    }
    Ok(steps)
}

fn install_hooks(store: &Store) -> Result<Vec<Step>, Problem> {
    let dir = store.hooks_dir();
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
