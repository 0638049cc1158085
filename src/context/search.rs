//! `search` over a commit's tree: the hits `git grep -n PATTERN REV` gives, faster.
//!
//! The searchable files of a tree are laid end to end in one buffer, the [`Corpus`], cached per
//! tree id. A search is then one regex scan over that buffer: each candidate match is narrowed to its
//! line and confirmed against that line alone, so a pattern never matches across lines or
//! files, exactly as grep's line-at-a-time matching behaves.

use serde::Serialize;

use super::corpus::Corpus;
use super::{Private, mask_secrets};
pub use crate::protocol::{MAX_QUERY_CHARS, query_problem};
use crate::store::Snapshot;

/// Most hits one search returns.
pub const MAX_SEARCH_HITS: usize = 50;

/// One search hit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hit {
    pub path: String,
    pub line: u32,
    pub text: String,
}

/// Searches the commit's tree for `query` (a regular expression; a literal when it is not a
/// valid one), optionally only in files whose path or name matches `glob`. Protected, private,
/// binary and very large files are skipped. At most [`MAX_SEARCH_HITS`] hits, in path order.
/// A query [`query_problem`] refuses, or one that compiles neither as a regex nor as a literal,
/// finds nothing.
pub fn search(snap: &Snapshot<'_>, query: &str, glob: Option<&str>) -> Vec<Hit> {
    if query_problem(query).is_some() {
        return Vec::new();
    }
    let build = |q: &str| regex::bytes::RegexBuilder::new(q).multi_line(true).build();
    let Ok(re) = build(query).or_else(|_| build(&regex::escape(query))) else {
        return Vec::new();
    };
    let matcher = glob
        .and_then(|g| globset::Glob::new(g).ok())
        .map(|g| g.compile_matcher());
    let wanted = |path: &str| {
        matcher.as_ref().is_none_or(|m| {
            m.is_match(path) || path.rsplit('/').next().is_some_and(|n| m.is_match(n))
        })
    };
    let private = Private::of(snap);
    let corpus = Corpus::of(snap);
    let data = &corpus.data;
    let mut hits = Vec::new();
    let mut at = 0;
    while at < data.len() {
        let Some(found) = re.find_at(data, at).filter(|m| m.start() < data.len()) else {
            break;
        };
        let start = memchr::memrchr(b'\n', &data[..found.start()]).map_or(0, |i| i + 1);
        let end =
            memchr::memchr(b'\n', &data[found.start()..]).map_or(data.len(), |i| found.start() + i);
        let file = corpus.file_at(start);
        let line = &data[start..end];
        let path = &corpus.paths[file];
        if wanted(path) && private.allows(path) && re.is_match(line) {
            let before = &data[corpus.starts[file]..start];
            hits.push(Hit {
                path: corpus.paths[file].clone(),
                line: memchr::memchr_iter(b'\n', before).count() as u32 + 1,
                text: mask_secrets(String::from_utf8_lossy(line).trim_end())
                    .chars()
                    .take(300)
                    .collect(),
            });
            if hits.len() >= MAX_SEARCH_HITS {
                break;
            }
        }
        at = end + 1;
    }
    hits
}
