//! The matching ladder: where one hunk goes, trying stricter comparisons before looser ones.
//!
//! Each rung either finds no place (try the next rung), exactly one place — or one place the
//! line hint or anchor singles out beyond doubt — (done), or several (refuse: ambiguity at a
//! stricter rung is never a reason to relax). Context lines may be forgiven; `-` lines are
//! compared like context but never dropped. This module must never place a hunk it cannot
//! place uniquely, and never place a hunk whose old side is only blank or trivial lines with a
//! relaxed rung.

use std::fmt;

use super::blank;
use super::matcher::{Haystack, choose};
use super::normalize::{Norm, is_blank, is_trivial};
use super::parse::{Hunk, Kind, Line};
use super::shift::{Cand, Delta, line_delta, shift_of};
use super::text::{Edit, Out};

/// The rung of the ladder that placed (or failed to place) a hunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// Byte-exact, line endings and the final newline included.
    Exact,
    /// Exact text, differing only in line endings (CRLF/LF) or the final newline. Searched
    /// together with `Exact`: endings name the rung, they never choose the place.
    Eol,
    /// Trailing whitespace forgiven.
    TrimEnd,
    /// Every old-side line shifted by the same indentation; added lines are shifted back.
    Indent,
    /// Leading and trailing whitespace forgiven.
    Trim,
    /// As `Trim`, with typographic punctuation and inner whitespace runs folded.
    Punct,
    /// As `Punct`, with blank context lines missing or extra.
    Blank,
    /// As `Punct`, with this many outer context lines dropped.
    Context(usize),
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Strategy::Exact => f.write_str("exact"),
            Strategy::Eol => f.write_str("eol"),
            Strategy::TrimEnd => f.write_str("trim_end"),
            Strategy::Indent => f.write_str("indent"),
            Strategy::Trim => f.write_str("trim"),
            Strategy::Punct => f.write_str("punct"),
            Strategy::Blank => f.write_str("blank"),
            Strategy::Context(k) => write!(f, "context-{k}"),
        }
    }
}

/// Where a hunk went and what it does there.
#[derive(Debug, Clone)]
pub(crate) struct Placement {
    pub strategy: Strategy,
    /// Where the whole hunk (dropped context included) starts, 0-based.
    pub start: usize,
    pub edit: Edit,
}

/// One rung tried: how many places it found, or why it was skipped.
#[derive(Debug, Clone)]
pub(crate) struct Tried {
    pub strategy: Strategy,
    pub found: usize,
    pub skipped: Option<&'static str>,
}

/// Why a hunk could not be placed.
#[derive(Debug, Clone)]
pub(crate) enum Miss {
    NotFound,
    /// Several places at this rung, none singled out (0-based starts).
    Ambiguous(Strategy, Vec<usize>),
    /// One place, but the hunk's effect there is not well defined.
    Unplaceable(Strategy, usize, String),
    /// Only added lines, and the file is not empty.
    NoContext,
}

/// One hunk to place: the region it may start in and what the diff says about its position.
pub(crate) struct Target<'h> {
    pub hunk: &'h Hunk,
    /// The earliest line it may start at (the end of the previous hunk).
    pub lo: usize,
    /// Expected start, 0-based, after the running offset of earlier hunks.
    pub hint: Option<usize>,
}

/// Places one hunk, or says why not and what was tried.
pub(crate) fn place(hay: &Haystack<'_>, t: &Target<'_>) -> Result<Placement, (Vec<Tried>, Miss)> {
    let hunk = t.hunk;
    let pre: Vec<&Line> = hunk.old_lines().collect();
    if pre.is_empty() {
        if hay.len() == 0 {
            let lines = hunk
                .lines
                .iter()
                .map(|l| Out::New(l.text.clone()))
                .collect();
            let edit = Edit {
                start: 0,
                end: 0,
                lines,
            };
            return Ok(Placement {
                strategy: Strategy::Exact,
                start: 0,
                edit,
            });
        }
        return Err((Vec::new(), Miss::NoContext));
    }
    // Relaxed rungs never place a hunk whose old side is only blank or trivial lines, but they
    // still speak when a strict match competes with what they find.
    let trivial = pre.iter().all(|l| is_trivial(&l.text));
    let ladder = rungs(hunk);
    let placing = if trivial { 1 } else { ladder.len() };
    let mut tried: Vec<Tried> = Vec::new();
    for (i, &strategy) in ladder.iter().enumerate().take(placing) {
        let mut cands = candidates(hay, t, strategy);
        cands.sort_by_key(|c| c.start);
        cands.dedup_by_key(|c| c.start);
        tried.push(Tried {
            strategy,
            found: cands.len(),
            skipped: None,
        });
        if cands.is_empty() {
            continue;
        }
        let starts: Vec<usize> = cands.iter().map(|c| c.start).collect();
        let start = match pick(hay, t, &starts, &ladder[i + 1..]) {
            Ok(start) => start,
            Err(places) => return Err((tried, Miss::Ambiguous(strategy, places))),
        };
        #[expect(
            clippy::expect_used,
            reason = "pick chooses one of `starts`, the candidates' own starts"
        )]
        let cand = cands
            .into_iter()
            .find(|c| c.start == start)
            .expect("chosen");
        // Line endings and the final newline never decide between places (the right place may
        // differ only in them); they only name the rung that placed the hunk.
        let strategy = match strategy {
            Strategy::Exact if !exact_endings(hay, hunk, start, &pre) => Strategy::Eol,
            s => s,
        };
        return match cand.edit {
            Ok(edit) => Ok(Placement {
                strategy,
                start,
                edit,
            }),
            Err(why) => Err((tried, Miss::Unplaceable(strategy, start, why))),
        };
    }
    if trivial {
        tried.extend(rungs(hunk).into_iter().skip(1).map(|strategy| Tried {
            strategy,
            found: 0,
            skipped: Some("old side is blank or trivial lines"),
        }));
    }
    Err((tried, Miss::NotFound))
}

/// The place among `starts` (found on one rung) the hunk goes to, or `Err` with every place
/// that competes for it.
///
/// One place is taken — unless the line hint points clearly closer to a place a looser rung
/// that still compares every line finds: the right place can be missing from a stricter rung
/// because of the very damage the looser rungs forgive. (A place found only with context
/// dropped never overrules a whole match.) Several places need the hint or anchor to single one out, and it must
/// stay singled out among the places every looser rung would offer.
fn pick(
    hay: &Haystack<'_>,
    t: &Target<'_>,
    starts: &[usize],
    looser: &[Strategy],
) -> Result<usize, Vec<usize>> {
    let looser_starts = || {
        let mut all: Vec<usize> = looser
            .iter()
            .flat_map(|&s| candidates(hay, t, s).into_iter().map(|c| c.start))
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    };
    if let [one] = starts {
        let Some(hint) = t.hint.filter(|h| h != one) else {
            return Ok(*one);
        };
        let far = one.abs_diff(hint);
        // Only rungs that still compare every line may overrule a unique match: a place found
        // with context dropped is weaker evidence than the whole hunk matching elsewhere.
        let whole: Vec<Strategy> = looser
            .iter()
            .copied()
            .filter(|s| !matches!(s, Strategy::Context(_)))
            .collect();
        let nearer: Vec<usize> = whole
            .iter()
            .flat_map(|&s| candidates(hay, t, s).into_iter().map(|c| c.start))
            .collect::<std::collections::BTreeSet<usize>>()
            .into_iter()
            .filter(|&x| x != *one && 2 * x.abs_diff(hint) < far)
            .collect();
        return match nearer.is_empty() {
            true => Ok(*one),
            false => Err([vec![*one], nearer].concat()),
        };
    }
    let anchors = match &t.hunk.anchor {
        Some(a) => hay.anchor_lines(a),
        None => Vec::new(),
    };
    let start = choose(starts, t.hint, &anchors).ok_or_else(|| starts.to_vec())?;
    let mut all = looser_starts();
    all.extend_from_slice(starts);
    all.sort_unstable();
    all.dedup();
    match choose(&all, t.hint, &anchors) == Some(start) {
        true => Ok(start),
        false => Err(all),
    }
}

/// The rungs for this hunk, strictest first.
fn rungs(hunk: &Hunk) -> Vec<Strategy> {
    let mut out = vec![
        Strategy::Exact,
        Strategy::TrimEnd,
        Strategy::Indent,
        Strategy::Trim,
        Strategy::Punct,
        Strategy::Blank,
    ];
    let (lead, trail) = droppable(hunk);
    out.extend((1..=lead + trail).map(Strategy::Context));
    out
}

/// How many leading and trailing context lines may be dropped: all but the innermost one on
/// each side that has context, so every change keeps a real neighbour.
fn droppable(hunk: &Hunk) -> (usize, usize) {
    let lines = &hunk.lines;
    let lead = lines.iter().take_while(|l| l.kind == Kind::Context).count();
    let trail = lines
        .iter()
        .rev()
        .take_while(|l| l.kind == Kind::Context)
        .count();
    (lead.saturating_sub(1), trail.saturating_sub(1))
}

/// A dropped context line must still look like the file line it stands for: equal, one inside
/// the other, or mostly the same characters. A line that resembles nothing there is more likely
/// an added line that lost its `+` than misremembered context, and is never dropped.
fn resembles(diff_line: &str, file_line: Option<&str>) -> bool {
    let Some(file_line) = file_line else {
        return false;
    };
    let a = Norm::Punct.key(diff_line);
    let b = Norm::Punct.key(file_line);
    if a == b {
        return true;
    }
    if a.is_empty() || b.is_empty() {
        return false;
    }
    if a.contains(b.as_ref()) || b.contains(a.as_ref()) {
        return true;
    }
    let (a, b): (Vec<char>, Vec<char>) =
        (a.chars().take(200).collect(), b.chars().take(200).collect());
    let mut prev = vec![0usize; b.len() + 1];
    for ca in &a {
        let mut row = vec![0usize; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            row[j + 1] = if ca == cb {
                prev[j] + 1
            } else {
                prev[j + 1].max(row[j])
            };
        }
        prev = row;
    }
    let common = prev[b.len()];
    common * 10 >= (a.len() + b.len()) * 3
}

fn candidates(hay: &Haystack<'_>, t: &Target<'_>, strategy: Strategy) -> Vec<Cand> {
    let hunk = t.hunk;
    match strategy {
        Strategy::Exact | Strategy::Eol => contiguous(hay, t, &hunk.lines, Norm::Text, |_, _| {
            Some(Ok(Delta::None))
        }),
        Strategy::TrimEnd => contiguous(hay, t, &hunk.lines, Norm::TrimEnd, |_, _| {
            Some(Ok(Delta::None))
        }),
        Strategy::Indent => contiguous(hay, t, &hunk.lines, Norm::Trim, |p, pre| {
            uniform_delta(hay, p, pre)
                .filter(|d| *d != Delta::None)
                .map(Ok)
        }),
        Strategy::Trim => contiguous(hay, t, &hunk.lines, Norm::Trim, |p, pre| {
            Some(measured_delta(hay, p, pre))
        }),
        Strategy::Punct => contiguous(hay, t, &hunk.lines, Norm::Punct, |p, pre| {
            Some(measured_delta(hay, p, pre))
        }),
        Strategy::Blank => blank::candidates(hay, hunk, t.lo),
        Strategy::Context(k) => reduced(hay, t, k),
    }
}

/// Places where the old side occurs line for line at `norm`, kept when `accept` gives the
/// indentation change to apply to added lines (or says why none can be measured there).
fn contiguous(
    hay: &Haystack<'_>,
    t: &Target<'_>,
    lines: &[Line],
    norm: Norm,
    accept: impl Fn(usize, &[&Line]) -> Option<Result<Delta, String>>,
) -> Vec<Cand> {
    let pre: Vec<&Line> = lines.iter().filter(|l| l.kind != Kind::Add).collect();
    let texts: Vec<&str> = pre.iter().map(|l| l.text.as_str()).collect();
    let n = hay.len();
    hay.find(norm, &texts, t.lo)
        .into_iter()
        .filter(|&p| !t.hunk.at_eof || p + pre.len() == n)
        .filter_map(|p| {
            let delta = accept(p, &pre)?;
            Some(Cand {
                start: p,
                edit: delta.map(|d| edit_at(lines, p, &d)),
            })
        })
        .collect()
}

/// Whether line endings and the final newline are as the diff says at `p`.
fn exact_endings(hay: &Haystack<'_>, hunk: &Hunk, p: usize, pre: &[&Line]) -> bool {
    let file = hay.file;
    let same_cr = pre
        .iter()
        .enumerate()
        .all(|(i, l)| l.cr == file.lines[p + i].cr);
    let open_end = p + pre.len() == file.len() && !file.final_newline;
    same_cr && open_end == hunk.old_no_eol
}

/// The effect of the hunk placed at `p`: context lines are kept as the file has them, `-` lines
/// go, `+` lines come in (shifted by `delta`).
pub(crate) fn edit_at(lines: &[Line], p: usize, delta: &Delta) -> Edit {
    let mut f = p;
    let mut out = Vec::with_capacity(lines.len());
    for l in lines {
        match l.kind {
            Kind::Context => {
                out.push(Out::Keep(f));
                f += 1;
            }
            Kind::Remove => f += 1,
            Kind::Add => out.push(Out::New(delta.apply(&l.text))),
        }
    }
    Edit {
        start: p,
        end: f,
        lines: out,
    }
}

/// The one indentation change that turns every non-blank old-side line into the file's line.
fn uniform_delta(hay: &Haystack<'_>, p: usize, pre: &[&Line]) -> Option<Delta> {
    let mut found: Option<Delta> = None;
    for (i, l) in pre.iter().enumerate() {
        if is_blank(&l.text) {
            continue;
        }
        let delta = line_delta(&l.text, hay.line(p + i))?;
        match &found {
            Some(d) if *d != delta => return None,
            _ => found = Some(delta),
        }
    }
    found
}

/// [`shift_of`] for a hunk whose old side lies line for line from `p`.
fn measured_delta(hay: &Haystack<'_>, p: usize, pre: &[&Line]) -> Result<Delta, String> {
    shift_of(
        pre.iter()
            .enumerate()
            .map(|(i, l)| (l.text.as_str(), hay.line(p + i), l.kind)),
    )
}

/// Outer context dropped, `k` lines in all: every split between leading and trailing context
/// that keeps one line on each side that has any. Compared at `Punct`.
fn reduced(hay: &Haystack<'_>, t: &Target<'_>, k: usize) -> Vec<Cand> {
    let hunk = t.hunk;
    let (max_lead, max_trail) = droppable(hunk);
    let mut out = Vec::new();
    for lead in 0..=k.min(max_lead) {
        let trail = k - lead;
        if trail > max_trail || (hunk.at_eof && trail > 0) {
            continue;
        }
        let sub = &hunk.lines[lead..hunk.lines.len() - trail];
        if sub
            .iter()
            .filter(|l| l.kind != Kind::Add)
            .all(|l| is_trivial(&l.text))
        {
            continue;
        }
        for cand in contiguous(hay, t, sub, Norm::Punct, |p, pre| {
            Some(measured_delta(hay, p, pre))
        }) {
            // Dropped lines must have room above the file's first line: the start of the whole
            // hunk is what tells one place from another.
            if cand.start < lead {
                continue;
            }
            let end = match &cand.edit {
                Ok(e) => e.end,
                Err(_) => continue,
            };
            let line = |i: usize| (i < hay.len()).then(|| hay.line(i));
            let head_ok =
                (0..lead).all(|k| resembles(&hunk.lines[k].text, line(cand.start - lead + k)));
            let tail_ok = (0..trail).all(|k| {
                let diff_line = &hunk.lines[hunk.lines.len() - trail + k].text;
                resembles(diff_line, line(end + k))
            });
            if !head_ok || !tail_ok {
                continue;
            }
            out.push(Cand {
                start: cand.start - lead,
                edit: cand.edit,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delta_shifts_added_lines() {
        assert_eq!(Delta::Add("  ".into()).apply("x"), "  x");
        assert_eq!(Delta::Remove("    ".into()).apply("      x"), "  x");
        assert_eq!(Delta::Remove("    ".into()).apply("  x"), "x");
        assert_eq!(Delta::Add("  ".into()).apply(""), "");
    }

    #[test]
    fn the_shift_is_what_most_lines_agree_on_or_refused() {
        let c = Kind::Context;
        let pairs = [("a", "    a", c), ("  b", "      b", c), ("c", "c", c)];
        assert_eq!(shift_of(pairs), Ok(Delta::Add("    ".into())));
        let split = [("a", "    a", c), ("b", "b", c)];
        assert!(shift_of(split).is_err());
        let removed_wins = [("a", "    a", c), ("b", "b", Kind::Remove)];
        assert_eq!(shift_of(removed_wins), Ok(Delta::None));
        assert_eq!(shift_of([("", "x", c), ("a", "a", c)]), Ok(Delta::None));
        let tabs = [
            ("\ta", "    a", c),
            ("\tb", "    b", c),
            ("    c", "    c", c),
        ];
        assert_eq!(
            shift_of(tabs),
            Ok(Delta::None),
            "tabs against spaces do not vote"
        );
    }

    #[test]
    fn strategy_names() {
        assert_eq!(Strategy::TrimEnd.to_string(), "trim_end");
        assert_eq!(Strategy::Context(2).to_string(), "context-2");
    }
}
