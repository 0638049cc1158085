//! Names in the goal that are paths in the tree: dotted module paths
//! (`sympy.polys.polyoptions` → `sympy/polys/polyoptions.py`, or its `__init__.py`).

use super::super::corpus::Corpus;
use super::super::query::Query;

/// A dotted module path that names the file.
const DOTTED_K: f64 = 14.0;

/// Files a dotted module path of the goal names, or its parent module.
pub(super) fn dotted(corpus: &Corpus, query: &Query, parts: &mut [Vec<(f64, String)>]) {
    for dotted in &query.dotted {
        let wanted = dotted.to_lowercase();
        let shorter = wanted.rsplit_once('/').map(|(a, _)| a.to_string());
        let depth = wanted.matches('/').count() as f64 + 1.0;
        for (f, path) in corpus.paths.iter().enumerate() {
            let lower = path.to_lowercase();
            let bare = lower.rsplit_once('.').map_or(lower.as_str(), |(s, _)| s);
            if names_module(bare, &wanted) {
                parts[f].push((
                    DOTTED_K * depth,
                    format!("module {}", dotted.replace('/', ".")),
                ));
            } else if let Some(short) = &shorter
                && names_module(bare, short)
            {
                parts[f].push((
                    DOTTED_K * 0.5 * (depth - 1.0).max(1.0),
                    format!("module {}", short.replace('/', ".")),
                ));
            }
        }
    }
}

/// Whether a path without its extension is module `wanted` (`a/b`), or its package file.
fn names_module(bare: &str, wanted: &str) -> bool {
    let under = |p: &str| p == wanted || p.ends_with(&format!("/{wanted}"));
    under(bare)
        || ["__init__", "mod", "index"].iter().any(|i| {
            bare.strip_suffix(i)
                .and_then(|b| b.strip_suffix('/'))
                .is_some_and(under)
        })
}
