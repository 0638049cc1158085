//! Trace files: `<gitdir>/papayu/traces/<trace_id>.json`, one per plan.
//!
//! A trace is a diagnostic aid, never part of a plan's correctness: failing to write one is
//! not an error. Raw model output is never written here.

use std::collections::BTreeMap;

use super::tree::FileChange;
use crate::store::Store;
use crate::store::records::PlanRecord;

/// Writes the trace of a stored plan; `changes` is its dry run (for how each hunk was placed).
pub fn write_plan_trace(
    store: &Store,
    record: &PlanRecord,
    changes: &[FileChange],
    warnings: &[String],
) {
    let placements: BTreeMap<&str, _> = changes
        .iter()
        .filter(|c| !c.hunks.is_empty())
        .map(|c| (c.path.as_str(), &c.hunks))
        .collect();
    let dir = store.state_dir().join("traces");
    let trace = serde_json::json!({
        "trace_id": record.trace_id,
        "plan_id": record.id,
        "event": "PLAN_STORED",
        "provider": record.provider,
        "model": record.model,
        "schema_version": record.schema_version,
        "schema_hash": record.schema_hash,
        "protocol_version": record.schema_version,
        "base": record.base,
        "warnings": warnings,
        "context": record.context,
        "patch_placements": placements,
        "validated_json": record.plan,
        "config_snapshot": {
            "normalize_eol": std::env::var("PAPAYU_NORMALIZE_EOL").ok(),
        },
    });
    let text = serde_json::to_string_pretty(&trace).expect("trace serializes");
    if std::fs::create_dir_all(&dir).is_ok() {
        let _ = std::fs::write(dir.join(format!("{}.json", record.trace_id)), text);
    }
}
