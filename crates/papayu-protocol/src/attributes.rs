//! The attributes papayu reads from `.gitattributes`: `papayu-private`, files a repository marks
//! as protected, and git's own `text`, `eol` and `crlf`, which say how a blob is written (see
//! the executor).
//!
//! ```text
//! config/prod.yml      papayu-private
//! "secret file.txt"    papayu-private
//! vault/**             papayu-private
//! vault/README.md      -papayu-private
//! [attr]confidential   papayu-private -diff
//! *.pgp                confidential
//! ```
//!
//! A file with the attribute set is treated like the built-in protected paths: a plan may not
//! change, replace or delete it (directly or by deleting a directory that holds it), and it is
//! never read into a model's context.
//!
//! Lines are read as git reads them (`attr.c`, `dir.c`, `wildmatch.c`), because a file git marks
//! and papayu does not is a file left unprotected: a pattern may be C-quoted (`"a b.txt"`, with
//! `\"`, `\\`, `\t` and octal escapes); a pattern starting with `!` is ignored, as git ignores
//! it; an attribute is `name`, `-name` (unset), `!name` (unspecified) or `name=value`, and one
//! invalid name drops the whole line; `[attr]name …` defines a macro, in the root
//! `.gitattributes` and `info/attributes` only, and `binary` is the built-in
//! `-diff -merge -text`. A pattern without `/` matches the file name at any depth below the
//! `.gitattributes` that holds it, one with a `/` matches the path relative to that directory,
//! with git's wildmatch (`*`, `?`, `[…]` with `[:class:]`, `**`, `\` escapes; `{` is literal).
//! The most specific line wins: `info/attributes`, then deeper files, then later lines, and your
//! own `core.attributesFile` last.
//!
//! One deliberate widening: a pattern ending in `/` (which git never matches against a file)
//! marks everything below the directories it names as private, since a user who wrote it meant
//! to protect them. It only ever adds privacy: a file git's own rules mark private stays private.
//!
//! This module is pure: the caller reads the `.gitattributes` texts from the base tree. It must
//! never report a file as not private when a line that git would apply marks it.

use std::collections::HashMap;

/// The attribute name.
pub const PRIVATE_ATTRIBUTE: &str = "papayu-private";

/// git skips a line this long or longer.
const MAX_LINE_BYTES: usize = 2048;

/// The characters git splits an attributes line on.
const BLANK: &[u8] = b" \t\r\n";

/// An attribute's state for a path, as gitattributes(5) defines it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    Unspecified,
    Set,
    Unset,
    Value(String),
}

/// A pattern as `dir.c` prepares it.
#[derive(Debug, Clone)]
struct Pattern {
    /// The pattern without its trailing `/`.
    text: Vec<u8>,
    /// No `/` in it: matched against the file name.
    basename: bool,
    /// It ended in `/`: git matches it against directories only.
    directory: bool,
    /// How many leading bytes hold no glob character.
    literal_prefix: usize,
}

#[derive(Debug, Clone)]
enum Line {
    Match(Pattern, Vec<(String, State)>),
    Macro(String, Vec<(String, State)>),
}

/// The lines of one `.gitattributes` file.
pub struct AttributeFile {
    /// The directory holding the file, `""` for the root, else `dir/` with a trailing slash.
    dir: String,
    lines: Vec<Line>,
}

impl AttributeFile {
    /// Reads a `.gitattributes` in `dir` (`""` for the root). Lines git would not understand are
    /// skipped, as git skips them; macro definitions count only in the root file.
    pub fn parse(dir: &str, text: &str) -> AttributeFile {
        let dir = match dir.trim_end_matches('/') {
            "" => String::new(),
            d => format!("{d}/"),
        };
        let bytes = text.as_bytes();
        // git reads the file as a C string: a NUL ends it.
        let bytes = &bytes[..memchr::memchr(0, bytes).unwrap_or(bytes.len())];
        let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
        let macros_allowed = dir.is_empty();
        let lines = bytes
            .split(|&b| b == b'\n')
            .filter_map(|line| parse_line(line, macros_allowed))
            .collect();
        AttributeFile { dir, lines }
    }

    /// `true` when the file holds no line git would use.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
}

fn skip_blank(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|b| BLANK.contains(b)).count();
    &s[n..]
}

fn until_blank(s: &[u8]) -> usize {
    s.iter().position(|b| BLANK.contains(b)).unwrap_or(s.len())
}

fn parse_line(line: &[u8], macros_allowed: bool) -> Option<Line> {
    let rest = skip_blank(line);
    if rest.is_empty() || rest[0] == b'#' || line.len() >= MAX_LINE_BYTES {
        return None;
    }
    let (name, states) = match unquote(rest) {
        Some((pattern, after)) => (pattern, after),
        None => {
            let n = until_blank(rest);
            (rest[..n].to_vec(), &rest[n..])
        }
    };
    let states = parse_states(skip_blank(states))?;
    const MACRO: &[u8] = b"[attr]";
    if name.len() > MACRO.len() && name.starts_with(MACRO) {
        if !macros_allowed {
            return None;
        }
        let macro_name = skip_blank(&name[MACRO.len()..]);
        let macro_name = &macro_name[..until_blank(macro_name)];
        if !valid_name(macro_name) {
            return None;
        }
        return Some(Line::Macro(
            String::from_utf8_lossy(macro_name).into_owned(),
            states,
        ));
    }
    if name.first() == Some(&b'!') {
        // git: "Negative patterns are ignored in git attributes".
        return None;
    }
    Some(Line::Match(Pattern::new(name), states))
}

/// A C-quoted pattern (`"a \"b\" \101"`) and what follows its closing quote; `None` when the
/// text does not start with a well-formed one (git then reads it unquoted).
fn unquote(text: &[u8]) -> Option<(Vec<u8>, &[u8])> {
    let mut rest = text.strip_prefix(b"\"")?;
    let mut out = Vec::new();
    loop {
        let (&c, after) = rest.split_first()?;
        rest = after;
        match c {
            b'"' => return Some((out, rest)),
            b'\\' => {}
            c => {
                out.push(c);
                continue;
            }
        }
        let (&e, after) = rest.split_first()?;
        rest = after;
        out.push(match e {
            b'a' => 7,
            b'b' => 8,
            b'f' => 12,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'v' => 11,
            b'\\' | b'"' => e,
            b'0'..=b'3' => {
                let d1 = *rest.first().filter(|d| (b'0'..=b'7').contains(d))?;
                let d2 = *rest.get(1).filter(|d| (b'0'..=b'7').contains(d))?;
                rest = &rest[2..];
                ((e - b'0') << 6) | ((d1 - b'0') << 3) | (d2 - b'0')
            }
            _ => return None,
        });
    }
}

/// The attribute states of a line, or `None` when git would drop the line (an invalid name).
fn parse_states(mut text: &[u8]) -> Option<Vec<(String, State)>> {
    let mut states = Vec::new();
    while !text.is_empty() {
        let end = until_blank(text);
        let word = &text[..end];
        text = skip_blank(&text[end..]);
        let (state, name) = match word[0] {
            b'-' | b'!' => {
                let name = &word[1..];
                let name = &name[..name.iter().position(|&b| b == b'=').unwrap_or(name.len())];
                let state = if word[0] == b'-' {
                    State::Unset
                } else {
                    State::Unspecified
                };
                (state, name)
            }
            _ => match word.iter().position(|&b| b == b'=') {
                Some(eq) => (
                    State::Value(String::from_utf8_lossy(&word[eq + 1..]).into_owned()),
                    &word[..eq],
                ),
                None => (State::Set, word),
            },
        };
        if !valid_name(name) || name.starts_with(b"builtin_") {
            return None;
        }
        states.push((String::from_utf8_lossy(name).into_owned(), state));
    }
    Some(states)
}

/// git's rule for attribute names: letters, digits, `-`, `.`, `_`, not starting with `-`.
fn valid_name(name: &[u8]) -> bool {
    !name.is_empty()
        && name[0] != b'-'
        && name
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'))
}

fn is_glob_special(b: u8) -> bool {
    matches!(b, b'*' | b'?' | b'[' | b'\\')
}

impl Pattern {
    fn new(mut text: Vec<u8>) -> Pattern {
        let directory = text.last() == Some(&b'/');
        if directory {
            text.pop();
        }
        let basename = !text.contains(&b'/');
        let literal_prefix = text
            .iter()
            .position(|&b| is_glob_special(b))
            .unwrap_or(text.len());
        Pattern {
            text,
            basename,
            directory,
            literal_prefix,
        }
    }

    /// Whether the pattern matches `path` (relative to the `.gitattributes`'s directory), a
    /// directory when `is_dir`.
    fn matches(&self, path: &[u8], is_dir: bool) -> bool {
        if self.directory && !is_dir {
            return false;
        }
        if self.basename {
            let name = match path.iter().rposition(|&b| b == b'/') {
                Some(i) => &path[i + 1..],
                None => path,
            };
            return wildmatch(&self.text, name);
        }
        // A path pattern: an optional leading `/`, then the literal part compared as it is
        // and the rest with wildmatch (so `foo**` starts its `**` at a segment, as in git).
        let (mut pattern, mut prefix) = (self.text.as_slice(), self.literal_prefix);
        if pattern.first() == Some(&b'/') {
            pattern = &pattern[1..];
            prefix -= 1;
        }
        if prefix > 0 {
            if prefix > path.len() || pattern[..prefix] != path[..prefix] {
                return false;
            }
            if prefix == pattern.len() && prefix == path.len() {
                return true;
            }
            return wildmatch(&pattern[prefix..], &path[prefix..]);
        }
        wildmatch(pattern, path)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wild {
    Match,
    NoMatch,
    AbortAll,
    AbortToStarStar,
}

/// git's `wildmatch` with `WM_PATHNAME`: `*` and `?` stop at `/`, `**` between slashes spans
/// directories.
fn wildmatch(pattern: &[u8], text: &[u8]) -> bool {
    wild(pattern, text) == Wild::Match
}

fn wild(p: &[u8], text: &[u8]) -> Wild {
    let (mut pi, mut ti) = (0, 0);
    while pi < p.len() {
        let pc = p[pi];
        let Some(&t) = text.get(ti) else {
            if pc != b'*' {
                return Wild::AbortAll;
            }
            return star(p, pi, text, ti);
        };
        match pc {
            b'\\' => {
                pi += 1;
                if p.get(pi) != Some(&t) {
                    return Wild::NoMatch;
                }
            }
            b'?' if t == b'/' => return Wild::NoMatch,
            b'?' => {}
            b'*' => return star(p, pi, text, ti),
            b'[' => match class(p, pi, t) {
                Ok(end) => pi = end,
                Err(w) => return w,
            },
            _ if t != pc => return Wild::NoMatch,
            _ => {}
        }
        pi += 1;
        ti += 1;
    }
    if ti < text.len() {
        Wild::NoMatch
    } else {
        Wild::Match
    }
}

/// The rest of a match from a `*` at `p[pi]` against `text[ti..]`.
fn star(p: &[u8], mut pi: usize, text: &[u8], mut ti: usize) -> Wild {
    let first = pi;
    pi += 1;
    let mut any_depth = false;
    if p.get(pi) == Some(&b'*') {
        while p.get(pi) == Some(&b'*') {
            pi += 1;
        }
        let at_start = first == 0 || p[first - 1] == b'/';
        let at_end =
            pi == p.len() || p[pi] == b'/' || (p[pi] == b'\\' && p.get(pi + 1) == Some(&b'/'));
        if at_start && at_end {
            if p.get(pi) == Some(&b'/') && wild(&p[pi + 1..], &text[ti..]) == Wild::Match {
                return Wild::Match;
            }
            any_depth = true;
        }
    }
    if pi == p.len() {
        return if !any_depth && text[ti..].contains(&b'/') {
            Wild::NoMatch
        } else {
            Wild::Match
        };
    }
    if !any_depth && p[pi] == b'/' {
        // `*/`: the star takes the rest of this directory name.
        return match text[ti..].iter().position(|&b| b == b'/') {
            None => Wild::NoMatch,
            Some(k) => wild(&p[pi + 1..], &text[ti + k + 1..]),
        };
    }
    while ti < text.len() {
        match wild(&p[pi..], &text[ti..]) {
            Wild::NoMatch if !any_depth && text[ti] == b'/' => return Wild::AbortToStarStar,
            Wild::NoMatch => {}
            Wild::AbortToStarStar if any_depth => {}
            other => return other,
        }
        ti += 1;
    }
    Wild::AbortAll
}

/// A bracket expression at `p[start]` (the `[`) against the byte `t`: the index of its closing
/// `]`, or how the whole match ends.
fn class(p: &[u8], start: usize, t: u8) -> Result<usize, Wild> {
    let at = |i: usize| p.get(i).copied().ok_or(Wild::AbortAll);
    let mut pi = start + 1;
    let mut pc = at(pi)?;
    if pc == b'^' {
        pc = b'!';
    }
    let negated = pc == b'!';
    if negated {
        pi += 1;
    }
    let mut prev: u8 = 0;
    let mut matched = false;
    loop {
        let mut pc = at(pi)?;
        if pc == 0 {
            return Err(Wild::AbortAll);
        }
        if pc == b'\\' {
            pi += 1;
            pc = at(pi)?;
            matched |= t == pc;
        } else if pc == b'-' && prev != 0 && p.get(pi + 1).is_some_and(|&n| n != b']') {
            pi += 1;
            pc = at(pi)?;
            if pc == b'\\' {
                pi += 1;
                pc = at(pi)?;
            }
            matched |= prev <= t && t <= pc;
            pc = 0;
        } else if pc == b'[' && p.get(pi + 1) == Some(&b':') {
            let s = pi + 2;
            let close = s + p[s..]
                .iter()
                .position(|&b| b == b']')
                .ok_or(Wild::AbortAll)?;
            if close < s + 1 || p[close - 1] != b':' {
                // No `:]`: the `[` is an ordinary member.
                matched |= t == b'[';
                pc = b'[';
                pi = s - 1;
                prev = pc;
                if at(pi)? == b']' {
                    break;
                }
                continue;
            }
            matched |= match &p[s..close - 1] {
                b"alnum" => t.is_ascii_alphanumeric(),
                b"alpha" => t.is_ascii_alphabetic(),
                b"blank" => t == b' ' || t == b'\t',
                b"cntrl" => t.is_ascii_control(),
                b"digit" => t.is_ascii_digit(),
                b"graph" => t.is_ascii_graphic(),
                b"lower" => t.is_ascii_lowercase(),
                b"print" => t.is_ascii_graphic() || t == b' ',
                b"punct" => t.is_ascii_punctuation(),
                b"space" => matches!(t, b' ' | b'\t' | b'\n' | b'\r'),
                b"upper" => t.is_ascii_uppercase(),
                b"xdigit" => t.is_ascii_hexdigit(),
                _ => return Err(Wild::AbortAll),
            };
            pi = close;
            pc = 0;
        } else {
            matched |= t == pc;
        }
        prev = pc;
        pi += 1;
        if at(pi)? == b']' {
            break;
        }
    }
    if matched == negated || t == b'/' {
        return Err(Wild::NoMatch);
    }
    Ok(pi)
}

/// Every `.gitattributes` that applies, from the least to the most specific.
#[derive(Default)]
pub struct Attributes {
    /// Files of the tree, shallowest first.
    files: Vec<AttributeFile>,
    /// `$GIT_DIR/info/attributes`, which overrides every file of the tree.
    local: Vec<AttributeFile>,
    /// `core.attributesFile`, which every file of the tree overrides.
    global: Vec<AttributeFile>,
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

    /// Adds your own attributes file (`core.attributesFile`), which the tree's files override.
    pub fn add_global(&mut self, file: AttributeFile) {
        if !file.is_empty() {
            self.global.push(file);
        }
    }

    /// `true` when `path` has `papayu-private` set (to anything but `false`), by git's rules or
    /// by the widening of directory patterns.
    pub fn is_private(&self, path: &str) -> bool {
        let private = |state: State| match state {
            State::Set => true,
            State::Value(v) => v != "false",
            State::Unset | State::Unspecified => false,
        };
        private(self.git_state(path, PRIVATE_ATTRIBUTE))
            || (self.has_directory_patterns()
                && private(
                    self.resolve(path, true)
                        .remove(PRIVATE_ATTRIBUTE)
                        .unwrap_or(State::Unspecified),
                ))
    }

    /// Whether any line has a pattern ending in `/` (only those make the widening differ).
    fn has_directory_patterns(&self) -> bool {
        self.global
            .iter()
            .chain(&self.files)
            .chain(&self.local)
            .flat_map(|f| &f.lines)
            .any(|line| matches!(line, Line::Match(p, _) if p.directory))
    }

    /// The state of `attribute` for `path`; for `papayu-private`, directory patterns count too.
    pub fn get(&self, path: &str, attribute: &str) -> State {
        let widen = attribute == PRIVATE_ATTRIBUTE;
        self.resolve(path, widen)
            .remove(attribute)
            .unwrap_or(State::Unspecified)
    }

    /// The state of `attribute` for `path` exactly as `git check-attr` reports it.
    pub fn git_state(&self, path: &str, attribute: &str) -> State {
        self.resolve(path, false)
            .remove(attribute)
            .unwrap_or(State::Unspecified)
    }

    /// The macros in force: the built-in `binary`, then `core.attributesFile`'s, the root
    /// file's, and `info/attributes`'s (a later definition replaces an earlier one).
    fn macros(&self) -> HashMap<&str, &[(String, State)]> {
        static BINARY: std::sync::LazyLock<Vec<(String, State)>> = std::sync::LazyLock::new(|| {
            ["diff", "merge", "text"]
                .iter()
                .map(|n| (n.to_string(), State::Unset))
                .collect()
        });
        let mut macros: HashMap<&str, &[(String, State)]> = HashMap::new();
        macros.insert("binary", BINARY.as_slice());
        let roots = self.files.iter().filter(|f| f.dir.is_empty());
        for file in self.global.iter().chain(roots).chain(&self.local) {
            for line in &file.lines {
                if let Line::Macro(name, states) = line {
                    macros.insert(name, states);
                }
            }
        }
        macros
    }

    /// Every attribute a line assigns to `path`, the most specific line first (git's `fill`).
    fn resolve(&self, path: &str, widen: bool) -> HashMap<String, State> {
        let macros = self.macros();
        let mut known = HashMap::new();
        let files = self.local.iter().rev().chain(self.files.iter().rev());
        for file in files.chain(self.global.iter().rev()) {
            let Some(relative) = path.strip_prefix(file.dir.as_str()) else {
                continue;
            };
            let relative = relative.as_bytes();
            for line in file.lines.iter().rev() {
                let Line::Match(pattern, states) = line else {
                    continue;
                };
                if applies(pattern, relative, widen) {
                    fill(&mut known, states, &macros);
                }
            }
        }
        known
    }
}

/// Whether a line's pattern applies to the file `path`; with `widen`, a directory pattern
/// applies to every file below a directory it matches.
fn applies(pattern: &Pattern, path: &[u8], widen: bool) -> bool {
    if !pattern.directory {
        return pattern.matches(path, false);
    }
    widen
        && path
            .iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'/')
            .any(|(i, _)| pattern.matches(&path[..i], true))
}

/// Assigns each of `states` not yet known, last first, expanding a macro that becomes set.
fn fill(
    known: &mut HashMap<String, State>,
    states: &[(String, State)],
    macros: &HashMap<&str, &[(String, State)]>,
) {
    for (name, state) in states.iter().rev() {
        if known.contains_key(name) {
            continue;
        }
        known.insert(name.clone(), state.clone());
        if *state == State::Set
            && let Some(expansion) = macros.get(name.as_str())
        {
            fill(known, expansion, macros);
        }
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

    #[test]
    fn wildmatch_follows_git() {
        for (pattern, text, want) in [
            ("foo", "foo", true),
            ("*", "foo/bar", false),
            ("**", "foo/bar", true),
            ("*/bar", "foo/bar", true),
            ("a/**/b", "a/b", true),
            ("a/**/b", "a/x/y/b", true),
            ("a/**b", "a/x/b", false),
            ("**/foo", "x/y/foo", true),
            ("foo/**", "foo/a/b", true),
            ("foo/**", "foo", false),
            ("f?o", "f/o", false),
            ("[a-c]x", "bx", true),
            ("[!a-c]x", "bx", false),
            ("[^a]x", "bx", true),
            ("[]]", "]", true),
            ("[[:digit:]]z", "7z", true),
            ("[[:digit]z", "[z", true),
            ("[[:nope:]]", "n", false),
            ("\\*", "*", true),
            ("\\*", "x", false),
            ("{a,b}", "{a,b}", true),
            ("{a,b}", "a", false),
            ("[/]", "/", false),
            ("a[", "a[", false),
        ] {
            assert_eq!(
                wildmatch(pattern.as_bytes(), text.as_bytes()),
                want,
                "{pattern} {text}"
            );
        }
    }

    #[test]
    fn lines_are_read_as_git_reads_them() {
        let a = attrs(&[
            (
                "",
                "\"secret file.txt\" papayu-private\n\"tab\\there\" papayu-private\n!*.md papayu-private\n\\!bang papayu-private\nbad.txt papayu-private in/valid\n[attr]conf papayu-private\n*.conf conf\nplain.conf -conf\n",
            ),
            ("sub", "[attr]local papayu-private\n*.x local\n"),
        ]);
        assert!(a.is_private("secret file.txt"));
        assert!(!a.is_private("secret"));
        assert!(a.is_private("tab\there"));
        assert!(!a.is_private("README.md"), "negative patterns are ignored");
        assert!(a.is_private("!bang"));
        assert!(!a.is_private("bad.txt"), "an invalid name drops the line");
        assert!(a.is_private("a/b.conf"));
        assert!(!a.is_private("plain.conf"));
        assert!(
            !a.is_private("sub/a.x"),
            "macros only count in the root file"
        );
        assert_eq!(a.get("sub/a.x", "local"), State::Set);
    }

    #[test]
    fn the_directory_widening_only_adds_privacy() {
        let a = attrs(&[(
            "",
            "*.key papayu-private\nvault/ -papayu-private\nsafe/ papayu-private\n",
        )]);
        assert!(a.is_private("vault/a.key"));
        assert!(a.is_private("safe/a.txt"));
        assert_eq!(
            a.git_state("safe/a.txt", PRIVATE_ATTRIBUTE),
            State::Unspecified
        );
    }

    /// The setup and expectations of git's own attribute tests (t0003): macros, `!attr` in a
    /// macro, `attr -attr` on one line, and directory-relative patterns in deeper files.
    #[test]
    fn git_own_attribute_cases() {
        let mut a = attrs(&[
            (
                "",
                "[attr]notest !test\nf\ttest=f\na/i test=a/i\nonoff test -test\nofon -test test\nno notest\n",
            ),
            ("a", "g test=a/g\nb/g test=a/b/g\n"),
            ("a/b", "h test=a/b/h\nd/* test=a/b/d/*\nd/yes notest\n"),
        ]);
        let value = |v: &str| State::Value(v.to_string());
        for (path, want) in [
            ("f", value("f")),
            ("a/f", value("f")),
            ("a/c/f", value("f")),
            ("a/g", value("a/g")),
            ("a/b/g", value("a/b/g")),
            ("b/g", State::Unspecified),
            ("a/b/h", value("a/b/h")),
            ("a/b/d/g", value("a/b/d/*")),
            ("onoff", State::Unset),
            ("ofon", State::Set),
            ("no", State::Unspecified),
            ("a/b/d/no", value("a/b/d/*")),
            ("a/b/d/yes", State::Unspecified),
            ("a/i", value("a/i")),
            ("subdir/a/i", State::Unspecified),
        ] {
            assert_eq!(a.git_state(path, "test"), want, "{path}");
        }
        assert_eq!(a.git_state("no", "notest"), State::Set);
        assert_eq!(a.git_state("a/b/d/yes", "notest"), State::Set);
        // A global file is overridden by the tree's.
        a.add_global(AttributeFile::parse(
            "",
            "global test=global\nf test=global\n",
        ));
        assert_eq!(a.git_state("global", "test"), value("global"));
        assert_eq!(a.git_state("f", "test"), value("f"));
    }
}
