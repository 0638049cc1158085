//! The only place that writes to the terminal.
//!
//! Data goes to stdout, everything else (progress, status, warnings, errors) to stderr. A closed
//! stdout (`git papayu list | head -1`) is not an error: output stops quietly.
//!
//! Every string written here passes through [`text`](super::text): text from a model or a note
//! never reaches the terminal raw. The one exception is [`out_painted`], for output papayu
//! coloured itself after making its parts safe.

use std::io::{self, Write};

use git_papayu::Problem;

use super::text;

/// Writes one chunk of data to stdout, control characters made visible (newlines and tabs
/// kept); a broken pipe ends the process quietly with success.
pub fn out(text: &str) {
    out_painted(&text::block(text));
}

/// Writes text whose every untrusted part is already safe, and which may carry papayu's own
/// colour sequences.
pub fn out_painted(text: &str) {
    let mut stdout = io::stdout().lock();
    let result = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
    if let Err(e) = result
        && e.kind() == io::ErrorKind::BrokenPipe
    {
        std::process::exit(0);
    }
}

/// Writes `text` and a newline to stdout.
pub fn outln(text: &str) {
    out(text);
    out("\n");
}

/// Writes a value as pretty JSON to stdout.
pub fn json<T: serde::Serialize>(value: &T) {
    let text = serde_json::to_string_pretty(value).expect("serializable output");
    out_painted(&text::json(&text));
    out_painted("\n");
}

/// Writes a value as pretty JSON to stderr (when stdout carries other data).
pub fn json_err<T: serde::Serialize>(value: &T) {
    let text = serde_json::to_string_pretty(value).expect("serializable output");
    let _ = writeln!(io::stderr().lock(), "{}", text::json(&text));
}

/// A status line on stderr.
pub fn status(text: &str) {
    let _ = writeln!(io::stderr().lock(), "{}", text::block(text));
}

/// A warning on stderr.
pub fn warn(text: &str) {
    let _ = writeln!(io::stderr().lock(), "warning: {}", text::block(text));
}

/// Passes a check's output through to stderr as it arrives, line by line, control characters
/// made visible. Call [`LiveOutput::finish`] for a last line without a newline.
#[derive(Default)]
pub struct LiveOutput {
    pending: Vec<u8>,
}

impl LiveOutput {
    pub fn push(&mut self, chunk: &[u8]) {
        self.pending.extend_from_slice(chunk);
        if let Some(end) = self.pending.iter().rposition(|b| *b == b'\n') {
            let lines: Vec<u8> = self.pending.drain(..=end).collect();
            let _ = write!(
                io::stderr().lock(),
                "{}",
                text::block(&String::from_utf8_lossy(&lines))
            );
        }
    }

    pub fn finish(&mut self) {
        if !self.pending.is_empty() {
            let rest = std::mem::take(&mut self.pending);
            status(&String::from_utf8_lossy(&rest));
        }
    }
}

/// An error code and its reason on stderr, as `ERR_CODE: reason`.
pub fn problem(p: &Problem) {
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "{}: {}", p.code, text::line(&p.reason));
    if let Some(detail) = &p.detail {
        for line in detail.lines() {
            let _ = writeln!(err, "  {}", text::block(line));
        }
    }
}

static VERBOSE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Turns on event lines (a command's `-v`).
pub fn set_verbose(on: bool) {
    if on {
        VERBOSE.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// `true` with `-v` or `PAPAYU_TRACE=1`.
pub fn verbose() -> bool {
    VERBOSE.load(std::sync::atomic::Ordering::Relaxed)
        || std::env::var("PAPAYU_TRACE").is_ok_and(|v| v == "1" || v.eq_ignore_ascii_case("true"))
}

/// One stable, greppable event line on stderr (`NAME key=value …`), shown only when verbose.
pub fn event(line: &str) {
    if verbose() {
        let _ = writeln!(io::stderr().lock(), "{line}");
    }
}
