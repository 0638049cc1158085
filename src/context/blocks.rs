//! The pieces of context and how a file becomes one: whole, or as line windows each headed by
//! where it sits, its text masked, its blob and SHA-256 kept for the plan's fingerprint.

use serde::Serialize;

use super::mask_secrets;
use crate::protocol::sha256_hex;
use crate::store::Snapshot;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BlockKind {
    File,
    Search,
    Log,
    Env,
    Map,
    Architecture,
}

/// One piece of context.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Block {
    pub kind: BlockKind,
    /// The file a FILE block shows, the query of a SEARCH block, the name of a LOG.
    pub title: String,
    /// Why it is here (`named in the goal`, `traceback`, `read_file request`, …).
    pub source: String,
    /// 0 = must keep; higher is dropped sooner.
    pub priority: u8,
    pub body: String,
    /// Characters of the full content, before any truncation.
    pub full_chars: usize,
    pub truncated: bool,
    /// 1-based inclusive line ranges shown (empty: the whole file).
    pub ranges: Vec<(u32, u32)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
    /// SHA-256 of the file's full content (FILE blocks), even when truncated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// The file's score when it was chosen by ranking the tree against the goal (else null).
    pub score: Option<f64>,
}

impl Block {
    pub(super) fn text(
        kind: BlockKind,
        title: impl Into<String>,
        source: &str,
        priority: u8,
        body: String,
    ) -> Block {
        let body = mask_secrets(&body);
        Block {
            kind,
            title: title.into(),
            source: source.to_string(),
            priority,
            full_chars: body.len(),
            body,
            truncated: false,
            ranges: Vec::new(),
            blob: None,
            sha256: None,
            score: None,
        }
    }
}

/// The SHA-256 of a blob's bytes, remembered by blob id: a block is made again each time a
/// copy (an amalgamation) takes another part, and hashing a megabyte header each time was a
/// quarter of a plan's context.
fn blob_sha256(blob: crate::store::Oid, bytes: &[u8]) -> String {
    use std::collections::HashMap;
    use std::sync::{Mutex, PoisonError};
    /// Enough for every block of a few plans; the memo starts over past it.
    const MOST: usize = 256;
    static MEMO: Mutex<Option<HashMap<crate::store::Oid, String>>> = Mutex::new(None);
    let mut memo = MEMO.lock().unwrap_or_else(PoisonError::into_inner);
    let memo = memo.get_or_insert_with(HashMap::new);
    if let Some(sha) = memo.get(&blob) {
        return sha.clone();
    }
    if memo.len() >= MOST {
        memo.clear();
    }
    let sha = sha256_hex(bytes);
    memo.insert(blob, sha.clone());
    sha
}

/// A FILE block for `path`, whole or as line windows; `None` when it does not exist.
pub(super) fn file_block(
    snap: &Snapshot<'_>,
    path: &str,
    windows: &[(u32, u32)],
    source: &str,
    priority: u8,
) -> Option<Block> {
    let file = snap.read(path).ok()??;
    let sha = blob_sha256(file.blob, &file.bytes);
    let mut block = Block {
        kind: BlockKind::File,
        title: path.to_string(),
        source: source.to_string(),
        priority,
        body: String::new(),
        full_chars: file.bytes.len(),
        truncated: false,
        ranges: Vec::new(),
        blob: Some(file.blob.to_string()),
        sha256: Some(sha),
        score: None,
    };
    let Ok(text) = std::str::from_utf8(&file.bytes) else {
        block.body = format!(
            "(binary or non-UTF-8 file, {} bytes; not shown)\n",
            file.bytes.len()
        );
        block.ranges = vec![(0, 0)];
        return Some(block);
    };
    if text.contains('\0') {
        block.body = format!("(binary file, {} bytes; not shown)\n", file.bytes.len());
        block.ranges = vec![(0, 0)];
        return Some(block);
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let total = lines.len() as u32;
    let merged = merge(windows, total);
    if merged.is_empty() || merged == [(1, total)] {
        block.body = mask_secrets(text);
        return Some(block);
    }
    let mut body = String::new();
    for &(a, b) in &merged {
        body.push_str(&format!("... lines {a}-{b} of {total}:\n"));
        for line in &lines[(a - 1) as usize..b as usize] {
            body.push_str(line);
        }
        if !body.ends_with('\n') {
            body.push('\n');
        }
    }
    block.body = mask_secrets(&body);
    block.ranges = merged;
    Some(block)
}

/// Clamps and merges overlapping windows.
fn merge(windows: &[(u32, u32)], total: u32) -> Vec<(u32, u32)> {
    let mut ws: Vec<(u32, u32)> = windows
        .iter()
        .map(|&(a, b)| (a.max(1), b.min(total)))
        .filter(|(a, b)| a <= b)
        .collect();
    ws.sort_unstable();
    let mut out: Vec<(u32, u32)> = Vec::new();
    for (a, b) in ws {
        match out.last_mut() {
            Some(last) if a <= last.1 + 1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}
