//! The base runs of the differential check, cached under `<gitdir>/papayu/cache/`: one entry
//! per base tree and check (a key the caller derives from the command and what else shapes its
//! result). A tree never changes, so a cached run stays true for as long as the command is the
//! same; like every cache entry it is an accelerator only, and a damaged entry is a miss.
//!
//! Proposals checked side by side (`apply --all`) need the same base run at once: a lock per
//! base tree and check lets the first make it while the others wait, then read it.

use std::fs::File;

use super::{Oid, Store, StoreError, cache};

/// The cache kind of a check key: no `-`, so one key's entries are never pruned with another's.
fn kind(key: &str) -> String {
    format!("baserun{key}")
}

/// Held while one base run is looked up and, on a miss, made; released on drop.
pub struct BaseRunLock {
    _file: File,
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

    /// Waits for, then takes, the lock on the base run of the check `key` on `tree`. The lock
    /// file lives with the cache (`gc` clears both); its name matches no cache entry, so
    /// pruning never takes it. Not inherited by the check: it closes on exec.
    pub fn lock_base_run(&self, key: &str, tree: Oid) -> Result<BaseRunLock, StoreError> {
        let dir = cache::dir(&self.repo);
        std::fs::create_dir_all(&dir)
            .map_err(|e| StoreError::io(format!("creating {}", dir.display()), e))?;
        let path = dir.join(format!("lock-{}-{tree}", kind(key)));
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| StoreError::io(format!("opening {}", path.display()), e))?;
        file.lock()
            .map_err(|e| StoreError::io(format!("locking {}", path.display()), e))?;
        Ok(BaseRunLock { _file: file })
    }
}
