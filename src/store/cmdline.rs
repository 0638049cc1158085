//! git's command-line settings (`git -c key=value`, `git --config-env`), which git hands to a
//! subcommand in `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` and the sq-quoted
//! `GIT_CONFIG_PARAMETERS`. libgit2 does not read them, so every config read here lays them over
//! what libgit2 found, parsed as git's `git_config_from_parameters` parses them: the numbered
//! variables first, then the quoted list, later values winning.

use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The settings given on git's command line, in the order git applies them. A value of `None`
/// is a key given without `=` (`git -c papayu.flag`), which git reads as boolean true.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandLine {
    entries: Vec<(String, Option<String>)>,
}

impl CommandLine {
    /// This process's command-line settings, read from its environment once. Settings git
    /// itself would refuse (a malformed quoted list) are ignored: git refused them before
    /// starting papayu.
    pub fn get() -> &'static CommandLine {
        static ONCE: OnceLock<CommandLine> = OnceLock::new();
        ONCE.get_or_init(|| {
            let var = |name: &str| std::env::var(name).ok();
            CommandLine::from_vars(&var).unwrap_or_default()
        })
    }

    /// Parses the variables `var` returns; `Err` says what git would call bogus.
    pub fn from_vars(var: &dyn Fn(&str) -> Option<String>) -> Result<CommandLine, String> {
        let mut entries = Vec::new();
        if let Some(count) = var("GIT_CONFIG_COUNT") {
            let count: usize = count
                .trim()
                .parse()
                .map_err(|_| format!("bogus count in GIT_CONFIG_COUNT: {count:?}"))?;
            for i in 0..count {
                let key = var(&format!("GIT_CONFIG_KEY_{i}"))
                    .ok_or_else(|| format!("missing config key GIT_CONFIG_KEY_{i}"))?;
                let value = var(&format!("GIT_CONFIG_VALUE_{i}"))
                    .ok_or_else(|| format!("missing config value GIT_CONFIG_VALUE_{i}"))?;
                entries.push((canonical_key(&key)?, Some(value)));
            }
        }
        if let Some(list) = var("GIT_CONFIG_PARAMETERS") {
            entries.extend(parse_parameters(&list)?);
        }
        Ok(CommandLine { entries })
    }

    /// `true` when nothing was given.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The last value given for `key` (any case in section and name): `Some(None)` for a key
    /// given without a value.
    /// Every setting given, in order: canonical key, value (`None` for a key without `=`).
    pub fn entries(&self) -> &[(String, Option<String>)] {
        &self.entries
    }

    pub fn last(&self, key: &str) -> Option<Option<&str>> {
        let key = canonical_key(key).ok()?;
        self.entries
            .iter()
            .rev()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_deref())
    }

    /// Every value given for `key`, in order; a key without a value reads as `true`.
    pub fn all(&self, key: &str) -> Vec<String> {
        let Ok(key) = canonical_key(key) else {
            return Vec::new();
        };
        self.entries
            .iter()
            .filter(|(k, _)| *k == key)
            .map(|(_, v)| v.clone().unwrap_or_else(|| "true".to_string()))
            .collect()
    }

    /// The last value of every key that starts with `prefix` (compared lowercased), names
    /// lowercased whole as [`crate::store::config::ConfigEntry`] names them.
    pub fn values_with_prefix(&self, prefix: &str) -> BTreeMap<String, String> {
        let prefix = prefix.to_ascii_lowercase();
        let mut out = BTreeMap::new();
        for (key, value) in &self.entries {
            let lower = key.to_ascii_lowercase();
            if lower.starts_with(&prefix) {
                out.insert(lower, value.clone().unwrap_or_else(|| "true".to_string()));
            }
        }
        out
    }
}

/// git's `sq_dequote_step`: one single-quoted word at the start of `text` (`'\''` and `'\!'`
/// between quoted parts stand for `'` and `!`), and the rest after it, `None` at the end.
fn sq_dequote_step(text: &str) -> Option<(String, Option<&str>)> {
    let mut chars = text.char_indices().peekable();
    if chars.next().map(|(_, c)| c) != Some('\'') {
        return None;
    }
    let mut out = String::new();
    while let Some((_, c)) = chars.next() {
        if c != '\'' {
            out.push(c);
            continue;
        }
        // Stepped out of the quotes.
        let rest_at = chars.peek().map(|&(i, _)| i);
        let Some(at) = rest_at else {
            return Some((out, None));
        };
        let rest = &text[at..];
        let bytes = rest.as_bytes();
        if bytes.len() >= 3
            && bytes[0] == b'\\'
            && matches!(bytes[1], b'\'' | b'!')
            && bytes[2] == b'\''
        {
            out.push(bytes[1] as char);
            chars.next();
            chars.next();
            chars.next();
            continue;
        }
        return Some((out, Some(rest)));
    }
    None
}

/// The quoted list git builds from `git -c`: new-style `'key'='value'` (or `'key'=` for a
/// key without a value) and old-style `'key=value'`, separated by whitespace.
fn parse_parameters(list: &str) -> Result<Vec<(String, Option<String>)>, String> {
    let bogus = || "bogus format in GIT_CONFIG_PARAMETERS".to_string();
    let mut out = Vec::new();
    let mut cur = Some(list);
    while let Some(text) = cur.filter(|t| !t.is_empty()) {
        let (key, rest) = sq_dequote_step(text).ok_or_else(bogus)?;
        cur = match rest {
            None => {
                out.push(old_style(&key)?);
                None
            }
            Some(r) if r.starts_with(is_space) => {
                out.push(old_style(&key)?);
                Some(r)
            }
            Some(r) if r.starts_with('=') => {
                let r = &r[1..];
                if r.starts_with('\'') {
                    let (value, after) = sq_dequote_step(r).ok_or_else(bogus)?;
                    if after.is_some_and(|a| !a.starts_with(is_space)) {
                        return Err(bogus());
                    }
                    out.push((canonical_key(&key)?, Some(value)));
                    after
                } else if r.is_empty() || r.starts_with(is_space) {
                    out.push((canonical_key(&key)?, None));
                    Some(r)
                } else {
                    return Err(bogus());
                }
            }
            Some(_) => return Err(bogus()),
        };
        cur = cur.map(|t| t.trim_start_matches(is_space));
    }
    Ok(out)
}

fn is_space(c: char) -> bool {
    // git's isspace: space, tab, newline, vertical tab, form feed, carriage return.
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

/// `key=value` in one word (older git, and `git -c` before 2.31): split at the first `=`.
fn old_style(word: &str) -> Result<(String, Option<String>), String> {
    let (key, value) = match word.split_once('=') {
        Some((k, v)) => (k, Some(v.to_string())),
        None => (word, None),
    };
    let key = key.trim_matches(is_space);
    if key.is_empty() {
        return Err(format!("bogus config parameter: {word}"));
    }
    Ok((canonical_key(key)?, value))
}

/// git's `git_config_parse_key`: section and name lowercased, a subsection kept as written;
/// a key without a section or name, or with characters git refuses in them, is an error.
fn canonical_key(key: &str) -> Result<String, String> {
    let invalid = || format!("invalid config key: {key}");
    let (Some(first), Some(last)) = (key.find('.'), key.rfind('.')) else {
        return Err(format!("key does not contain a section: {key}"));
    };
    let (section, name) = (&key[..first], &key[last + 1..]);
    if section.is_empty() || name.is_empty() {
        return Err(invalid());
    }
    let name_ok = name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    let section_ok = section
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
    if !name_ok || !section_ok || key[first..=last].contains('\n') {
        return Err(invalid());
    }
    let middle = &key[first..=last];
    Ok(format!(
        "{}{}{}",
        section.to_ascii_lowercase(),
        middle,
        name.to_ascii_lowercase()
    ))
}

/// git's boolean spellings (`true`/`yes`/`on`, `false`/`no`/`off`/empty, any case, or a
/// whole number, non-zero being true); `None` for anything else.
pub fn parse_bool(value: Option<&str>) -> Option<bool> {
    let Some(value) = value else {
        return Some(true);
    };
    match value.to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" => Some(true),
        "false" | "no" | "off" | "" => Some(false),
        _ => parse_i64(value).map(|n| n != 0),
    }
}

/// git's whole numbers: optional sign, digits, an optional `k`, `m` or `g` (any case).
pub fn parse_i64(value: &str) -> Option<i64> {
    let value = value.trim();
    let (digits, factor) = match value.chars().last()?.to_ascii_lowercase() {
        'k' => (&value[..value.len() - 1], 1024),
        'm' => (&value[..value.len() - 1], 1024 * 1024),
        'g' => (&value[..value.len() - 1], 1024 * 1024 * 1024),
        _ => (value, 1),
    };
    digits.parse::<i64>().ok()?.checked_mul(factor)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(vars: &[(&str, &str)]) -> Result<CommandLine, String> {
        let map: BTreeMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        CommandLine::from_vars(&|name: &str| map.get(name).cloned())
    }

    #[test]
    fn new_style_quoted_pairs_with_embedded_quotes() {
        let c = parse(&[(
            "GIT_CONFIG_PARAMETERS",
            r"'papayu.checkTimeout'='2' 'Color.UI'='never' 'a.Sub.Key'='it'\''s' 'x.flag'=",
        )])
        .unwrap();
        assert_eq!(c.last("papayu.checktimeout"), Some(Some("2")));
        assert_eq!(c.last("color.ui"), Some(Some("never")));
        assert_eq!(c.last("a.Sub.key"), Some(Some("it's")));
        assert_eq!(c.last("a.sub.key"), None, "subsections keep their case");
        assert_eq!(c.last("x.flag"), Some(None));
        assert_eq!(parse_bool(c.last("x.flag").unwrap()), Some(true));
    }

    #[test]
    fn old_style_words_and_numbered_variables_later_wins() {
        let c = parse(&[
            ("GIT_CONFIG_COUNT", "2"),
            ("GIT_CONFIG_KEY_0", "papayu.model"),
            ("GIT_CONFIG_VALUE_0", "a"),
            ("GIT_CONFIG_KEY_1", "papayu.other"),
            ("GIT_CONFIG_VALUE_1", "x y"),
            ("GIT_CONFIG_PARAMETERS", "'papayu.model=b=c'  'core.bare'"),
        ])
        .unwrap();
        assert_eq!(c.last("papayu.model"), Some(Some("b=c")));
        assert_eq!(c.all("papayu.model"), ["a", "b=c"]);
        assert_eq!(c.last("papayu.other"), Some(Some("x y")));
        assert_eq!(c.last("core.bare"), Some(None));
    }

    #[test]
    fn bogus_lists_are_refused_as_git_refuses_them() {
        for bad in [
            "papayu.x=1",
            "'papayu.x'='1'junk",
            "'papayu.x'=1",
            "'unterminated",
        ] {
            assert!(parse(&[("GIT_CONFIG_PARAMETERS", bad)]).is_err(), "{bad}");
        }
        assert!(parse(&[("GIT_CONFIG_COUNT", "1")]).is_err());
        assert!(parse(&[("GIT_CONFIG_PARAMETERS", "'nosection'='1'")]).is_err());
    }

    #[test]
    fn git_number_and_boolean_spellings() {
        assert_eq!(parse_i64("2"), Some(2));
        assert_eq!(parse_i64("1k"), Some(1024));
        assert_eq!(parse_i64("-3M"), Some(-3 * 1024 * 1024));
        assert_eq!(parse_i64("two"), None);
        assert_eq!(parse_bool(Some("On")), Some(true));
        assert_eq!(parse_bool(Some("")), Some(false));
        assert_eq!(parse_bool(Some("0")), Some(false));
        assert_eq!(parse_bool(Some("maybe")), None);
    }
}
