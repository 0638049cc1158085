//! Presentation every front end shares: text made safe for a terminal, line diffs and the
//! diffstat. Pure functions returning strings; nothing here prints.

pub mod diffstat;
pub mod linediff;
pub mod text;

use crate::store::records::PlanRecord;

/// Who answered for a plan: `provider:model`, or the provider alone.
pub fn provider_label(record: &PlanRecord) -> String {
    match &record.model {
        Some(model) => format!("{}:{model}", record.provider),
        None => record.provider.clone(),
    }
}
