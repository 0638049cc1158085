//! Large files: a one-line patch of a 24 MB file holds memory within a small multiple of the
//! file, and previews of huge or binary files are summarised, not printed. Alone in its test
//! binary, so the peak memory of the child processes it measures is its own.

use crate::common;

use common::TestRepo;
use serde_json::json;
use sha2::{Digest, Sha256};

/// The largest resident set of any child process waited for so far, in bytes.
fn children_peak_bytes() -> u64 {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes into the struct it is given and nothing else.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    assert_eq!(rc, 0);
    usage.ru_maxrss as u64 * 1024
}

#[test]
fn large_files_cost_a_small_multiple_of_their_size_and_previews_stay_short() {
    let lines = 480_000;
    let text: String = (0..lines)
        .map(|i| format!("line {i} of a large generated file\n"))
        .collect();
    let size = text.len() as u64;
    let repo = TestRepo::with_files(&[("big.txt", &text), ("small.txt", "s\n")]);
    let middle = lines / 2;
    let diff = format!(
        "--- a/big.txt\n+++ b/big.txt\n@@ -{0},3 +{0},3 @@\n line {1} of a large generated file\n-line {2} of a large generated file\n+line {2} CHANGED\n line {3} of a large generated file\n",
        middle,
        middle - 1,
        middle,
        middle + 1
    );
    let sha: String = Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let answer = json!({"summary": "s", "actions": [
        {"kind": "PATCH_FILE", "path": "big.txt", "patch": diff, "base_sha256": sha}]})
    .to_string();
    let run = repo
        .papayu_stdin(["plan", "one line", "--response", "-"], answer.as_bytes())
        .ok();
    let peak = children_peak_bytes();
    assert!(
        peak < 8 * size,
        "plan peaked at {} MB for a {} MB file",
        peak >> 20,
        size >> 20
    );
    // The preview is the one changed line with its context, at its real line numbers.
    assert!(
        run.stdout.contains(&format!(
            "@@ -{} +{} @@",
            format_args!("{},7", middle - 2),
            format_args!("{},7", middle - 2)
        )),
        "{}",
        &run.stdout[..run.stdout.len().min(2000)]
    );
    assert!(run.stdout.contains(&format!("+line {middle} CHANGED")));
    assert!(
        run.stdout.len() < 4096,
        "{} bytes of preview",
        run.stdout.len()
    );

    // Deleting it, or replacing a binary file, is summarised.
    std::fs::write(repo.path().join("blob.bin"), [0u8, 1, 2, 3, 255, 254]).unwrap();
    repo.commit_all("binary");
    let answer = json!({"summary": "s", "actions": [
        {"kind": "DELETE_FILE", "path": "big.txt"},
        {"kind": "DELETE_FILE", "path": "blob.bin"}]})
    .to_string();
    let run = repo
        .papayu_stdin(["plan", "delete", "--response", "-"], answer.as_bytes())
        .ok();
    assert!(
        run.stdout.len() < 4096,
        "{} bytes of preview",
        run.stdout.len()
    );
    assert!(
        run.stdout.contains("too large to preview"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("Binary files differ"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains(&format!(" changed, {lines} deletions(-)\n"))
            && run.stdout.contains("Bin 6 -> 0 bytes"),
        "{}",
        run.stdout
    );
}
