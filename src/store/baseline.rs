//! The base runs of the differential check, cached under `<gitdir>/papayu/cache/`: one entry
//! per base tree and check (a key the caller derives from the command and what else shapes its
//! result). A tree never changes, so a cached run stays true for as long as the command is the
//! same; like every cache entry it is an accelerator only, and a damaged entry is a miss.

use super::{Oid, Store, cache};

/// The cache kind of a check key: no `-`, so one key's entries are never pruned with another's.
fn kind(key: &str) -> String {
    format!("baserun{key}")
}

impl Store {
    /// The cached base run of the check `key` on `tree`, as it was stored.
    pub fn base_run(&self, key: &str, tree: Oid) -> Option<Vec<u8>> {
        cache::read(&self.repo, &kind(key), tree)
    }

    /// Stores the base run of the check `key` on `tree`; a failed write is only a later miss.
    pub fn save_base_run(&self, key: &str, tree: Oid, bytes: &[u8]) {
        cache::write(&self.repo, &kind(key), tree, bytes);
    }
}
