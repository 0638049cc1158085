//! The plan protocol (v1 and v2): reading a model's answer into a validated [`Plan`].
//!
//! Everything here is pure: no repository, no network, no terminal. Checks that need the base
//! tree (does the file exist, does `base_sha256` match the blob) belong to the apply engine,
//! which calls back into [`paths`] for the path rules it shares with validation.

mod types;

pub use types::{Action, ActionKind, ContextRequest, Mode, Plan, ProtocolVersion, Step};

use sha2::{Digest, Sha256};

/// Lowercase hex SHA-256 of `bytes` (the protocol's `base_sha256` and the context fingerprint).
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest.iter() {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

mod interim;
pub use interim::{ParseOptions, Parsed, check_path, parse_answer, schema_hash};
