//! What the model sees: context gathered from the base commit, dieted to fixed limits, and
//! rendered as the byte-stable prefix of every request.
//!
//! Everything is read from the commit a plan is made against — never from the working tree —
//! so what the model saw is exactly what the plan's fingerprint records. Protected paths are
//! never read (a request for one gets "withheld: protected path"); every block's text is
//! passed through [`mask_secrets`] before it is kept; binary and non-UTF-8 files are described,
//! not dumped. Nothing here prints or touches the network.

mod blocks;
mod copies;
mod corpus;
mod defs;
mod diet;
mod env;
mod fill;
mod locate;
mod map;
mod pointed;
mod private;
mod query;
mod rank;
mod ranked;
mod render;
mod requests;
mod search;
mod secrets;
mod twins;

use std::collections::BTreeMap;

use serde::Serialize;

pub use blocks::{Block, BlockKind};
pub use corpus::Corpus;
pub use diet::{DietReport, diet, truncate};
pub use env::env_text;
pub use locate::{Mention, map_path, mentions};
pub use private::may_read;
pub use query::Query;
pub use rank::{Ranked, Ranking, is_test_path, rank};
pub use render::{fingerprints, render};
pub use requests::{Cache, Fulfilled, event_value, fulfil, request_label};
pub use search::{Hit, MAX_QUERY_CHARS, MAX_SEARCH_HITS, query_problem, search};
pub use secrets::{MASK, MASK_PRIVATE_KEY, MaskWritten, has_mask, mask_secrets, unmask};

use blocks::file_block;
use private::Private;

use crate::protocol::ProtocolVersion;
use crate::store::Snapshot;

/// The seeds' context limits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Budget {
    pub max_files: usize,
    pub max_file_chars: usize,
    pub max_total_chars: usize,
    pub max_log_chars: usize,
    pub map_chars: usize,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            max_files: 8,
            max_file_chars: 20_000,
            max_total_chars: 120_000,
            max_log_chars: 12_000,
            map_chars: 6_000,
        }
    }
}

impl Budget {
    /// The limits, with `PAPAYU_CONTEXT_*` overrides from `env` (unparsable values ignored).
    pub fn from_env(env: &BTreeMap<String, String>) -> Budget {
        let mut b = Budget::default();
        let get = |name: &str, into: &mut usize| {
            if let Some(v) = env.get(name).and_then(|v| v.trim().parse().ok()) {
                *into = v;
            }
        };
        get("PAPAYU_CONTEXT_MAX_FILES", &mut b.max_files);
        get("PAPAYU_CONTEXT_MAX_FILE_CHARS", &mut b.max_file_chars);
        get("PAPAYU_CONTEXT_MAX_TOTAL_CHARS", &mut b.max_total_chars);
        get("PAPAYU_CONTEXT_MAX_LOG_CHARS", &mut b.max_log_chars);
        get("PAPAYU_CONTEXT_MAP_CHARS", &mut b.map_chars);
        b
    }
}

/// What the user gave: the goal, logs, and the protocol the blocks are rendered for.
#[derive(Debug, Clone)]
pub struct Input {
    pub goal: String,
    pub logs: Vec<(String, String)>,
    pub protocol: ProtocolVersion,
}

/// Gathered blocks and what was withheld, as (path, reason).
#[derive(Debug, Default)]
pub struct Gathered {
    pub blocks: Vec<Block>,
    pub withheld: Vec<(String, String)>,
}

/// Lines shown around a line a log points at.
pub const WINDOW: u32 = 80;

/// Top-ranked files the map covers (their directories listed, their definitions shown).
const MAP_RANKED: usize = 40;

/// Context gathered before the first call: files named in the goal and logs (with ±80 lines
/// around each line a log points at), the environment and manifests when a dependency is
/// missing, the architecture notes, the logs themselves, the tree's best-ranked files in the
/// room left, and the repository map.
pub fn gather(snap: &Snapshot<'_>, input: &Input, budget: &Budget) -> Gathered {
    let mut out = Gathered::default();
    let pointed = pointed::pointed(snap, &input.goal, &input.logs);
    let missing_dependency = pointed.missing_dependency;
    let private = Private::of(snap);
    for (path, (windows, source, priority, _)) in pointed.in_order() {
        if !private.allows(&path) {
            out.withheld.push((path, "protected path".to_string()));
            continue;
        }
        if let Some(block) = file_block(snap, &path, &windows, source, priority) {
            out.blocks.push(block);
        }
    }
    if missing_dependency {
        env::add_environment(snap, &mut out);
    }
    let architecture = ".papa-yu/architecture.md";
    if let Some(block) = file_block(snap, architecture, &[], "architecture notes", 1) {
        out.blocks.push(Block {
            kind: BlockKind::Architecture,
            ..block
        });
    }
    for (name, text) in &input.logs {
        let log = Block::text(BlockKind::Log, name.clone(), "--log", 2, text.clone());
        out.blocks.push(log);
    }
    let ranking = ranked::add_ranked(snap, input, budget, &private, &mut out);
    add_map(snap, input, budget, (&private, &ranking), &mut out);
    out
}

/// The repository map, about the files sent and the best-ranked ones.
fn add_map(
    snap: &Snapshot<'_>,
    input: &Input,
    budget: &Budget,
    (private, ranking): (&Private, &Ranking),
    out: &mut Gathered,
) {
    let files = out.blocks.iter().filter(|b| b.kind == BlockKind::File);
    let sent_whole: Vec<String> = files
        .clone()
        .filter(|b| b.ranges.is_empty() && !b.truncated)
        .map(|b| b.title.clone())
        .collect();
    let sent: Vec<String> = files.map(|b| b.title.clone()).collect();
    let everything: Vec<String> = ranking.files.iter().map(|r| r.path.clone()).collect();
    let focus = map::Focus {
        sent: &sent,
        sent_whole: &sent_whole,
        ranked: &everything[..everything.len().min(MAP_RANKED)],
        everything: &everything,
        private,
    };
    let map = map::repo_map(snap, &input.goal, &focus, budget.map_chars);
    if !map.is_empty() {
        let source = "the base tree";
        let block = Block::text(BlockKind::Map, "repository map", source, 3, map);
        out.blocks.push(block);
    }
}
