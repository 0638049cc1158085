//! Traces: one JSON file per plan, apply, refine and merge, in
//! `<gitdir>/papayu/traces/<trace_id>.json`, so that any run can be inspected, reported on and
//! replayed through newer code.
//!
//! A trace is a diagnostic record, never part of a command's correctness: the caller reports a
//! failure to write one and carries on. Everything written passes through [`mask`]: provider
//! keys from the environment, and every credential pattern the context engine masks. The
//! model's raw answers are kept only with `PAPAYU_TRACE_RAW=1`.

pub mod conversation;
pub mod golden;
pub mod outcome;
pub mod record;
pub mod report;
pub mod session;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::ask::{FailureLog, Transcript};
use crate::context::mask_secrets;
use crate::store::Store;

/// The trace format's version.
pub const TRACE_VERSION: u32 = 1;

/// One traced command.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Trace {
    pub version: u32,
    pub trace_id: String,
    /// `plan`, `apply`, `refine` or `merge`.
    pub kind: String,
    /// Milliseconds since the epoch.
    pub created_at: i64,
    pub ok: bool,
    /// The problems the command ended with (empty when it succeeded).
    pub problems: Vec<FailureLog>,
    pub goal: Option<String>,
    pub base: Option<String>,
    pub plan_id: Option<String>,
    pub branch: Option<String>,
    /// The settings in force, never a key.
    pub config_snapshot: BTreeMap<String, String>,
    pub context_stats: Option<ContextStats>,
    pub cache_stats: Option<CacheStats>,
    /// The conversation with one provider (plans and refines).
    #[serde(flatten)]
    pub transcript: Transcript,
    pub schema_version: Option<u8>,
    pub schema_hash: Option<String>,
    pub validated_json: Option<serde_json::Value>,
    /// How the patch engine placed each hunk, per path.
    pub patch_placements: Option<serde_json::Value>,
    pub check: Option<CheckLog>,
    /// The model's answers in order, only with `PAPAYU_TRACE_RAW=1`.
    pub raw_answers: Vec<String>,
    /// The group of competing proposals the plan belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// What the plan's requests cost in US dollars (`papayu.<provider>.price`), when priced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

/// What the model was shown before its first answer.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ContextStats {
    pub blocks: Vec<BlockStat>,
    pub total_chars: usize,
    pub withheld: Vec<String>,
}

/// One context block.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct BlockStat {
    pub kind: String,
    pub title: String,
    /// Why it was sent (`named in the goal`, `traceback`, `read_file request`, …).
    pub source: String,
    pub chars: usize,
    pub full_chars: usize,
    pub truncated: bool,
}

/// Context-request cache use of one conversation.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CacheStats {
    pub hits: BTreeMap<String, u32>,
    pub misses: BTreeMap<String, u32>,
    /// Hits over lookups; 0 when there were none.
    pub hit_rate: f64,
}

impl CacheStats {
    pub fn of(transcript: &Transcript) -> CacheStats {
        let hits: u32 = transcript.cache_hits.values().sum();
        let misses: u32 = transcript.cache_misses.values().sum();
        CacheStats {
            hits: transcript.cache_hits.clone(),
            misses: transcript.cache_misses.clone(),
            hit_rate: if hits + misses == 0 {
                0.0
            } else {
                f64::from(hits) / f64::from(hits + misses)
            },
        }
    }
}

/// The check an apply ran.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CheckLog {
    pub command: String,
    pub exit_status: Option<i32>,
    pub duration_ms: u64,
    /// The last lines of its output.
    pub output_tail: String,
}

impl Trace {
    /// A new trace of `kind`, with a fresh id unless `trace_id` is given.
    pub fn new(kind: &str, trace_id: Option<String>, now: i64) -> Trace {
        Trace {
            version: TRACE_VERSION,
            trace_id: trace_id.unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
            kind: kind.to_string(),
            created_at: now,
            ok: true,
            ..Trace::default()
        }
    }

    /// Marks the trace failed with `problems`.
    pub fn failed(&mut self, problems: &[crate::Problem]) {
        self.ok = false;
        let protocol = self
            .transcript
            .protocol_attempts
            .last()
            .copied()
            .unwrap_or(0);
        self.problems = problems
            .iter()
            .map(|p| FailureLog::of(p, protocol))
            .collect();
    }
}

/// Whether trace files are written: `PAPAYU_TRACE`, else git config `papayu.trace`, else on.
pub fn tracing_on(config: &crate::settings::Settings) -> bool {
    // A declared boolean: a typo is refused before any command runs.
    config.flag("papayu.trace").ok().flatten().unwrap_or(true)
}

/// The settings worth recording: every `PAPAYU_*` variable whose name is not a secret's, with
/// its value masked.
pub fn config_snapshot(env: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    env.iter()
        .filter(|(k, _)| k.starts_with("PAPAYU_") && !crate::llm::config::is_secret_name(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// `text` with the values of secret-named environment variables and every credential pattern
/// replaced.
pub fn mask(text: &str, env: &BTreeMap<String, String>) -> String {
    let mut out = text.to_string();
    for (name, value) in env {
        if crate::llm::config::is_secret_name(name) && value.len() >= 8 {
            out = out.replace(value.as_str(), "[MASKED]");
        }
    }
    mask_secrets(&out)
}

/// Where traces live.
pub fn dir(store: &Store) -> PathBuf {
    store.state_dir().join("traces")
}

/// Writes `trace`, masked; returns the file written or why not.
pub fn write(
    store: &Store,
    trace: &Trace,
    env: &BTreeMap<String, String>,
) -> Result<PathBuf, String> {
    let dir = dir(store);
    let text = serde_json::to_string_pretty(trace).map_err(|e| e.to_string())?;
    let text = mask(&text, env);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join(format!("{}.json", trace.trace_id));
    let mut tmp =
        tempfile::NamedTempFile::new_in(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    std::io::Write::write_all(&mut tmp, text.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    tmp.persist(&path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

/// Reads the trace whose id is `id` or starts with it (at least 6 characters, unambiguous).
pub fn read(store: &Store, id: &str) -> Result<Trace, String> {
    let dir = dir(store);
    let exact = dir.join(format!("{id}.json"));
    let path = if exact.is_file() {
        exact
    } else {
        let matches: Vec<PathBuf> = list_paths(store)
            .into_iter()
            .filter(|p| {
                id.len() >= 6
                    && p.file_stem()
                        .is_some_and(|s| s.to_string_lossy().starts_with(id))
            })
            .collect();
        match matches.as_slice() {
            [one] => one.clone(),
            [] => return Err(format!("no trace {id} in {}", dir.display())),
            _ => {
                return Err(format!(
                    "{id} names {} traces; give more of the id",
                    matches.len()
                ));
            }
        }
    };
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: not a trace ({e})", path.display()))
}

fn list_paths(store: &Store) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir(store)) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    out.sort();
    out
}

/// Every readable trace, oldest first; unreadable files are counted, not fatal.
pub fn all(store: &Store) -> (Vec<Trace>, usize) {
    let mut unreadable = 0;
    let mut out: Vec<Trace> = list_paths(store)
        .iter()
        .filter_map(|p| {
            let parsed = std::fs::read_to_string(p)
                .ok()
                .and_then(|t| serde_json::from_str::<Trace>(&t).ok());
            if parsed.is_none() {
                unreadable += 1;
            }
            parsed
        })
        .collect();
    out.sort_by_key(|t| t.created_at);
    (out, unreadable)
}

/// Removes traces created before `before` (milliseconds since the epoch); returns how many
/// files and bytes were freed (or would be, with `dry_run`).
pub fn prune(store: &Store, before: i64, dry_run: bool) -> (usize, u64) {
    let mut count = 0;
    let mut bytes = 0;
    for path in list_paths(store) {
        let created = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str::<Trace>(&t).ok())
            .map(|t| t.created_at);
        if created.is_some_and(|c| c < before) {
            bytes += std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
            count += 1;
            if !dry_run {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
    (count, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_credentials_are_masked() {
        let env: BTreeMap<String, String> = [
            (
                "OPENAI_API_KEY".to_string(),
                "planted-key-value-123".to_string(),
            ),
            ("PAPAYU_LLM_MODEL".to_string(), "gpt".to_string()),
        ]
        .into();
        let text = "key planted-key-value-123 and sk-proj-abcdefghijklmnopqrstuv and Bearer abcdefghijklmnop";
        let masked = mask(text, &env);
        assert!(!masked.contains("planted-key-value-123"));
        assert!(!masked.contains("sk-proj-abcdefghijklmnopqrstuv"));
        assert!(!masked.contains("Bearer abcdefghijklmnop"));
        assert_eq!(
            config_snapshot(&env).keys().collect::<Vec<_>>(),
            ["PAPAYU_LLM_MODEL"]
        );
    }

    #[test]
    fn tracing_is_on_unless_turned_off() {
        use crate::settings::Settings;
        use crate::store::config::ConfigEntry;
        let settings = |env: Option<&str>, git: Option<&str>| {
            let git = git.map(|v| ConfigEntry {
                name: "papayu.trace".to_string(),
                value: Some(v.to_string()),
                origin: "file:x".to_string(),
            });
            let env = env.map(|v| ("PAPAYU_TRACE".to_string(), v.to_string()));
            Settings::from_parts(git.into_iter().collect(), env.into_iter().collect())
        };
        assert!(tracing_on(&settings(None, None)));
        assert!(!tracing_on(&settings(None, Some("false"))));
        assert!(
            tracing_on(&settings(Some("1"), Some("false"))),
            "the environment wins"
        );
        assert!(!tracing_on(&settings(Some("0"), None)));
    }
}
