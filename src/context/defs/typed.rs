//! Definitions in the typed languages: Java, Kotlin, C#, Swift, PHP, C and C++. Each writes a
//! definition as modifiers and annotations, then a keyword and a name (`class Foo`, `fun bar`,
//! `func baz`, `function qux`, `#define N`), or a type and a name followed by its parameters
//! (`static int parse_args(int argc, …)`, `public List<T> of(T x)`, `Foo::~Foo()`).

use super::Kind;
use super::Lang;
use super::keywords::STATEMENTS;
use super::tokens::{Ctx, Found, Tok, found, skip_group};

/// Words that qualify a definition without naming or typing it.
const MODIFIERS: &[&str] = &[
    "public",
    "private",
    "protected",
    "internal",
    "static",
    "final",
    "abstract",
    "sealed",
    "synchronized",
    "native",
    "transient",
    "volatile",
    "strictfp",
    "default",
    "readonly",
    "virtual",
    "override",
    "async",
    "partial",
    "extern",
    "unsafe",
    "new",
    "open",
    "data",
    "inline",
    "suspend",
    "operator",
    "infix",
    "tailrec",
    "external",
    "lateinit",
    "inner",
    "value",
    "annotation",
    "expect",
    "actual",
    "fileprivate",
    "mutating",
    "nonmutating",
    "convenience",
    "required",
    "lazy",
    "weak",
    "unowned",
    "dynamic",
    "nonisolated",
    "indirect",
    "explicit",
    "consteval",
    "constinit",
    "friend",
    "thread_local",
    "mutable",
    "register",
    "enum",
    "companion",
];

/// Words that make a declaration a constant.
const CONSTANT: &[&str] = &["const", "constexpr", "readonly"];

/// What `line` (blanked, tokenized) defines in a file of a typed language.
pub fn recognize(lang: Lang, line: &str, toks: &[Tok<'_>], ctx: Ctx) -> Option<Found> {
    if matches!(lang, Lang::C | Lang::Cpp) && toks[0].text == "#" {
        return macro_definition(toks);
    }
    let (i, flags) = prefix(lang, toks)?;
    let t = toks.get(i)?;
    if let Some(found) = keyword_form(lang, line, toks, i) {
        return Some(found);
    }
    let c_like = matches!(lang, Lang::C | Lang::Cpp);
    if matches!(t.text, "class" | "struct" | "interface" | "enum" | "union") && !c_like {
        return None;
    }
    // Kotlin, Swift and PHP define everything with a keyword.
    match lang {
        Lang::Kotlin | Lang::Swift | Lang::Php => None,
        _ => typed_declaration(lang, line, toks, i, flags, ctx),
    }
}

/// What leads a declaration: the index after annotations, attributes and modifiers, and
/// whether a modifier was among them (and a constant's).
fn prefix(lang: Lang, toks: &[Tok<'_>]) -> Option<(usize, Flags)> {
    let mut i = 0;
    let mut flags = Flags::default();
    loop {
        let before = i;
        let t = toks.get(i)?;
        match t.text {
            // `@Override`, `@Deprecated(since = "1")`, but not Java's `@interface`.
            "@" if toks.get(i + 1).is_some_and(|t| t.text != "interface") => {
                i = skip_group(toks, i + 2);
            }
            // C# `[Attr]`, C++ `[[nodiscard]]`, PHP `#[Attr]`.
            "[" if i == 0 || toks[i - 1].text == "]" => i = skip_group(toks, i),
            "#" if lang == Lang::Php && toks.get(i + 1).is_some_and(|t| t.text == "[") => {
                i = skip_group(toks, i + 1);
            }
            "__attribute__" | "__declspec" | "alignas" => i = skip_group(toks, i + 1),
            "template" => i = skip_group(toks, i + 1),
            "static" if lang == Lang::Java && toks.get(i + 1).is_some_and(|t| t.text == "{") => {
                return None;
            }
            // C#'s `public new void Hide()`, not `new Foo(…)`.
            "new" if flags.modifier && lang == Lang::CSharp => i += 1,
            w if MODIFIERS.contains(&w) && !is_type_keyword(toks, i) => {
                flags.modifier = true;
                flags.static_ |= w == "static";
                flags.final_ |= w == "final";
                i += 1;
            }
            w if CONSTANT.contains(&w) && lang != Lang::Php && lang != Lang::Swift => {
                flags.constant = true;
                i += 1;
            }
            _ => {}
        }
        if i == before {
            return Some((i, flags));
        }
    }
}

/// `enum` qualifies `class` (Kotlin's and C++'s `enum class`) and is a type keyword alone;
/// `companion` qualifies `object`.
fn is_type_keyword(toks: &[Tok<'_>], i: usize) -> bool {
    let next = toks.get(i + 1).map(|t| t.text);
    toks[i].text == "enum" && !matches!(next, Some("class" | "struct"))
        || toks[i].text == "companion" && next != Some("object")
}

#[derive(Debug, Default, Clone, Copy)]
struct Flags {
    modifier: bool,
    static_: bool,
    final_: bool,
    constant: bool,
}

/// `#define NAME …`.
fn macro_definition(toks: &[Tok<'_>]) -> Option<Found> {
    (toks.get(1)?.text == "define").then_some(())?;
    found(Kind::Macro, toks.get(2)?)
}

/// A keyword and a name: `class Foo`, `fun Foo.bar`, `func baz`, `function qux`, `typedef … T;`,
/// `namespace a::b`, `val x`, `const X`, `typealias T`.
fn keyword_form(lang: Lang, line: &str, toks: &[Tok<'_>], i: usize) -> Option<Found> {
    let word = toks[i].text;
    let kind = match word {
        "class" | "interface" | "struct" | "union" | "enum" | "record" | "trait" | "protocol"
        | "object" | "actor" => Kind::Type,
        "extension" if lang == Lang::Swift => Kind::Impl,
        "namespace" => Kind::Namespace,
        "typedef" => return typedef(toks, i),
        "typealias" | "using"
            if toks.get(i + 2).is_some_and(|t| t.text == "=") || word == "typealias" =>
        {
            Kind::Alias
        }
        "fun" | "func" | "function" | "def" | "init" | "deinit" | "subscript" | "constructor" => {
            return function_keyword(lang, toks, i);
        }
        "val" | "var" | "let" if matches!(lang, Lang::Kotlin | Lang::Swift) => {
            return property(lang, toks, i);
        }
        "const" if lang == Lang::Php => Kind::Constant,
        "define" if lang == Lang::Php => return php_define(line, toks, i),
        "@" if toks.get(i + 1).is_some_and(|t| t.text == "interface") => {
            return found(Kind::Type, toks.get(i + 2)?);
        }
        _ => return None,
    };
    type_name(lang, toks, i, kind)
}

/// The name after a type keyword: the last word before what follows a name (`Foo` in
/// `class Q_EXPORT Foo : public Bar`, `enum class Color : int`, `class Foo<T> extends Bar`).
fn type_name(lang: Lang, toks: &[Tok<'_>], i: usize, kind: Kind) -> Option<Found> {
    let mut j = i + 1;
    if toks
        .get(j)
        .is_some_and(|t| t.text == "class" || t.text == "struct")
    {
        j += 1;
    }
    let mut name: Option<Tok<'_>> = None;
    while let Some(t) = toks.get(j) {
        match t.text {
            "::" | "." | "\\" => {}
            "extends" | "implements" | "where" | "final" | "permits" | "sealed" => break,
            _ if t.is_ident() => name = Some(*t),
            "[" if toks.get(j + 1).is_some_and(|t| t.text == "[") => {
                j = skip_group(toks, j);
                continue;
            }
            _ => break,
        }
        j += 1;
    }
    let after = toks.get(j).map(|t| t.text);
    // In C and C++, `struct foo *make(…)` and `struct stat st;` use a type, not define one.
    if matches!(lang, Lang::C | Lang::Cpp)
        && kind == Kind::Type
        && !matches!(after, None | Some("{" | ":" | "final" | "<"))
    {
        return None;
    }
    let companion = i > 0 && toks[i - 1].text == "companion";
    if (kind == Kind::Namespace || companion) && name.is_none() {
        let t = toks[i];
        return Some(Found {
            kind: Kind::Namespace,
            name: t.at..t.at,
        });
    }
    found(kind, &name?)
}

/// `typedef struct node {` (the tag), `typedef unsigned long size;`, `typedef int (*cb)(int);`.
fn typedef(toks: &[Tok<'_>], i: usize) -> Option<Found> {
    let next = toks.get(i + 1)?;
    if matches!(next.text, "struct" | "union" | "enum") {
        return match toks.get(i + 2) {
            Some(t) if t.is_ident() && toks.get(i + 3).is_none_or(|t| t.text == "{") => {
                found(Kind::Type, t)
            }
            Some(t) if t.text == "{" => Some(Found {
                kind: Kind::Type,
                name: t.at..t.at,
            }),
            _ => typedef_alias(toks),
        };
    }
    typedef_alias(toks)
}

/// A typedef's new name: inside `(*name)` for a function pointer, else the last word before `;`.
fn typedef_alias(toks: &[Tok<'_>]) -> Option<Found> {
    if let Some(p) = toks
        .windows(3)
        .position(|w| w[0].text == "(" && w[1].text == "*")
    {
        return found(Kind::Alias, &toks[p + 2]);
    }
    let end = toks.iter().position(|t| t.text == ";" || t.text == "[")?;
    found(Kind::Alias, toks[..end].last()?)
}

/// `fun <T> Foo.bar(`, `func name<T>(`, `function &name(`, Swift's `init(`.
fn function_keyword(lang: Lang, toks: &[Tok<'_>], i: usize) -> Option<Found> {
    let word = toks[i];
    if matches!(word.text, "init" | "deinit" | "subscript" | "constructor") {
        let ok = matches!(lang, Lang::Swift | Lang::Kotlin)
            && toks
                .get(i + 1)
                .is_none_or(|t| matches!(t.text, "(" | "?" | "!" | "<" | "{"));
        return ok.then(|| Found {
            kind: Kind::Function,
            name: word.range(),
        });
    }
    if word.text == "def" && lang != Lang::Kotlin {
        return None;
    }
    let mut j = skip_group(toks, i + 1);
    if toks.get(j).is_some_and(|t| t.text == "&") {
        j += 1;
    }
    // An operator (`func ==(`): the punctuation up to the parameters is the name.
    if toks.get(j).is_some_and(|t| !t.is_ident()) {
        let end = j + toks[j..]
            .iter()
            .position(|t| t.text == "(" || t.is_ident())?;
        let last = toks.get(end.checked_sub(1)?.max(j))?;
        return Some(Found {
            kind: Kind::Function,
            name: toks[j].at..last.at + last.text.len(),
        });
    }
    // A receiver (`fun <T> Flow<T>.first(`): the name is the last word before the parameters.
    let mut name = None;
    while let Some(t) = toks.get(j) {
        match t.text {
            "<" if name.is_some() => {
                let after = skip_group(toks, j);
                if toks.get(after).is_none_or(|t| t.text != ".") {
                    break;
                }
                j = after;
                continue;
            }
            _ if t.is_ident() => name = Some(*t),
            "." | "?" => {}
            _ => break,
        }
        j += 1;
    }
    found(Kind::Function, &name?)
}

/// Kotlin `val`/`var` and Swift `let`/`var`: a constant when `const` or written in capitals.
fn property(lang: Lang, toks: &[Tok<'_>], i: usize) -> Option<Found> {
    let mut j = i + 1;
    // `val Foo.bar`: an extension property.
    while toks.get(j + 1).is_some_and(|t| t.text == ".") {
        j += 2;
    }
    let name = toks.get(j)?;
    let constant = toks[..i].iter().any(|t| t.text == "const")
        || name
            .text
            .chars()
            .all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit())
            && name.text.chars().any(|c| c.is_ascii_uppercase())
        || lang == Lang::Swift
            && toks[..i].iter().any(|t| t.text == "static")
            && toks[i].text == "let";
    found(
        if constant {
            Kind::Constant
        } else {
            Kind::Variable
        },
        name,
    )
}

/// PHP `define('NAME', …)`: the name is the string's text (blanked in `line`).
fn php_define(line: &str, toks: &[Tok<'_>], i: usize) -> Option<Found> {
    (toks.get(i + 1)?.text == "(" && i == 0).then_some(())?;
    let open = toks.get(i + 2)?;
    (open.text == "'" || open.text == "\"").then_some(())?;
    let start = open.at + 1;
    let end = start + line[start..].find(open.text)?;
    Some(Found {
        kind: Kind::Constant,
        name: start..end,
    })
}

/// A type then a name (`static int parse(…)`, `public List<T> of(`, `const char *NAME = …;`,
/// `Foo::Foo(…)`, a GNU-style `name (…)` at the start of a line), or, in a type's body, a
/// constructor (`Foo(int x)`), a field or a property.
fn typed_declaration(
    lang: Lang,
    line: &str,
    toks: &[Tok<'_>],
    i: usize,
    flags: Flags,
    ctx: Ctx,
) -> Option<Found> {
    let open = find_open(toks, i)?;
    if open == i {
        return None;
    }
    let (name_at, qualified) = name_before(toks, i, open)?;
    let name = toks[name_at];
    let types = &toks[i..start_of_qualified(toks, i, name_at)];
    if !is_type(types) {
        return None;
    }
    let at_line_start = line.starts_with(name.text) && types.is_empty();
    match toks[open].text {
        "(" => {
            let callable = !types.is_empty()
                || qualified
                || flags.modifier
                || ctx.in_type && toks.get(open + 1).is_some()
                || matches!(lang, Lang::C | Lang::Cpp)
                    && at_line_start
                    && !line.trim_end().ends_with(';');
            callable.then(|| Found {
                kind: Kind::Function,
                name: name.range(),
            })
        }
        _ if types.is_empty() => None,
        "{" | "=>" if lang == Lang::CSharp && ctx.in_type => found(Kind::Variable, &name),
        "{" => None,
        _ => {
            let constant = flags.constant
                || flags.static_ && flags.final_
                || is_upper(name.text) && (flags.static_ || flags.final_ || !ctx.in_type);
            let kind = if constant {
                Kind::Constant
            } else {
                Kind::Variable
            };
            (ctx.in_type || constant || !types.is_empty() && line.starts_with(toks[0].text)).then(
                || Found {
                    kind,
                    name: name.range(),
                },
            )
        }
    }
}

/// Where a declaration's name ends: the first `(`, `=`, `;`, `{`, `=>` or `,` outside generic
/// arguments (`Map<String, List<T>> index = …`); past `operator==` and `operator()`.
fn find_open(toks: &[Tok<'_>], i: usize) -> Option<usize> {
    let mut j = i;
    while let Some(t) = toks.get(j) {
        match t.text {
            "operator" => {
                let k = j + 1 + toks[j + 1..].iter().position(|t| t.text == "(")?;
                let paren = toks.get(k + 1).is_some_and(|t| t.text == ")") && k == j + 1;
                return Some(if paren { k + 2 } else { k });
            }
            "<" => {
                let after = skip_group(toks, j);
                j = if after < toks.len() || toks.last().is_some_and(|t| t.text == ">") {
                    after
                } else {
                    j + 1
                };
                continue;
            }
            "(" | "=" | ";" | "{" | "=>" | "," => return Some(j),
            _ => {}
        }
        j += 1;
    }
    None
}

/// Whether tokens before a name can be its type and qualifiers (`static const char *`,
/// `java.util.List<? extends T>`, `std::vector<int>`), not an expression or a statement.
fn is_type(types: &[Tok<'_>]) -> bool {
    let forbidden = |t: &Tok<'_>| {
        STATEMENTS.contains(&t.text)
            || matches!(
                t.text,
                "=" | "(" | ")" | "!" | "+" | "-" | "/" | "|" | "'" | "\"" | "}" | "%" | "^" | "->"
            )
    };
    !types.iter().any(forbidden) && types.last().is_none_or(|t| t.text != "." && t.text != "\\")
}

fn is_upper(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// The name just before `open`, skipping generic arguments (`of<T>(`) and array marks; and
/// whether it is qualified (`Foo::bar`, `Foo::~Foo`, `operator==`).
fn name_before(toks: &[Tok<'_>], i: usize, open: usize) -> Option<(usize, bool)> {
    let mut j = open.checked_sub(1)?;
    // `NAMES[] = …`, `buf[64];`: back over the array marks.
    while j > i && toks[j].text == "]" {
        j = j.checked_sub(1 + toks[..j].iter().rev().position(|t| t.text == "[")?)?;
        j = j.checked_sub(1)?;
    }
    if toks[j].text == ">" {
        // `of<T>(`: back over the group.
        let mut depth = 0;
        while j > i {
            match toks[j].text {
                ">" => depth += 1,
                "<" => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                break;
            }
            j -= 1;
        }
        j = j.checked_sub(1)?;
    }
    if j < i {
        return None;
    }
    // `operator==`, `operator()`: the name is the operator.
    if let Some(op) = toks[i..=j].iter().rposition(|t| t.text == "operator") {
        return Some((i + op, true));
    }
    if !toks[j].is_ident() {
        return None;
    }
    let qualified = j >= 1
        && (toks[j - 1].text == "::"
            || toks[j - 1].text == "~" && j >= 2 && toks[j - 2].text == "::");
    Some((j, qualified))
}

/// Where a qualified name (`ns::Foo::~Foo`) starts.
fn start_of_qualified(toks: &[Tok<'_>], i: usize, name_at: usize) -> usize {
    let mut s = name_at;
    if s > i && toks[s - 1].text == "~" {
        s -= 1;
    }
    while s >= i + 2 && toks[s - 1].text == "::" && toks[s - 2].is_ident() {
        s -= 2;
    }
    if s > i && toks[s - 1].text == "::" {
        s -= 1;
    }
    s
}
