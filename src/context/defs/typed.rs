//! Definitions in the typed languages: Java, Kotlin, C#, Swift, PHP, C and C++. Each writes a
//! definition as modifiers and annotations, then a keyword and a name (`class Foo`, `fun bar`,
//! `func baz`, `function qux`, `#define N`), or a type and a name followed by its parameters
//! (`static int parse_args(int argc, …)`, `public List<T> of(T x)`, `Foo::~Foo()`).

use super::Kind;
use super::Lang;
use super::keywords::STATEMENTS;
use super::recognize::{Ctx, Found, Tok, found, skip_group};

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

#[cfg(test)]
mod tests {
    use super::super::recognize::{Ctx, recognize};
    use super::super::{Kind, Lang, lexer};

    fn name(lang: Lang, line: &str, in_type: bool) -> Option<(Kind, String)> {
        let blanked = lexer::blank(lang, line);
        recognize(lang, &blanked, Ctx { in_type }).map(|f| (f.kind, line[f.name].to_string()))
    }

    #[test]
    fn c_and_cpp_lines() {
        let k = |kind, n: &str| Some((kind, n.to_string()));
        let c = |l| name(Lang::C, l, false);
        let cpp = |l| name(Lang::Cpp, l, false);
        assert_eq!(
            c("static int parse_args(int argc, char **argv)"),
            k(Kind::Function, "parse_args")
        );
        assert_eq!(
            c("CURL_EXTERN CURLcode curl_easy_perform(CURL *curl);"),
            k(Kind::Function, "curl_easy_perform")
        );
        assert_eq!(
            c("struct node *make_node(int v) {"),
            k(Kind::Function, "make_node")
        );
        assert_eq!(
            c("parse_url(const char *url, struct url *out)"),
            k(Kind::Function, "parse_url")
        );
        assert_eq!(c("#define MAX_LEN 64"), k(Kind::Macro, "MAX_LEN"));
        assert_eq!(
            c("# define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))"),
            k(Kind::Macro, "ARRAY_SIZE")
        );
        assert_eq!(c("typedef struct node {"), k(Kind::Type, "node"));
        assert_eq!(
            c("typedef int (*compare_fn)(const void *, const void *);"),
            k(Kind::Alias, "compare_fn")
        );
        assert_eq!(
            c("typedef unsigned long ulong_t;"),
            k(Kind::Alias, "ulong_t")
        );
        assert_eq!(
            c("static const char *const NAMES[] = {"),
            k(Kind::Constant, "NAMES")
        );
        assert_eq!(
            c("struct stat st;"),
            k(Kind::Variable, "st"),
            "a global, not a type"
        );
        assert_eq!(c("    return parse(x);"), None);
        assert_eq!(c("    if (x) {"), None);
        assert_eq!(c("    foo(x);"), None);
        assert_eq!(c("    x = make_node(3);"), None);
        assert_eq!(c("enum color { RED, GREEN };"), k(Kind::Type, "color"));
        assert_eq!(
            cpp("template <typename T> class Q_CORE_EXPORT QList : public Base {"),
            k(Kind::Type, "QList")
        );
        assert_eq!(
            cpp("std::vector<int> Parser::tokens(const std::string &s) const {"),
            k(Kind::Function, "tokens")
        );
        assert_eq!(cpp("Parser::~Parser() {"), k(Kind::Function, "Parser"));
        assert_eq!(
            cpp("bool operator==(const Foo &a, const Foo &b);"),
            k(Kind::Function, "operator")
        );
        assert_eq!(cpp("namespace detail {"), k(Kind::Namespace, "detail"));
        assert_eq!(cpp("enum class Color : int {"), k(Kind::Type, "Color"));
        assert_eq!(
            cpp("constexpr int kMaxDepth = 16;"),
            k(Kind::Constant, "kMaxDepth")
        );
        assert_eq!(
            cpp("[[nodiscard]] inline auto size() const noexcept -> size_t {"),
            k(Kind::Function, "size")
        );
        assert_eq!(
            name(Lang::Cpp, "  explicit Parser(std::string text);", true),
            k(Kind::Function, "Parser")
        );
        assert_eq!(cpp("    delete p;"), None);
        assert_eq!(cpp("    throw std::runtime_error(\"x\");"), None);
    }

    #[test]
    fn jvm_dotnet_swift_and_php_lines() {
        let k = |kind, n: &str| Some((kind, n.to_string()));
        let java = |l| name(Lang::Java, l, true);
        assert_eq!(
            java("  @Override public <T> List<T> of(T first, T... rest) {"),
            k(Kind::Function, "of")
        );
        assert_eq!(
            java("  public static final int MAX_SIZE = 64;"),
            k(Kind::Constant, "MAX_SIZE")
        );
        assert_eq!(
            java("  private final Map<String, List<Integer>> index = new HashMap<>();"),
            k(Kind::Variable, "index")
        );
        assert_eq!(
            java("  public Parser(String text) {"),
            k(Kind::Function, "Parser")
        );
        assert_eq!(
            java("public sealed interface Shape permits Circle, Square {"),
            k(Kind::Type, "Shape")
        );
        assert_eq!(
            java("public record Point(int x, int y) {"),
            k(Kind::Type, "Point")
        );
        assert_eq!(java("public @interface Retry {"), k(Kind::Type, "Retry"));
        assert_eq!(java("    return of(x);"), None);
        assert_eq!(java("    static {"), None);
        assert_eq!(name(Lang::Java, "    String s = format(x);", false), None);
        assert_eq!(
            java("    String s = format(x);"),
            k(Kind::Variable, "s"),
            "a field"
        );
        let kt = |l| name(Lang::Kotlin, l, false);
        assert_eq!(
            kt("suspend fun <T> Flow<T>.firstOrNull(): T? {"),
            k(Kind::Function, "firstOrNull")
        );
        assert_eq!(kt("enum class Mode { ON, OFF }"), k(Kind::Type, "Mode"));
        assert_eq!(kt("data class User(val id: Long)"), k(Kind::Type, "User"));
        assert_eq!(kt("const val TIMEOUT = 30"), k(Kind::Constant, "TIMEOUT"));
        assert_eq!(
            kt("    companion object {"),
            k(Kind::Namespace, ""),
            "its members are the class's"
        );
        let cs = |l| name(Lang::CSharp, l, true);
        assert_eq!(
            cs("    public async Task<int> CountAsync(CancellationToken ct = default)"),
            k(Kind::Function, "CountAsync")
        );
        assert_eq!(
            cs("    public string Name { get; set; }"),
            k(Kind::Variable, "Name")
        );
        assert_eq!(
            cs("    public const int Limit = 3;"),
            k(Kind::Constant, "Limit")
        );
        assert_eq!(cs("namespace Acme.Billing;"), k(Kind::Namespace, "Billing"));
        assert_eq!(
            cs("    [HttpGet(\"{id}\")] public IActionResult Get(int id) {"),
            k(Kind::Function, "Get")
        );
        let swift = |l| name(Lang::Swift, l, false);
        assert_eq!(
            swift("    @discardableResult public func send<T: Encodable>(_ v: T) throws -> Int {"),
            k(Kind::Function, "send")
        );
        assert_eq!(
            swift("public protocol Cache: AnyObject {"),
            k(Kind::Type, "Cache")
        );
        assert_eq!(swift("extension String {"), k(Kind::Impl, "String"));
        assert_eq!(
            swift("    init?(rawValue: String) {"),
            k(Kind::Function, "init")
        );
        assert_eq!(
            swift("    static func == (a: Self, b: Self) -> Bool {"),
            k(Kind::Function, "==")
        );
        let php = |l| name(Lang::Php, l, false);
        assert_eq!(
            php("    public static function &getInstance(): self {"),
            k(Kind::Function, "getInstance")
        );
        assert_eq!(
            php("final class RedirectResponse extends Response"),
            k(Kind::Type, "RedirectResponse")
        );
        assert_eq!(
            php("    const DEFAULT_PORT = 80;"),
            k(Kind::Constant, "DEFAULT_PORT")
        );
        assert_eq!(
            php("define('APP_ROOT', __DIR__);"),
            k(Kind::Constant, "APP_ROOT")
        );
        assert_eq!(php("    $x = new Foo();"), None);
    }
}
