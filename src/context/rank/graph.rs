//! One step of structure: the best files pass a share of their score to the files they import
//! (Python, JavaScript/TypeScript, Rust), and a test file to the module it tests.

use std::collections::{HashMap, HashSet};

use super::super::corpus::Corpus;
use super::super::locate;
use super::kinds::is_test_path;
use super::{IMPORT_FROM_TOP, IMPORT_SHARE, TESTED_SHARE};

/// One step of structure: the best files pass a share of their score to the files they import,
/// and a test file to the module it tests.
pub(super) fn structure(corpus: &Corpus, score: &mut [f64], parts: &mut [Vec<(f64, String)>]) {
    let mut top: Vec<usize> = (0..score.len()).filter(|&f| score[f] > 0.0).collect();
    top.sort_by(|&a, &b| score[b].total_cmp(&score[a]));
    top.truncate(IMPORT_FROM_TOP);
    let index = PathIndex::new(&corpus.paths);
    let mut passed: Vec<(usize, f64, String)> = Vec::new();
    for &f in &top {
        let path = &corpus.paths[f];
        let text = String::from_utf8_lossy(corpus.text(f));
        for target in imports(path, &text, &index) {
            if target != f {
                passed.push((
                    target,
                    score[f] * IMPORT_SHARE,
                    format!("imported by {path}"),
                ));
            }
        }
        if is_test_path(&path.to_lowercase())
            && let Some(module) = locate::under_test(path, &index.paths)
            && let Some(&m) = index.exact.get(module.as_str())
        {
            passed.push((m, score[f] * TESTED_SHARE, format!("tested by {path}")));
        }
    }
    // What a file receives is the most any one file passes it: a hub every top file imports
    // (`utils`, `typing`) is not thereby the answer.
    passed.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut received: HashSet<usize> = HashSet::new();
    for (target, share, why) in passed {
        if received.insert(target) {
            score[target] += share;
            parts[target].push((share, why));
        }
    }
}

/// Paths, looked up exactly or by their last two components.
struct PathIndex<'c> {
    paths: Vec<&'c str>,
    exact: HashMap<&'c str, usize>,
    by_tail: HashMap<&'c str, Vec<usize>>,
}

impl<'c> PathIndex<'c> {
    fn new(paths: &'c [String]) -> PathIndex<'c> {
        let mut index = PathIndex {
            paths: paths.iter().map(String::as_str).collect(),
            exact: HashMap::new(),
            by_tail: HashMap::new(),
        };
        for (i, p) in paths.iter().enumerate() {
            index.exact.insert(p, i);
            index.by_tail.entry(tail(p)).or_default().push(i);
        }
        index
    }

    /// Files whose path is `rel` or ends with `/rel`.
    fn ending(&self, rel: &str) -> Vec<usize> {
        self.by_tail
            .get(tail(rel))
            .map(|v| {
                v.iter()
                    .copied()
                    .filter(|&i| {
                        let p = self.paths[i];
                        p == rel || p.ends_with(rel) && p[..p.len() - rel.len()].ends_with('/')
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// The last two components of a path.
fn tail(path: &str) -> &str {
    match path.rmatch_indices('/').nth(1) {
        Some((i, _)) => &path[i + 1..],
        None => path,
    }
}

/// The files of the tree a source file imports (Python, JavaScript/TypeScript, Rust).
fn imports(path: &str, text: &str, index: &PathIndex<'_>) -> Vec<usize> {
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    let mut out: Vec<usize> = Vec::new();
    let mut add = |found: Vec<usize>| {
        for f in found.into_iter().take(2) {
            if !out.contains(&f) {
                out.push(f);
            }
        }
    };
    for line in text.lines().take(400) {
        let line = line.trim();
        match ext {
            "py" => {
                let module = if let Some(rest) = line.strip_prefix("from ") {
                    rest.split_whitespace().next()
                } else if let Some(rest) = line.strip_prefix("import ") {
                    rest.split([' ', ',']).next()
                } else {
                    None
                };
                let Some(module) = module else { continue };
                let dots = module.len() - module.trim_start_matches('.').len();
                let name = module.trim_start_matches('.').replace('.', "/");
                let rel = if dots > 0 {
                    let mut base: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
                    for _ in 1..dots {
                        base.pop();
                    }
                    let base = base.join("/");
                    if name.is_empty() {
                        continue;
                    }
                    if base.is_empty() {
                        name
                    } else {
                        format!("{base}/{name}")
                    }
                } else {
                    name
                };
                if rel.is_empty() {
                    continue;
                }
                let mut found = index.ending(&format!("{rel}.py"));
                if found.is_empty() {
                    found = index.ending(&format!("{rel}/__init__.py"));
                }
                add(found);
            }
            "js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" => {
                for quote in ['\'', '"'] {
                    let Some(spec) = line
                        .split(quote)
                        .nth(1)
                        .filter(|s| s.starts_with("./") || s.starts_with("../"))
                    else {
                        continue;
                    };
                    if !(line.contains("import")
                        || line.contains("require")
                        || line.contains("from"))
                    {
                        continue;
                    }
                    let joined = normalize(&format!("{dir}/{spec}"));
                    for suffix in [
                        "",
                        ".js",
                        ".ts",
                        ".tsx",
                        ".jsx",
                        ".mjs",
                        "/index.js",
                        "/index.ts",
                    ] {
                        if let Some(&f) = index.exact.get(format!("{joined}{suffix}").as_str()) {
                            add(vec![f]);
                            break;
                        }
                    }
                }
            }
            "rs" => {
                if let Some(name) = line
                    .strip_prefix("mod ")
                    .or_else(|| line.strip_prefix("pub mod "))
                    .and_then(|r| r.strip_suffix(';'))
                {
                    for candidate in [format!("{dir}/{name}.rs"), format!("{dir}/{name}/mod.rs")] {
                        if let Some(&f) = index.exact.get(candidate.trim_start_matches('/')) {
                            add(vec![f]);
                        }
                    }
                } else if let Some(rest) = line
                    .strip_prefix("use crate::")
                    .or_else(|| line.strip_prefix("pub use crate::"))
                {
                    let root = path.find("src/").map_or("src", |i| &path[..i + 3]);
                    let segs: Vec<&str> = rest
                        .split("::")
                        .take_while(|s| s.chars().all(|c| c.is_alphanumeric() || c == '_'))
                        .collect();
                    for k in (1..=segs.len()).rev() {
                        let rel = segs[..k].join("/");
                        let hit = [format!("{root}/{rel}.rs"), format!("{root}/{rel}/mod.rs")]
                            .into_iter()
                            .find_map(|c| index.exact.get(c.as_str()).copied());
                        if let Some(f) = hit {
                            add(vec![f]);
                            break;
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// `a/./b/../c` → `a/c`.
fn normalize(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            p => out.push(p),
        }
    }
    out.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_resolve_in_python_javascript_and_rust() {
        let paths: Vec<String> = [
            "pkg/a.py",
            "pkg/b.py",
            "pkg/sub/__init__.py",
            "web/x.js",
            "web/lib/y.ts",
            "src/lib.rs",
            "src/model/mod.rs",
            "src/util.rs",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let index = PathIndex::new(&paths);
        let name =
            |v: Vec<usize>| -> Vec<&str> { v.into_iter().map(|i| paths[i].as_str()).collect() };
        assert_eq!(
            name(imports(
                "pkg/a.py",
                "from .b import f\nimport pkg.sub\n",
                &index
            )),
            ["pkg/b.py", "pkg/sub/__init__.py"]
        );
        assert_eq!(
            name(imports("web/x.js", "import y from './lib/y'\n", &index)),
            ["web/lib/y.ts"]
        );
        assert_eq!(
            name(imports(
                "src/lib.rs",
                "mod model;\nuse crate::util::f;\n",
                &index
            )),
            ["src/model/mod.rs", "src/util.rs"]
        );
    }
}
