//! What the engine says about a patch: per-hunk success records and the failure report.
//!
//! The failure report is sent back to a model for repair, so it is short and exact: the hunk,
//! every rung tried, the nearest place with the first line that differs, all positions of an
//! ambiguous match, and "already applied?" when the new side is already there. Everything here
//! is plain data (serializable for traces) plus its rendering; nothing here searches the file.

use std::fmt;

use serde::Serialize;

use papayu_core::codes::{Code, Problem};

/// How one hunk found its place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HunkReport {
    /// 1-based hunk number in the diff.
    pub hunk: usize,
    /// The rung that placed the hunk (`exact`, `eol`, `trim_end`, `indent`, `trim`, `punct`,
    /// `blank`, `context-N`).
    pub strategy: String,
    /// 1-based line in the original file where the hunk's old side starts.
    pub line: usize,
    /// Distance from the line the `@@` header named (0 when it was right or absent).
    pub offset: isize,
}

/// Why one hunk did not apply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Verdict {
    /// No rung found the old side.
    NotFound,
    /// A rung found the old side at several lines and nothing singled one out.
    Ambiguous { strategy: String, lines: Vec<usize> },
    /// A rung found one place, but what the hunk would do there is not well defined.
    Unclear {
        strategy: String,
        line: usize,
        why: String,
    },
    /// The hunk has only added lines and the file is not empty.
    NoContext,
    /// The hunk only adds lines, and they are already there beside the place its old side fits
    /// (at `line`, by `strategy`; the new side's lines are in `already_applied`): applying it
    /// again would duplicate them.
    AlreadyApplied { strategy: String, line: usize },
    /// The hunk changes lines another hunk also changes.
    Overlaps {
        hunk: usize,
        first_line: usize,
        last_line: usize,
    },
}

/// The first line where the nearest place differs from the hunk's old side.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Difference {
    /// 1-based file line.
    pub line: usize,
    pub expected: String,
    /// `None` past the end of the file.
    pub found: Option<String>,
}

/// The place that comes closest to the hunk's old side.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Nearest {
    pub first_line: usize,
    pub last_line: usize,
    /// Old-side lines equal there (ignoring whitespace and punctuation style).
    pub matching: usize,
    pub lines: usize,
    pub difference: Option<Difference>,
}

/// Everything known about one failed hunk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HunkFailure {
    /// 1-based hunk number.
    pub hunk: usize,
    /// The `@@` line as written.
    pub header: String,
    /// 1-based line the hunk was expected at (after earlier hunks' offsets), if known.
    pub hint: Option<usize>,
    /// Rungs tried, in order, with how many places each found.
    pub tried: Vec<Tried>,
    pub verdict: Verdict,
    pub nearest: Option<Nearest>,
    /// 1-based lines where the hunk's new side already is.
    pub already_applied: Vec<usize>,
}

/// One rung tried.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Tried {
    pub strategy: String,
    pub found: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

/// Why a patch did not apply: every hunk that failed (the others were placed, but nothing is
/// applied unless all are).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FailureReport {
    /// Number of hunks in the diff.
    pub hunks: usize,
    pub failures: Vec<HunkFailure>,
}

const MAX_LINES_LISTED: usize = 8;

fn line_list(lines: &[usize]) -> String {
    let mut s: Vec<String> = lines
        .iter()
        .take(MAX_LINES_LISTED)
        .map(usize::to_string)
        .collect();
    if lines.len() > MAX_LINES_LISTED {
        s.push(format!("… ({} in all)", lines.len()));
    }
    s.join(", ")
}

impl HunkFailure {
    fn title(&self, total: usize) -> String {
        let hint = match self.hint {
            Some(h) => format!(", expected near line {h}"),
            None => ", no line number".to_string(),
        };
        format!("hunk {} of {total} (`{}`{hint})", self.hunk, self.header)
    }

    /// One line: what failed and what to do.
    fn summary(&self, total: usize) -> String {
        let n = self.hunk;
        match &self.verdict {
            Verdict::Ambiguous { strategy, lines } => format!(
                "hunk {n} of {total} is ambiguous: its old side matches ({strategy}) at lines {}; \
                 add context that occurs once or fix the @@ line number",
                line_list(lines)
            ),
            Verdict::Unclear {
                strategy,
                line,
                why,
            } => format!(
                "hunk {n} of {total} fits at line {line} only with {strategy}, and there {why}; \
                 resend it with exact context"
            ),
            Verdict::NoContext => format!(
                "hunk {n} of {total} has only added lines and the file is not empty; \
                 add unchanged context lines around the change"
            ),
            Verdict::AlreadyApplied { strategy, line } => format!(
                "hunk {n} of {total} is already applied: the lines it adds are already at line {} \
                 beside its context (line {line}, {strategy}); leave this hunk out",
                line_list(&self.already_applied)
            ),
            Verdict::Overlaps {
                hunk,
                first_line,
                last_line,
            } => format!(
                "hunk {n} of {total} overlaps hunk {hunk} at lines {first_line}-{last_line}; \
                 make them one hunk"
            ),
            Verdict::NotFound if !self.already_applied.is_empty() => format!(
                "hunk {n} of {total} not found, but its new side is already at line {} \
                 (already applied?)",
                line_list(&self.already_applied)
            ),
            Verdict::NotFound => {
                let near = match &self.nearest {
                    Some(Nearest {
                        difference: Some(d),
                        ..
                    }) => format!("; nearest differs at line {}", d.line),
                    _ => String::new(),
                };
                format!(
                    "hunk {n} of {total} not found after {} rungs{near}; \
                     re-read the file and resend the hunk with exact context",
                    self.tried.len()
                )
            }
        }
    }
}

impl FailureReport {
    /// The one-line [`Problem`] for this report.
    pub fn problem(&self) -> Problem {
        let reason = match self.failures.split_first() {
            Some((first, [])) => first.summary(self.hunks),
            Some((first, more)) => format!(
                "{} ({} more hunk(s) failed)",
                first.summary(self.hunks),
                more.len()
            ),
            None => format!("the patch's {} hunk(s) did not apply", self.hunks),
        };
        Problem::new(Code::PatchApplyFailed, reason)
    }
}

fn quoted(s: &str) -> String {
    format!("{:?}", super::parse::shorten(s))
}

impl fmt::Display for HunkFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The caller prints the title with the hunk total; this is the body.
        let tried: Vec<String> = self
            .tried
            .iter()
            .map(|t| match (&t.skipped, t.found) {
                (Some(_), _) => format!("{} (skipped)", t.strategy),
                (None, 0) => t.strategy.clone(),
                (None, k) => format!("{} ({k} places)", t.strategy),
            })
            .collect();
        if !tried.is_empty() {
            writeln!(f, "  tried: {}", tried.join(", "))?;
        }
        if let Some(why) = self.tried.iter().find_map(|t| t.skipped.as_ref()) {
            writeln!(f, "  relaxed rungs skipped: {why}")?;
        }
        if let Some(n) = &self.nearest {
            writeln!(
                f,
                "  nearest: lines {}-{} ({} of {} old-side lines match)",
                n.first_line, n.last_line, n.matching, n.lines
            )?;
            if let Some(d) = &n.difference {
                writeln!(f, "  line {} expected: {}", d.line, quoted(&d.expected))?;
                match &d.found {
                    Some(found) => writeln!(f, "  line {} found:    {}", d.line, quoted(found))?,
                    None => writeln!(f, "  line {} found:    end of file", d.line)?,
                }
            }
        }
        if !self.already_applied.is_empty() {
            writeln!(
                f,
                "  its new side is already at line {} (already applied?)",
                line_list(&self.already_applied)
            )?;
        }
        Ok(())
    }
}

impl fmt::Display for FailureReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for h in &self.failures {
            let what = match &h.verdict {
                Verdict::NotFound if !h.already_applied.is_empty() => {
                    "not found (already applied?)".to_string()
                }
                Verdict::NotFound => "not found".to_string(),
                Verdict::Ambiguous { strategy, lines } => {
                    format!(
                        "ambiguous at {strategy}: matches at lines {}",
                        line_list(lines)
                    )
                }
                Verdict::Unclear {
                    strategy,
                    line,
                    why,
                } => format!("fits at line {line} only with {strategy}, and there {why}"),
                Verdict::NoContext => {
                    "only added lines, and the file is not empty: add context".to_string()
                }
                Verdict::AlreadyApplied { strategy, line } => format!(
                    "already applied (its context fits at line {line} with {strategy}, and the added lines follow it)"
                ),
                Verdict::Overlaps {
                    hunk,
                    first_line,
                    last_line,
                } => format!("overlaps hunk {hunk} at lines {first_line}-{last_line}"),
            };
            writeln!(f, "{}: {what}", h.title(self.hunks))?;
            write!(f, "{h}")?;
        }
        if self.failures.len() < self.hunks {
            writeln!(
                f,
                "the other {} hunk(s) fit, but nothing was applied",
                self.hunks - self.failures.len()
            )?;
        }
        Ok(())
    }
}
