//! Running the check on the base, once: the other half of the differential check.
//!
//! Every proposal of a goal is judged against the same base run, and a second `apply` on the
//! same base (another provider's answer, a retry) must not pay for it again: the run is cached
//! in the store per base tree and check key. The key is the command and everything else that
//! can change what it reports (the JUnit path, the network); never the plan, which does not
//! take part in a base run.

use std::path::{Component, Path, PathBuf};
use std::time::Instant;

use sha2::{Digest, Sha256};

use super::check::{self, CheckSettings, ResolvedCheck};
use super::results::{self, Reader, Tests};
use crate::codes::{Code, Problem};
use crate::settings::Settings;
use crate::store::worktree::Slot;
use crate::store::{Oid, Store, StoreError};
use crate::verdict::BaseRun;

/// The largest JUnit report read; a bigger one is left unread (exit status only).
const MAX_JUNIT_BYTES: u64 = 64 * 1024 * 1024;

/// Where per-test results come from besides the output.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sources {
    /// A JUnit XML report the check writes, relative to the repository's top
    /// (`papayu.checkJunit`).
    pub junit: Option<PathBuf>,
}

impl Sources {
    /// `papayu.checkJunit`, the one place it is read.
    pub fn resolve(config: &Settings) -> Result<Sources, Problem> {
        let Some(value) = config
            .git("papayu.checkJunit")
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
        else {
            return Ok(Sources::default());
        };
        let path = PathBuf::from(&value);
        let inside = path
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
        if !inside {
            return Err(Problem::new(
                Code::CheckConfigInvalid,
                format!(
                    "git config papayu.checkJunit is '{value}'; give the report's path relative to the top of the repository, e.g. git config papayu.checkJunit build/junit.xml"
                ),
            ));
        }
        Ok(Sources { junit: Some(path) })
    }

    /// The per-test results of a check that just ran in `slot`: the JUnit report when there is
    /// one, else what its output said.
    pub fn tests(&self, slot: &Slot, output: Reader) -> Tests {
        let from_output = output.finish();
        match self
            .junit
            .as_deref()
            .and_then(|p| read_junit(&slot.path, p))
        {
            Some(junit) if !junit.is_empty() => junit,
            _ => from_output,
        }
    }
}

fn read_junit(top: &Path, relative: &Path) -> Option<Tests> {
    let path = top.join(relative);
    let meta = std::fs::symlink_metadata(&path).ok()?;
    if !meta.is_file() || meta.len() > MAX_JUNIT_BYTES {
        return None;
    }
    let bytes = std::fs::read(&path).ok()?;
    Some(results::from_junit(&String::from_utf8_lossy(&bytes)))
}

/// The cache key of a check: what decides its result apart from the tree.
pub fn key(check: &ResolvedCheck, settings: &CheckSettings, sources: &Sources) -> String {
    let mut hash = Sha256::new();
    hash.update(check.command.as_bytes());
    hash.update([0]);
    if let Some(junit) = &sources.junit {
        hash.update(junit.to_string_lossy().as_bytes());
    }
    hash.update([0, u8::from(settings.network), u8::from(settings.sandbox)]);
    hash.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What a base run reports while it is made.
pub enum Event<'a> {
    /// It was not cached: the check starts on the base.
    Starting,
    /// Output of the check, as it arrives.
    Output(&'a [u8]),
}

/// The base run of `check` on `base`: from the cache when it ran there before (`true`), else
/// run now in `slot` and cached. Proposals checked side by side wait for one another here, so
/// the base runs once.
pub fn base_run(
    store: &Store,
    slot: &Slot,
    base: Oid,
    check: &ResolvedCheck,
    (settings, sources): (&CheckSettings, &Sources),
    events: &mut dyn FnMut(Event<'_>),
) -> Result<(BaseRun, bool), StoreError> {
    let tree = store.commit_tree(base)?;
    let key = key(check, settings, sources);
    let _lock = store.lock_base_run(&key, tree)?;
    if let Some(run) = store
        .base_run(&key, tree)
        .and_then(|bytes| serde_json::from_slice::<BaseRun>(&bytes).ok())
    {
        return Ok((run, true));
    }
    events(Event::Starting);
    let started = Instant::now();
    let mut reader = Reader::default();
    let report = check::run(store, slot, base, check, "base", settings, &mut |chunk| {
        reader.push(chunk);
        events(Event::Output(chunk));
    })?;
    let run = BaseRun {
        passed: report.passed,
        exit_code: report.exit_code,
        tests: sources.tests(slot, reader),
        millis: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    };
    // A base that ran out of time says nothing about its tests: it is not cached.
    if !report.timed_out {
        let bytes = serde_json::to_vec(&run).expect("a base run serializes");
        store.save_base_run(&key, tree, &bytes);
    }
    Ok((run, false))
}
