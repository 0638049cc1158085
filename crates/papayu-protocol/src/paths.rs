//! Path rules: which spellings may name a file inside the repository, which files are protected,
//! and the optional extension allowlist.
//!
//! A plan's paths are untrusted text written by a model. The rules here accept only plain
//! relative paths with `/` separators whose every segment names an ordinary file or directory
//! *on every platform the repository may be checked out on*: a spelling that Windows, macOS or
//! NTFS would read as `..`, as the repository's `.git`, or as a location outside the work tree is
//! rejected even when Linux would read it harmlessly. The apply engine calls [`check_path`] for
//! tree paths too, so this module must never consult the file system or a repository.

use std::path::Path;

use globset::{GlobBuilder, GlobMatcher};
use serde::Deserialize;

use papayu_core::codes::{Code, Problem};
use papayu_core::plan::ActionKind;

/// Longest accepted path, in UTF-8 bytes: what file systems count. It also keeps every
/// component within the 255 bytes file systems allow for one name.
pub const MAX_PATH_LEN: usize = 240;

/// Checks every path-form rule and the `.git` rule; the reason names the path.
///
/// Accepts exactly the paths that, split on `/`, give non-empty segments none of which is `.`,
/// `..`, or an alias of either or of `.git` on some platform, with no `\`, no control character,
/// no invisible or bidi control character ([`is_invisible`]), no leading `/`, `~` or drive
/// letter, and at most [`MAX_PATH_LEN`] bytes.
pub fn check_path(path: &str) -> Result<(), Problem> {
    match path_problem(path) {
        None => Ok(()),
        Some((code, why)) => Err(Problem::new(code, format!("{}: {why}", show(path)))),
    }
}

/// The first rule `path` breaks, as a code and a reason that does not repeat the path.
pub(crate) fn path_problem(path: &str) -> Option<(Code, String)> {
    const FIX: &str = "use a path relative to the repository root";
    if path.is_empty() {
        return Some((Code::PathEmpty, format!("path is empty; {FIX}")));
    }
    if path.chars().any(char::is_control) {
        return Some((
            Code::PathControlChar,
            "path contains a control character (NUL, newline, tab, ...); remove it".into(),
        ));
    }
    if let Some(c) = path.chars().find(|c| is_invisible(*c)) {
        return Some((
            Code::PathInvisibleChar,
            format!(
                "path contains U+{:04X}, an invisible or text-direction character that makes a path look like another; remove it",
                u32::from(c)
            ),
        ));
    }
    let len = path.len();
    if len > MAX_PATH_LEN {
        return Some((
            Code::PathTooLong,
            format!("path is {len} bytes long in UTF-8; the limit is {MAX_PATH_LEN} bytes"),
        ));
    }
    let bytes = path.as_bytes();
    let is_sep = |b: u8| b == b'/' || b == b'\\';
    if bytes.len() >= 2 && is_sep(bytes[0]) && is_sep(bytes[1]) {
        let rest = path[2..].trim_start_matches(['/', '\\']);
        if rest.contains(['/', '\\']) {
            return Some((
                Code::PathUnc,
                format!("path is a UNC network path (//server/share); {FIX}"),
            ));
        }
        return Some((Code::PathAbsolute, format!("path is absolute; {FIX}")));
    }
    if is_sep(bytes[0]) {
        return Some((Code::PathAbsolute, format!("path is absolute; {FIX}")));
    }
    if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        return Some((
            Code::PathDrive,
            format!(
                "path starts with a drive letter ({}:); {FIX}",
                bytes[0] as char
            ),
        ));
    }
    if bytes[0] == b'~' {
        return Some((
            Code::PathHome,
            format!("path starts with '~' (a home directory); {FIX}"),
        ));
    }
    if path.contains('\\') {
        return Some((
            Code::PathBackslash,
            "path contains '\\', a separator on Windows; separate directories with '/'".into(),
        ));
    }
    path.split('/').find_map(segment_problem)
}

fn segment_problem(segment: &str) -> Option<(Code, String)> {
    const FIX: &str = "use a path relative to the repository root";
    if segment.is_empty() {
        return Some((
            Code::PathEmpty,
            "path has an empty segment ('//' or a trailing '/'); write each directory once, without a trailing '/'".into(),
        ));
    }
    match segment {
        "." => return Some((Code::PathDot, format!("path has a '.' segment; {FIX}"))),
        ".." => return Some((Code::PathDotDot, format!("path has a '..' segment; {FIX}"))),
        _ => {}
    }
    if segment.chars().all(|c| c == '.' || c == ' ') {
        // Windows drops trailing dots and spaces: `...` and `.. ` name the parent directory.
        let (code, alias) = if segment.contains("..") {
            (Code::PathDotDot, "..")
        } else {
            (Code::PathDot, ".")
        };
        return Some((
            code,
            format!(
                "path segment '{segment}' is only dots and spaces, which Windows reads as '{alias}'; {FIX}"
            ),
        ));
    }
    if is_git_alias(segment) {
        return Some((
            Code::PathGitInternal,
            format!(
                "path goes through '{}', the repository's own .git directory (or an alias of it); plans may not touch it",
                segment.escape_default()
            ),
        ));
    }
    None
}

/// `true` when some file system would resolve `segment` to `.git`: any ASCII case, trailing dots
/// or spaces (Windows), an NTFS stream suffix (`.git::$INDEX_ALLOCATION`), the 8.3 short name
/// (`GIT~1`), or code points HFS+ ignores (zero-width joiners and the like).
fn is_git_alias(segment: &str) -> bool {
    let visible: String = segment.chars().filter(|c| !is_hfs_ignorable(*c)).collect();
    let name = visible.split(':').next().unwrap_or("");
    let name = name.trim_end_matches(['.', ' ']).to_ascii_lowercase();
    if name == ".git" {
        return true;
    }
    name.strip_prefix("git~")
        .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

/// `true` for characters a path may not hold because they are invisible or change the order
/// text is shown in: zero-width spaces and joiners, directional marks, embeddings, overrides
/// and isolates, word joiners and invisible operators, the byte-order mark, and the Mongolian
/// vowel separator. A path holding one can look exactly like another path.
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{061C}' | '\u{180E}'
        | '\u{200B}'..='\u{200F}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{206F}'
        | '\u{FEFF}')
}

/// Code points that HFS+ drops when comparing names (the list git itself guards against).
fn is_hfs_ignorable(c: char) -> bool {
    matches!(c,
        '\u{200C}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{206A}'..='\u{206F}' | '\u{FEFF}')
}

/// `true` for files the plan may not modify or delete and that are never read into context:
/// `.env` (and `.env.*` other than `.env.example`, `.env.sample`, `.env.template`), `*.pem`,
/// `*.key`, `*.p12`, `*.pfx`, `id_rsa*` (and `id_dsa*`, `id_ecdsa*`, `id_ed25519*`), and anything
/// in or named `secrets`. Matching ignores ASCII case and trailing dots or spaces.
pub fn is_protected(path: &str) -> bool {
    let segments: Vec<String> = path
        .split(['/', '\\'])
        .map(|s| {
            let s = s.split(':').next().unwrap_or("");
            s.trim_end_matches(['.', ' ']).to_ascii_lowercase()
        })
        .collect();
    if segments.iter().any(|s| s == "secrets") {
        return true;
    }
    let Some(name) = segments.last() else {
        return false;
    };
    if name == ".env" {
        return true;
    }
    if let Some(suffix) = name.strip_prefix(".env.") {
        return !matches!(suffix, "example" | "sample" | "template");
    }
    [".pem", ".key", ".p12", ".pfx"]
        .iter()
        .any(|ext| name.ends_with(ext))
        || ["id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"]
            .iter()
            .any(|p| name.starts_with(p))
}

/// A path for a one-line message: control characters escaped, long paths shortened.
pub(crate) fn show(path: &str) -> String {
    const MAX: usize = 80;
    let mut out = String::new();
    for (i, c) in path.chars().enumerate() {
        if i == MAX {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// The optional extension allowlist, in the `config/llm_whitelist.json` format:
///
/// ```json
/// { "allowed_extensions": [".py", ".md"], "allowed_no_extension": ["Makefile"],
///   "forbidden_paths": ["node_modules", "*.key"], "forbidden_prefixes": ["vendor/"] }
/// ```
///
/// Every field is optional. `forbidden_paths` entries are globs; one without `/` is matched
/// against every segment, one with `/` against the path and each of its parent directories.
/// `forbidden_prefixes` are plain string prefixes. `allowed_extensions` (when present) and
/// `allowed_no_extension` restrict the names of files a plan may write. All matching ignores
/// ASCII case.
#[derive(Debug, Clone, Default)]
pub struct Allowlist {
    allowed_extensions: Option<Vec<String>>,
    allowed_no_extension: Vec<String>,
    forbidden: Vec<(String, GlobMatcher, bool)>,
    forbidden_prefixes: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AllowlistFile {
    allowed_extensions: Option<Vec<String>>,
    #[serde(default)]
    allowed_no_extension: Vec<String>,
    #[serde(default)]
    forbidden_paths: Vec<String>,
    #[serde(default)]
    forbidden_prefixes: Vec<String>,
}

impl Allowlist {
    /// Reads an allowlist from its JSON text.
    pub fn from_json(text: &str) -> Result<Allowlist, Problem> {
        let invalid = |why: String| Problem::new(Code::AllowlistInvalid, why);
        let file: AllowlistFile = serde_json::from_str(text)
            .map_err(|e| invalid(format!("allowlist is not valid: {e}")))?;
        let mut forbidden = Vec::new();
        for entry in file.forbidden_paths {
            let pattern = entry.trim_end_matches('/').to_string();
            let glob = GlobBuilder::new(&pattern)
                .case_insensitive(true)
                .literal_separator(true)
                .build()
                .map_err(|e| invalid(format!("forbidden_paths entry '{entry}': {e}")))?;
            let has_slash = pattern.contains('/');
            forbidden.push((entry, glob.compile_matcher(), has_slash));
        }
        let dotted = |e: String| {
            let e = e.to_ascii_lowercase();
            if e.starts_with('.') {
                e
            } else {
                format!(".{e}")
            }
        };
        Ok(Allowlist {
            allowed_extensions: file
                .allowed_extensions
                .map(|v| v.into_iter().map(dotted).collect()),
            allowed_no_extension: file
                .allowed_no_extension
                .into_iter()
                .map(|n| n.to_ascii_lowercase())
                .collect(),
            forbidden,
            forbidden_prefixes: file.forbidden_prefixes,
        })
    }

    /// Reads an allowlist file.
    pub fn load(path: &Path) -> Result<Allowlist, Problem> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Problem::new(
                Code::AllowlistInvalid,
                format!("cannot read allowlist {}: {e}", path.display()),
            )
        })?;
        Allowlist::from_json(&text)
    }

    /// Why `kind` may not touch `path` under this allowlist, if it may not.
    pub fn check(&self, kind: ActionKind, path: &str) -> Result<(), String> {
        let lower = path.to_ascii_lowercase();
        if let Some(prefix) = self
            .forbidden_prefixes
            .iter()
            .find(|p| lower.starts_with(&p.to_ascii_lowercase()))
        {
            return Err(format!("path starts with the forbidden prefix '{prefix}'"));
        }
        for (entry, glob, has_slash) in &self.forbidden {
            let hit = if *has_slash {
                ancestors(path).any(|p| glob.is_match(p))
            } else {
                path.split('/').any(|s| glob.is_match(s))
            };
            if hit {
                return Err(format!("path matches the forbidden entry '{entry}'"));
            }
        }
        let writes = matches!(
            kind,
            ActionKind::CreateFile
                | ActionKind::UpdateFile
                | ActionKind::PatchFile
                | ActionKind::ReplaceRange
        );
        if writes && !self.name_allowed(&lower) {
            return Err(
                "file name is not allowed: its extension is not in allowed_extensions and the name is not in allowed_no_extension"
                    .into(),
            );
        }
        Ok(())
    }

    fn name_allowed(&self, lower_path: &str) -> bool {
        let name = lower_path.rsplit('/').next().unwrap_or(lower_path);
        if self.allowed_no_extension.iter().any(|n| n == name) {
            return true;
        }
        match &self.allowed_extensions {
            None => true,
            Some(exts) => exts.iter().any(|e| name.ends_with(e.as_str())),
        }
    }
}

/// `a/b/c` → `a`, `a/b`, `a/b/c`.
fn ancestors(path: &str) -> impl Iterator<Item = &str> {
    path.match_indices('/')
        .map(move |(i, _)| &path[..i])
        .chain(std::iter::once(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(path: &str) -> Option<Code> {
        path_problem(path).map(|(c, _)| c)
    }

    #[test]
    fn path_forms() {
        assert_eq!(code("src/main.rs"), None);
        assert_eq!(code("a/.gitignore"), None);
        assert_eq!(code("a/~b"), None);
        assert_eq!(code(""), Some(Code::PathEmpty));
        assert_eq!(code("a//b"), Some(Code::PathEmpty));
        assert_eq!(code("src/"), Some(Code::PathEmpty));
        assert_eq!(code("/etc/passwd"), Some(Code::PathAbsolute));
        assert_eq!(code("//x"), Some(Code::PathAbsolute));
        assert_eq!(code("\\x"), Some(Code::PathAbsolute));
        assert_eq!(code("//server/share"), Some(Code::PathUnc));
        assert_eq!(code("\\\\server\\share"), Some(Code::PathUnc));
        assert_eq!(code("C:\\x"), Some(Code::PathDrive));
        assert_eq!(code("C:/x"), Some(Code::PathDrive));
        assert_eq!(code("c:x"), Some(Code::PathDrive));
        assert_eq!(code("~"), Some(Code::PathHome));
        assert_eq!(code("~root/x"), Some(Code::PathHome));
        assert_eq!(code("a/../b"), Some(Code::PathDotDot));
        assert_eq!(code("a/.../b"), Some(Code::PathDotDot));
        assert_eq!(code("a/.. /b"), Some(Code::PathDotDot));
        assert_eq!(code("./a"), Some(Code::PathDot));
        assert_eq!(code("a/b\\c"), Some(Code::PathBackslash));
        assert_eq!(code("a\0b"), Some(Code::PathControlChar));
        assert_eq!(code(&"a".repeat(241)), Some(Code::PathTooLong));
        assert_eq!(code(&"a".repeat(240)), None);
        assert_eq!(code(&"я".repeat(120)), None);
        assert_eq!(code(&"я".repeat(121)), Some(Code::PathTooLong));
        assert_eq!(
            code(&format!("{}/x", "日".repeat(80))),
            Some(Code::PathTooLong)
        );
        for c in [
            '\u{200B}', '\u{200F}', '\u{202A}', '\u{202E}', '\u{2066}', '\u{2069}', '\u{FEFF}',
        ] {
            assert_eq!(
                code(&format!("src/a{c}b.rs")),
                Some(Code::PathInvisibleChar),
                "{c:?}"
            );
        }
        assert_eq!(code("a\u{1b}[31m"), Some(Code::PathControlChar));
        assert_eq!(code("a\u{9b}b"), Some(Code::PathControlChar));
    }

    #[test]
    fn git_aliases() {
        for p in [
            ".git",
            ".GIT/config",
            "sub/.git/hooks/pre-commit",
            ".git./x",
            ".git /x",
            ".Git. . /x",
            "GIT~1/config",
            ".git::$INDEX_ALLOCATION/x",
        ] {
            assert_eq!(code(p), Some(Code::PathGitInternal), "{p}");
        }
        // An HFS+-ignorable code point inside `.git` is refused before the segment is compared.
        assert_eq!(code(".g\u{200c}it/config"), Some(Code::PathInvisibleChar));
        assert!(is_git_alias(".g\u{200c}it"));
        for p in [".gitignore", ".github/x", "git/x", "x.git", "git~/x"] {
            assert_eq!(code(p), None, "{p}");
        }
    }

    #[test]
    fn protected() {
        for p in [
            ".env",
            "app/.ENV",
            ".env.local",
            "certs/server.pem",
            "a.KEY",
            "x.p12",
            "id_rsa",
            "home/id_rsa.pub",
            "config/secrets/db.yml",
            "secrets",
            ".env.",
        ] {
            assert!(is_protected(p), "{p}");
        }
        for p in [
            ".env.example",
            "src/keys.rs",
            "monkey",
            "secret/x",
            "README.md",
        ] {
            assert!(!is_protected(p), "{p}");
        }
    }

    #[test]
    fn allowlist() {
        let list = Allowlist::from_json(
            r#"{"allowed_extensions": [".py", "md", ".env.example"],
                "allowed_no_extension": ["Makefile"],
                "forbidden_paths": ["node_modules", "build/out", "*.key"],
                "forbidden_prefixes": ["vendor/"]}"#,
        )
        .unwrap();
        let ok = |k, p| list.check(k, p).is_ok();
        assert!(ok(ActionKind::CreateFile, "src/a.py"));
        assert!(ok(ActionKind::CreateFile, "README.MD"));
        assert!(ok(ActionKind::CreateFile, ".env.example"));
        assert!(ok(ActionKind::CreateFile, "Makefile"));
        assert!(ok(ActionKind::CreateDir, "src/pkg"));
        assert!(!ok(ActionKind::CreateFile, "src/a.rs"));
        assert!(!ok(ActionKind::CreateFile, "web/node_modules/x.py"));
        assert!(!ok(ActionKind::DeleteDir, "build/out"));
        assert!(!ok(ActionKind::DeleteFile, "build/out/x.py"));
        assert!(ok(ActionKind::DeleteFile, "build/outer.py"));
        assert!(!ok(ActionKind::DeleteFile, "vendor/x.py"));
        assert!(Allowlist::from_json(r#"{"allowed_extension": []}"#).is_err());
        assert!(Allowlist::from_json(r#"{"forbidden_paths": ["a[" ]}"#).is_err());
    }
}
