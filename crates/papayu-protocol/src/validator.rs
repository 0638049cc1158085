//! A JSON Schema validator for exactly the keywords the plan schemas use.
//!
//! The four schemas under `schemas/` are fixed and small: `type` (one name or a list),
//! `enum`, `properties`, `required`, `additionalProperties: false`, `items`, `maxLength` and
//! local `$ref`s to `#/$defs/…`, plus annotations. A general JSON Schema engine compiled for
//! them cost minutes of build time and dozens of crates; this module is the few hundred lines
//! they need. It refuses, when compiling, any keyword it does not implement, so a schema edit
//! that needs more fails the schema tests instead of being silently ignored.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Map, Value};

/// Keywords that only describe; they never reject anything.
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "title",
    "description",
    "x_schema_version",
    "$defs",
];

/// A compiled schema: the root node and the named definitions `$ref`s point at.
#[derive(Debug, Clone)]
pub struct Schema {
    root: Node,
    defs: BTreeMap<String, Node>,
}

#[derive(Debug, Clone, Default)]
struct Node {
    types: Option<Vec<Kind>>,
    choices: Option<Vec<Value>>,
    properties: BTreeMap<String, Node>,
    required: Vec<String>,
    closed: bool,
    items: Option<Box<Node>>,
    max_length: Option<usize>,
    reference: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Object,
    Array,
    String,
    Integer,
    Number,
    Boolean,
    Null,
}

impl Kind {
    fn parse(name: &str) -> Option<Kind> {
        Some(match name {
            "object" => Kind::Object,
            "array" => Kind::Array,
            "string" => Kind::String,
            "integer" => Kind::Integer,
            "number" => Kind::Number,
            "boolean" => Kind::Boolean,
            "null" => Kind::Null,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Object => "object",
            Kind::Array => "array",
            Kind::String => "string",
            Kind::Integer => "integer",
            Kind::Number => "number",
            Kind::Boolean => "boolean",
            Kind::Null => "null",
        }
    }

    fn admits(self, value: &Value) -> bool {
        match (self, value) {
            (Kind::Object, Value::Object(_))
            | (Kind::Array, Value::Array(_))
            | (Kind::String, Value::String(_))
            | (Kind::Number, Value::Number(_))
            | (Kind::Boolean, Value::Bool(_))
            | (Kind::Null, Value::Null) => true,
            (Kind::Integer, Value::Number(n)) => {
                n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
            }
            _ => false,
        }
    }
}

/// What one rule found wrong at one place.
#[derive(Debug, Clone, PartialEq)]
pub enum Violation {
    /// The value is none of the allowed types.
    Type(Vec<&'static str>),
    /// The value is not one of the listed values.
    NotOneOf(Vec<Value>),
    /// A required property is missing.
    Required(String),
    /// Properties the schema does not list (sorted by name).
    Additional(Vec<String>),
    /// A string longer than allowed, in characters.
    TooLong(usize),
}

/// One schema error: where (a JSON pointer), what, and the offending value.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaError {
    /// The JSON pointer of the value, `""` for the root.
    pub pointer: String,
    pub violation: Violation,
    pub instance: Value,
}

impl SchemaError {
    /// The message with the value written out (`"x" is not of type "array"`).
    pub fn message(&self) -> String {
        self.describe(&self.instance.to_string())
    }

    /// The message without the value (for long or multi-line values).
    pub fn masked(&self) -> String {
        self.describe("value")
    }

    fn describe(&self, subject: &str) -> String {
        match &self.violation {
            Violation::Type(names) if names.len() == 1 => {
                format!("{subject} is not of type \"{}\"", names[0])
            }
            Violation::Type(names) => {
                let list: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
                format!("{subject} is not of types {}", list.join(", "))
            }
            Violation::NotOneOf(values) => {
                let list: Vec<String> = values.iter().map(Value::to_string).collect();
                format!("{subject} is not one of [{}]", list.join(", "))
            }
            Violation::Required(name) => format!("\"{name}\" is a required property"),
            Violation::Additional(names) => {
                let list: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
                let verb = if names.len() == 1 { "was" } else { "were" };
                format!(
                    "Additional properties are not allowed ({} {verb} unexpected)",
                    list.join(", ")
                )
            }
            Violation::TooLong(max) => format!("{subject} is longer than {max} characters"),
        }
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl Schema {
    /// Compiles `schema`, refusing keywords this validator does not implement and `$ref`s
    /// that name no definition.
    pub fn compile(schema: &Value) -> Result<Schema, String> {
        let mut defs = BTreeMap::new();
        if let Some(found) = schema.get("$defs") {
            let found = found.as_object().ok_or("`$defs` must be an object")?;
            for (name, def) in found {
                defs.insert(name.clone(), node(def, &format!("/$defs/{name}"))?);
            }
        }
        let compiled = Schema {
            root: node(schema, "")?,
            defs,
        };
        compiled.check_refs(&compiled.root)?;
        for def in compiled.defs.values() {
            compiled.check_refs(def)?;
        }
        Ok(compiled)
    }

    /// `true` when `value` satisfies the schema.
    pub fn is_valid(&self, value: &Value) -> bool {
        let mut errors = Vec::new();
        self.walk(&self.root, value, &mut String::new(), &mut errors, true);
        errors.is_empty()
    }

    /// Every error, in document order (a value's own errors before its children's).
    pub fn errors(&self, value: &Value) -> Vec<SchemaError> {
        let mut errors = Vec::new();
        self.walk(&self.root, value, &mut String::new(), &mut errors, false);
        errors
    }

    fn check_refs(&self, node: &Node) -> Result<(), String> {
        if let Some(name) = &node.reference
            && !self.defs.contains_key(name)
        {
            return Err(format!("`$ref` names no definition: {name}"));
        }
        for child in node.properties.values().chain(node.items.as_deref()) {
            self.check_refs(child)?;
        }
        Ok(())
    }

    /// Checks `value` against `node`; with `first_only`, stops at the first error.
    fn walk(
        &self,
        node: &Node,
        value: &Value,
        pointer: &mut String,
        out: &mut Vec<SchemaError>,
        first_only: bool,
    ) {
        if first_only && !out.is_empty() {
            return;
        }
        let node = match &node.reference {
            Some(name) => &self.defs[name],
            None => node,
        };
        let mut fail = |violation: Violation| {
            out.push(SchemaError {
                pointer: pointer.clone(),
                violation,
                instance: value.clone(),
            })
        };
        if let Some(types) = &node.types
            && !types.iter().any(|k| k.admits(value))
        {
            fail(Violation::Type(types.iter().map(|k| k.name()).collect()));
        }
        if let Some(choices) = &node.choices
            && !choices.contains(value)
        {
            fail(Violation::NotOneOf(choices.clone()));
        }
        if let (Some(max), Value::String(text)) = (node.max_length, value)
            && text.chars().count() > max
        {
            fail(Violation::TooLong(max));
        }
        match value {
            Value::Object(map) => self.walk_object(node, map, value, pointer, out, first_only),
            Value::Array(items) => {
                if let Some(item) = &node.items {
                    for (i, element) in items.iter().enumerate() {
                        let len = pointer.len();
                        pointer.push_str(&format!("/{i}"));
                        self.walk(item, element, pointer, out, first_only);
                        pointer.truncate(len);
                    }
                }
            }
            _ => {}
        }
    }

    fn walk_object(
        &self,
        node: &Node,
        map: &Map<String, Value>,
        value: &Value,
        pointer: &mut String,
        out: &mut Vec<SchemaError>,
        first_only: bool,
    ) {
        let mut own = |violation: Violation| {
            out.push(SchemaError {
                pointer: pointer.clone(),
                violation,
                instance: value.clone(),
            })
        };
        for name in &node.required {
            if !map.contains_key(name) {
                own(Violation::Required(name.clone()));
            }
        }
        if node.closed {
            let mut extra: Vec<String> = map
                .keys()
                .filter(|k| !node.properties.contains_key(*k))
                .cloned()
                .collect();
            if !extra.is_empty() {
                extra.sort();
                own(Violation::Additional(extra));
            }
        }
        for (name, child) in &node.properties {
            if let Some(element) = map.get(name) {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&name.replace('~', "~0").replace('/', "~1"));
                self.walk(child, element, pointer, out, first_only);
                pointer.truncate(len);
            }
        }
    }
}

/// Compiles one schema object found at `at` (a pointer into the schema, for errors).
fn node(schema: &Value, at: &str) -> Result<Node, String> {
    let map = schema
        .as_object()
        .ok_or_else(|| format!("{at}: a schema must be an object"))?;
    let mut out = Node::default();
    for (key, value) in map {
        let bad = || format!("{at}: `{key}` has an unsupported value");
        match key.as_str() {
            k if ANNOTATIONS.contains(&k) => {}
            "type" => {
                let names: Vec<&Value> = match value {
                    Value::Array(list) => list.iter().collect(),
                    one => vec![one],
                };
                let kinds = names
                    .iter()
                    .map(|n| n.as_str().and_then(Kind::parse).ok_or_else(bad))
                    .collect::<Result<Vec<_>, _>>()?;
                out.types = Some(kinds);
            }
            "enum" => out.choices = Some(value.as_array().ok_or_else(bad)?.clone()),
            "required" => {
                out.required = value
                    .as_array()
                    .ok_or_else(bad)?
                    .iter()
                    .map(|n| n.as_str().map(str::to_string).ok_or_else(bad))
                    .collect::<Result<_, _>>()?;
            }
            "additionalProperties" => match value {
                Value::Bool(allowed) => out.closed = !allowed,
                _ => return Err(bad()),
            },
            "properties" => {
                for (name, child) in value.as_object().ok_or_else(bad)? {
                    let child = node(child, &format!("{at}/properties/{name}"))?;
                    out.properties.insert(name.clone(), child);
                }
            }
            "items" => out.items = Some(Box::new(node(value, &format!("{at}/items"))?)),
            "maxLength" => {
                let max = value.as_u64().ok_or_else(bad)?;
                out.max_length = Some(usize::try_from(max).map_err(|_| bad())?);
            }
            "$ref" => {
                let target = value.as_str().ok_or_else(bad)?;
                let name = target.strip_prefix("#/$defs/").ok_or_else(bad)?;
                out.reference = Some(name.to_string());
            }
            other => return Err(format!("{at}: keyword `{other}` is not supported")),
        }
    }
    if out.reference.is_some() && map.keys().any(|k| k != "$ref" && k != "description") {
        return Err(format!(
            "{at}: `$ref` beside other keywords is not supported"
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Schema {
        Schema::compile(&json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["kind"],
            "properties": {
                "kind": {"type": "string", "enum": ["A", "B"]},
                "name": {"type": ["string", "null"], "maxLength": 3},
                "list": {"type": "array", "items": {"$ref": "#/$defs/item"}},
                "a/b": {"type": "integer"}
            },
            "$defs": {"item": {"type": "object", "required": ["x"]}}
        }))
        .expect("compiles")
    }

    #[test]
    fn accepts_what_the_schema_allows() {
        let s = schema();
        assert!(s.is_valid(&json!({"kind": "A", "name": null, "list": [{"x": 1}], "a/b": 2})));
        assert!(s.is_valid(&json!({"kind": "B", "name": "abc", "a/b": 2.0})));
    }

    #[test]
    fn reports_each_rule_with_its_pointer() {
        let s = schema();
        let errors = s.errors(&json!({"name": "abcd", "list": [{}], "zz": 1, "yy": 2, "a/b": 1.5}));
        let got: Vec<(String, String)> = errors
            .iter()
            .map(|e| (e.pointer.clone(), e.message()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("".into(), "\"kind\" is a required property".into()),
                (
                    "".into(),
                    "Additional properties are not allowed ('yy', 'zz' were unexpected)".into()
                ),
                ("/a~1b".into(), "1.5 is not of type \"integer\"".into()),
                ("/list/0".into(), "\"x\" is a required property".into()),
                (
                    "/name".into(),
                    "\"abcd\" is longer than 3 characters".into()
                ),
            ]
        );
        assert!(!s.is_valid(&json!({"kind": "C"})));
        let wrong = s.errors(&json!({"kind": 7}));
        assert_eq!(wrong.len(), 2, "{wrong:?}");
        assert_eq!(wrong[0].message(), "7 is not of type \"string\"");
        assert_eq!(wrong[1].message(), "7 is not one of [\"A\", \"B\"]");
        assert_eq!(wrong[1].masked(), "value is not one of [\"A\", \"B\"]");
        let types = Schema::compile(&json!({"type": ["array", "null"]})).unwrap();
        assert_eq!(
            types.errors(&json!(1))[0].message(),
            "1 is not of types \"array\", \"null\""
        );
    }

    #[test]
    fn refuses_what_it_cannot_check() {
        for bad in [
            json!({"oneOf": []}),
            json!({"type": "str"}),
            json!({"additionalProperties": {"type": "string"}}),
            json!({"$ref": "#/$defs/missing"}),
            json!({"$ref": "other.json#/x"}),
            json!({"properties": {"a": {"pattern": "x"}}}),
        ] {
            assert!(Schema::compile(&bad).is_err(), "{bad}");
        }
    }
}
