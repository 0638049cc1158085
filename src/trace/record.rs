//! Recording traces for every front end and every command that makes them (plan, apply,
//! refine, merge): whether tracing is on, what every trace records, and a warning — never a
//! failure — when one cannot be written. The warning goes to the front end's callback; this
//! module never prints.

use std::collections::BTreeMap;

use crate::ask::{LoopEvent, Transcript};
use crate::codes::Problem;
use crate::engine::check::CheckReport;
use crate::engine::plan::Planned;
use crate::executor::FileChange;
use crate::settings::Settings as Config;
use crate::store::Store;
use crate::store::records::now_millis;
use crate::trace::{self, CacheStats, CheckLog, Trace};

/// Trace settings for one command, and where a trace that cannot be written is reported.
pub struct Tracer {
    env: BTreeMap<String, String>,
    on: bool,
    raw: bool,
    warn: Box<dyn Fn(&str) + Send + Sync>,
}

impl Tracer {
    /// Traces as the command's settings say (`papayu.trace`, `PAPAYU_TRACE`,
    /// `PAPAYU_TRACE_RAW`); `warn` hears of a trace that could not be written.
    pub fn new(config: &Config, warn: impl Fn(&str) + Send + Sync + 'static) -> Tracer {
        let env = config.env_map().clone();
        let on = trace::tracing_on(config);
        let raw = config
            .flag("PAPAYU_TRACE_RAW")
            .ok()
            .flatten()
            .unwrap_or(false);
        Tracer {
            env,
            on,
            raw,
            warn: Box::new(warn),
        }
    }

    /// A new trace of `kind` with the settings in force.
    pub fn start(&self, kind: &str, trace_id: Option<String>) -> Trace {
        let mut t = Trace::new(kind, trace_id, now_millis());
        t.config_snapshot = trace::config_snapshot(&self.env);
        t
    }

    /// Adds a conversation: its requests, protocol path and events, and (with
    /// `PAPAYU_TRACE_RAW=1`) the model's answers.
    pub fn conversation(&self, t: &mut Trace, transcript: Transcript) {
        t.cache_stats = Some(CacheStats::of(&transcript));
        if self.raw {
            t.raw_answers = transcript.answers.clone();
        }
        t.transcript = transcript;
    }

    /// Writes the trace when tracing is on; a failure is a warning.
    pub fn write(&self, store: &Store, t: &Trace) {
        if !self.on {
            return;
        }
        if let Err(why) = trace::write(store, t, &self.env) {
            (self.warn)(&format!("could not write trace {}: {why}", t.trace_id));
        }
    }

    /// Records `problems` as the command's end and writes the trace.
    pub fn write_failed(&self, store: &Store, t: &mut Trace, problems: &[Problem]) {
        t.failed(problems);
        self.write(store, t);
    }

    /// Whether traces are written (so a trace id can be shown to look at).
    pub fn is_on(&self) -> bool {
        self.on
    }
}

/// What a stored plan adds to its trace.
pub fn plan_stored(t: &mut Trace, planned: &Planned) {
    let r = &planned.record;
    t.plan_id = Some(r.id.clone());
    t.base = Some(r.base.to_string());
    t.goal = Some(r.goal.clone());
    t.schema_version = Some(r.schema_version);
    t.schema_hash = Some(r.schema_hash.clone());
    t.validated_json = serde_json::to_value(&r.plan).ok();
    t.patch_placements = placements(&planned.changes);
    t.group = r.group.clone();
    t.cost_usd = r.stats.as_ref().and_then(|s| s.cost_usd);
    t.transcript.events.push(preview_ready(planned).to_string());
}

/// The `PREVIEW_READY` event of a stored plan.
pub fn preview_ready(planned: &Planned) -> LoopEvent {
    LoopEvent::PreviewReady {
        plan: planned.record.short_id().to_string(),
        changes: planned.changes.len(),
    }
}

/// How the patch engine placed each hunk, per path; `None` when no change had hunks.
pub fn placements(changes: &[FileChange]) -> Option<serde_json::Value> {
    let map: BTreeMap<&str, _> = changes
        .iter()
        .filter(|c| !c.hunks.is_empty())
        .map(|c| (c.path.as_str(), &c.hunks))
        .collect();
    (!map.is_empty())
        .then(|| serde_json::to_value(map).ok())
        .flatten()
}

/// The check's part of an apply or refine trace.
pub fn check_log(report: &CheckReport) -> CheckLog {
    CheckLog {
        command: report.command.clone(),
        exit_status: report.exit_code,
        duration_ms: (report.seconds * 1000.0) as u64,
        output_tail: report.output_tail.clone(),
    }
}
