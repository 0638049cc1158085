//! Ranking tests: small corpora in every language, each pinning one kind of evidence.

use super::*;

/// `n` unrelated files `lib/otherNN.ext`, each with the text `text` makes of its number: a tree
/// large enough for word rarity to mean something.
fn filler(n: usize, ext: &str, text: impl Fn(usize) -> String) -> Vec<(String, String)> {
    (0..n)
        .map(|i| (format!("lib/other{i:02}.{ext}"), text(i)))
        .collect()
}

fn borrowed(files: &[(String, String)]) -> Vec<(&str, &str)> {
    files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect()
}

fn corpus(files: &[(&str, &str)]) -> Corpus {
    Corpus::of_files(files.iter().map(|(p, t)| {
        (
            p.to_string(),
            super::super::corpus::test_id(t.as_bytes()),
            t.as_bytes(),
        )
    }))
}

fn ranked(files: &[(&str, &str)], goal: &str) -> Vec<String> {
    let c = corpus(files);
    let q = Query::of(goal, &[]);
    rank(&c, &q, &[], &|_| true)
        .files
        .into_iter()
        .map(|r| r.path)
        .collect()
}

#[test]
fn identifier_parts_match_in_any_convention() {
    let c = corpus(&[(
        "a.py",
        "registerHook HTTPAdapter cookie_jar COOKIES utf8 xhook\n",
    )]);
    let q = Query::of("register hooks http adapter cookies utf", &[]);
    let m = Matcher::new(&q);
    let mut found: Vec<String> = Vec::new();
    m.scan(&c.data, 0..c.data.len(), &|_| None, |o| {
        found.push(q.terms[o.term].text.clone());
    });
    found.sort();
    found.dedup();
    assert_eq!(
        found,
        ["adapt", "cook", "hook", "regist"],
        "not xhook nor utf8"
    );
}

#[test]
fn definitions_are_recognised_in_each_language() {
    for (path, text) in [
        ("a.py", "class Foo:\n    def register_hook(self):\n"),
        ("b.rs", "pub(crate) fn register_hook() {}\n"),
        ("c.go", "func (c *Command) register_hook() error {\n"),
        ("d.js", "exports.register_hook = function () {}\n"),
        ("e.ts", "class A {\n  register_hook(x: number) {\n"),
        ("f.py", "register_hook = make_hook()\n"),
    ] {
        let c = corpus(&[
            (path, text),
            ("user.py", "register_hook(1)\nx.register_hook = 2\n"),
        ]);
        let r = rank(
            &c,
            &Query::of("`register_hook` is wrong", &[]),
            &[],
            &|_| true,
        );
        assert_eq!(r.files[0].path, path, "{text}");
        assert!(
            r.files[0]
                .reasons
                .iter()
                .any(|w| w == "defines register_hook"),
            "{:?}",
            r.files[0].reasons
        );
    }
}

#[test]
fn definitions_the_shared_rules_miss_are_read_by_each_languages_rules() {
    for (path, text) in [
        ("g.c", "static int\nregister_hook(struct hook *h)\n{\n"),
        ("h.h", "#define register_hook(h) add_hook(h)\n"),
        ("i.cpp", "void Registry::register_hook(Hook h) {\n"),
        ("j.kt", "fun Registry.register_hook(h: Hook) {\n"),
        ("k.java", "    void register_hook(Hook h) {\n"),
        ("l.rb", "  def self.register_hook(h)\n"),
        ("m.cs", "    internal Task register_hook(Hook h)\n"),
    ] {
        let c = corpus(&[
            (path, text),
            ("user.py", "register_hook(1)\nx.register_hook = 2\n"),
        ]);
        let r = rank(
            &c,
            &Query::of("`register_hook` is wrong", &[]),
            &[],
            &|_| true,
        );
        assert_eq!(r.files[0].path, path, "{text}");
        assert!(
            r.files[0]
                .reasons
                .iter()
                .any(|w| w == "defines register_hook"),
            "{text}: {:?}",
            r.files[0].reasons
        );
    }
}

#[test]
fn a_keyword_or_a_common_word_is_not_a_definition() {
    let reasons = |files: &[(&str, &str)], goal: &str| -> Vec<String> {
        let c = corpus(files);
        let r = rank(&c, &Query::of(goal, &[]), &[], &|_| true);
        r.files.into_iter().flat_map(|f| f.reasons).collect()
    };
    // `static final int LIMIT`: the shared rules see `final` after `static`.
    let config = "public class Config {\n    public static final int LIMIT = 3;\n}\n";
    let got = reasons(
        &[("src/Config.java", config)],
        "make the final field configurable",
    );
    assert!(!got.iter().any(|r| r == "defines final"), "{got:?}");
    // `org` is a web word; `apache` is in the licence header of every file.
    let header = "// Licensed to the Apache Software Foundation\n";
    let mut owned: Vec<(String, String)> = (0..12)
        .map(|i| {
            (
                format!("src/M{i}.java"),
                format!("{header}class M{i} {{}}\n"),
            )
        })
        .collect();
    owned.push(("conf.py".into(), "org = 'x'\napache = True\n".into()));
    owned.push((
        "src/Parser.java".into(),
        format!("{header}class Parser {{\n    public Node parse(String s) {{\n    }}\n}}\n"),
    ));
    let files: Vec<(&str, &str)> = owned
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let goal = "NullPointerException in org.apache.commons.Parser.parse";
    let got = reasons(&files, goal);
    assert!(
        !got.iter()
            .any(|r| r == "defines org" || r == "defines apache"),
        "{got:?}"
    );
    assert!(
        got.iter().any(|r| r == "defines parse"),
        "a rare name still counts: {got:?}"
    );
}

#[test]
fn a_man_page_configure_and_a_test_framework_do_not_outrank_the_code() {
    let page = ".TH FROB 1\n.SH NAME\nfrob \\- frobnicate files\n.SH OPTIONS\n.TP\n\
                .B \\-\\-verbose\nWith --verbose, frob prints each file it frobnicates; \
                without --verbose it prints nothing.\n.SH SEE ALSO\nverbose(7)\n";
    let configure = "#! /bin/sh\n# Guess values for frob.\nif test \"$verbose\" = yes; then\n  \
                     echo frob prints verbose output; fi\n";
    let gtest = "// verbose printing of frob test output\n#define GTEST_VERBOSE 1\n";
    let code = "static int verbose;\n\nint main(int argc, char **argv)\n{\n    \
                if (argc > 1 && strcmp(argv[1], \"--verbose\") == 0)\n        verbose = 1;\n    \
                return 0;\n}\n";
    let got = ranked(
        &[
            ("man/man1/frob.1", page),
            ("configure", configure),
            ("tests/gtest/gtest.h", gtest),
            ("src/frob.c", code),
        ],
        "frob --verbose prints nothing",
    );
    assert_eq!(got[0], "src/frob.c", "{got:?}");
}

#[test]
fn names_meet_paths_in_every_convention() {
    let cop = "module RuboCop\n  class Cop\n  end\nend\n";
    // Files whose text is full of the names' parts, and whose own names hold some of them.
    let style = "style style redundant parentheses parentheses redundant style\n".repeat(8);
    let service = "foo bar service foo bar service times out\n".repeat(8);
    let base = "find on the base of active record, with a scope: base active\n".repeat(8);
    let query = "django db models query order drops query\n".repeat(8);
    let walk = "fs walk fs walk symlink loops\n".repeat(8);
    let tree = [
        ("lib/rubocop/cop/style/redundant_parentheses.rb", cop),
        ("lib/rubocop/cop/style/redundant_return.rb", style.as_str()),
        ("lib/rubocop/cop/mixin/parentheses.rb", style.as_str()),
        ("app/services/foo_bar_service.rb", "class Service; end\n"),
        ("app/services/foo_service.rb", service.as_str()),
        ("app/models/bar.rb", service.as_str()),
        ("web/src/foo-bar-service.ts", "export class Service {}\n"),
        (
            "src/main/java/acme/FooBarService.java",
            "class Service {}\n",
        ),
        ("activerecord/lib/active_record/base.rb", "module X; end\n"),
        ("activerecord/lib/active_record/relation.rb", base.as_str()),
        (
            "activerecord/lib/active_record/base/scoping.rb",
            base.as_str(),
        ),
        ("django/db/models/query.py", "x = 1\n"),
        ("django/db/models/sql/query_utils.py", query.as_str()),
        ("django/db/models/__init__.py", query.as_str()),
        ("src/fs/walk.rs", "fn f() {}\n"),
        ("src/fs/mod.rs", walk.as_str()),
        ("src/walker.rs", walk.as_str()),
    ];
    let first = |goal: &str| ranked(&tree, goal)[0].clone();
    assert_eq!(
        first("Style/RedundantParentheses flags a lambda's parentheses"),
        "lib/rubocop/cop/style/redundant_parentheses.rb"
    );
    let services: Vec<String> = ranked(&tree, "FooBarService times out")
        .into_iter()
        .take(3)
        .collect();
    for path in [
        "app/services/foo_bar_service.rb",
        "web/src/foo-bar-service.ts",
        "src/main/java/acme/FooBarService.java",
    ] {
        assert!(services.iter().any(|s| s == path), "{path}: {services:?}");
    }
    let snake: Vec<String> = ranked(&tree, "foo_bar_service times out")
        .into_iter()
        .take(3)
        .collect();
    assert!(
        snake
            .iter()
            .any(|s| s == "src/main/java/acme/FooBarService.java"),
        "{snake:?}"
    );
    assert_eq!(
        first("ActiveRecord::Base.find ignores the scope"),
        "activerecord/lib/active_record/base.rb"
    );
    assert_eq!(
        first("django.db.models.query drops the order"),
        "django/db/models/query.py"
    );
    assert_eq!(
        first("crate::fs::walk loops on a symlink"),
        "src/fs/walk.rs"
    );
}

#[test]
fn a_c_source_passes_to_its_header_and_a_java_class_to_what_it_imports() {
    let filler = filler(30, "c", |i| {
        format!("int other{i}(void) {{ return {i}; }}\n")
    });
    let mut files = borrowed(&filler);
    files.extend([
        (
            "src/url.c",
            "#include \"url.h\"\nint url_set(struct url *u, int port) {\n    if (port < 1) return fail(\"Invalid port number\");\n    u->port = port;\n    return 0;\n}\n",
        ),
        ("include/url.h", "struct url {\n    int port;\n};\n"),
        (
            "src/main/java/acme/Checkout.java",
            "package acme;\nimport acme.pricing.Discounts;\nclass Checkout {\n    void pay() { throw new IllegalStateException(\"Cart already paid\"); }\n}\n",
        ),
        ("src/main/java/acme/pricing/Discounts.java", "package acme.pricing;\nclass Discounts {}\n"),
    ]);
    let c = corpus(&files);
    let reasons = |goal: &str, path: &str| -> Vec<String> {
        let r = rank(&c, &Query::of(goal, &[]), &[], &|_| true);
        r.files
            .into_iter()
            .find(|f| f.path == path)
            .map(|f| f.reasons)
            .unwrap_or_default()
    };
    let got = reasons(
        "setting a port fails with \"Invalid port number\"",
        "include/url.h",
    );
    assert!(got.iter().any(|r| r == "header of src/url.c"), "{got:?}");
    let got = reasons(
        "paying fails with \"Cart already paid\"",
        "src/main/java/acme/pricing/Discounts.java",
    );
    assert!(
        got.iter()
            .any(|r| r == "imported by src/main/java/acme/Checkout.java"),
        "{got:?}"
    );
}

#[test]
fn a_documentation_example_of_a_headers_name_is_not_its_source() {
    let files = [
        (
            "include/lib/detail/json_pointer.hpp",
            "class json_pointer {\n    // Compares a json_pointer with a string_t.\n    bool operator==(const string_t& s) const;\n};\n",
        ),
        (
            "docs/examples/json_pointer.cpp",
            "#include <lib/json.hpp>\nint main() { json_pointer p(\"/a\"); }\n",
        ),
        ("src/other.cpp", "int other() { return 1; }\n"),
    ];
    let c = corpus(&files);
    let r = rank(
        &c,
        &Query::of("compare a json_pointer with a string_t", &[]),
        &[],
        &|_| true,
    );
    let example = r
        .files
        .iter()
        .find(|f| f.path == "docs/examples/json_pointer.cpp");
    assert!(
        example.is_none_or(|f| !f.reasons.iter().any(|r| r.starts_with("source of"))),
        "{example:?}"
    );
}

#[test]
fn a_function_a_top_file_calls_brings_the_file_beside_it_that_defines_it() {
    let mut owned: Vec<(String, String)> = (0..30)
        .map(|i| {
            (
                format!("pkg/other{i:02}/x.go"),
                format!("package other\n\nfunc F{i}() {{}}\n"),
            )
        })
        .collect();
    owned.push((
        "pkg/cart/cart.go".into(),
        "package cart\n\nfunc (c *Cart) Checkout() error {\n\tif err := applyDiscounts(c.items); err != nil {\n\t\treturn fmt.Errorf(\"checkout failed: %w\", err)\n\t}\n\treturn nil\n}\n".into(),
    ));
    owned.push((
        "pkg/cart/discounts.go".into(),
        "package cart\n\nfunc applyDiscounts(items []Item) error {\n\treturn nil\n}\n".into(),
    ));
    owned.push((
        "pkg/cart/items.go".into(),
        "package cart\n\ntype Item struct{}\n".into(),
    ));
    let files: Vec<(&str, &str)> = owned
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let c = corpus(&files);
    let r = rank(
        &c,
        &Query::of("`Checkout` fails with \"checkout failed\"", &[]),
        &[],
        &|_| true,
    );
    let callee = r.files.iter().find(|f| f.path == "pkg/cart/discounts.go");
    let reasons = callee.map(|f| f.reasons.clone()).unwrap_or_default();
    assert!(
        reasons
            .iter()
            .any(|w| w == "defines applyDiscounts, called by pkg/cart/cart.go"),
        "{reasons:?}"
    );
    assert!(
        r.files.iter().all(|f| f.path != "pkg/cart/items.go"),
        "not called"
    );
}

#[test]
fn a_name_every_sibling_defines_for_itself_passes_little_to_each() {
    // `ARRAY_SIZE` is a macro three platform sources each define; `proc_title_init` only one.
    let macro_def = "#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))\n";
    let platform = |name: &str| format!("{macro_def}\nint {name}_init(void) {{\n  return 0;\n}}\n");
    let owned: Vec<(String, String)> = vec![
        (
            "src/unix/ibmi.c".into(),
            "int uv_setup(void) {\n  int n = ARRAY_SIZE(table);\n  proc_title_init();\n  return n;\n}\n".into(),
        ),
        ("src/unix/aix.c".into(), platform("aix")),
        ("src/unix/linux.c".into(), platform("linux")),
        ("src/unix/udp.c".into(), platform("udp")),
        (
            "src/unix/proctitle.c".into(),
            "void proc_title_init(void) {\n}\n".into(),
        ),
    ];
    let files: Vec<(&str, &str)> = owned
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let c = corpus(&files);
    let r = rank(&c, &Query::of("ibmi: uv_setup fails", &[]), &[], &|_| true);
    let score = |path: &str| {
        r.files
            .iter()
            .find(|f| f.path == path)
            .map_or(0.0, |f| f.score)
    };
    assert!(score("src/unix/proctitle.c") > 0.0, "{:?}", r.files);
    for each in ["src/unix/aix.c", "src/unix/linux.c", "src/unix/udp.c"] {
        assert!(
            score(each) * 2.5 < score("src/unix/proctitle.c"),
            "{each} shares ARRAY_SIZE with two others: {:?}",
            r.files
        );
    }
}

#[test]
fn a_quoted_message_finds_the_file_that_raises_it() {
    let got = ranked(
        &[
            (
                "pkg/urls.py",
                "def parse(u):\n    raise ValueError(\"Invalid IPv6 URL\")\n",
            ),
            (
                "pkg/models.py",
                "class URL:\n    def parse(self): pass\n# url url url parse\n",
            ),
        ],
        "Parsing a URL fails with \"Invalid IPv6 URL\"",
    );
    assert_eq!(got[0], "pkg/urls.py");
}

#[test]
fn vendored_code_ranks_below_the_package_the_goal_names() {
    let got = ranked(
        &[
            (
                "requests/_vendor/urllib3/cookies.py",
                "def extract_cookies(): cookies cookies cookies\n",
            ),
            (
                "requests/cookies.py",
                "def extract_cookies_to_jar(): pass\n",
            ),
        ],
        "cookies are not extracted",
    );
    assert_eq!(got[0], "requests/cookies.py", "{got:?}");
}

#[test]
fn a_file_that_always_changed_with_the_best_one_follows_it() {
    let c = corpus(&[
        (
            "src/parse.c",
            "int parse_header(const char *s) { return 0; }\n",
        ),
        ("src/emit.c", "static const int widths[] = {1, 2};\n"),
        ("src/other.c", "static const int sizes[] = {3};\n"),
    ]);
    let q = Query::of("`parse_header` rejects a valid header", &[]);
    let history: Vec<Vec<String>> = (0..4)
        .map(|_| vec!["src/parse.c".to_string(), "src/emit.c".to_string()])
        .chain([vec!["src/other.c".to_string(), "README".to_string()]])
        .collect();
    let without = rank(&c, &q, &[], &|_| true);
    assert!(!without.files.iter().any(|f| f.path == "src/emit.c"));
    let with = rank(&c, &q, &history, &|_| true);
    let emit = with.files.iter().find(|f| f.path == "src/emit.c");
    assert_eq!(
        emit.map(|f| f.reasons.clone()),
        Some(vec![
            "changes with src/parse.c (4 of 4 commits)".to_string()
        ]),
    );
    assert!(!with.files.iter().any(|f| f.path == "src/other.c"));
}

#[test]
fn a_name_defined_with_leading_underscores_is_the_name_the_goal_writes() {
    let r = ranked(
        &[
            (
                "models.py",
                "class Mixin:\n    @staticmethod\n    def _encode_files(\n        files, data\n    ):\n        return files\n",
            ),
            (
                "other.py",
                "from models import Mixin\nx = Mixin._encode_files\n",
            ),
        ],
        "Fix `_encode_files` detection for wrappers",
    );
    assert_eq!(r.first().map(String::as_str), Some("models.py"), "{r:?}");
    let c = corpus(&[(
        "models.py",
        "class Mixin:\n    def _encode_files(self):\n        pass\n",
    )]);
    let q = Query::of("Fix `_encode_files` detection", &[]);
    let reasons = &rank(&c, &q, &[], &|_| true).files[0].reasons;
    assert!(
        reasons
            .iter()
            .any(|w| w == "defines _encode_files" || w == "defines encode_files"),
        "{reasons:?}"
    );
}

#[test]
fn a_word_on_every_line_of_a_file_anchors_less_than_one_it_uses_once() {
    let mut text: String = (0..400)
        .map(|i| format!("static int pipe_step_{i}(uv_pipe_t* pipe) {{ return pipe->n; }}\n"))
        .collect();
    text.push_str("static int make_args(char** argument) { return argument == NULL; }\n");
    let c = corpus(&[
        ("src/win/pipe.c", text.as_str()),
        ("src/other.c", "int x;\n"),
    ]);
    let q = Query::of("pipe: fail on a missing argument", &[]);
    let r = rank(&c, &q, &[], &|_| true);
    let anchors = Matcher::new(&q).anchors(&c, 0, &r.idf);
    let best = anchors
        .iter()
        .max_by(|a, b| a.weight.total_cmp(&b.weight))
        .map(|a| a.line);
    assert_eq!(best, Some(401), "{anchors:?}");
}

#[test]
fn a_very_large_header_the_history_edits_often_ranks_as_code() {
    let big = format!("#pragma once\n{}", "int filler_value_xyz;\n".repeat(7_000));
    let files = [
        ("include/lib/big.hpp", format!("{big}void parse_token();\n")),
        ("include/lib/small.hpp", "// parse\nint x;\n".to_string()),
    ];
    let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
    let c = corpus(&files);
    let q = Query::of("parse_token", &[]);
    let score = |history: &[Vec<String>]| {
        let r = rank(&c, &q, history, &|_| true);
        let big = r.files.iter().find(|f| f.path == "include/lib/big.hpp");
        big.map(|f| (f.score, f.reasons.iter().any(|w| w == "very large file")))
    };
    let (kept, demoted) = score(&[]).unwrap_or_default();
    assert!(demoted, "a copy kept as it is ranks low");
    let edited: Vec<Vec<String>> = (0..EDITED_COMMITS)
        .map(|_| vec!["include/lib/big.hpp".to_string()])
        .collect();
    let (edited_score, demoted) = score(&edited).unwrap_or_default();
    assert!(
        !demoted,
        "a header edited in every commit is the project's own"
    );
    assert!(edited_score > kept * 3.0, "{edited_score} vs {kept}");
}

#[test]
fn the_barrel_that_re_exports_the_best_file_follows_it() {
    let filler = filler(30, "ts", |i| {
        format!("export function other{i}() {{ return {i}; }}\n")
    });
    let mut files = borrowed(&filler);
    files.extend([
        (
            "src/schemas/string.ts",
            "export function trimmedString(value: string) {\n  return value.trim();\n}\n",
        ),
        (
            "src/schemas/index.ts",
            "export * from \"./string.js\";\nexport * from \"./number.js\";\n",
        ),
        ("src/schemas/number.ts", "export const zero = 0;\n"),
        // Beside the file too, but code that merely imports it: no barrel.
        (
            "src/schemas/exports.ts",
            "import { trimmedString } from \"./string.js\";\nexport function run() {\n  const a = trimmedString(\" x \");\n  return a;\n}\n",
        ),
    ]);
    let c = corpus(&files);
    let r = rank(
        &c,
        &Query::of("add trimmedString variants", &[]),
        &[],
        &|_| true,
    );
    let reasons = |path: &str| -> Vec<String> {
        r.files
            .iter()
            .find(|f| f.path == path)
            .map(|f| f.reasons.clone())
            .unwrap_or_default()
    };
    let got = reasons("src/schemas/index.ts");
    assert!(
        got.iter().any(|r| r == "re-exports src/schemas/string.ts"),
        "{got:?}"
    );
    let got = reasons("src/schemas/exports.ts");
    assert!(!got.iter().any(|r| r.starts_with("re-exports")), "{got:?}");
}
