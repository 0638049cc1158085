//! Progress while waiting for models: one spinner line per provider on stderr, with the model,
//! elapsed time, tokens received, and why it waits when a try is being retried. Drawn only when
//! progress is visible (stderr is a terminal, no `-q`); otherwise only a retry is reported, as a
//! status line. Event lines (`-v`, `PAPAYU_TRACE=1`) are printed above the spinners.

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use git_papayu::ask::Progress;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::ui;

pub struct Spinners {
    multi: Option<MultiProgress>,
    /// The model each provider is asked for, for its spinner's label.
    models: BTreeMap<String, String>,
    bars: Mutex<BTreeMap<String, ProgressBar>>,
}

impl Spinners {
    /// One spinner per provider, when progress is visible (stderr is a terminal, no `-q`),
    /// drawn from its first request on: a provider refused before anything is sent (no price
    /// under a cost cap) never shows one.
    pub fn new(providers: &[(String, String)]) -> Spinners {
        let multi = ui::progress_visible()
            .then(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr()));
        Spinners {
            multi,
            models: providers.iter().cloned().collect(),
            bars: Mutex::new(BTreeMap::new()),
        }
    }

    /// Starts `provider`'s spinner, unless it runs already.
    fn start(&self, provider: &str) {
        let Some(multi) = &self.multi else { return };
        let mut bars = self.bars.lock().unwrap_or_else(PoisonError::into_inner);
        if bars.contains_key(provider) {
            return;
        }
        let style = ProgressStyle::with_template("{spinner} {prefix} {elapsed} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner());
        let bar = multi.add(ProgressBar::new_spinner());
        bar.set_style(style);
        let model = self.models.get(provider).map_or("", String::as_str);
        bar.set_prefix(format!("{provider}/{model}"));
        bar.set_message("waiting");
        bar.enable_steady_tick(Duration::from_millis(120));
        bars.insert(provider.to_string(), bar);
    }

    /// Handles one report of the plan loop.
    pub fn report(&self, progress: Progress) {
        match progress {
            Progress::Sent { provider } => self.start(&provider),
            Progress::Event(event) => {
                if !ui::verbose() {
                    return;
                }
                let line = event.to_string();
                match &self.multi {
                    Some(multi) => {
                        let _ = multi.println(&line);
                    }
                    None => ui::event(&line),
                }
            }
            Progress::Retrying {
                provider,
                status,
                next,
                of,
                wait,
            } => {
                let message = retrying(status, next, of, wait);
                match self
                    .bars
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .get(&provider)
                {
                    Some(bar) => bar.set_message(message),
                    None => ui::status(&format!("{provider}: {message}")),
                }
            }
            Progress::Again { provider, message } => {
                match self
                    .bars
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .get(&provider)
                {
                    Some(bar) => bar.set_message(message),
                    None => ui::status(&format!("{provider}: {message}")),
                }
            }
            Progress::Received {
                provider,
                tokens,
                chars,
                ..
            } => {
                if let Some(bar) = self
                    .bars
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .get(&provider)
                {
                    let shown = if tokens > 0 {
                        super::render::count(tokens as usize, "token")
                    } else {
                        super::render::count(chars, "char")
                    };
                    bar.set_message(format!("receiving, {shown}"));
                }
            }
        }
    }

    /// Removes every spinner from the screen.
    pub fn clear(&self) {
        for bar in self
            .bars
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
        {
            bar.finish_and_clear();
        }
        if let Some(multi) = &self.multi {
            let _ = multi.clear();
        }
    }
}

/// What a retry is waiting for, as the spinner (or, without one, a status line) shows it:
/// `rate limited (429), retry 2/3 in 2 s`.
fn retrying(status: u16, next: u32, of: u32, wait: Duration) -> String {
    let why = match status {
        0 => "connection dropped or timed out".to_string(),
        429 => "rate limited (429)".to_string(),
        408 | 409 => format!("server busy ({status})"),
        _ => format!("server error ({status})"),
    };
    let wait = match wait.as_millis() {
        ms if ms < 1000 => format!("{ms} ms"),
        ms => format!("{} s", (ms + 500) / 1000),
    };
    format!("{why}, retry {next}/{of} in {wait}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_retry_says_why_and_when() {
        assert_eq!(
            retrying(429, 2, 3, Duration::from_millis(2100)),
            "rate limited (429), retry 2/3 in 2 s"
        );
        assert_eq!(
            retrying(503, 3, 3, Duration::from_millis(40)),
            "server error (503), retry 3/3 in 40 ms"
        );
    }
}
