//! What asking models costs, in US dollars, and the cap on it.
//!
//! Prices are the user's: `papayu.<provider>.price = "in,out,cached"`, dollars per million
//! input, output and cached-input tokens. There is no built-in price list: one would be stale
//! the week it shipped, and a stale price is worse than none. A provider without a price has
//! no cost shown.
//!
//! The cap (`--max-cost USD`, `papayu.maxCost`) is enforced *before* each request: the request
//! is estimated at its most (every prompt character a third of a token, every one uncached,
//! plus the whole answer budget `max_tokens`), reserved against the cap, and refused with
//! `ERR_COST_CAP` when spent plus reserved plus the estimate would pass it. Every try is such a
//! request: a retry after a dropped stream or a server error is estimated and reserved again.
//! Once a try is over, its reservation is replaced by what the usage it reported says it cost —
//! an answer's, or a stream's cut after its usage came, which the provider bills all the same. Conversations of one group
//! share one meter, so a group stops as soon as its total reaches the cap, keeping the plans
//! that already came back.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use crate::codes::{Code, Problem};

/// Dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub input: f64,
    pub output: f64,
    pub cached: f64,
}

/// Prompt characters per token assumed by the estimate: fewer than any tokenizer averages, so
/// the estimate is high.
pub const CHARS_PER_TOKEN: usize = 3;

impl Price {
    /// `in,out,cached` (the third may be left out: cached input then costs as much as input).
    pub fn parse(text: &str) -> Option<Price> {
        let parts: Vec<f64> = text
            .split(',')
            .map(|p| {
                p.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite() && *v >= 0.0)
            })
            .collect::<Option<Vec<f64>>>()?;
        match parts.as_slice() {
            [input, output] => Some(Price {
                input: *input,
                output: *output,
                cached: *input,
            }),
            [input, output, cached] => Some(Price {
                input: *input,
                output: *output,
                cached: *cached,
            }),
            _ => None,
        }
    }

    /// What a request cost: `input` prompt tokens (cached ones included), `cached` of them
    /// from the provider's cache, and `output` answer tokens.
    pub fn cost(&self, input: u64, output: u64, cached: u64) -> f64 {
        let cached = cached.min(input);
        ((input - cached) as f64 * self.input
            + cached as f64 * self.cached
            + output as f64 * self.output)
            / 1_000_000.0
    }

    /// The most a request of `input_chars` prompt characters and an answer budget of
    /// `max_tokens` can cost.
    pub fn estimate(&self, input_chars: usize, max_tokens: u32) -> f64 {
        let prompt = input_chars.div_ceil(CHARS_PER_TOKEN) as u64;
        self.cost(prompt, u64::from(max_tokens), 0)
    }
}

/// The prices configured, by provider name (lowercase), from `papayu.*` git config values
/// (names lowercased). The one place `papayu.<provider>.price` is read.
pub fn prices(git: &BTreeMap<String, String>) -> Result<BTreeMap<String, Price>, Problem> {
    let mut out = BTreeMap::new();
    for (key, value) in git {
        let Some(name) = key
            .strip_prefix("papayu.")
            .and_then(|k| k.strip_suffix(".price"))
        else {
            continue;
        };
        let price = Price::parse(value).ok_or_else(|| {
            Problem::new(
                Code::ConfigInvalid,
                format!(
                    "git config papayu.{name}.price is '{value}'; give dollars per million tokens as \"in,out,cached\", e.g. git config papayu.{name}.price \"3,15,0.3\""
                ),
            )
        })?;
        out.insert(name.to_string(), price);
    }
    Ok(out)
}

/// The cap: `--max-cost` when given, else `papayu.maxCost`. The one place `papayu.maxCost`
/// is read.
pub fn max_cost(flag: Option<f64>, git: &BTreeMap<String, String>) -> Result<Option<f64>, Problem> {
    if flag.is_some() {
        return Ok(flag);
    }
    match git.get("papayu.maxcost").map(|v| v.trim()) {
        None | Some("") => Ok(None),
        Some(text) => parse_usd(text).map(Some).ok_or_else(|| {
            Problem::new(
                Code::ConfigInvalid,
                format!(
                    "git config papayu.maxCost is '{text}'; give US dollars, e.g. git config papayu.maxCost 0.50"
                ),
            )
        }),
    }
}

/// A non-negative amount of dollars (a leading `$` allowed).
pub fn parse_usd(text: &str) -> Option<f64> {
    let text = text.trim();
    text.strip_prefix('$')
        .unwrap_or(text)
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0)
}

/// `$0.0123`: four decimals below a dollar, two above.
pub fn usd(amount: f64) -> String {
    if amount < 1.0 {
        format!("${amount:.4}")
    } else {
        format!("${amount:.2}")
    }
}

/// The prices and the cap of one `plan` command, and what it spent so far: shared by its
/// conversations (cloning shares the meter).
#[derive(Debug, Clone, Default)]
pub struct Spending {
    prices: BTreeMap<String, Price>,
    cap: Option<f64>,
    meter: Arc<Mutex<Meter>>,
}

#[derive(Debug, Default)]
struct Meter {
    spent: f64,
    reserved: f64,
}

/// A request's estimate held against the cap until its answer's cost is known.
#[derive(Debug)]
pub struct Reservation {
    meter: Arc<Mutex<Meter>>,
    amount: f64,
}

impl Spending {
    pub fn new(prices: BTreeMap<String, Price>, cap: Option<f64>) -> Spending {
        Spending {
            prices,
            cap,
            meter: Arc::default(),
        }
    }

    pub fn price(&self, provider: &str) -> Option<Price> {
        self.prices.get(&provider.to_ascii_lowercase()).copied()
    }

    pub fn cap(&self) -> Option<f64> {
        self.cap
    }

    /// What the answered requests cost so far.
    pub fn spent(&self) -> f64 {
        self.meter.lock().map_or(0.0, |m| m.spent)
    }

    /// Holds the estimate of the next request to `provider` against the cap, or refuses it
    /// with `ERR_COST_CAP` (before anything is sent).
    pub fn reserve(
        &self,
        provider: &str,
        input_chars: usize,
        max_tokens: u32,
    ) -> Result<Reservation, Problem> {
        let Some(cap) = self.cap else {
            return Ok(self.held(0.0));
        };
        let Some(price) = self.price(provider) else {
            return Err(Problem::new(
                Code::CostCap,
                format!(
                    "{provider} has no price, so a request to it cannot be held to the cost cap of {}",
                    usd(cap)
                ),
            )
            .with_hint(format!(
                "set git config papayu.{provider}.price \"in,out,cached\" (dollars per million tokens)"
            )));
        };
        let estimate = price.estimate(input_chars, max_tokens);
        let mut meter = self
            .meter
            .lock()
            .map_err(|_| Problem::new(Code::Internal, "the cost meter was poisoned by a panic"))?;
        if meter.spent >= cap {
            return Err(Problem::new(
                Code::CostCap,
                format!(
                    "the cost cap of {} is reached ({} spent); no more requests were sent, and the plans already answered are kept",
                    usd(cap),
                    usd(meter.spent)
                ),
            )
            .with_hint("raise --max-cost or papayu.maxCost to ask for more"));
        }
        if meter.spent + meter.reserved + estimate > cap {
            return Err(Problem::new(
                Code::CostCap,
                format!(
                    "the next request to {provider} could cost up to {} (about {} prompt tokens and {max_tokens} answer tokens), which would pass the cost cap of {} ({} spent); it was not sent",
                    usd(estimate),
                    input_chars.div_ceil(CHARS_PER_TOKEN),
                    usd(cap),
                    usd(meter.spent + meter.reserved)
                ),
            )
            .with_hint("raise --max-cost or papayu.maxCost, or make the context smaller"));
        }
        meter.reserved += estimate;
        drop(meter);
        Ok(self.held(estimate))
    }

    fn held(&self, amount: f64) -> Reservation {
        Reservation {
            meter: Arc::clone(&self.meter),
            amount,
        }
    }

    /// What a request to `provider` cost, when it has a price.
    pub fn cost(&self, provider: &str, input: u64, output: u64, cached: u64) -> Option<f64> {
        self.price(provider).map(|p| p.cost(input, output, cached))
    }
}

impl Reservation {
    /// Replaces the estimate by what the request cost (`0` when it reported no usage).
    pub fn settle(mut self, cost: f64) {
        self.release(cost);
    }

    fn release(&mut self, cost: f64) {
        let amount = std::mem::take(&mut self.amount);
        if let Ok(mut meter) = self.meter.lock() {
            meter.reserved = (meter.reserved - amount).max(0.0);
            meter.spent += cost;
        }
    }
}

/// A reservation dropped unsettled (its request abandoned) holds nothing any more.
impl Drop for Reservation {
    fn drop(&mut self) {
        self.release(0.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn prices_parse_and_cost() {
        let p = Price::parse("3, 15, 0.3").unwrap();
        assert!((p.cost(1_000_000, 0, 0) - 3.0).abs() < 1e-9);
        assert!((p.cost(1_000_000, 1_000_000, 500_000) - (1.5 + 0.15 + 15.0)).abs() < 1e-9);
        assert_eq!(Price::parse("2,8").unwrap().cached, 2.0);
        for bad in ["", "1", "a,b", "1,2,3,4", "-1,2", "inf,1"] {
            assert!(Price::parse(bad).is_none(), "{bad}");
        }
        let all = prices(&git(&[
            ("papayu.openai.price", "1,2,0.5"),
            ("papayu.model", "x"),
        ]));
        assert_eq!(all.unwrap().len(), 1);
        let err = prices(&git(&[("papayu.openai.price", "cheap")])).unwrap_err();
        assert_eq!(err.code, Code::ConfigInvalid);
    }

    #[test]
    fn the_cap_comes_from_the_flag_then_git_config() {
        let g = git(&[("papayu.maxcost", "$0.50")]);
        assert_eq!(max_cost(Some(1.0), &g).unwrap(), Some(1.0));
        assert_eq!(max_cost(None, &g).unwrap(), Some(0.5));
        assert_eq!(max_cost(None, &git(&[])).unwrap(), None);
        assert!(max_cost(None, &git(&[("papayu.maxcost", "lots")])).is_err());
    }

    #[test]
    fn reservations_hold_the_cap_across_conversations() {
        let prices: BTreeMap<String, Price> =
            [("a".to_string(), Price::parse("1000000,0,0").unwrap())].into();
        // Each request: 3 chars = 1 token = $1.
        let spending = Spending::new(prices, Some(1.5));
        let first = spending.reserve("a", 3, 0).unwrap();
        let other = spending.clone();
        assert_eq!(other.reserve("a", 3, 0).unwrap_err().code, Code::CostCap);
        first.settle(0.25);
        assert!((spending.spent() - 0.25).abs() < 1e-9);
        let second = other.reserve("a", 3, 0).unwrap();
        second.settle(1.5);
        let err = spending.reserve("a", 0, 0).unwrap_err();
        assert!(err.reason.contains("is reached"), "{}", err.reason);
        assert_eq!(spending.reserve("b", 1, 1).unwrap_err().code, Code::CostCap);
        assert!(
            Spending::new(BTreeMap::new(), None)
                .reserve("b", 9, 9)
                .is_ok()
        );
    }

    #[test]
    fn a_dropped_reservation_holds_nothing() {
        let prices: BTreeMap<String, Price> =
            [("a".to_string(), Price::parse("1000000,0,0").unwrap())].into();
        let spending = Spending::new(prices, Some(1.5));
        drop(spending.reserve("a", 3, 0).unwrap());
        let again = spending.reserve("a", 3, 0).unwrap();
        again.settle(0.0);
        assert_eq!(spending.spent(), 0.0);
    }
}
