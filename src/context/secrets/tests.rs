//! Masking and unmasking tests: every credential shape, and code that only looks like one.

use super::*;

/// Every shape run over the text, none skipped: what [`mask_secrets`] must equal.
fn every_shape(text: &str) -> String {
    mask_shapes(text, Shapes(Shapes::ALL))
}

#[test]
fn skipping_shapes_by_their_literals_changes_nothing() {
    let corpus = [
        "key sk-proj-abcdefghijklmnop and AKIAABCDEFGHIJKLMNOP",
        "Authorization: Bearer abcdefghijklmnopqrstuvwx",
        "GITHUB=ghp_abcdefghijklmnopqrstuvwxyz0123 and glpat-abcdefghijklmnopqrst",
        "slack xoxb-1234567890-abcdef https://hooks.slack.com/services/T000/B000/abcdefghijklmnopqrstuvwx",
        "postgres://user:hunter2secret@db.example.com/x",
        "DefaultEndpointsProtocol=https;AccountKey=abcdefghijklmnopqrstuvwxyz0123456789==",
        "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmnopqrstuv",
        "azure abc8Q~abcdefghijklmnopqrstuvwxyz0123456789",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----",
        // The Kelvin sign and the long s fold into `k` and `s` under `(?i)`.
        "API_\u{212A}EY = \"q8Zr2LmX9vTk3PwYzz\"",
        "pa\u{17F}\u{17F}word: q8Zr2LmX9vTk3PwYzz",
        "TO\u{212A}EN q8Zr2LmX9vTk3PwYzz1234",
        "plain code: fn main() { let total = items.len(); }",
        "APPLY_SUCCESS plan=74ec7378f4 branch=papayu/x commit=60df0b26f495f5bc2b1cad4028c7c2f4",
        "at 12:34:56 the MAC was 00:AA:BB:CC:DD:EE",
    ];
    let newer: Vec<String> = newer_shapes().into_iter().map(|(line, _)| line).collect();
    for text in corpus
        .iter()
        .copied()
        .chain(newer.iter().map(String::as_str))
    {
        assert_eq!(mask_secrets(text), every_shape(text), "{text}");
    }
    assert!(mask_secrets("API_\u{212A}EY = \"q8Zr2LmX9vTk3PwYzz\"").contains(MASK));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]
    /// Texts made of what credentials and assignments are made of — words, name tails,
    /// separators, values — in any order and combination: the gated masker gives what
    /// every expression gives.
    #[test]
    fn the_gates_never_skip_a_match(parts in proptest::collection::vec(
        (
            proptest::sample::select(vec![
                "", " ", "\n", "{\"", "\"", "'", "x", "é", "\u{212A}", "\u{17F}", "(",
            ]),
            proptest::sample::select(vec![
                "key", "KEY", "token", "Token", "secret", "password", "passwd", "pwd",
                "bearer", "Basic", "api_", "s", "[MASKED]", "gsk_", "xai-", "hvs.", "hvb.",
                "bot123456789:AA", "123456789:aa", "shpat_", "shppa_", "lin_api_", "ATATT",
                "atatt", "dp.pt.", "dp.scim.", "://u:", "GSK_",
            ]),
            proptest::sample::select(vec!["", "s", "_id", "_KEY", "2", "é"]),
            proptest::sample::select(vec![
                "", " ", "  ", "\t", "\u{a0}", "\u{3000}", ":", "=", " = ", ": ", "\":",
                "\": \"", "\" :\"", "=\"", ": '", "\"=", ",", ";", "\n",
            ]),
            proptest::sample::select(vec![
                "", "q8Zr2LmX9vTk", "q8Zr2LmX9vTkAbCdEfGh", "abc", "\"q8Zr2LmX9vTk\"",
                "'q8Zr2LmX9vTk'", "os.environ", "12", "[MASKED]", "sk-abcdefghij", " ",
                "q8Zr2L;mX9vTk", "ab/cd+ef=gh.ij-kl_mn",
                "0123456789abcdef0123456789abcdefq8Zr2LmX9vTkAbCd",
                "q8Zr2LmX9vTkAbCdq8Zr2LmX9vTkAbCdq8Zr2LmX9vTkAbCd@db",
            ]),
        ),
        0..5,
    )) {
        let text: String = parts
            .iter()
            .map(|(a, b, c, d, e)| format!("{a}{b}{c}{d}{e}"))
            .collect();
        proptest::prop_assert_eq!(mask_secrets(&text), every_shape(&text), "{:?}", text);
        let (one_by_one, at_once) = both_searches(&text);
        proptest::prop_assert_eq!(one_by_one, at_once);
    }
}

/// The shapes each search finds in `text`: one literal at a time, and all at once.
fn both_searches(text: &str) -> (u8, u8) {
    (
        Shapes::found_by(text, Shapes::each_literal_searched).0,
        Shapes::found_by(text, Shapes::all_literals_at_once).0,
    )
}

#[test]
fn a_long_text_is_searched_at_once_with_the_same_result() {
    let secrets = "API_KEY=q8Zr2LmX9vTkAbCd\nAuthorization: Bearer abcdefghijklmnopqrstuvwx\n\
                   ghp_abcdefghijklmnopqrstuvwxyz0123 postgres://u:hunter2secret@db/x\n";
    let filler = "fn main() { let total = items.len(); }\n".repeat(SMALL_TEXT / 30);
    let text = format!("{filler}{secrets}{filler}");
    assert!(text.len() > SMALL_TEXT);
    assert_eq!(mask_secrets(&text), every_shape(&text));
    assert!(!mask_secrets(&text).contains("q8Zr2LmX9vTkAbCd"));
    let (one_by_one, at_once) = both_searches(&text);
    assert_eq!(one_by_one, at_once);
    assert_ne!(at_once, 0);
}

#[test]
fn the_words_alone_compile_nothing() {
    let trace = "{\"tokens_in\": 1234567, \"keys\": [\"a\"], \"basic\": true, \"token\":12}";
    assert_eq!(
        Shapes::in_text(trace).0 & (Shapes::BEARER | Shapes::ASSIGNMENT),
        0
    );
    for (text, shape) in [
        ("\"api_key\": \"q8Zr2LmX9vTk\"", Shapes::ASSIGNMENT),
        ("SECRET_KEY_BASE =  'q8Zr2LmX9vTk'", Shapes::ASSIGNMENT),
        ("password\u{3000}:q8Zr2LmX9vTk", Shapes::ASSIGNMENT),
        ("token\u{a0}abcdefghijklmnop", Shapes::BEARER),
    ] {
        assert!(Shapes::in_text(text).has(shape), "{text}");
        assert_ne!(mask_secrets(text), text, "{text}");
    }
}

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

/// A line for each of the newer shapes, and its credential. Put together at run time, so
/// that no scanner takes this file for a leak.
fn newer_shapes() -> Vec<(String, String)> {
    let rnd = "Zx8Qw2Lm9Vt4Pk7Ry3Hs6Jd1Nf5Bc0Ga";
    let hex32 = "9f3a".repeat(8);
    let secrets = [
        (["gsk_", rnd, "Ab3dEf6hIj9kLm2nOp5qRs"].concat(), "GROQ: {}"),
        (["xai-", rnd, rnd, rnd].concat(), "client = Client(\"{}\")"),
        (["hvs.", "CAESI", rnd, rnd, rnd].concat(), "vault login {}"),
        (["hvb.", "AAAAAQ", rnd, rnd].concat(), "batch {}"),
        (
            ["123456789", ":AA", "Hk2mX9vTq8Zr2LmX9vTkAbCdEfGhIjKlM"].concat(),
            "bot {} here",
        ),
        (
            [
                "bot",
                "123456789",
                ":AA",
                "Hk2mX9vTq8Zr2LmX9vTkAbCdEfGhIjKlM",
            ]
            .concat(),
            "https://api.telegram.org/{}/sendMessage",
        ),
        (["shpat_", &hex32].concat(), "shopify {}"),
        (["shpss_", &hex32].concat(), "shared secret {}"),
        (["shpca_", &hex32].concat(), "custom app {}"),
        (["shppa_", &hex32].concat(), "partner {}"),
        (["lin_api_", rnd, "AbCdEfGh"].concat(), "linear {}"),
        (
            ["ATATT", "3xFfGF0", rnd, rnd, "=A1B2C3D4"].concat(),
            "jira {}",
        ),
        (["dp.pt.", rnd, "AbCdEfGhIjK"].concat(), "doppler {}"),
        (
            ["dp.st.", "prd.", rnd, "AbCdEfGhIjK"].concat(),
            "doppler {}",
        ),
    ];
    secrets
        .into_iter()
        .map(|(secret, line)| (line.replace("{}", &secret), secret))
        .collect()
}

#[test]
fn masks_the_newer_token_shapes() {
    for (line, secret) in newer_shapes() {
        let masked = mask_secrets(&line);
        // The Doppler service token's `prd.` part is its environment, not its secret.
        let secret = secret.rsplit('.').next().unwrap_or(&secret);
        assert!(!masked.contains(secret), "{line} → {masked}");
        assert!(masked.contains(MASK), "{masked}");
    }
    let near_misses = [
        "gsk_short",
        "the xai-sdk package",
        "this.hvs.someLongPropertyNameThatGoesOn = 1",
        "at 12:34:56 and 123456789:AAshort",
        "shpat_ is Shopify's prefix",
        "shpat_0123456789abcdef0123456789abcdeg",
        "lin_api_ prefix",
        "ATATT prefix",
        "dp.pt.short",
        "const dp = fit(); dp.pt.x = 1;",
    ];
    for text in near_misses {
        assert_eq!(mask_secrets(text), text);
    }
}

#[test]
fn a_password_in_a_url_is_masked_in_a_test_id_too() {
    let id = "FAILED tests/t.py::test_db[postgres://admin:pw@db/x]";
    assert_eq!(
        mask_secrets(id),
        "FAILED tests/t.py::test_db[postgres://admin:[MASKED]@db/x]"
    );
}

/// `trace show` printed `key=[MASKED]` for every context round: the event line's cache
/// key (`key=read_file:src/app.py`) read as an assignment of a high-entropy value.
#[test]
fn context_request_keys_are_not_secrets() {
    for line in [
        "CONTEXT_CACHE_MISS type=read_file key=read_file:src/parser_utils/x9Qz.py",
        "CONTEXT_CACHE_HIT type=read_file key=read_file:src/app/Main.java:10-80",
        "CONTEXT_CACHE_MISS type=search key=\"search:parseValue in src/**/*.py\"",
        "CONTEXT_CACHE_MISS type=logs key=logs:pytest.log:last 200",
    ] {
        assert_eq!(mask_secrets(line), line);
    }
    for (line, secret) in [
        ("key=q8Zr2LmX9vTk3PwYzz", "q8Zr2LmX9vTk3PwYzz"),
        ("API_KEY=read_file_q8Zr2LmX9vTk3PwY", "q8Zr2LmX9vTk3PwY"),
        (
            "key=read_file:sk-proj-abcdefghijklmnopqrst",
            "sk-proj-abcdefghijklmnopqrst",
        ),
    ] {
        let masked = mask_secrets(line);
        assert!(!masked.contains(secret), "{line} → {masked}");
    }
}

#[test]
fn leaves_code_alone() {
    let code = "api_key = os.environ[\"API_KEY\"]\nTOKEN_URL = \"https://example.com/token\"\npassword = None\nconst key = getKey();\n";
    assert_eq!(mask_secrets(code), code);
}

const REAL: &str = "import os\nAPI_KEY = \"q8Zr2LmX9vTk3PwYzz\"\n-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\nxyz\n-----END RSA PRIVATE KEY-----\ndef run():\n    return 1\n";

#[test]
fn unchanged_masked_lines_are_carried_back() {
    let seen = mask_secrets(REAL);
    assert!(seen.contains("API_KEY = [MASKED]"), "{seen}");
    let written = seen.replace("return 1", "return 2");
    let back = unmask(REAL, &written).unwrap();
    assert_eq!(back, REAL.replace("return 1", "return 2"));
    // A line moved elsewhere is still the same line.
    let moved = seen.replace("import os\n", "") + "import os\n";
    assert!(unmask(REAL, &moved).unwrap().contains("q8Zr2LmX9vTk3PwYzz"));
}

#[test]
fn a_new_line_with_a_mask_is_refused() {
    let seen = mask_secrets(REAL);
    let changed = seen.replace("API_KEY = [MASKED]\"", "API_KEY = [MASKED]\"  # rotated");
    assert_eq!(unmask(REAL, &changed), Err(MaskWritten { line: 2 }));
    let added = format!("{seen}TOKEN = \"[MASKED]\"\n");
    assert!(unmask(REAL, &added).is_err());
    let key = seen.replace(
        "[MASKED PRIVATE KEY]",
        "[MASKED PRIVATE KEY]\n[MASKED PRIVATE KEY]",
    );
    assert!(unmask(REAL, &key).is_err());
}

#[test]
fn marks_are_literal_text_in_a_file_without_secrets() {
    let real = "MASK = \"[MASKED]\"\n";
    let written = "MASK = \"[MASKED]\"\nOTHER = \"[MASKED PRIVATE KEY]\"\n";
    assert_eq!(unmask(real, written).unwrap(), written);
}
