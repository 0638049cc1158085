//! Running the check on the base, once: the other half of the differential check.
//!
//! Every proposal of a goal is judged against the same base run, and a second `apply` on the
//! same base (another provider's answer, a retry) must not pay for it again: the run is cached
//! in the store per base tree and check key. The key is the command and everything else that
//! can change what it reports: the JUnit path, the network, the sandbox, the writable
//! directories, the caches kept, the check's environment, papayu's version; never the plan,
//! which does not take part in a base run.
//!
//! A base run is made in a slot of its own ([`SlotKind::Base`]): no proposal's check has ever
//! run there, so nothing a proposal left in a kept cache, and no process it started, can reach
//! the run every proposal is judged against.

use std::path::{Component, Path, PathBuf};
use std::time::Instant;

use sha2::{Digest, Sha256};

use super::check::{self, CheckSettings, ResolvedCheck};
use super::results::{Observed, Reader, Tests};
use crate::codes::{Code, Problem};
use crate::settings::Settings;
use crate::store::worktree::{self, Slot, SlotKind};
use crate::store::{Oid, Store, StoreError};
use crate::verdict::BaseRun;

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

    /// What a check that just ran in `slot` showed: the JUnit report's tests when one is
    /// configured and written, else those of the reports Maven or Gradle wrote
    /// (`engine::reports`), else what its output said; and whether its output said the tests
    /// never ran.
    pub fn observed(&self, slot: &Slot, output: Reader) -> Observed {
        let mut seen = output.observed();
        let reports = match self.junit.as_deref() {
            Some(path) => read_junit(&slot.path, path).unwrap_or_default(),
            None => super::reports::fresh(&slot.path),
        };
        if !reports.is_empty() {
            seen.tests = reports;
        }
        seen
    }
}

fn read_junit(top: &Path, relative: &Path) -> Option<Tests> {
    let path = super::reports::inside(top, relative)?;
    super::reports::read(&path, super::reports::MAX_BYTES).map(|(tests, _)| tests)
}

/// Bumped when what a base run records changes meaning.
const KEY_VERSION: &[u8] = b"base-run-3";

/// The cache key of a check: what decides its result apart from the tree. `caches` are the
/// directories the slot keeps for that tree (see [`check::caches`]).
pub fn key(
    check: &ResolvedCheck,
    settings: &CheckSettings,
    sources: &Sources,
    caches: &[String],
) -> String {
    let mut hash = Sha256::new();
    let mut field = |bytes: &[u8]| {
        hash.update(u64::try_from(bytes.len()).unwrap_or(u64::MAX).to_le_bytes());
        hash.update(bytes);
    };
    field(KEY_VERSION);
    field(env!("CARGO_PKG_VERSION").as_bytes());
    field(check.command.as_bytes());
    field(
        sources
            .junit
            .as_ref()
            .map(|j| j.to_string_lossy().into_owned())
            .unwrap_or_default()
            .as_bytes(),
    );
    field(&[u8::from(settings.network), u8::from(settings.sandbox)]);
    for dir in &settings.writable {
        field(dir.as_os_str().as_encoded_bytes());
    }
    field(b"caches");
    for cache in caches {
        field(cache.as_bytes());
    }
    field(b"env");
    for (name, value) in check::environment(&settings.env) {
        field(name.as_encoded_bytes());
        field(value.as_encoded_bytes());
    }
    hash.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What a base run reports while it is made.
pub enum BaseRunEvent<'a> {
    /// It was not cached: the check starts on the base.
    Starting,
    /// Output of the check, as it arrives.
    Output(&'a [u8]),
}

/// The base run of `check` on `base`: from the cache when it ran there before (`true`), else
/// run now in a base slot and cached. Proposals checked side by side wait for one another
/// here, so the base runs once.
pub fn base_run(
    store: &Store,
    base: Oid,
    check: &ResolvedCheck,
    (settings, sources): (&CheckSettings, &Sources),
    events: &mut dyn FnMut(BaseRunEvent<'_>),
) -> Result<(BaseRun, bool), StoreError> {
    let tree = store.commit_tree(base)?;
    let key = key(
        check,
        settings,
        sources,
        &check::caches(store, base, settings),
    );
    let _lock = store.lock_base_run(&key, tree)?;
    if let Some(run) = store
        .base_run(&key, tree)
        .and_then(|bytes| serde_json::from_slice::<BaseRun>(&bytes).ok())
    {
        return Ok((run, true));
    }
    events(BaseRunEvent::Starting);
    let (run, timed_out) = run_now(store, base, check, (settings, sources), events)?;
    // A base that ran out of time says nothing about its tests: it is not cached.
    if !timed_out && let Ok(bytes) = serde_json::to_vec(&run) {
        store.save_base_run(&key, tree, &bytes);
    }
    Ok((run, false))
}

/// The check run on `base` now, in a base slot, whatever the cache holds; `true` with it when
/// it ran out of time. A flaky test is told by running the base again.
pub fn run_now(
    store: &Store,
    base: Oid,
    check: &ResolvedCheck,
    (settings, sources): (&CheckSettings, &Sources),
    events: &mut dyn FnMut(BaseRunEvent<'_>),
) -> Result<(BaseRun, bool), StoreError> {
    let slot = worktree::acquire(store, SlotKind::Base, &mut |_| {})?;
    let started = Instant::now();
    let mut reader = Reader::default();
    let report = check::run(
        store,
        &slot,
        base,
        (check, sources.junit.as_deref()),
        "base",
        settings,
        &mut |chunk| {
            reader.push(chunk);
            events(BaseRunEvent::Output(chunk));
        },
    )?;
    let seen = sources.observed(&slot, reader);
    let run = BaseRun {
        passed: report.passed,
        exit_code: report.exit_code,
        not_run: seen.not_run.filter(|_| !report.passed),
        tests: seen.tests,
        millis: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    };
    Ok((run, report.timed_out))
}
