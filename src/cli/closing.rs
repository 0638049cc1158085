//! How `apply` and `refine` end once a proposal is on its branch: the line on its check, then
//! its headline, diffstat and the commands to review, merge or discard it.

use git_papayu::engine::check::CheckReport;
use git_papayu::verdict::{CheckStatus, Verdict};

use super::{render, ui};

/// The status line on a proposal's check once it is on its branch: kept as partial (a
/// warning), the verdict, passed, or — when a configured check found nothing to run — that
/// nothing was tested. `apply` and `refine` both end with it.
pub fn check_line(report: Option<&CheckReport>, verdict: Option<&Verdict>, configured: bool) {
    match (report, verdict) {
        (Some(report), Some(v)) if v.status == CheckStatus::Partial => {
            ui::warn(&kept_as_partial(report, v));
        }
        (Some(report), Some(v)) if v.fixes.is_some() => ui::status(&format!(
            "Check {} ({:.1}s): {}",
            v.line(),
            report.seconds,
            report.command
        )),
        (Some(report), _) => ui::status(&format!(
            "Check passed: {} ({:.1}s)",
            report.command, report.seconds
        )),
        (None, _) if configured => ui::warn(NO_CHECK),
        (None, _) => {}
    }
}

/// The closing block of a proposal on its branch, after its check line: `headline`, the
/// diffstat, and the commands that review, merge or discard plan `id`.
///
/// One write: `apply --all` closes several plans at once, and each block stays whole.
pub fn closing(headline: &str, changes: &[git_papayu::executor::FileChange], id: &str) {
    let stat = render::diffstat(changes, ui::columns().unwrap_or(80));
    ui::out(&format!(
        "{headline}\n{stat}Review: git papayu diff {id}   Merge: git papayu merge {id}   Discard: git papayu discard {id}\n"
    ));
}

/// Why a proposal whose check failed is kept: it fixes tests and breaks none, or only tests that
/// already failed at the base still fail (named, so an unrelated red test is recognised).
fn kept_as_partial(report: &CheckReport, v: &Verdict) -> String {
    let why = match v.fixes {
        Some(n) if n > 0 => "the plan fixes tests and breaks none".to_string(),
        _ => format!(
            "only by tests that already fail at the base ({}), and the plan breaks none",
            v.failing.join(", ")
        ),
    };
    format!(
        "check `{}` failed, but {why}: kept as {} ({:.1}s)",
        report.command,
        v.line(),
        report.seconds
    )
}

/// Said when a plan is applied with no check at all, so a silent apply is never read as tested.
const NO_CHECK: &str =
    "no check configured: nothing was tested (set papayu.checkCommand or .papa-yu/project.json)";
