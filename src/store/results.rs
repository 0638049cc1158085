//! Verdicts other machines wrote: result notes, claims unless a trusted worker signed them.
//!
//! A worker (`git papayu worker`, or anything that writes the same lines) records each check it
//! ran as one line of the note on the candidate commit, in its own notes ref
//! `refs/notes/papayu-checks/<worker>`:
//!
//! ```text
//! {"result":"<the result, as a JSON string>","sig":"-----BEGIN SSH SIGNATURE-----\n…"}
//! ```
//!
//! The result is kept as a string so that the signed bytes are exactly the stored bytes. A
//! result counts here as this clone's own verdict ([`Voucher::Worker`]) only when its signature
//! verifies (namespace `papayu-check`) against a key of `papayu.trustedWorkers` for the worker
//! name it gives, and it names the very plan and commit of a local proposal branch; anything
//! else is a claim, shown with the worker's name and why it does not count. What is read is
//! bounded like the shared notes' intake: a line past [`MAX_RESULT_LINE`] bytes and lines past
//! [`MAX_RESULTS_PER_NOTE`] in one note are not read.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use git2::Oid;
use serde::{Deserialize, Serialize};

use super::checks::{RESULTS, is_ref_component};
use super::records::{ClaimedVerdict, Event, EventKind, Ledger, Voucher, line_hash};
use super::{Store, StoreError, notes, sshsig};
use crate::verdict::Verdict;

/// The version of the result format this papayu writes and reads.
pub const RESULT_FORMAT: u32 = 1;
/// The longest result line read.
pub const MAX_RESULT_LINE: usize = 64 * 1024;
/// The most result lines read from one note.
pub const MAX_RESULTS_PER_NOTE: usize = 256;
/// How much of a check's output a result keeps.
pub const OUTPUT_KEPT: usize = 4_000;

/// What became of a request's candidate on a worker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ResultOutcome {
    /// The check ran on the candidate and its base: `check` is its verdict.
    Checked,
    /// The worker lacks what the check needs (the command, a toolchain): no verdict.
    CannotRun,
}

/// One check a worker ran, as its result note says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckResult {
    pub format: u32,
    /// The request it answers.
    pub request: String,
    pub plan: String,
    /// The candidate commit checked, and the base it was judged against.
    pub commit: String,
    pub base: String,
    /// The worker's name (its notes ref is `refs/notes/papayu-checks/<worker>`).
    pub worker: String,
    /// When the result was written (milliseconds since the epoch).
    pub at: i64,
    pub outcome: ResultOutcome,
    pub check: Verdict,
    pub command: String,
    #[serde(default)]
    pub exit_code: Option<i32>,
    #[serde(default)]
    pub seconds: f64,
    /// What the worker's sandbox enforced (as `apply --json` reports a check's `sandbox`).
    #[serde(default)]
    pub sandbox: Option<serde_json::Value>,
    /// For `cannot-run`: why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The last lines of the check's output, masked.
    #[serde(default)]
    pub output_tail: String,
    /// The papayu version of the worker.
    pub papayu: String,
}

#[derive(Serialize, Deserialize)]
struct ResultLine {
    result: String,
    #[serde(default)]
    sig: Option<String>,
}

/// A result's note line: its payload (the exact bytes signed) and the signature, if any.
#[expect(
    clippy::expect_used,
    reason = "serializing a derived type with string keys cannot fail"
)]
pub fn result_line(payload: &str, signature: Option<&str>) -> String {
    serde_json::to_string(&ResultLine {
        result: payload.to_string(),
        sig: signature.map(str::to_string),
    })
    .expect("a result line serializes")
}

/// Where a result stands in this clone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Standing {
    /// Signed by a key of `papayu.trustedWorkers` for the worker's name.
    Trusted,
    Unsigned,
    /// Signed, validly, by a key `papayu.trustedWorkers` does not list for that name.
    NotTrusted,
    /// The signature is not a valid signature of the result.
    BadSignature,
}

impl Standing {
    /// Why a result is a claim, in words; `None` when it is trusted.
    pub fn why(&self) -> Option<&'static str> {
        match self {
            Standing::Trusted => None,
            Standing::Unsigned => Some("unsigned"),
            Standing::NotTrusted => Some("signed by a key papayu.trustedWorkers does not list"),
            Standing::BadSignature => Some("its signature does not verify"),
        }
    }
}

/// A result found in the notes, and where it stands.
#[derive(Debug, Clone)]
pub struct Found {
    pub result: CheckResult,
    pub standing: Standing,
    /// The line's hash.
    pub line: String,
}

/// Verification answers, by line hash and trusted keys: a line is verified once per process.
static VERIFIED: Mutex<Option<HashMap<(String, String), Standing>>> = Mutex::new(None);

impl Store {
    /// The notes refs results are read from: this clone's workers' and every remote's, as
    /// fetched (see [`super::checks::fetched_results`]).
    fn result_refs(&self) -> Result<Vec<(String, Oid)>, StoreError> {
        let mut refs = self.refs_under(RESULTS)?;
        refs.extend(
            self.refs_under("refs/notes/remotes/")?
                .into_iter()
                .filter(|(name, _)| name.contains("/papayu-checks/")),
        );
        Ok(refs)
    }

    /// Every result on `commit` in the result notes, each once, with its standing.
    pub fn results_on(&self, commit: Oid) -> Result<Vec<Found>, StoreError> {
        let refs = self.result_refs()?;
        self.results_in(&refs, commit)
    }

    fn results_in(&self, refs: &[(String, Oid)], commit: Oid) -> Result<Vec<Found>, StoreError> {
        let trusted = self.trusted_workers();
        let mut seen = BTreeMap::new();
        for (_, tip) in refs {
            let Some(text) = notes::read(&self.repo, Some(*tip), commit)? else {
                continue;
            };
            for raw in text.lines().take(MAX_RESULTS_PER_NOTE) {
                if raw.len() > MAX_RESULT_LINE || seen.contains_key(&line_hash(raw)) {
                    continue;
                }
                if let Some(found) = read_line(raw, &trusted) {
                    seen.insert(found.line.clone(), found);
                }
            }
        }
        let mut out: Vec<Found> = seen.into_values().collect();
        out.sort_by(|a, b| (a.result.at, &a.line).cmp(&(b.result.at, &b.line)));
        Ok(out)
    }

    /// The allowed-signers lines of `papayu.trustedWorkers` (values that are neither a key nor
    /// a `NAME key` line are left out).
    pub fn trusted_workers(&self) -> Vec<String> {
        self.config_all("papayu.trustedWorkers")
            .iter()
            .filter_map(|v| sshsig::allowed_line(v))
            .collect()
    }

    /// Adds the verdicts workers wrote for the local proposal branches to `ledger`: trusted
    /// ones to [`Ledger::worker_verdicts`], the rest to [`Ledger::claimed_verdicts`]. Nothing
    /// is read when no result notes are here.
    pub(super) fn fold_worker_verdicts(&self, ledger: &mut Ledger) -> Result<(), StoreError> {
        let refs = self.result_refs()?;
        if refs.is_empty() {
            return Ok(());
        }
        let local: Vec<(String, Oid)> = ledger
            .local
            .iter()
            .flat_map(|(plan, branches)| branches.iter().map(move |b| (plan.clone(), b.tip)))
            .collect();
        for (plan, tip) in local {
            for found in self.results_in(&refs, tip)? {
                let r = &found.result;
                if r.plan != plan
                    || r.commit != tip.to_string()
                    || r.outcome != ResultOutcome::Checked
                {
                    continue;
                }
                let event = worker_event(r, tip);
                match found.standing.why() {
                    None => {
                        let mut event = event;
                        event.vouched = Some(Voucher::Worker);
                        ledger
                            .worker_verdicts
                            .entry(plan.clone())
                            .or_default()
                            .push(event);
                    }
                    Some(why) => ledger
                        .claimed_verdicts
                        .entry(plan.clone())
                        .or_default()
                        .push(ClaimedVerdict {
                            event,
                            line: found.line.clone(),
                            on: tip,
                            worker: Some(r.worker.clone()),
                            why: Some(why.to_string()),
                        }),
                }
            }
        }
        for list in ledger.claimed_verdicts.values_mut() {
            list.sort_by(|a, b| (a.event.at, &a.line).cmp(&(b.event.at, &b.line)));
        }
        Ok(())
    }
}

/// The event a worker's verdict reads as: `applied` when the proposal may stay, else `failed`.
fn worker_event(result: &CheckResult, tip: Oid) -> Event {
    let kind = match result.check.kept() {
        true => EventKind::Applied,
        false => EventKind::Failed,
    };
    let mut event = Event::new(&result.plan, kind);
    event.at = result.at;
    event.commit = Some(tip);
    event.exit_code = result.exit_code;
    event.check = Some(Box::new(result.check.clone()));
    event.detail = Some(format!("checked by worker {}", result.worker));
    event
}

/// One result line read: its payload parsed (a newer format, a name that is no ref component,
/// or a plan or commit that is no object id is not read) and its signature judged.
fn read_line(raw: &str, trusted: &[String]) -> Option<Found> {
    let line: ResultLine = serde_json::from_str(raw).ok()?;
    let result: CheckResult = serde_json::from_str(&line.result).ok()?;
    let hex = |s: &str| s.len() == 40 && s.bytes().all(|b| b.is_ascii_hexdigit());
    if result.format > RESULT_FORMAT
        || !is_ref_component(&result.worker)
        || !hex(&result.plan)
        || !hex(&result.commit)
    {
        return None;
    }
    let hash = line_hash(raw);
    let standing = match &line.sig {
        None => Standing::Unsigned,
        Some(sig) => judge(&hash, trusted, &result.worker, &line.result, sig),
    };
    Some(Found {
        result,
        standing,
        line: hash,
    })
}

/// Where a signed result stands: trusted when it verifies against the trusted keys for its
/// worker's name; else signed by another key when it is a valid signature at all.
fn judge(hash: &str, trusted: &[String], worker: &str, payload: &str, sig: &str) -> Standing {
    let key = (hash.to_string(), trusted.join("\n"));
    if let Some(known) = VERIFIED
        .lock()
        .ok()
        .and_then(|m| m.as_ref().and_then(|m| m.get(&key).cloned()))
    {
        return known;
    }
    let standing = match sshsig::verify(trusted, worker, payload.as_bytes(), sig) {
        Ok(true) => Standing::Trusted,
        _ => match sshsig::is_valid(payload.as_bytes(), sig) {
            true => Standing::NotTrusted,
            false => Standing::BadSignature,
        },
    };
    if let Ok(mut m) = VERIFIED.lock() {
        m.get_or_insert_with(HashMap::new)
            .insert(key, standing.clone());
    }
    standing
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(worker: &str, format: u32) -> CheckResult {
        CheckResult {
            format,
            request: "0123456789ab".to_string(),
            plan: "a".repeat(40),
            commit: "b".repeat(40),
            base: "c".repeat(40),
            worker: worker.to_string(),
            at: 1,
            outcome: ResultOutcome::Checked,
            check: Verdict::unchecked(),
            command: "true".to_string(),
            exit_code: Some(0),
            seconds: 0.1,
            sandbox: None,
            reason: None,
            output_tail: String::new(),
            papayu: "0.1.0".to_string(),
        }
    }

    fn line(r: &CheckResult, sig: Option<&str>) -> String {
        result_line(&serde_json::to_string(r).unwrap(), sig)
    }

    #[test]
    fn a_result_line_reads_back_unsigned_as_a_claim() {
        let r = result("ci", RESULT_FORMAT);
        let found = read_line(&line(&r, None), &[]).expect("read");
        assert_eq!(found.result, r);
        assert_eq!(found.standing, Standing::Unsigned);
        assert_eq!(found.standing.why(), Some("unsigned"));
    }

    #[test]
    fn lines_from_a_newer_format_or_with_odd_names_are_not_read() {
        assert!(read_line(&line(&result("ci", RESULT_FORMAT + 1), None), &[]).is_none());
        assert!(read_line(&line(&result("../x", RESULT_FORMAT), None), &[]).is_none());
        let mut short = result("ci", RESULT_FORMAT);
        short.commit = "b".repeat(7);
        assert!(read_line(&line(&short, None), &[]).is_none());
        assert!(read_line("not json", &[]).is_none());
    }

    #[test]
    fn a_signature_of_other_bytes_does_not_verify() {
        let r = result("ci", RESULT_FORMAT);
        let bogus = "-----BEGIN SSH SIGNATURE-----\nAAAA\n-----END SSH SIGNATURE-----\n";
        let found = read_line(&line(&r, Some(bogus)), &[]).expect("read");
        assert_eq!(found.standing, Standing::BadSignature);
    }
}
