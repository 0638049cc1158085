//! The README's quickstart runs as written (with the built binary on PATH instead of installed).

use crate::common;

use std::path::Path;

fn quickstart() -> String {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let start = readme
        .find("<!-- quickstart:begin -->")
        .expect("quickstart begin marker");
    let end = readme
        .find("<!-- quickstart:end -->")
        .expect("quickstart end marker");
    let block = &readme[start..end];
    let code_start = block.find("```sh\n").expect("sh fence") + "```sh\n".len();
    let code_end = block[code_start..].find("```").expect("closing fence") + code_start;
    block[code_start..code_end].to_string()
}

#[test]
fn readme_quickstart_runs_as_written() {
    let script = format!("set -euo pipefail\n{}", quickstart());
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scratch = tempfile::tempdir().unwrap();
    let run = common::hermetic("bash", root)
        .env("TMPDIR", scratch.path())
        .env("HOME", scratch.path())
        .args(["-c", &script])
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        run.status.success(),
        "quickstart failed\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}"
    );
    assert!(stdout.contains("Applied plan"), "{stdout}");
    assert!(stdout.contains("Merged plan"), "{stdout}");
    assert!(
        stdout.contains("Handle None in parse()"),
        "the proposal commit reached main: {stdout}"
    );
    assert!(stdout.contains("Undid: merge"), "{stdout}");
    let completion = scratch
        .path()
        .join(".local/share/bash-completion/completions/git-papayu");
    let script = std::fs::read_to_string(&completion).expect("the completion script is installed");
    assert!(script.contains("_git_papayu ()"), "{script}");
    assert!(
        !stderr.contains("APPLY_SUCCESS"),
        "no event lines unless verbose: {stderr}"
    );
}
