//! How a plan session is traced: [`Tracer`] is the [`Recorder`] of `ask::session`, so every
//! front end that asks through the session writes the same traces as the command line.

use super::record::{Tracer, plan_stored};
use super::{BlockStat, ContextStats, Trace};
use crate::ask::session::{OutcomeSummary, Recorder};
use crate::ask::{Prepared, Question};
use crate::codes::Problem;
use crate::engine::plan::Planned;
use crate::store::Store;

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
        self.is_on().then(|| t.trace_id.clone())
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
                source: b.source.clone(),
                chars: b.body.chars().count(),
                full_chars: b.full_chars,
                truncated: b.truncated,
            })
            .collect(),
        total_chars: prepared.blocks.iter().map(|b| b.body.chars().count()).sum(),
        withheld: prepared.withheld.clone(),
    }
}
