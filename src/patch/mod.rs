//! Applying model-written unified diffs to one file's text.
//!
//! The seam the apply engine calls: [`apply`] takes the file's current text and the diff and
//! returns the new text with a per-hunk report, or a [`Problem`] that names what failed. It never
//! writes anything; it is all-or-nothing by construction (it returns a new string or nothing).

use crate::codes::{Code, Problem};

/// How one hunk found its place.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct HunkReport {
    /// 1-based hunk number in the diff.
    pub hunk: usize,
    /// Name of the matching strategy that placed the hunk (`exact`, ...).
    pub strategy: String,
    /// 1-based line in the original file where the hunk's pre-image starts.
    pub line: usize,
    /// Distance from the line the `@@` header hinted (0 when it was right or absent).
    pub offset: isize,
}

/// A successful application: the new text and how each hunk was placed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Applied {
    pub content: String,
    pub hunks: Vec<HunkReport>,
}

/// Applies `diff` to `original` exactly as written (context must match, counts are trusted).
pub fn apply(original: &str, diff: &str) -> Result<Applied, Problem> {
    let parsed = diffy::Patch::from_str(diff).map_err(|e| {
        Problem::new(
            Code::PatchNotUnified,
            format!("not a unified diff ({e}); send a diff with @@ hunks"),
        )
    })?;
    let content = diffy::apply(original, &parsed).map_err(|e| {
        Problem::new(
            Code::PatchApplyFailed,
            format!("{e}; re-read the file and regenerate the hunk"),
        )
    })?;
    let hunks = parsed
        .hunks()
        .iter()
        .enumerate()
        .map(|(i, h)| HunkReport {
            hunk: i + 1,
            strategy: "exact".into(),
            line: h.old_range().start(),
            offset: 0,
        })
        .collect();
    Ok(Applied { content, hunks })
}

/// Replaces lines `start..=end` (1-based) with `content`.
pub fn replace_range(
    original: &str,
    start: usize,
    end: usize,
    content: &str,
) -> Result<String, Problem> {
    let lines: Vec<&str> = original.split_inclusive('\n').collect();
    if start == 0 || end + 1 < start || end > lines.len() {
        return Err(Problem::new(
            Code::RangeInvalid,
            format!(
                "lines {start}-{end} are outside the file's {} lines",
                lines.len()
            ),
        ));
    }
    let mut out: String = lines[..start - 1].concat();
    out.push_str(content);
    out.push_str(&lines[end..].concat());
    Ok(out)
}
