//! When to colour, and with what: git's colour settings read the way git reads them.
//!
//! `--color` wins; then the setting for the kind of output (`color.papayu` for papayu's own
//! lines, `color.diff` before it for diffs), then `color.ui`. `always`/`true` colour, `never`/
//! `false` do not, `auto` (the default) colours a terminal (or git's pager) unless `NO_COLOR`
//! is set or `TERM` is `dumb`. Diff colours come from git's `color.diff.<slot>` settings.

use std::collections::BTreeMap;

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum When {
    Auto,
    Always,
    Never,
}

impl When {
    /// A git colour setting's value; `None` when it is not one git understands.
    fn parse(value: &str) -> Option<When> {
        match value.to_ascii_lowercase().as_str() {
            "always" | "true" | "yes" | "on" | "1" => Some(When::Always),
            "never" | "false" | "no" | "off" | "0" => Some(When::Never),
            "auto" => Some(When::Auto),
            _ => None,
        }
    }
}

/// What colour decisions depend on besides settings.
#[derive(Debug, Clone, Copy)]
pub struct Terminal {
    /// The stream is a terminal, or git's pager reads it (`GIT_PAGER_IN_USE`).
    pub tty: bool,
    /// `NO_COLOR` is set to anything non-empty.
    pub no_color: bool,
    /// `TERM=dumb`.
    pub dumb: bool,
}

/// Whether to colour a stream: `flag` first, then the first configured key of `keys` that
/// holds a colour setting, then `auto`.
pub fn wanted(
    flag: Option<When>,
    config: &BTreeMap<String, String>,
    keys: &[&str],
    term: Terminal,
) -> bool {
    let configured = keys
        .iter()
        .find_map(|k| config.get(*k).and_then(|v| When::parse(v)));
    match flag.or(configured).unwrap_or(When::Auto) {
        When::Always => true,
        When::Never => false,
        When::Auto => term.tty && !term.no_color && !term.dumb,
    }
}

/// The `--color` to give a git command whose output the user sees (`git diff`): the flag; else
/// `never` when `NO_COLOR` is set and no setting of `keys` asks for colour always — git itself
/// does not read `NO_COLOR`; else nothing (git decides as it always does).
pub fn for_git(
    flag: Option<When>,
    config: &BTreeMap<String, String>,
    keys: &[&str],
    term: Terminal,
) -> Option<When> {
    let configured = keys
        .iter()
        .find_map(|k| config.get(*k).and_then(|v| When::parse(v)));
    match flag {
        Some(when) => Some(when),
        None if term.no_color && configured != Some(When::Always) => Some(When::Never),
        None => None,
    }
}

/// The diff slots, as git names them under `color.diff.`, with git's defaults.
const SLOTS: &[(&str, &str)] = &[
    ("meta", "bold"),
    ("frag", "cyan"),
    ("old", "red"),
    ("new", "green"),
    ("context", "normal"),
    ("func", "normal"),
    ("commit", "yellow"),
];

/// SGR sequences for each diff slot; an empty string leaves the slot plain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Palette {
    slots: BTreeMap<&'static str, String>,
}

impl Palette {
    /// git's defaults overridden by `color.diff.<slot>`; a value git would reject keeps the
    /// default.
    #[expect(
        clippy::expect_used,
        reason = "the defaults are constants that parse (a unit test reads every one)"
    )]
    pub fn from_config(config: &BTreeMap<String, String>) -> Palette {
        let slots = SLOTS
            .iter()
            .map(|(slot, default)| {
                let spec = config
                    .get(&format!("color.diff.{slot}"))
                    .and_then(|v| sgr(v))
                    .unwrap_or_else(|| sgr(default).expect("defaults parse"));
                (*slot, spec)
            })
            .collect();
        Palette { slots }
    }

    /// `text` in the colour of `slot` (one of meta, frag, old, new, context, func, commit).
    pub fn paint(&self, slot: &str, text: &str) -> String {
        match self.slots.get(slot).map(String::as_str) {
            Some("") | None => text.to_string(),
            Some(seq) => format!("{seq}{text}\x1b[m"),
        }
    }
}

/// A git colour value (`bold red`, `ul #ff0000 black`, `208`, `brightblue nodim`) as an SGR
/// escape sequence; `""` for `normal` or an empty value, `None` when git would reject it.
pub fn sgr(spec: &str) -> Option<String> {
    let mut codes: Vec<String> = Vec::new();
    let mut colors = 0;
    for word in spec.split_whitespace() {
        let word = word.to_ascii_lowercase();
        if let Some(code) = attribute(&word) {
            codes.push(code.to_string());
            continue;
        }
        if word == "reset" {
            codes.insert(0, "0".to_string());
            continue;
        }
        let background = match colors {
            0 => false,
            1 => true,
            _ => return None,
        };
        colors += 1;
        if let Some(code) = color(&word, background) {
            codes.push(code);
        } else if word != "normal" {
            return None;
        }
    }
    Some(match codes.is_empty() {
        true => String::new(),
        false => format!("\x1b[{}m", codes.join(";")),
    })
}

fn attribute(word: &str) -> Option<u8> {
    let (negate, name) = match word.strip_prefix("no") {
        Some(rest) => (true, rest.strip_prefix('-').unwrap_or(rest)),
        None => (false, word),
    };
    let (on, off) = match name {
        "bold" => (1, 22),
        "dim" => (2, 22),
        "italic" => (3, 23),
        "ul" => (4, 24),
        "blink" => (5, 25),
        "reverse" => (7, 27),
        "strike" => (9, 29),
        _ => return None,
    };
    Some(if negate { off } else { on })
}

fn color(word: &str, background: bool) -> Option<String> {
    const NAMES: [&str; 8] = [
        "black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
    ];
    let base = if background { 40 } else { 30 };
    if word == "default" {
        return Some((base + 9).to_string());
    }
    if let Some(i) = NAMES.iter().position(|n| *n == word) {
        return Some((base + i).to_string());
    }
    if let Some(i) = word
        .strip_prefix("bright")
        .and_then(|w| NAMES.iter().position(|n| *n == w))
    {
        return Some((base + 60 + i).to_string());
    }
    if let Some(hex) = word.strip_prefix('#') {
        if hex.len() != 6 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok();
        return Some(format!(
            "{};2;{};{};{}",
            base + 8,
            byte(0)?,
            byte(2)?,
            byte(4)?
        ));
    }
    if let Ok(n) = word.parse::<i32>() {
        return match n {
            -1 => Some(String::new()),
            0..=255 => Some(format!("{};5;{n}", base + 8)),
            _ => None,
        };
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    const TTY: Terminal = Terminal {
        tty: true,
        no_color: false,
        dumb: false,
    };

    #[test]
    fn flag_then_specific_setting_then_color_ui() {
        let keys = ["color.papayu", "color.ui"];
        let c = config(&[("color.ui", "never")]);
        assert!(!wanted(None, &c, &keys, TTY));
        assert!(wanted(Some(When::Always), &c, &keys, TTY));
        let c = config(&[("color.ui", "never"), ("color.papayu", "auto")]);
        assert!(wanted(None, &c, &keys, TTY));
        let pipe = Terminal { tty: false, ..TTY };
        assert!(!wanted(None, &config(&[]), &keys, pipe));
        assert!(wanted(
            None,
            &config(&[("color.ui", "always")]),
            &keys,
            pipe
        ));
    }

    #[test]
    fn git_gets_never_under_no_color_unless_a_setting_says_always() {
        let term = Terminal {
            tty: true,
            no_color: true,
            dumb: false,
        };
        let keys = ["color.diff", "color.ui"];
        let none = BTreeMap::new();
        assert_eq!(for_git(None, &none, &keys, term), Some(When::Never));
        let always: BTreeMap<String, String> =
            [("color.ui".to_string(), "always".to_string())].into();
        assert_eq!(for_git(None, &always, &keys, term), None);
        assert_eq!(
            for_git(Some(When::Always), &none, &keys, term),
            Some(When::Always)
        );
        let colour = Terminal {
            no_color: false,
            ..term
        };
        assert_eq!(for_git(None, &none, &keys, colour), None);
    }

    #[test]
    fn auto_respects_no_color_and_dumb_terminals() {
        let keys = ["color.ui"];
        let none = config(&[]);
        assert!(wanted(None, &none, &keys, TTY));
        let no_color = Terminal {
            no_color: true,
            ..TTY
        };
        assert!(!wanted(None, &none, &keys, no_color));
        assert!(wanted(Some(When::Always), &none, &keys, no_color));
        let dumb = Terminal { dumb: true, ..TTY };
        assert!(!wanted(None, &none, &keys, dumb));
    }

    #[test]
    fn every_default_slot_colour_parses() {
        for (slot, default) in SLOTS {
            assert!(sgr(default).is_some(), "{slot}: {default}");
        }
    }

    #[test]
    fn git_colour_values_become_sgr_sequences() {
        assert_eq!(sgr("bold red").as_deref(), Some("\x1b[1;31m"));
        assert_eq!(sgr("red blue").as_deref(), Some("\x1b[31;44m"));
        assert_eq!(sgr("brightgreen").as_deref(), Some("\x1b[92m"));
        assert_eq!(sgr("208").as_deref(), Some("\x1b[38;5;208m"));
        assert_eq!(sgr("#ff0080 ul").as_deref(), Some("\x1b[38;2;255;0;128;4m"));
        assert_eq!(sgr("normal").as_deref(), Some(""));
        assert_eq!(sgr("reverse nobold").as_deref(), Some("\x1b[7;22m"));
        assert_eq!(sgr("red green blue"), None);
        assert_eq!(sgr("purple"), None);
    }

    #[test]
    fn palette_takes_git_slots() {
        let p = Palette::from_config(&config(&[("color.diff.new", "blue bold")]));
        assert_eq!(p.paint("new", "+x"), "\x1b[34;1m+x\x1b[m");
        assert_eq!(p.paint("old", "-x"), "\x1b[31m-x\x1b[m");
        assert_eq!(p.paint("context", " x"), " x");
        let bad = Palette::from_config(&config(&[("color.diff.frag", "not a colour")]));
        assert_eq!(bad.paint("frag", "@@"), "\x1b[36m@@\x1b[m");
    }
}
