//! `search` over a commit's tree: the hits `git grep -n PATTERN REV` gives, faster.
//!
//! The searchable files of a tree — regular, not on the protected list, not binary, at most
//! [`MAX_SEARCH_FILE`] bytes — are laid end to end in one buffer, the *corpus*, read with
//! several threads on first use and cached per tree id (`<gitdir>/papayu/cache/grep1-<tree>`).
//! A search is then one regex scan over that buffer: each candidate match is narrowed to its
//! line and confirmed against that line alone, so a pattern never matches across lines or
//! files, exactly as grep's line-at-a-time matching behaves.

use serde::Serialize;

use super::{Private, mask_secrets};
use crate::protocol::is_protected;
use crate::store::{Oid, Snapshot};

/// Most hits one search returns.
pub const MAX_SEARCH_HITS: usize = 50;
/// Files larger than this are not searched.
const MAX_SEARCH_FILE: usize = 1 << 20;
/// Corpora larger than this are used once and not cached.
const MAX_CACHED_CORPUS: usize = 256 << 20;
/// Cache kind; bump when what the corpus holds changes.
const GREP_CACHE: &str = "grep1";

/// One search hit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hit {
    pub path: String,
    pub line: u32,
    pub text: String,
}

/// The searchable files of one tree, end to end.
struct Corpus {
    paths: Vec<String>,
    /// Where each file starts in `data`, plus `data.len()` at the end.
    starts: Vec<usize>,
    /// Every file's content, each followed by `\n` unless it already ends with one.
    data: Vec<u8>,
}

impl Corpus {
    fn of(snap: &Snapshot<'_>) -> Corpus {
        if let Some(corpus) = snap.cached(GREP_CACHE).and_then(|b| Corpus::decode(&b)) {
            return corpus;
        }
        let corpus = Corpus::build(snap);
        if corpus.data.len() <= MAX_CACHED_CORPUS {
            snap.cache(GREP_CACHE, &corpus.encode());
        }
        corpus
    }

    fn build(snap: &Snapshot<'_>) -> Corpus {
        // Only the built-in list is applied here; `papayu-private` marks, which may live
        // outside the tree (`info/attributes`), are applied to every search's hits.
        let files: Vec<&(String, Oid)> = snap
            .files()
            .iter()
            .filter(|(path, _)| !is_protected(path))
            .collect();
        let ids: Vec<Oid> = files.iter().map(|(_, id)| *id).collect();
        let kept = snap.map_blobs(&ids, |_, bytes| {
            (bytes.len() <= MAX_SEARCH_FILE && !bytes.contains(&0)).then(|| bytes.to_vec())
        });
        let mut corpus = Corpus {
            paths: Vec::with_capacity(kept.len()),
            starts: Vec::with_capacity(kept.len() + 1),
            data: Vec::with_capacity(kept.iter().map(|(_, b)| b.len() + 1).sum()),
        };
        for (index, bytes) in kept {
            corpus.push(files[index].0.clone(), &bytes);
        }
        corpus.starts.push(corpus.data.len());
        corpus
    }

    fn push(&mut self, path: String, bytes: &[u8]) {
        self.paths.push(path);
        self.starts.push(self.data.len());
        self.data.extend_from_slice(bytes);
        if bytes.last().is_some_and(|b| *b != b'\n') {
            self.data.push(b'\n');
        }
    }

    fn encode(&self) -> Vec<u8> {
        let mut index = Vec::new();
        for (i, path) in self.paths.iter().enumerate() {
            crate::store::cache_put(&mut index, path.as_bytes());
            let len = (self.starts[i + 1] - self.starts[i]) as u64;
            crate::store::cache_put(&mut index, &len.to_le_bytes());
        }
        let mut out = Vec::with_capacity(index.len() + self.data.len() + 16);
        crate::store::cache_put(&mut out, &index);
        crate::store::cache_put(&mut out, &self.data);
        out
    }

    fn decode(bytes: &[u8]) -> Option<Corpus> {
        let mut at = 0;
        let index = crate::store::cache_take(bytes, &mut at)?;
        let data = crate::store::cache_take(bytes, &mut at)?;
        let mut corpus = Corpus {
            paths: Vec::new(),
            starts: Vec::new(),
            data: data.to_vec(),
        };
        let (mut i, mut start) = (0, 0usize);
        while i < index.len() {
            let path = std::str::from_utf8(crate::store::cache_take(index, &mut i)?).ok()?;
            let len = crate::store::cache_take(index, &mut i)?;
            let len = usize::try_from(u64::from_le_bytes(len.try_into().ok()?)).ok()?;
            corpus.paths.push(path.to_string());
            corpus.starts.push(start);
            start = start.checked_add(len)?;
        }
        (start == corpus.data.len()).then_some(())?;
        corpus.starts.push(start);
        Some(corpus)
    }

    /// The file holding byte `at` of the data.
    fn file_at(&self, at: usize) -> usize {
        self.starts.partition_point(|&s| s <= at) - 1
    }
}

/// Searches the commit's tree for `query` (a regular expression; a literal when it is not a
/// valid one), optionally only in files whose path or name matches `glob`. Protected, private,
/// binary and very large files are skipped. At most [`MAX_SEARCH_HITS`] hits, in path order.
pub fn search(snap: &Snapshot<'_>, query: &str, glob: Option<&str>) -> Vec<Hit> {
    let build = |q: &str| regex::bytes::RegexBuilder::new(q).multi_line(true).build();
    let re = build(query).unwrap_or_else(|_| {
        build(&regex::escape(query)).expect("an escaped literal is a valid regex")
    });
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

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus(files: &[(&str, &str)]) -> Corpus {
        let mut c = Corpus {
            paths: Vec::new(),
            starts: Vec::new(),
            data: Vec::new(),
        };
        for (path, text) in files {
            c.push(path.to_string(), text.as_bytes());
        }
        c.starts.push(c.data.len());
        c
    }

    #[test]
    fn the_corpus_round_trips_through_its_cache_encoding() {
        let c = corpus(&[("a.py", "x = 1\n"), ("empty", ""), ("b.rs", "no newline")]);
        let back = Corpus::decode(&c.encode()).expect("decodes");
        assert_eq!(back.paths, c.paths);
        assert_eq!(back.starts, c.starts);
        assert_eq!(back.data, c.data);
        assert_eq!(back.file_at(c.starts[2]), 2, "an empty file owns no byte");
        assert!(Corpus::decode(&c.encode()[..20]).is_none());
    }
}
