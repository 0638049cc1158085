//! The context diet, exactly as the seeds say: at most 8 file-like blocks, 20,000 characters a
//! file, 12,000 of logs, 120,000 in all; over the limit, drop search hits first, then logs,
//! then low-priority files, read_file blocks last; a priority-0 file keeps at least 4,000
//! characters; truncation keeps the head and tail 60/40 around `...[TRUNCATED N chars]...`.

use serde::Serialize;

use super::{Block, BlockKind, Budget};

/// What a priority-0 file keeps at least.
pub const MIN_PRIORITY0_CHARS: usize = 4_000;

/// Room for the truncation marker: a block this close to the floor counts as at the floor.
const FLOOR_SLACK: usize = 64;

/// What the diet did, for the `CONTEXT_DIET_APPLIED` event and the trace's `context_stats`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DietReport {
    pub files: usize,
    pub dropped: Vec<String>,
    pub truncated: Vec<String>,
    pub total_chars: usize,
}

impl DietReport {
    pub fn applied(&self) -> bool {
        !self.dropped.is_empty() || !self.truncated.is_empty()
    }

    pub fn event_line(&self) -> String {
        format!(
            "CONTEXT_DIET_APPLIED files={} dropped={} truncated={} total_chars={}",
            self.files,
            self.dropped.len(),
            self.truncated.len(),
            self.total_chars
        )
    }
}

/// Longest marker `truncate` inserts (`\n...[TRUNCATED N chars]...\n` with N up to 20 digits).
const MARKER_MAX: usize = 44;

/// Cuts `text` to at most `max` characters, marker included: of what is kept, 60 % from the
/// head and 40 % from the tail, around `...[TRUNCATED N chars]...`.
pub fn truncate(text: &str, max: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= max {
        return text.to_string();
    }
    let keep = max.saturating_sub(MARKER_MAX);
    let cut = chars.len() - keep;
    let head = keep * 6 / 10;
    let tail = keep - head;
    let mut out: String = chars[..head].iter().collect();
    out.push_str(&format!("\n...[TRUNCATED {cut} chars]...\n"));
    out.extend(&chars[chars.len() - tail..]);
    out
}

fn shrink(block: &mut Block, max: usize, report: &mut DietReport) {
    if block.body.chars().count() > max {
        block.body = truncate(&block.body, max);
        block.truncated = true;
        if !report.truncated.contains(&block.title) {
            report.truncated.push(block.title.clone());
        }
    }
}

/// Counts toward the block limit (the map, env and architecture notes are small and kept).
fn counted(b: &Block) -> bool {
    matches!(b.kind, BlockKind::File | BlockKind::Search | BlockKind::Log)
}

/// Drop order: search hits, logs, low-priority files (highest priority number first, later
/// ones first), read_file/priority-0 blocks last.
fn drop_rank(b: &Block) -> (u8, u8) {
    match b.kind {
        BlockKind::Search => (0, 0),
        BlockKind::Log => (1, 0),
        BlockKind::File if b.priority > 0 => (2, u8::MAX - b.priority),
        _ => (3, 0),
    }
}

fn total(blocks: &[Block]) -> usize {
    blocks.iter().map(|b| b.body.chars().count()).sum()
}

/// Applies the limits; the blocks keep their order.
pub fn diet(mut blocks: Vec<Block>, budget: &Budget) -> (Vec<Block>, DietReport) {
    let mut report = DietReport::default();
    let mut log_chars = 0;
    for b in &mut blocks {
        match b.kind {
            BlockKind::Log => {
                let room = budget.max_log_chars.saturating_sub(log_chars);
                shrink(b, room.max(1), &mut report);
                log_chars += b.body.chars().count();
            }
            _ => shrink(b, budget.max_file_chars, &mut report),
        }
    }
    // Every pass drops a block or shrinks one by at least its excess, so this bound is never
    // reached; it is a guard, not a rule.
    for _ in 0..blocks.len() * 8 + 16 {
        let over_count = blocks.iter().filter(|b| counted(b)).count() > budget.max_files;
        let over_total = total(&blocks) > budget.max_total_chars;
        if !over_count && !over_total {
            break;
        }
        // Before dropping a priority-0 file, shrink priority-0 files toward their floor.
        let victim = blocks
            .iter()
            .enumerate()
            .filter(|(_, b)| counted(b) || over_total)
            .filter(|(_, b)| b.kind != BlockKind::Map || over_total)
            .min_by_key(|(i, b)| (drop_rank(b), std::cmp::Reverse(*i)))
            .map(|(i, _)| i);
        let Some(i) = victim else { break };
        if drop_rank(&blocks[i]).0 == 3 && !over_count {
            // Only must-keep blocks are left: shrink the largest toward the floor first.
            let largest = blocks
                .iter()
                .enumerate()
                .filter(|(_, b)| drop_rank(b).0 == 3)
                .map(|(j, b)| (b.body.chars().count(), j))
                .filter(|(len, _)| *len > MIN_PRIORITY0_CHARS + MARKER_MAX + FLOOR_SLACK)
                .max();
            if let Some((len, j)) = largest {
                let excess = total(&blocks) - budget.max_total_chars;
                let target = len
                    .saturating_sub(excess)
                    .max(MIN_PRIORITY0_CHARS + MARKER_MAX);
                shrink(&mut blocks[j], target, &mut report);
                continue;
            }
        }
        let removed = blocks.remove(i);
        report.dropped.push(removed.title);
    }
    report.files = blocks.iter().filter(|b| b.kind == BlockKind::File).count();
    report.total_chars = total(&blocks);
    (blocks, report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(kind: BlockKind, title: &str, priority: u8, len: usize) -> Block {
        Block {
            kind,
            title: title.to_string(),
            source: String::new(),
            priority,
            body: "x".repeat(len),
            full_chars: len,
            truncated: false,
            ranges: Vec::new(),
            blob: None,
            sha256: None,
            score: None,
        }
    }

    #[test]
    fn truncation_keeps_head_and_tail_60_40() {
        let text: String = ('a'..='z').cycle().take(1000).collect();
        let cut = truncate(&text, 144);
        assert!(cut.chars().count() <= 144);
        assert!(cut.starts_with(&text[..60]));
        assert!(cut.ends_with(&text[960..]));
        assert!(cut.contains("...[TRUNCATED 900 chars]..."));
    }

    #[test]
    fn files_are_cut_to_20000_and_logs_to_12000() {
        let (blocks, report) = diet(
            vec![
                block(BlockKind::File, "a", 0, 25_000),
                block(BlockKind::Log, "log", 2, 30_000),
            ],
            &Budget::default(),
        );
        let (file, log) = (
            blocks[0].body.chars().count(),
            blocks[1].body.chars().count(),
        );
        assert!((20_000 - MARKER_MAX..=20_000).contains(&file) && blocks[0].truncated);
        assert!((12_000 - MARKER_MAX..=12_000).contains(&log) && blocks[1].truncated);
        assert!(blocks[0].body.contains("...[TRUNCATED "));
        assert_eq!(report.truncated, ["a", "log"]);
    }

    #[test]
    fn the_seeds_limits_are_the_defaults() {
        let b = Budget::default();
        assert_eq!(
            (
                b.max_files,
                b.max_file_chars,
                b.max_total_chars,
                b.max_log_chars,
                b.map_chars
            ),
            (8, 20_000, 120_000, 12_000, 6_000)
        );
        assert_eq!(MIN_PRIORITY0_CHARS, 4_000);
    }

    #[test]
    fn the_total_stays_within_120000_dropping_low_priority_files_first() {
        let mut input = Vec::new();
        for i in 0..4 {
            input.push(block(BlockKind::File, &format!("p0-{i}"), 0, 20_000));
        }
        for i in 0..3 {
            input.push(block(BlockKind::File, &format!("p2-{i}"), 2, 20_000));
        }
        input.push(block(BlockKind::Search, "search", 3, 5_000));
        let (blocks, report) = diet(input, &Budget::default());
        assert!(report.total_chars <= 120_000, "{}", report.total_chars);
        assert_eq!(
            report.dropped,
            ["search", "p2-2"],
            "search first, then the last low file"
        );
        assert_eq!(blocks.len(), 6);
        assert!(blocks.iter().all(|b| !b.truncated), "dropping sufficed");
    }

    #[test]
    fn more_than_8_blocks_drop_search_then_logs_then_low_priority_files() {
        let mut input = vec![];
        for i in 0..6 {
            input.push(block(BlockKind::File, &format!("p0-{i}"), 0, 100));
        }
        input.push(block(BlockKind::File, "low", 2, 100));
        input.push(block(BlockKind::Log, "log", 2, 100));
        input.push(block(BlockKind::Search, "search", 3, 100));
        input.push(block(BlockKind::File, "mid", 1, 100));
        let (blocks, report) = diet(input, &Budget::default());
        assert_eq!(report.dropped, ["search", "log"]);
        assert_eq!(blocks.len(), 8);
        let mut input2 = blocks;
        input2.push(block(BlockKind::File, "extra", 0, 100));
        let (_, report) = diet(input2, &Budget::default());
        assert_eq!(report.dropped, ["low"]);
    }

    #[test]
    fn total_limit_keeps_4000_chars_of_priority_0_files() {
        let input = vec![
            block(BlockKind::File, "a", 0, 20_000),
            block(BlockKind::File, "b", 0, 20_000),
            block(BlockKind::File, "c", 1, 20_000),
        ];
        let budget = Budget {
            max_total_chars: 10_000,
            ..Budget::default()
        };
        let (blocks, report) = diet(input, &budget);
        assert!(report.dropped.contains(&"c".to_string()));
        for b in blocks.iter().filter(|b| b.priority == 0) {
            assert!(
                b.body.chars().count() >= MIN_PRIORITY0_CHARS,
                "{}",
                b.body.len()
            );
        }
        assert!(
            report
                .event_line()
                .starts_with("CONTEXT_DIET_APPLIED files=")
        );
    }
}
