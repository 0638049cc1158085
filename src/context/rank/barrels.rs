//! Barrel files: an `index.ts`, `external.ts`, `mod.rs`, `lib.rs` or `__init__.py` beside a
//! file (or one directory up) that is mostly a list of re-exports and re-exports it. A new
//! public function is added to its file *and* to the list that exports it, which shares no
//! word with the goal.

use super::super::corpus::Corpus;
use super::paths::PathIndex;

/// The names barrel files go by, without their extension.
const NAMES: &[&str] = &[
    "index",
    "external",
    "exports",
    "mod",
    "lib",
    "__init__",
    "public_api",
];

/// The share of a re-exported file's score its barrel receives.
pub(super) const SHARE: f64 = 0.3;

/// The languages whose packages keep such lists, by extension.
const EXTENSIONS: &[&str] = &["ts", "tsx", "mts", "js", "jsx", "mjs", "py", "rs"];

/// The barrel files beside `path` or one directory up that re-export it: looked up by name,
/// never by a scan of the tree.
pub(super) fn of(corpus: &Corpus, path: &str, f: usize, index: &PathIndex<'_>) -> Vec<usize> {
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    let mut dirs = vec![dir];
    if !dir.is_empty() {
        dirs.push(dir.rsplit_once('/').map_or("", |(d, _)| d));
    }
    let mut found = Vec::new();
    for d in dirs {
        for name in NAMES {
            for ext in EXTENSIONS {
                let candidate = match d {
                    "" => format!("{name}.{ext}"),
                    d => format!("{d}/{name}.{ext}"),
                };
                let Some(&g) = index.exact.get(candidate.as_str()) else {
                    continue;
                };
                let text = String::from_utf8_lossy(corpus.text(g));
                if g != f
                    && mostly_exports(&text)
                    && super::imports::imports(&candidate, &text, index).contains(&f)
                {
                    found.push(g);
                }
            }
        }
    }
    found
}

/// The ways a line of a list of re-exports begins.
const LISTED: &[&str] = &[
    "export *",
    "export {",
    "export type {",
    "} from ",
    "pub use ",
    "pub mod ",
    "pub(crate) use ",
    "mod ",
    "use ",
    "from ",
    "import ",
    "__all__",
];

/// Whether at least half of a file's lines re-export or import: a list, not code. The names of
/// a list written over several lines (`parse,`) count with it.
fn mostly_exports(text: &str) -> bool {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !["//", "#", "*", "/*"].iter().any(|c| l.starts_with(c)))
        .collect();
    if lines.is_empty() || lines.len() > 400 {
        return false;
    }
    let name = |l: &str| {
        let l = l.trim_end_matches(',');
        !l.is_empty()
            && l.chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
    };
    let listed = lines
        .iter()
        .filter(|l| LISTED.iter().any(|p| l.starts_with(p)) || name(l))
        .count();
    listed * 2 >= lines.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_of_re_exports_is_a_barrel_and_code_is_not() {
        let index_ts =
            "// the public API\nexport * from \"./parse\";\nexport { format } from \"./format\";\n";
        let init_py = "from .parse import parse\nfrom .format import format\n\n__all__ = [\"parse\", \"format\"]\n";
        let mod_rs = "mod parse;\npub use parse::parse;\npub mod format;\n";
        for text in [index_ts, init_py, mod_rs] {
            assert!(mostly_exports(text), "{text}");
        }
        let code = "import { x } from \"./x\";\nexport function run() {\n  const a = x();\n  return a + 1;\n}\n";
        assert!(!mostly_exports(code));
        assert!(!mostly_exports(""));
    }
}
