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
    /// Why papayu wants it, in one sentence.
    pub why: String,
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
        why: "a plan's note follows its commit through git commit --amend and git rebase"
            .to_string(),
    });
    steps.push(Step {
        what: "notes.papayu.mergeStrategy = cat_sort_uniq".to_string(),
        changed: store.ensure_local_value("notes.papayu.mergeStrategy", "cat_sort_uniq")?,
        why: "merging teammates' notes (git papayu sync, git notes merge) keeps every line of both sides"
            .to_string(),
    });
    if let Some(remote) = &request.share {
        if !store.has_remote(remote) {
            return Err(Problem::new(
                Code::NoSuchRemote,
                format!("no remote named '{remote}'; see git remote -v"),
            ));
        }
        let key = format!("remote.{remote}.fetch");
        let refspec = super::sync::fetch_refspec(remote);
        steps.push(Step {
            what: format!("{key} += {refspec}"),
            changed: store.ensure_local_multivar(&key, &refspec)?,
            why: format!(
                "git fetch {remote} brings {remote}'s plans too, for git papayu sync to merge"
            ),
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
                why: hook_why(name),
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
            why: hook_why(name),
        });
    }
    Ok(steps)
}

fn hook_why(name: &str) -> String {
    match name {
        "pre-push" => {
            "git push never publishes a papayu/* branch by mistake; git papayu publish does it on purpose"
                .to_string()
        }
        other => format!("the sample {other} hook"),
    }
}

/// The remote `init` suggests sharing plans with when it was not asked to: the only one, or
/// `origin`; `None` without remotes or when sharing is set up for it already.
pub fn share_offer(store: &Store) -> Option<String> {
    let remote = store.default_remote();
    if !store.has_remote(&remote) {
        return None;
    }
    let refspec = super::sync::fetch_refspec(&remote);
    let configured = store.config_all(&format!("remote.{remote}.fetch"));
    (!configured.contains(&refspec)).then_some(remote)
}
