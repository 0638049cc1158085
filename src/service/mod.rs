//! One service under every front end: the command line and the MCP server drive the same
//! operations here — ask a model, store pasted or agent answers, a reproduction first, fix
//! rounds, refine, propose, gather context — each taking a typed request and returning a typed
//! report. Group and conversation are stamped, traces written and line endings normalized here,
//! once, so the front ends cannot drift apart. Nothing here prints: what a front end shows while
//! the work goes on reaches it through its [`Observer`].

pub mod apply;
pub mod ask;
pub mod compare;
pub mod context;
pub mod history;
pub mod listing;
pub mod observer;
pub mod paste;
pub mod propose;
pub mod refine;
pub mod repro;
pub mod review;
pub mod rounds;
pub mod traces;
pub mod validate;
pub mod view;

use std::sync::Arc;

use crate::codes::Problem;
use crate::settings::Settings;
use crate::store::Store;
use crate::trace::record::Tracer;

pub use observer::{Observer, Quiet, Step, Waiting};

/// The repository, the settings in force and the front end's observer: what every operation
/// works with.
pub struct Service<'a> {
    pub store: &'a Store,
    pub config: &'a Settings,
    observer: Arc<dyn Observer>,
}

impl<'a> Service<'a> {
    pub fn new(store: &'a Store, config: &'a Settings, observer: Arc<dyn Observer>) -> Self {
        Service {
            store,
            config,
            observer,
        }
    }

    /// The front end's observer.
    pub fn observer(&self) -> &dyn Observer {
        self.observer.as_ref()
    }

    /// A tracer with the settings in force, whose warnings reach the observer.
    pub fn tracer(&self) -> Tracer {
        let observer = Arc::clone(&self.observer);
        Tracer::new(self.config, move |line| observer.warn(line))
    }

    /// Whether answers' line endings are normalized to LF (`PAPAYU_NORMALIZE_EOL=lf`).
    pub fn normalize_eol(&self) -> Result<bool, Problem> {
        normalize_eol(self.config)
    }
}

/// Whether answers' line endings are normalized to LF (`PAPAYU_NORMALIZE_EOL=lf`); any other
/// value is refused.
pub fn normalize_eol(config: &Settings) -> Result<bool, Problem> {
    config.normalize_eol().map_err(|value| {
        Problem::new(
            crate::Code::ConfigInvalid,
            format!("PAPAYU_NORMALIZE_EOL={value} is not understood (only 'lf')"),
        )
        .with_hint("set PAPAYU_NORMALIZE_EOL=lf, or unset it to keep line endings")
    })
}
