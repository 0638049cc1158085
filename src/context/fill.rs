//! Choosing what of a long file to show: line windows around its anchors (the definitions the
//! goal names, its quoted strings, its terms), best first, until the characters allowed are
//! spent. A file that fits is shown whole; a long one is never cut blindly head and tail.

use super::rank::Anchor;

/// Lines shown before and after a definition the goal names (its body follows it).
const DEF_BEFORE: u32 = 3;
const DEF_AFTER: u32 = 100;
/// Lines shown around any other anchor.
const AROUND: u32 = 20;
/// The file's first lines (imports, module docs), shown when there is room.
const HEAD: u32 = 20;
/// Characters a `... lines a-b of N:` header costs, at most.
const HEADER: usize = 40;

/// Line windows of `text` (1-based, inclusive, merged) whose rendering fits `chars`.
pub fn windows(text: &str, anchors: &[Anchor], chars: usize) -> Vec<(u32, u32)> {
    let lengths: Vec<usize> = text
        .split_inclusive('\n')
        .map(|l| l.chars().count())
        .collect();
    let total = lengths.len() as u32;
    if total == 0 {
        return Vec::new();
    }
    // One candidate per anchored line, its weight the sum of the line's anchors.
    let mut by_line: Vec<(u32, f64, bool)> = Vec::new();
    for a in anchors {
        match by_line.iter_mut().find(|c| c.0 == a.line) {
            Some(c) => {
                c.1 += a.weight;
                c.2 |= a.definition;
            }
            None => by_line.push((a.line, a.weight, a.definition)),
        }
    }
    by_line.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut candidates: Vec<(u32, u32)> = by_line
        .iter()
        .map(|&(line, _, definition)| {
            if definition {
                (line.saturating_sub(DEF_BEFORE).max(1), line + DEF_AFTER)
            } else {
                (line.saturating_sub(AROUND).max(1), line + AROUND)
            }
        })
        .collect();
    candidates.insert(candidates.len().min(2), (1, HEAD));
    let mut shown = vec![false; total as usize + 1];
    let mut cost = 0usize;
    for (a, b) in candidates {
        let b = b.min(total);
        let mut added = 0;
        let mut end = a;
        // Take the window's lines in order while they fit (a window may be cut short).
        for line in a..=b {
            if shown[line as usize] {
                end = line;
                continue;
            }
            let extra = lengths[(line - 1) as usize] + if line == a { HEADER } else { 0 };
            if cost + added + extra > chars {
                break;
            }
            added += extra;
            end = line;
        }
        if end < a || added == 0 {
            continue;
        }
        for line in a..=end {
            shown[line as usize] = true;
        }
        cost += added;
        if chars.saturating_sub(cost) < HEADER * 2 {
            break;
        }
    }
    // Room left once every anchor has its window: widen the windows evenly, so what surrounds
    // each match is shown rather than nothing.
    let mut grown = true;
    while grown && chars.saturating_sub(cost) > HEADER {
        grown = false;
        let edges: Vec<u32> = (1..=total)
            .filter(|&l| {
                !shown[l as usize]
                    && (shown[(l - 1) as usize] && l > 1 || (l < total && shown[(l + 1) as usize]))
            })
            .collect();
        for line in edges {
            let extra = lengths[(line - 1) as usize];
            if cost + extra > chars {
                continue;
            }
            shown[line as usize] = true;
            cost += extra;
            grown = true;
        }
    }
    let mut out: Vec<(u32, u32)> = Vec::new();
    for line in 1..=total {
        if !shown[line as usize] {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.1 + 1 == line => last.1 = line,
            _ => out.push((line, line)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anchor(line: u32, weight: f64, definition: bool) -> Anchor {
        Anchor {
            line,
            weight,
            definition,
        }
    }

    #[test]
    fn the_definition_and_its_body_come_first_then_the_head() {
        let text: String = (1..=1000).map(|i| format!("line {i:04}\n")).collect();
        let w = windows(
            &text,
            &[anchor(500, 10.0, true), anchor(900, 1.0, false)],
            2_000,
        );
        assert!(w[0].0 <= 20 && w[1].0 <= 497 && w[1].1 >= 520, "{w:?}");
        let shown: usize = w.iter().map(|(a, b)| (b - a + 1) as usize * 10).sum();
        assert!(shown + w.len() * HEADER <= 2_000);
    }

    #[test]
    fn windows_stay_within_the_characters_allowed() {
        let text: String = (1..=5000)
            .map(|i| format!("{}\n", "x".repeat(i % 90)))
            .collect();
        let anchors: Vec<Anchor> = (1..50)
            .map(|i| anchor(i * 97, f64::from(i), i % 3 == 0))
            .collect();
        for chars in [500, 4_000, 20_000] {
            let w = windows(&text, &anchors, chars);
            let lines: Vec<&str> = text.split_inclusive('\n').collect();
            let cost: usize = w
                .iter()
                .map(|&(a, b)| HEADER + lines[(a - 1) as usize..b as usize].concat().len())
                .sum();
            assert!(cost <= chars, "{cost} > {chars}");
            assert!(
                cost * 10 >= chars * 7,
                "the room is used: {cost} of {chars}"
            );
        }
    }
}
