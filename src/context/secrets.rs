//! One masker for everything that leaves the machine or is written where others read it: a
//! model request, a trace, the shared notes, the operation log. It masks private-key blocks (PEM
//! and OpenSSH, PGP, PuTTY), the token shapes providers publish (OpenAI, Anthropic, Stripe, npm,
//! PyPI, GitHub, GitLab, Slack, Google, Azure, AWS, Hugging Face, SendGrid, DigitalOcean, Groq,
//! xAI, HashiCorp Vault, Telegram, Shopify, Linear, Atlassian, Doppler), JWTs, passwords inside
//! URLs, bearer and basic credentials, and the values of credential-looking assignments.
//!
//! Every shape is anchored on a prefix or structure that ordinary code does not have, so that
//! masking never eats identifiers (`npm_package_name`, a commit id, a UUID, a public key). The
//! corpus in the tests holds a positive and a near miss for each.

use std::sync::LazyLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use aho_corasick::AhoCorasick;
use regex::Regex;

#[expect(
    clippy::expect_used,
    reason = "a regular expression written here, which the tests compile: it cannot fail"
)]
static PRIVATE_KEY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----.*?(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\z)",
        r"|(?m)^Private-Lines: *[0-9]+\r?\n(?:[A-Za-z0-9+/=]+\r?\n)*(?:Private-MAC: *[0-9a-fA-F]+)?",
    ))
    .expect("static regex")
});
#[expect(
    clippy::expect_used,
    reason = "a regular expression written here, which the tests compile: it cannot fail"
)]
static TOKENS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\b(?:",
        // OpenAI, Anthropic.
        r"sk-[A-Za-z0-9_\-]{8,}",
        // Stripe secret and restricted keys, live and test.
        r"|[sr]k_(?:live|test)_[0-9A-Za-z]{10,}",
        // npm and PyPI tokens.
        r"|npm_[A-Za-z0-9]{30,}",
        r"|pypi-AgE[A-Za-z0-9_\-]{40,}",
        // AWS access key ids (long-term, temporary, and the rarer kinds).
        r"|(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}",
        // GitHub tokens: personal, OAuth, user-to-server, server-to-server, refresh, fine-grained.
        r"|gh[pousr]_[A-Za-z0-9]{20,}",
        r"|github_pat_[A-Za-z0-9_]{20,}",
        // GitLab tokens: personal, deploy, runner, CI job, feed, trigger, OAuth, SCIM, and the
        // runner registration token.
        r"|gl(?:pat|dt|rt|cbt|ptt|ft|imt|oas|soat|agent)-[A-Za-z0-9_\-]{16,}",
        r"|GR1348941[A-Za-z0-9_\-]{20,}",
        // Slack tokens and app tokens.
        r"|xox[abposre]-[A-Za-z0-9\-]{8,}",
        r"|xapp-[0-9]-[A-Za-z0-9\-]{16,}",
        // Google API keys, OAuth client secrets and access tokens.
        r"|AIza[0-9A-Za-z_\-]{30,}",
        r"|GOCSPX-[A-Za-z0-9_\-]{20,}",
        r"|ya29\.[A-Za-z0-9_\-]{20,}",
        // Azure AD client secrets (`xxx8Q~…`).
        r"|[A-Za-z0-9_~.\-]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,40}",
        // Hugging Face, SendGrid, DigitalOcean.
        r"|hf_[A-Za-z0-9]{30,}",
        r"|SG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{20,}",
        r"|do[opr]_v1_[a-f0-9]{64}",
        // Groq and xAI API keys.
        r"|gsk_[A-Za-z0-9]{20,}",
        r"|xai-[A-Za-z0-9]{20,}",
        // HashiCorp Vault service, batch and recovery tokens (90 characters and more after
        // the prefix: forty keep `this.hvs.someLongPropertyName` code apart).
        r"|hv[sbr]\.[A-Za-z0-9_\-]{40,}",
        // Telegram bot tokens: the bot's id, a colon, 35 characters starting `AA` (also as
        // they stand in the Bot API's URLs, `/bot<token>/`).
        r"|(?:bot)?[0-9]{8,10}:AA[A-Za-z0-9_\-]{33}",
        // Shopify admin, app shared secret, custom app and partner tokens.
        r"|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}",
        // Linear API keys, Atlassian API tokens, Doppler tokens (a service token names its
        // environment: `dp.st.prd.…`).
        r"|lin_api_[A-Za-z0-9]{30,}",
        r"|ATATT[A-Za-z0-9_\-=]{40,}",
        r"|dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_\-]{1,40}\.)?[A-Za-z0-9]{40,}",
        // JWTs: a JSON header and payload (both start `{"` → `eyJ`) and a signature.
        r"|eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{16,}",
        r")",
    ))
    .expect("static regex")
});
/// Webhook URLs whose path is the secret (Slack).
#[expect(
    clippy::expect_used,
    reason = "a regular expression written here, which the tests compile: it cannot fail"
)]
static WEBHOOK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(https://hooks\.slack\.com/(?:services|workflows|triggers)/)[A-Za-z0-9/_\-]{20,}")
        .expect("static regex")
});
/// `scheme://user:password@host`: the password.
#[expect(
    clippy::expect_used,
    reason = "a regular expression written here, which the tests compile: it cannot fail"
)]
static URL_PASSWORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b([a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@\[\]]*:)([^\s@/]+)@").expect("static regex")
});
/// Azure storage account keys and shared access signatures in connection strings and URLs.
#[expect(
    clippy::expect_used,
    reason = "a regular expression written here, which the tests compile: it cannot fail"
)]
static AZURE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(AccountKey=|SharedAccessKey=|[?&]sig=)[A-Za-z0-9+/%]{20,}={0,2}")
        .expect("static regex")
});
#[expect(
    clippy::expect_used,
    reason = "a regular expression written here, which the tests compile: it cannot fail"
)]
static BEARER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(bearer|token|basic)\s+[A-Za-z0-9_\-\.=+/]{12,}").expect("static regex")
});
#[expect(
    clippy::expect_used,
    reason = "a regular expression written here, which the tests compile: it cannot fail"
)]
static ASSIGNMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)\b([A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PWD)[A-Z0-9_]*)(\s*[:=]\s*|"\s*:\s*")["']?([^\s"',;]{6,})"#,
    )
    .expect("static regex")
});

/// The text with every credential-looking value replaced by `[MASKED]`.
///
/// A shape is looked for only when the text holds a literal that every match of it contains
/// (and, for the common words of credentials and assignments, followed as a match must go on),
/// so that text without any — most of it — costs no compiling of the shapes' expressions.
pub fn mask_secrets(text: &str) -> String {
    mask_shapes(text, Shapes::in_text(text))
}

/// Each shape's replacement, in the order they are made.
type Replace = for<'t> fn(&'t str) -> std::borrow::Cow<'t, str>;
const REPLACEMENTS: [(u8, Replace); 7] = [
    (Shapes::PRIVATE_KEY, |t| {
        PRIVATE_KEY.replace_all(t, "[MASKED PRIVATE KEY]")
    }),
    (Shapes::TOKENS, |t| TOKENS.replace_all(t, "[MASKED]")),
    (Shapes::WEBHOOK, |t| WEBHOOK.replace_all(t, "${1}[MASKED]")),
    (Shapes::URL_PASSWORD, mask_url_passwords),
    (Shapes::AZURE, |t| AZURE.replace_all(t, "${1}[MASKED]")),
    (Shapes::BEARER, |t| BEARER.replace_all(t, "$1 [MASKED]")),
    (Shapes::ASSIGNMENT, mask_assignments),
];

/// `text` with the shapes in `may` replaced.
fn mask_shapes(text: &str, may: Shapes) -> String {
    let mut text = std::borrow::Cow::Borrowed(text);
    for (shape, replace) in REPLACEMENTS {
        if may.has(shape) {
            text = owned(replace(&text));
        }
    }
    text.into_owned()
}

/// A replacement's result, owned only when something was replaced.
fn owned(replaced: std::borrow::Cow<'_, str>) -> std::borrow::Cow<'static, str> {
    std::borrow::Cow::Owned(replaced.into_owned())
}

/// Until a process has masked this many bytes, texts are searched one literal at a time (see
/// [`Shapes::in_text`]).
const SMALL_TEXT: usize = 16 * 1024;

/// Which shapes a text may hold: a bit per expression above.
#[derive(Clone, Copy)]
struct Shapes(u8);

impl Shapes {
    const PRIVATE_KEY: u8 = 1;
    const TOKENS: u8 = 1 << 1;
    const WEBHOOK: u8 = 1 << 2;
    const URL_PASSWORD: u8 = 1 << 3;
    const AZURE: u8 = 1 << 4;
    const BEARER: u8 = 1 << 5;
    const ASSIGNMENT: u8 = 1 << 6;
    const ALL: u8 = (1 << 7) - 1;
    /// The shapes matched without regard to case: `(?i)` also folds the Kelvin sign into `k`
    /// and the long s into `s`, so either in the text turns them on.
    const FOLDED: u8 = Self::AZURE | Self::BEARER | Self::ASSIGNMENT;

    /// For each shape, literals one of which every match contains (found regardless of ASCII
    /// case, which only ever finds more).
    const LITERALS: &[(u8, &[&str])] = &[
        (Self::PRIVATE_KEY, &["PRIVATE KEY", "Private-Lines:"]),
        (
            Self::TOKENS,
            &[
                "sk-",
                "k_live_",
                "k_test_",
                "npm_",
                "pypi-AgE",
                "AKIA",
                "ASIA",
                "ABIA",
                "ACCA",
                "ghp_",
                "gho_",
                "ghu_",
                "ghs_",
                "ghr_",
                "github_pat_",
                "glpat-",
                "gldt-",
                "glrt-",
                "glcbt-",
                "glptt-",
                "glft-",
                "glimt-",
                "gloas-",
                "glsoat-",
                "glagent-",
                "GR1348941",
                "xox",
                "xapp-",
                "AIza",
                "GOCSPX-",
                "ya29.",
                "Q~",
                "hf_",
                "SG.",
                "_v1_",
                "eyJ",
                "gsk_",
                "xai-",
                "hvs.",
                "hvb.",
                "hvr.",
                ":AA",
                "shpat_",
                "shpss_",
                "shpca_",
                "shppa_",
                "lin_api_",
                "ATATT",
                "dp.pt.",
                "dp.st.",
                "dp.sa.",
                "dp.ct.",
                "dp.scim.",
                "dp.audit.",
            ],
        ),
        (Self::WEBHOOK, &["https://hooks.slack.com/"]),
        (Self::URL_PASSWORD, &["://"]),
        (Self::AZURE, &["AccountKey=", "SharedAccessKey=", "sig="]),
        (Self::BEARER, &["bearer", "token", "basic"]),
        (
            Self::ASSIGNMENT,
            &["key", "token", "secret", "password", "passwd", "pwd"],
        ),
        (Self::FOLDED, &["\u{212A}", "\u{17F}"]),
    ];

    fn in_text(text: &str) -> Shapes {
        // Searching literal by literal costs a pass per literal; the automaton costs its
        // building once. A process that masks little (an apply's trace) never builds it.
        static SEARCHED: AtomicUsize = AtomicUsize::new(0);
        let searched = SEARCHED.fetch_add(text.len(), Ordering::Relaxed) + text.len();
        match searched <= SMALL_TEXT {
            true => Self::found_by(text, Self::each_literal_searched),
            false => Self::found_by(text, Self::all_literals_at_once),
        }
    }

    /// The shapes whose literals `search` finds in `text`.
    fn found_by(text: &str, search: fn(&str, &mut dyn FnMut(u8, usize) -> bool)) -> Shapes {
        let mut found = 0;
        search(text, &mut |bit, end| {
            // The words of credentials and assignments are common (`"tokens": 12`, `keys`):
            // they count only when followed as a match of theirs must go on.
            let follows = match bit {
                Self::BEARER => credential_follows(&text[end..]),
                Self::ASSIGNMENT => assignment_follows(&text[end..]),
                _ => true,
            };
            if follows {
                found |= bit;
            }
            found == Self::ALL
        });
        Shapes(found)
    }

    /// Every occurrence of every literal in `text` (ASCII case folded), as (shape, end), until
    /// `hit` says every shape is found: one literal at a time, which for a short text costs
    /// less than building an automaton.
    fn each_literal_searched(text: &str, hit: &mut dyn FnMut(u8, usize) -> bool) {
        let folded = text.to_ascii_lowercase();
        for (bit, literals) in Self::LITERALS {
            for literal in *literals {
                let literal = literal.to_ascii_lowercase();
                let mut from = 0;
                while let Some(at) = folded[from..].find(&literal) {
                    let start = from + at;
                    if hit(*bit, start + literal.len()) {
                        return;
                    }
                    from = start + 1;
                    while !folded.is_char_boundary(from) {
                        from += 1;
                    }
                }
            }
        }
    }

    /// [`Self::each_literal_searched`] in one pass over `text`, for long texts.
    fn all_literals_at_once(text: &str, hit: &mut dyn FnMut(u8, usize) -> bool) {
        #[expect(
            clippy::expect_used,
            reason = "plain literals written here: building their automaton cannot fail"
        )]
        static FINDER: LazyLock<(AhoCorasick, Vec<u8>)> = LazyLock::new(|| {
            let (bits, literals): (Vec<u8>, Vec<&str>) = Shapes::LITERALS
                .iter()
                .flat_map(|(bit, literals)| literals.iter().map(move |l| (*bit, *l)))
                .unzip();
            let finder = AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(literals)
                .expect("static literals");
            (finder, bits)
        });
        let (finder, bits) = &*FINDER;
        for m in finder.find_overlapping_iter(text) {
            if hit(bits[m.pattern().as_usize()], m.end()) {
                return;
            }
        }
    }

    fn has(self, shape: u8) -> bool {
        self.0 & shape != 0
    }
}

/// Whether `rest`, the text after `bearer`, `token` or `basic`, goes on as [`BEARER`]'s match
/// must: whitespace, then twelve characters of a credential.
fn credential_follows(rest: &str) -> bool {
    let value = rest.trim_start();
    value.len() < rest.len()
        && credential_chars(value, 12, |c| {
            c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '=' | '+' | '/')
        })
}

/// Whether `rest`, the text after a word like `key` or `token`, goes on as [`ASSIGNMENT`]'s
/// match must: the rest of the name, then `:` or `=` (or a JSON key's `": "`), then a value of
/// six characters, quoted or not.
fn assignment_follows(rest: &str) -> bool {
    let name_end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let after = &rest[name_end..];
    let value = |v: &str| {
        let v = v.strip_prefix(['"', '\'']).unwrap_or(v);
        credential_chars(v, 6, |c| {
            !c.is_whitespace() && !matches!(c, '"' | '\'' | ',' | ';')
        })
    };
    let plain = after
        .trim_start()
        .strip_prefix([':', '='])
        .is_some_and(|v| value(v.trim_start()));
    let json = after
        .strip_prefix('"')
        .and_then(|v| v.trim_start().strip_prefix(':'))
        .and_then(|v| v.trim_start().strip_prefix('"'))
        .is_some_and(value);
    plain || json
}

/// Whether `text` starts with `n` characters that `ok` accepts.
fn credential_chars(text: &str, n: usize, ok: impl Fn(char) -> bool) -> bool {
    let mut chars = text.chars();
    (0..n).all(|_| chars.next().is_some_and(&ok))
}

fn mask_url_passwords(text: &str) -> std::borrow::Cow<'_, str> {
    URL_PASSWORD.replace_all(text, |caps: &regex::Captures<'_>| {
        let password = &caps[2];
        if password == "[MASKED]" || password.starts_with(['$', '{', '<', '%']) {
            caps[0].to_string()
        } else {
            format!("{}[MASKED]@", &caps[1])
        }
    })
}

fn mask_assignments(text: &str) -> std::borrow::Cow<'_, str> {
    ASSIGNMENT.replace_all(text, |caps: &regex::Captures<'_>| {
        let value = &caps[3];
        if value == "[MASKED]" || looks_like_code(value) {
            caps[0].to_string()
        } else {
            format!("{}{}[MASKED]", &caps[1], &caps[2])
        }
    })
}

/// The kinds of context request whose cache keys event lines give as `key=KIND:…`
/// (`CONTEXT_CACHE_MISS type=read_file key=read_file:src/app.py`): a path or a query, no secret.
const CONTEXT_KEY_KINDS: [&str; 3] = ["read_file:", "search:", "logs:"];

/// An assignment's value that is code, not a secret (`os.environ["API_KEY"]`, `None`, a
/// function call, a variable reference, a context request's cache key).
fn looks_like_code(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    CONTEXT_KEY_KINDS.iter().any(|kind| value.starts_with(kind))
        || value.contains('(')
        || value.contains('[')
        || value.contains("://")
        || value.starts_with('$')
        || value.starts_with('{')
        || value.starts_with('<')
        || matches!(
            lower.as_str(),
            "none" | "null" | "undefined" | "true" | "false" | "process.env"
        )
        || lower.starts_with("os.")
        || lower.starts_with("process.")
        || lower.starts_with("env")
        || entropy(value) < 3.0
}

/// Shannon entropy in bits per character: high for random keys, low for words.
fn entropy(value: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    for c in value.chars() {
        *counts.entry(c).or_insert(0usize) += 1;
    }
    let n = value.chars().count() as f64;
    counts
        .values()
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

/// What [`mask_secrets`] writes in place of a credential.
pub const MASK: &str = "[MASKED]";
/// What [`mask_secrets`] writes in place of a private-key block.
pub const MASK_PRIVATE_KEY: &str = "[MASKED PRIVATE KEY]";

/// `true` when `text` holds a mark [`mask_secrets`] writes.
pub fn has_mask(text: &str) -> bool {
    text.contains(MASK) || text.contains(MASK_PRIVATE_KEY)
}

/// A line a model wrote with a mask in it, over a file whose secret it only saw masked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MaskWritten {
    /// 1-based line of the written text.
    pub line: usize,
}

/// Carries what a model wrote over `real` (which it saw as `mask_secrets(real)`) back to the
/// real text: every line it left as it saw it becomes the real line again, so a key it saw as
/// `[MASKED]` is kept. A line that holds a mask and is not such an unchanged line is refused: the
/// model cannot write a secret it never saw. When `real` holds nothing masked, the marks are
/// literal text and `written` is returned as it is.
pub fn unmask(real: &str, written: &str) -> Result<String, MaskWritten> {
    // Without a mark in what was written, no line stands for a secret.
    if !has_mask(written) {
        return Ok(written.to_string());
    }
    let masked = mask_secrets(real);
    if masked == real {
        return Ok(written.to_string());
    }
    let units = Units::of(&masked, real);
    let masked_lines: Vec<&str> = masked.split_inclusive('\n').collect();
    let written_lines: Vec<&str> = written.split_inclusive('\n').collect();
    // For each written line, the masked line it is an unchanged copy of.
    let mut same = vec![None; written_lines.len()];
    for (m, w) in align(&masked_lines, &written_lines) {
        same[w] = Some(m);
    }
    let real_lines: std::collections::HashSet<&str> = real
        .split_inclusive('\n')
        .map(|l| l.trim_end_matches(['\r', '\n']))
        .collect();
    let mut out = String::with_capacity(written.len());
    let mut w = 0;
    while w < written_lines.len() {
        if let Some(m) = same[w] {
            let unit = &units.list[units.of_line[m]];
            let whole = unit.first == m
                && (0..unit.count).all(|k| same.get(w + k).copied().flatten() == Some(m + k));
            if whole {
                out.push_str(&unit.real);
                w += unit.count;
                continue;
            }
        }
        let line = written_lines[w];
        if has_mask(line) && !real_lines.contains(line.trim_end_matches(['\r', '\n'])) {
            return Err(MaskWritten { line: w + 1 });
        }
        out.push_str(line);
        w += 1;
    }
    Ok(out)
}

/// The masked text cut into units, each one or more masked lines and the real text they stand
/// for: a line for a line, except where a private-key block of many lines became one.
struct Units {
    list: Vec<Unit>,
    /// For each masked line, its unit.
    of_line: Vec<usize>,
}

struct Unit {
    first: usize,
    count: usize,
    real: String,
}

impl Units {
    fn of(masked: &str, real: &str) -> Units {
        let m: Vec<&str> = masked.split_inclusive('\n').collect();
        let r: Vec<&str> = real.split_inclusive('\n').collect();
        let pairs = align(&m, &r);
        let mut list = Vec::new();
        let mut of_line = vec![0; m.len()];
        let (mut mi, mut ri) = (0, 0);
        let mut push = |list: &mut Vec<Unit>, first: usize, count: usize, real: String| {
            of_line[first..first + count].fill(list.len());
            list.push(Unit { first, count, real });
        };
        for (pm, pr) in pairs.into_iter().chain(std::iter::once((m.len(), r.len()))) {
            // The lines between two equal ones differ: a line for a line when the counts
            // agree, else one unit.
            let (dm, dr) = (pm - mi, pr - ri);
            if dm == dr {
                for k in 0..dm {
                    push(&mut list, mi + k, 1, r[ri + k].to_string());
                }
            } else if dm > 0 {
                push(&mut list, mi, dm, r[ri..pr].concat());
            }
            if pm < m.len() {
                push(&mut list, pm, 1, r[pr].to_string());
            }
            (mi, ri) = (pm + 1, pr + 1);
        }
        Units { list, of_line }
    }
}

/// The pairs of equal lines of a longest common subsequence of `a` and `b`, in order.
fn align(a: &[&str], b: &[&str]) -> Vec<(usize, usize)> {
    let head = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let mut pairs: Vec<(usize, usize)> = (0..head).map(|i| (i, i)).collect();
    let (a_mid, b_mid) = (&a[head..a.len() - tail], &b[head..b.len() - tail]);
    if !a_mid.is_empty() && !b_mid.is_empty() {
        let old = a_mid.concat();
        let new = b_mid.concat();
        let context = a_mid.len() + b_mid.len() + 1;
        let patch = diffy::DiffOptions::new()
            .set_context_len(context)
            .create_patch(&old, &new);
        let (mut i, mut j) = (0, 0);
        for hunk in patch.hunks() {
            for line in hunk.lines() {
                match line {
                    diffy::Line::Context(_) => {
                        pairs.push((head + i, head + j));
                        i += 1;
                        j += 1;
                    }
                    diffy::Line::Delete(_) => i += 1,
                    diffy::Line::Insert(_) => j += 1,
                }
            }
        }
    }
    pairs.extend((0..tail).map(|k| (a.len() - tail + k, b.len() - tail + k)));
    pairs
}

#[cfg(test)]
mod tests;
