//! Every code the protocol reports has at least one input that triggers it and one near-identical
//! input that passes; plus the normalization the rest of the tool relies on.

use std::collections::BTreeSet;

use git_papayu::Code;
use git_papayu::protocol::{
    ActionKind, Allowlist, MAX_FILE_BYTES, MAX_INPUT_BYTES, Mode, PROTOCOL_CODES, ParseOptions,
    Parsed, ProtocolVersion, parse_answer,
};
use serde_json::{Value, json};

const SHA: &str = "7f3f2a0c9f8b1a0c9b4c0f9e3d8a4b2d8c9e7f1a0b3c4d5e6f7a8b9c0d1e2f3a";

#[derive(Clone, Copy)]
enum Expect {
    Fail,
    Pass,
}
use Expect::{Fail, Pass};

struct Case {
    code: Code,
    expect: Expect,
    input: Vec<u8>,
    opts: ParseOptions,
}

fn opts(protocol: Option<u8>, mode: Mode) -> ParseOptions {
    ParseOptions {
        protocol: protocol.map(|v| {
            if v == 1 {
                ProtocolVersion::V1
            } else {
                ProtocolVersion::V2
            }
        }),
        mode,
        ..ParseOptions::default()
    }
}

fn case(code: Code, expect: Expect, input: impl Into<Vec<u8>>) -> Case {
    Case {
        code,
        expect,
        input: input.into(),
        opts: opts(None, Mode::Plan),
    }
}

fn with(mut c: Case, o: ParseOptions) -> Case {
    c.opts = o;
    c
}

/// `{"actions": [actions...]}`.
fn plan(actions: Vec<Value>) -> Vec<u8> {
    json!({ "actions": actions }).to_string().into_bytes()
}

fn dir(path: &str) -> Value {
    json!({"kind": "CREATE_DIR", "path": path})
}

fn file(kind: &str, path: &str, content: &str) -> Value {
    json!({"kind": kind, "path": path, "content": content})
}

fn patch(path: &str, patch: &str, sha: &str) -> Value {
    json!({"kind": "PATCH_FILE", "path": path, "patch": patch, "base_sha256": sha})
}

fn range(start: i64, end: i64) -> Value {
    json!({"kind": "REPLACE_RANGE", "path": "a.txt", "start_line": start, "end_line": end,
           "content": "x\n", "base_sha256": SHA})
}

fn deep(levels: usize) -> Vec<u8> {
    // root object + memory_patch object + arrays
    let arrays = levels - 2;
    format!(
        "{{\"memory_patch\": {{\"user.nested\": {}{}}}}}",
        "[".repeat(arrays),
        "]".repeat(arrays)
    )
    .into_bytes()
}

fn cases() -> Vec<Case> {
    use Code::*;
    let v1 = |m| opts(Some(1), m);
    let v2 = |m| opts(Some(2), m);
    let diff = "@@ -1 +1 @@\n-a\n+b\n";
    let allow = |text: &str| ParseOptions {
        allowlist: Some(Allowlist::from_json(text).unwrap()),
        ..ParseOptions::default()
    };
    let mb = "a".repeat(MAX_FILE_BYTES);
    let mut out = vec![
        case(EmptyInput, Fail, ""),
        case(EmptyInput, Fail, " \n\t "),
        case(EmptyInput, Pass, "[]"),
        case(InputNotUtf8, Fail, b"{\"summary\": \"\xd0\"}".to_vec()),
        case(InputNotUtf8, Pass, "{\"summary\": \"привет\"}"),
        case(
            InputTooLarge,
            Fail,
            [b" ".repeat(MAX_INPUT_BYTES - 1), b"[]".to_vec()].concat(),
        ),
        case(
            InputTooLarge,
            Pass,
            [b" ".repeat(MAX_INPUT_BYTES - 2), b"[]".to_vec()].concat(),
        ),
        case(NoJson, Fail, "I could not find anything to change."),
        case(NoJson, Fail, "Return {} or [1] when unsure."),
        case(
            NoJson,
            Pass,
            "Here is the plan: {\"actions\": []} — nothing else.",
        ),
        case(JsonParse, Fail, "{\"actions\": ["),
        case(JsonParse, Fail, "```json\n{\"actions\": [],}\n```"),
        case(JsonParse, Pass, "```json\n{\"actions\": []}\n```"),
        case(JsonTooDeep, Fail, deep(65)),
        case(JsonTooDeep, Pass, deep(64)),
        case(SchemaViolation, Fail, "{\"actions\": [], \"extra\": 1}"),
        case(
            SchemaViolation,
            Fail,
            plan(vec![json!({"kind": "MOVE_FILE", "path": "a"})]),
        ),
        case(
            SchemaViolation,
            Fail,
            r#"{"context_requests": [{"type": "search"}]}"#,
        ),
        case(
            SchemaViolation,
            Pass,
            r#"{"context_requests": [{"type": "search", "query": "x"}]}"#,
        ),
        with(case(V2RootNotObject, Fail, "[]"), v2(Mode::Plan)),
        with(
            case(V2RootNotObject, Pass, "{\"actions\": []}"),
            v2(Mode::Plan),
        ),
        with(
            case(
                V2NestedActions,
                Fail,
                r#"{"proposed_changes": {"actions": []}}"#,
            ),
            v2(Mode::Plan),
        ),
        with(
            case(
                V2NestedActions,
                Pass,
                r#"{"proposed_changes": {"commands_to_run": ["make"]}}"#,
            ),
            v2(Mode::Plan),
        ),
        case(PathEmpty, Fail, plan(vec![dir("a//b")])),
        case(PathEmpty, Fail, plan(vec![dir("")])),
        case(PathEmpty, Pass, plan(vec![dir("a/b")])),
        case(PathAbsolute, Fail, plan(vec![dir("/a")])),
        case(PathAbsolute, Pass, plan(vec![dir("a")])),
        case(PathDrive, Fail, plan(vec![dir("C:/a")])),
        case(PathDrive, Fail, plan(vec![dir("c:a")])),
        case(PathDrive, Pass, plan(vec![dir("c/a")])),
        case(PathUnc, Fail, plan(vec![dir("//server/share/a")])),
        case(PathUnc, Pass, plan(vec![dir("server/share/a")])),
        case(PathHome, Fail, plan(vec![dir("~/a")])),
        case(PathHome, Pass, plan(vec![dir("a/~")])),
        case(
            PathDotDot,
            Fail,
            plan(vec![file("UPDATE_FILE", "src/../x", "x")]),
        ),
        case(
            PathDotDot,
            Pass,
            plan(vec![file("UPDATE_FILE", "src/..x", "x")]),
        ),
        case(PathDot, Fail, plan(vec![dir("./a")])),
        case(PathDot, Pass, plan(vec![dir(".a")])),
        case(PathBackslash, Fail, plan(vec![dir("a\\b")])),
        case(PathBackslash, Pass, plan(vec![dir("a/b")])),
        case(PathControlChar, Fail, plan(vec![dir("a\u{0}b")])),
        case(PathControlChar, Fail, plan(vec![dir("a\nb")])),
        case(PathControlChar, Pass, plan(vec![dir("a b")])),
        case(PathTooLong, Fail, plan(vec![dir(&"a".repeat(241))])),
        case(PathTooLong, Pass, plan(vec![dir(&"a".repeat(240))])),
        // Bytes, not characters: 121 two-byte letters are 242 bytes.
        case(PathTooLong, Fail, plan(vec![dir(&"я".repeat(121))])),
        case(PathTooLong, Pass, plan(vec![dir(&"я".repeat(120))])),
        case(
            PathInvisibleChar,
            Fail,
            plan(vec![dir("src/evil\u{202e}txt.rs")]),
        ),
        case(PathInvisibleChar, Fail, plan(vec![dir("a\u{200b}b")])),
        case(PathInvisibleChar, Fail, plan(vec![dir("\u{feff}a")])),
        case(PathInvisibleChar, Pass, plan(vec![dir("a\u{2010}b")])),
        case(
            PathGitInternal,
            Fail,
            plan(vec![file("CREATE_FILE", "sub/.GIT/hooks/pre-commit", "x")]),
        ),
        case(PathGitInternal, Fail, plan(vec![dir(".git")])),
        case(
            PathGitInternal,
            Pass,
            plan(vec![file("CREATE_FILE", ".github/workflows/ci.yml", "x")]),
        ),
        case(
            ProtectedPath,
            Fail,
            plan(vec![file("UPDATE_FILE", "app/.env", "X=1")]),
        ),
        case(
            ProtectedPath,
            Fail,
            plan(vec![
                json!({"kind": "DELETE_DIR", "path": "config/secrets"}),
            ]),
        ),
        with(
            case(
                ProtectedPath,
                Fail,
                plan(vec![patch("certs/server.PEM", diff, SHA)]),
            ),
            v2(Mode::Plan),
        ),
        case(
            ProtectedPath,
            Pass,
            plan(vec![file("UPDATE_FILE", "app/.env.example", "X=")]),
        ),
        case(
            ProtectedPath,
            Pass,
            plan(vec![file("CREATE_FILE", "tests/fixtures/test.pem", "x")]),
        ),
        with(
            case(ForbiddenPath, Fail, plan(vec![dir("web/node_modules/x")])),
            allow(r#"{"forbidden_paths": ["node_modules"]}"#),
        ),
        with(
            case(
                ForbiddenPath,
                Fail,
                plan(vec![file("CREATE_FILE", "a.rs", "x")]),
            ),
            allow(r#"{"allowed_extensions": [".py"]}"#),
        ),
        with(
            case(
                ForbiddenPath,
                Pass,
                plan(vec![file("CREATE_FILE", "a.py", "x")]),
            ),
            allow(r#"{"allowed_extensions": [".py"], "forbidden_paths": ["node_modules"]}"#),
        ),
        case(
            TooManyActions,
            Fail,
            plan((0..201).map(|i| dir(&format!("d{i}"))).collect()),
        ),
        case(
            TooManyActions,
            Pass,
            plan((0..200).map(|i| dir(&format!("d{i}"))).collect()),
        ),
        case(
            FileTooLarge,
            Fail,
            plan(vec![file("CREATE_FILE", "a", &format!("{mb}b"))]),
        ),
        case(
            FileTooLarge,
            Pass,
            plan(vec![file("CREATE_FILE", "a", &mb)]),
        ),
        case(
            TotalTooLarge,
            Fail,
            plan(
                (0..6)
                    .map(|i| file("CREATE_FILE", &format!("f{i}"), &mb))
                    .collect(),
            ),
        ),
        case(
            TotalTooLarge,
            Pass,
            plan(
                (0..5)
                    .map(|i| file("CREATE_FILE", &format!("f{i}"), &mb))
                    .collect(),
            ),
        ),
        case(
            ContentNul,
            Fail,
            plan(vec![file("CREATE_FILE", "a", "a\u{0}b")]),
        ),
        case(
            ContentNul,
            Pass,
            plan(vec![file("CREATE_FILE", "a", "a0b")]),
        ),
        case(
            PseudoBinary,
            Fail,
            plan(vec![file("CREATE_FILE", "a", "\u{1}\u{2}cdefghij")]),
        ),
        case(
            PseudoBinary,
            Pass,
            plan(vec![file("CREATE_FILE", "a", "\u{1}bcdefghij")]),
        ),
        case(
            PseudoBinary,
            Pass,
            plan(vec![file("CREATE_FILE", "a", "\t\r\nпривет 🎉\u{a0}")]),
        ),
        case(
            ContentMissing,
            Fail,
            plan(vec![json!({"kind": "CREATE_FILE", "path": "a"})]),
        ),
        case(
            ContentMissing,
            Fail,
            plan(vec![
                json!({"kind": "UPDATE_FILE", "path": "a", "content": null}),
            ]),
        ),
        case(
            ContentMissing,
            Pass,
            plan(vec![file("CREATE_FILE", "a", "")]),
        ),
        case(
            ContentUnexpected,
            Fail,
            plan(vec![
                json!({"kind": "CREATE_DIR", "path": "a", "content": "x"}),
            ]),
        ),
        with(
            case(
                ContentUnexpected,
                Fail,
                plan(vec![
                    json!({"kind": "DELETE_FILE", "path": "a", "start_line": 1}),
                ]),
            ),
            v2(Mode::Plan),
        ),
        case(
            ContentUnexpected,
            Pass,
            plan(vec![
                json!({"kind": "CREATE_DIR", "path": "a", "content": null}),
            ]),
        ),
        case(
            ActionConflict,
            Fail,
            plan(vec![
                file("CREATE_FILE", "a", "x"),
                file("UPDATE_FILE", "a", "y"),
            ]),
        ),
        case(
            ActionConflict,
            Fail,
            plan(vec![
                json!({"kind": "DELETE_DIR", "path": "d"}),
                file("CREATE_FILE", "d/x", "y"),
            ]),
        ),
        case(
            ActionConflict,
            Fail,
            plan(vec![
                file("CREATE_FILE", "a", "x"),
                file("CREATE_FILE", "a/b", "y"),
            ]),
        ),
        case(
            ActionConflict,
            Pass,
            plan(vec![
                dir("d"),
                file("CREATE_FILE", "d/x", "y"),
                file("CREATE_FILE", "dx", "z"),
            ]),
        ),
        with(
            case(
                NoChangesMarker,
                Fail,
                r#"{"actions": [], "summary": "done"}"#,
            ),
            opts(None, Mode::Apply),
        ),
        with(
            case(
                NoChangesMarker,
                Fail,
                r#"{"summary": "NO_CHANGES: x", "actions": [{"kind": "CREATE_DIR", "path": "a"}]}"#,
            ),
            opts(None, Mode::Plan),
        ),
        with(
            case(
                NoChangesMarker,
                Pass,
                r#"{"actions": [], "summary": "NO_CHANGES: nothing to do"}"#,
            ),
            opts(None, Mode::Apply),
        ),
        with(
            case(
                NoChangesMarker,
                Pass,
                r#"{"actions": [], "summary": "diagnosis"}"#,
            ),
            opts(None, Mode::Plan),
        ),
        with(
            case(V1KindNotAllowed, Fail, plan(vec![patch("a", diff, SHA)])),
            v1(Mode::Apply),
        ),
        with(
            case(V1KindNotAllowed, Fail, json!([range(1, 1)]).to_string()),
            opts(None, Mode::Apply),
        ),
        with(
            case(V1KindNotAllowed, Pass, plan(vec![patch("a", diff, SHA)])),
            v2(Mode::Apply),
        ),
        case(
            PatchMissing,
            Fail,
            plan(vec![
                json!({"kind": "PATCH_FILE", "path": "a", "base_sha256": SHA}),
            ]),
        ),
        case(PatchMissing, Fail, plan(vec![patch("a", "  \n", SHA)])),
        case(PatchMissing, Pass, plan(vec![patch("a", diff, SHA)])),
        case(
            PatchWithContent,
            Fail,
            plan(vec![
                json!({"kind": "PATCH_FILE", "path": "a", "base_sha256": SHA, "patch": diff, "content": "x"}),
            ]),
        ),
        case(
            PatchWithContent,
            Pass,
            plan(vec![
                json!({"kind": "PATCH_FILE", "path": "a", "base_sha256": SHA, "patch": diff, "content": null}),
            ]),
        ),
        case(
            PatchNotUnified,
            Fail,
            plan(vec![patch("a", "replace foo with bar", SHA)]),
        ),
        case(
            PatchNotUnified,
            Pass,
            plan(vec![patch(
                "a",
                "*** Begin Patch\n*** Update File: a\n-foo\n+bar\n*** End Patch\n",
                SHA,
            )]),
        ),
        case(RangeInvalid, Fail, plan(vec![range(0, 1)])),
        case(RangeInvalid, Fail, plan(vec![range(5, 3)])),
        case(
            RangeInvalid,
            Fail,
            plan(vec![
                json!({"kind": "REPLACE_RANGE", "path": "a", "content": "x", "base_sha256": SHA}),
            ]),
        ),
        case(
            RangeInvalid,
            Fail,
            r#"{"context_requests": [{"type": "read_file", "path": "a", "start_line": 9, "end_line": 2}]}"#,
        ),
        case(RangeInvalid, Pass, plan(vec![range(5, 4)])),
        case(
            BaseSha256Invalid,
            Fail,
            plan(vec![patch("a", diff, &SHA[..63])]),
        ),
        case(
            BaseSha256Invalid,
            Fail,
            plan(vec![patch("a", diff, &format!("{SHA}0"))]),
        ),
        case(
            BaseSha256Invalid,
            Pass,
            plan(vec![patch("a", diff, &SHA.to_uppercase())]),
        ),
        case(
            MemoryPatchType,
            Fail,
            r#"{"memory_patch": {"user.ask_budget": 3}}"#,
        ),
        case(
            MemoryPatchType,
            Fail,
            r#"{"memory_patch": {"project.src_roots": "src"}}"#,
        ),
        case(
            MemoryPatchType,
            Pass,
            r#"{"memory_patch": {"user.ask_budget": 2, "project.src_roots": ["src"]}}"#,
        ),
    ];
    // Paths in context requests obey the same rules.
    out.push(case(
        Code::PathAbsolute,
        Fail,
        r#"{"context_requests": [{"type": "read_file", "path": "/etc/passwd"}]}"#,
    ));
    out
}

fn codes(result: &Result<Parsed, Vec<git_papayu::Problem>>) -> BTreeSet<Code> {
    match result {
        Ok(_) => BTreeSet::new(),
        Err(ps) => ps.iter().map(|p| p.code).collect(),
    }
}

#[test]
fn every_code_fails_and_passes() {
    let mut failing = BTreeSet::new();
    let mut passing = BTreeSet::new();
    for (i, c) in cases().into_iter().enumerate() {
        let result = parse_answer(&c.input, &c.opts);
        let got = codes(&result);
        let shown = String::from_utf8_lossy(&c.input[..c.input.len().min(200)]).into_owned();
        match c.expect {
            Fail => {
                assert!(
                    got.contains(&c.code),
                    "case {i} ({:?}): expected {}, got {:?} for {shown}",
                    c.code,
                    c.code,
                    result.err()
                );
                failing.insert(c.code);
            }
            Pass => {
                assert!(
                    result.is_ok(),
                    "case {i} ({:?}): expected to pass, got {:?} for {shown}",
                    c.code,
                    result.err()
                );
                passing.insert(c.code);
            }
        }
    }
    // ERR_ALLOWLIST_INVALID is reported when the allowlist is loaded, not by parse_answer.
    assert_eq!(
        Allowlist::from_json(r#"{"allowed_extension": [".py"]}"#)
            .unwrap_err()
            .code,
        Code::AllowlistInvalid
    );
    assert_eq!(
        Allowlist::from_json("{\"forbidden_paths\": [\"a[\"]}")
            .unwrap_err()
            .code,
        Code::AllowlistInvalid
    );
    assert!(Allowlist::from_json("{}").is_ok());
    failing.insert(Code::AllowlistInvalid);
    passing.insert(Code::AllowlistInvalid);
    for code in PROTOCOL_CODES {
        assert!(failing.contains(code), "no failing case for {code}");
        assert!(passing.contains(code), "no passing case for {code}");
    }
}

fn accept(input: &str, o: &ParseOptions) -> Parsed {
    parse_answer(input.as_bytes(), o).unwrap_or_else(|ps| panic!("{ps:?}"))
}

#[test]
fn reasons_name_the_action_and_all_problems_are_reported() {
    let input = plan(vec![
        dir("ok"),
        dir("ok2"),
        file("UPDATE_FILE", "src/../x", "x"),
        file("CREATE_FILE", "/abs", "\u{0}"),
    ]);
    let problems = parse_answer(&input, &ParseOptions::default()).unwrap_err();
    let lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert!(lines.contains(&"ERR_PATH_DOTDOT: action 3 (UPDATE_FILE src/../x): path has a '..' segment; use a path relative to the repository root".to_string()), "{lines:#?}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("ERR_PATH_ABSOLUTE: action 4 (CREATE_FILE /abs)")),
        "{lines:#?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("ERR_CONTENT_NUL: action 4")),
        "{lines:#?}"
    );
    assert!(lines.iter().all(|l| !l.contains('\n')));
}

#[test]
fn actions_come_out_in_apply_order() {
    let input = json!({"actions": [
        {"kind": "DELETE_DIR", "path": "old"},
        {"kind": "DELETE_FILE", "path": "gone.txt"},
        {"kind": "UPDATE_FILE", "path": "b.txt", "content": "b"},
        {"kind": "CREATE_DIR", "path": "new"},
        {"kind": "PATCH_FILE", "path": "c.txt", "patch": "@@ -1 +1 @@\n-a\n+b\n", "base_sha256": SHA.to_uppercase()},
        {"kind": "CREATE_FILE", "path": "a.txt", "content": "a"},
        {"kind": "CREATE_DIR", "path": "new2"}
    ]})
    .to_string();
    let parsed = accept(&input, &ParseOptions::default());
    assert_eq!(parsed.plan.protocol, ProtocolVersion::V2);
    let order: Vec<(ActionKind, &str)> = parsed
        .plan
        .actions
        .iter()
        .map(|a| (a.kind, a.path.as_str()))
        .collect();
    assert_eq!(
        order,
        vec![
            (ActionKind::CreateDir, "new"),
            (ActionKind::CreateDir, "new2"),
            (ActionKind::UpdateFile, "b.txt"),
            (ActionKind::PatchFile, "c.txt"),
            (ActionKind::CreateFile, "a.txt"),
            (ActionKind::DeleteFile, "gone.txt"),
            (ActionKind::DeleteDir, "old"),
        ]
    );
    assert_eq!(parsed.plan.actions[3].base_sha256.as_deref(), Some(SHA));
}

#[test]
fn content_is_byte_exact_unless_eol_normalization_is_on() {
    let input = plan(vec![
        file("CREATE_FILE", "a", "x\r\ny"),
        file("CREATE_FILE", "e", ""),
    ]);
    let input = String::from_utf8(input).unwrap();
    let kept = accept(&input, &ParseOptions::default());
    assert_eq!(kept.plan.actions[0].content.as_deref(), Some("x\r\ny"));
    let lf = ParseOptions {
        normalize_eol: true,
        ..ParseOptions::default()
    };
    let norm = accept(&input, &lf);
    assert_eq!(norm.plan.actions[0].content.as_deref(), Some("x\ny\n"));
    assert_eq!(norm.plan.actions[1].content.as_deref(), Some(""));
}

#[test]
fn fix_plan_fields_are_normalized() {
    let input = r#"Sure! Here is the plan:
```json
{
  "mode": "fix-plan",
  "summary": "why",
  "questions": ["q?"],
  "context_requests": [{"type": "logs", "source": "runtime", "last_n": 200}, {"type": "env"}],
  "plan": [{"step": "Diagnose", "details": "..."}, {"step": "Fix"}],
  "actions": [{"kind": "CREATE_DIR", "path": "ignored"}],
  "proposed_changes": {
    "patch": "diff text",
    "actions": [{"kind": "UPDATE_FILE", "path": "src/x.py", "content": "..."}],
    "commands_to_run": ["pytest -q", "ruff check ."]
  },
  "commands_to_run": ["pytest -q"],
  "risks": ["r"],
  "verification": ["v"],
  "rollback": ["git checkout -- src/x.py"],
  "memory_patch": {"project.default_test_command": "pytest -q", "project.unknown": "x"}
}
```
Let me know."#;
    let parsed = accept(input, &ParseOptions::default());
    let p = &parsed.plan;
    assert_eq!(p.protocol, ProtocolVersion::V1);
    assert_eq!(p.mode.as_deref(), Some("fix-plan"));
    assert_eq!(p.actions.len(), 1);
    assert_eq!(p.actions[0].path, "src/x.py");
    assert_eq!(p.commands_to_run, vec!["pytest -q", "ruff check ."]);
    assert_eq!(p.steps.len(), 2);
    assert_eq!(p.steps[1].details, None);
    assert_eq!(p.context_requests.len(), 2);
    assert_eq!(p.patch.as_deref(), Some("diff text"));
    assert_eq!(p.memory_patch.len(), 1);
    assert_eq!(parsed.warnings.len(), 2, "{:?}", parsed.warnings);
}

#[test]
fn forced_version_and_detection() {
    let v1_only = r#"[{"kind": "CREATE_DIR", "path": "a"}]"#;
    assert_eq!(
        accept(v1_only, &ParseOptions::default()).plan.protocol,
        ProtocolVersion::V1
    );
    let both = r#"{"actions": [{"kind": "CREATE_DIR", "path": "a"}]}"#;
    assert_eq!(
        accept(both, &ParseOptions::default()).plan.protocol,
        ProtocolVersion::V2
    );
    assert_eq!(
        accept(both, &opts(Some(1), Mode::Plan)).plan.protocol,
        ProtocolVersion::V1
    );
    // An answer that evidently meant v2 is reported against v2 even when it fits neither schema.
    let bad_v2 = json!({"actions": [patch("a", "@@ -1 +1 @@\n", SHA)], "oops": 1}).to_string();
    let problems = parse_answer(bad_v2.as_bytes(), &ParseOptions::default()).unwrap_err();
    assert!(
        problems.iter().all(|p| p.code == Code::SchemaViolation),
        "{problems:?}"
    );
    assert!(problems[0].reason.contains("v2"), "{problems:?}");
}

#[test]
fn asking_to_read_a_protected_file_is_a_warning() {
    let input = r#"{"context_requests": [{"type": "read_file", "path": "config/.env"}]}"#;
    let parsed = accept(input, &ParseOptions::default());
    assert_eq!(parsed.plan.context_requests.len(), 1);
    assert!(
        parsed.warnings[0].contains("protected"),
        "{:?}",
        parsed.warnings
    );
}

#[test]
fn creating_a_protected_path_is_a_warning() {
    let input =
        String::from_utf8(plan(vec![file("CREATE_FILE", "tests/data/id_rsa", "fake")])).unwrap();
    let parsed = accept(&input, &ParseOptions::default());
    assert!(
        parsed.warnings[0].contains("protected"),
        "{:?}",
        parsed.warnings
    );
}
