//! Engineering memory: the user's and the project's preferences, shown to the model as the
//! `ENGINEERING_MEMORY` block, and updated only when the user accepts a `memory_patch`.
//!
//! User preferences live in `$XDG_CONFIG_HOME/papa-yu/preferences.json`. Project preferences are
//! `.papa-yu/project.json` as committed at the base, overlaid by accepted updates kept in
//! `<gitdir>/papayu/project.json` (papayu never edits the user's working tree; commit the file
//! to share a preference with the team).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::codes::{Code, Problem};
use crate::store::{Oid, Store};

/// The largest memory block sent, in bytes (the seeds ask for about 1–2 KB).
pub const MAX_BLOCK_BYTES: usize = 2048;

/// Both layers of preferences.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Memory {
    pub user: Map<String, Value>,
    pub project: Map<String, Value>,
}

/// Where the user's preferences live, from `XDG_CONFIG_HOME` or `HOME`.
pub fn user_file(env: &BTreeMap<String, String>) -> Option<PathBuf> {
    let base = match env.get("XDG_CONFIG_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env.get("HOME").filter(|v| !v.is_empty())?).join(".config"),
    };
    Some(base.join("papa-yu").join("preferences.json"))
}

fn local_project_file(store: &Store) -> PathBuf {
    store.state_dir().join("project.json")
}

/// Reads both layers. Files that are missing or not JSON objects count as empty; only the
/// whitelisted keys are kept, so nothing else reaches the prompt.
pub fn load(store: &Store, base: Oid, env: &BTreeMap<String, String>) -> Memory {
    let user = user_file(env)
        .and_then(|p| std::fs::read_to_string(p).ok())
        .map(|t| whitelisted("user", &t))
        .unwrap_or_default();
    let mut project = committed_project(store, base)
        .map(|t| whitelisted("project", &t))
        .unwrap_or_default();
    if let Ok(text) = std::fs::read_to_string(local_project_file(store)) {
        project.extend(whitelisted("project", &text));
    }
    Memory { user, project }
}

fn committed_project(store: &Store, base: Oid) -> Option<String> {
    let file = store
        .snapshot(base)
        .ok()?
        .read(".papa-yu/project.json")
        .ok()??;
    String::from_utf8(file.bytes).ok()
}

fn whitelisted(layer: &str, text: &str) -> Map<String, Value> {
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(text) else {
        return Map::new();
    };
    map.into_iter()
        .filter(|(k, v)| {
            let key = format!("{layer}.{k}");
            crate::protocol::MEMORY_KEYS
                .iter()
                .any(|(known, _)| *known == key)
                && !v.is_null()
        })
        .collect()
}

impl Memory {
    /// The compact JSON block for the system prompt; empty when there is nothing to say.
    /// Keys come out sorted, so the block is byte-stable; long values are shortened to fit.
    pub fn block(&self) -> String {
        if self.user.is_empty() && self.project.is_empty() {
            return String::new();
        }
        let mut value = serde_json::json!({ "user": self.user, "project": self.project });
        let mut text = value.to_string();
        while text.len() > MAX_BLOCK_BYTES {
            if !shorten_longest(&mut value) {
                break;
            }
            text = value.to_string();
        }
        text
    }
}

/// Halves the longest string in the block; `false` when nothing is left to shorten.
fn shorten_longest(value: &mut Value) -> bool {
    let mut longest: Option<&mut String> = None;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s)
                if s.len() > 16 && longest.as_ref().is_none_or(|l| l.len() < s.len()) =>
            {
                longest = Some(s);
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(map) => stack.extend(map.values_mut()),
            _ => {}
        }
    }
    let Some(s) = longest else { return false };
    let keep: String = s.chars().take(s.chars().count() / 2).collect();
    *s = format!("{keep}…");
    true
}

/// Writes an accepted `memory_patch` (already whitelisted and type-checked by the protocol):
/// `user.*` keys to the user's preferences, `project.*` keys to the repository's local layer.
/// Returns the keys written.
pub fn accept(
    store: &Store,
    env: &BTreeMap<String, String>,
    patch: &BTreeMap<String, Value>,
) -> Result<Vec<String>, Problem> {
    let mut written = Vec::new();
    for (layer, file) in [
        ("user", user_file(env)),
        ("project", Some(local_project_file(store))),
    ] {
        let updates: Vec<(&String, &Value)> = patch
            .iter()
            .filter(|(k, _)| k.strip_prefix(layer).is_some_and(|r| r.starts_with('.')))
            .collect();
        if updates.is_empty() {
            continue;
        }
        let file = file.ok_or_else(|| {
            Problem::new(
                Code::Io,
                "cannot tell where user preferences live: set HOME or XDG_CONFIG_HOME",
            )
        })?;
        let mut current = std::fs::read_to_string(&file)
            .ok()
            .and_then(|t| match serde_json::from_str::<Value>(&t) {
                Ok(Value::Object(m)) => Some(m),
                _ => None,
            })
            .unwrap_or_default();
        for (key, value) in updates {
            current.insert(key[layer.len() + 1..].to_string(), value.clone());
            written.push(key.clone());
        }
        write_atomically(&file, &Value::Object(current))?;
    }
    Ok(written)
}

fn write_atomically(path: &Path, value: &Value) -> Result<(), Problem> {
    let io = |e: std::io::Error| Problem::new(Code::Io, format!("writing {}: {e}", path.display()));
    let dir = path.parent().ok_or_else(|| {
        Problem::new(
            Code::Io,
            format!("writing {}: it names no directory", path.display()),
        )
    })?;
    std::fs::create_dir_all(dir).map_err(io)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
    // `{:#}` is serde_json's pretty form, which a `Value` always has.
    std::io::Write::write_all(&mut tmp, format!("{value:#}\n").as_bytes()).map_err(io)?;
    tmp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whitelisted_keys_are_read() {
        let map = whitelisted(
            "project",
            r#"{"default_test_command":"pytest -q","secret":"x","src_roots":["src"]}"#,
        );
        assert_eq!(map.len(), 2);
        assert!(map.contains_key("default_test_command"));
        assert!(!map.contains_key("secret"));
    }

    #[test]
    fn block_is_stable_and_bounded() {
        let mut memory = Memory::default();
        memory
            .project
            .insert("ci_notes".into(), Value::String("x".repeat(10_000)));
        memory
            .user
            .insert("preferred_style".into(), Value::String("brief".into()));
        let block = memory.block();
        assert!(block.len() <= MAX_BLOCK_BYTES, "{}", block.len());
        assert_eq!(block, memory.block());
        assert!(block.contains("\"preferred_style\":\"brief\""));
        assert_eq!(Memory::default().block(), "");
    }

    #[test]
    fn user_file_follows_xdg_then_home() {
        let mut env = BTreeMap::new();
        env.insert("HOME".to_string(), "/h".to_string());
        assert_eq!(
            user_file(&env),
            Some(PathBuf::from("/h/.config/papa-yu/preferences.json"))
        );
        env.insert("XDG_CONFIG_HOME".to_string(), "/x".to_string());
        assert_eq!(
            user_file(&env),
            Some(PathBuf::from("/x/papa-yu/preferences.json"))
        );
    }
}
