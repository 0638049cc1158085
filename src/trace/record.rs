//! Recording traces for every front end and every command that makes them (plan, apply,
//! refine, merge): whether tracing is on, what every trace records, and a warning — never a
//! failure — when one cannot be written. The warning goes to the front end's callback; this
//! module never prints.

use std::collections::BTreeMap;

use crate::ask::session::{OutcomeSummary, Recorder};
use crate::ask::{self, Event, Prepared, Question, Transcript};
use crate::build::FileChange;
use crate::codes::Problem;
use crate::engine::check::CheckReport;
use crate::engine::plan::Planned;
use crate::store::Store;
use crate::store::records::now_millis;
use crate::trace::{self, BlockStat, CacheStats, CheckLog, ContextStats, Trace};

/// Trace settings for one command, and where a trace that cannot be written is reported.
pub struct Tracer {
    env: BTreeMap<String, String>,
    on: bool,
    raw: bool,
    warn: Box<dyn Fn(&str) + Send + Sync>,
}

impl Tracer {
    /// The settings in force in `store`'s repository and environment; `warn` hears of a
    /// trace that could not be written.
    pub fn new(store: &Store, warn: impl Fn(&str) + Send + Sync + 'static) -> Tracer {
        let env = ask::env_map();
        let config = store.config_values("papayu.trace");
        let on = trace::enabled(&env, config.get("papayu.trace").map(String::as_str));
        let raw = trace::raw_enabled(&env);
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

impl Recorder for Tracer {
    type Record = Trace;

    fn begin(
        &self,
        kind: &str,
        question: &Question,
        prepared: &Prepared,
        outcome: OutcomeSummary,
    ) -> Trace {
        let mut t = self.start(kind, outcome.trace_id);
        t.goal = Some(question.goal.clone());
        t.base = Some(question.base.to_string());
        t.context_stats = Some(context_stats(prepared));
        self.conversation(&mut t, outcome.transcript);
        t
    }

    fn stored(&self, store: &Store, t: &mut Trace, planned: &Planned) {
        plan_stored(t, planned);
        self.write(store, t);
    }

    fn failed(&self, store: &Store, t: &mut Trace, problems: &[Problem]) {
        self.write_failed(store, t, problems);
    }

    fn shown_id(&self, t: &Trace) -> Option<String> {
        self.on.then(|| t.trace_id.clone())
    }
}

/// What the model was shown before its first answer.
fn context_stats(prepared: &Prepared) -> ContextStats {
    ContextStats {
        blocks: prepared
            .blocks
            .iter()
            .map(|b| BlockStat {
                kind: format!("{:?}", b.kind).to_lowercase(),
                title: b.title.clone(),
                chars: b.body.chars().count(),
                full_chars: b.full_chars,
                truncated: b.truncated,
            })
            .collect(),
        total_chars: prepared.blocks.iter().map(|b| b.body.chars().count()).sum(),
        withheld: prepared.withheld.clone(),
    }
}

/// What a stored plan adds to its trace.
pub fn plan_stored(t: &mut Trace, planned: &Planned) {
    let r = &planned.record;
    t.plan_id = Some(r.id.clone());
    t.base = Some(r.base.clone());
    t.goal = Some(r.goal.clone());
    t.schema_version = Some(r.schema_version);
    t.schema_hash = Some(r.schema_hash.clone());
    t.validated_json = serde_json::to_value(&r.plan).ok();
    t.patch_placements = placements(&planned.changes);
    t.transcript.events.push(preview_ready(planned).to_string());
}

/// The `PREVIEW_READY` event of a stored plan.
pub fn preview_ready(planned: &Planned) -> Event {
    Event::PreviewReady {
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
