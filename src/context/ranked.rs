//! Filling the room the other blocks leave with the tree's best-ranked files: the whole tree
//! when it fits, else the best files, whole when they fit, else as windows where the goal's
//! evidence lands ([`super::fill`]), each block's reason saying which lines were kept and why.

use super::copies::Copy;
use super::rank::{self, Ranking};
use super::{Block, BlockKind, Budget, Corpus, Gathered, Input, Private, Query, file_block};
use super::{fill, twins};
use crate::store::Snapshot;

/// The priority of a ranked block (dropped before what the goal and logs point at).
const RANKED_PRIORITY: u8 = 3;
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
    let (slots, room) = room_left(&out.blocks, budget);
    let mut order: Vec<(usize, f64, String)> = ranking
        .files
        .iter()
        .map(|r| (r.file, r.score, r.reasons.join("; ")))
        .collect();
    whole_tree(&corpus, private, &out.blocks, (slots, room), &mut order);
    defer_others(&corpus, &mut order);
    let mut fill = Filler {
        snap,
        corpus: &corpus,
        private,
        budget,
        matcher: rank::Matcher::new(&query),
        idf: &ranking.idf,
        slots,
        room,
        twins_sought: 0,
        copies: Vec::new(),
    };
    for (f, score, reason) in order {
        if !fill.has_room() {
            break;
        }
        if let Some(i) = pointed_lines(&out.blocks, &corpus.paths[f]) {
            fill.widen(f, i, &mut out.blocks);
            continue;
        }
        if present(&out.blocks, &corpus.paths[f]) {
            continue;
        }
        let Some((block, best_first)) = fill.ranked_block(f, score, &reason) else {
            continue;
        };
        fill.push(block, &mut out.blocks);
        fill.copy_of(f, &best_first, &mut out.blocks);
    }
    ranking
}

/// Ranked blocks whose twins (the same code in another file, [`twins`]) are sought, at most.
const TWINS_FROM: usize = 3;

/// The room left for ranked blocks, and how to make them.
struct Filler<'a> {
    snap: &'a Snapshot<'a>,
    corpus: &'a Corpus,
    private: &'a Private,
    budget: &'a Budget,
    matcher: rank::Matcher<'a>,
    idf: &'a [f64],
    slots: usize,
    room: usize,
    twins_sought: usize,
    /// The copies sent (single headers, amalgamations), with the parts they hold.
    copies: Vec<Copy>,
}

impl Filler<'_> {
    fn has_room(&self) -> bool {
        self.slots > 0 && self.room >= MIN_RANKED_CHARS
    }

    /// Characters the next block may take.
    fn allowance(&self) -> usize {
        self.budget
            .max_file_chars
            .min(self.room)
            .min(share(self.room, self.slots))
            .saturating_sub(SLACK)
    }

    fn push(&mut self, block: Block, blocks: &mut Vec<Block>) {
        self.slots = self.slots.saturating_sub(1);
        self.room = self.room.saturating_sub(block.body.chars().count());
        blocks.push(block);
    }

    /// Windows of file `f` (whose text is `text`) where the goal's evidence lands, after the
    /// `pinned` ones, within `chars`.
    fn windows(
        &self,
        f: usize,
        text: &str,
        pinned: (&[(u32, u32)], &str),
        chars: usize,
    ) -> fill::Shown {
        let anchors = self.matcher.anchors(self.corpus, f, self.idf);
        let defs = super::defs::parse(&self.corpus.paths[f], text);
        let describe = |a: &rank::Anchor| self.matcher.describe(a);
        let evidence = fill::Evidence {
            defs: &defs,
            anchors: &anchors,
            describe: &describe,
        };
        fill::windows(text, &evidence, pinned, chars)
    }

    /// Widens the block `blocks[i]` of file `f`, sent as the lines a log or a failing test
    /// points at, with the windows where the goal's evidence lands (or whole, when it fits),
    /// within the room a new block would have: the frame a traceback names is often the caller,
    /// and the fix is elsewhere in the same file.
    fn widen(&mut self, f: usize, i: usize, blocks: &mut [Block]) {
        let old = &blocks[i];
        let old_chars = old.body.chars().count();
        let most = self.budget.max_file_chars.saturating_sub(SLACK);
        let chars = (old_chars + self.allowance()).min(most);
        if chars <= old_chars {
            return;
        }
        let text = String::from_utf8_lossy(self.corpus.text(f));
        let (windows, source) = if text.chars().count() <= chars {
            (Vec::new(), old.source.clone())
        } else {
            let shown = self.windows(f, &text, (&old.ranges, "the lines pointed at"), chars);
            (shown.ranges, format!("{}; {}", old.source, shown.reason))
        };
        let Some(block) = file_block(self.snap, &old.title, &windows, &source, old.priority) else {
            return;
        };
        self.room = (self.room + old_chars).saturating_sub(block.body.chars().count());
        blocks[i] = block;
    }

    /// File `f`'s block: whole when it fits its allowance, else windows where the goal's
    /// evidence lands; with its windows, those kept for the best reasons first.
    fn ranked_block(&self, f: usize, score: f64, reason: &str) -> Option<(Block, Vec<(u32, u32)>)> {
        let path = &self.corpus.paths[f];
        let allowance = self.allowance();
        let text = String::from_utf8_lossy(self.corpus.text(f));
        let (windows, best_first, reason) = if text.chars().count() <= allowance {
            (Vec::new(), Vec::new(), reason.to_string())
        } else {
            let shown = self.windows(f, &text, (&[], ""), allowance);
            let reason = format!("{reason}; {}", shown.reason);
            (shown.ranges, shown.best_first, reason)
        };
        let mut block = file_block(self.snap, path, &windows, &reason, RANKED_PRIORITY)?;
        block.score = Some((score * 1000.0).round() / 1000.0);
        Some((block, best_first))
    }

    /// The lines of another file holding the code shown of file `f` (`best_first`: its
    /// windows, those kept for the best reasons first; empty: the whole file): added to the
    /// block of a copy already sent that holds them, else sent as a new block when a file
    /// holds them (an amalgamation and the header it was built from), fits, and is not sent.
    fn copy_of(&mut self, f: usize, best_first: &[(u32, u32)], blocks: &mut Vec<Block>) {
        let corpus = self.corpus;
        if !twins::may_have_twin(&corpus.paths[f]) {
            return;
        }
        for copy in &mut self.copies {
            if let Some(windows) = twins::windows_in(corpus, f, best_first, copy.file) {
                // As much again as the part was shown, within its share of the room left.
                let part = blocks.last().map_or(0, |b| b.body.chars().count());
                copy.add(f, windows, part.min(share(self.room, self.slots.max(1))));
                if let Some(block) = copy.block(self.snap, corpus) {
                    let (old, new) = (
                        blocks[copy.block].body.chars().count(),
                        block.body.chars().count(),
                    );
                    self.room = (self.room + old).saturating_sub(new);
                    blocks[copy.block] = block;
                }
                return;
            }
        }
        self.new_copy(f, best_first, blocks);
    }

    /// A copy of the code shown of `f` not sent yet, as a new block.
    fn new_copy(&mut self, f: usize, best_first: &[(u32, u32)], blocks: &mut Vec<Block>) {
        if self.twins_sought >= TWINS_FROM || self.slots == 0 {
            return;
        }
        self.twins_sought += 1;
        let corpus = self.corpus;
        let allowed = |g: usize| {
            let path = &corpus.paths[g];
            may_be_copy(path, corpus.text(g)) && self.private.allows(path) && !present(blocks, path)
        };
        let Some(twin) = twins::twin(corpus, f, best_first, &allowed) else {
            return;
        };
        // The copy is worth what the part is: as many characters, within the room left.
        let shown = blocks.last().map_or(0, |b| b.body.chars().count());
        let allowance = (shown + SLACK)
            .max(share(self.room, self.slots))
            .min(self.budget.max_file_chars)
            .min(self.room)
            .saturating_sub(SLACK);
        let most = self.budget.max_file_chars.saturating_sub(SLACK);
        let mut copy = Copy::new(twin.file, blocks.len(), allowance, most);
        copy.add(f, twin.windows, 0);
        if let Some(block) = copy.block(self.snap, corpus) {
            self.copies.push(copy);
            self.push(block, blocks);
        }
    }
}

/// Whether a file may be sent as the copy of a part's code: C or C++ code of the project, not a
/// test nor a library kept in the tree (a vendored header the single-header build also holds is
/// not what a fix of the part changes).
fn may_be_copy(path: &str, text: &[u8]) -> bool {
    twins::may_have_twin(path)
        && rank::is_code(path, text)
        && !rank::is_test_path(&path.to_lowercase())
        && !rank::is_vendored(path)
}

/// Ranked files that are not code (documentation, configuration, build metadata, licences,
/// data), and tests, given a block before any code file ranked below them, at most; the rest
/// wait behind the code files worth more than [`DEFERRED`] of their score. A fix changes code:
/// a README, a gemspec or a LICENSE that repeats the goal's words took a block from the second
/// file of a fix (a goal that names its path sends it as a file it points at), and the tests of the
/// module a fix changes are worth two blocks, not six.
const MAX_OTHER: usize = 0;
const MAX_TESTS: usize = 2;
const DEFERRED: f64 = 0.25;

/// Moves the ranked files that are not code, past the first [`MAX_OTHER`], and tests, past
/// the first [`MAX_TESTS`], behind the code files worth more than [`DEFERRED`] of their score.
fn defer_others(corpus: &Corpus, order: &mut Vec<(usize, f64, String)>) {
    let (mut others, mut tests) = (0, 0);
    let mut keyed: Vec<(f64, (usize, f64, String))> = order
        .drain(..)
        .map(|o| {
            let path = &corpus.paths[o.0];
            let past = if !rank::is_code(path, corpus.text(o.0)) {
                others += 1;
                others > MAX_OTHER
            } else if rank::is_test_path(&path.to_lowercase()) {
                tests += 1;
                tests > MAX_TESTS
            } else {
                false
            };
            let key = if past { o.1 * DEFERRED } else { o.1 };
            (key, o)
        })
        .collect();
    keyed.sort_by(|a, b| b.0.total_cmp(&a.0));
    order.extend(keyed.into_iter().map(|(_, o)| o));
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

/// The block of `path` sent as the lines the goal or a log points at (not whole, not a copy
/// nor a ranked block), if any.
fn pointed_lines(blocks: &[Block], path: &str) -> Option<usize> {
    blocks.iter().position(|b| {
        b.kind == BlockKind::File
            && b.title == path
            && b.priority < RANKED_PRIORITY
            && !b.ranges.is_empty()
            && b.ranges != [(0, 0)]
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_is_the_projects_own_c_or_cpp_code() {
        assert!(may_be_copy("single_include/lib/lib.hpp", b"int x;\n"));
        assert!(!may_be_copy(
            "include/lib/thirdparty/hedley/hedley.hpp",
            b"int x;\n"
        ));
        assert!(!may_be_copy("tests/src/unit.cpp", b"int x;\n"));
        assert!(!may_be_copy("src/lib.py", b"x = 1\n"));
    }

    #[test]
    fn documents_and_tests_past_the_first_two_wait_behind_the_code() {
        let files = [
            ("README.md", "the cache\n"),
            ("src/cache.rs", "fn cache() {}\n"),
            ("docs/cache.md", "the cache\n"),
            ("config.json", "{\"cache\": 1}\n"),
            ("tests/a_test.rs", "fn a() {}\n"),
            ("tests/b_test.rs", "fn b() {}\n"),
            ("tests/c_test.rs", "fn c() {}\n"),
            ("src/store.rs", "fn store() {}\n"),
            ("scripts/build", "#!/bin/sh\necho cache\n"),
        ];
        let corpus = Corpus::of_files(files.iter().map(|(p, t)| {
            (
                p.to_string(),
                super::super::corpus::test_id(t.as_bytes()),
                t.as_bytes(),
            )
        }));
        let scores = [10.0, 9.0, 8.0, 7.0, 6.0, 5.5, 5.0, 3.0, 2.9];
        let mut order: Vec<(usize, f64, String)> = scores
            .iter()
            .enumerate()
            .map(|(i, s)| (i, *s, String::new()))
            .collect();
        defer_others(&corpus, &mut order);
        let paths: Vec<&str> = order.iter().map(|o| corpus.paths[o.0].as_str()).collect();
        assert_eq!(
            paths,
            [
                "src/cache.rs",
                "tests/a_test.rs",
                "tests/b_test.rs",
                "src/store.rs",
                "scripts/build",
                "README.md",
                "docs/cache.md",
                "config.json",
                "tests/c_test.rs",
            ]
        );
    }
}
