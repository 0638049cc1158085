//! What kind of file a path is — vendored, generated, a fixture, a vendored test framework, a
//! build script, a changelog, an issue template, a manual, a test, documentation,
//! configuration, data — and how far that lowers its rank unless the goal names it. Code is what
//! a fix changes; a man page that repeats every option's name, or a `configure` script of
//! twenty thousand lines, matches a goal's words without being where the change goes.

use std::sync::LazyLock;

use aho_corasick::AhoCorasick;

use super::super::query::Query;

/// A path, lowercase and split for the checks.
struct Parts<'a> {
    lower: &'a str,
    dirs: Vec<&'a str>,
    name: &'a str,
    /// The name before its first dot.
    stem: &'a str,
    /// The extension after its last dot (empty if none).
    ext: &'a str,
    code: bool,
}

/// What the goal names: directories and stems by its words, whole file names by its text.
struct Named<'q> {
    query: &'q Query,
}

impl Named<'_> {
    fn word(&self, w: &str) -> bool {
        self.query.words.iter().any(|x| x == w)
    }

    fn any_word(&self, ws: &[&str]) -> bool {
        ws.iter().any(|w| self.word(w))
    }

    fn file(&self, p: &Parts<'_>) -> bool {
        self.query.text.contains(p.name)
    }
}

type Check = fn(&Parts<'_>, &Named<'_>) -> Option<(f64, &'static str)>;

/// In order: the first that applies says what kind of file it is.
const CHECKS: &[Check] = &[
    directory,
    test_framework,
    generated_name,
    build_script,
    changelog,
    template,
    ci,
    manual,
    test,
    mock,
    translation,
    documentation,
    configuration,
    data,
];

/// Why a file ranks low, and by how much: its kind (from its path, and from its first lines when
/// they say it is generated), and its size when it is very large. Nothing the goal names.
pub(super) fn demotion(path: &str, text: &[u8], query: &Query) -> Vec<(f64, &'static str)> {
    let lower = path.to_lowercase();
    let p = Parts::of(&lower);
    let named = Named { query };
    let mut out = Vec::new();
    let kind = CHECKS.iter().find_map(|check| check(&p, &named));
    if let Some(kind) = kind.or_else(|| generated_text(text, &p, &named)) {
        out.push(kind);
    }
    if let Some(size) = very_large(&p, text.len(), &named) {
        out.push(size);
    }
    out
}

impl<'a> Parts<'a> {
    fn of(lower: &'a str) -> Parts<'a> {
        let (dir, name) = lower.rsplit_once('/').unwrap_or(("", lower));
        let dirs = if dir.is_empty() {
            Vec::new()
        } else {
            dir.split('/').collect()
        };
        let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
        let code =
            super::super::defs::is_source(name) || ["scala", "m", "mm", "inc"].contains(&ext);
        Parts {
            lower,
            dirs,
            name,
            stem: name.split('.').next().unwrap_or(name),
            ext,
            code,
        }
    }
}

fn directory(p: &Parts<'_>, named: &Named<'_>) -> Option<(f64, &'static str)> {
    const VENDORED: &[&str] = &[
        "vendor",
        "vendored",
        "_vendor",
        "third_party",
        "thirdparty",
        "third-party",
        "node_modules",
        "bower_components",
        "external",
        "site-packages",
    ];
    const FIXTURES: &[&str] = &[
        "fixtures",
        "fixture",
        "testdata",
        "test_data",
        "__snapshots__",
        "snapshots",
    ];
    const GENERATED: &[&str] = &["dist", "build", "generated", "_build", "target", "out"];
    p.dirs.iter().filter(|d| !named.word(d)).find_map(|d| {
        if VENDORED.contains(d) {
            Some((0.05, "vendored"))
        } else if FIXTURES.contains(d) {
            Some((0.1, "fixture"))
        } else {
            GENERATED.contains(d).then_some((0.1, "generated"))
        }
    })
}

/// A test framework copied into the tree (`gtest.h`, `catch.hpp`, `doctest.h`, `unity.c`).
fn test_framework(p: &Parts<'_>, named: &Named<'_>) -> Option<(f64, &'static str)> {
    const NAMES: &[&str] = &[
        "gtest",
        "gtest-all",
        "gtest_main",
        "gmock",
        "gmock-all",
        "catch",
        "catch_amalgamated",
        "doctest",
        "unity",
        "unity_internals",
        "munit",
        "greatest",
        "acutest",
        "utest",
        "minunit",
        "cmocka",
        "cutest",
    ];
    const DIRS: &[&str] = &[
        "googletest",
        "googlemock",
        "gtest",
        "gmock",
        "catch2",
        "doctest",
    ];
    let header_or_c = ["h", "hpp", "hh", "c", "cc", "cpp"].contains(&p.ext);
    let by_name = header_or_c && NAMES.contains(&p.stem) && !named.word(p.stem);
    let by_dir = p.dirs.iter().any(|d| DIRS.contains(d) && !named.word(d));
    (by_name || by_dir).then_some((0.05, "vendored test framework"))
}

fn generated_name(p: &Parts<'_>, _: &Named<'_>) -> Option<(f64, &'static str)> {
    let n = p.name;
    let generated = [
        ".min.js", ".min.css", ".map", ".svg", "_pb2.py", ".pb.go", ".lock",
    ]
    .iter()
    .any(|e| n.ends_with(e))
        || n.contains(".generated.")
        || n.contains("amalgamat")
        || n.ends_with("-lock.json")
        || n.ends_with(".lock.json")
        || n == "go.sum";
    generated.then_some((0.1, "generated"))
}

/// Autotools' and libtool's output — `configure`, `config.guess`, `ltmain.sh`, `Makefile.in` —
/// at the top of the tree or in its auxiliary directory.
fn build_script(p: &Parts<'_>, named: &Named<'_>) -> Option<(f64, &'static str)> {
    const NAMES: &[&str] = &[
        "configure",
        "config.guess",
        "config.sub",
        "ltmain.sh",
        "install-sh",
        "depcomp",
        "missing",
        "aclocal.m4",
        "makefile.in",
        "config.status",
        "libtool",
        "compile",
        "test-driver",
        "ylwrap",
        "mkinstalldirs",
    ];
    const AUX: &[&str] = &["build-aux", "config", "autotools", "m4", "admin", "aux"];
    let placed = p.dirs.last().is_none_or(|d| AUX.contains(d)) || p.name == "makefile.in";
    (NAMES.contains(&p.name) && placed && !named.word(p.stem) && !named.file(p))
        .then_some((0.1, "generated build script"))
}

fn changelog(p: &Parts<'_>, _: &Named<'_>) -> Option<(f64, &'static str)> {
    const DIRS: &[&str] = &[
        "whatsnew",
        "fragments",
        "newsfragments",
        "changelog.d",
        "changes",
    ];
    let by_name = ["changes", "changelog", "history", "news", "authors"].contains(&p.stem);
    (by_name || p.dirs.iter().any(|d| DIRS.contains(d))).then_some((0.3, "changelog"))
}

/// Issue and pull-request templates: forms for people, not code.
fn template(p: &Parts<'_>, named: &Named<'_>) -> Option<(f64, &'static str)> {
    let dirs = ["issue_template", "issue_templates", "discussion_template"];
    let names = [
        "issue_template",
        "pull_request_template",
        "bug_report",
        "feature_request",
    ];
    let kind = p.dirs.iter().any(|d| dirs.contains(d)) || names.contains(&p.stem);
    (kind && !named.word("template") && !named.word("templates")).then_some((0.1, "issue template"))
}

fn ci(p: &Parts<'_>, _: &Named<'_>) -> Option<(f64, &'static str)> {
    matches!(p.dirs.first(), Some(&".github" | &".circleci")).then_some((0.3, "ci configuration"))
}

/// Man pages (`frob.1`, `man/man3/`), Texinfo and other manuals, and plain-text documents of a
/// `doc` directory: they name every option and function, and change only with the code.
fn manual(p: &Parts<'_>, named: &Named<'_>) -> Option<(f64, &'static str)> {
    let section = p.ext.len() <= 3
        && p.ext.starts_with(|c: char| ('1'..='9').contains(&c))
        && p.ext.chars().skip(1).all(|c| c.is_ascii_alphabetic());
    let manual_ext = ["man", "mdoc", "roff", "texi", "texinfo", "info", "pod"].contains(&p.ext);
    let man_dir = p.dirs.iter().any(|d| {
        *d == "man" || *d == "manual" || *d == "manuals" || d.len() == 4 && d.starts_with("man")
    });
    let doc_text = p.ext == "txt"
        && p.dirs
            .iter()
            .any(|d| ["doc", "docs", "documentation"].contains(d));
    let kind = section || manual_ext || man_dir && !p.code || doc_text;
    let asked = named.any_word(&[
        "man",
        "manpage",
        "manpages",
        "manual",
        "documentation",
        "docs",
    ]);
    (kind && !asked && !named.file(p)).then_some((0.2, "manual"))
}

fn test(p: &Parts<'_>, _: &Named<'_>) -> Option<(f64, &'static str)> {
    is_test_path(p.lower).then_some(if p.code {
        (0.5, "test")
    } else {
        (0.25, "test data")
    })
}

fn mock(p: &Parts<'_>, _: &Named<'_>) -> Option<(f64, &'static str)> {
    (p.stem.contains("mock") || p.dirs.iter().any(|d| d.contains("mock"))).then_some((0.5, "mock"))
}

/// Translations (`locales/fr.ts`, `po/de.po`), unless the goal is about them: it names their
/// directory (`fix(locales): …`) or says `translation`, `locale`, `i18n`.
fn translation(p: &Parts<'_>, named: &Named<'_>) -> Option<(f64, &'static str)> {
    let dirs = ["locale", "locales", "translations", "i18n", "l10n"];
    let kind = ["po", "pot", "mo"].contains(&p.ext) || p.dirs.iter().any(|d| dirs.contains(d));
    let asked = p.dirs.iter().any(|d| named.word(d))
        || named.any_word(&[
            "translation",
            "translations",
            "translate",
            "locale",
            "locales",
            "i18n",
            "l10n",
            "localization",
            "localisation",
        ]);
    (kind && !asked).then_some((0.1, "translation"))
}

fn documentation(p: &Parts<'_>, _: &Named<'_>) -> Option<(f64, &'static str)> {
    let dirs = ["doc", "docs", "documentation"];
    (["md", "rst", "txt", "adoc"].contains(&p.ext) || p.dirs.iter().any(|d| dirs.contains(d)))
        .then_some((0.5, "documentation"))
}

/// `.conf` files: settings a deployment reads, seldom what a fix changes.
fn configuration(p: &Parts<'_>, named: &Named<'_>) -> Option<(f64, &'static str)> {
    let kind = p.ext == "conf" || p.name.ends_with(".conf.in") || p.name.ends_with(".conf.sample");
    (kind && !named.file(p)).then_some((0.3, "configuration"))
}

fn data(p: &Parts<'_>, _: &Named<'_>) -> Option<(f64, &'static str)> {
    (!p.code && !p.ext.is_empty() && !TEXT_KINDS.contains(&p.ext)).then_some((0.5, "data"))
}

/// A file whose first lines say a tool wrote it (`Code generated … DO NOT EDIT.`, `@generated`,
/// `This file is automatically generated`, an amalgamation's banner).
fn generated_text(text: &[u8], p: &Parts<'_>, named: &Named<'_>) -> Option<(f64, &'static str)> {
    static BANNERS: LazyLock<Option<AhoCorasick>> = LazyLock::new(|| {
        AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build([
                "do not edit",
                "@generated",
                "automatically generated",
                "auto-generated",
                "autogenerated",
                "this file was generated",
                "this file is generated",
                "amalgamation",
            ])
            .ok()
    });
    let head = &text[..text.len().min(600)];
    let says = BANNERS.as_ref().is_some_and(|ac| ac.is_match(head));
    (says && !named.file(p)).then_some((0.1, "generated"))
}

/// Characters above which a file is rarely where a fix goes: a test's data, a single-header
/// library. Source code counts from a larger size, tests and data from a smaller.
const LARGE_CODE: usize = 512 * 1024;
const LARGE_OTHER: usize = 128 * 1024;

/// The reason a very large file ranks low.
pub(super) const VERY_LARGE: &str = "very large file";

/// A very large file, unless the goal names it: tests, data and headers from 128 KB, other
/// code from 512 KB.
fn very_large(p: &Parts<'_>, size: usize, named: &Named<'_>) -> Option<(f64, &'static str)> {
    let header = ["h", "hpp", "hh", "hxx"].contains(&p.ext);
    let limit = if p.code && !header && !is_test_path(p.lower) {
        LARGE_CODE
    } else {
        LARGE_OTHER
    };
    (size > limit && !named.file(p) && !named.word(p.stem)).then_some((0.3, VERY_LARGE))
}

/// Extensions of text that is code or configuration, besides the languages [`super::defs`]
/// reads: anything else with an extension (`.sty`, `.csv`, `.svg`) counts as data.
const TEXT_KINDS: &[&str] = &[
    "sh", "bash", "zsh", "fish", "ps1", "pl", "pm", "lua", "r", "jl", "ex", "exs", "erl", "hs",
    "ml", "mli", "clj", "dart", "vue", "svelte", "sql", "toml", "yaml", "yml", "json", "cfg",
    "ini", "conf", "html", "htm", "css", "scss", "less", "jinja", "j2", "tmpl", "tpl", "mk",
    "gradle", "proto", "graphql", "xml", "m", "mm", "pyx", "pxd", "zig", "nim", "v", "sv", "vhd",
    "tf", "nix", "el", "vim",
];

/// Extensions of program text in languages [`super::super::defs`] does not read.
const OTHER_CODE: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "fish",
    "ps1",
    "pl",
    "pm",
    "lua",
    "r",
    "jl",
    "ex",
    "exs",
    "erl",
    "hrl",
    "hs",
    "ml",
    "mli",
    "clj",
    "cljs",
    "dart",
    "vue",
    "svelte",
    "sql",
    "scala",
    "groovy",
    "m",
    "mm",
    "inc",
    "pyx",
    "pxd",
    "zig",
    "nim",
    "v",
    "sv",
    "vhd",
    "el",
    "vim",
    "fs",
    "fsx",
    "vb",
    "asm",
    "s",
    "d",
    "cr",
    "tcl",
    "awk",
    "elm",
    "purs",
    "rkt",
    "scm",
    "lisp",
    "f90",
    "f",
    "pas",
    "ada",
    "cob",
    "sol",
    "mojo",
    "gleam",
    "html",
    "htm",
    "erb",
    "haml",
    "slim",
    "jinja",
    "jinja2",
    "j2",
    "tmpl",
    "tpl",
    "twig",
    "mustache",
    "hbs",
    "handlebars",
    "ejs",
    "liquid",
    "njk",
    "css",
    "scss",
    "sass",
    "less",
    "styl",
    "proto",
    "graphql",
    "gql",
    "nix",
    "tf",
    "hcl",
];

/// Whether a file is program text — a language the definitions reader knows, another
/// language's source, a template or style sheet, or a script with a `#!` line — rather than
/// documentation, configuration, build and package metadata (`CMakeLists.txt`, `pom.xml`,
/// `Makefile`) or data, which a fix seldom changes while repeating the goal's words.
pub fn is_code(path: &str, text: &[u8]) -> bool {
    let lower = path.to_lowercase();
    let name = lower.rsplit_once('/').map_or(lower.as_str(), |(_, n)| n);
    match name.rsplit_once('.') {
        Some((_, ext)) => super::super::defs::is_source(name) || OTHER_CODE.contains(&ext),
        None => text.starts_with(b"#!"),
    }
}

/// Whether a path is of a kind that ranks low whatever the goal says of it (a test, a mock,
/// documentation, an example under `docs/`, a vendored or generated copy, a manual, data): what a
/// fix seldom changes, read from the path alone.
pub fn is_secondary(path: &str) -> bool {
    let lower = path.to_lowercase();
    let p = Parts::of(&lower);
    let query = Query::default();
    let named = Named { query: &query };
    CHECKS.iter().any(|check| check(&p, &named).is_some())
}

/// Whether a path is someone else's code kept in the tree: under a vendored directory
/// (`vendor/`, `third_party/`, `thirdparty/`, …) or a test framework copied in (`catch.hpp`).
pub fn is_vendored(path: &str) -> bool {
    let lower = path.to_lowercase();
    let p = Parts::of(&lower);
    let query = Query::default();
    let named = Named { query: &query };
    directory(&p, &named).is_some_and(|d| d.1 == "vendored") || test_framework(&p, &named).is_some()
}

/// Whether a (lowercase) path is a test file.
pub fn is_test_path(lower: &str) -> bool {
    let (dirs, name) = lower.rsplit_once('/').unwrap_or(("", lower));
    dirs.split('/').any(|d| {
        [
            "test",
            "tests",
            "testing",
            "__tests__",
            "spec",
            "specs",
            "e2e",
        ]
        .contains(&d)
    }) || name.starts_with("test_")
        || name.contains("_test.")
        || name.contains(".test.")
        || name.contains(".spec.")
        || name == "conftest.py"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(path: &str, text: &str, goal: &str) -> Vec<&'static str> {
        let q = Query::of(goal, &[]);
        demotion(path, text.as_bytes(), &q)
            .into_iter()
            .map(|d| d.1)
            .collect()
    }

    #[test]
    fn vendored_libraries_and_test_frameworks_are_someone_elses_code() {
        assert!(is_vendored("include/lib/thirdparty/hedley/hedley.hpp"));
        assert!(is_vendored("tests/catch.hpp"));
        assert!(!is_vendored("single_include/lib/lib.hpp"));
        assert!(!is_vendored("src/amalgamation/lib.c"));
    }

    #[test]
    fn tests_documentation_and_vendored_copies_are_secondary_by_their_path() {
        for path in [
            "tests/unit.cpp",
            "docs/examples/object.cpp",
            "vendor/lib/x.go",
            "src/Handler/MockHandler.php",
        ] {
            assert!(is_secondary(path), "{path}");
        }
        for path in ["src/json.hpp", "lib/sinatra/base.rb", "Makefile"] {
            assert!(!is_secondary(path), "{path}");
        }
    }

    #[test]
    fn templates_and_styles_are_code_and_prose_and_build_metadata_are_not() {
        for path in [
            "app/views/users/show.html.erb",
            "templates/base.html",
            "web/style.scss",
            "proto/api.proto",
            "src/lib.rs",
            "scripts/build.lua",
        ] {
            assert!(is_code(path, b"x\n"), "{path}");
        }
        for path in [
            "README.md",
            "docs/guide.rst",
            "config.json",
            "LICENSE",
            "data/x.csv",
            "CMakeLists.txt",
            "Makefile",
            "cmake/ci.cmake",
        ] {
            assert!(!is_code(path, b"x\n"), "{path}");
        }
        assert!(is_code("bin/tool", b"#!/bin/sh\n"));
    }

    #[test]
    fn translations_rank_low_unless_the_goal_is_about_them() {
        let path = "packages/core/src/locales/fr.ts";
        assert_eq!(kinds(path, "x\n", "fix the parser"), ["translation"]);
        assert!(kinds(path, "x\n", "fix(locales): da/sv call it a range").is_empty());
        assert!(kinds(path, "x\n", "improve the french translation").is_empty());
        assert_eq!(kinds("po/de.po", "x\n", "wrong plural"), ["translation"]);
    }

    #[test]
    fn files_that_are_not_code_are_named_for_what_they_are() {
        let goal = "frob --verbose prints nothing";
        for (path, kind) in [
            ("man/man1/frob.1", "manual"),
            ("doc/frob.3p", "manual"),
            ("doc/frob.txt", "manual"),
            ("docs/manual.texi", "manual"),
            ("configure", "generated build script"),
            ("build-aux/ltmain.sh", "generated build script"),
            ("tests/gtest/gtest.h", "vendored test framework"),
            ("test/catch.hpp", "vendored test framework"),
            ("src/doctest.h", "vendored test framework"),
            ("etc/frob.conf", "configuration"),
            (".github/ISSUE_TEMPLATE/bug_report.md", "issue template"),
            ("dist/sqlite3-amalgamation.c", "generated"),
            ("src/parser.c", "generated"),
        ] {
            let text = if path == "src/parser.c" {
                "/* A Bison parser, made by GNU Bison 3.8. DO NOT EDIT. */\n"
            } else {
                "x\n"
            };
            assert_eq!(kinds(path, text, goal), [kind], "{path}");
        }
        assert!(kinds("src/frob.c", "int main(void) {}\n", goal).is_empty());
        let script = kinds("bin/compile", "#!/bin/sh\n", goal);
        assert!(script.is_empty(), "not autotools': {script:?}");
        assert!(
            kinds("src/check.c", "x\n", goal).is_empty(),
            "a project's own check"
        );
    }

    #[test]
    fn a_goal_that_names_them_keeps_them() {
        assert!(kinds("configure", "x\n", "configure fails on macOS").is_empty());
        let asked = kinds("man/man1/frob.1", "x\n", "the man page of frob is wrong");
        assert!(!asked.contains(&"manual"), "{asked:?}");
        assert_eq!(
            kinds("doc/frob.1", "x\n", "typo in doc/frob.1"),
            ["documentation"]
        );
        assert!(kinds("etc/nginx.conf", "x\n", "nginx.conf has a typo").is_empty());
        assert!(kinds("third/gtest/gtest.h", "x\n", "update gtest").is_empty());
    }

    #[test]
    fn very_large_files_rank_lower_unless_named() {
        let big = "x".repeat(200 * 1024);
        let goal = "frob --verbose prints nothing";
        assert_eq!(
            kinds("tests/big_test.c", &big, goal),
            ["test", "very large file"]
        );
        assert_eq!(
            kinds("include/stb_image.h", &big, goal),
            ["very large file"]
        );
        assert!(
            kinds("src/frob.c", &big, goal).is_empty(),
            "code from 512 KB"
        );
        let huge = "x".repeat(600 * 1024);
        assert_eq!(kinds("src/frob.c", &huge, "nothing"), ["very large file"]);
        assert!(
            kinds("src/frob.c", &huge, goal).is_empty(),
            "the goal names frob"
        );
    }
}
