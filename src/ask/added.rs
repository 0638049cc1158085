//! What each context round added to a conversation: the requests of the answer that asked and
//! the blocks sent back, so a trace (and the conversation shared with a plan) says what the
//! model read between its answers, not only that it asked.

use serde::{Deserialize, Serialize};

use crate::context::{self, Block};
use crate::protocol::ContextRequest;

/// One context round.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct ContextRound {
    /// The request (from 1) whose answer asked for more context.
    pub after_request: usize,
    /// What it asked for, as the cache names it: `read_file:src/app.py:1-40`, `search:QUERY`,
    /// `logs:SOURCE`, `env`.
    pub asked: Vec<String>,
    /// The blocks sent back, after the diet.
    pub given: Vec<Given>,
    /// What was not sent, and why (`.env: protected`).
    pub withheld: Vec<String>,
}

/// One block sent in a context round.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Given {
    /// `file`, `search`, `log`, `env`.
    pub kind: String,
    pub title: String,
    /// 1-based inclusive line ranges shown (empty: the whole file).
    pub ranges: Vec<(u32, u32)>,
    pub chars: usize,
    pub truncated: bool,
}

impl ContextRound {
    pub fn of(
        after_request: usize,
        requests: &[ContextRequest],
        given: &[Block],
        withheld: &[String],
    ) -> ContextRound {
        ContextRound {
            after_request,
            asked: requests.iter().map(context::request_label).collect(),
            given: given
                .iter()
                .map(|b| Given {
                    kind: format!("{:?}", b.kind).to_lowercase(),
                    title: b.title.clone(),
                    ranges: b.ranges.clone(),
                    chars: b.body.chars().count(),
                    truncated: b.truncated,
                })
                .collect(),
            withheld: withheld.to_vec(),
        }
    }
}
