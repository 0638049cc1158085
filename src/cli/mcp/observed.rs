//! The MCP server as the service's observer: its stdout is the protocol, so lines go to
//! stderr (which clients keep as the server's log), and warnings are also returned to the
//! agent with the tool's result.

use std::io::Write;
use std::sync::Mutex;

use git_papayu::service::Observer;

/// Logs status lines on stderr and keeps every warning for the tool's result.
#[derive(Default)]
pub struct Observed {
    warnings: Mutex<Vec<String>>,
}

impl Observed {
    /// The warnings heard so far, in order.
    pub fn warnings(&self) -> Vec<String> {
        self.warnings.lock().map(|w| w.clone()).unwrap_or_default()
    }
}

impl Observer for Observed {
    fn status(&self, line: &str) {
        // A client that closed the server's stderr loses the log line, never the call.
        let _ = writeln!(std::io::stderr(), "papayu: {line}");
    }

    fn warn(&self, line: &str) {
        let _ = writeln!(std::io::stderr(), "papayu: warning: {line}");
        if let Ok(mut warnings) = self.warnings.lock() {
            warnings.push(line.to_string());
        }
    }
}
