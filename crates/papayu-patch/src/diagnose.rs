//! Explaining a hunk that did not apply: the nearest place, the first differing line, whether
//! the change is already there, which hunk another overlaps.
//!
//! This runs only on failure, so it may look at more of the file than the ladder does. It must
//! never influence placement: it describes, it does not decide.

use std::collections::HashMap;

use super::ladder::{Miss, Placement, Target, Tried as Rung};
use super::matcher::Haystack;
use super::normalize::{Norm, is_trivial};
use super::parse::{Kind, Line};
use super::report::{Difference, HunkFailure, Nearest, Tried, Verdict};

/// The failure record for one hunk (`number` is 1-based).
pub(crate) fn diagnose(
    hay: &Haystack<'_>,
    t: &Target<'_>,
    number: usize,
    tried: Vec<Rung>,
    miss: Miss,
) -> HunkFailure {
    let (pre, post) = sides(t);
    let verdict = match miss {
        Miss::NotFound => Verdict::NotFound,
        Miss::Ambiguous(s, starts) => Verdict::Ambiguous {
            strategy: s.to_string(),
            lines: starts.iter().map(|p| p + 1).collect(),
        },
        Miss::Unplaceable(s, start, why) => Verdict::Unclear {
            strategy: s.to_string(),
            line: start + 1,
            why,
        },
        Miss::NoContext => Verdict::NoContext,
    };
    let not_found = verdict == Verdict::NotFound;
    HunkFailure {
        hunk: number,
        header: t.hunk.header.clone(),
        hint: t.hint.map(|h| h + 1),
        tried: tried
            .into_iter()
            .map(|r| Tried {
                strategy: r.strategy.to_string(),
                found: r.found,
                skipped: r.skipped.map(str::to_string),
            })
            .collect(),
        nearest: if not_found {
            nearest(hay, &pre, t.hint)
        } else {
            None
        },
        already_applied: if not_found {
            already_applied(hay, &pre, &post)
        } else {
            Vec::new()
        },
        verdict,
    }
}

/// A failure when the hunk only adds lines and they are already there, next to the place its old
/// side fits: applying it again would duplicate them. (A hunk that removes lines cannot be
/// applied twice: its `-` lines are matched where it goes.)
pub(crate) fn already_there(
    hay: &Haystack<'_>,
    t: &Target<'_>,
    number: usize,
    placed: &Placement,
) -> Option<HunkFailure> {
    let lines = &t.hunk.lines;
    let adds = lines.iter().filter(|l| l.kind == Kind::Add).count();
    let removes = lines.iter().any(|l| l.kind == Kind::Remove);
    let trivial = lines
        .iter()
        .filter(|l| l.kind == Kind::Add)
        .all(|l| is_trivial(&l.text));
    if removes || trivial {
        return None;
    }
    let (_, post) = sides(t);
    let from = placed.start.saturating_sub(adds);
    let there: Vec<usize> = hay
        .find(Norm::Punct, &texts(&post), from)
        .into_iter()
        .filter(|&q| q <= placed.start)
        .map(|q| q + 1)
        .collect();
    if there.is_empty() {
        return None;
    }
    Some(HunkFailure {
        hunk: number,
        header: t.hunk.header.clone(),
        hint: t.hint.map(|h| h + 1),
        tried: Vec::new(),
        verdict: Verdict::AlreadyApplied {
            strategy: placed.strategy.to_string(),
            line: placed.start + 1,
        },
        nearest: None,
        already_applied: there,
    })
}

/// The failure of hunk `number` that changes lines (0-based `lines`) hunk `other` also changes.
pub(crate) fn overlap(
    hunk: &super::parse::Hunk,
    number: usize,
    other: usize,
    lines: std::ops::Range<usize>,
) -> HunkFailure {
    HunkFailure {
        hunk: number,
        header: hunk.header.clone(),
        hint: None,
        tried: Vec::new(),
        verdict: Verdict::Overlaps {
            hunk: other,
            first_line: lines.start + 1,
            last_line: lines.end,
        },
        nearest: None,
        already_applied: Vec::new(),
    }
}

/// The hunk's old side and new side.
fn sides<'h>(t: &Target<'h>) -> (Vec<&'h Line>, Vec<&'h Line>) {
    let pre = t.hunk.old_lines().collect();
    let post = t
        .hunk
        .lines
        .iter()
        .filter(|l| l.kind != Kind::Remove)
        .collect();
    (pre, post)
}

fn texts<'a>(lines: &[&'a Line]) -> Vec<&'a str> {
    lines.iter().map(|l| l.text.as_str()).collect()
}

/// The window with the most old-side lines equal at `Punct` (ties: nearest the hint, then
/// first), with the first line that differs.
fn nearest(hay: &Haystack<'_>, pre: &[&Line], hint: Option<usize>) -> Option<Nearest> {
    let n = hay.len();
    if pre.is_empty() || n == 0 {
        return None;
    }
    let mut votes: HashMap<usize, usize> = HashMap::new();
    for (t, l) in pre.iter().enumerate() {
        if is_trivial(&l.text) {
            continue;
        }
        for &q in hay.positions(Norm::Punct, &l.text) {
            if let Some(p) = (q as usize).checked_sub(t) {
                *votes.entry(p).or_default() += 1;
            }
        }
    }
    let target = hint.unwrap_or(0);
    let (&p, _) = votes.iter().max_by(|(pa, va), (pb, vb)| {
        va.cmp(vb)
            .then_with(|| pb.abs_diff(target).cmp(&pa.abs_diff(target)))
            .then_with(|| pb.cmp(pa))
    })?;
    let same = |t: usize, norm: Norm| p + t < n && norm.key(&pre[t].text) == hay.key(norm, p + t);
    let matching = (0..pre.len()).filter(|&t| same(t, Norm::Punct)).count();
    let first = (0..pre.len())
        .find(|&t| !same(t, Norm::Punct))
        .or_else(|| (0..pre.len()).find(|&t| !same(t, Norm::Text)));
    let difference = first.map(|t| Difference {
        line: p + t + 1,
        expected: pre[t].text.clone(),
        found: (p + t < n).then(|| hay.line(p + t).to_string()),
    });
    Some(Nearest {
        first_line: p + 1,
        last_line: (p + pre.len()).min(n),
        matching,
        lines: pre.len(),
        difference,
    })
}

/// Lines where the hunk's new side already is, when that says something.
fn already_applied(hay: &Haystack<'_>, pre: &[&Line], post: &[&Line]) -> Vec<usize> {
    if post.is_empty() || post.iter().all(|l| is_trivial(&l.text)) {
        return Vec::new();
    }
    let post_texts = texts(post);
    if Norm::Punct.key(&post_texts.join("\n")) == Norm::Punct.key(&texts(pre).join("\n")) {
        return Vec::new();
    }
    hay.find(Norm::Punct, &post_texts, 0)
        .into_iter()
        .map(|p| p + 1)
        .collect()
}
