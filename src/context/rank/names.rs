//! Names in the goal that are paths in the tree, in any naming convention: module paths
//! (`sympy.polys.polyoptions` → `sympy/polys/polyoptions.py` or its `__init__.py`,
//! `Style/RedundantParentheses` → `lib/rubocop/cop/style/redundant_parentheses.rb`,
//! `ActiveRecord::Base` → `activerecord/lib/active_record/base.rb`). Each part is compared
//! without case, `_` or `-`, so `RedundantParentheses`, `redundant_parentheses` and
//! `redundant-parentheses` are one name.

use super::super::corpus::Corpus;
use super::super::query::Query;

/// A module path that names the file, a part of its depth.
const DOTTED_K: f64 = 14.0;

/// A name without case or separators: `FooBarService`, `foo_bar_service`, `foo-bar-service` →
/// `foobarservice`.
pub(super) fn normalized(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

/// Files a module path of the goal names, or its parent module: (file, score, reason).
pub(super) fn dotted(corpus: &Corpus, query: &Query) -> Vec<(usize, f64, String)> {
    let mut out = Vec::new();
    for dotted in &query.dotted {
        let wanted: Vec<String> = dotted
            .path
            .split('/')
            .filter(|p| !matches!(*p, "crate" | "self" | "super"))
            .map(normalized)
            .collect();
        if wanted.is_empty() {
            continue;
        }
        let depth = wanted.len() as f64;
        let written = &dotted.written;
        let parent = written
            .rfind(['.', '/', ':'])
            .map(|i| written[..i].trim_end_matches(':'));
        for (f, path) in corpus.paths.iter().enumerate() {
            let components = components(path);
            if names_module(&components, &wanted) {
                out.push((f, DOTTED_K * depth, format!("module {written}")));
            } else if let Some(parent) = parent
                && wanted.len() > 1
                && names_module(&components, &wanted[..wanted.len() - 1])
            {
                let share = DOTTED_K * 0.5 * (depth - 1.0).max(1.0);
                out.push((f, share, format!("module {parent}")));
            }
        }
    }
    out
}

/// A path's directories and its name without extension, normalized.
fn components(path: &str) -> Vec<String> {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
    dir.split('/')
        .filter(|d| !d.is_empty())
        .chain(std::iter::once(stem))
        .map(normalized)
        .collect()
}

/// Whether a path's components end with `wanted`, or its package file's do (`__init__`, `mod`,
/// `index`).
fn names_module(components: &[String], wanted: &[String]) -> bool {
    let ends = |c: &[String]| c.len() >= wanted.len() && c[c.len() - wanted.len()..] == *wanted;
    ends(components)
        || components.split_last().is_some_and(|(last, dirs)| {
            ["init", "mod", "index"].contains(&last.as_str()) && ends(dirs)
        })
}
