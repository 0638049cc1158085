//! The same code in another file: a single-header build or an amalgamation that holds a copy of
//! each of the project's headers (`single_include/…/json.hpp` built from `include/…/*.hpp`), or
//! the part a copy was made from. A fix to the one is a fix to both (the project's checks
//! compare them), and the copy shares no word with the goal that the part does not share too,
//! so the ranking alone seldom reaches it. Found by content: long lines of what was shown of a
//! file that no third file holds, found in order in one other file; the lines shown of the one
//! are then shown of the other, moved by where those lines sit there.

use memchr::memmem;

use super::corpus::Corpus;
use super::defs::{self, Lang};

/// Lines shorter than this (trimmed) say too little to find a copy by.
const MIN_PROBE: usize = 32;
/// Probes taken from each range shown, and in all.
const PROBES_PER_RANGE: usize = 2;
const MAX_PROBES: usize = 24;
/// A file shown whole is matched in pieces of this many lines, so a copy too large to show
/// whole still shows its first pieces.
const CHUNK: u32 = 80;
/// Probes a copy must hold, at least (or every probe, when there are fewer).
const MIN_FOUND: usize = 3;
/// Files a probe may be found in besides the file itself: more, and it is boilerplate.
const MAX_HOLDERS: usize = 2;

/// Another file holding the code shown of one file.
#[derive(Debug, PartialEq)]
pub(super) struct Twin {
    pub(super) file: usize,
    /// Its lines that hold the ranges shown of the first, 1-based, inclusive.
    pub(super) windows: Vec<(u32, u32)>,
}

/// A line of the file shown, to look for elsewhere.
struct Probe<'t> {
    /// Its 1-based line number, and the range shown it belongs to.
    line: u32,
    range: usize,
    text: &'t [u8],
}

/// The file other than `file` holding most of the lines `ranges` show of it (empty ranges:
/// the whole file), with the matching windows; `None` when no file holds enough of them.
/// `allowed` says which files may be the copy; only they are read.
pub(super) fn twin(
    corpus: &Corpus,
    file: usize,
    ranges: &[(u32, u32)],
    allowed: &dyn Fn(usize) -> bool,
) -> Option<Twin> {
    let (lines, ranges) = shown(corpus, file, ranges);
    let probes = probes(&lines, &ranges);
    let holders = holders(corpus, file, probes.first()?.text, allowed)?;
    let (copy, found) = holders
        .into_iter()
        .map(|g| (g, locate(corpus.text(g), &probes)))
        .max_by_key(|(g, found)| (found.iter().flatten().count(), std::cmp::Reverse(*g)))?;
    let windows = matched(&ranges, &probes, &found)?;
    Some(Twin {
        file: copy,
        windows,
    })
}

/// The windows of `copy` holding the lines `ranges` show of `file`, when it holds enough of
/// them: the copy already found for another file, asked about this one.
pub(super) fn windows_in(
    corpus: &Corpus,
    file: usize,
    ranges: &[(u32, u32)],
    copy: usize,
) -> Option<Vec<(u32, u32)>> {
    let (lines, ranges) = shown(corpus, file, ranges);
    let probes = probes(&lines, &ranges);
    let found = locate(corpus.text(copy), &probes);
    matched(&ranges, &probes, &found)
}

/// The file's lines, and the ranges shown (a file shown whole, in pieces of [`CHUNK`] lines).
fn shown<'c>(
    corpus: &'c Corpus,
    file: usize,
    ranges: &[(u32, u32)],
) -> (Vec<&'c [u8]>, Vec<(u32, u32)>) {
    let lines: Vec<&[u8]> = corpus.text(file).split(|&b| b == b'\n').collect();
    let total = lines.len() as u32;
    let ranges = if ranges.is_empty() {
        (0..total.div_ceil(CHUNK))
            .map(|i| (i * CHUNK + 1, ((i + 1) * CHUNK).min(total)))
            .collect()
    } else {
        ranges.to_vec()
    };
    (lines, ranges)
}

/// The ranges moved to where the probes were found, when enough were.
fn matched(
    ranges: &[(u32, u32)],
    probes: &[Probe<'_>],
    found: &[Option<u32>],
) -> Option<Vec<(u32, u32)>> {
    let located = found.iter().flatten().count();
    if located < MIN_FOUND.min(probes.len()) || located * 2 < probes.len() {
        return None;
    }
    let windows = windows(ranges, probes, found);
    (!windows.is_empty()).then_some(windows)
}

/// Up to [`PROBES_PER_RANGE`] lines of each range, the longest lines unique in the file first.
fn probes<'t>(lines: &[&'t [u8]], ranges: &[(u32, u32)]) -> Vec<Probe<'t>> {
    let trimmed = |l: &'t [u8]| l.trim_ascii();
    let mut out: Vec<Probe<'t>> = Vec::new();
    for (r, &(a, b)) in ranges.iter().enumerate() {
        let mut candidates: Vec<(u32, &[u8])> = (a..=b.min(lines.len() as u32))
            .filter_map(|n| {
                let l = trimmed(lines[(n - 1) as usize]);
                (l.len() >= MIN_PROBE).then_some((n, l))
            })
            .collect();
        candidates.sort_by_key(|(n, l)| (std::cmp::Reverse(l.len()), *n));
        let unique = candidates
            .into_iter()
            .filter(|(_, l)| lines.iter().filter(|x| trimmed(x) == *l).count() == 1);
        for (line, text) in unique.take(PROBES_PER_RANGE) {
            out.push(Probe {
                line,
                range: r,
                text,
            });
        }
    }
    // The longest first: the first is looked up in the whole corpus.
    out.sort_by_key(|p| std::cmp::Reverse(p.text.len()));
    out.truncate(MAX_PROBES);
    out
}

/// The files other than `file` that may be its copy and hold `needle`, when few do.
fn holders(
    corpus: &Corpus,
    file: usize,
    needle: &[u8],
    allowed: &dyn Fn(usize) -> bool,
) -> Option<Vec<usize>> {
    let finder = memmem::Finder::new(needle);
    let mut out: Vec<usize> = Vec::new();
    for g in (0..corpus.len()).filter(|&g| g != file && allowed(g)) {
        if finder.find(corpus.text(g)).is_some() {
            out.push(g);
            if out.len() > MAX_HOLDERS {
                return None;
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Whether a file is of the languages whose projects build single headers and amalgamations
/// from their sources: C and C++.
pub(super) fn may_have_twin(path: &str) -> bool {
    matches!(defs::lang(path), Some(Lang::C | Lang::Cpp))
}

/// The 1-based line of `text` holding each probe (its first occurrence), if any.
fn locate(text: &[u8], probes: &[Probe<'_>]) -> Vec<Option<u32>> {
    probes
        .iter()
        .map(|p| {
            let at = memmem::find(text, p.text)?;
            Some(memchr::memchr_iter(b'\n', &text[..at]).count() as u32 + 1)
        })
        .collect()
}

/// Each range moved by where its probes sit in the copy; a range none of whose probes was
/// found is left out.
fn windows(ranges: &[(u32, u32)], probes: &[Probe<'_>], found: &[Option<u32>]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for (r, &(a, b)) in ranges.iter().enumerate() {
        let shift = probes
            .iter()
            .zip(found)
            .find_map(|(p, at)| (p.range == r).then_some(*at).flatten().map(|at| (p, at)));
        if let Some((p, at)) = shift {
            let delta = i64::from(at) - i64::from(p.line);
            let moved = |n: u32| u32::try_from((i64::from(n) + delta).max(1)).unwrap_or(1);
            out.push((moved(a), moved(b)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::corpus::test_id;
    use super::*;

    fn corpus(files: &[(&str, String)]) -> Corpus {
        Corpus::of_files(
            files
                .iter()
                .map(|(path, text)| (path.to_string(), test_id(text.as_bytes()), text.as_bytes())),
        )
    }

    fn header(name: &str, lines: u32) -> String {
        (1..=lines)
            .map(|i| {
                format!(
                    "    inline auto {name}_function_number_{i:04}(int value) {{ return value; }}\n"
                )
            })
            .collect()
    }

    #[test]
    fn a_single_header_build_is_the_twin_of_the_headers_it_holds() {
        let pointer = header("pointer", 300);
        let parser = header("parser", 200);
        let single = format!("// single header\n#pragma once\n{parser}{pointer}// end\n");
        let files = [
            ("include/lib/pointer.hpp", pointer),
            ("include/lib/parser.hpp", parser),
            ("single_include/lib.hpp", single),
            ("src/other.cpp", header("other", 50)),
        ];
        let c = corpus(&files);
        let any = |_: usize| true;
        // Lines 100-130 of pointer.hpp sit 202 lines lower in the single header.
        let t = twin(&c, 0, &[(100, 130)], &any).expect("a twin");
        assert_eq!(
            t,
            Twin {
                file: 2,
                windows: vec![(302, 332)]
            }
        );
        // And back: what was shown of the single header is found in the part it came from.
        let back = twin(&c, 2, &[(302, 332)], &any).expect("its part");
        assert_eq!(
            back,
            Twin {
                file: 0,
                windows: vec![(100, 130)]
            }
        );
        // A file whose code is nowhere else has none; nor has a copy that may not be shown.
        assert_eq!(twin(&c, 3, &[], &any), None);
        assert_eq!(twin(&c, 0, &[(100, 130)], &|g| g != 2), None);
    }

    #[test]
    fn lines_every_file_repeats_make_no_twin() {
        let boilerplate: String = (0..5)
            .map(|i| format!("// Licensed under the Apache License, Version 2.0, line {i}\n"))
            .collect();
        let files: Vec<(String, String)> = (0..4)
            .map(|i| {
                (
                    format!("src/f{i}.c"),
                    format!("{boilerplate}int f{i}(void);\n"),
                )
            })
            .collect();
        let files: Vec<(&str, String)> =
            files.iter().map(|(p, t)| (p.as_str(), t.clone())).collect();
        let c = corpus(&files);
        assert_eq!(twin(&c, 0, &[], &|_| true), None);
    }
}
