//! What a front end is told while an operation works: lines that stay, warnings, a step that
//! takes a while, and the plan loop's progress while models are asked.

use crate::ask::Progress;

/// A front end's view of the work. Every method has a quiet default, so a front end implements
/// only what it shows.
pub trait Observer: Send + Sync {
    /// A line saying where the work stands (`round 2 of 3: asking for a correction`).
    fn status(&self, line: &str) {
        let _ = line;
    }

    /// Something the user should know that did not stop the work.
    fn warn(&self, line: &str) {
        let _ = line;
    }

    /// A step that may take a while has begun (`label`: whose step); it ends when the returned
    /// value is dropped.
    fn step(&self, label: &str) -> Box<dyn Step + '_> {
        let _ = label;
        Box::new(Quiet)
    }

    /// Models are about to be asked (each provider with its model); the returned value hears the
    /// plan loop's progress and ends when dropped.
    fn waiting(&self, providers: &[(String, String)]) -> Box<dyn Waiting + '_> {
        let _ = providers;
        Box::new(Quiet)
    }
}

/// One step under way.
pub trait Step {
    /// What the step is doing now.
    fn message(&self, text: &str);
}

/// Models being asked.
pub trait Waiting: Sync {
    /// One report of the plan loop.
    fn report(&self, progress: Progress);
}

/// Shows nothing.
pub struct Quiet;

impl Observer for Quiet {}

impl Step for Quiet {
    fn message(&self, _: &str) {}
}

impl Waiting for Quiet {
    fn report(&self, _: Progress) {}
}
