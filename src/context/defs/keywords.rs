//! The reserved words of each language and the commonest words of English: names that are never
//! worth "defines X". `static final int X` does not define `final`, and a file that happens to
//! define `of` or `is` is not thereby about a goal written in English.

use super::Lang;

const PYTHON: &str = "and as assert async await break class continue def del elif else except \
    false finally for from global if import in is lambda none nonlocal not or pass raise return \
    true try while with yield self cls print match case";
const RUST: &str = "as async await break const continue crate dyn else enum extern false fn for \
    if impl in let loop match mod move mut pub ref return self static struct super trait true \
    type union unsafe use where while box macro_rules bool char str u8 u16 u32 u64 u128 usize i8 \
    i16 i32 i64 i128 isize f32 f64 String Vec Option Result
    Some None Ok Err Box Self";
const SCRIPT: &str = "abstract any as async await boolean break case catch class const \
    constructor continue debugger declare default delete do else enum export extends false \
    finally for from function get if implements import in instanceof interface keyof let module \
    namespace never new null number object of private protected public readonly require return \
    set static string super switch symbol this throw true try type typeof undefined unknown var \
    void while with yield";
const GO: &str = "break case chan const continue default defer else fallthrough for func go goto \
    if import interface map package range return select struct switch type var bool byte error \
    float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 \
    uintptr nil true false iota make new len cap append";
const JAVA: &str = "abstract assert boolean break byte case catch char class const continue \
    default do double else enum extends final finally float for goto if implements import \
    instanceof int interface long native new package private protected public return short \
    static strictfp super switch synchronized this throw throws transient try void volatile \
    while var record sealed permits yield true false null string object";
const KOTLIN: &str = "as break class continue do else false for fun if in interface is null \
    object package return super this throw true try typealias typeof val var when while by \
    catch constructor delegate dynamic field file finally get import init param property \
    receiver set setparam where abstract actual annotation companion const crossinline data enum \
    expect external final infix inline inner internal lateinit noinline open operator out \
    override private protected public reified sealed suspend tailrec vararg unit any int long \
    string boolean";
const CSHARP: &str = "abstract as base bool break byte case catch char checked class const \
    continue decimal default delegate do double else enum event explicit extern false finally \
    fixed float for foreach goto if implicit in int interface internal is lock long namespace new \
    null object operator out override params private protected public readonly ref return sbyte \
    sealed short sizeof stackalloc static string struct switch this throw true try typeof uint \
    ulong unchecked unsafe ushort using virtual void volatile while async await var dynamic get \
    set init value record partial where yield nameof when";
const SWIFT: &str = "associatedtype class deinit enum extension fileprivate func import init \
    inout internal let open operator private protocol public rethrows static struct subscript \
    typealias var break case continue default defer do else fallthrough for guard if in repeat \
    return switch where while as any catch false is nil super self throw throws true try async \
    await actor convenience dynamic final lazy mutating nonmutating optional override required \
    some weak unowned int string bool double";
const PHP: &str = "abstract and array as break callable case catch class clone const continue \
    declare default do echo else elseif empty enddeclare endfor endforeach endif endswitch \
    endwhile enum extends final finally fn for foreach function global goto if implements \
    include include_once instanceof insteadof interface isset list match namespace new or print \
    private protected public readonly require require_once return static switch throw trait try \
    unset use var while xor yield true false null self parent int string bool float mixed void";
const RUBY: &str = "alias and begin break case class def defined do else elsif end ensure false \
    for if in module next nil not or redo rescue retry return self super then true undef unless \
    until when while yield require require_relative include extend attr_reader attr_writer \
    attr_accessor private protected public raise puts lambda proc new initialize";
const C: &str = "auto break case char const continue default do double else enum extern float \
    for goto if inline int long register restrict return short signed sizeof static struct \
    switch typedef union unsigned void volatile while bool true false null define include ifdef \
    ifndef endif undef pragma elif size_t";
const CPP: &str = "alignas alignof and asm auto bool break case catch char char8_t char16_t \
    char32_t class concept const consteval constexpr constinit const_cast continue co_await \
    co_return co_yield decltype default delete do double dynamic_cast else enum explicit export \
    extern false float for friend goto if inline int long mutable namespace new noexcept not \
    nullptr operator or private protected public register reinterpret_cast requires return short \
    signed sizeof static static_assert static_cast struct switch template this thread_local \
    throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t \
    while final override define include ifdef ifndef endif undef pragma elif size_t std string";

/// The commonest words of English prose (articles, pronouns, prepositions, conjunctions,
/// auxiliaries), and the words of web and package addresses (`org`, `com`, `www`): in a goal
/// they are prose, whatever a file of the tree happens to define.
const COMMON: &str = "a about above after again against all also am an and any are as at be \
    because been before being below between both but by can could did do does doing down during \
    each either etc few for from further had has have having he her here hers him his how i if \
    in into is it its itself just may me might more most must my neither no nor not now of off \
    on once only onto or other ought our out over own per same shall she should since so some \
    such than that the their them then there these they this those though through thus to too \
    under until up upon us very via was we were what when where whether which while who whom \
    whose why will with within without would yet you your org com www http https html";

/// Words that, in a typed language, may stand before a name without making it a definition:
/// `return foo(x)`, `new Foo(x)`, `else if (x)`.
pub(super) const STATEMENTS: &[&str] = &[
    "return", "new", "throw", "else", "case", "goto", "delete", "await", "yield", "echo", "print",
    "do", "if", "while", "for", "switch", "catch", "using", "import", "package", "include",
    "require", "sizeof", "typeof", "not", "and", "or", "in", "is", "as", "when", "defer", "go",
    "puts", "raise", "assert", "elif", "unless", "until", "foreach", "lock", "with", "from",
];

fn words(lang: Lang) -> &'static str {
    match lang {
        Lang::Python => PYTHON,
        Lang::Rust => RUST,
        Lang::Script => SCRIPT,
        Lang::Go => GO,
        Lang::Java => JAVA,
        Lang::Kotlin => KOTLIN,
        Lang::CSharp => CSHARP,
        Lang::Swift => SWIFT,
        Lang::Php => PHP,
        Lang::Ruby => RUBY,
        Lang::C => C,
        Lang::Cpp => CPP,
    }
}

/// Whether `word`, as written, is a reserved word or a built-in type of `lang` (PHP's
/// keywords in any case; `Get` is not C#'s `get`).
pub fn is_keyword(lang: Lang, word: &str) -> bool {
    let lower;
    let word = if lang == Lang::Php {
        lower = word.to_ascii_lowercase();
        lower.as_str()
    } else {
        word
    };
    words(lang).split_ascii_whitespace().any(|k| k == word)
}

/// Whether `word` (any case) is one of the commonest words of English prose.
pub fn is_common_word(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    COMMON.split_ascii_whitespace().any(|k| k == lower)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_are_per_language() {
        assert!(is_keyword(Lang::Java, "final"));
        assert!(is_keyword(Lang::Java, "static"));
        assert!(!is_keyword(Lang::Python, "final"));
        assert!(is_keyword(Lang::Cpp, "template"));
        assert!(!is_keyword(Lang::C, "template"));
        assert!(is_keyword(Lang::Ruby, "end"));
        assert!(!is_keyword(Lang::Java, "parse"));
        assert!(!is_keyword(Lang::CSharp, "Get") && is_keyword(Lang::CSharp, "get"));
        assert!(is_keyword(Lang::Php, "FUNCTION"));
        assert!(is_common_word("of") && is_common_word("Is") && is_common_word("org"));
        assert!(!is_common_word("parse") && !is_common_word("add"));
    }
}
