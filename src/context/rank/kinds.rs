//! What kind of file a path is — vendored, generated, a fixture, a changelog, a test,
//! documentation, data — and how far that lowers its rank.

/// Why a path ranks low unless the goal names its directory.
pub(super) fn demotion(path: &str, words: &[String]) -> Option<(f64, &'static str)> {
    let lower = path.to_lowercase();
    let parts: Vec<&str> = lower.split('/').collect();
    let (dirs, name) = parts.split_at(parts.len() - 1);
    let name = name[0];
    let named = |dir: &str| words.iter().any(|w| w == dir);
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
    for dir in dirs {
        if VENDORED.contains(dir) && !named(dir) {
            return Some((0.05, "vendored"));
        }
        if FIXTURES.contains(dir) && !named(dir) {
            return Some((0.1, "fixture"));
        }
        if GENERATED.contains(dir) && !named(dir) {
            return Some((0.1, "generated"));
        }
    }
    let generated_name = name.ends_with(".min.js")
        || name.ends_with(".min.css")
        || name.ends_with(".map")
        || name.ends_with(".svg")
        || name.ends_with("_pb2.py")
        || name.ends_with(".pb.go")
        || name.contains(".generated.")
        || name.ends_with(".lock")
        || name.ends_with("-lock.json")
        || name.ends_with(".lock.json")
        || name == "go.sum";
    if generated_name {
        return Some((0.1, "generated"));
    }
    let stem = name.split('.').next().unwrap_or(name);
    let changelog_dir = [
        "whatsnew",
        "fragments",
        "newsfragments",
        "changelog.d",
        "changes",
    ];
    if ["changes", "changelog", "history", "news", "authors"].contains(&stem)
        || dirs.iter().any(|d| changelog_dir.contains(d))
    {
        return Some((0.3, "changelog"));
    }
    if dirs.first() == Some(&".github") || dirs.first() == Some(&".circleci") {
        return Some((0.3, "ci configuration"));
    }
    let code = super::super::defs::is_source(name)
        || [
            "java", "rb", "c", "h", "cc", "cpp", "hpp", "cs", "kt", "swift", "php", "scala",
        ]
        .contains(&name.rsplit_once('.').map_or("", |(_, e)| e));
    if is_test_path(&lower) {
        return Some(if code {
            (0.5, "test")
        } else {
            (0.25, "test data")
        });
    }
    if stem.contains("mock") || dirs.iter().any(|d| d.contains("mock")) {
        return Some((0.5, "mock"));
    }
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    if ["po", "pot", "mo"].contains(&ext)
        || dirs
            .iter()
            .any(|d| ["locale", "locales", "translations"].contains(d))
    {
        return Some((0.1, "translation"));
    }
    if ["md", "rst", "txt", "adoc"].contains(&ext)
        || dirs
            .iter()
            .any(|d| ["doc", "docs", "documentation"].contains(d))
    {
        return Some((0.5, "documentation"));
    }
    if !code && !ext.is_empty() && !TEXT_KINDS.contains(&ext) {
        return Some((0.5, "data"));
    }
    None
}

/// Extensions of text that is code or configuration, besides the languages [`super::defs`]
/// reads: anything else with an extension (`.sty`, `.csv`, `.svg`) counts as data.
const TEXT_KINDS: &[&str] = &[
    "sh", "bash", "zsh", "fish", "ps1", "pl", "pm", "lua", "r", "jl", "ex", "exs", "erl", "hs",
    "ml", "mli", "clj", "dart", "vue", "svelte", "sql", "toml", "yaml", "yml", "json", "cfg",
    "ini", "conf", "html", "htm", "css", "scss", "less", "jinja", "j2", "tmpl", "tpl", "mk",
    "cmake", "gradle", "proto", "graphql", "xml", "m", "mm", "pyx", "pxd", "zig", "nim", "v", "sv",
    "vhd", "tf", "nix", "el", "vim",
];

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
