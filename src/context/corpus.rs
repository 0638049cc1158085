//! The readable text of one tree, end to end: what `search` scans and what the ranker reads.
//!
//! The files of a tree — regular, not on the protected list, not binary, at most
//! [`MAX_CORPUS_FILE`] bytes — are laid end to end in one buffer, read with several threads on
//! first use and cached per tree id (`<gitdir>/papayu/cache/grep2-<tree>`). Building the corpus
//! of a new tree reuses, by blob id, the bytes of the newest cached corpus (the previous
//! commit's, most often), so a plan on the next commit reads only the blobs that changed.
//! `papayu-private` marks, which may live outside the tree, are applied by each user of the
//! corpus, never baked into it.

use std::collections::HashMap;

use crate::protocol::is_protected;
use crate::store::{Oid, Snapshot};

/// Files larger than this are not in the corpus.
pub const MAX_CORPUS_FILE: usize = 1 << 20;
/// Corpora larger than this are used once and not cached.
const MAX_CACHED_CORPUS: usize = 256 << 20;
/// Cache kind; bump when what the corpus holds changes.
const CORPUS_CACHE: &str = "grep2";

/// The searchable files of one tree, end to end.
pub struct Corpus {
    pub paths: Vec<String>,
    pub ids: Vec<Oid>,
    /// Where each file starts in `data`, plus `data.len()` at the end.
    pub starts: Vec<usize>,
    /// Every file's content, each followed by `\n` unless it already ends with one.
    pub data: Vec<u8>,
}

impl Corpus {
    /// The corpus of the snapshot's tree: cached, or built (reusing a nearby tree's bytes).
    pub fn of(snap: &Snapshot<'_>) -> Corpus {
        if let Some(corpus) = snap.cached(CORPUS_CACHE).and_then(|b| Corpus::decode(&b)) {
            return corpus;
        }
        let nearby = snap
            .cached_nearby(CORPUS_CACHE)
            .and_then(|b| Corpus::decode(&b));
        let corpus = Corpus::build(snap, nearby.as_ref());
        if corpus.data.len() <= MAX_CACHED_CORPUS {
            snap.cache(CORPUS_CACHE, &corpus.encode());
        }
        corpus
    }

    /// A corpus of the given files, in order (for tests and benchmarks).
    pub fn of_files<'b>(files: impl IntoIterator<Item = (String, Oid, &'b [u8])>) -> Corpus {
        let mut corpus = Corpus::empty();
        for (path, id, bytes) in files {
            corpus.push(path, id, bytes);
        }
        corpus.starts.push(corpus.data.len());
        corpus
    }

    fn empty() -> Corpus {
        Corpus {
            paths: Vec::new(),
            ids: Vec::new(),
            starts: Vec::new(),
            data: Vec::new(),
        }
    }

    fn build(snap: &Snapshot<'_>, nearby: Option<&Corpus>) -> Corpus {
        let files: Vec<&(String, Oid)> = snap
            .files()
            .iter()
            .filter(|(path, _)| !is_protected(path))
            .collect();
        let known: HashMap<Oid, usize> = nearby
            .map(|c| c.ids.iter().enumerate().map(|(i, id)| (*id, i)).collect())
            .unwrap_or_default();
        let unknown: Vec<(usize, Oid)> = files
            .iter()
            .enumerate()
            .filter(|(_, (_, id))| !known.contains_key(id))
            .map(|(i, (_, id))| (i, *id))
            .collect();
        let ids: Vec<Oid> = unknown.iter().map(|(_, id)| *id).collect();
        let read: HashMap<usize, Vec<u8>> = snap
            .map_blobs(&ids, |_, bytes| {
                (bytes.len() <= MAX_CORPUS_FILE && !bytes.contains(&0)).then(|| bytes.to_vec())
            })
            .into_iter()
            .map(|(j, bytes)| (unknown[j].0, bytes))
            .collect();
        let mut corpus = Corpus::empty();
        for (i, (path, id)) in files.iter().enumerate() {
            if let Some(bytes) = read.get(&i) {
                corpus.push(path.clone(), *id, bytes);
            } else if let (Some(&j), Some(near)) = (known.get(id), nearby) {
                corpus.push(path.clone(), *id, near.stored(j));
            }
        }
        corpus.starts.push(corpus.data.len());
        corpus
    }

    /// The stored bytes of file `i` (with the `\n` the corpus may have added: pushing them
    /// again adds none).
    fn stored(&self, i: usize) -> &[u8] {
        &self.data[self.starts[i]..self.starts[i + 1]]
    }

    /// File `i`'s text as stored.
    pub fn text(&self, i: usize) -> &[u8] {
        self.stored(i)
    }

    pub fn len(&self) -> usize {
        self.paths.len()
    }

    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    fn push(&mut self, path: String, id: Oid, bytes: &[u8]) {
        self.paths.push(path);
        self.ids.push(id);
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
            crate::store::cache_put(&mut index, self.ids[i].as_bytes());
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
            data: data.to_vec(),
            ..Corpus::empty()
        };
        let (mut i, mut start) = (0, 0usize);
        while i < index.len() {
            let path = std::str::from_utf8(crate::store::cache_take(index, &mut i)?).ok()?;
            let id = Oid::from_bytes(crate::store::cache_take(index, &mut i)?).ok()?;
            let len = crate::store::cache_take(index, &mut i)?;
            let len = usize::try_from(u64::from_le_bytes(len.try_into().ok()?)).ok()?;
            corpus.paths.push(path.to_string());
            corpus.ids.push(id);
            corpus.starts.push(start);
            start = start.checked_add(len)?;
        }
        (start == corpus.data.len()).then_some(())?;
        corpus.starts.push(start);
        Some(corpus)
    }

    /// The file holding byte `at` of the data.
    pub fn file_at(&self, at: usize) -> usize {
        self.starts.partition_point(|&s| s <= at) - 1
    }
}

/// A stand-in blob id for a corpus made in a test.
#[cfg(test)]
pub fn test_id(bytes: &[u8]) -> Oid {
    Oid::from_str(&crate::protocol::sha256_hex(bytes)[..40]).expect("40 hex digits")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus(files: &[(&str, &str)]) -> Corpus {
        Corpus::of_files(files.iter().map(|(path, text)| {
            let id = test_id(text.as_bytes());
            (path.to_string(), id, text.as_bytes())
        }))
    }

    #[test]
    fn the_corpus_round_trips_through_its_cache_encoding() {
        let c = corpus(&[("a.py", "x = 1\n"), ("empty", ""), ("b.rs", "no newline")]);
        let back = Corpus::decode(&c.encode()).expect("decodes");
        assert_eq!(back.paths, c.paths);
        assert_eq!(back.ids, c.ids);
        assert_eq!(back.starts, c.starts);
        assert_eq!(back.data, c.data);
        assert_eq!(back.file_at(c.starts[2]), 2, "an empty file owns no byte");
        assert!(Corpus::decode(&c.encode()[..20]).is_none());
    }
}
