//! Top-level definitions of a source file, for the repository map: what a file offers, one line
//! each, without its bodies.
//!
//! A line scanner, not a parser. The map needs names and signatures at the top of a file's
//! nesting, and in every language covered here those are recognisable from a line's first
//! words and indentation. Tree-sitter would parse exactly, but its five grammars add about a
//! minute of C compilation on a two-core machine and 4 MB to the binary, for a block the model
//! reads as a hint. Covered: Python, Rust, JavaScript, TypeScript, Go.

/// Most definitions listed for one file.
pub const MAX_DEFS: usize = 30;
/// Longest signature shown, in characters.
const MAX_SIGNATURE: usize = 120;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Lang {
    Python,
    Rust,
    Script,
    Go,
}

fn lang(path: &str) -> Option<Lang> {
    let ext = path.rsplit_once('.')?.1;
    Some(match ext {
        "py" | "pyi" => Lang::Python,
        "rs" => Lang::Rust,
        "js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" => Lang::Script,
        "go" => Lang::Go,
        _ => return None,
    })
}

/// Whether [`definitions`] understands files like `path`.
pub fn is_source(path: &str) -> bool {
    lang(path).is_some()
}

/// The definitions of `text`, a file at `path`: top-level items, and the members of top-level
/// classes and impl blocks indented by two spaces. Empty for languages not covered.
pub fn definitions(path: &str, text: &str) -> Vec<String> {
    let Some(lang) = lang(path) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    // Inside a class or impl: the indent of its members, once its first member line is seen.
    let mut container: Option<Option<usize>> = None;
    for line in text.lines() {
        let indent = line.len() - line.trim_start().len();
        let code = line.trim();
        if code.is_empty() {
            continue;
        }
        if indent == 0 {
            container = None;
            if let Some(sig) = top_level(lang, code) {
                container = opens_container(lang, code).then_some(None);
                out.push(sig);
            }
        } else if let Some(members) = &mut container {
            let members = *members.get_or_insert(indent);
            if indent == members
                && let Some(sig) = member(lang, code)
            {
                out.push(format!("  {sig}"));
            }
        }
        if out.len() >= MAX_DEFS {
            break;
        }
    }
    out
}

fn opens_container(lang: Lang, code: &str) -> bool {
    let code = strip_words(
        code,
        &[
            "pub",
            "pub(crate)",
            "export",
            "default",
            "abstract",
            "unsafe",
        ],
    );
    match lang {
        Lang::Python => code.starts_with("class "),
        Lang::Rust => code.starts_with("impl") || code.starts_with("trait "),
        Lang::Script => code.starts_with("class "),
        Lang::Go => false,
    }
}

/// `code` without any of the leading `words`.
fn strip_words<'a>(mut code: &'a str, words: &[&str]) -> &'a str {
    loop {
        let before = code;
        for word in words {
            if let Some(rest) = code.strip_prefix(word)
                && rest.starts_with(' ')
            {
                code = rest.trim_start();
            }
        }
        if code == before {
            return code;
        }
    }
}

fn starts_with_any(code: &str, heads: &[&str]) -> bool {
    heads.iter().any(|h| code.starts_with(h))
}

fn top_level(lang: Lang, code: &str) -> Option<String> {
    let found = match lang {
        Lang::Python => starts_with_any(code, &["def ", "async def ", "class "]),
        Lang::Rust => {
            let vis = strip_words(code, &["pub", "pub(crate)", "pub(super)"]);
            let item = strip_words(vis, &["async", "unsafe", "const", "extern \"C\""]);
            starts_with_any(
                item,
                &[
                    "fn ",
                    "struct ",
                    "enum ",
                    "trait ",
                    "impl",
                    "mod ",
                    "type ",
                    "union ",
                    "macro_rules!",
                ],
            ) || (vis != code && starts_with_any(vis, &["static ", "const "]))
        }
        Lang::Script => {
            let item = strip_words(code, &["export", "default", "declare", "async", "abstract"]);
            starts_with_any(
                item,
                &[
                    "function",
                    "class ",
                    "interface ",
                    "type ",
                    "enum ",
                    "namespace ",
                ],
            ) || (item != code && starts_with_any(item, &["const ", "let ", "var "]))
                || (starts_with_any(item, &["const ", "let "]) && is_function_value(item))
        }
        Lang::Go => starts_with_any(code, &["func ", "type "]),
    };
    found.then(|| signature(lang, code))
}

/// `const name = (…) =>`, `const name = function`, `const name = async (…) =>`.
fn is_function_value(item: &str) -> bool {
    let Some((_, value)) = item.split_once('=') else {
        return false;
    };
    let value = value.trim_start().trim_start_matches("async ").trim_start();
    value.starts_with("function")
        || value.starts_with('(') && item.contains("=>")
        || value.split_whitespace().nth(1) == Some("=>")
}

fn member(lang: Lang, code: &str) -> Option<String> {
    let found = match lang {
        Lang::Python => starts_with_any(code, &["def ", "async def "]),
        Lang::Rust => {
            let item = strip_words(
                code,
                &[
                    "pub",
                    "pub(crate)",
                    "pub(super)",
                    "async",
                    "unsafe",
                    "const",
                ],
            );
            starts_with_any(item, &["fn ", "type "])
        }
        Lang::Script => {
            let item = strip_words(
                code,
                &[
                    "public",
                    "private",
                    "protected",
                    "static",
                    "async",
                    "get",
                    "set",
                    "readonly",
                ],
            );
            let name_end = item.find(['(', '<']).unwrap_or(0);
            name_end > 0
                && item[..name_end]
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '#')
                && ![
                    "if", "for", "while", "switch", "catch", "return", "function",
                ]
                .contains(&&item[..name_end])
                && (code.ends_with('{') || code.ends_with(") {") || code.contains("):"))
        }
        Lang::Go => false,
    };
    found.then(|| signature(lang, code))
}

/// The signature: the line without its body's opening and anything after it.
fn signature(lang: Lang, code: &str) -> String {
    let mut sig = code;
    match lang {
        Lang::Python => sig = sig.trim_end_matches(':'),
        Lang::Rust | Lang::Go | Lang::Script => {
            if let Some(i) = sig.find(" {") {
                sig = &sig[..i];
            }
            sig = sig.trim_end_matches(['{', ';']);
            if lang == Lang::Script
                && let Some(i) = sig.find(" = ")
                && !sig[..i].contains('(')
                && !is_function_value(sig)
            {
                sig = &sig[..i];
            }
        }
    }
    let sig = sig.trim_end();
    if sig.chars().count() > MAX_SIGNATURE {
        let cut: String = sig.chars().take(MAX_SIGNATURE).collect();
        format!("{cut}…")
    } else {
        sig.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_functions_classes_and_methods() {
        let text = "import os\n\nMAX = 3\n\n@dataclass\nclass Stats(Base):\n    \"\"\"doc\"\"\"\n    def add(self, x: int) -> None:\n        def inner():\n            pass\n        return None\n\n    async def flush(self):\n        pass\n\ndef mean(items):\n    return sum(items)\n\nasync def fetch(url: str) -> bytes:\n    pass\n";
        assert_eq!(
            definitions("src/stats.py", text),
            [
                "class Stats(Base)",
                "  def add(self, x: int) -> None",
                "  async def flush(self)",
                "def mean(items)",
                "async def fetch(url: str) -> bytes",
            ]
        );
    }

    #[test]
    fn rust_items_and_impl_members() {
        let text = "use std::io;\n\n/// Doc.\npub struct Config {\n    pub name: String,\n}\n\nimpl Config {\n    pub fn new(name: &str) -> Config {\n        let x = 1;\n        fn nested() {}\n    }\n    fn private(&self) {}\n}\n\npub(crate) async fn load(path: &Path) -> io::Result<Config> {\n}\n\nenum Kind { A, B }\nconst LIMIT: usize = 3;\npub const MAX: usize = 4;\nmacro_rules! m {\n}\nmod tests;\npub trait Shape {\n    fn area(&self) -> f64;\n}\n";
        assert_eq!(
            definitions("src/config.rs", text),
            [
                "pub struct Config",
                "impl Config",
                "  pub fn new(name: &str) -> Config",
                "  fn private(&self)",
                "pub(crate) async fn load(path: &Path) -> io::Result<Config>",
                "enum Kind",
                "pub const MAX: usize = 4",
                "macro_rules! m",
                "mod tests",
                "pub trait Shape",
                "  fn area(&self) -> f64",
            ]
        );
    }

    #[test]
    fn javascript_and_typescript_exports_functions_and_classes() {
        let text = "import x from './x.js';\nconst fs = require('fs');\nexport function start(port) {\n  return x(port);\n}\nexport default class Server extends Base {\n  constructor(opts) {\n    super();\n  }\n  async listen(port: number): Promise<void> {\n    if (port) {\n    }\n  }\n}\nexport const VERSION = '1.0';\nconst handler = async (req, res) => {\n};\nexport interface Options {\n  port: number;\n}\nexport type Id = string;\nfunction helper() {}\n";
        assert_eq!(
            definitions("web/server.ts", text),
            [
                "export function start(port)",
                "export default class Server extends Base",
                "  constructor(opts)",
                "  async listen(port: number): Promise<void>",
                "export const VERSION",
                "const handler = async (req, res) =>",
                "export interface Options",
                "export type Id",
                "function helper()",
            ]
        );
    }

    #[test]
    fn go_functions_methods_and_types() {
        let text = "package main\n\nimport \"fmt\"\n\ntype Server struct {\n\tport int\n}\n\nfunc (s *Server) Start() error {\n\treturn nil\n}\n\nfunc main() {\n\tfmt.Println(1)\n}\n";
        assert_eq!(
            definitions("cmd/main.go", text),
            [
                "type Server struct",
                "func (s *Server) Start() error",
                "func main()"
            ]
        );
    }

    #[test]
    fn other_files_have_no_definitions_and_long_files_are_capped() {
        assert!(definitions("README.md", "def x():\n").is_empty());
        assert!(!is_source("Makefile"));
        let many: String = (0..100)
            .map(|i| format!("def f{i}():\n    pass\n"))
            .collect();
        assert_eq!(definitions("a.py", &many).len(), MAX_DEFS);
        let long = format!("def f({}):\n", "a, ".repeat(100));
        assert!(definitions("a.py", &long)[0].ends_with('…'));
    }
}
