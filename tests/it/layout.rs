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

/// The library's modules from the bottom up: a module may use only those listed before it.
/// `cli` (the binary) sits above all of them. The first six are crates of their own under
/// `crates/`, which Cargo keeps from reaching up; they stay listed so the library's own uses
/// of them are ranked.
const LAYERS: &[&str] = &[
    "codes", "cost", "verdict", "plan", "protocol", "patch", "clock", "store", "date", "settings",
    "context", "executor", "present", "llm", "engine", "ask", "trace", "service",
];

/// Arrows that run against [`LAYERS`] today, each to be removed by its own change.
const KNOWN_UPWARD: &[(&str, &str)] = &[];

/// Circles between two files of one directory that stand today, each to be removed by its own
/// change: (directory under `src/`, file, file).
const KNOWN_CIRCLES: &[(&str, &str, &str)] = &[];

/// Files of `src/store` that still import `protocol` or `patch`, each with the reason.
const STORE_EXCEPTIONS: &[&str] = &[];

/// Code without comments: line comments and doc comments are dropped, strings kept.
fn code_of(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first segments of the paths that follow each `prefix` (`super::`, `crate::x::`) in
/// `code`, grouped imports (`super::{a, b::c}`) included.
fn names_after(code: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find(prefix) {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let mut item = String::new();
            let mut items = Vec::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ => {}
                }
                if depth == 0 {
                    break;
                }
                if c == ',' && depth == 1 {
                    items.push(std::mem::take(&mut item));
                } else {
                    item.push(c);
                }
            }
            items.push(item);
            out.extend(items.iter().map(|i| first_segment(i)));
        } else {
            out.push(first_segment(rest));
        }
    }
    out.retain(|n| !n.is_empty() && n != "self" && n != "super");
    out
}

fn first_segment(path: &str) -> String {
    path.trim()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// The top-level module a file of `src/` belongs to (`src/store/x.rs` → `store`).
fn top_module(src: &Path, file: &Path) -> String {
    let first = file
        .strip_prefix(src)
        .expect("under src")
        .components()
        .next();
    let name = first.expect("a component").as_os_str().to_string_lossy();
    name.trim_end_matches(".rs").to_string()
}

/// Every source file of the crate, the binary's included.
fn source_files() -> (PathBuf, Vec<PathBuf>) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    (src, files)
}

/// The library's files: not the binary (`main.rs` and `cli/`, which sit above every layer).
fn library_files() -> (PathBuf, Vec<PathBuf>) {
    let (src, mut files) = source_files();
    files.retain(|f| !f.starts_with(src.join("cli")) && !f.ends_with("main.rs"));
    (src, files)
}

#[test]
fn the_store_knows_nothing_of_plans_or_patches() {
    let (src, files) = library_files();
    let mut offenders = Vec::new();
    for file in files.iter().filter(|f| f.starts_with(src.join("store"))) {
        let name = file.file_name().unwrap_or_default().to_string_lossy();
        if STORE_EXCEPTIONS.contains(&name.as_ref()) {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(file).expect("read"));
        for module in ["protocol", "patch", "executor"] {
            if code.contains(&format!("crate::{module}")) {
                offenders.push(format!("{} uses {module}", file.display()));
            }
        }
    }
    assert!(offenders.is_empty(), "{}", offenders.join("\n"));
}

#[test]
fn no_module_uses_a_module_above_it() {
    let (src, files) = library_files();
    let rank = |m: &str| LAYERS.iter().position(|l| *l == m);
    let mut offenders = Vec::new();
    let mut seen_known = Vec::new();
    for file in &files {
        let from = top_module(&src, file);
        let Some(from_rank) = rank(&from) else {
            assert!(
                from == "lib",
                "{} is in no layer; add it to LAYERS",
                file.display()
            );
            continue;
        };
        let code = code_of(&std::fs::read_to_string(file).expect("read"));
        for to in names_after(&code, "crate::") {
            let Some(to_rank) = rank(&to) else { continue };
            if to_rank <= from_rank {
                continue;
            }
            if KNOWN_UPWARD.contains(&(from.as_str(), to.as_str())) {
                seen_known.push((from.clone(), to.clone()));
                continue;
            }
            offenders.push(format!("{} ({from}) uses {to}", file.display()));
        }
    }
    offenders.sort();
    offenders.dedup();
    assert!(
        offenders.is_empty(),
        "arrows up the layers:\n{}",
        offenders.join("\n")
    );
    for known in KNOWN_UPWARD {
        assert!(
            seen_known.iter().any(|(f, t)| f == known.0 && t == known.1),
            "{} no longer uses {}: remove it from KNOWN_UPWARD",
            known.0,
            known.1
        );
    }
}

/// The arrows between the files of each directory of `src/`, from `super::x` and
/// `crate::<module>::x` paths (`mod.rs` is the directory itself, not a sibling).
fn sibling_arrows() -> Vec<(PathBuf, String, String)> {
    let (src, files) = source_files();
    let mut arrows = Vec::new();
    for file in &files {
        let dir = file.parent().expect("a parent");
        let stem = file
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        if dir == src || stem == "mod" {
            continue;
        }
        let sibling = |name: &str| {
            name != stem && (dir.join(format!("{name}.rs")).is_file() || dir.join(name).is_dir())
        };
        let code = code_of(&std::fs::read_to_string(file).expect("read"));
        let module = dir.strip_prefix(&src).expect("under src");
        let module = module.to_string_lossy().replace('/', "::");
        let mut names = names_after(&code, "super::");
        names.extend(names_after(&code, &format!("crate::{module}::")));
        for name in names.into_iter().filter(|n| sibling(n)) {
            arrows.push((dir.to_path_buf(), stem.clone(), name));
        }
    }
    arrows.sort();
    arrows.dedup();
    arrows
}

#[test]
fn no_circles_between_the_files_of_a_module() {
    let arrows = sibling_arrows();
    let mut circles = Vec::new();
    for (dir, from, to) in &arrows {
        // A circle through `from → to` exists when `from` is reachable from `to`.
        let mut stack = vec![to.clone()];
        let mut seen = vec![to.clone()];
        while let Some(at) = stack.pop() {
            for (d, f, t) in &arrows {
                if d == dir && *f == at && !seen.contains(t) {
                    seen.push(t.clone());
                    stack.push(t.clone());
                }
            }
        }
        let known = KNOWN_CIRCLES.iter().any(|(d, a, b)| {
            dir.ends_with(d) && [a, b].contains(&&from.as_str()) && [a, b].contains(&&to.as_str())
        });
        if seen.contains(from) && !known {
            circles.push(format!("{}: {from} → {to} → … → {from}", dir.display()));
        }
    }
    assert!(circles.is_empty(), "circles:\n{}", circles.join("\n"));
    assert!(
        !arrows.is_empty(),
        "the import scan found nothing; it is broken"
    );
}

#[test]
fn the_import_scan_reads_grouped_and_nested_paths() {
    let code = "use super::{blank, matcher::{Haystack, choose}};\nuse crate::store::records::X;\nlet a = super::ids::is_plan_id(x);";
    assert_eq!(names_after(code, "super::"), ["blank", "matcher", "ids"]);
    assert_eq!(names_after(code, "crate::"), ["store"]);
    assert_eq!(names_after(code, "crate::store::"), ["records"]);
    assert_eq!(code_of("use a; // crate::x\n/// crate::y"), "use a; \n");
}

/// The front ends share only the library: the MCP server (`src/cli/mcp/`) never calls the
/// command line's helpers, and no command calls the server's. What both need lives in
/// `service` (the operations) or `present` (the text they show).
#[test]
fn the_front_ends_share_only_the_library() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cli = root.join("src").join("cli");
    let mcp = cli.join("mcp");
    let mut files = Vec::new();
    rust_files(&cli, &mut files);
    let mut offenders = Vec::new();
    for file in &files {
        let code = code_of(&std::fs::read_to_string(file).expect("read"));
        let in_mcp = file.starts_with(&mcp);
        let crossing = if in_mcp {
            // The server's own files, and the library; nothing of the command line.
            code.contains("crate::cli::") || code.contains("super::super::")
        } else {
            // The one place that starts the server is its command.
            file != &cli.join("mod.rs")
                && (code.contains("mcp::") || code.contains("crate::cli::mcp"))
        };
        if crossing {
            offenders.push(file.display().to_string());
        }
    }
    assert!(
        files.iter().any(|f| f.starts_with(&mcp)),
        "the server's files are found"
    );
    assert!(
        offenders.is_empty(),
        "front ends calling each other's helpers:\n{}",
        offenders.join("\n")
    );
}

/// Every setting the code reads through the typed readers (`given`, `flag`, `number`) is
/// declared, so `git papayu config` lists it and every command checks its value.
#[test]
fn every_setting_read_is_declared() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let declared: Vec<String> = git_papayu::settings::SETTINGS
        .iter()
        .flat_map(|s| [s.key, s.env])
        .flatten()
        .map(str::to_ascii_lowercase)
        .collect();
    let mut read = Vec::new();
    for file in &files {
        let code = code_of(&std::fs::read_to_string(file).expect("read"));
        for reader in [".given(\"", ".flag(\"", ".number(\""] {
            for (at, _) in code.match_indices(reader) {
                let rest = &code[at + reader.len()..];
                let name = &rest[..rest.find('"').unwrap_or(0)];
                read.push((file.display().to_string(), name.to_string()));
            }
        }
    }
    assert!(read.len() >= 8, "the readers are found: {read:?}");
    let undeclared: Vec<_> = read
        .iter()
        .filter(|(_, name)| !name.starts_with("papayu.nothing"))
        .filter(|(_, name)| !declared.contains(&name.to_ascii_lowercase()))
        .collect();
    assert!(
        undeclared.is_empty(),
        "read but declared nowhere: {undeclared:?}"
    );
}
