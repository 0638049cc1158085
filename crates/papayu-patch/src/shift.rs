//! What one rung of the ladder finds, and the indentation shift between a hunk and the file.
//!
//! Shared by the ladder and the blank-line rung ([`super::blank`]), which both measure how a
//! hunk's lines are indented against the file's and place candidates. Pure: no rung logic here.

use super::normalize::{indent, is_blank};
use super::parse::Kind;
use super::text::Edit;

/// A place found on one rung: where the whole hunk starts and its effect, or why the effect is
/// not well defined there.
pub(crate) struct Cand {
    pub start: usize,
    pub edit: Result<Edit, String>,
}

/// An indentation change: the file has `Add(prefix)` more, or `Remove(prefix)` less, than the
/// diff on every non-blank old-side line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Delta {
    None,
    Add(String),
    Remove(String),
}

impl Delta {
    /// `line` shifted by this change (blank lines stay as they are).
    pub(crate) fn apply(&self, line: &str) -> String {
        match self {
            _ if is_blank(line) => line.to_string(),
            Delta::None => line.to_string(),
            Delta::Add(prefix) => format!("{prefix}{line}"),
            Delta::Remove(prefix) => match line.strip_prefix(prefix.as_str()) {
                Some(rest) => rest.to_string(),
                None => {
                    // Less indented than the shift: remove what indentation it has, no more.
                    let limit = prefix.chars().count();
                    let cut: usize = line
                        .chars()
                        .take(limit)
                        .take_while(|c| c.is_whitespace())
                        .map(char::len_utf8)
                        .sum();
                    line[cut..].to_string()
                }
            },
        }
    }
}

/// The indentation change from a diff line to the file line it stands for; `None` when neither
/// indentation ends the other (tabs against spaces).
pub(crate) fn line_delta(diff_line: &str, file_line: &str) -> Option<Delta> {
    let file_ws = indent(file_line);
    let diff_ws = indent(diff_line);
    if let Some(extra) = file_ws.strip_suffix(diff_ws) {
        Some(match extra.is_empty() {
            true => Delta::None,
            false => Delta::Add(extra.to_string()),
        })
    } else {
        diff_ws
            .strip_suffix(file_ws)
            .map(|extra| Delta::Remove(extra.to_string()))
    }
}

/// The indentation shift a place measures for a hunk matched while leading whitespace was
/// forgiven, from its non-blank old-side lines (as `(diff line, file line, kind)`): the shift
/// the lines whose indentations compare agree on by a majority, `-` lines counting twice (a
/// model copies what it removes, and writes what it adds in the same frame), which added lines
/// then take so they land at the depth the file has there. Lines indented with other characters
/// (tabs against spaces) do not vote. Without a majority the depth of the added lines is
/// unknown, and the place is refused rather than guessed.
pub(crate) fn shift_of<'a>(
    pairs: impl IntoIterator<Item = (&'a str, &'a str, Kind)>,
) -> Result<Delta, String> {
    let mut counts: Vec<(Delta, usize)> = Vec::new();
    let mut total = 0;
    for (diff_line, file_line, kind) in pairs {
        if is_blank(diff_line) {
            continue;
        }
        let Some(delta) = line_delta(diff_line, file_line) else {
            continue;
        };
        let votes = if kind == Kind::Remove { 2 } else { 1 };
        total += votes;
        match counts.iter_mut().find(|c| c.0 == delta) {
            Some(c) => c.1 += votes,
            None => counts.push((delta, votes)),
        }
    }
    match counts.into_iter().max_by_key(|c| c.1) {
        None => Ok(Delta::None),
        Some((delta, n)) if 2 * n > total => Ok(delta),
        Some(_) => Err(
            "the hunk's lines are indented unlike the file's there, by different amounts; \
             the depth of its added lines is unknown (send the lines as the file indents them)"
                .to_string(),
        ),
    }
}
