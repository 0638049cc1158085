//! The terminal as the service's observer: status lines and warnings on stderr, a spinner for
//! a step that takes a while, one spinner per provider while models are asked.

use std::sync::Arc;

use git_papayu::ask::Progress;
use git_papayu::service::{Observer, Service, Step, Waiting};
use git_papayu::settings::Settings;
use git_papayu::store::Store;

use super::progress::Spinners;
use super::ui;

/// Shows the service's work on the terminal.
pub struct Terminal;

impl Observer for Terminal {
    fn status(&self, line: &str) {
        ui::status(line);
    }

    fn warn(&self, line: &str) {
        ui::warn(line);
    }

    fn step(&self, label: &str) -> Box<dyn Step + '_> {
        Box::new(ui::Spinner::new(label))
    }

    fn waiting(&self, providers: &[(String, String)]) -> Box<dyn Waiting + '_> {
        Box::new(Drawn(Spinners::new(providers)))
    }
}

impl Step for ui::Spinner {
    fn message(&self, text: &str) {
        self.set_message(text);
    }
}

/// Spinners cleared from the screen when the models have answered.
struct Drawn(Spinners);

impl Waiting for Drawn {
    fn report(&self, progress: Progress) {
        self.0.report(progress);
    }
}

impl Drop for Drawn {
    fn drop(&mut self) {
        self.0.clear();
    }
}

/// The service for a command, shown on the terminal.
pub fn service<'a>(store: &'a Store, config: &'a Settings) -> Service<'a> {
    Service::new(store, config, Arc::new(Terminal))
}
