//! What the model reads: blocks rendered as the byte-stable prefix of every request, and the
//! fingerprint of what each FILE block showed.

use super::{Block, BlockKind};
use crate::protocol::ProtocolVersion;
use crate::store::records::Fingerprint;

/// Renders blocks as the text sent to the model; the same blocks always give the same bytes.
/// Under v2, FILE headers carry the SHA-256 of the full file, which PATCH_FILE must quote.
pub fn render(blocks: &[Block], version: ProtocolVersion) -> String {
    let mut out = String::new();
    for b in blocks {
        let header = match b.kind {
            BlockKind::File => match (&b.sha256, version) {
                (Some(sha), ProtocolVersion::V2) => format!("FILE[{}] (sha256={sha}):", b.title),
                _ => format!("FILE[{}]:", b.title),
            },
            BlockKind::Search => format!("SEARCH[{}]:", b.title),
            BlockKind::Log => format!("LOG[{}]:", b.title),
            BlockKind::Env => "ENV:".to_string(),
            BlockKind::Map => "REPOSITORY MAP (paths at the base commit):".to_string(),
            BlockKind::Architecture => format!("ARCHITECTURE[{}]:", b.title),
        };
        out.push_str(&header);
        out.push('\n');
        out.push_str(&b.body);
        if !b.body.ends_with('\n') {
            out.push('\n');
        }
        out.push('\n');
    }
    out
}

/// The fingerprint of every file block: what was sent, with ranges and truncation.
pub fn fingerprints(blocks: &[Block]) -> Vec<Fingerprint> {
    let mut out: Vec<Fingerprint> = Vec::new();
    for b in blocks
        .iter()
        .filter(|b| b.kind == BlockKind::File || b.kind == BlockKind::Architecture)
    {
        let (Some(blob), Some(sha)) = (&b.blob, &b.sha256) else {
            continue;
        };
        match out.iter_mut().find(|f| f.path == b.title) {
            Some(f) => {
                // Seen again: whole beats partial.
                if b.ranges.is_empty() && !b.truncated {
                    f.ranges.clear();
                    f.truncated = false;
                } else if !f.ranges.is_empty() {
                    f.ranges.extend(b.ranges.iter().copied());
                }
            }
            None => out.push(Fingerprint {
                path: b.title.clone(),
                blob_oid: blob.clone(),
                sha256: sha.clone(),
                ranges: b.ranges.clone(),
                truncated: b.truncated,
            }),
        }
    }
    out
}
