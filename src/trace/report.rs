//! `git papayu trace report`: protocol metrics over the traces, and the verdict of the
//! graduation criteria for making protocol v2 the only one (over the last 100 applies:
//! fallback under 1 %, ERR_PATCH_APPLY_FAILED under 1 % and more often repaired than fallen
//! back from, ERR_V2_UPDATE_EXISTING_FORBIDDEN near zero, with ERR_NON_UTF8_FILE not counted
//! as a failure of v2).

use std::collections::BTreeMap;

use serde::Serialize;

use super::Trace;

/// Applies the verdict looks at.
pub const GRADUATION_WINDOW: usize = 100;
/// Highest acceptable rate for the fallback and patch-failure criteria.
const GRADUATION_MAX_RATE: f64 = 0.01;

const NON_UTF8: &str = "ERR_NON_UTF8_FILE";
const PATCH_FAILED: &str = "ERR_PATCH_APPLY_FAILED";
const UPDATE_FORBIDDEN: &str = "ERR_V2_UPDATE_EXISTING_FORBIDDEN";

#[derive(Debug, Default, Serialize, PartialEq)]
pub struct Report {
    pub version: u32,
    pub traces: usize,
    pub plans: usize,
    pub plans_failed: usize,
    pub applies: usize,
    pub applies_failed: usize,
    pub fallback_count: usize,
    pub fallback_rate: f64,
    pub fallback_rate_excluding_non_utf8: f64,
    pub fallback_reasons: BTreeMap<String, usize>,
    pub repairs: usize,
    pub repairs_succeeded: usize,
    pub repair_success_rate: f64,
    /// Paths named by validation failures, most first (at most 10).
    pub most_repaired_paths: Vec<(String, usize)>,
    pub providers: BTreeMap<String, ProviderStats>,
    pub graduation: Graduation,
}

#[derive(Debug, Default, Serialize, PartialEq)]
pub struct ProviderStats {
    pub requests: usize,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cached_tokens: u64,
    pub cache_write_tokens: u64,
    /// Cached prompt tokens over prompt tokens.
    pub cache_hit_rate: f64,
}

#[derive(Debug, Default, Serialize, PartialEq)]
pub struct Graduation {
    /// `ready`, `not ready`, or `not enough data`.
    pub verdict: String,
    /// Applies in the window (at most 100).
    pub applies: usize,
    pub fallback_rate: f64,
    pub fallback_rate_excluding_non_utf8: f64,
    pub patch_apply_failed_rate: f64,
    pub patch_apply_failed_repaired: usize,
    pub patch_apply_failed_fallbacks: usize,
    pub update_existing_forbidden: usize,
    /// Each criterion not met, in words.
    pub unmet: Vec<String>,
}

fn rate(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

fn fell_back(t: &Trace) -> bool {
    t.transcript.protocol_fallback_reason.is_some()
}

fn fallback_reason(t: &Trace) -> Option<&str> {
    t.transcript.protocol_fallback_reason.as_deref()
}

fn failed_with(t: &Trace, code: &str) -> bool {
    t.transcript
        .validation_failures
        .iter()
        .any(|f| f.code == code)
}

/// The report over `traces` created at or after `since` (milliseconds since the epoch).
pub fn report(traces: &[Trace], since: Option<i64>) -> Report {
    let traces: Vec<&Trace> = traces
        .iter()
        .filter(|t| since.is_none_or(|s| t.created_at >= s))
        .collect();
    let plans: Vec<&Trace> = traces
        .iter()
        .copied()
        .filter(|t| t.kind == "plan" || t.kind == "refine")
        .collect();
    let applies: Vec<&Trace> = traces
        .iter()
        .copied()
        .filter(|t| t.kind == "apply")
        .collect();
    let fallbacks: Vec<&Trace> = plans.iter().copied().filter(|t| fell_back(t)).collect();
    let non_utf8 = fallbacks
        .iter()
        .filter(|t| fallback_reason(t) == Some(NON_UTF8))
        .count();
    let repaired: Vec<&Trace> = plans
        .iter()
        .copied()
        .filter(|t| t.transcript.protocol_repair_attempt > 0)
        .collect();
    let repairs_succeeded = repaired.iter().filter(|t| t.ok && !fell_back(t)).count();
    Report {
        version: 1,
        traces: traces.len(),
        plans: plans.len(),
        plans_failed: plans.iter().filter(|t| !t.ok).count(),
        applies: applies.iter().filter(|t| t.ok).count(),
        applies_failed: applies.iter().filter(|t| !t.ok).count(),
        fallback_count: fallbacks.len(),
        fallback_rate: rate(fallbacks.len(), plans.len()),
        fallback_rate_excluding_non_utf8: rate(fallbacks.len() - non_utf8, plans.len()),
        fallback_reasons: fallback_reasons(&fallbacks),
        repairs: repaired.len(),
        repairs_succeeded,
        repair_success_rate: rate(repairs_succeeded, repaired.len()),
        most_repaired_paths: most_repaired_paths(&plans),
        providers: provider_stats(&plans),
        graduation: graduation(&traces),
    }
}

/// How many of the `fallbacks` fell back for each reason.
fn fallback_reasons(fallbacks: &[&Trace]) -> BTreeMap<String, usize> {
    let mut reasons = BTreeMap::new();
    for t in fallbacks {
        *reasons
            .entry(fallback_reason(t).unwrap_or_default().to_string())
            .or_insert(0) += 1;
    }
    reasons
}

/// The ten paths the `plans`' validation failures named most, most named first.
fn most_repaired_paths(plans: &[&Trace]) -> Vec<(String, usize)> {
    let mut paths: BTreeMap<String, usize> = BTreeMap::new();
    for t in plans {
        for f in &t.transcript.validation_failures {
            if let Some(p) = &f.path {
                *paths.entry(p.clone()).or_insert(0) += 1;
            }
        }
    }
    let mut most: Vec<(String, usize)> = paths.into_iter().collect();
    most.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    most.truncate(10);
    most
}

/// The requests and tokens of the `plans`, by provider.
fn provider_stats(plans: &[&Trace]) -> BTreeMap<String, ProviderStats> {
    let mut providers: BTreeMap<String, ProviderStats> = BTreeMap::new();
    for t in plans {
        if t.transcript.provider.is_empty() {
            continue;
        }
        let p = providers.entry(t.transcript.provider.clone()).or_default();
        for r in &t.transcript.requests {
            p.requests += 1;
            p.input_tokens += r.input_tokens;
            p.output_tokens += r.output_tokens;
            p.cached_tokens += r.cached_tokens;
            p.cache_write_tokens += r.cache_write_tokens;
        }
    }
    for p in providers.values_mut() {
        p.cache_hit_rate = if p.input_tokens == 0 {
            0.0
        } else {
            p.cached_tokens as f64 / p.input_tokens as f64
        };
    }
    providers
}

/// The verdict over the plans behind the last 100 successful applies.
fn graduation(traces: &[&Trace]) -> Graduation {
    let plans: BTreeMap<&str, &Trace> = traces
        .iter()
        .filter(|t| t.kind == "plan" || t.kind == "refine")
        .filter_map(|t| Some((t.plan_id.as_deref()?, *t)))
        .collect();
    let applied: Vec<&Trace> = traces
        .iter()
        .filter(|t| t.kind == "apply" && t.ok)
        .rev()
        .take(GRADUATION_WINDOW)
        .filter_map(|a| plans.get(a.plan_id.as_deref()?).copied())
        .collect();
    let n = applied.len();
    let fallbacks = applied.iter().filter(|t| fell_back(t)).count();
    let non_utf8 = applied
        .iter()
        .filter(|t| fallback_reason(t) == Some(NON_UTF8))
        .count();
    let patch_failed = applied
        .iter()
        .filter(|t| failed_with(t, PATCH_FAILED))
        .count();
    let patch_fallbacks = applied
        .iter()
        .filter(|t| fallback_reason(t) == Some(PATCH_FAILED))
        .count();
    let patch_repaired = patch_failed - patch_fallbacks;
    let forbidden = applied
        .iter()
        .filter(|t| failed_with(t, UPDATE_FORBIDDEN))
        .count();
    let mut g = Graduation {
        applies: n,
        fallback_rate: rate(fallbacks, n),
        fallback_rate_excluding_non_utf8: rate(fallbacks - non_utf8, n),
        patch_apply_failed_rate: rate(patch_failed, n),
        patch_apply_failed_repaired: patch_repaired,
        patch_apply_failed_fallbacks: patch_fallbacks,
        update_existing_forbidden: forbidden,
        ..Graduation::default()
    };
    if g.fallback_rate_excluding_non_utf8 >= GRADUATION_MAX_RATE {
        g.unmet.push(format!(
            "fallback rate (excluding ERR_NON_UTF8_FILE) is {:.1} %, not under 1 %",
            g.fallback_rate_excluding_non_utf8 * 100.0
        ));
    }
    if g.patch_apply_failed_rate >= GRADUATION_MAX_RATE {
        g.unmet.push(format!(
            "ERR_PATCH_APPLY_FAILED in {:.1} % of plans, not under 1 %",
            g.patch_apply_failed_rate * 100.0
        ));
    }
    if patch_fallbacks > 0 && patch_repaired <= patch_fallbacks {
        g.unmet.push(format!(
            "ERR_PATCH_APPLY_FAILED was repaired {patch_repaired} times and fell back {patch_fallbacks} times; repair should win"
        ));
    }
    if rate(forbidden, n) >= GRADUATION_MAX_RATE {
        g.unmet.push(format!(
            "ERR_V2_UPDATE_EXISTING_FORBIDDEN in {forbidden} of {n} plans, not near 0"
        ));
    }
    g.verdict = if n < GRADUATION_WINDOW {
        format!("not enough data ({n} of {GRADUATION_WINDOW} applies)")
    } else if g.unmet.is_empty() {
        "ready: set PAPAYU_PROTOCOL_FALLBACK_TO_V1=0".to_string()
    } else {
        "not ready".to_string()
    };
    g
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ask::FailureLog;

    fn plan(
        id: usize,
        fallback: Option<&str>,
        failures: &[&str],
        repaired: bool,
        ok: bool,
    ) -> Trace {
        let mut t = Trace::new("plan", Some(format!("p{id}")), id as i64);
        t.ok = ok;
        t.plan_id = ok.then(|| format!("plan{id}"));
        t.transcript.provider = if id.is_multiple_of(2) {
            "openai"
        } else {
            "ollama"
        }
        .to_string();
        t.transcript.protocol_fallback_reason = fallback.map(str::to_string);
        t.transcript.protocol_repair_attempt = u32::from(repaired);
        t.transcript.requests.push(crate::ask::RequestLog {
            input_tokens: 100,
            cached_tokens: 50,
            output_tokens: 10,
            ..Default::default()
        });
        t.transcript.validation_failures = failures
            .iter()
            .map(|c| FailureLog {
                code: c.to_string(),
                path: Some("src/a.py".to_string()),
                ..Default::default()
            })
            .collect();
        t
    }

    fn apply(id: usize) -> Trace {
        let mut t = Trace::new("apply", Some(format!("a{id}")), 1_000_000 + id as i64);
        t.plan_id = Some(format!("plan{id}"));
        t
    }

    #[test]
    fn counts_and_rates_over_known_traces() {
        let mut traces = Vec::new();
        // 200 plans: 2 fall back on a patch failure, 1 on a non-UTF-8 file, 3 are repaired
        // (one of the repairs then fails), every successful plan is applied.
        for i in 0..200 {
            let t = match i {
                0 | 1 => plan(
                    i,
                    Some(PATCH_FAILED),
                    &[PATCH_FAILED, PATCH_FAILED],
                    true,
                    true,
                ),
                2 => plan(i, Some(NON_UTF8), &[NON_UTF8], false, true),
                3 | 4 => plan(i, None, &[PATCH_FAILED], true, true),
                5 => plan(i, None, &[UPDATE_FORBIDDEN, UPDATE_FORBIDDEN], true, false),
                _ => plan(i, None, &[], false, true),
            };
            if t.ok {
                traces.push(apply(i));
            }
            traces.push(t);
        }
        let r = report(&traces, None);
        assert_eq!((r.plans, r.plans_failed, r.applies), (200, 1, 199));
        assert_eq!(r.fallback_count, 3);
        assert_eq!(r.fallback_rate, 3.0 / 200.0);
        assert_eq!(r.fallback_rate_excluding_non_utf8, 2.0 / 200.0);
        assert_eq!(
            r.fallback_reasons,
            [(PATCH_FAILED.to_string(), 2), (NON_UTF8.to_string(), 1)].into()
        );
        assert_eq!((r.repairs, r.repairs_succeeded), (5, 2));
        assert_eq!(r.repair_success_rate, 2.0 / 5.0);
        assert_eq!(r.most_repaired_paths, [("src/a.py".to_string(), 9)]);
        let openai = &r.providers["openai"];
        assert_eq!(
            (openai.requests, openai.input_tokens, openai.cached_tokens),
            (100, 10_000, 5_000)
        );
        assert_eq!(openai.cache_hit_rate, 0.5);
        // The window is the last 100 applies: plans 100..=199, none with a problem.
        assert_eq!(r.graduation.applies, 100);
        assert!(
            r.graduation.verdict.starts_with("ready"),
            "{:?}",
            r.graduation
        );
        // The first ten plans: 9 applies whose plan is known, 2 patch failures fallen back
        // from and 2 repaired, which fails the repair-first criterion.
        let early = report(&traces[..20], None);
        assert!(
            early
                .graduation
                .verdict
                .starts_with("not enough data (9 of 100"),
            "{}",
            early.graduation.verdict
        );
        assert_eq!(early.graduation.patch_apply_failed_fallbacks, 2);
        assert_eq!(early.graduation.patch_apply_failed_repaired, 2);
        assert!(!early.graduation.unmet.is_empty());
        let since = report(&traces, Some(1_000_000 + 150));
        assert_eq!((since.plans, since.applies), (0, 50));
    }
}
