//! Progress while waiting for models: one spinner line per provider on stderr, with the model,
//! elapsed time, tokens received, and why it waits when a try is being retried. Drawn only when
//! progress is visible (stderr is a terminal, no `-q`); otherwise only a retry is reported, as a
//! status line. Event lines (`-v`, `PAPAYU_TRACE=1`) are printed above the spinners.

use std::collections::BTreeMap;
use std::time::Duration;

use git_papayu::ask::Progress;

use super::ui;
use super::ui::board::Board;

pub struct Spinners {
    board: Option<Board>,
    /// The model each provider is asked for, for its spinner's label.
    models: BTreeMap<String, String>,
}

impl Spinners {
    /// One spinner per provider, when progress is visible (stderr is a terminal, no `-q`),
    /// drawn from its first request on: a provider refused before anything is sent (no price
    /// under a cost cap) never shows one.
    pub fn new(providers: &[(String, String)]) -> Spinners {
        Spinners {
            board: ui::progress_visible().then(|| Board::new(Duration::ZERO)),
            models: providers.iter().cloned().collect(),
        }
    }

    /// Starts `provider`'s spinner, unless it runs already.
    fn start(&self, provider: &str) {
        let Some(board) = &self.board else { return };
        let model = self.models.get(provider).map_or("", String::as_str);
        board.add(provider, &format!("{provider}/{model}"), "waiting");
    }

    /// Says `message` on `provider`'s spinner, or without one as a status line.
    fn say(&self, provider: &str, message: &str) {
        match &self.board {
            Some(board) if board.has(provider) => board.set_message(provider, message),
            _ => ui::status(&format!("{provider}: {message}")),
        }
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
                match &self.board {
                    Some(board) => board.above(|| ui::event(&line)),
                    None => ui::event(&line),
                }
            }
            Progress::Retrying {
                provider,
                status,
                next,
                of,
                wait,
            } => self.say(&provider, &retrying(status, next, of, wait)),
            Progress::Again { provider, message } => self.say(&provider, &message),
            Progress::Received {
                provider,
                tokens,
                chars,
                ..
            } => {
                if let Some(board) = &self.board {
                    let shown = if tokens > 0 {
                        super::render::count(tokens as usize, "token")
                    } else {
                        super::render::count(chars, "char")
                    };
                    board.set_message(&provider, &format!("receiving, {shown}"));
                }
            }
        }
    }

    /// Removes every spinner from the screen.
    pub fn clear(&self) {
        if let Some(board) = &self.board {
            board.clear();
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
