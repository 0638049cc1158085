//! docs/protocol.md is part of the contract: every marked example behaves as its marker says,
//! every JSON example is marked, and every code the protocol reports is documented.

use std::collections::BTreeSet;

use git_papayu::Code;
use git_papayu::protocol::{
    Allowlist, Mode, PROTOCOL_CODES, ParseOptions, ProtocolVersion, detect_protocol, parse_answer,
};

const DOC: &str = include_str!("../../docs/protocol.md");

struct Example {
    line: usize,
    marker: String,
    json: String,
}

/// Every ```json fence with the marker comment right before it (blank lines allowed).
fn examples() -> Vec<Example> {
    let lines: Vec<&str> = DOC.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() == "```json" {
            let marker = lines[..i]
                .iter()
                .rev()
                .find(|l| !l.trim().is_empty())
                .and_then(|l| l.trim().strip_prefix("<!-- example:"))
                .and_then(|l| l.strip_suffix("-->"))
                .unwrap_or_else(|| panic!("docs/protocol.md:{}: ```json without a marker", i + 1))
                .trim()
                .to_string();
            let end = (i + 1..lines.len())
                .find(|j| lines[*j].trim() == "```")
                .expect("closed fence");
            out.push(Example {
                line: i + 1,
                marker,
                json: lines[i + 1..end].join("\n"),
            });
            i = end;
        }
        i += 1;
    }
    out
}

fn versions(spec: &str) -> Vec<Option<ProtocolVersion>> {
    spec.split(',')
        .map(|v| match v {
            "v1" => Some(ProtocolVersion::V1),
            "v2" => Some(ProtocolVersion::V2),
            "auto" => None,
            other => panic!("unknown version {other}"),
        })
        .collect()
}

fn mode(spec: &str) -> Mode {
    match spec {
        "plan" => Mode::Plan,
        "apply" => Mode::Apply,
        other => panic!("unknown mode {other}"),
    }
}

fn run(
    json: &str,
    protocol: Option<ProtocolVersion>,
    mode: Mode,
    action: bool,
) -> Result<(), BTreeSet<String>> {
    let input = if action {
        format!("{{\"actions\": [{json}]}}")
    } else {
        json.to_string()
    };
    let opts = ParseOptions {
        protocol,
        mode,
        ..ParseOptions::default()
    };
    parse_answer(input.as_bytes(), &opts)
        .map(|_| ())
        .map_err(|ps| ps.iter().map(|p| p.code.as_str().to_string()).collect())
}

fn check(example: &Example) -> usize {
    let at = format!("docs/protocol.md:{} ({})", example.line, example.marker);
    serde_json::from_str::<serde_json::Value>(&example.json)
        .unwrap_or_else(|e| panic!("{at}: not JSON: {e}"));
    let mut checks = 0;
    for clause in example.marker.split(';').map(str::trim) {
        let words: Vec<&str> = clause.split_whitespace().collect();
        match words.as_slice() {
            ["seed"] => {}
            ["accept", vs, m, rest @ ..] => {
                for v in versions(vs) {
                    let result = run(&example.json, v, mode(m), rest == ["action"]);
                    assert!(
                        result.is_ok(),
                        "{at}: expected accept as {v:?}, got {result:?}"
                    );
                    checks += 1;
                }
            }
            ["reject", codes, vs, m, rest @ ..] => {
                let want: BTreeSet<String> = codes.split(',').map(str::to_string).collect();
                for v in versions(vs) {
                    let got = run(&example.json, v, mode(m), rest == ["action"]);
                    assert_eq!(got, Err(want.clone()), "{at}: as {v:?}");
                    checks += 1;
                }
            }
            ["detect", v] => {
                let got = detect_protocol(example.json.as_bytes()).expect("extractable");
                assert_eq!(Some(got), versions(v)[0], "{at}");
                checks += 1;
            }
            ["not-answer", kind] => {
                let got = run(&example.json, None, Mode::Plan, false);
                let want: BTreeSet<String> = ["ERR_SCHEMA_VIOLATION".to_string()].into();
                assert_eq!(
                    got,
                    Err(want),
                    "{at}: a non-answer must not pass as an answer"
                );
                match *kind {
                    "allowlist" => {
                        Allowlist::from_json(&example.json)
                            .unwrap_or_else(|p| panic!("{at}: not an allowlist: {p}"));
                    }
                    "schema" => {
                        let v: serde_json::Value = serde_json::from_str(&example.json).unwrap();
                        assert!(v.get("schema").is_some(), "{at}");
                    }
                    "memory" => {}
                    other => panic!("{at}: unknown not-answer kind {other}"),
                }
                checks += 1;
            }
            _ => panic!("{at}: cannot read clause '{clause}'"),
        }
    }
    assert!(checks > 0, "{at}: marker checks nothing");
    checks
}

#[test]
fn every_example_behaves_as_marked() {
    let all = examples();
    let seeds = all
        .iter()
        .filter(|e| e.marker.split(';').any(|c| c.trim() == "seed"))
        .count();
    // The design documents hold 19 JSON examples; all must be here.
    assert!(
        seeds >= 19,
        "only {seeds} seed examples in docs/protocol.md"
    );
    let checks: usize = all.iter().map(check).sum();
    assert!(checks >= 40, "{checks}");
}

#[test]
fn every_protocol_code_is_documented() {
    for code in PROTOCOL_CODES {
        let row = format!("| `{}` |", code.as_str());
        assert!(
            DOC.contains(&row),
            "docs/protocol.md has no table row for {code}"
        );
    }
}

#[test]
fn every_code_named_in_the_doc_exists() {
    let re = regex::Regex::new(r"ERR_[A-Z0-9_]*[A-Z0-9]").unwrap();
    for m in re.find_iter(DOC) {
        if m.as_str() == "ERR_CODE" {
            continue; // the placeholder in "ERR_CODE: reason"
        }
        assert!(
            Code::parse(m.as_str()).is_some(),
            "docs/protocol.md names unknown {}",
            m.as_str()
        );
    }
}

/// The list of protocol codes is what the protocol's source actually uses.
#[test]
fn protocol_code_list_matches_the_source() {
    let sources = [
        include_str!("../../crates/papayu-protocol/src/lib.rs"),
        include_str!("../../crates/papayu-protocol/src/extract.rs"),
        include_str!("../../crates/papayu-protocol/src/paths.rs"),
        include_str!("../../crates/papayu-protocol/src/content.rs"),
        include_str!("../../crates/papayu-protocol/src/rules.rs"),
        include_str!("../../crates/papayu-protocol/src/memory.rs"),
        include_str!("../../crates/papayu-protocol/src/schema.rs"),
        include_str!("../../crates/papayu-protocol/src/shape.rs"),
    ];
    let mut used = BTreeSet::new();
    let re = regex::Regex::new(r"Code::([A-Za-z0-9]+)").unwrap();
    for src in sources {
        // Only the non-test part of each file.
        let body = src.split("#[cfg(test)]").next().unwrap();
        for c in re.captures_iter(body) {
            used.insert(c[1].to_string());
        }
    }
    let listed: BTreeSet<String> = PROTOCOL_CODES.iter().map(|c| format!("{c:?}")).collect();
    assert_eq!(used, listed);
}
