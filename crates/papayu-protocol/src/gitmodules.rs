//! What a plan may write into a `.gitmodules` file: nothing `git fsck` would reject.
//!
//! A `.gitmodules` is read by `git submodule` and by every clone with `--recurse-submodules`,
//! and it has been the way into several git vulnerabilities: a `url` or `path` that starts with
//! `-` is taken as an option by the programs git runs, a submodule name with a `..` segment
//! escapes `.git/modules/`, and `update = !command` runs a shell command. `git fsck` (and every
//! hosting service that runs it on push) rejects these; papayu refuses them before they are
//! committed, with the reason.
//!
//! This module is pure. It must never accept a file that fsck's `gitmodulesName`,
//! `gitmodulesUrl`, `gitmodulesPath` or `gitmodulesUpdate` checks would reject.

/// `true` when `path` names a `.gitmodules` file (any case, as case-insensitive file systems
/// read it).
pub fn is_gitmodules(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.trim_end_matches(['.', ' '])
        .eq_ignore_ascii_case(".gitmodules")
}

/// Why git would reject this `.gitmodules` content, if it would.
pub fn check_gitmodules(text: &str) -> Result<(), String> {
    let mut section: Option<(String, Option<String>)> = None;
    let mut lines = text.lines().enumerate();
    while let Some((index, raw)) = lines.next() {
        let mut line = raw.to_string();
        // A value may continue on the next line after a trailing backslash.
        while line.ends_with('\\') && !line.ends_with("\\\\") {
            line.pop();
            match lines.next() {
                Some((_, next)) => line.push_str(next),
                None => break,
            }
        }
        let n = index + 1;
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        if trimmed.starts_with('[') {
            section = Some(parse_section(trimmed).ok_or_else(|| {
                format!("line {n} is not a section header git can read ([submodule \"name\"])")
            })?);
            if let Some((kind, Some(name))) = &section
                && kind == "submodule"
            {
                check_name(name)?;
            }
            continue;
        }
        let Some((kind, name)) = &section else {
            return Err(format!("line {n} has a setting outside any section"));
        };
        let (key, value) = parse_setting(trimmed)
            .ok_or_else(|| format!("line {n} is not a setting git can read"))?;
        if kind != "submodule" || name.is_none() {
            continue;
        }
        let name = name.as_deref().unwrap_or_default();
        check_setting(name, &key, &value)?;
    }
    Ok(())
}

fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.split(['/', '\\']).any(|s| s == "..") {
        return Err(format!(
            "submodule name '{}' has a '..' segment (or is empty), which could escape .git/modules; name it after its path",
            name.escape_default()
        ));
    }
    Ok(())
}

fn check_setting(name: &str, key: &str, value: &str) -> Result<(), String> {
    let option_like = value.starts_with('-');
    match key {
        "url" if option_like => Err(format!(
            "submodule '{}' has a url starting with '-', which git would pass as an option; use a real URL",
            name.escape_default()
        )),
        "url" if value.chars().any(char::is_control) || has_encoded_newline(value) => Err(format!(
            "submodule '{}' has a url with a newline or control character (git's credential protocol would misread it)",
            name.escape_default()
        )),
        "path" if option_like => Err(format!(
            "submodule '{}' has a path starting with '-', which git would pass as an option",
            name.escape_default()
        )),
        "update" if value.trim_start().starts_with('!') => Err(format!(
            "submodule '{}' has update = !command, which would run a shell command on update; git refuses it in .gitmodules",
            name.escape_default()
        )),
        _ => Ok(()),
    }
}

fn has_encoded_newline(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    lower.contains("%0a") || lower.contains("%0d") || lower.contains("%00")
}

/// `[section]`, `[section "sub"]` or the old `[section.sub]`; names are case-insensitive.
fn parse_section(line: &str) -> Option<(String, Option<String>)> {
    let inner = line.strip_prefix('[')?;
    let close = find_unquoted(inner, ']')?;
    let rest = inner[close + 1..].trim();
    if !(rest.is_empty() || rest.starts_with('#') || rest.starts_with(';')) {
        return None;
    }
    let inner = &inner[..close];
    match inner.find(|c: char| c.is_whitespace()) {
        Some(space) => {
            let kind = inner[..space].to_ascii_lowercase();
            let quoted = inner[space..].trim();
            let body = quoted.strip_prefix('"')?.strip_suffix('"')?;
            Some((kind, Some(unescape_subsection(body)?)))
        }
        None => match inner.split_once('.') {
            Some((kind, sub)) => Some((kind.to_ascii_lowercase(), Some(sub.to_ascii_lowercase()))),
            None => Some((inner.to_ascii_lowercase(), None)),
        },
    }
}

fn unescape_subsection(body: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push(chars.next()?),
            '"' => return None,
            _ => out.push(c),
        }
    }
    Some(out)
}

fn find_unquoted(text: &str, target: char) -> Option<usize> {
    let mut quoted = false;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => quoted = !quoted,
            c if c == target && !quoted => return Some(i),
            _ => {}
        }
    }
    None
}

/// `key = value` (or a bare `key`), with quotes, escapes and comments as git reads them.
fn parse_setting(line: &str) -> Option<(String, String)> {
    let (key, rest) = match line.split_once('=') {
        Some((k, v)) => (k.trim(), Some(v)),
        None => (line.split(['#', ';']).next()?.trim(), None),
    };
    if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        return None;
    }
    let key = key.to_ascii_lowercase();
    let Some(rest) = rest else {
        return Some((key, "true".into()));
    };
    let mut value = String::new();
    let mut quoted = false;
    let mut chars = rest.trim_start().chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '\\' => match chars.next()? {
                'n' => value.push('\n'),
                't' => value.push('\t'),
                'b' => value.push('\u{8}'),
                c @ ('"' | '\\') => value.push(c),
                _ => return None,
            },
            '#' | ';' if !quoted => break,
            c => value.push(c),
        }
    }
    if quoted {
        return None;
    }
    // Unquoted trailing whitespace is not part of the value.
    Some((key, value.trim_end().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_files_pass() {
        let ok = "[submodule \"lib/x\"]\n\tpath = lib/x\n\turl = https://example.com/x.git\n\tbranch = main\n# comment\n";
        assert_eq!(check_gitmodules(ok), Ok(()));
        assert_eq!(check_gitmodules(""), Ok(()));
        assert_eq!(
            check_gitmodules(
                "[submodule \"a\"]\n  url = ../sibling.git ; relative\n  update = rebase\n"
            ),
            Ok(())
        );
    }

    #[test]
    fn what_fsck_rejects_is_refused() {
        for bad in [
            "[submodule \"x\"]\n\turl = --upload-pack=touch /tmp/pwned\n",
            "[submodule \"x\"]\n\turl = \"-oProxyCommand=evil\"\n",
            "[submodule \"x\"]\n\tpath = -x\n\turl = https://e.com/x\n",
            "[submodule \"../../hooks\"]\n\tpath = a\n\turl = https://e.com/x\n",
            "[submodule \"a\\\\..\\\\b\"]\n\turl = https://e.com/x\n",
            "[submodule \"x\"]\n\tupdate = !rm -rf ~\n",
            "[submodule \"x\"]\n\turl = https://e.com/x%0ahost=evil\n",
            "[submodule \"x\"]\n\turl = \"https://e.com/x\\nhost=evil\"\n",
            "[submodule.x]\n\turl=-u\n",
        ] {
            assert!(check_gitmodules(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn unreadable_files_are_refused() {
        for bad in [
            "url = https://e.com/x\n",
            "[submodule \"x\"\n",
            "[submodule \"x\"]\n\turl = \"https://e.com\n",
            "[submodule \"x\"]\n\t= x\n",
        ] {
            assert!(check_gitmodules(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn gitmodules_names() {
        assert!(is_gitmodules(".gitmodules"));
        assert!(is_gitmodules("sub/.GITMODULES"));
        assert!(is_gitmodules(".gitmodules."));
        assert!(!is_gitmodules(".gitmodules.bak"));
    }
}
