//! The schema files: hashes match the files, the strict variants obey the strict structured-output
//! rules, and whatever a strict schema allows the normal schema and the parser accept.

use git_papayu::protocol::validator::Schema;
use git_papayu::protocol::{
    MEMORY_KEYS, ParseOptions, ProtocolVersion, parse_answer, request_schema, schema_file_name,
    schema_hash, schema_value, sha256_hex,
};
use serde_json::{Value, json};

const VERSIONS: [ProtocolVersion; 2] = [ProtocolVersion::V1, ProtocolVersion::V2];

#[test]
fn hashes_are_of_the_files_on_disk() {
    for v in VERSIONS {
        for strict in [false, true] {
            let path = format!(
                "{}/schemas/{}",
                env!("CARGO_MANIFEST_DIR"),
                schema_file_name(v, strict)
            );
            let bytes = std::fs::read(&path).expect("schema file");
            assert_eq!(schema_hash(v, strict), sha256_hex(&bytes), "{path}");
            assert_eq!(schema_value(v, strict)["x_schema_version"], u8::from(v));
        }
    }
    assert_ne!(
        schema_hash(ProtocolVersion::V1, false),
        schema_hash(ProtocolVersion::V2, false)
    );
}

/// Walks every subschema; `root` tells whether this is the document root.
fn check_strict(node: &Value, at: &str, root: bool) {
    let Some(map) = node.as_object() else { return };
    for banned in [
        "oneOf",
        "allOf",
        "not",
        "if",
        "then",
        "else",
        "patternProperties",
    ] {
        assert!(
            !map.contains_key(banned),
            "{at}: '{banned}' is not allowed in strict mode"
        );
    }
    if root {
        assert_eq!(
            map.get("type"),
            Some(&json!("object")),
            "root must be an object"
        );
        assert!(!map.contains_key("anyOf"), "root may not be anyOf");
    }
    let is_object = match map.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.contains(&json!("object")),
        _ => false,
    };
    if map.contains_key("enum") || map.contains_key("type") {
        assert!(
            map.contains_key("type"),
            "{at}: every subschema needs a type"
        );
    }
    if is_object {
        assert_eq!(
            map.get("additionalProperties"),
            Some(&json!(false)),
            "{at}: additionalProperties"
        );
        let props = map
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or_else(|| panic!("{at}: properties"));
        let mut required: Vec<&str> = map["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap())
            .collect();
        let mut keys: Vec<&str> = props.keys().map(String::as_str).collect();
        required.sort_unstable();
        keys.sort_unstable();
        assert_eq!(required, keys, "{at}: every property must be required");
    }
    for (key, child) in map {
        match child {
            Value::Object(_) if key == "properties" || key == "$defs" => {
                for (name, sub) in child.as_object().unwrap() {
                    check_strict(sub, &format!("{at}/{key}/{name}"), false);
                }
            }
            Value::Object(_) => check_strict(child, &format!("{at}/{key}"), false),
            _ => {}
        }
    }
}

#[test]
fn strict_variants_follow_the_strict_rules() {
    for v in VERSIONS {
        check_strict(&schema_value(v, true), "", true);
        let sent = request_schema(v);
        check_strict(&sent, "", true);
        assert!(sent.get("$schema").is_none() && sent.get("x_schema_version").is_none());
    }
    // The strict memory_patch lists exactly the whitelist.
    let strict = schema_value(ProtocolVersion::V2, true);
    let keys: Vec<&str> = strict["properties"]["memory_patch"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let whitelist: Vec<&str> = MEMORY_KEYS.iter().map(|(k, _)| *k).collect();
    assert_eq!(keys.len(), whitelist.len());
    assert!(whitelist.iter().all(|k| keys.contains(k)));
}

/// A strict-shaped answer with every field null or empty, and one filled in.
fn strict_answers(v: ProtocolVersion) -> Vec<Value> {
    let mem: serde_json::Map<String, Value> = MEMORY_KEYS
        .iter()
        .map(|(k, _)| (k.to_string(), Value::Null))
        .collect();
    let mut action = json!({"kind": "CREATE_FILE", "path": "a.txt", "content": "x\n"});
    if v == ProtocolVersion::V2 {
        for k in ["patch", "base_sha256", "start_line", "end_line"] {
            action[k] = Value::Null;
        }
    }
    let empty = json!({
        "mode": null, "summary": "NO_CHANGES: nothing", "questions": null, "context_requests": null,
        "plan": null, "actions": [], "patch": null, "commands_to_run": null, "verification": null,
        "risks": null, "rollback": null, "memory_patch": null
    });
    let mut full = empty.clone();
    full["summary"] = json!("did it");
    full["mode"] = json!("apply");
    full["actions"] = json!([action]);
    full["context_requests"] = json!([{"type": "env", "path": null, "start_line": null, "end_line": null,
        "query": null, "glob": null, "source": null, "last_n": null}]);
    full["plan"] = json!([{"step": "s", "details": null}]);
    full["memory_patch"] = Value::Object(mem);
    vec![empty, full]
}

#[test]
fn strict_answers_are_valid_normal_answers() {
    for v in VERSIONS {
        let strict = Schema::compile(&schema_value(v, true)).unwrap();
        for answer in strict_answers(v) {
            assert!(strict.is_valid(&answer), "{answer}");
            let opts = ParseOptions {
                protocol: Some(v),
                mode: git_papayu::protocol::Mode::Apply,
                ..ParseOptions::default()
            };
            let parsed = parse_answer(answer.to_string().as_bytes(), &opts);
            assert!(parsed.is_ok(), "{v:?}: {:?}", parsed.err());
        }
    }
}
