//! What a file that defines nothing offers: the names it re-exports. An `index.ts` of
//! `export * from "./schemas.js"`, an `__init__.py` of `from .parse import parse`, a `mod.rs` of
//! `pub use` lines is where a new public name must be added, and the map says so by listing its
//! re-exports as its definitions.

use super::Lang;

/// Most names of one statement shown; the rest are counted.
const NAMES_SHOWN: usize = 8;

/// The re-export statements of `text`, one line each (a list over several lines joined, long
/// lists cut to their first names), in order.
pub fn reexports(lang: Lang, text: &str) -> Vec<String> {
    let starts: &[&str] = match lang {
        Lang::Script => &["export *", "export {", "export type {", "export type *"],
        Lang::Python => &["from ."],
        Lang::Rust => &["pub use ", "pub(crate) use "],
        _ => return Vec::new(),
    };
    let mut out = Vec::new();
    let mut lines = text.lines().map(str::trim);
    while let Some(line) = lines.next() {
        if !starts.iter().any(|s| line.starts_with(s)) {
            continue;
        }
        let mut statement = line.to_string();
        while !complete(lang, &statement) {
            let Some(next) = lines.next() else { break };
            statement.push(' ');
            statement.push_str(next);
        }
        if lang == Lang::Script && !statement.contains(" from ") {
            continue;
        }
        out.push(shorten(&statement));
        if out.len() >= super::MAX_DEFS {
            break;
        }
    }
    out
}

/// Whether a statement begun on one line has ended: its braces or parentheses closed (and, in
/// a script, its module named).
fn complete(lang: Lang, statement: &str) -> bool {
    let opened = statement.matches(['{', '(']).count();
    let closed = statement.matches(['}', ')']).count();
    closed >= opened && (lang != Lang::Script || !statement.ends_with('}'))
}

/// A statement on one line with its list cut to [`NAMES_SHOWN`] names: `export { a, b, … 20
/// more } from "./x.js"`.
fn shorten(statement: &str) -> String {
    let words: Vec<&str> = statement.split_whitespace().collect();
    let joined = words.join(" ").trim_end_matches(';').to_string();
    let (Some(open), Some(close)) = (joined.find(['{', '(']), joined.rfind(['}', ')'])) else {
        return joined;
    };
    if close < open {
        return joined;
    }
    let names: Vec<&str> = joined[open + 1..close]
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .collect();
    if names.len() <= NAMES_SHOWN {
        return joined;
    }
    let more = names.len() - NAMES_SHOWN;
    format!(
        "{}{} {}, … {more} more {}{}",
        &joined[..open],
        &joined[open..=open],
        names[..NAMES_SHOWN].join(", "),
        &joined[close..=close],
        &joined[close + 1..],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typescript_barrel_lists_its_re_exports_on_one_line_each() {
        let text = "export * as core from \"../core/index.js\";\nexport * from \"./schemas.js\";\n\nexport type { infer } from \"../core/index.js\";\nexport {\n  a,\n  b,\n  c,\n  d,\n  e,\n  f,\n  g,\n  h,\n  i,\n  j,\n} from \"../core/index.js\";\nexport { toZod };\nconst x = 1;\n";
        assert_eq!(
            reexports(Lang::Script, text),
            [
                "export * as core from \"../core/index.js\"",
                "export * from \"./schemas.js\"",
                "export type { infer } from \"../core/index.js\"",
                "export { a, b, c, d, e, f, g, h, … 2 more } from \"../core/index.js\"",
            ]
        );
    }

    #[test]
    fn python_and_rust_lists_and_nothing_elsewhere() {
        let init = "from .parse import (\n    parse,\n    loads,\n)\nfrom .format import format\nimport os\n";
        assert_eq!(
            reexports(Lang::Python, init),
            [
                "from .parse import ( parse, loads, )",
                "from .format import format"
            ]
        );
        let lib = "mod parse;\npub use parse::{parse, Error};\nuse std::io;\n";
        assert_eq!(
            reexports(Lang::Rust, lib),
            ["pub use parse::{parse, Error}"]
        );
        assert!(reexports(Lang::Java, "import a.b.C;\n").is_empty());
    }
}
