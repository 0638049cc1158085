//! The blank-line rung: the model dropped or added blank context lines.
//!
//! The hunk's non-blank old-side lines must occur in order among the file's non-blank lines;
//! blank lines are then lined up around them. Blank context the file lacks is skipped, blank
//! file lines the diff lacks are kept. It must never skip or invent a `-` line, and never guess
//! where added lines go (the ladder decides whether trivial hunks may use this rung at all): when added lines border blank lines the two sides disagree about, the
//! place is reported as not well defined instead of picked.

use super::matcher::Haystack;
use super::normalize::is_blank;
use super::parse::{Hunk, Kind};
use super::shift::{Cand, Delta, shift_of};
use super::text::{Edit, Out};

/// Every place the hunk's non-blank old-side lines occur, with its effect there.
pub(crate) fn candidates(hay: &Haystack<'_>, hunk: &Hunk, lo: usize) -> Vec<Cand> {
    let pre: Vec<usize> = (0..hunk.lines.len())
        .filter(|&i| hunk.lines[i].kind != Kind::Add)
        .collect();
    let core: Vec<usize> = pre
        .iter()
        .copied()
        .filter(|&i| !is_blank(&hunk.lines[i].text))
        .collect();
    if core.is_empty() {
        return Vec::new();
    }
    let texts: Vec<&str> = core.iter().map(|&i| hunk.lines[i].text.as_str()).collect();
    let nonblank = hay.nonblank();
    hay.find_nonblank(&texts, lo)
        .into_iter()
        .filter_map(|j| {
            let fpos = &nonblank[j..j + core.len()];
            align(hay, hunk, &pre, &core, fpos, lo)
        })
        .collect()
}

/// Lines up the blank lines around the non-blank ones found at `fpos`; `None` when a blank `-`
/// line has no counterpart or `-` lines would stop being adjacent.
fn align(
    hay: &Haystack<'_>,
    hunk: &Hunk,
    pre: &[usize],
    core: &[usize],
    fpos: &[usize],
    lo: usize,
) -> Option<Cand> {
    let lines = &hunk.lines;
    let removes = |idx: &[usize]| idx.iter().any(|&i| lines[i].kind == Kind::Remove);
    let mut map: Vec<Option<usize>> = vec![None; lines.len()];
    for (c, f) in core.iter().zip(fpos) {
        map[*c] = Some(*f);
    }
    let k = core.len();
    let first = pre.iter().position(|&i| i == core[0])?;
    let last = pre.iter().position(|&i| i == core[k - 1])?;

    // Leading blank lines: match the file's blank lines right above, from the bottom up.
    let leading = &pre[..first];
    let mut above = 0;
    while above < leading.len() && fpos[0] > above + lo && is_blank(hay.line(fpos[0] - above - 1)) {
        above += 1;
    }
    let (dropped, kept) = leading.split_at(leading.len() - above);
    if removes(dropped) {
        return None;
    }
    for (n, &i) in kept.iter().enumerate() {
        map[i] = Some(fpos[0] - above + n);
    }

    // Trailing blank lines: match the file's blank lines right below, from the top down.
    let trailing = &pre[last + 1..];
    let mut below = 0;
    let end = fpos[k - 1] + 1;
    while below < trailing.len() && end + below < hay.len() && is_blank(hay.line(end + below)) {
        below += 1;
    }
    let (kept, dropped) = trailing.split_at(below);
    if removes(dropped) {
        return None;
    }
    for (n, &i) in kept.iter().enumerate() {
        map[i] = Some(end + n);
    }

    // Blank runs between two non-blank lines.
    for t in 0..k - 1 {
        let a = pre.iter().position(|&i| i == core[t])?;
        let b = pre.iter().position(|&i| i == core[t + 1])?;
        let run = &pre[a + 1..b];
        let gap = fpos[t + 1] - fpos[t] - 1;
        let both_removed =
            lines[core[t]].kind == Kind::Remove && lines[core[t + 1]].kind == Kind::Remove;
        if run.len() != gap && (removes(run) || both_removed) {
            return None;
        }
        for (n, &i) in run.iter().take(gap).enumerate() {
            map[i] = Some(fpos[t] + 1 + n);
        }
    }

    let start = pre.iter().filter_map(|&i| map[i]).min()?;
    let stop = pre.iter().filter_map(|&i| map[i]).max()? + 1;
    if hunk.at_eof && stop != hay.len() {
        return None;
    }
    // Lines were matched forgiving their indentation: added lines take the measured shift.
    let pairs = pre
        .iter()
        .filter_map(|&i| Some((lines[i].text.as_str(), hay.line(map[i]?), lines[i].kind)));
    let edit = shift_of(pairs).and_then(|delta| effect(hunk, &map, start, stop, &delta));
    Some(Cand { start, edit })
}

/// The hunk's effect given where each old-side line landed, or why it is not well defined.
fn effect(
    hunk: &Hunk,
    map: &[Option<usize>],
    start: usize,
    stop: usize,
    delta: &Delta,
) -> Result<Edit, String> {
    let lines = &hunk.lines;
    for (i, l) in lines.iter().enumerate() {
        let next_to_added = |j: Option<usize>| {
            j.and_then(|j| lines.get(j))
                .is_some_and(|n| n.kind == Kind::Add)
        };
        if l.kind == Kind::Context
            && map[i].is_none()
            && (next_to_added(i.checked_sub(1)) || next_to_added(Some(i + 1)))
        {
            return Err(
                "a blank context line next to added lines is not in the file \
                 (an added line missing its '+'?)"
                    .to_string(),
            );
        }
    }
    let mut i = 0;
    while i < lines.len() {
        if lines[i].kind == Kind::Context {
            i += 1;
            continue;
        }
        let block_end = (i..lines.len())
            .find(|&j| lines[j].kind == Kind::Context)
            .unwrap_or(lines.len());
        let pure_insert = lines[i..block_end].iter().all(|l| l.kind == Kind::Add);
        let before = (0..i).rev().find_map(|j| map[j]);
        let after = (block_end..lines.len()).find_map(|j| map[j]);
        if pure_insert && matches!((before, after), (Some(b), Some(a)) if a > b + 1) {
            return Err("added lines border blank lines the diff does not show; \
                 the insertion point is ambiguous"
                .to_string());
        }
        i = block_end;
    }

    let mut out = Vec::with_capacity(lines.len());
    let mut cursor = start;
    for (i, l) in lines.iter().enumerate() {
        match (l.kind, map[i]) {
            (Kind::Add, _) => out.push(Out::New(delta.apply(&l.text))),
            (_, None) => {}
            (kind, Some(f)) => {
                out.extend((cursor..f).map(Out::Keep));
                if kind == Kind::Context {
                    out.push(Out::Keep(f));
                }
                cursor = f + 1;
            }
        }
    }
    out.extend((cursor..stop).map(Out::Keep));
    Ok(Edit {
        start,
        end: stop,
        lines: out,
    })
}
