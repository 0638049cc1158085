//! Filling the room the other blocks leave with the tree's best-ranked files: the whole tree
//! when it fits, else the best files, whole when they fit, else as windows where the goal's
//! evidence lands ([`super::fill`]), each block's reason saying which lines were kept and why.

use super::fill;
use super::rank::{self, Ranking};
use super::{Block, BlockKind, Budget, Corpus, Gathered, Input, Private, Query, file_block};
use crate::store::Snapshot;

/// Less room than this is not worth a ranked block.
const MIN_RANKED_CHARS: usize = 800;
/// Characters kept back from a ranked block's allowance (masking may lengthen a line).
const SLACK: usize = 200;

/// Ranks the tree against the goal and fills the room the other blocks leave, within the
/// diet. Returns the ranking (for the map).
pub(super) fn add_ranked(
    snap: &Snapshot<'_>,
    input: &Input,
    budget: &Budget,
    private: &Private,
    out: &mut Gathered,
) -> Ranking {
    let corpus = Corpus::of(snap);
    let query = Query::of(&input.goal, &input.logs);
    let history = snap.recent_changes();
    let ranking = rank::rank(&corpus, &query, &history, &|p| private.allows(p));
    let (mut slots, mut room) = room_left(&out.blocks, budget);
    let mut order: Vec<(usize, f64, String)> = ranking
        .files
        .iter()
        .map(|r| (r.file, r.score, r.reasons.join("; ")))
        .collect();
    whole_tree(&corpus, private, &out.blocks, (slots, room), &mut order);
    let matcher = rank::Matcher::new(&query);
    for (f, score, reason) in order {
        if slots == 0 || room < MIN_RANKED_CHARS {
            break;
        }
        let path = &corpus.paths[f];
        if present(&out.blocks, path) {
            continue;
        }
        let allowance = budget
            .max_file_chars
            .min(room)
            .min(share(room, slots))
            .saturating_sub(SLACK);
        let text = String::from_utf8_lossy(corpus.text(f));
        let (windows, reason) = if text.chars().count() <= allowance {
            (Vec::new(), reason)
        } else {
            let anchors = matcher.anchors(&corpus, f, &ranking.idf);
            let defs = super::defs::parse(path, &text);
            let describe = |a: &rank::Anchor| matcher.describe(a);
            let shown = fill::windows(&text, &defs, &anchors, &describe, allowance);
            (shown.ranges, format!("{reason}; {}", shown.reason))
        };
        let Some(mut block) = file_block(snap, path, &windows, &reason, 3) else {
            continue;
        };
        block.score = Some((score * 1000.0).round() / 1000.0);
        slots -= 1;
        room = room.saturating_sub(block.body.chars().count());
        out.blocks.push(block);
    }
    ranking
}

/// The most of `room` one of the next `slots` files may take: twice an even share, so the
/// best files may still be shown at length while the later ones keep room to be shown at all
/// (a file ranked eighth, shown as a few windows, beats one not sent).
fn share(room: usize, slots: usize) -> usize {
    (room * 2 / (slots + 1)).max(MIN_RANKED_CHARS * 4)
}

/// The blocks and characters the diet leaves for ranked files, keeping room for the map.
fn room_left(blocks: &[Block], budget: &Budget) -> (usize, usize) {
    let counted = blocks
        .iter()
        .filter(|b| matches!(b.kind, BlockKind::File | BlockKind::Search | BlockKind::Log))
        .count();
    let log_chars: usize = blocks
        .iter()
        .filter(|b| b.kind == BlockKind::Log)
        .map(|b| b.body.chars().count())
        .sum();
    let other_chars: usize = blocks
        .iter()
        .filter(|b| b.kind != BlockKind::Log)
        .map(|b| b.body.chars().count().min(budget.max_file_chars))
        .sum();
    let slots = budget.max_files.saturating_sub(counted);
    let room = budget
        .max_total_chars
        .saturating_sub(other_chars + log_chars.min(budget.max_log_chars) + budget.map_chars);
    (slots, room)
}

fn present(blocks: &[Block], path: &str) -> bool {
    blocks
        .iter()
        .any(|b| b.kind == BlockKind::File && b.title == path)
}

/// A tree whose readable text fits whole is sent whole: the files the ranking left out come
/// after it.
fn whole_tree(
    corpus: &Corpus,
    private: &Private,
    blocks: &[Block],
    (slots, room): (usize, usize),
    order: &mut Vec<(usize, f64, String)>,
) {
    let readable: Vec<usize> = (0..corpus.len())
        .filter(|&f| private.allows(&corpus.paths[f]) && !present(blocks, &corpus.paths[f]))
        .collect();
    let whole_size: usize = readable.iter().map(|&f| corpus.text(f).len()).sum();
    if readable.len() <= slots && whole_size + SLACK * readable.len() <= room {
        for f in readable {
            if !order.iter().any(|o| o.0 == f) {
                order.push((f, 0.0, "the whole tree fits".to_string()));
            }
        }
    }
}
