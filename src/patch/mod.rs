//! Applying model-written unified diffs to one file's text.
//!
//! Models write diffs that are almost right: line numbers off, counts wrong, whitespace or
//! quotes retyped, a blank line dropped, a context line misremembered. [`apply`] accepts all of
//! that, because each hunk is placed by a *ladder* of comparisons from byte-exact to forgiving,
//! and a rung is accepted only when it finds exactly one place (the `@@` line number or the
//! text after it may break a tie, but only beyond doubt). What it never does is guess: context
//! that fits in two places, a hunk with no real context, or a `-` line the file does not have is
//! a refusal with a report that says which hunk, what was tried and what the file holds
//! instead — short enough to send back to the model.
//!
//! Everything here is pure: text in, text out. A patch applies whole or not at all, and the
//! file keeps its own line endings and final newline unless the diff explicitly changes the
//! latter (`\ No newline at end of file`).
//!
//! [`replace_range`] is the protocol's other text edit: replace lines by number.

mod blank;
mod diagnose;
mod ladder;
mod matcher;
mod normalize;
mod parse;
mod range;
mod report;
mod text;

use std::fmt;

pub use ladder::Strategy;
pub use range::replace_range;
pub use report::{Difference, FailureReport, HunkFailure, HunkReport, Nearest, Tried, Verdict};

use crate::codes::{Code, Problem};
use ladder::{Target, place};
use matcher::Haystack;
use parse::FilePatch;
use text::FileText;

/// A successful application: the new text and how each hunk was placed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Applied {
    pub content: String,
    pub hunks: Vec<HunkReport>,
}

/// Choices a caller may make about one application.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// When the diff changes several files, the one to apply (as named in the diff, with or
    /// without `a/`/`b/`). Ignored for a single-file diff, whatever path it names.
    pub path: Option<String>,
    /// 1-based line where the first hunk is expected when its `@@` line has no number.
    pub line_hint: Option<usize>,
}

/// A failed application: the one-line [`Problem`] and, when hunks failed to apply, the full
/// report. `Display` gives both, ready to send back to a model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct PatchError {
    pub problem: Problem,
    pub report: Option<FailureReport>,
}

impl PatchError {
    /// The multi-line report alone (empty when the diff could not even be read).
    pub fn report_text(&self) -> String {
        self.report
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default()
    }
}

impl fmt::Display for PatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.problem)?;
        f.write_str(&self.report_text())
    }
}

impl From<Problem> for PatchError {
    fn from(problem: Problem) -> Self {
        PatchError {
            problem,
            report: None,
        }
    }
}

impl From<PatchError> for Problem {
    fn from(e: PatchError) -> Self {
        e.problem
    }
}

/// Applies `diff` to `original`; the diff must change one file (its path is not checked).
pub fn apply(original: &str, diff: &str) -> Result<Applied, Problem> {
    apply_with(original, diff, &Options::default()).map_err(Problem::from)
}

/// Applies `diff` to `original` with `options`; on failure the error carries the full report.
pub fn apply_with(original: &str, diff: &str, options: &Options) -> Result<Applied, PatchError> {
    let files = parse::parse(diff)?;
    let file_patch = select(&files, options.path.as_deref())?;
    if file_patch.hunks.is_empty() {
        return Err(Problem::new(
            Code::PatchNotUnified,
            format!(
                "the diff deletes {} without hunks; use a delete action to remove a file",
                file_patch.path()
            ),
        )
        .into());
    }
    let file = FileText::new(original);
    let hay = Haystack::new(&file);
    let total = file_patch.hunks.len();
    let mut edits = Vec::with_capacity(total);
    let mut reports = Vec::with_capacity(total);
    let mut failures = Vec::new();
    let mut final_newline = file.final_newline || file.len() == 0;
    let mut lo = 0;
    let mut drift: isize = 0;
    for (i, hunk) in file_patch.hunks.iter().enumerate() {
        let base = header_hint(hunk).or(match i {
            0 => options.line_hint.map(|l| l.saturating_sub(1)),
            _ => None,
        });
        let hint = base.map(|b| (b as isize + drift).max(0) as usize);
        let target = Target { hunk, lo, hint };
        match place(&hay, &target) {
            Ok(placed) => {
                let offset = base.map_or(0, |b| placed.start as isize - b as isize);
                if base.is_some() {
                    drift = offset;
                }
                reports.push(HunkReport {
                    hunk: i + 1,
                    strategy: placed.strategy.to_string(),
                    line: placed.start + 1,
                    offset,
                });
                if placed.edit.end == file.len() && hunk.old_no_eol != hunk.new_no_eol {
                    final_newline = !hunk.new_no_eol;
                }
                lo = placed.edit.end;
                edits.push(placed.edit);
            }
            Err((tried, miss)) => {
                failures.push(diagnose::diagnose(&hay, &target, i + 1, tried, miss));
            }
        }
    }
    if !failures.is_empty() {
        let report = FailureReport {
            hunks: total,
            failures,
        };
        return Err(PatchError {
            problem: report.problem(),
            report: Some(report),
        });
    }
    Ok(Applied {
        content: text::render(&file, &edits, final_newline),
        hunks: reports,
    })
}

/// The paths a diff changes, in order (for splitting a multi-file diff).
pub fn paths(diff: &str) -> Result<Vec<String>, Problem> {
    Ok(parse::parse(diff)?.iter().map(FilePatch::path).collect())
}

/// The 0-based line the `@@` header puts the old side at.
fn header_hint(hunk: &parse::Hunk) -> Option<usize> {
    let start = hunk.old_start?;
    Some(match hunk.old_lines().count() {
        0 => start,
        _ => start.saturating_sub(1),
    })
}

/// The one file section to apply.
fn select<'a>(files: &'a [FilePatch], path: Option<&str>) -> Result<&'a FilePatch, Problem> {
    if let [only] = files {
        return Ok(only);
    }
    let names: Vec<String> = files.iter().map(FilePatch::path).collect();
    let Some(path) = path else {
        return Err(Problem::new(
            Code::PatchNotUnified,
            format!(
                "the diff changes {} files ({}); a patch must change only its own file",
                files.len(),
                names.join(", ")
            ),
        ));
    };
    let want = path.trim_start_matches("./");
    let want = want
        .strip_prefix("a/")
        .or_else(|| want.strip_prefix("b/"))
        .unwrap_or(want);
    let is = |p: &Option<String>| p.as_deref() == Some(want);
    let exact: Vec<&FilePatch> = files
        .iter()
        .filter(|f| is(&f.new_path) || is(&f.old_path))
        .collect();
    let suffix: Vec<&FilePatch> = files
        .iter()
        .filter(|f| {
            let name = f.path();
            name.ends_with(&format!("/{want}")) || want.ends_with(&format!("/{name}"))
        })
        .collect();
    match (exact.as_slice(), suffix.as_slice()) {
        ([one], _) | ([], [one]) => Ok(one),
        _ => Err(Problem::new(
            Code::PatchNotUnified,
            format!(
                "the diff changes {} files ({}) and none is unambiguously {path}",
                files.len(),
                names.join(", ")
            ),
        )),
    }
}

#[cfg(test)]
mod tests;
