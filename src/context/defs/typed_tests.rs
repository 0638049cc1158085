//! The typed languages' line rules ([`super::typed`]), read through [`super::recognize`].

use super::recognize::recognize;
use super::tokens::Ctx;
use super::{Kind, Lang, lexer};

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

/// A definition of `kind` named `n`, as [`name`] reports it.
fn k(kind: Kind, n: &str) -> Option<(Kind, String)> {
    Some((kind, n.to_string()))
}

#[test]
fn java_lines() {
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
}

#[test]
fn kotlin_and_csharp_lines() {
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
}

#[test]
fn swift_and_php_lines() {
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
