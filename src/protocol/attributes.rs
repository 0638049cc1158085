//! The attributes papayu reads from `.gitattributes`: `papayu-private`, files a repository marks
//! as protected, and git's own `text`, `eol` and `crlf`, which say how a blob is written (see
//! [`crate::store::eol`]).
//!
//! ```text
//! config/prod.yml   papayu-private
//! vault/**          papayu-private
//! vault/README.md   -papayu-private
//! ```
//!
//! A file with the attribute set is treated like the built-in protected paths: a plan may not
//! change, replace or delete it (directly or by deleting a directory that holds it), and it is
//! never read into a model's context. Patterns follow gitattributes: one without a `/` matches
//! the file name at any depth below the `.gitattributes` that holds it, one with a `/` matches
//! the path relative to that directory; later lines and deeper files win; `-attr` unsets and
//! `!attr` unspecifies. One deliberate widening: a pattern ending in `/` (which git ignores)
//! marks everything below that directory, since a user who wrote it meant to protect it.
//!
//! This module is pure: the caller reads the `.gitattributes` texts from the base tree. It must
//! never report a file as not private when a line that git would apply marks it. The widening
//! for `dir/` applies to `papayu-private` only: git's attributes ignore such patterns.

use globset::{GlobBuilder, GlobMatcher};

/// The attribute name.
pub const PRIVATE_ATTRIBUTE: &str = "papayu-private";

/// The attributes this module keeps; every other one is skipped.
const TRACKED: &[&str] = &[PRIVATE_ATTRIBUTE, "text", "eol", "crlf"];

/// An attribute's state for a path, as gitattributes(5) defines it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    Unspecified,
    Set,
    Unset,
    Value(String),
}

struct Rule {
    matcher: GlobMatcher,
    /// Match against the file name only (the pattern had no `/`).
    basename: bool,
    /// The pattern ended in `/` (only `papayu-private` honours it).
    directory: bool,
    /// The tracked attributes the line mentions, in order.
    states: Vec<(&'static str, State)>,
}

/// The tracked lines of one `.gitattributes` file.
pub struct AttributeFile {
    /// The directory holding the file, `""` for the root, else `dir/` with a trailing slash.
    dir: String,
    rules: Vec<Rule>,
}

impl AttributeFile {
    /// Reads the lines of a `.gitattributes` in `dir` (`""` for the root) that mention the
    /// attribute. Lines git would not understand are skipped, as git skips them.
    pub fn parse(dir: &str, text: &str) -> AttributeFile {
        let dir = match dir.trim_end_matches('/') {
            "" => String::new(),
            d => format!("{d}/"),
        };
        let rules = text.lines().filter_map(parse_line).collect();
        AttributeFile { dir, rules }
    }

    /// `true` when the file mentions the attribute at all.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }
}

fn parse_line(line: &str) -> Option<Rule> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') || line.starts_with("[attr]") {
        return None;
    }
    let mut words = line.split_whitespace();
    let pattern = words.next()?;
    let mut states = Vec::new();
    for word in words {
        let (state, name) = match word.as_bytes().first() {
            Some(b'-') => (State::Unset, &word[1..]),
            Some(b'!') => (State::Unspecified, &word[1..]),
            _ => match word.split_once('=') {
                Some((name, value)) => (State::Value(value.to_string()), name),
                None => (State::Set, word),
            },
        };
        // The built-in macro: `binary` is `-diff -merge -text`.
        let (state, name) = match (name, &state) {
            ("binary", State::Set) => (State::Unset, "text"),
            _ => (state, name),
        };
        if let Some(&tracked) = TRACKED.iter().find(|t| **t == name) {
            states.push((tracked, state));
        }
    }
    if states.is_empty() {
        return None;
    }
    let (pattern, below) = match pattern.strip_suffix('/') {
        // Like a gitignore directory pattern: without another `/`, at any depth.
        Some(dir) if !dir.contains('/') => (format!("**/{dir}/**"), true),
        Some(dir) => (format!("{dir}/**"), true),
        None => (pattern.to_string(), false),
    };
    let basename = !below && !pattern.contains('/');
    let pattern = pattern.trim_start_matches('/');
    let matcher = GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .ok()?
        .compile_matcher();
    Some(Rule {
        matcher,
        basename,
        directory: below,
        states,
    })
}

/// Every `.gitattributes` that applies, from the least to the most specific.
#[derive(Default)]
pub struct Attributes {
    /// Files of the tree, shallowest first.
    files: Vec<AttributeFile>,
    /// `$GIT_DIR/info/attributes`, which overrides every file of the tree.
    local: Vec<AttributeFile>,
}

impl Attributes {
    /// Adds a `.gitattributes` of the tree, in any order: deeper files override shallower ones.
    pub fn add(&mut self, file: AttributeFile) {
        if file.is_empty() {
            return;
        }
        let depth = |f: &AttributeFile| f.dir.matches('/').count();
        let at = self
            .files
            .iter()
            .position(|f| depth(f) > depth(&file))
            .unwrap_or(self.files.len());
        self.files.insert(at, file);
    }

    /// Adds the repository's own `info/attributes`, which overrides the tree's files.
    pub fn add_local(&mut self, file: AttributeFile) {
        if !file.is_empty() {
            self.local.push(file);
        }
    }

    /// `true` when `path` has `papayu-private` set (to anything but `false`).
    pub fn is_private(&self, path: &str) -> bool {
        match self.get(path, PRIVATE_ATTRIBUTE) {
            State::Set => true,
            State::Value(v) => v != "false",
            State::Unset | State::Unspecified => false,
        }
    }

    /// The state of the tracked attribute `attribute` for `path`.
    pub fn get(&self, path: &str, attribute: &str) -> State {
        let mut state = State::Unspecified;
        for file in self.files.iter().chain(&self.local) {
            let Some(relative) = path.strip_prefix(file.dir.as_str()) else {
                continue;
            };
            let name = relative.rsplit('/').next().unwrap_or(relative);
            for rule in &file.rules {
                if rule.directory && attribute != PRIVATE_ATTRIBUTE {
                    continue;
                }
                let Some((_, s)) = rule.states.iter().rev().find(|(n, _)| *n == attribute) else {
                    continue;
                };
                let subject = if rule.basename { name } else { relative };
                if rule.matcher.is_match(subject) {
                    state = s.clone();
                }
            }
        }
        state
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs(files: &[(&str, &str)]) -> Attributes {
        let mut a = Attributes::default();
        for (dir, text) in files {
            a.add(AttributeFile::parse(dir, text));
        }
        a
    }

    #[test]
    fn patterns_follow_gitattributes() {
        let a = attrs(&[(
            "",
            "# private\n*.secret papayu-private\nconfig/prod.yml papayu-private\nvault/** papayu-private\nvault/README.md -papayu-private\n*.txt text\n",
        )]);
        assert!(a.is_private("x.secret"));
        assert!(a.is_private("deep/down/x.secret"));
        assert!(a.is_private("config/prod.yml"));
        assert!(!a.is_private("other/config/prod.yml"));
        assert!(a.is_private("vault/keys/a"));
        assert!(!a.is_private("vault/README.md"));
        assert!(!a.is_private("notes.txt"));
    }

    #[test]
    fn deeper_files_and_later_lines_win() {
        let a = attrs(&[
            ("", "*.yml papayu-private\n"),
            (
                "public",
                "*.yml !papayu-private\nkeep.yml papayu-private=true\n",
            ),
            ("flagged", "x.yml papayu-private=false\n"),
        ]);
        assert!(a.is_private("a.yml"));
        assert!(!a.is_private("public/a.yml"));
        assert!(a.is_private("public/keep.yml"));
        assert!(!a.is_private("flagged/x.yml"));
        assert!(a.is_private("flagged/y.yml"));
    }

    #[test]
    fn files_may_be_added_in_any_order() {
        let mut a = Attributes::default();
        a.add(AttributeFile::parse("sub", "*.yml -papayu-private\n"));
        a.add(AttributeFile::parse("", "*.yml papayu-private\n"));
        assert!(!a.is_private("sub/a.yml"));
        assert!(a.is_private("a.yml"));
        a.add_local(AttributeFile::parse("", "sub/a.yml papayu-private\n"));
        assert!(a.is_private("sub/a.yml"));
    }

    #[test]
    fn a_trailing_slash_marks_the_whole_directory() {
        let a = attrs(&[("", "/private/ papayu-private\nvault/ papayu-private\n")]);
        assert!(a.is_private("private/a/b.txt"));
        assert!(!a.is_private("src/private/a.txt"));
        assert!(a.is_private("vault/a"));
        assert!(a.is_private("src/vault/a"));
    }

    #[test]
    fn git_line_ending_attributes_are_read() {
        let a = attrs(&[
            (
                "",
                "* text=auto\n*.bat text eol=crlf\n*.png binary\ndocs/ -text\n",
            ),
            ("legacy", "*.txt -crlf\n"),
        ]);
        assert_eq!(a.get("x.rs", "text"), State::Value("auto".into()));
        assert_eq!(a.get("run.bat", "text"), State::Set);
        assert_eq!(a.get("run.bat", "eol"), State::Value("crlf".into()));
        assert_eq!(a.get("a/b.png", "text"), State::Unset);
        assert_eq!(a.get("legacy/a.txt", "crlf"), State::Unset);
        // git ignores directory patterns for attributes.
        assert_eq!(a.get("docs/a.md", "text"), State::Value("auto".into()));
        assert!(!a.is_private("x.rs"));
    }
}
