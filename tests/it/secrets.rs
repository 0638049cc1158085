//! Secrets through the real binary: a model's search cannot crash papayu, `papayu-private`
//! matches what git matches, a mask is never written back over the real text, and nothing secret
//! reaches the notes, the operation log or a model request.

use crate::common;
use common::{compat_env, create_answer, run_with_env as run};

use common::TestRepo;
use common::fake_llm::{self, FakeLlm};
use serde_json::json;

// ---------------------------------------------------------------------------------------------
// A model's search.

#[test]
fn a_megabyte_search_query_is_answered_query_too_long_not_a_panic() {
    let repo = TestRepo::with_files(&[("src/app.py", "def run():\n    return 1\n")]);
    // As large as an answer within its token budget can carry.
    let huge = "(".repeat(100_000);
    let fake = FakeLlm::start(vec![
        fake_llm::openai_chat(
            &json!({"summary": "look", "actions": [], "context_requests": [
                {"type": "search", "query": huge}]})
            .to_string(),
        ),
        fake_llm::openai_chat(&create_answer("NOTES.md", "n\n")),
    ]);
    let out = run(&repo, &["plan", "Tidy up"], &compat_env(&fake)).ok();
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    let requests = fake.requests();
    assert_eq!(requests.len(), 2, "{}", out.stderr);
    let second = &requests[1].body;
    assert!(second.contains("query too long"), "{second}");
    assert!(second.contains("at most 1000"), "{second}");
}

#[test]
fn a_megabyte_query_finds_nothing_instead_of_panicking() {
    let repo = TestRepo::with_files(&[("a.txt", "((((\n")]);
    let store = git_papayu::store::Store::open_at(repo.path()).unwrap();
    let commit = store.resolve_commit("HEAD").unwrap();
    let snap = store.snapshot(commit).unwrap();
    assert!(git_papayu::context::search(&snap, &"(".repeat(1 << 20), None).is_empty());
    assert_eq!(
        git_papayu::context::search(&snap, "((((", None).len(),
        1,
        "a short literal still finds its line"
    );
}

#[test]
fn a_long_search_query_is_refused_by_the_rules_and_the_schema() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    for version in ["1", "2"] {
        let long = "x".repeat(1001);
        let answer =
            json!({"actions": [], "context_requests": [{"type": "search", "query": long}]});
        let run = repo.papayu_stdin(
            ["validate", "-", "--protocol", version],
            answer.to_string().as_bytes(),
        );
        let run = run.err("ERR_SCHEMA_VIOLATION");
        assert!(run.stderr.contains("query too long"), "{}", run.stderr);
        assert_eq!(
            run.stderr.matches("ERR_SCHEMA_VIOLATION").count(),
            1,
            "one problem, not a schema error beside it: {}",
            run.stderr
        );
        let fits = json!({"actions": [], "context_requests": [{"type": "search", "query": "x".repeat(1000)}]});
        repo.papayu_stdin(
            ["validate", "-", "--protocol", version],
            fits.to_string().as_bytes(),
        )
        .ok();
    }
}

// ---------------------------------------------------------------------------------------------
// `papayu-private` matches what git matches.

const PATTERNS: &[&str] = &[
    "*.txt",
    "\"secret file.txt\"",
    "\"sub/secret file.txt\"",
    "secret\\ file.txt",
    "\"a\\\"q.txt\"",
    "\"tab\\tname\"",
    "\"\\101bc1.md\"",
    "\"unterminated",
    "!*.txt",
    "\\!bang.txt",
    "vault/",
    "/vault/**",
    "**/vault/**",
    "sub/**",
    "*/a.txt",
    "deep/*",
    "foo**",
    "foo*bar",
    "[a-c]*.txt",
    "[!a]*",
    "[^s]*.txt",
    "[[:digit:]]*",
    "[[:upper:]]bc1.md",
    "[]x].txt",
    "*",
    "x?y/*",
    "dir/file",
    "/a.txt",
    "{a,b}.txt",
    "[x].txt",
    "\\[x\\].txt",
    "**",
    "**/file",
    "a/**/b",
    "deep/**/file",
    "*.key",
];

const STATES: &[&str] = &[
    "papayu-private",
    "papayu-private",
    "-papayu-private",
    "!papayu-private",
    "papayu-private=false",
    "papayu-private=yes",
    "text",
    "-text",
    "text=auto",
    "eol=crlf",
    "binary",
    "secret",
    "-secret",
    "bad/name",
    "builtin_x",
    "-crlf",
];

const MACROS: &[&str] = &[
    "[attr]secret papayu-private -text",
    "[attr]secret -papayu-private eol=lf",
    "[attr]other secret crlf",
];

const PATHS: &[&str] = &[
    "a.txt",
    "secret file.txt",
    "secret\\",
    "sub/secret file.txt",
    "sub/a.txt",
    "sub/deep/x.key",
    "sub/deep/a.txt",
    "vault/a",
    "sub/vault/b.txt",
    "foo.bar",
    "fooXbar",
    "foo/bar/baz",
    "[x].txt",
    "x].txt",
    "a\"q.txt",
    "tab\tname",
    "!bang.txt",
    "dir/file",
    "sub/deep/dir/file",
    "sub/deep/file",
    "Abc1.md",
    "7up.txt",
    "x y/z.txt",
    "xzy/w",
    "{a,b}.txt",
    "a/b",
    "a/x/y/b",
    "c.txt",
    "sub/secret\\",
];

fn random_file(rng: &mut common::Rng, root: bool) -> String {
    let mut text = String::new();
    for _ in 0..1 + rng.below(6) {
        // Macros are read only in the root; elsewhere they must be ignored.
        if rng.below(if root { 4 } else { 8 }) == 0 {
            text.push_str(rng.pick::<&str>(MACROS));
        } else {
            text.push_str(rng.pick::<&str>(PATTERNS));
            for _ in 0..1 + rng.below(3) {
                text.push(if rng.below(3) == 0 { '\t' } else { ' ' });
                text.push_str(rng.pick::<&str>(STATES));
            }
        }
        text.push_str(if rng.below(6) == 0 { "\r\n" } else { "\n" });
    }
    text
}

/// `git check-attr -z` for every path and attribute.
fn check_attr(repo: &TestRepo, names: &[&str]) -> Vec<(String, String, String)> {
    let mut args = vec!["check-attr", "-z", "--stdin"];
    args.extend_from_slice(names);
    let input: Vec<u8> = PATHS
        .iter()
        .flat_map(|p| [p.as_bytes(), b"\0"].concat())
        .collect();
    let run = common::run_in(repo.path(), "git", args, Some(&input)).ok();
    let fields: Vec<&str> = run.stdout.split('\0').collect();
    fields
        .chunks(3)
        .filter(|c| c.len() == 3)
        .map(|c| (c[0].to_string(), c[1].to_string(), c[2].to_string()))
        .collect()
}

#[test]
fn attributes_are_read_as_git_check_attr_reads_them() {
    use git_papayu::protocol::attributes::{AttributeFile, Attributes, State};
    let repo = TestRepo::empty();
    let global = repo.path().join(".git/global-attributes");
    repo.git(["config", "core.attributesFile", global.to_str().unwrap()])
        .ok();
    let names = ["papayu-private", "text", "eol", "crlf", "diff", "secret"];
    let mut compared = 0;
    let mut private_seen = 0;
    for seed in 1..=60u64 {
        let mut rng = common::Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let files = [
            ("", random_file(&mut rng, true)),
            ("sub", random_file(&mut rng, false)),
            ("sub/deep", random_file(&mut rng, false)),
        ];
        let local = (rng.below(3) == 0).then(|| random_file(&mut rng, true));
        let global = (rng.below(3) == 0).then(|| random_file(&mut rng, true));
        let mut ours = Attributes::default();
        for (dir, text) in &files {
            let path = if dir.is_empty() {
                ".gitattributes".to_string()
            } else {
                format!("{dir}/.gitattributes")
            };
            repo.write(&path, text);
            ours.add(AttributeFile::parse(dir, text));
        }
        let info = repo.path().join(".git/info/attributes");
        match &local {
            Some(text) => {
                std::fs::write(&info, text).unwrap();
                ours.add_local(AttributeFile::parse("", text));
            }
            None => {
                let _ = std::fs::remove_file(&info);
            }
        }
        let global_path = repo.path().join(".git/global-attributes");
        match &global {
            Some(text) => {
                std::fs::write(&global_path, text).unwrap();
                ours.add_global(AttributeFile::parse("", text));
            }
            None => {
                let _ = std::fs::remove_file(&global_path);
            }
        }
        for (path, name, info) in check_attr(&repo, &names) {
            let want = match info.as_str() {
                "set" => State::Set,
                "unset" => State::Unset,
                "unspecified" => State::Unspecified,
                v => State::Value(v.to_string()),
            };
            let got = ours.git_state(&path, &name);
            assert_eq!(
                got, want,
                "seed {seed}: {path:?} {name}\n{files:#?}\ninfo/attributes: {local:?}\nglobal: {global:?}"
            );
            let marks = match &want {
                State::Set => true,
                State::Value(v) => v != "false",
                _ => false,
            };
            if name == "papayu-private" && marks {
                private_seen += 1;
                assert!(
                    ours.is_private(&path),
                    "seed {seed}: {path:?} is private to git"
                );
            }
            compared += 1;
        }
    }
    assert_eq!(compared, 60 * PATHS.len() * names.len());
    assert!(
        private_seen > 50,
        "the cases exercise privacy: {private_seen}"
    );
}

#[test]
fn a_quoted_private_pattern_protects_and_withholds_its_file() {
    let repo = TestRepo::with_files(&[
        (
            ".gitattributes",
            "\"secret file.txt\" papayu-private\n[attr]confidential papayu-private\n\"keys/\\141*.dat\" confidential\n",
        ),
        ("secret file.txt", "the plans for tomorrow\n"),
        ("keys/ab c.dat", "tabbed\n"),
        ("open file.txt", "public\n"),
    ]);
    // git agrees that both are private.
    let attrs = repo
        .git([
            "check-attr",
            "papayu-private",
            "--",
            "secret file.txt",
            "keys/ab c.dat",
            "open file.txt",
        ])
        .ok()
        .stdout;
    assert_eq!(attrs.matches(": papayu-private: set").count(), 2, "{attrs}");
    let before = repo.snapshot();
    for path in ["secret file.txt", "keys/ab c.dat"] {
        for answer in [
            json!({"actions": [{"kind": "DELETE_FILE", "path": path}]}),
            json!({"actions": [{"kind": "UPDATE_FILE", "path": path, "content": "gone\n"}]}),
        ] {
            repo.papayu_stdin(
                ["plan", "x", "--response", "-", "--protocol", "1"],
                answer.to_string().as_bytes(),
            )
            .err("ERR_PROTECTED_PATH");
        }
    }
    repo.papayu_stdin(
        ["plan", "x", "--response", "-", "--protocol", "1"],
        json!({"actions": [{"kind": "DELETE_DIR", "path": "keys"}]})
            .to_string()
            .as_bytes(),
    )
    .err("ERR_PROTECTED_PATH");
    assert_eq!(repo.snapshot(), before, "nothing was stored");
    let context = repo
        .papayu([
            "context",
            "read secret file.txt and open file.txt",
            "--json",
        ])
        .ok();
    assert!(
        !context.stdout.contains("the plans for tomorrow"),
        "{}",
        context.stdout
    );
    assert!(!context.stdout.contains("tabbed"), "{}", context.stdout);
}

// ---------------------------------------------------------------------------------------------
// A mask is never written back.

const KEY: &str = "q8Zr2LmX9vTk3PwYzz";

fn keyed_repo() -> TestRepo {
    TestRepo::with_files(&[
        (
            "config.py",
            &format!("import os\nAPI_KEY = \"{KEY}\"\nTIMEOUT = 5\n\ndef run():\n    return 1\n"),
        ),
        ("NOTES.md", "The log shows [MASKED] where a key was.\n"),
    ])
}

/// What the model saw of `config.py`.
fn seen(repo: &TestRepo) -> String {
    let real = repo.read("config.py");
    let masked = git_papayu::context::mask_secrets(&real);
    assert!(
        masked.contains("[MASKED]") && !masked.contains(KEY),
        "{masked}"
    );
    masked
}

fn sha(text: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Plans `answer` with `--protocol P`, applies it and returns `path` as committed.
fn planned_and_applied(
    repo: &TestRepo,
    answer: &serde_json::Value,
    protocol: &str,
    path: &str,
) -> String {
    repo.papayu_stdin(
        ["plan", "edit", "--response", "-", "--protocol", protocol],
        answer.to_string().as_bytes(),
    )
    .ok();
    repo.papayu(["apply", "--no-check"]).ok();
    let branch = repo
        .git(["for-each-ref", "--format=%(refname)", "refs/heads/papayu/"])
        .ok()
        .stdout;
    let branch = branch.lines().next().expect("a proposal branch");
    repo.git(["show", &format!("{branch}:{path}")]).ok().stdout
}

fn refused(repo: &TestRepo, answer: &serde_json::Value, protocol: &str) -> common::Run {
    let before = repo.snapshot();
    let run = repo
        .papayu_stdin(
            ["plan", "edit", "--response", "-", "--protocol", protocol],
            answer.to_string().as_bytes(),
        )
        .err("ERR_MASKED_SECRET");
    assert_eq!(repo.snapshot(), before, "nothing was stored");
    run
}

#[test]
fn a_whole_file_rewrite_keeps_the_key_it_saw_masked() {
    let repo = keyed_repo();
    let content = seen(&repo).replace("TIMEOUT = 5", "TIMEOUT = 30");
    let answer =
        json!({"actions": [{"kind": "UPDATE_FILE", "path": "config.py", "content": content}]});
    let written = planned_and_applied(&repo, &answer, "1", "config.py");
    assert!(
        written.contains(&format!("API_KEY = \"{KEY}\"")),
        "{written}"
    );
    assert!(written.contains("TIMEOUT = 30"), "{written}");
    assert!(!written.contains("[MASKED]"), "{written}");
}

#[test]
fn a_whole_file_rewrite_that_changes_a_masked_line_is_refused() {
    let repo = keyed_repo();
    for content in [
        seen(&repo).replace("API_KEY = [MASKED]\"", "API_KEY = [MASKED]\"  # rotated"),
        seen(&repo) + "SECOND_KEY = \"[MASKED]\"\n",
    ] {
        let answer =
            json!({"actions": [{"kind": "UPDATE_FILE", "path": "config.py", "content": content}]});
        let run = refused(&repo, &answer, "1");
        assert!(run.stderr.contains("config.py"), "{}", run.stderr);
    }
    // A file without secrets takes the mark as the text it is.
    let answer = json!({"actions": [{"kind": "UPDATE_FILE", "path": "NOTES.md",
        "content": "The log shows [MASKED] where a key was, and [MASKED] again.\n"}]});
    let written = planned_and_applied(&repo, &answer, "1", "NOTES.md");
    assert!(written.contains("[MASKED] again"), "{written}");
}

#[test]
fn a_patch_through_a_masked_line_keeps_the_real_text() {
    let repo = keyed_repo();
    let real = repo.read("config.py");
    // Context through the masked key, and the key line removed and added back unchanged.
    let patch = "@@ -1,3 +1,4 @@\n import os\n-API_KEY = [MASKED]\"\n+API_KEY = [MASKED]\"\n+RETRIES = 3\n TIMEOUT = 5\n";
    let answer = json!({"actions": [{"kind": "PATCH_FILE", "path": "config.py", "patch": patch, "base_sha256": sha(&real)}]});
    let written = planned_and_applied(&repo, &answer, "2", "config.py");
    assert_eq!(
        written,
        real.replace("TIMEOUT = 5\n", "RETRIES = 3\nTIMEOUT = 5\n"),
        "{written}"
    );
}

#[test]
fn a_patch_that_adds_a_mask_is_refused() {
    let repo = keyed_repo();
    let real = repo.read("config.py");
    for patch in [
        "@@ -2,2 +2,3 @@\n API_KEY = [MASKED]\"\n+OTHER_KEY = \"[MASKED]\"\n TIMEOUT = 5\n",
        "@@ -2,2 +2,2 @@\n-API_KEY = [MASKED]\"\n+API_KEY = \"[MASKED]\"\n TIMEOUT = 5\n",
    ] {
        let answer = json!({"actions": [{"kind": "PATCH_FILE", "path": "config.py", "patch": patch, "base_sha256": sha(&real)}]});
        refused(&repo, &answer, "2");
    }
}

// ---------------------------------------------------------------------------------------------
// Credential shapes: a corpus of positives and near misses. The fake credentials are put
// together at run time so that no scanner mistakes this file for a leak.

/// Lines holding a credential, and the credential.
fn positives() -> Vec<(String, String)> {
    let j = |parts: &[&str]| parts.concat();
    let rnd = "Zx8Qw2Lm9Vt4Pk7Ry3Hs6Jd1Nf5Bc0Ga";
    let hex64 = "9f".repeat(32);
    let pairs = [
        (j(&["sk_", "live_", rnd]), "STRIPE = '{}'"),
        (j(&["rk_", "live_", rnd]), "restricted: {}"),
        (j(&["sk_", "test_", rnd]), "Stripe.api_key = \"{}\""),
        (
            j(&["npm_", rnd, "abcd"]),
            "//registry.npmjs.org/:_authToken={}",
        ),
        (j(&["pypi-", "AgEIcHlwaS5vcmc", rnd, rnd]), "password = {}"),
        (
            j(&[
                "eyJhbGciOiJIUzI1NiJ9",
                ".",
                "eyJzdWIiOiIxMjM0NTY3ODkwIn0",
                ".",
                rnd,
            ]),
            "cookie session={}; path=/",
        ),
        (
            "hunter2pass".to_string(),
            "postgres://app:{}@db.internal:5432/prod",
        ),
        ("s3cr3t-pw".to_string(), "redis://:{}@cache:6379/0"),
        ("p%40ss".to_string(), "amqp://guest:{}@rabbit/"),
        (j(&["xoxb-", "1234567890-", rnd]), "slack {}"),
        (j(&["xapp-", "1-", "A0123456789-", rnd]), "app {}"),
        (
            j(&["T0123ABCD/", "B0123ABCD/", rnd]),
            "url: https://hooks.slack.com/services/{}",
        ),
        (
            j(&["ghp_", rnd, "abcd"]),
            "git clone https://{}@github.com/o/r",
        ),
        (j(&["github_pat_", "11ABCDEFG0", rnd]), "gh {}"),
        (j(&["gho_", rnd]), "oauth {}"),
        (j(&["glpat-", "Ab3dEf6hIj9kLm2nOp5q"]), "gitlab {}"),
        (j(&["glrt-", "Ab3dEf6hIj9kLm2nOp5q"]), "runner {}"),
        (j(&["GR1348941", "Ab3dEf6hIj9kLm2nOp5q"]), "register {}"),
        (
            j(&["AIza", "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"]),
            "maps({})",
        ),
        (
            j(&["GOCSPX-", "Ab3dEf6hIj9kLm2nOp5qRs8t"]),
            "client_secret: {}",
        ),
        (j(&["ya29.", "a0AfH6SMB", rnd]), "access {}"),
        (j(&["abc8Q~", rnd, "xyz"]), "azure client secret {}"),
        (
            j(&[
                "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsu",
                "Fq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
            ]),
            "DefaultEndpointsProtocol=https;AccountName=x;AccountKey={};EndpointSuffix=core.windows.net",
        ),
        (
            j(&["Xy7%2Bq9", rnd]),
            "https://acct.blob.core.windows.net/c/b?sv=2022-11-02&sig={}&se=2030",
        ),
        (j(&["AKIA", "Z3Q7W2E5R8T1Y4U6"]), "aws_access_key_id = {}"),
        (j(&["ASIA", "Z3Q7W2E5R8T1Y4U6"]), "temporary {}"),
        (
            j(&["wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYz8Q4m2LKEY"]),
            "aws_secret_access_key = {}",
        ),
        (j(&["hf_", rnd, "abcd"]), "HF {}"),
        (
            j(&["SG.", "Ab3dEf6hIj9kLm2nOp5q", ".", rnd, "Zz"]),
            "sendgrid {}",
        ),
        (j(&["dop_v1_", &hex64]), "do {}"),
        (j(&["sk-", "proj-", rnd]), "openai {}"),
        (j(&["sk-", "ant-", "api03-", rnd]), "anthropic {}"),
        (
            j(&["dXNlcjpw", "YXNzd29yZDEyMw=="]),
            "Authorization: Basic {}",
        ),
        (j(&["gsk_", rnd, "Ab3dEf6hIj9kLm2nOp5qRs"]), "groq {}"),
        (j(&["xai-", rnd, rnd, rnd]), "XAI_API_KEY: {}"),
        (j(&["hvs.", "CAESI", rnd, rnd, rnd]), "VAULT_TOKEN={}"),
        (
            j(&["123456789", ":AA", "Hk2mX9vTq8Zr2LmX9vTkAbCdEfGhIjKlM"]),
            "https://api.telegram.org/bot{}/getMe",
        ),
        (j(&["shpat_", &hex64[..32]]), "shopify {}"),
        (j(&["shpss_", &hex64[..32]]), "shopify secret {}"),
        (j(&["lin_api_", rnd, "AbCdEfGh"]), "linear {}"),
        (j(&["ATATT", "3xFfGF0", rnd, rnd, "=A1B2C3D4"]), "jira {}"),
        (j(&["dp.pt.", rnd, "AbCdEfGhIjK"]), "doppler {}"),
        (
            "s3cretpw".to_string(),
            "FAILED tests/t.py::test_db[postgres://admin:{}@db/x]",
        ),
        (
            j(&[
                "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
                "\nBKcwggSjAgEAAoIBAQC7\n",
            ]),
            "-----BEGIN PRIVATE KEY-----\n{}-----END PRIVATE KEY-----",
        ),
        (
            j(&[
                "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE",
                "\nbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n",
            ]),
            "-----BEGIN OPENSSH PRIVATE KEY-----\n{}-----END OPENSSH PRIVATE KEY-----",
        ),
        (
            j(&["MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBn", "\n"]),
            "-----BEGIN EC PRIVATE KEY-----\n{}-----END EC PRIVATE KEY-----",
        ),
        (
            j(&["AAAAgQCFkXUvm2XU7Q8w1nYpH2c", "\n"]),
            "PuTTY-User-Key-File-2: ssh-rsa\nPrivate-Lines: 1\n{}Private-MAC: 3f2a9c",
        ),
    ];
    pairs
        .into_iter()
        .map(|(secret, shape)| (shape.replace("{}", &secret), secret))
        .collect()
}

/// Lines that look a little like credentials and are not: they must pass unchanged.
const NEAR_MISSES: &[&str] = &[
    "sk_live_ is the prefix of a Stripe key",
    "pk_live_51HxYzAbCdEfGhIjKlMnOp is a publishable key",
    "npm_package_name=left-pad",
    "header = \"eyJhbGciOiJIUzI1NiJ9\"",
    "see http://localhost:8080/path and https://example.com:443/",
    "postgres://app@db.internal/prod",
    "postgres://app:${DB_PASSWORD}@db/prod",
    "git@github.com:org/repo.git",
    "ghp_ is a GitHub prefix",
    "AKIAEXAMPLE",
    "AIza is short",
    "-----BEGIN PUBLIC KEY-----",
    "-----BEGIN CERTIFICATE-----",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl user@host",
    "commit 3f9a2b7c4d5e6f708192a3b4c5d6e7f8091a2b3c",
    "id 123e4567-e89b-12d3-a456-426614174000",
    "version = \"1.2.3\"",
    "token_type = \"bearer\"",
    "xoxb is a Slack prefix",
    "glpat-short",
    "hf_hub_download(repo_id)",
    "do_v1_thing()",
    "SG.name",
    "https://hooks.slack.com/services/",
    "ya29.short",
    "basic usage",
    "sig=short",
    "mailto:someone@example.com",
    "gsk_short",
    "the xai-sdk package",
    "this.hvs.someLongPropertyNameThatGoesOn = 1",
    "the MAC 00:AA:BB:CC:DD:EE at 12:34:56",
    "shpat_ is Shopify's prefix",
    "lin_api_ prefix",
    "ATATT prefix",
    "dp.pt.short",
];

#[test]
fn every_credential_shape_in_the_corpus_is_masked() {
    for (line, secret) in positives() {
        let masked = git_papayu::context::mask_secrets(&line);
        assert!(
            !masked.contains(&secret),
            "not masked: {line:?} → {masked:?}"
        );
        assert!(masked.contains("[MASKED"), "{masked}");
    }
}

#[test]
fn near_misses_in_the_corpus_are_left_alone() {
    for line in NEAR_MISSES {
        assert_eq!(&git_papayu::context::mask_secrets(line), line);
    }
}

#[test]
fn the_context_a_model_is_sent_holds_no_credential_of_the_corpus() {
    let positives = positives();
    let mut source = String::from("def handler():\n    return settings\n\n");
    for (line, _) in &positives {
        source.push_str(line);
        source.push('\n');
    }
    for line in NEAR_MISSES {
        source.push_str(line);
        source.push('\n');
    }
    let repo = TestRepo::with_files(&[("src/settings.txt", &source)]);
    let out = repo
        .papayu(["context", "fix the handler in src/settings.txt", "--json"])
        .ok();
    assert!(out.stdout.contains("def handler()"), "the file is sent");
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let sent = json.to_string();
    for (_, secret) in &positives {
        let escaped = serde_json::to_string(secret).unwrap();
        let escaped = escaped.trim_matches('"');
        assert!(!sent.contains(escaped), "{secret} was sent");
    }
    assert!(
        sent.contains("npm_package_name=left-pad"),
        "near misses are sent as they are"
    );
}

// ---------------------------------------------------------------------------------------------
// Nothing secret goes into shared notes or logs.

/// Everything papayu keeps in git that others may read: every notes commit with its notes,
/// and every operation-log message.
fn stored_text(repo: &TestRepo) -> String {
    let mut all = String::new();
    for reference in ["refs/notes/papayu", "refs/papayu/oplog"] {
        let run = repo.git(["log", "-p", "--format=%B", reference]);
        all.push_str(&run.stdout);
    }
    all
}

fn fake_token() -> String {
    ["ghp_", "Zx8Qw2Lm9Vt4Pk7Ry3Hs6Jd1Nf5Bc0Ga"].concat()
}

#[test]
fn a_secret_typed_into_the_goal_reaches_neither_notes_nor_log_nor_model() {
    let repo = TestRepo::with_files(&[("src/app.py", "def run():\n    return 1\n")]);
    let token = fake_token();
    let fake = FakeLlm::start(vec![fake_llm::openai_chat(&create_answer(
        "NOTES.md", "n\n",
    ))]);
    let goal = format!("deploy with GITHUB_TOKEN={token} and note it");
    run(&repo, &["plan", &goal], &compat_env(&fake)).ok();
    let stored = stored_text(&repo);
    assert!(
        stored.contains("deploy with"),
        "the goal is stored: {stored}"
    );
    assert!(!stored.contains(&token), "the token was stored:\n{stored}");
    for request in fake.requests() {
        assert!(request.body.contains("deploy with"), "{}", request.body);
        assert!(!request.body.contains(&token), "the token was sent");
    }
    let list = repo.papayu(["list"]).ok();
    assert!(!list.stdout.contains(&token), "{}", list.stdout);
}

#[test]
fn a_failing_checks_output_is_stored_masked() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let token = fake_token();
    repo.papayu_stdin(
        ["plan", "add b", "--response", "-", "--protocol", "1"],
        create_answer("b.txt", "b\n").as_bytes(),
    )
    .ok();
    let check = format!(
        "echo 'curl -H \"Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123\"'; echo 'GH={token}'; exit 1"
    );
    repo.papayu(["apply", "--check", &check])
        .err("ERR_CHECK_FAILED");
    let stored = stored_text(&repo);
    assert!(
        stored.contains("Authorization: Bearer [MASKED]"),
        "the tail is kept: {stored}"
    );
    for secret in [token.as_str(), "abcdefghijklmnopqrstuvwxyz0123"] {
        assert!(!stored.contains(secret), "{secret} was stored:\n{stored}");
    }
    let show = repo.papayu(["show"]).ok();
    assert!(!show.stdout.contains(&token), "{}", show.stdout);
}

#[test]
fn a_test_name_carrying_a_password_reaches_the_notes_masked() {
    // pytest puts a parametrized test's values in its name.
    let name = "tests/t.py::test_db[postgres://admin:pw@db/x]";
    let fixes = format!(
        "if [ -f b.txt ]; then echo 'PASSED {name}'; else echo 'FAILED {name}'; exit 1; fi"
    );
    let breaks = format!(
        "if [ -f b.txt ]; then echo 'FAILED {name}'; exit 1; else echo 'PASSED {name}'; fi"
    );
    for (check, applied) in [(fixes, true), (breaks, false)] {
        let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
        repo.papayu_stdin(
            ["plan", "add b", "--response", "-", "--protocol", "1"],
            create_answer("b.txt", "b\n").as_bytes(),
        )
        .ok();
        let run = repo.papayu(["apply", "--check", &check]);
        let run = match applied {
            true => run.ok(),
            false => run.err("ERR_CHECK_FAILED"),
        };
        // Every note: the verdict's event is on the plan's own note.
        let list = repo.git(["notes", "--ref=papayu", "list"]).ok().stdout;
        let notes: String = list
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .map(|blob| repo.git(["cat-file", "-p", blob]).ok().stdout)
            .collect();
        assert!(
            notes.contains("test_db[postgres://admin:[MASKED]@db/x]"),
            "the verdict names the test: {notes}\n{}",
            run.stderr
        );
        let stored = stored_text(&repo);
        assert!(
            !stored.contains("pw@"),
            "the password was stored:\n{stored}"
        );
    }
}

#[test]
fn a_key_in_refine_feedback_reaches_the_notes_masked() {
    let repo = TestRepo::with_files(&[("src/app.py", "def run():\n    return 1\n")]);
    let first = FakeLlm::start(vec![fake_llm::openai_chat(&create_answer(
        "NOTES.md", "n\n",
    ))]);
    run(&repo, &["plan", "Add notes"], &compat_env(&first)).ok();
    repo.papayu(["apply", "--no-check"]).ok();
    let branch = repo.proposal_branch();
    let token = fake_token();
    let second = FakeLlm::start(vec![fake_llm::openai_chat(&create_answer(
        "MORE.md", "m\n",
    ))]);
    let feedback = format!("deploy with GITHUB_TOKEN={token} as well");
    run(
        &repo,
        &["refine", &branch, &feedback, "--no-check"],
        &compat_env(&second),
    )
    .ok();
    let stored = stored_text(&repo);
    assert!(
        stored.contains("deploy with GITHUB_TOKEN=[MASKED] as well"),
        "the feedback is kept: {stored}"
    );
    assert!(!stored.contains(&token), "the token was stored:\n{stored}");
    for request in second.requests() {
        assert!(!request.body.contains(&token), "the token was sent");
    }
}

#[test]
fn a_v1_fallback_rewrite_keeps_the_key_it_saw_masked() {
    let repo = keyed_repo();
    let real = repo.read("config.py");
    let bad_patch =
        json!({"summary": "timeout", "actions": [{"kind": "PATCH_FILE", "path": "config.py",
        "patch": "@@ -3,1 +3,1 @@\n-TIMEOUT = 7\n+TIMEOUT = 30\n", "base_sha256": sha(&real)}]})
        .to_string();
    let v1 = json!({"summary": "timeout", "actions": [{"kind": "UPDATE_FILE", "path": "config.py",
        "content": seen(&repo).replace("TIMEOUT = 5", "TIMEOUT = 30")}]})
    .to_string();
    let fake = FakeLlm::start(vec![
        fake_llm::openai_chat(&bad_patch),
        fake_llm::openai_chat(&bad_patch),
        fake_llm::openai_chat(&v1),
    ]);
    let out = run(
        &repo,
        &["plan", "raise TIMEOUT in config.py to 30", "--json"],
        &compat_env(&fake),
    )
    .ok();
    let stored: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        stored["plans"][0]["plan"]["schema_version"], 1,
        "{stored:#}"
    );
    assert_eq!(
        stored["plans"][0]["plan"]["stats"]["fallback"],
        "ERR_PATCH_APPLY_FAILED"
    );
    let preview = stored["plans"][0]["plan"]["preview"].as_str().unwrap();
    let written = repo
        .git(["show", &format!("{preview}:config.py")])
        .ok()
        .stdout;
    assert_eq!(written, real.replace("TIMEOUT = 5", "TIMEOUT = 30"));
}

#[test]
fn your_own_attributes_file_marks_files_private_too() {
    let repo = TestRepo::with_files(&[("deploy/prod.cfg", "x\n"), ("a.txt", "a\n")]);
    let global = repo.path().join(".git/my-attributes");
    std::fs::write(&global, "*.cfg papayu-private\n").unwrap();
    repo.git(["config", "core.attributesFile", global.to_str().unwrap()])
        .ok();
    let before = repo.snapshot();
    repo.papayu_stdin(
        ["plan", "x", "--response", "-", "--protocol", "1"],
        json!({"actions": [{"kind": "DELETE_FILE", "path": "deploy/prod.cfg"}]})
            .to_string()
            .as_bytes(),
    )
    .err("ERR_PROTECTED_PATH");
    assert_eq!(repo.snapshot(), before);
    // The tree's own files override it, as in git.
    repo.write("deploy/.gitattributes", "prod.cfg -papayu-private\n");
    repo.commit_all("public config");
    repo.papayu_stdin(
        ["plan", "x", "--response", "-", "--protocol", "1"],
        json!({"actions": [{"kind": "DELETE_FILE", "path": "deploy/prod.cfg"}]})
            .to_string()
            .as_bytes(),
    )
    .ok();
}

#[test]
fn wildcard_patterns_match_as_git_check_attr_matches_them() {
    use git_papayu::protocol::attributes::{AttributeFile, Attributes, State};
    const PIECES: &[&str] = &[
        "a",
        "b",
        "/",
        "*",
        "**",
        "?",
        "[ab]",
        "[!a]",
        "[^b]",
        "[a-c]",
        "[[:alpha:]]",
        "\\*",
        "[",
        "]",
        "-",
        ".",
        "x",
    ];
    const SEGMENTS: &[&str] = &["a", "b", "ab", "ba", "a.x", "[", "c", "x-a", "*", "]"];
    let repo = TestRepo::empty();
    let mut rng = common::Rng(0x5eed_1234_abcd_ef01);
    let mut mismatches = Vec::new();
    let mut matched = 0;
    for _ in 0..12 {
        let patterns: Vec<String> = (0..40)
            .map(|_| {
                loop {
                    let p: String = (0..1 + rng.below(6))
                        .map(|_| *rng.pick::<&str>(PIECES))
                        .collect();
                    if !p.starts_with(['!', '#', '"']) {
                        break p;
                    }
                }
            })
            .collect();
        let names: Vec<String> = (0..patterns.len()).map(|i| format!("p{i}")).collect();
        let text: String = patterns
            .iter()
            .zip(&names)
            .map(|(p, n)| format!("{p} {n}\n"))
            .collect();
        repo.write(".gitattributes", &text);
        let mut ours = Attributes::default();
        ours.add(AttributeFile::parse("", &text));
        let paths: Vec<String> = (0..40)
            .map(|_| {
                (0..1 + rng.below(3))
                    .map(|_| *rng.pick::<&str>(SEGMENTS))
                    .collect::<Vec<_>>()
                    .join("/")
            })
            .collect();
        let input: Vec<u8> = paths
            .iter()
            .flat_map(|p| [p.as_bytes(), b"\0"].concat())
            .collect();
        let mut args = vec!["check-attr", "-z", "--stdin"];
        args.extend(names.iter().map(String::as_str));
        let out = common::run_in(repo.path(), "git", args, Some(&input)).ok();
        let fields: Vec<&str> = out.stdout.split('\0').collect();
        for c in fields.chunks(3).filter(|c| c.len() == 3) {
            let (path, name, info) = (c[0], c[1], c[2]);
            let git = info == "set";
            let got = ours.git_state(path, name) == State::Set;
            matched += usize::from(git);
            if git != got {
                let i: usize = name[1..].parse().unwrap();
                mismatches.push(format!("{:?} vs {path:?}: git {git}", patterns[i]));
            }
        }
    }
    assert!(mismatches.is_empty(), "{mismatches:#?}");
    assert!(matched > 100, "the cases match something: {matched}");
}
