//! The product's own JSON Schema validator ([`git_papayu::protocol::validator`]) against a
//! general one (the `jsonschema` crate, a dev-dependency only): over every schema papayu ships
//! or sends, and thousands of answers made from the schema itself — valid ones, then the same
//! with one or two things broken — both must accept and refuse the same answers.
//!
//! The answers come from a seeded generator ([`common::Rng`]), so a disagreement names the seed
//! and the case replays. Where the two may rightly differ, the difference is written down here
//! with the reason (none today).

use git_papayu::protocol::validator::Schema;
use git_papayu::protocol::{ProtocolVersion, request_schema, schema_value};
use serde_json::{Map, Value, json};

use crate::common::Rng;

/// Every schema the product validates answers with, by name.
fn schemas() -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for v in [ProtocolVersion::V1, ProtocolVersion::V2] {
        for strict in [false, true] {
            out.push((format!("{v:?} strict={strict}"), schema_value(v, strict)));
        }
        out.push((format!("{v:?} request"), request_schema(v)));
    }
    out
}

/// Makes instances of a schema: [`Gen::valid`] follows every rule; [`Gen::mutate`] then breaks
/// some (or, by chance, none: the validators are compared, not the generator).
struct Gen<'s> {
    rng: Rng,
    root: &'s Value,
}

impl<'s> Gen<'s> {
    /// The schema a node stands for: its `$ref` followed (local `#/$defs/…` only).
    fn resolve(&self, node: &'s Value) -> &'s Value {
        match node.get("$ref").and_then(Value::as_str) {
            Some(r) => {
                let name = r.strip_prefix("#/$defs/").expect("a local $ref");
                &self.root["$defs"][name]
            }
            None => node,
        }
    }

    fn chance(&mut self, one_in: usize) -> bool {
        self.rng.below(one_in) == 0
    }

    fn valid(&mut self, node: &'s Value, depth: usize) -> Value {
        let node = self.resolve(node);
        if let Some(choices) = node.get("enum").and_then(Value::as_array) {
            return self.rng.pick(choices).clone();
        }
        let types: Vec<&str> = match node.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => vec!["string", "integer", "object"],
        };
        // Null, where allowed, only now and then: the rest of the schema is what is tested.
        let non_null: Vec<&str> = types.iter().copied().filter(|t| *t != "null").collect();
        let kind = match non_null.is_empty() || (types.contains(&"null") && self.chance(5)) {
            true => "null",
            false => *self.rng.pick(&non_null),
        };
        match kind {
            "object" => self.object(node, depth),
            "array" => {
                let n = if depth > 4 { 0 } else { self.rng.below(4) };
                let item = node.get("items");
                (0..n)
                    .map(|_| match item {
                        Some(item) => self.valid(item, depth + 1),
                        None => self.scalar(),
                    })
                    .collect()
            }
            "string" => {
                let max = node.get("maxLength").and_then(Value::as_u64);
                let len = match max {
                    Some(max) if self.chance(4) => max as usize,
                    Some(max) => self.rng.below(max as usize + 1).min(40),
                    None => self.rng.below(40),
                };
                Value::String(self.text(len))
            }
            "integer" => json!(self.rng.below(2000) as i64 - 1000),
            "number" => match self.chance(2) {
                true => json!(self.rng.below(1000) as f64 / 8.0),
                false => json!(self.rng.below(1000)),
            },
            "boolean" => json!(self.chance(2)),
            _ => Value::Null,
        }
    }

    fn object(&mut self, node: &'s Value, depth: usize) -> Value {
        let required: Vec<&str> = node
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut out = Map::new();
        if let Some(properties) = node.get("properties").and_then(Value::as_object) {
            for (name, child) in properties {
                if required.contains(&name.as_str()) || (depth < 4 && self.chance(2)) {
                    out.insert(name.clone(), self.valid(child, depth + 1));
                }
            }
        }
        // A schema that does not close its object admits any other key.
        if node.get("additionalProperties") != Some(&Value::Bool(false)) && self.chance(3) {
            out.insert("x_other".into(), self.scalar());
        }
        Value::Object(out)
    }

    /// `len` characters, some of them outside ASCII: a length is counted in characters.
    fn text(&mut self, len: usize) -> String {
        const CHARS: &[char] = &['a', 'b', 'Z', '0', ' ', '\n', '"', 'é', 'ж', '🙂', '\u{0}'];
        (0..len).map(|_| *self.rng.pick(CHARS)).collect()
    }

    fn scalar(&mut self) -> Value {
        match self.rng.below(9) {
            0 => Value::Null,
            1 => json!(true),
            2 => json!(7),
            3 => json!(-3),
            4 => json!(2.0),
            5 => json!(2.5),
            6 => json!([]),
            7 => json!({}),
            _ => {
                let len = self.rng.below(6);
                Value::String(self.text(len))
            }
        }
    }

    /// Breaks `value` (made valid for `node`) in one place, chosen at random: a wrong type, a
    /// required key taken away, a key the schema does not list, a string outside its `enum` or
    /// past its `maxLength`, an array item of the wrong kind.
    fn mutate(&mut self, node: &'s Value, value: &mut Value, depth: usize) {
        let node = self.resolve(node);
        // Mostly deep down, where a validator has to follow `$ref`s and items to find it.
        if depth < 6 && !self.chance(3) && self.mutate_inside(node, value, depth).is_some() {
            return;
        }
        match self.rng.below(6) {
            0 => *value = self.scalar(),
            1 if value.is_object() => {
                let map = value.as_object_mut().expect("an object");
                let keys: Vec<String> = map.keys().cloned().collect();
                if !keys.is_empty() {
                    map.remove(self.rng.pick(&keys));
                }
            }
            2 if value.is_object() => {
                let extra = self.scalar();
                value
                    .as_object_mut()
                    .expect("an object")
                    .insert("zz_not_in_schema".into(), extra);
            }
            3 if value.is_string() => {
                let max = node.get("maxLength").and_then(Value::as_u64);
                let len = max.map_or(3, |m| m as usize + 1);
                *value = Value::String(self.text(len));
            }
            4 if value.is_array() => {
                let junk = self.scalar();
                value.as_array_mut().expect("an array").push(junk);
            }
            5 if value.is_number() => {
                *value = match self.chance(2) {
                    true => json!(3.0),
                    false => json!(3.5),
                }
            }
            _ => *value = self.scalar(),
        }
    }

    /// Mutates one child of an object or array, when it has one the schema describes.
    fn mutate_inside(&mut self, node: &'s Value, value: &mut Value, depth: usize) -> Option<()> {
        match value {
            Value::Object(map) if !map.is_empty() => {
                let keys: Vec<String> = map.keys().cloned().collect();
                let key = self.rng.pick(&keys).clone();
                let child = node.get("properties").and_then(|p| p.get(&key))?;
                self.mutate(child, map.get_mut(&key)?, depth + 1);
                Some(())
            }
            Value::Array(items) if !items.is_empty() => {
                let i = self.rng.below(items.len());
                let child = node.get("items")?;
                self.mutate(child, &mut items[i], depth + 1);
                Some(())
            }
            _ => None,
        }
    }
}

/// How the two validators judged one instance, when they disagree.
fn disagreement(
    name: &str,
    seed: u64,
    ours: &Schema,
    theirs: &jsonschema::Validator,
    instance: &Value,
) -> Option<String> {
    let (a, b) = (ours.is_valid(instance), theirs.is_valid(instance));
    (a != b).then(|| {
        let why: Vec<String> = theirs
            .iter_errors(instance)
            .map(|e| e.to_string())
            .collect();
        format!(
            "{name}, seed {seed}: papayu says {a}, jsonschema says {b}\n  papayu: {:?}\n  \
             jsonschema: {why:?}\n  instance: {instance}",
            ours.errors(instance)
                .iter()
                .map(|e| e.message())
                .collect::<Vec<_>>(),
        )
    })
}

#[test]
fn the_product_validator_and_jsonschema_agree_on_generated_answers() {
    const CASES: u64 = 1500;
    let mut counts = (0usize, 0usize);
    let mut wrong = Vec::new();
    for (name, schema) in schemas() {
        let ours = Schema::compile(&schema).expect("the product compiles its schema");
        let theirs = jsonschema::validator_for(&schema).expect("jsonschema compiles it");
        for seed in 1..=CASES {
            let mut rng_seed = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            rng_seed ^= name.len() as u64;
            let mut generator = Gen {
                rng: Rng(rng_seed),
                root: &schema,
            };
            let mut instance = generator.valid(&schema, 0);
            assert!(
                ours.is_valid(&instance),
                "{name}, seed {seed}: the generator made an answer papayu refuses: {:?}\n{instance}",
                ours.errors(&instance)
                    .iter()
                    .map(|e| e.message())
                    .collect::<Vec<_>>()
            );
            wrong.extend(disagreement(&name, seed, &ours, &theirs, &instance));
            for _ in 0..=generator.rng.below(2) {
                generator.mutate(&schema, &mut instance, 0);
            }
            match ours.is_valid(&instance) {
                true => counts.0 += 1,
                false => counts.1 += 1,
            }
            wrong.extend(disagreement(&name, seed, &ours, &theirs, &instance));
        }
    }
    assert!(wrong.is_empty(), "{} disagreements:\n{}", wrong.len(), {
        wrong.truncate(10);
        wrong.join("\n")
    });
    // Both sides of the comparison were exercised: mutations the schema still admits, and many
    // it refuses.
    let (admitted, refused) = counts;
    assert!(
        refused > 1000 && admitted > 100,
        "{admitted} mutated answers admitted, {refused} refused"
    );
}

#[test]
fn the_edges_both_validators_are_asked_about_agree() {
    // Hand-picked edges of the keywords the product implements: a whole number written as a
    // float is an integer, a length counts characters not bytes, `null` where a type list
    // allows it, an empty object against required keys, a root of another type.
    let schema = schema_value(ProtocolVersion::V2, false);
    let ours = Schema::compile(&schema).unwrap();
    let theirs = jsonschema::validator_for(&schema).unwrap();
    let action = |extra: Value| {
        let mut a = json!({"kind": "CREATE_FILE", "path": "a.txt", "content": "x"});
        a.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        json!({"summary": "s", "actions": [a]})
    };
    let mut cases = vec![
        json!({}),
        json!([]),
        json!(null),
        json!({"summary": "s", "actions": []}),
        action(json!({})),
        action(json!({"start_line": 1.0, "end_line": 2})),
        action(json!({"start_line": 1.5})),
        action(json!({"kind": "NOT_A_KIND"})),
        action(json!({"path": null})),
    ];
    // Around a `maxLength`, in characters that take several bytes each.
    for len in [999, 1000, 1001] {
        for c in ["é", "🙂"] {
            let query = c.repeat(len);
            cases.push(json!({"summary": "s", "actions": [],
                "context_requests": [{"type": "search", "query": query}]}));
        }
    }
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|c| disagreement("V2 edges", 0, &ours, &theirs, c))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
