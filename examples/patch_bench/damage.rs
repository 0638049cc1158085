//! Correct diffs between real file versions, and the ways a model damages them.
//!
//! Every case says what the right answer is: the expected new text for damage the engine
//! should see through, or `None` when the only right answer is a refusal.

/// A small deterministic generator (xorshift64*), so every run builds the same cases.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: &str) -> Rng {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in seed.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
        Rng(h | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    pub fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
}

#[derive(Clone)]
pub struct DLine {
    pub kind: char,
    pub text: String,
    pub no_eol: bool,
}

#[derive(Clone)]
pub struct DHunk {
    pub old_start: usize,
    pub old_len: usize,
    pub new_start: usize,
    pub new_len: usize,
    pub lines: Vec<DLine>,
}

#[derive(Clone)]
pub struct Diff {
    pub hunks: Vec<DHunk>,
}

impl Diff {
    /// The diff diffy makes (three lines of context).
    pub fn between(old: &str, new: &str) -> Diff {
        let patch = diffy::create_patch(old, new);
        let hunks = patch
            .hunks()
            .iter()
            .map(|h| {
                let lines = h
                    .lines()
                    .iter()
                    .map(|l| {
                        let (kind, raw) = match l {
                            diffy::Line::Context(t) => (' ', *t),
                            diffy::Line::Delete(t) => ('-', *t),
                            diffy::Line::Insert(t) => ('+', *t),
                        };
                        let text = raw.strip_suffix('\n').unwrap_or(raw);
                        DLine {
                            kind,
                            text: text.to_string(),
                            no_eol: !raw.ends_with('\n'),
                        }
                    })
                    .collect();
                DHunk {
                    old_start: h.old_range().start(),
                    old_len: h.old_range().len(),
                    new_start: h.new_range().start(),
                    new_len: h.new_range().len(),
                    lines,
                }
            })
            .collect();
        Diff { hunks }
    }

    fn body(&self, out: &mut String, numbers: bool) {
        for h in &self.hunks {
            if numbers {
                out.push_str(&format!(
                    "@@ -{},{} +{},{} @@\n",
                    h.old_start, h.old_len, h.new_start, h.new_len
                ));
            } else {
                out.push_str("@@\n");
            }
            for l in &h.lines {
                if l.kind == '?' {
                    out.push_str(&l.text);
                } else {
                    out.push(l.kind);
                    out.push_str(&l.text);
                }
                out.push('\n');
                if l.no_eol {
                    out.push_str("\\ No newline at end of file\n");
                }
            }
        }
    }

    /// A git-style diff of the file `f`.
    pub fn render(&self, numbers: bool) -> String {
        let mut out = String::from("--- a/f\n+++ b/f\n");
        self.body(&mut out, numbers);
        out
    }

    /// The `*** Begin Patch` envelope (no line numbers).
    pub fn render_codex(&self) -> String {
        let mut out = String::from("*** Begin Patch\n*** Update File: f\n");
        for h in &self.hunks {
            out.push_str("@@\n");
            for l in &h.lines {
                out.push(l.kind);
                out.push_str(&l.text);
                out.push('\n');
            }
        }
        out.push_str("*** End Patch\n");
        out
    }

    fn context_lines(&mut self) -> impl Iterator<Item = &mut DLine> {
        self.hunks
            .iter_mut()
            .flat_map(|h| h.lines.iter_mut())
            .filter(|l| l.kind == ' ')
    }
}

/// What a case expects of an applier.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// Damage an applier should see through.
    Recoverable,
    /// Context that fits in two places with no usable hint: must be refused.
    Ambiguous,
    /// Wrong content or the wrong file (or damage refused by design): must be refused.
    ShouldFail,
}

pub struct Case {
    pub category: &'static str,
    pub expect: Expect,
    pub original: String,
    pub diff: String,
    /// The right result, or `None` when the right answer is a refusal.
    pub expected: Option<String>,
}

/// Every category, in report order.
pub const CATEGORIES: &[(&str, Expect)] = &[
    ("clean", Expect::Recoverable),
    ("wrong_numbers", Expect::Recoverable),
    ("no_numbers", Expect::Recoverable),
    ("wrong_counts", Expect::Recoverable),
    ("trailing_ws", Expect::Recoverable),
    ("tabs_spaces", Expect::Recoverable),
    ("reindented_hunk", Expect::Recoverable),
    ("dropped_context", Expect::Recoverable),
    ("garbled_outer_context", Expect::Recoverable),
    ("blank_lines", Expect::Recoverable),
    ("blank_lost_space", Expect::Recoverable),
    ("drifted_file", Expect::Recoverable),
    ("crlf_file", Expect::Recoverable),
    ("final_newline", Expect::Recoverable),
    ("unicode_punct", Expect::Recoverable),
    ("fenced", Expect::Recoverable),
    ("codex_envelope", Expect::Recoverable),
    ("combined", Expect::Recoverable),
    ("shuffled_hunks", Expect::Recoverable),
    ("shallow_hunks", Expect::Recoverable),
    ("ambiguous_bare", Expect::Ambiguous),
    ("ambiguous_midway", Expect::Ambiguous),
    ("wrong_minus", Expect::ShouldFail),
    ("other_file", Expect::ShouldFail),
    ("missing_plus", Expect::ShouldFail),
    ("already_applied", Expect::ShouldFail),
];

fn expect_of(category: &str) -> Expect {
    CATEGORIES
        .iter()
        .find(|(c, _)| *c == category)
        .map(|(_, e)| *e)
        .expect("known category")
}

/// All cases for one file pair; `other` is another file of the same version (for the
/// wrong-file control).
pub fn cases(name: &str, old: &str, new: &str, other: Option<&str>) -> Vec<Case> {
    let clean = Diff::between(old, new);
    let mut out = Vec::new();
    let mut push = |category: &'static str,
                    original: String,
                    diff: Option<String>,
                    expected: Option<String>| {
        if let Some(diff) = diff {
            out.push(Case {
                category,
                expect: expect_of(category),
                original,
                diff,
                expected,
            });
        }
    };
    let ok = || Some(new.to_string());
    for &(category, _) in CATEGORIES {
        let mut rng = Rng::new(&format!("{name}/{category}"));
        let o = old.to_string();
        match category {
            "clean" => push(category, o, Some(clean.render(true)), ok()),
            "wrong_numbers" => push(category, o, Some(wrong_numbers(&clean, &mut rng)), ok()),
            "no_numbers" => push(category, o, Some(clean.render(false)), ok()),
            "wrong_counts" => push(category, o, Some(wrong_counts(&clean, &mut rng)), ok()),
            "trailing_ws" => push(category, o, trailing_ws(&clean, &mut rng), ok()),
            "tabs_spaces" => push(category, o, tabs_spaces(&clean, &mut rng), ok()),
            "reindented_hunk" => push(category, o, reindent(&clean), ok()),
            "dropped_context" => push(category, o, dropped_context(&clean), ok()),
            "garbled_outer_context" => push(category, o, garbled(&clean, &mut rng), ok()),
            "blank_lines" => push(category, o, blank_lines(&clean, &mut rng), ok()),
            "blank_lost_space" => push(category, o, blank_lost_space(&clean), ok()),
            "drifted_file" => {
                let prefix = drift_prefix();
                push(
                    category,
                    format!("{prefix}{old}"),
                    Some(clean.render(true)),
                    Some(format!("{prefix}{new}")),
                )
            }
            "crlf_file" if !old.contains('\r') && !new.contains('\r') => push(
                category,
                old.replace('\n', "\r\n"),
                Some(clean.render(true)),
                Some(new.replace('\n', "\r\n")),
            ),
            "final_newline" if old.ends_with('\n') && new.ends_with('\n') => push(
                category,
                old[..old.len() - 1].to_string(),
                Some(clean.render(true)),
                Some(new[..new.len() - 1].to_string()),
            ),
            "unicode_punct" => push(category, o, unicode_punct(&clean), ok()),
            "fenced" => push(
                category,
                o,
                Some(format!(
                    "Here is the change:\n\n```diff\n{}```\n\nIt keeps the API.\n",
                    clean.render(true)
                )),
                ok(),
            ),
            // The envelope cannot say "no newline at end of file".
            "codex_envelope" if !clean.hunks.iter().any(|h| h.lines.iter().any(|l| l.no_eol)) => {
                push(category, o, Some(clean.render_codex()), ok())
            }
            "combined" => {
                let prefix = drift_prefix();
                let mut d = clean.clone();
                for l in d.context_lines() {
                    if !l.text.trim().is_empty() && rng.coin() {
                        l.text.push_str("  ");
                    }
                }
                push(
                    category,
                    format!("{prefix}{old}"),
                    Some(d.render(false)),
                    Some(format!("{prefix}{new}")),
                )
            }
            "shuffled_hunks" if clean.hunks.len() > 1 => {
                let mut d = clean.clone();
                d.hunks.reverse();
                push(category, o, Some(d.render(true)), ok())
            }
            "shallow_hunks" => push(category, o, shallow(&clean), ok()),
            "already_applied" => push(category, new.to_string(), Some(clean.render(true)), None),
            "ambiguous_bare" => {
                if let Some(dup) = duplicated(old, &clean) {
                    push(category, dup.0, Some(clean.render(false)), None);
                }
            }
            "ambiguous_midway" => {
                if let Some((file, copy_at)) = duplicated(old, &clean) {
                    let mut d = clean.clone();
                    let real = d.hunks[0].old_start.saturating_sub(1);
                    if (real + copy_at).is_multiple_of(2) {
                        d.hunks[0].old_start = (real + copy_at) / 2 + 1;
                        d.hunks[0].new_start = d.hunks[0].old_start;
                        push(category, file, Some(d.render(true)), None);
                    }
                }
            }
            "wrong_minus" => push(category, o, wrong_minus(&clean, &mut rng), None),
            "other_file" => {
                if let Some(other) = other {
                    push(category, other.to_string(), Some(clean.render(true)), None);
                }
            }
            "missing_plus" => push(category, o, missing_plus(&clean, &mut rng), None),
            _ => {}
        }
    }
    out
}

fn drift_prefix() -> String {
    (1..=7)
        .map(|i| format!("// drift {i}: a line added above\n"))
        .collect()
}

fn wrong_numbers(d: &Diff, rng: &mut Rng) -> String {
    let mut d = d.clone();
    for h in &mut d.hunks {
        let shift = 5 + rng.below(36);
        if rng.coin() {
            h.old_start += shift;
        } else {
            h.old_start = h.old_start.saturating_sub(shift).max(1);
        }
        h.new_start = h.old_start;
    }
    d.render(true)
}

fn wrong_counts(d: &Diff, rng: &mut Rng) -> String {
    let mut d = d.clone();
    for h in &mut d.hunks {
        h.old_len = 1 + rng.below(12);
        h.new_len = 1 + rng.below(12);
    }
    d.render(true)
}

fn trailing_ws(d: &Diff, rng: &mut Rng) -> Option<String> {
    let mut d = d.clone();
    let mut changed = false;
    for l in d.context_lines() {
        if !l.text.trim().is_empty() && rng.coin() {
            l.text.push_str(if rng.coin() { "  " } else { "\t" });
            changed = true;
        }
    }
    changed.then(|| d.render(true))
}

fn tabs_spaces(d: &Diff, rng: &mut Rng) -> Option<String> {
    let mut d = d.clone();
    let mut changed = false;
    for l in d.context_lines() {
        let body = l.text.trim_start_matches(' ');
        let spaces = l.text.len() - body.len();
        if spaces >= 4 && rng.coin() {
            l.text = format!(
                "{}{}{body}",
                "\t".repeat(spaces / 4),
                " ".repeat(spaces % 4)
            );
            changed = true;
        } else if let Some(rest) = l.text.strip_prefix('\t') {
            l.text = format!("    {rest}");
            changed = true;
        }
    }
    changed.then(|| d.render(true))
}

fn reindent(d: &Diff) -> Option<String> {
    let mut d = d.clone();
    for h in &mut d.hunks {
        for l in &mut h.lines {
            if !l.text.trim().is_empty() {
                l.text = format!("    {}", l.text);
            }
        }
    }
    Some(d.render(true))
}

/// Every hunk that can be written four spaces shallower is (old side, new side and all); the
/// first of them also shows a blank context line the file lacks, so only the blank-line pass
/// can place it, and whitespace-only lines trail the last hunk past its counts. Added lines
/// must land at the file's depth, or the hunk must be refused.
fn shallow(d: &Diff) -> Option<String> {
    let mut d = d.clone();
    let mut first = true;
    let mut changed = false;
    for h in &mut d.hunks {
        let deep = h
            .lines
            .iter()
            .all(|l| l.text.trim().is_empty() || l.text.starts_with("    "));
        if !deep {
            continue;
        }
        for l in &mut h.lines {
            if let Some(rest) = l.text.strip_prefix("    ") {
                l.text = rest.to_string();
            }
        }
        changed = true;
        if first {
            first = false;
            if let Some(at) = h
                .lines
                .iter()
                .position(|l| l.kind == ' ' && !l.text.trim().is_empty() && !l.no_eol)
            {
                let blank = DLine {
                    kind: ' ',
                    text: String::new(),
                    no_eol: false,
                };
                h.lines.insert(at + 1, blank);
                h.old_len += 1;
                h.new_len += 1;
            }
        }
    }
    if !changed {
        return None;
    }
    let mut out = d.render(true);
    out.push_str("    \n  \n");
    Some(out)
}

fn dropped_context(d: &Diff) -> Option<String> {
    let mut d = d.clone();
    let mut changed = false;
    for h in &mut d.hunks {
        let lead = h.lines.iter().take_while(|l| l.kind == ' ').count();
        let trail = h.lines.iter().rev().take_while(|l| l.kind == ' ').count();
        if trail >= 2 {
            h.lines.pop();
            changed = true;
        }
        if lead >= 2 {
            h.lines.remove(0);
            changed = true;
        }
    }
    changed.then(|| d.render(true))
}

/// The outermost non-blank context line on one side, misremembered: a word changed or a
/// comment appended (the engine may drop it only when one more context line stays inside it).
fn garbled(d: &Diff, rng: &mut Rng) -> Option<String> {
    let mut d = d.clone();
    let mut changed = false;
    for h in &mut d.hunks {
        let lead = h.lines.iter().take_while(|l| l.kind == ' ').count();
        let trail = h.lines.iter().rev().take_while(|l| l.kind == ' ').count();
        let n = h.lines.len();
        let blank = |l: &DLine| l.text.trim().is_empty();
        let head = (0..lead.saturating_sub(1)).find(|&i| !blank(&h.lines[i]));
        let tail = (n - trail.saturating_sub(1)..n)
            .rev()
            .find(|&i| !blank(&h.lines[i]));
        let target = match (head, tail, rng.coin()) {
            (Some(i), None, _) | (Some(i), Some(_), true) => i,
            (_, Some(i), _) => i,
            _ => continue,
        };
        let line = &mut h.lines[target];
        let words: Vec<&str> = line.text.split(' ').collect();
        let word = (0..words.len()).rev().find(|&i| words[i].len() > 3);
        line.text = match (word, rng.coin()) {
            (Some(w), true) => {
                let mut words: Vec<String> = words.iter().map(|s| s.to_string()).collect();
                words[w] = format!("{}x", &words[w][..words[w].len() - 1]);
                words.join(" ")
            }
            _ => format!("{} // as I recall", line.text.trim_end()),
        };
        changed = true;
    }
    changed.then(|| d.render(true))
}

fn blank_lines(d: &Diff, rng: &mut Rng) -> Option<String> {
    let mut d = d.clone();
    let mut changed = false;
    for h in &mut d.hunks {
        let blanks: Vec<usize> = (0..h.lines.len())
            .filter(|&i| h.lines[i].kind == ' ' && h.lines[i].text.trim().is_empty())
            .collect();
        let texts: Vec<usize> = (0..h.lines.len())
            .filter(|&i| h.lines[i].kind == ' ' && !h.lines[i].text.trim().is_empty())
            .collect();
        if !blanks.is_empty() && (texts.is_empty() || rng.coin()) {
            h.lines.remove(blanks[rng.below(blanks.len())]);
            changed = true;
        } else if !texts.is_empty() {
            let at = texts[rng.below(texts.len())];
            if h.lines[at].no_eol {
                continue;
            }
            let blank = DLine {
                kind: ' ',
                text: String::new(),
                no_eol: false,
            };
            h.lines.insert(at + 1, blank);
            changed = true;
        }
    }
    changed.then(|| d.render(true))
}

fn blank_lost_space(d: &Diff) -> Option<String> {
    let text = d.render(true);
    let out: String = text
        .lines()
        .map(|l| {
            if l == " " {
                "\n".to_string()
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    (out != text).then_some(out)
}

fn unicode_punct(d: &Diff) -> Option<String> {
    let mut d = d.clone();
    let mut changed = false;
    for l in d.context_lines() {
        let mut s = String::new();
        let mut open = true;
        for c in l.text.chars() {
            match c {
                '"' => {
                    s.push(if open { '\u{201C}' } else { '\u{201D}' });
                    open = !open;
                }
                '\'' => s.push('\u{2019}'),
                _ => s.push(c),
            }
        }
        let s = s.replace(" - ", " \u{2013} ").replace("...", "\u{2026}");
        if s != l.text {
            l.text = s;
            changed = true;
        }
    }
    changed.then(|| d.render(true))
}

/// The file with the first hunk's old side copied to its end, and where the copy starts.
fn duplicated(old: &str, d: &Diff) -> Option<(String, usize)> {
    let h = d.hunks.first()?;
    let pre: String = h
        .lines
        .iter()
        .filter(|l| l.kind != '+')
        .map(|l| format!("{}\n", l.text))
        .collect();
    let mut file = old.to_string();
    if !file.ends_with('\n') {
        file.push('\n');
    }
    file.push_str("// a copy follows\n");
    let copy_at = file.lines().count();
    file.push_str(&pre);
    Some((file, copy_at))
}

fn wrong_minus(d: &Diff, rng: &mut Rng) -> Option<String> {
    let mut d = d.clone();
    let spots: Vec<(usize, usize)> = d
        .hunks
        .iter()
        .enumerate()
        .flat_map(|(hi, h)| {
            h.lines
                .iter()
                .enumerate()
                .filter(|(_, l)| l.kind == '-' && l.text.chars().any(char::is_alphanumeric))
                .map(move |(li, _)| (hi, li))
        })
        .collect();
    if spots.is_empty() {
        return None;
    }
    let (hi, li) = spots[rng.below(spots.len())];
    let line = &mut d.hunks[hi].lines[li];
    let pos = line.text.rfind(char::is_alphanumeric).expect("has one");
    line.text.insert_str(pos, "_typo");
    Some(d.render(true))
}

fn missing_plus(d: &Diff, rng: &mut Rng) -> Option<String> {
    let mut d = d.clone();
    let spots: Vec<(usize, usize)> = d
        .hunks
        .iter()
        .enumerate()
        .flat_map(|(hi, h)| {
            h.lines
                .iter()
                .enumerate()
                .filter(|(_, l)| l.kind == '+' && !l.text.trim().is_empty())
                .map(move |(li, _)| (hi, li))
        })
        .collect();
    if spots.is_empty() {
        return None;
    }
    let (hi, li) = spots[rng.below(spots.len())];
    d.hunks[hi].lines[li].kind = '?';
    Some(d.render(true))
}
