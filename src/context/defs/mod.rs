//! The definitions of a source file: what it offers (classes, interfaces, structs, enums,
//! functions, methods, macros, constants), each with its name, its signature and the lines it
//! spans, for the repository map, for ranking ("defines X") and for choosing which part of a long
//! file to show.
//!
//! A lexer and a line reader, not a parser. Comments and the insides of strings are blanked
//! first ([`lexer`]); then each line that can start a definition is read by the rules of its
//! language ([`recognize`], [`typed`]), and braces, indentation or `end` say where it closes
//! ([`blocks`]). Definitions inside function bodies are not listed. Tree-sitter would parse
//! exactly, but twelve grammars cost minutes of C compilation on a two-core machine and megabytes
//! of binary, for names and line ranges that these rules find in the code people write (each
//! language's tests hold realistic files: comments, strings, generics and templates, nested
//! types, signatures over several lines).
//!
//! Covered: Python, Rust, JavaScript, TypeScript, Go, Java, Kotlin, C#, Swift, PHP, Ruby, C, C++.

mod blocks;
mod exports;
mod keywords;
mod lexer;
mod recognize;
#[cfg(test)]
mod tests;
mod tokens;
mod typed;
#[cfg(test)]
mod typed_tests;

pub use keywords::{is_common_word, is_keyword};
pub use tokens::Ctx;

/// Most definitions listed for one file.
pub const MAX_DEFS: usize = 30;
/// Longest signature shown, in characters.
const MAX_SIGNATURE: usize = 120;
/// Deepest nesting of types the map lists (a member of a nested class is at 2).
const MAX_DEPTH: u8 = 2;

/// A language whose definitions are read.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Lang {
    Python,
    Rust,
    /// JavaScript and TypeScript.
    Script,
    Go,
    Java,
    Kotlin,
    CSharp,
    Swift,
    Php,
    Ruby,
    C,
    Cpp,
}

/// What a definition is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// A class, interface, struct, enum, trait, protocol, record or object: its body holds
    /// members.
    Type,
    /// A body of members for a type defined elsewhere: Rust's `impl`, Swift's `extension`.
    Impl,
    /// A namespace or module: its body holds definitions at the same level as its own.
    Namespace,
    Function,
    Macro,
    Constant,
    /// A variable, field or property: counted for ranking, not listed in the map.
    Variable,
    /// A type alias or typedef.
    Alias,
}

/// One definition of a file.
#[derive(Clone, Debug, PartialEq)]
pub struct Def {
    pub name: String,
    pub kind: Kind,
    /// First and last line, 1-based and inclusive.
    pub line: u32,
    pub end: u32,
    /// How many types enclose it (0: top level; 1: a member).
    pub depth: u8,
    /// The line that opens it, without its body (several lines joined when its parameters
    /// span them).
    pub signature: String,
}

/// The language of a file, by its extension.
pub fn lang(path: &str) -> Option<Lang> {
    let ext = path.rsplit_once('.')?.1;
    Some(match ext {
        "py" | "pyi" => Lang::Python,
        "rs" => Lang::Rust,
        "js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" => Lang::Script,
        "go" => Lang::Go,
        "java" => Lang::Java,
        "kt" | "kts" => Lang::Kotlin,
        "cs" => Lang::CSharp,
        "swift" => Lang::Swift,
        "php" => Lang::Php,
        "rb" | "rake" | "gemspec" => Lang::Ruby,
        "c" | "h" => Lang::C,
        "cc" | "cpp" | "cxx" | "c++" | "hpp" | "hh" | "hxx" | "h++" | "ipp" | "tpp" | "inl" => {
            Lang::Cpp
        }
        _ => return None,
    })
}

/// Whether [`definitions`] understands files like `path`.
pub fn is_source(path: &str) -> bool {
    lang(path).is_some()
}

/// Every definition of `text`, a file at `path`, outside function bodies, in order. Empty for
/// languages not covered.
pub fn parse(path: &str, text: &str) -> Vec<Def> {
    let Some(lang) = lang(path) else {
        return Vec::new();
    };
    let code = lexer::blank(lang, text);
    let lines: Vec<&str> = text.split('\n').collect();
    let code: Vec<&str> = code.split('\n').collect();
    blocks::scan(lang, &lines, &code)
}

/// The definitions of `text` as the map lists them: top-level items, and the members of types
/// indented by two spaces a level. Variables and fields are left out. A file that defines
/// nothing lists what it re-exports (`exports::reexports`): the list a new public name joins;
/// a file that re-exports nothing either, its top-level variables.
pub fn definitions(path: &str, text: &str) -> Vec<String> {
    let parsed = parse(path, text);
    let listed: Vec<String> = parsed
        .iter()
        .filter(|d| shown(d))
        .take(MAX_DEFS)
        .map(|d| format!("{}{}", "  ".repeat(usize::from(d.depth)), d.signature))
        .collect();
    if !listed.is_empty() {
        return listed;
    }
    let reexported = lang(path).map_or(Vec::new(), |lang| exports::reexports(lang, text));
    if !reexported.is_empty() {
        return reexported;
    }
    // A module of names only (`is_py3 = …`, `DEFAULT_TIMEOUT = 30`): its top-level names.
    parsed
        .iter()
        .filter(|d| d.kind == Kind::Variable && d.depth == 0)
        .take(MAX_DEFS)
        .map(|d| d.signature.clone())
        .collect()
}

fn shown(d: &Def) -> bool {
    match d.kind {
        Kind::Variable => false,
        Kind::Namespace => d.depth == 0 && !d.name.is_empty(),
        Kind::Impl | Kind::Macro => d.depth == 0,
        _ => d.depth <= MAX_DEPTH,
    }
}

/// `text` with its comments and the insides of its strings blanked, byte for byte.
pub fn blanked(lang: Lang, text: &str) -> String {
    lexer::blank(lang, text)
}

/// What `line` (one line of a file in `lang`, as written) defines: its kind and the name's
/// byte range. Read alone, without the file around it, as the ranker reads lines.
pub fn defined_on(lang: Lang, line: &str) -> Option<(Kind, std::ops::Range<usize>)> {
    let code = lexer::blank(lang, line);
    recognize::recognize(lang, &code, Ctx::default()).map(|f| (f.kind, f.name))
}

#[cfg(test)]
mod map_tests {
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
    fn a_module_of_names_only_lists_its_names_and_a_barrel_its_re_exports() {
        let compat = "import sys\n\n_ver = sys.version_info\nis_py2 = _ver[0] == 2\nis_py3 = _ver[0] == 3\n\nif is_py3:\n    builtin_str = str\n";
        assert_eq!(
            definitions("src/requests/compat.py", compat),
            [
                "_ver = sys.version_info",
                "is_py2 = _ver[0] == 2",
                "is_py3 = _ver[0] == 3"
            ]
        );
        let init = "from .api import get, post\nVERSION = \"1\"\n";
        assert_eq!(
            definitions("pkg/__init__.py", init),
            ["from .api import get, post"]
        );
        let module = "TIMEOUT = 30\n\ndef get(url):\n    pass\n";
        assert_eq!(definitions("pkg/api.py", module), ["def get(url)"]);
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
