//! Choosing what of a long file to show: small line windows where the goal's evidence lands —
//! the whole of a definition the goal names (its real extent, from [`super::defs`]), ±15 lines
//! around its quoted strings and words with the signature of the definition they sit in — best
//! first, the file's first lines after the three best, until the characters allowed are spent
//! (a window near one already kept joins it); then every window widens evenly. A file that fits is shown whole; a long one is never cut
//! blindly head and tail. What was kept, and why, is said in the block's reason.

use super::defs::Def;
use super::rank::Anchor;

/// Lines shown before a definition the goal names (its doc comment, decorators).
const DEF_BEFORE: u32 = 3;
/// Most lines of a named definition shown from its start.
const DEF_MAX: u32 = 120;
/// Lines after a named definition that the definitions reader did not find.
const DEF_AFTER: u32 = 100;
/// Lines shown around any other anchor.
const AROUND: u32 = 15;
/// Lines of an enclosing definition's signature shown above a window inside it.
const SIGNATURE: u32 = 2;
/// The file's first lines (imports, module docs), shown when there is room.
const HEAD: u32 = 15;
/// Windows taken before the file's head.
const BEFORE_HEAD: usize = 3;
/// Lines between two windows shown rather than a second window.
const BRIDGE: u32 = 20;
/// Characters a `... lines a-b of N:` header costs, at most.
const HEADER: usize = 40;
/// Ranges and reasons a block's reason names, at most.
const SAID: usize = 4;

/// Lines to show, and why.
#[derive(Debug, Default, PartialEq)]
pub struct Shown {
    /// 1-based, inclusive, merged.
    pub ranges: Vec<(u32, u32)>,
    /// `kept 120-190 (defines parse_port), 400-431 (contains "Invalid port", in url_parse)`.
    pub reason: String,
    /// The ranges again, those whose reasons rank best first.
    pub best_first: Vec<(u32, u32)>,
}

/// A window wanted, with why.
#[derive(Debug, Clone)]
struct Seed {
    start: u32,
    end: u32,
    why: String,
}

/// The evidence of one file: its definitions, where the goal's words land in it, and how to
/// say why a line was kept.
pub struct Evidence<'a> {
    pub defs: &'a [Def],
    pub anchors: &'a [Anchor],
    pub describe: &'a dyn Fn(&Anchor) -> String,
}

/// Line windows of `text` whose rendering fits `chars`: `pinned` first (the lines a log
/// names, kept for `pinned_why`), then where the evidence lands.
pub fn windows(
    text: &str,
    evidence: &Evidence<'_>,
    (pinned, pinned_why): (&[(u32, u32)], &str),
    chars: usize,
) -> Shown {
    let Evidence {
        defs,
        anchors,
        describe,
    } = *evidence;
    let lengths: Vec<usize> = text
        .split_inclusive('\n')
        .map(|l| l.chars().count())
        .collect();
    let total = lengths.len() as u32;
    if total == 0 {
        return Shown::default();
    }
    let mut room = Room {
        lengths: &lengths,
        shown: vec![false; total as usize + 1],
        why: vec![None; total as usize + 1],
        cost: 0,
        chars,
    };
    let mut seeds: Vec<Seed> = pinned
        .iter()
        .map(|&(start, end)| Seed {
            start,
            end,
            why: pinned_why.to_string(),
        })
        .collect();
    seeds.extend(self::seeds(anchors, defs, describe));
    for (i, seed) in seeds.iter().enumerate() {
        room.take(seed, i);
        if chars.saturating_sub(room.cost) < HEADER * 2 {
            break;
        }
    }
    room.widen();
    let (ranges, seeds_in) = room.finish();
    let order = best_first(&seeds_in);
    Shown {
        reason: reason(&ranges, &seeds_in, &order, &seeds),
        best_first: order.iter().map(|&i| ranges[i]).collect(),
        ranges,
    }
}

/// The windows the anchors want, best first, the file's head among them.
fn seeds(anchors: &[Anchor], defs: &[Def], describe: &dyn Fn(&Anchor) -> String) -> Vec<Seed> {
    // One candidate per anchored line: the sum of its weights, described by its strongest.
    let mut by_line: Vec<(u32, f64, &Anchor)> = Vec::new();
    for a in anchors {
        match by_line.iter_mut().find(|c| c.0 == a.line) {
            Some(c) => {
                c.1 += a.weight;
                if a.weight > c.2.weight || a.definition && !c.2.definition {
                    c.2 = a;
                }
            }
            None => by_line.push((a.line, a.weight, a)),
        }
    }
    by_line.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut seeds = Vec::new();
    for (line, _, anchor) in by_line {
        let why = describe(anchor);
        if anchor.definition {
            seeds.push(definition_seed(line, defs, why));
        } else {
            seeds.extend(evidence_seeds(line, defs, why));
        }
    }
    let head = Seed {
        start: 1,
        end: HEAD,
        why: "the file's head".to_string(),
    };
    seeds.insert(seeds.len().min(BEFORE_HEAD), head);
    seeds
}

/// A named definition: its whole extent (from a little before, for its doc, to the line after
/// it, where what is added after it goes), up to [`DEF_MAX`] lines.
fn definition_seed(line: u32, defs: &[Def], why: String) -> Seed {
    let start = line.saturating_sub(DEF_BEFORE).max(1);
    match defs
        .iter()
        .find(|d| d.line <= line && line <= d.line + 2 && d.end >= line)
    {
        Some(d) => Seed {
            start: d.line.saturating_sub(DEF_BEFORE).max(1),
            end: (d.end + 1).min(d.line + DEF_MAX),
            why,
        },
        None => Seed {
            start,
            end: line + DEF_AFTER,
            why,
        },
    }
}

/// Lines around other evidence, and the signature of the innermost definition it sits in when
/// that starts above the window. A window cut at the end of that definition keeps the line
/// after it: where a statement or a definition added after it goes.
fn evidence_seeds(line: u32, defs: &[Def], why: String) -> Vec<Seed> {
    let start = line.saturating_sub(AROUND).max(1);
    let inside = defs
        .iter()
        .filter(|d| d.line < line && line <= d.end)
        .max_by_key(|d| d.line);
    let Some(def) = inside.filter(|d| d.line < start && !d.name.is_empty()) else {
        return vec![Seed {
            start,
            end: line + AROUND,
            why,
        }];
    };
    vec![
        Seed {
            start,
            end: (line + AROUND).min(def.end + 1),
            why: format!("{why}, in {}", def.name),
        },
        Seed {
            start: def.line,
            end: def.line + SIGNATURE - 1,
            why: format!("the signature of {}", def.name),
        },
    ]
}

/// The lines chosen so far, and what they cost.
struct Room<'a> {
    lengths: &'a [usize],
    shown: Vec<bool>,
    /// For each line, the seed that first showed it.
    why: Vec<Option<usize>>,
    cost: usize,
    chars: usize,
}

impl Room<'_> {
    fn total(&self) -> u32 {
        self.lengths.len() as u32
    }

    /// Takes a seed's lines in order while they fit (a window may be cut short). A window
    /// within [`BRIDGE`] lines of one already shown joins it: the code between two places the
    /// goal is about, so close together, is most often what ties them (measured: the changed
    /// lines shown rose on every language set).
    fn take(&mut self, seed: &Seed, index: usize) {
        let (a, b) = self.bridged(seed.start.max(1), seed.end.min(self.total()));
        let mut added = 0;
        let mut end = a;
        for line in a..=b {
            if self.shown[line as usize] {
                end = line;
                continue;
            }
            let extra = self.lengths[(line - 1) as usize] + if line == a { HEADER } else { 0 };
            if self.cost + added + extra > self.chars {
                break;
            }
            added += extra;
            end = line;
        }
        if end < a || added == 0 {
            return;
        }
        for line in a..=end {
            if !self.shown[line as usize] {
                self.shown[line as usize] = true;
                self.why[line as usize] = Some(index);
            }
        }
        self.cost += added;
    }

    /// Lines `a..=b` joined to the windows shown within [`BRIDGE`] lines of them, when the whole
    /// fits the room left; else `a..=b` as they are (the lines between never take the room of
    /// the window's own).
    fn bridged(&self, a: u32, b: u32) -> (u32, u32) {
        let from = (a.saturating_sub(BRIDGE).max(1)..a)
            .find(|&l| self.shown[l as usize])
            .map_or(a, |l| l + 1);
        let to = (b + 1..=(b + BRIDGE).min(self.total()))
            .rev()
            .find(|&l| self.shown[l as usize])
            .map_or(b, |l| l - 1);
        let cost: usize = (from..=to)
            .filter(|&l| !self.shown[l as usize])
            .map(|l| self.lengths[(l - 1) as usize])
            .sum();
        if (from, to) != (a, b) && self.cost + cost + HEADER <= self.chars {
            (from, to)
        } else {
            (a, b)
        }
    }

    /// Room left once every anchor has its window: widen the windows evenly, so what surrounds
    /// each match is shown rather than nothing.
    fn widen(&mut self) {
        let total = self.total();
        let mut grown = true;
        while grown && self.chars.saturating_sub(self.cost) > HEADER {
            grown = false;
            let shown = &self.shown;
            let edges: Vec<u32> = (1..=total)
                .filter(|&l| {
                    !shown[l as usize]
                        && (l > 1 && shown[(l - 1) as usize]
                            || l < total && shown[(l + 1) as usize])
                })
                .collect();
            for line in edges {
                let extra = self.lengths[(line - 1) as usize];
                if self.cost + extra > self.chars {
                    continue;
                }
                self.shown[line as usize] = true;
                self.cost += extra;
                grown = true;
            }
        }
    }

    /// The merged ranges, each with the seeds that chose its lines (best first).
    fn finish(self) -> (Vec<(u32, u32)>, Vec<Vec<usize>>) {
        let mut ranges: Vec<(u32, u32)> = Vec::new();
        let mut seeds_in: Vec<Vec<usize>> = Vec::new();
        for line in 1..=self.total() {
            if !self.shown[line as usize] {
                continue;
            }
            match ranges.last_mut() {
                Some(last) if last.1 + 1 == line => last.1 = line,
                _ => {
                    ranges.push((line, line));
                    seeds_in.push(Vec::new());
                }
            }
            if let (Some(seed), Some(list)) = (self.why[line as usize], seeds_in.last_mut())
                && !list.contains(&seed)
            {
                list.push(seed);
            }
        }
        for list in &mut seeds_in {
            list.sort_unstable();
        }
        (ranges, seeds_in)
    }
}

/// The ranges' indices, those whose best seed ranks best first.
fn best_first(seeds_in: &[Vec<usize>]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..seeds_in.len()).collect();
    order.sort_by_key(|&i| seeds_in[i].first().copied().unwrap_or(usize::MAX));
    order
}

/// `kept 400-431 (defines parse_port), 1-28 (the file's head), …`: the ranges whose seeds rank
/// best, each with up to two of its reasons.
fn reason(
    ranges: &[(u32, u32)],
    seeds_in: &[Vec<usize>],
    order: &[usize],
    seeds: &[Seed],
) -> String {
    let said: Vec<String> = order
        .iter()
        .take(SAID)
        .map(|&i| {
            let (a, b) = ranges[i];
            let mut whys: Vec<&str> = Vec::new();
            for why in seeds_in[i].iter().map(|&s| seeds[s].why.as_str()) {
                if whys.len() < 2 && !whys.contains(&why) {
                    whys.push(why);
                }
            }
            if whys.is_empty() {
                format!("{a}-{b}")
            } else {
                format!("{a}-{b} ({})", whys.join("; "))
            }
        })
        .collect();
    let more = if ranges.len() > SAID { ", …" } else { "" };
    format!("kept {}{more}", said.join(", "))
}

#[cfg(test)]
mod tests {
    use super::super::defs::Kind;
    use super::super::rank::Mark;
    use super::*;

    fn anchor(line: u32, weight: f64, definition: bool) -> Anchor {
        Anchor {
            line,
            weight,
            definition,
            mark: Mark::Term(0),
        }
    }

    fn def(name: &str, line: u32, end: u32) -> Def {
        Def {
            name: name.to_string(),
            kind: Kind::Function,
            line,
            end,
            depth: 0,
            signature: format!("fn {name}()"),
        }
    }

    fn what(a: &Anchor) -> String {
        if a.definition {
            "defines it"
        } else {
            "uses it"
        }
        .to_string()
    }

    fn shown(text: &str, defs: &[Def], anchors: &[Anchor], chars: usize) -> Shown {
        let evidence = Evidence {
            defs,
            anchors,
            describe: &what,
        };
        windows(text, &evidence, (&[], ""), chars)
    }

    #[test]
    fn the_lines_a_log_names_come_first_then_the_evidence() {
        let text: String = (1..=3000).map(|i| format!("line {i:04}\n")).collect();
        let defs = [def("format_error", 1200, 1290)];
        let anchors = [anchor(1264, 5.0, false)];
        let evidence = Evidence {
            defs: &defs,
            anchors: &anchors,
            describe: &what,
        };
        let shown = windows(
            &text,
            &evidence,
            (&[(1695, 1855)], "the lines the log names"),
            4_000,
        );
        let w = &shown.ranges;
        assert!(w.contains(&(1695, 1855)) || w.iter().any(|&(a, b)| a <= 1695 && b >= 1855));
        assert!(w.iter().any(|&(a, b)| a <= 1249 && b >= 1279), "{w:?}");
        let first = shown.reason.split(", ").next().unwrap_or("");
        assert!(
            first.starts_with("kept ") && first.ends_with("(the lines the log names)"),
            "{}",
            shown.reason
        );
    }

    #[test]
    fn a_window_cut_at_its_definitions_end_keeps_the_line_after_it() {
        let defs = [def("spawn", 100, 290), def("next", 292, 400)];
        let seeds = evidence_seeds(285, &defs, "uses it".to_string());
        assert_eq!((seeds[0].start, seeds[0].end), (270, 291));
        assert_eq!(seeds[1].why, "the signature of spawn");
        let named = definition_seed(292, &defs, "defines next".to_string());
        assert_eq!((named.start, named.end), (289, 401));
        let short = definition_seed(100, &[def("short", 100, 110)], String::new());
        assert_eq!(short.end, 111);
    }

    #[test]
    fn windows_a_few_lines_apart_are_joined_by_the_lines_between() {
        let text: String = (1..=1000).map(|i| format!("line {i:04}\n")).collect();
        let anchors = [anchor(100, 5.0, false), anchor(140, 4.0, false)];
        let w = shown(&text, &[], &anchors, 1_000).ranges;
        assert!(w.iter().any(|&(a, b)| a <= 85 && b >= 155), "{w:?}");
        // Without room for the lines between, the window keeps its own lines.
        let w = shown(&text, &[], &anchors, 720).ranges;
        assert!(w.iter().any(|&(a, b)| a <= 125 && b >= 155), "{w:?}");
        // Far apart, two windows.
        let anchors = [anchor(100, 5.0, false), anchor(400, 4.0, false)];
        let w = shown(&text, &[], &anchors, 1_000).ranges;
        assert!(!w.iter().any(|&(a, b)| a <= 100 && b >= 400), "{w:?}");
    }

    #[test]
    fn a_named_definition_is_shown_to_its_end_then_the_head() {
        let text: String = (1..=1000).map(|i| format!("line {i:04}\n")).collect();
        let defs = [def("long", 500, 610)];
        let anchors = [anchor(500, 10.0, true), anchor(900, 1.0, false)];
        let w = shown(&text, &defs, &anchors, 2_000).ranges;
        assert!(w[0].0 <= 20, "{w:?}");
        assert!(
            w.iter().any(|&(a, b)| a <= 497 && b >= 610),
            "to its end: {w:?}"
        );
        let shown: usize = w.iter().map(|(a, b)| (b - a + 1) as usize * 10).sum();
        assert!(shown + w.len() * HEADER <= 2_000);
    }

    #[test]
    fn evidence_in_the_middle_of_a_long_function_comes_with_its_signature() {
        let text: String = (1..=2000).map(|i| format!("line {i:04}\n")).collect();
        let defs = [def("url_parse", 100, 700), def("other", 800, 900)];
        let anchors = [anchor(420, 5.0, false), anchor(850, 1.0, false)];
        let shown = self::shown(&text, &defs, &anchors, 1_200);
        let w = &shown.ranges;
        assert!(
            w.iter().any(|&(a, b)| a <= 100 && b >= 101),
            "signature: {w:?}"
        );
        assert!(
            w.iter().any(|&(a, b)| a <= 405 && b >= 435),
            "around: {w:?}"
        );
        assert!(
            shown.reason.starts_with("kept ")
                && shown.reason.contains("uses it, in url_parse")
                && shown.reason.contains("the signature of url_parse"),
            "{}",
            shown.reason
        );
    }

    #[test]
    fn windows_stay_within_the_characters_allowed() {
        let text: String = (1..=5000)
            .map(|i| format!("{}\n", "x".repeat(i % 90)))
            .collect();
        let anchors: Vec<Anchor> = (1..50)
            .map(|i| anchor(i * 97, f64::from(i), i % 3 == 0))
            .collect();
        let defs: Vec<Def> = (1..50).map(|i| def("f", i * 97, i * 97 + 150)).collect();
        for chars in [500, 4_000, 20_000] {
            let w = shown(&text, &defs, &anchors, chars).ranges;
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
