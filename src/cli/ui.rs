//! The only place that writes to the terminal.
//!
//! Data goes to stdout, everything else (progress, status, warnings, errors) to stderr. A closed
//! stdout (`git papayu list | head -1`) is not an error: output stops quietly.

use std::io::{self, Write};

use git_papayu::Problem;

/// Writes one chunk of data to stdout; a broken pipe ends the process quietly with success.
pub fn out(text: &str) {
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
    outln(&text);
}

/// Writes a value as pretty JSON to stderr (when stdout carries other data).
pub fn json_err<T: serde::Serialize>(value: &T) {
    let text = serde_json::to_string_pretty(value).expect("serializable output");
    let _ = writeln!(io::stderr().lock(), "{text}");
}

/// A status line on stderr.
pub fn status(text: &str) {
    let _ = writeln!(io::stderr().lock(), "{text}");
}

/// A warning on stderr.
pub fn warn(text: &str) {
    let _ = writeln!(io::stderr().lock(), "warning: {text}");
}

/// An error code and its reason on stderr, as `ERR_CODE: reason`.
pub fn problem(p: &Problem) {
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "{p}");
    if let Some(detail) = &p.detail {
        for line in detail.lines() {
            let _ = writeln!(err, "  {line}");
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
