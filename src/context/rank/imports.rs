//! The files of the tree a source file imports: Python `import`/`from`, JavaScript and
//! TypeScript relative `import`/`require`, Rust `mod` and `use crate::`, C and C++
//! `#include "…"`, Java and Kotlin `import a.b.C`, PHP `use A\B\C`, Ruby `require` and
//! `require_relative`. Each line is read alone; only files of the tree are returned.

use super::paths::PathIndex;

/// The file doing the importing.
struct From<'a> {
    path: &'a str,
    dir: &'a str,
    index: &'a PathIndex<'a>,
}

/// Lines read for imports (they come first in every language covered).
const HEAD_LINES: usize = 400;

/// The files `path` (whose text is `text`) imports, at most two for one import.
pub(super) fn imports(path: &str, text: &str, index: &PathIndex<'_>) -> Vec<usize> {
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    let from = From { path, dir, index };
    let read: fn(&str, &From<'_>) -> Vec<usize> = match ext {
        "py" => python,
        "js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" => script,
        "rs" => rust,
        "c" | "h" | "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" | "m" | "mm" => include,
        "java" | "kt" | "kts" | "scala" => jvm,
        "php" => php,
        "rb" => ruby,
        _ => return Vec::new(),
    };
    let mut out: Vec<usize> = Vec::new();
    for line in text.lines().take(HEAD_LINES) {
        for f in read(line.trim(), &from).into_iter().take(2) {
            if !out.contains(&f) {
                out.push(f);
            }
        }
    }
    out
}

fn python(line: &str, from: &From<'_>) -> Vec<usize> {
    let module = if let Some(rest) = line.strip_prefix("from ") {
        rest.split_whitespace().next()
    } else if let Some(rest) = line.strip_prefix("import ") {
        rest.split([' ', ',']).next()
    } else {
        None
    };
    let Some(module) = module else {
        return Vec::new();
    };
    let dots = module.len() - module.trim_start_matches('.').len();
    let name = module.trim_start_matches('.').replace('.', "/");
    if name.is_empty() {
        return Vec::new();
    }
    let rel = if dots > 0 {
        let mut base: Vec<&str> = from.dir.split('/').filter(|s| !s.is_empty()).collect();
        for _ in 1..dots {
            base.pop();
        }
        base.push(&name);
        base.join("/")
    } else {
        name
    };
    let found = from.index.ending(&format!("{rel}.py"));
    if found.is_empty() {
        from.index.ending(&format!("{rel}/__init__.py"))
    } else {
        found
    }
}

fn script(line: &str, from: &From<'_>) -> Vec<usize> {
    if !(line.contains("import") || line.contains("require") || line.contains("from")) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for quote in ['\'', '"'] {
        let Some(spec) = line
            .split(quote)
            .nth(1)
            .filter(|s| s.starts_with("./") || s.starts_with("../"))
        else {
            continue;
        };
        let joined = normalize(&format!("{}/{spec}", from.dir));
        let suffixes = [
            "",
            ".js",
            ".ts",
            ".tsx",
            ".jsx",
            ".mjs",
            "/index.js",
            "/index.ts",
        ];
        let found = suffixes
            .iter()
            .find_map(|s| from.index.exact.get(format!("{joined}{s}").as_str()))
            .or_else(|| typescript_source(&joined, from));
        if let Some(f) = found {
            out.push(*f);
        }
    }
    out
}

/// The TypeScript source an ECMAScript module import names by its compiled name: TypeScript
/// resolves `./schemas.js` to `schemas.ts` (and `.mjs` to `.mts`, `.cjs` to `.cts`, `.jsx` to
/// `.tsx`).
fn typescript_source<'a>(joined: &str, from: &'a From<'_>) -> Option<&'a usize> {
    let (stem, ext) = joined.rsplit_once('.')?;
    let ts = match ext {
        "js" => "ts",
        "mjs" => "mts",
        "cjs" => "cts",
        "jsx" => "tsx",
        _ => return None,
    };
    let found = from.index.exact.get(format!("{stem}.{ts}").as_str());
    found.or_else(|| (ext == "js").then(|| from.index.exact.get(format!("{stem}.tsx").as_str()))?)
}

fn rust(line: &str, from: &From<'_>) -> Vec<usize> {
    let exact = |c: &str| from.index.exact.get(c.trim_start_matches('/')).copied();
    if let Some(name) = line
        .strip_prefix("mod ")
        .or_else(|| line.strip_prefix("pub mod "))
        .and_then(|r| r.strip_suffix(';'))
    {
        let dir = from.dir;
        return [format!("{dir}/{name}.rs"), format!("{dir}/{name}/mod.rs")]
            .iter()
            .filter_map(|c| exact(c))
            .collect();
    }
    let Some(rest) = line
        .strip_prefix("use crate::")
        .or_else(|| line.strip_prefix("pub use crate::"))
    else {
        return Vec::new();
    };
    let path = from.path;
    let root = path.find("src/").map_or("src", |i| &path[..i + 3]);
    let segs: Vec<&str> = rest
        .split("::")
        .take_while(|s| s.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .collect();
    (1..=segs.len())
        .rev()
        .find_map(|k| {
            let rel = segs[..k].join("/");
            exact(&format!("{root}/{rel}.rs")).or_else(|| exact(&format!("{root}/{rel}/mod.rs")))
        })
        .into_iter()
        .collect()
}

/// `#include "url.h"` (beside the file first, then anywhere), `#include <lib/url.h>` when the
/// tree has it.
fn include(line: &str, from: &From<'_>) -> Vec<usize> {
    let Some(rest) = line.strip_prefix('#').map(str::trim_start) else {
        return Vec::new();
    };
    let Some(rest) = rest
        .strip_prefix("include")
        .or_else(|| rest.strip_prefix("import"))
    else {
        return Vec::new();
    };
    let rest = rest.trim();
    let close = match rest.chars().next() {
        Some('"') => '"',
        Some('<') => '>',
        _ => return Vec::new(),
    };
    let Some(name) = rest[1..].split(close).next().filter(|n| !n.is_empty()) else {
        return Vec::new();
    };
    let beside = normalize(&format!("{}/{name}", from.dir));
    let name = normalize(name);
    match from.index.exact.get(beside.as_str()) {
        Some(&f) => vec![f],
        None if name.contains('/') => from.index.ending(&name),
        None => from.index.named(&name),
    }
}

/// `import org.acme.billing.Invoice;`, `import static org.acme.Util.max;`, Kotlin's
/// `import org.acme.Invoice as Bill`.
fn jvm(line: &str, from: &From<'_>) -> Vec<usize> {
    let Some(rest) = line.strip_prefix("import ") else {
        return Vec::new();
    };
    let rest = rest.trim_start_matches("static ").trim();
    let name = rest.split([';', ' ']).next().unwrap_or("");
    if name.ends_with('*') || name.is_empty() {
        return Vec::new();
    }
    let parts: Vec<&str> = name.split('.').collect();
    // The class is the last part, or the one before a static member.
    for k in (parts.len().saturating_sub(1).max(1)..=parts.len()).rev() {
        let rel = parts[..k].join("/");
        for ext in ["java", "kt", "scala"] {
            let found = from.index.ending(&format!("{rel}.{ext}"));
            if !found.is_empty() {
                return found;
            }
        }
    }
    Vec::new()
}

/// `use App\Http\Response;`: by its last two parts, as PSR-4 maps a namespace onto directories.
fn php(line: &str, from: &From<'_>) -> Vec<usize> {
    let Some(rest) = line.strip_prefix("use ") else {
        return Vec::new();
    };
    let name = rest
        .split([';', ' ', ',', '{'])
        .next()
        .unwrap_or("")
        .trim_start_matches('\\');
    let parts: Vec<&str> = name.split('\\').filter(|p| !p.is_empty()).collect();
    if parts.len() < 2 {
        return Vec::new();
    }
    let rel = parts[parts.len() - 2..].join("/");
    from.index.ending(&format!("{rel}.php"))
}

/// `require_relative "cop/base"` beside the file; `require "rubocop/cop/base"` anywhere (a
/// gem's `lib/`).
fn ruby(line: &str, from: &From<'_>) -> Vec<usize> {
    let (relative, rest) = if let Some(r) = line.strip_prefix("require_relative") {
        (true, r)
    } else if let Some(r) = line.strip_prefix("require") {
        (false, r)
    } else {
        return Vec::new();
    };
    let rest = rest.trim().trim_start_matches('(');
    let Some(name) = rest
        .strip_prefix(['"', '\''])
        .and_then(|r| r.split(['"', '\'']).next())
    else {
        return Vec::new();
    };
    let name = name.trim_end_matches(".rb");
    if relative {
        let joined = normalize(&format!("{}/{name}.rb", from.dir));
        from.index
            .exact
            .get(joined.as_str())
            .copied()
            .into_iter()
            .collect()
    } else {
        from.index.ending(&format!("{name}.rb"))
    }
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

    fn resolved(paths: &[&str], from: &str, text: &str) -> Vec<String> {
        let owned: Vec<String> = paths.iter().map(|s| s.to_string()).collect();
        let index = PathIndex::new(&owned);
        imports(from, text, &index)
            .into_iter()
            .map(|i| owned[i].clone())
            .collect()
    }

    #[test]
    fn a_typescript_module_imported_by_its_compiled_name_resolves_to_its_source() {
        let paths = ["src/v4/external.ts", "src/v4/schemas.ts", "src/v4/view.tsx"];
        let text = "export * from \"./schemas.js\";\nimport { V } from './view.js';\n";
        assert_eq!(
            resolved(&paths, "src/v4/external.ts", text),
            ["src/v4/schemas.ts", "src/v4/view.tsx"]
        );
    }

    #[test]
    fn imports_resolve_in_python_javascript_and_rust() {
        let paths = [
            "pkg/a.py",
            "pkg/b.py",
            "pkg/sub/__init__.py",
            "web/x.js",
            "web/lib/y.ts",
            "src/lib.rs",
            "src/model/mod.rs",
            "src/util.rs",
        ];
        let py = "from .b import f\nimport pkg.sub\n";
        assert_eq!(
            resolved(&paths, "pkg/a.py", py),
            ["pkg/b.py", "pkg/sub/__init__.py"]
        );
        let js = "import y from './lib/y'\n";
        assert_eq!(resolved(&paths, "web/x.js", js), ["web/lib/y.ts"]);
        let rs = "mod model;\nuse crate::util::f;\n";
        assert_eq!(
            resolved(&paths, "src/lib.rs", rs),
            ["src/model/mod.rs", "src/util.rs"]
        );
    }

    #[test]
    fn imports_resolve_in_c_java_kotlin_php_and_ruby() {
        let paths = [
            "lib/url.c",
            "lib/url.h",
            "include/curl/curl.h",
            "src/main/java/org/acme/billing/Invoice.java",
            "src/main/java/org/acme/Util.java",
            "app/src/main/kotlin/org/acme/Cart.kt",
            "src/Http/Response.php",
            "lib/rubocop/cop/base.rb",
            "lib/rubocop/cop/style/helper.rb",
        ];
        let c = "#include <stdio.h>\n#include \"url.h\"\n# include <curl/curl.h>\n";
        assert_eq!(
            resolved(&paths, "lib/url.c", c),
            ["lib/url.h", "include/curl/curl.h"]
        );
        let java = "package x;\nimport org.acme.billing.Invoice;\nimport static org.acme.Util.max;\nimport java.util.*;\n";
        assert_eq!(
            resolved(&paths, "src/main/java/x/A.java", java),
            [
                "src/main/java/org/acme/billing/Invoice.java",
                "src/main/java/org/acme/Util.java"
            ]
        );
        let kt = "import org.acme.Cart as Basket\n";
        assert_eq!(
            resolved(&paths, "app/B.kt", kt),
            ["app/src/main/kotlin/org/acme/Cart.kt"]
        );
        let php = "<?php\nnamespace App\\Controller;\nuse App\\Http\\Response;\n";
        assert_eq!(
            resolved(&paths, "src/Controller/A.php", php),
            ["src/Http/Response.php"]
        );
        let rb = "require \"rubocop/cop/base\"\nrequire_relative 'style/helper'\nrequire 'json'\n";
        assert_eq!(
            resolved(&paths, "lib/rubocop/cop/x.rb", rb),
            ["lib/rubocop/cop/base.rb", "lib/rubocop/cop/style/helper.rb"]
        );
    }
}
