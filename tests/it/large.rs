//! Large files: a one-line patch of a 24 MB file holds memory within a small multiple of the
//! file, and previews of huge or binary files are summarised, not printed. The peak memory is
//! that of the one command measured (`wait4` on its process), whatever other tests run beside.

use crate::common;

use common::TestRepo;
use serde_json::json;
use sha2::{Digest, Sha256};

/// Runs `git papayu ARGS` in `repo` with `stdin`, and returns its standard output and the
/// largest resident set of it and the processes it waited for, in bytes.
fn measured(repo: &TestRepo, args: &[&str], stdin: &[u8]) -> (String, u64) {
    use std::io::{Read, Write};
    #[expect(
        clippy::zombie_processes,
        reason = "reaped below with wait4, which also gives its resource use"
    )]
    let mut child = common::hermetic("git", repo.path())
        .arg("papayu")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let bytes = stdin.to_vec();
    let writer = std::thread::spawn(move || input.write_all(&bytes));
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    writer.join().unwrap().unwrap();
    let pid = i32::try_from(child.id()).unwrap();
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 on our own child, writing into the two values it is given.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{out}"
    );
    (out, usage.ru_maxrss as u64 * 1024)
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
    let (stdout, peak) = measured(
        &repo,
        &["plan", "one line", "--response", "-"],
        answer.as_bytes(),
    );
    assert!(
        peak < 8 * size,
        "plan peaked at {} MB for a {} MB file",
        peak >> 20,
        size >> 20
    );
    // The preview is the one changed line with its context, at its real line numbers.
    assert!(
        stdout.contains(&format!(
            "@@ -{} +{} @@",
            format_args!("{},7", middle - 2),
            format_args!("{},7", middle - 2)
        )),
        "{}",
        &stdout[..stdout.len().min(2000)]
    );
    assert!(stdout.contains(&format!("+line {middle} CHANGED")));
    assert!(stdout.len() < 4096, "{} bytes of preview", stdout.len());

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
