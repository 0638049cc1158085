//! Which lines of the shared notes take effect in this clone.
//!
//! Anyone who can push to a remote can append any line to the papayu notes, with any timestamp.
//! Lines that only *describe* (records, which must hash to their ids; status events, which a
//! local branch overrides) are read as claims. Lines that would *decide* something here — a
//! cancel (`undone`, `redone`) that takes a line out of effect, a check verdict that ranks a
//! proposal, picks it or lets `merge` through — take effect only when someone this clone trusts
//! stands behind them: this clone's own operation log, which names every line its operations
//! appended (by line hash), and the workers this repository trusts (`papayu.trustedWorkers`),
//! whose signed result notes [`super::results`] verifies. [`Trust::vouch`] is the one place a
//! line of the shared notes is vouched for; [`Voucher::Worker`] is given only by
//! [`super::results`] once `ssh-keygen` said the signature is a trusted key's. This module never
//! reads the repository: the caller gathers the hashes (see [`super::oplog::logged_trust`]).

use std::collections::HashSet;

use serde::Serialize;

/// Who stands behind a verdict that takes effect here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Voucher {
    /// This clone's operation log wrote the line: a check this clone ran.
    ThisClone,
    /// A worker listed in `papayu.trustedWorkers` signed the result: a check it ran.
    Worker,
}

/// The lines this clone vouches for, by line hash.
#[derive(Debug, Clone, Default)]
pub enum Trust {
    /// Every line takes effect (tests of the reader's rules).
    #[default]
    All,
    /// Only the lines this clone's operation log wrote.
    Logged {
        /// `undone` and `redone` lines.
        cancels: HashSet<String>,
        /// Lines of the operations that check (`apply`, `refine`): the events that carry a
        /// verdict among them.
        verdicts: HashSet<String>,
    },
}

impl Trust {
    /// Nothing is vouched for: every cancel and every verdict is a claim.
    pub fn nothing() -> Trust {
        Trust::Logged {
            cancels: HashSet::new(),
            verdicts: HashSet::new(),
        }
    }

    /// Whether the cancel line `hash` takes effect.
    pub fn trusts_cancel(&self, hash: &str) -> bool {
        match self {
            Trust::All => true,
            Trust::Logged { cancels, .. } => cancels.contains(hash),
        }
    }

    /// Who vouches for the verdict the event line `hash` carries; `None` makes it a claim.
    pub fn vouch(&self, hash: &str) -> Option<Voucher> {
        match self {
            Trust::All => Some(Voucher::ThisClone),
            Trust::Logged { verdicts, .. } => verdicts.contains(hash).then_some(Voucher::ThisClone),
        }
    }
}
