//! What one line of code defines, if anything: its kind and where its name is. The line is read
//! after [`super::lexer::blank`], so words in comments and strings are gone; the name's byte
//! range is the same in the original line. Python, Ruby, Rust, Go and JavaScript/TypeScript are
//! here; the typed languages (Java, Kotlin, C#, Swift, PHP, C, C++) in [`super::typed`].

use super::tokens::{Ctx, Found, Tok, found, skip_group, skip_words, tokens};
use super::{Kind, Lang, typed};

/// What `line` (blanked) defines in a file of `lang`.
pub fn recognize(lang: Lang, line: &str, ctx: Ctx) -> Option<Found> {
    let toks = tokens(line);
    if toks.is_empty() {
        return None;
    }
    let found = match lang {
        Lang::Python => python(line, &toks),
        Lang::Ruby => ruby(&toks),
        Lang::Rust => rust(&toks),
        Lang::Go => go(line, &toks),
        Lang::Script => script(line, &toks, ctx),
        _ => typed::recognize(lang, line, &toks, ctx),
    }?;
    // A keyword names nothing, except the constructors and operators languages name by one.
    let name = &line[found.name.clone()];
    let named_by_keyword = matches!(
        name,
        "init" | "deinit" | "constructor" | "subscript" | "operator" | "initialize"
    );
    if !name.is_empty()
        && lang != Lang::Ruby
        && !named_by_keyword
        && super::keywords::is_keyword(lang, name)
    {
        return None;
    }
    Some(found)
}

fn is_upper_name(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Whether the rest of the line assigns (`= …`, not `==`).
fn assigns(toks: &[Tok<'_>], i: usize) -> bool {
    toks.get(i).is_some_and(|t| t.text == "=") && toks.get(i + 1).is_none_or(|t| t.text != "=")
}

fn python(line: &str, toks: &[Tok<'_>]) -> Option<Found> {
    let i = skip_words(toks, 0, &["async"]);
    match toks[i].text {
        "def" => found(Kind::Function, toks.get(i + 1)?),
        "class" => found(Kind::Type, toks.get(i + 1)?),
        _ if line.starts_with(toks[0].text) && toks[0].is_ident() => {
            // A module-level assignment: `NAME = …`, `name: Type = …`.
            let typed = toks.get(1).is_some_and(|t| t.text == ":")
                && toks.iter().skip(2).any(|t| t.text == "=");
            (assigns(toks, 1) || typed).then(|| Found {
                kind: if is_upper_name(toks[0].text) {
                    Kind::Constant
                } else {
                    Kind::Variable
                },
                name: toks[0].range(),
            })
        }
        _ => None,
    }
}

fn ruby(toks: &[Tok<'_>]) -> Option<Found> {
    let i = skip_words(
        toks,
        0,
        &["private", "protected", "public", "module_function"],
    );
    let t = toks.get(i)?;
    match t.text {
        "def" => ruby_method(toks, i + 1),
        "class" if toks.get(i + 1).is_some_and(|t| t.text == "<") => Some(Found {
            kind: Kind::Namespace,
            name: t.at..t.at,
        }),
        "class" | "module" => {
            // `class Foo::Bar < Base`: the last part names it.
            let mut j = i + 1;
            while toks.get(j + 1).is_some_and(|t| t.text == "::") {
                j += 2;
            }
            let kind = if t.text == "class" {
                Kind::Type
            } else {
                Kind::Namespace
            };
            found(kind, toks.get(j)?)
        }
        _ if t.text.starts_with(|c: char| c.is_ascii_uppercase()) && assigns(toks, i + 1) => {
            found(Kind::Constant, t)
        }
        _ => None,
    }
}

/// `def name`, `def self.name`, `def name?`, `def name=(v)`, `def ==(other)`, `def [](i)`.
fn ruby_method(toks: &[Tok<'_>], mut i: usize) -> Option<Found> {
    if toks.get(i + 1).is_some_and(|t| t.text == ".") {
        i += 2;
    }
    let t = toks.get(i)?;
    if !t.is_ident() {
        // An operator: its punctuation up to the parameters.
        let end = toks[i..]
            .iter()
            .position(|t| t.text == "(" && t.at > toks[i].at + 1 || t.is_ident())
            .map_or(toks.len(), |p| i + p);
        let last = toks.get(end.saturating_sub(1).max(i))?;
        return Some(Found {
            kind: Kind::Function,
            name: t.at..last.at + last.text.len(),
        });
    }
    let mut name = t.range();
    if let Some(next) = toks.get(i + 1)
        && next.at == name.end
        && matches!(next.text, "?" | "!" | "=")
        && !(next.text == "=" && toks.get(i + 2).is_some_and(|t| t.text == "="))
    {
        name.end += 1;
    }
    Some(Found {
        kind: Kind::Function,
        name,
    })
}

const RUST_MODIFIERS: &[&str] = &["pub", "async", "unsafe", "default", "extern"];

fn rust(toks: &[Tok<'_>]) -> Option<Found> {
    let mut i = 0;
    let mut public = false;
    loop {
        let before = i;
        if toks.get(i).is_some_and(|t| t.text == "pub") {
            public = true;
            i = skip_group(toks, i + 1);
        }
        i = skip_words(toks, i, RUST_MODIFIERS);
        // `const fn`, `extern "C" fn`: a qualifier, not a constant.
        if toks.get(i).is_some_and(|t| t.text == "const")
            && toks
                .get(i + 1)
                .is_some_and(|t| t.text == "fn" || t.text == "unsafe")
        {
            i += 1;
        }
        if toks.get(i).is_some_and(|t| t.text == "\"") {
            i += 2;
        }
        if i == before {
            break;
        }
    }
    let t = toks.get(i)?;
    let next = toks.get(i + 1)?;
    let kind = match t.text {
        "fn" => Kind::Function,
        "struct" | "enum" | "trait" | "union" => Kind::Type,
        "type" => Kind::Alias,
        "mod" => Kind::Namespace,
        "macro_rules" => return found(Kind::Macro, toks.get(i + 2)?),
        "const" | "static" if public => Kind::Constant,
        "const" | "static" => Kind::Variable,
        "impl" => return rust_impl(toks, i + 1),
        _ => return None,
    };
    let next = if next.text == "mut" {
        toks.get(i + 2)?
    } else {
        next
    };
    found(kind, next)
}

/// `impl<T> Trait for Type<T> {`: the type it is for.
fn rust_impl(toks: &[Tok<'_>], i: usize) -> Option<Found> {
    let mut j = skip_group(toks, i);
    let mut name = None;
    while let Some(t) = toks.get(j) {
        match t.text {
            "{" | "where" => break,
            "for" => name = None,
            "<" => {
                j = skip_group(toks, j);
                continue;
            }
            _ if t.is_ident() && !matches!(t.text, "dyn" | "mut" | "const") => name = Some(*t),
            _ => {}
        }
        j += 1;
    }
    found(Kind::Impl, &name?)
}

fn go(line: &str, toks: &[Tok<'_>]) -> Option<Found> {
    let indented = !line.starts_with(toks[0].text);
    match toks[0].text {
        "func" if toks.get(1).is_some_and(|t| t.text == "(") => {
            let j = skip_group(toks, 1);
            found(Kind::Function, toks.get(j)?)
        }
        "func" => found(Kind::Function, toks.get(1)?),
        "type" => {
            let name = toks.get(1)?;
            let kind = match toks.get(2).map(|t| t.text) {
                Some("struct" | "interface") => Kind::Type,
                Some("[")
                    if toks
                        .iter()
                        .any(|t| t.text == "struct" || t.text == "interface") =>
                {
                    Kind::Type
                }
                _ => Kind::Alias,
            };
            found(kind, name)
        }
        "const" | "var" if toks.get(1).is_some_and(Tok::is_ident) => {
            let kind = if toks[0].text == "const" {
                Kind::Constant
            } else {
                Kind::Variable
            };
            found(kind, &toks[1])
        }
        // A member of a `const (` or `type (` block.
        _ if indented
            && toks[0].is_ident()
            && toks.len() >= 2
            && (assigns(toks, 1)
                || toks[1].is_ident() && toks.get(2).is_none_or(|t| t.text == "=")) =>
        {
            found(Kind::Variable, &toks[0])
        }
        _ => None,
    }
}

const SCRIPT_MODIFIERS: &[&str] = &["export", "default", "declare", "async", "abstract"];
const SCRIPT_MEMBER_MODIFIERS: &[&str] = &[
    "public",
    "private",
    "protected",
    "static",
    "async",
    "get",
    "set",
    "readonly",
    "override",
    "abstract",
    "declare",
];

fn script(line: &str, toks: &[Tok<'_>], ctx: Ctx) -> Option<Found> {
    let i = skip_words(toks, 0, SCRIPT_MODIFIERS);
    let exported = toks[0].text == "export";
    let t = toks.get(i)?;
    let kind = match t.text {
        "function" => {
            let j = if toks.get(i + 1).is_some_and(|t| t.text == "*") {
                i + 2
            } else {
                i + 1
            };
            return found(Kind::Function, toks.get(j)?);
        }
        "class" | "interface" | "enum" => Kind::Type,
        "type" => Kind::Alias,
        "namespace" | "module" => Kind::Namespace,
        "const" | "let" | "var" => return script_binding(line, toks, i, exported),
        _ => return script_member(line, toks, i, ctx).or_else(|| script_export(toks)),
    };
    found(kind, toks.get(i + 1)?)
}

/// `const name = …`: a function when its value is one, a constant when exported.
fn script_binding(line: &str, toks: &[Tok<'_>], i: usize, exported: bool) -> Option<Found> {
    let name = toks.get(i + 1)?;
    let eq = toks.iter().position(|t| t.text == "=")?;
    let value = line[toks[eq].at + 1..].trim_start();
    let value = value.strip_prefix("async").map_or(value, str::trim_start);
    let function = value.starts_with("function")
        || value.starts_with('(') && line.contains("=>")
        || value.split_whitespace().nth(1) == Some("=>");
    let kind = if function {
        Kind::Function
    } else if exported || toks.first().is_some_and(|t| t.text == "export") {
        Kind::Constant
    } else {
        Kind::Variable
    };
    found(kind, name)
}

/// A class member: `name(…) {`, `async name(…) {`, `get name() {`, `name = (…) => {`.
fn script_member(line: &str, toks: &[Tok<'_>], i: usize, ctx: Ctx) -> Option<Found> {
    let j = skip_words(toks, i, SCRIPT_MEMBER_MODIFIERS);
    let j = if toks.get(j).is_some_and(|t| t.text == "#" || t.text == "*") {
        j + 1
    } else {
        j
    };
    let name = toks.get(j)?;
    let next = toks.get(j + 1)?.text;
    let indented = !line.starts_with(toks[0].text);
    let body = line.trim_end().ends_with('{') || line.contains("):");
    let method = (next == "(" || next == "<") && body && (indented || ctx.in_type);
    let arrow = next == "=" && ctx.in_type && line.contains("=>");
    (method || arrow).then_some(())?;
    found(Kind::Function, name)
}

/// `exports.name = …`, `module.exports.name = …`, `Foo.prototype.name = …`.
fn script_export(toks: &[Tok<'_>]) -> Option<Found> {
    let eq = toks.iter().position(|t| t.text == "=")?;
    if eq < 3 || !assigns(toks, eq) || toks[eq - 2].text != "." {
        return None;
    }
    let owner = toks[eq - 3].text;
    (owner == "exports" || owner == "prototype").then_some(())?;
    found(Kind::Function, &toks[eq - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(lang: Lang, line: &str) -> Option<(Kind, String)> {
        let blanked = super::super::lexer::blank(lang, line);
        recognize(lang, &blanked, Ctx::default()).map(|f| (f.kind, line[f.name].to_string()))
    }

    #[test]
    fn scripting_languages_name_what_a_line_defines() {
        let k = |kind, n: &str| Some((kind, n.to_string()));
        assert_eq!(
            name(Lang::Python, "async def fetch(url):"),
            k(Kind::Function, "fetch")
        );
        assert_eq!(name(Lang::Python, "MAX = 3"), k(Kind::Constant, "MAX"));
        assert_eq!(name(Lang::Python, "    x = 3"), None);
        assert_eq!(name(Lang::Python, "if x == 3:"), None);
        assert_eq!(
            name(Lang::Ruby, "  def self.valid?(x)"),
            k(Kind::Function, "valid?")
        );
        assert_eq!(name(Lang::Ruby, "def name=(v)"), k(Kind::Function, "name="));
        assert_eq!(name(Lang::Ruby, "  def ==(other)"), k(Kind::Function, "=="));
        assert_eq!(
            name(Lang::Ruby, "class Foo::Bar < Base"),
            k(Kind::Type, "Bar")
        );
        assert_eq!(name(Lang::Ruby, "  LIMIT = 10"), k(Kind::Constant, "LIMIT"));
        assert_eq!(
            name(Lang::Rust, "pub(crate) const fn f() {}"),
            k(Kind::Function, "f")
        );
        assert_eq!(
            name(Lang::Rust, "impl<T: Ord> Display for Set<T> {"),
            k(Kind::Impl, "Set")
        );
        assert_eq!(
            name(Lang::Rust, "pub static mut N: u8 = 0;"),
            k(Kind::Constant, "N")
        );
        assert_eq!(
            name(Lang::Go, "func (s *Server) Start() error {"),
            k(Kind::Function, "Start")
        );
        assert_eq!(
            name(Lang::Go, "type Opts[T any] struct {"),
            k(Kind::Type, "Opts")
        );
        assert_eq!(
            name(Lang::Script, "export default async function* gen() {"),
            k(Kind::Function, "gen")
        );
        assert_eq!(
            name(Lang::Script, "Foo.prototype.bar = function () {"),
            k(Kind::Function, "bar")
        );
        assert_eq!(name(Lang::Script, "  if (x) {"), None);
        assert_eq!(
            name(Lang::Script, "const x = require('x')"),
            k(Kind::Variable, "x")
        );
    }
}
