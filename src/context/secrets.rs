//! One masker for everything that leaves the machine or is written to a trace: private-key
//! blocks, well-known token shapes, bearer tokens, and the values of credential-looking
//! assignments.

use std::sync::LazyLock;

use regex::Regex;

static PRIVATE_KEY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----.*?(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\z)")
        .expect("static regex")
});
static TOKENS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\b(sk-[A-Za-z0-9_\-]{8,}",
        r"|sk-ant-[A-Za-z0-9_\-]{8,}",
        r"|AKIA[0-9A-Z]{16}",
        r"|ASIA[0-9A-Z]{16}",
        r"|gh[pousr]_[A-Za-z0-9]{20,}",
        r"|github_pat_[A-Za-z0-9_]{20,}",
        r"|xox[abposr]-[A-Za-z0-9\-]{8,}",
        r"|glpat-[A-Za-z0-9_\-]{16,}",
        r"|AIza[0-9A-Za-z_\-]{30,})"
    ))
    .expect("static regex")
});
static BEARER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(bearer|token)\s+[A-Za-z0-9_\-\.=+/]{12,}").expect("static regex")
});
static ASSIGNMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)\b([A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PWD)[A-Z0-9_]*)(\s*[:=]\s*|"\s*:\s*")["']?([^\s"',;]{6,})"#,
    )
    .expect("static regex")
});

/// The text with every credential-looking value replaced by `[MASKED]`.
pub fn mask_secrets(text: &str) -> String {
    let text = PRIVATE_KEY.replace_all(text, "[MASKED PRIVATE KEY]");
    let text = TOKENS.replace_all(&text, "[MASKED]");
    let text = BEARER.replace_all(&text, "$1 [MASKED]");
    let text = ASSIGNMENT.replace_all(&text, |caps: &regex::Captures<'_>| {
        let value = &caps[3];
        if value == "[MASKED]" || looks_like_code(value) {
            caps[0].to_string()
        } else {
            format!("{}{}[MASKED]", &caps[1], &caps[2])
        }
    });
    text.into_owned()
}

/// An assignment's value that is code, not a secret (`os.environ["API_KEY"]`, `None`, a
/// function call, a variable reference).
fn looks_like_code(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    value.contains('(')
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_every_kind() {
        let text = "key sk-proj-abcdefghijklmnop and AKIAABCDEFGHIJKLMNOP\nAuthorization: Bearer abcdefghijklmnopqrstuvwx\nGITHUB=ghp_abcdefghijklmnopqrstuvwxyz0123\nslack xoxb-1234567890-abcdef\nAPI_KEY=q8Zr2LmX9vTk3PwY\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n";
        let masked = mask_secrets(text);
        for secret in [
            "sk-proj-abc",
            "AKIAABCD",
            "abcdefghijklmnopqrstuvwx",
            "ghp_abc",
            "xoxb-123",
            "q8Zr2LmX9vTk3PwY",
            "MIIE",
        ] {
            assert!(!masked.contains(secret), "{secret} leaked: {masked}");
        }
    }

    #[test]
    fn leaves_code_alone() {
        let code = "api_key = os.environ[\"API_KEY\"]\nTOKEN_URL = \"https://example.com/token\"\npassword = None\nconst key = getKey();\n";
        assert_eq!(mask_secrets(code), code);
    }
}
