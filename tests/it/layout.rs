//! The code keeps its one git gateway: only `src/store/` touches git2 or runs `git`.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn only_the_store_touches_git() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let store = root.join("src").join("store");
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let mut offenders = Vec::new();
    for file in files.iter().filter(|f| !f.starts_with(&store)) {
        let text = std::fs::read_to_string(file).expect("read");
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            if code.contains("git2::")
                || code.contains("use git2")
                || code.contains("command(\"git\")")
                || code.contains("Command::new(\"git\")")
            {
                offenders.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "git outside src/store:\n{}",
        offenders.join("\n")
    );
    assert!(!files.is_empty());
}
