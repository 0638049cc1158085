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

// A ratchet: no function of the product grows past 79 lines (clippy.toml); the few that
// were longer carry an `expect` until they are split.
#![deny(clippy::too_many_lines)]
// Another: no unwrap or expect outside tests; a true invariant carries an `expect` that says
// why it holds.
#![deny(clippy::unwrap_used, clippy::expect_used)]

mod blank;
mod diagnose;
mod ladder;
mod matcher;
mod normalize;
mod parse;
mod range;
mod report;
mod select;
mod shift;
mod text;

use std::fmt;

pub use ladder::Strategy;
pub use range::replace_range;
pub use report::{Difference, FailureReport, HunkFailure, HunkReport, Nearest, Tried, Verdict};

use ladder::{Target, place};
use matcher::Haystack;
use papayu_core::codes::Problem;
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
    /// The file being patched, as the caller knows it. A diff whose `---`/`+++` lines name
    /// another file, or rename it, is refused (a diff without names is taken as meant for it).
    /// `None`: names are not checked.
    pub path: Option<String>,
    /// Take this file's part out of a diff that changes several files (as named in the diff,
    /// with or without `a/`/`b/`), and apply it to `path` whatever that is called: the caller
    /// chose it on purpose. Without it, a diff that changes other files too is refused.
    pub pick: Option<String>,
    /// 1-based line where the first hunk is expected when its `@@` line has no number.
    pub line_hint: Option<usize>,
}

/// A failed application: the one-line [`Problem`] and, when hunks failed to apply, the full
/// report. `Display` gives both, ready to send back to a model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct PatchError {
    pub problem: Problem,
    pub report: Option<Box<FailureReport>>,
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

/// The name a one-file `diff` gives its file when that is not `path` (another file, or a rename
/// of it): a caller that names the file itself, as `patch FILE PATCHFILE` does, may apply it
/// anyway by picking that part ([`Options::pick`]). `None` when the diff names `path`, names
/// nothing, changes several files or does not parse.
pub fn other_name(diff: &str, path: &str) -> Option<String> {
    select::other_name(parse::parse(diff).ok()?, path)
}

/// Applies `diff` to `original` with `options`; on failure the error carries the full report.
pub fn apply_with(original: &str, diff: &str, options: &Options) -> Result<Applied, PatchError> {
    let files = parse::parse(diff)?;
    let file_patch = select::one_file(files, options)?;
    select::check_sides(&file_patch, original)?;
    let file = FileText::new(original);
    let hay = Haystack::new(&file);
    let placed = place_all(&hay, &file_patch.hunks, options).map_err(|report| PatchError {
        problem: report.problem(),
        report: Some(Box::new(report)),
    })?;
    let mut final_newline = file.final_newline || file.len() == 0;
    let mut edits = Vec::with_capacity(placed.len());
    let mut reports = Vec::with_capacity(placed.len());
    for p in placed {
        if let Some(newline) = p.final_newline {
            final_newline = newline;
        }
        reports.push(p.report);
        edits.push(p.edit);
    }
    edits.sort_by_key(|e| e.start);
    Ok(Applied {
        content: text::render(&file, &edits, final_newline),
        hunks: reports,
    })
}

/// One hunk placed: its report, its edit, and the final newline it sets (when it changes the
/// end of the file).
struct Placed {
    report: HunkReport,
    edit: text::Edit,
    final_newline: Option<bool>,
}

/// Places every hunk, whatever order the diff lists them in.
///
/// Each hunk is first placed on its own, in the whole file. Only when that leaves some hunk
/// ambiguous is the diff's order used as evidence: placed again one after the other, each after
/// the previous, and accepted only when every hunk that was unique on its own lands at the same
/// place and the placed hunks are in the diff's order. Hunks that overlap are refused.
fn place_all(
    hay: &Haystack<'_>,
    hunks: &[parse::Hunk],
    options: &Options,
) -> Result<Vec<Placed>, FailureReport> {
    let free = place_each(hay, hunks, options, false);
    let ambiguous = free
        .iter()
        .any(|r| matches!(r, Err(f) if matches!(f.verdict, Verdict::Ambiguous { .. })));
    if ambiguous {
        let ordered = place_each(hay, hunks, options, true);
        let agrees = free.iter().zip(&ordered).all(|pair| match pair {
            (Ok(a), Ok(b)) => a.edit.start == b.edit.start,
            (Err(_), Ok(_)) => true,
            _ => false,
        });
        if agrees {
            return finish(hunks, ordered);
        }
    }
    finish(hunks, free)
}

/// Every hunk placed or its failure; `in_order` places each after the previous one.
fn place_each(
    hay: &Haystack<'_>,
    hunks: &[parse::Hunk],
    options: &Options,
    in_order: bool,
) -> Vec<Result<Placed, HunkFailure>> {
    let mut out = Vec::with_capacity(hunks.len());
    let mut lo = 0;
    let mut drift: isize = 0;
    for (i, hunk) in hunks.iter().enumerate() {
        let base = header_hint(hunk).or(match i {
            0 => options.line_hint.map(|l| l.saturating_sub(1)),
            _ => None,
        });
        let hint = base.map(|b| (b as isize + drift).max(0) as usize);
        let target = Target {
            hunk,
            lo: if in_order { lo } else { 0 },
            hint,
        };
        let result = match place(hay, &target) {
            Ok(placed) => {
                let offset = base.map_or(0, |b| placed.start as isize - b as isize);
                if base.is_some() {
                    drift = offset;
                }
                lo = placed.edit.end;
                match diagnose::already_there(hay, &target, i + 1, &placed) {
                    Some(failure) => Err(failure),
                    None => Ok(Placed {
                        report: HunkReport {
                            hunk: i + 1,
                            strategy: placed.strategy.to_string(),
                            line: placed.start + 1,
                            offset,
                        },
                        final_newline: (placed.edit.end == hay.len()
                            && hunk.old_no_eol != hunk.new_no_eol)
                            .then_some(!hunk.new_no_eol),
                        edit: placed.edit,
                    }),
                }
            }
            Err((tried, miss)) => Err(diagnose::diagnose(hay, &target, i + 1, tried, miss)),
        };
        out.push(result);
    }
    out
}

/// All placed and none overlapping, or the report of what was not.
fn finish(
    hunks: &[parse::Hunk],
    results: Vec<Result<Placed, HunkFailure>>,
) -> Result<Vec<Placed>, FailureReport> {
    let mut placed = Vec::with_capacity(results.len());
    let mut failures = Vec::new();
    for r in results {
        match r {
            Ok(p) => placed.push(p),
            Err(f) => failures.push(f),
        }
    }
    if failures.is_empty() {
        let mut by_start: Vec<&Placed> = placed.iter().collect();
        by_start.sort_by_key(|p| (p.edit.start, p.edit.end));
        for pair in by_start.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            if a.edit.end > b.edit.start || a.edit.start == b.edit.start {
                let (first, second) = match a.report.hunk < b.report.hunk {
                    true => (a, b),
                    false => (b, a),
                };
                let number = second.report.hunk;
                failures.push(diagnose::overlap(
                    &hunks[number - 1],
                    number,
                    first.report.hunk,
                    b.edit.start..a.edit.end.max(b.edit.start + 1),
                ));
            }
        }
    }
    match failures.is_empty() {
        true => Ok(placed),
        false => {
            failures.sort_by_key(|f| f.hunk);
            Err(FailureReport {
                hunks: hunks.len(),
                failures,
            })
        }
    }
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

#[cfg(test)]
mod tests;
