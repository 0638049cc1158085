//! Property tests: no accepted path can leave the repository or reach `.git`, whatever its
//! spelling; reading any bytes never panics; accepted plans keep the protocol's invariants.
//!
//! The fast variants run in the normal suite. `long_fuzz` is ignored; run it with e.g.
//! `PROPTEST_CASES=100000 cargo test --release --test protocol_props -- --ignored`.

use git_papayu::protocol::{
    MAX_ACTIONS, MAX_PATH_LEN, Mode, ParseOptions, ProtocolVersion, check_path, is_protected,
    parse_answer,
};
use proptest::prelude::*;

/// Pieces that make paths interesting: separators, dots, home, drive and stream colons, every
/// spelling of `.git` we know of, Unicode (including code points HFS+ ignores), spaces, controls.
const PIECES: &[&str] = &[
    "/",
    "/",
    "/",
    "\\",
    ".",
    "..",
    "...",
    "~",
    ":",
    "C:",
    "c:",
    "a",
    "b",
    "src",
    "x.rs",
    ".git",
    ".GIT",
    ".Git",
    ".gIt",
    "git",
    ".git.",
    ".git ",
    ".git. ",
    ".git::$INDEX_ALLOCATION",
    "git~1",
    "GIT~12",
    ".g\u{200c}it",
    "\u{200d}.git",
    ".git\u{feff}",
    " ",
    "  ",
    "\0",
    "\n",
    "\t",
    "\u{7f}",
    "é",
    "日本",
    "🎉",
    "\u{202e}",
    "\u{200b}",
    "\u{2067}",
    "\u{9b}",
    "\u{1b}[0m",
    "//",
    "\\\\",
    "..\\",
    "./",
    "%2e%2e",
    ".env",
    "secrets",
];

fn piece_path() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 0..10).prop_map(|v| v.concat())
}

fn any_path() -> impl Strategy<Value = String> {
    prop_oneof![piece_path(), any::<String>(), "[./\\\\~:a-c .]{0,12}"]
}

/// An independent statement of what an accepted path may not be.
fn oracle_violation(path: &str) -> Option<String> {
    if path.is_empty() {
        return Some("empty".into());
    }
    if path.len() > MAX_PATH_LEN || path.split('/').any(|s| s.len() > 255) {
        return Some("too long in bytes".into());
    }
    if path.chars().any(|c| c.is_control()) {
        return Some("control character".into());
    }
    // Zero-width and bidi characters: the ranges a path may never hold.
    if path
        .chars()
        .any(|c| matches!(c as u32, 0x200B..=0x200F | 0x202A..=0x202E | 0x2066..=0x2069 | 0xFEFF))
    {
        return Some("invisible or bidi character".into());
    }
    if path.contains('\\') {
        return Some("backslash".into());
    }
    if path.starts_with('/') || path.starts_with('~') {
        return Some("absolute or home".into());
    }
    let b = path.as_bytes();
    if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
        return Some("drive".into());
    }
    for seg in path.split('/') {
        if seg.is_empty() || seg == "." || seg == ".." {
            return Some(format!("segment {seg:?}"));
        }
        if seg.chars().all(|c| c == '.' || c == ' ') {
            return Some(format!("dots-and-spaces segment {seg:?}"));
        }
        let visible: String = seg
            .chars()
            .filter(|c| !matches!(*c as u32, 0x200C..=0x200F | 0x202A..=0x202E | 0x206A..=0x206F | 0xFEFF))
            .collect();
        let base = visible.split(':').next().unwrap();
        let base = base.trim_end_matches(['.', ' ']);
        if base.eq_ignore_ascii_case(".git") {
            return Some(format!(".git alias {seg:?}"));
        }
        let lower = base.to_ascii_lowercase();
        if let Some(d) = lower.strip_prefix("git~")
            && !d.is_empty()
            && d.chars().all(|c| c.is_ascii_digit())
        {
            return Some(format!("short name {seg:?}"));
        }
    }
    None
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn accepted_paths_stay_inside_the_repository(path in any_path()) {
        let _ = is_protected(&path);
        if check_path(&path).is_ok() {
            prop_assert_eq!(oracle_violation(&path), None, "accepted {:?}", path);
        }
    }

    #[test]
    fn the_oracle_agrees_on_rejections(path in piece_path()) {
        // Anything the oracle objects to, check_path rejects too (and vice versa above).
        if oracle_violation(&path).is_some() {
            prop_assert!(check_path(&path).is_err(), "{:?}", path);
        }
    }
}

/// Tokens that make arbitrary text look like answers, so fuzzing reaches the deep rules.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    "\\",
    ",",
    ":",
    " ",
    "\n",
    "```json\n",
    "```\n",
    "\"actions\"",
    "\"kind\"",
    "\"path\"",
    "\"content\"",
    "\"patch\"",
    "\"base_sha256\"",
    "\"start_line\"",
    "\"end_line\"",
    "\"CREATE_FILE\"",
    "\"UPDATE_FILE\"",
    "\"PATCH_FILE\"",
    "\"REPLACE_RANGE\"",
    "\"DELETE_DIR\"",
    "\"CREATE_DIR\"",
    "\"a/b\"",
    "\"../x\"",
    "\".git/x\"",
    "\"@@ -1 +1 @@\\n\"",
    "\"summary\"",
    "\"NO_CHANGES: x\"",
    "\"proposed_changes\"",
    "\"memory_patch\"",
    "\"user.ask_budget\"",
    "\"context_requests\"",
    "\"type\"",
    "\"read_file\"",
    "null",
    "0",
    "1",
    "-1",
    "1e400",
    "1.5",
    "true",
    "\"\\u0000\"",
    "\"\\ud800\"",
    "é",
    "\u{feff}",
];

fn answer_like() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..60).prop_map(|v| v.concat().into_bytes())
}

/// JSON scalars that break types and ranges.
fn scalar() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::json;
    prop_oneof![
        Just(json!(null)),
        Just(json!(0)),
        Just(json!(1)),
        Just(json!(-1)),
        Just(json!(2.5)),
        Just(json!(u64::MAX)),
        Just(json!(true)),
        Just(json!("@@ -1 +1 @@\n-a\n+b\n")),
        Just(json!(
            "7f3f2a0c9f8b1a0c9b4c0f9e3d8a4b2d8c9e7f1a0b3c4d5e6f7a8b9c0d1e2f3a"
        )),
        Just(json!("NO_CHANGES: ok")),
        Just(json!("a\u{0}b")),
        Just(json!(["src"])),
        any::<String>().prop_map(serde_json::Value::String),
        piece_path().prop_map(serde_json::Value::String),
    ]
}

const KINDS: &[&str] = &[
    "CREATE_FILE",
    "CREATE_DIR",
    "UPDATE_FILE",
    "DELETE_FILE",
    "DELETE_DIR",
    "PATCH_FILE",
    "REPLACE_RANGE",
    "MOVE",
];
const ACTION_FIELDS: &[&str] = &[
    "content",
    "patch",
    "base_sha256",
    "start_line",
    "end_line",
    "extra",
];
const ROOT_FIELDS: &[&str] = &[
    "mode",
    "summary",
    "questions",
    "context_requests",
    "plan",
    "risks",
    "commands_to_run",
    "verification",
    "rollback",
    "patch",
    "memory_patch",
    "proposed_changes",
    "unknown",
];

/// A JSON action with a kind, a path from the path pieces, and a random set of other fields.
fn action() -> impl Strategy<Value = serde_json::Value> {
    (
        prop::sample::select(KINDS),
        prop_oneof![
            piece_path(),
            Just("src/a.rs".to_string()),
            Just("a/b".to_string())
        ],
        prop::collection::vec((prop::sample::select(ACTION_FIELDS), scalar()), 0..4),
    )
        .prop_map(|(kind, path, fields)| {
            let mut a = serde_json::json!({"kind": kind, "path": path});
            for (k, v) in fields {
                a[k] = v;
            }
            a
        })
}

/// A plan-shaped answer: array root or object with random root fields, as JSON text.
fn plan_like() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(action(), 0..8),
        any::<bool>(),
        prop::collection::vec((prop::sample::select(ROOT_FIELDS), scalar()), 0..4),
        any::<bool>(),
    )
        .prop_map(|(actions, array_root, fields, nested)| {
            let v = if array_root {
                serde_json::Value::Array(actions)
            } else {
                let mut root = serde_json::json!({});
                for (k, v) in fields {
                    root[k] = v;
                }
                if nested {
                    root["proposed_changes"] = serde_json::json!({"actions": actions});
                } else {
                    root["actions"] = serde_json::Value::Array(actions);
                }
                root
            };
            v.to_string().into_bytes()
        })
}

fn any_input() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..512),
        any::<String>().prop_map(String::into_bytes),
        answer_like(),
        plan_like(),
        plan_like(),
    ]
}

fn options() -> impl Strategy<Value = ParseOptions> {
    (0u8..3, any::<bool>(), any::<bool>()).prop_map(|(v, apply, eol)| ParseOptions {
        protocol: match v {
            1 => Some(ProtocolVersion::V1),
            2 => Some(ProtocolVersion::V2),
            _ => None,
        },
        mode: if apply { Mode::Apply } else { Mode::Plan },
        normalize_eol: eol,
        allowlist: None,
    })
}

/// Reads `input`; an accepted plan must satisfy what the rest of the tool relies on.
fn read_and_check(input: &[u8], opts: &ParseOptions) -> Result<(), TestCaseError> {
    match parse_answer(input, opts) {
        Ok(parsed) => {
            let plan = parsed.plan;
            prop_assert!(plan.actions.len() <= MAX_ACTIONS);
            for a in &plan.actions {
                prop_assert!(check_path(&a.path).is_ok(), "{:?}", a.path);
                prop_assert_eq!(oracle_violation(&a.path), None);
            }
            prop_assert!(
                plan.actions
                    .windows(2)
                    .all(|w| w[0].kind.phase() <= w[1].kind.phase())
            );
            if let Some(v) = opts.protocol {
                prop_assert_eq!(plan.protocol, v);
            }
            if opts.mode == Mode::Apply && plan.actions.is_empty() {
                prop_assert!(plan.is_no_changes());
            }
        }
        Err(problems) => {
            prop_assert!(!problems.is_empty());
            for p in &problems {
                prop_assert!(!p.reason.contains('\n'));
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn reading_any_input_never_panics(input in any_input(), opts in options()) {
        read_and_check(&input, &opts)?;
    }
}

proptest! {
    // Case count from PROPTEST_CASES (default 256).
    #![proptest_config(ProptestConfig::default())]

    #[test]
    #[ignore = "long fuzz session; run explicitly"]
    fn long_fuzz(input in any_input(), opts in options()) {
        read_and_check(&input, &opts)?;
    }

    #[test]
    #[ignore = "long fuzz session; run explicitly"]
    fn long_path_fuzz(path in any_path()) {
        if check_path(&path).is_ok() {
            prop_assert_eq!(oracle_violation(&path), None, "accepted {:?}", path);
        }
    }
}
