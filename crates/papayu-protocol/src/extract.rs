//! Finding the JSON value in a model's answer: bare JSON, a ```` ```json ```` fence, or the first
//! complete value inside prose.
//!
//! The answer is hostile input of up to [`MAX_INPUT_BYTES`]. Everything here is linear in its
//! length: candidate values are found by one bracket-counting scan (which respects strings and
//! escapes), rescans are bounded by a byte budget, and nesting is measured *before* serde sees a
//! candidate, so neither serde's recursion nor the schema validator's can overflow the stack.
//! This module must never recurse on the input's structure and never panic on any bytes.

use serde_json::Value;

use papayu_core::codes::{Code, Problem};

/// Largest answer accepted: 16 MiB = 16 777 216 bytes.
pub const MAX_INPUT_BYTES: usize = 16 * 1024 * 1024;

/// Deepest nesting of arrays and objects accepted (the plan format needs 5).
pub const MAX_JSON_DEPTH: usize = 64;

/// How many candidate values are tried before giving up.
const MAX_CANDIDATES: usize = 64;

/// Reads the answer's JSON value, or says why there is none.
pub(crate) fn extract(input: &[u8]) -> Result<Value, Problem> {
    if input.len() > MAX_INPUT_BYTES {
        return Err(Problem::new(
            Code::InputTooLarge,
            format!(
                "answer is {} bytes; the limit is {MAX_INPUT_BYTES} bytes (16 MiB); ask for a smaller plan",
                input.len()
            ),
        ));
    }
    if input.iter().all(u8::is_ascii_whitespace) {
        return Err(Problem::new(
            Code::EmptyInput,
            "answer is empty; expected a JSON plan",
        ));
    }
    let text = std::str::from_utf8(input).map_err(|e| {
        let at = e.valid_up_to();
        let (line, column) = line_col(&input[..at]);
        Problem::new(
            Code::InputNotUtf8,
            format!("answer is not UTF-8 (invalid byte at offset {at}, line {line} column {column}); send UTF-8 text"),
        )
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    Finder::new(text).run()
}

/// A candidate that failed, and whether it looked like the intended answer.
struct Failure {
    looks_like_json: bool,
    problem: Problem,
}

struct Finder<'a> {
    text: &'a str,
    budget: usize,
    tried: usize,
    failures: Vec<Failure>,
    fallback: Option<Value>,
}

/// The extent of one bracketed region found by [`Finder::scan`].
struct Region {
    end: usize,
    closed: bool,
    depth: usize,
}

impl<'a> Finder<'a> {
    fn new(text: &'a str) -> Finder<'a> {
        Finder {
            text,
            budget: text.len().saturating_mul(4).saturating_add(4096),
            tried: 0,
            failures: Vec::new(),
            fallback: None,
        }
    }

    fn run(mut self) -> Result<Value, Problem> {
        let mut json_fence_failed = false;
        for (lo, hi, labelled) in fences(self.text) {
            let before = self.failures.len();
            if let Some(v) = self.search(lo, hi) {
                return Ok(v);
            }
            // A broken ```json block is the answer the model meant: report it rather than
            // falling back to some other bracket in the prose around it.
            json_fence_failed |=
                labelled && self.failures[before..].iter().any(|f| f.looks_like_json);
        }
        if !json_fence_failed && let Some(v) = self.search(0, self.text.len()) {
            return Ok(v);
        }
        if let Some(v) = self.fallback.take() {
            return Ok(v);
        }
        // Report the failure that most looks like the intended answer.
        let best = self
            .failures
            .iter()
            .position(|f| f.looks_like_json)
            .unwrap_or(0);
        match self.failures.into_iter().nth(best) {
            Some(f) => Err(f.problem),
            None => Err(Problem::new(
                Code::NoJson,
                "answer holds no JSON plan (an object with plan fields, or an array of actions); reply with the plan as JSON only",
            )),
        }
    }

    /// Tries the bracketed regions of `text[lo..hi]` in order; returns a plan-like value.
    fn search(&mut self, lo: usize, hi: usize) -> Option<Value> {
        let bytes = self.text.as_bytes();
        let mut pos = lo;
        while pos < hi && self.tried < MAX_CANDIDATES && self.budget > 0 {
            let start = pos
                + bytes[pos..hi]
                    .iter()
                    .position(|b| *b == b'{' || *b == b'[')?;
            let region = self.scan(start, hi);
            self.tried += 1;
            pos = match self.try_candidate(start, &region, (lo, hi)) {
                Tried::Plan(v) => return Some(v),
                Tried::Other => region.end,
                // A broken value's insides are part of it: never take an inner array or
                // object for the answer. Only prose brackets are looked into.
                Tried::Failed { json_like: true } if region.closed => region.end,
                Tried::Failed { json_like: true } => return None,
                Tried::Failed { json_like: false } => start + 1,
            };
        }
        None
    }

    fn try_candidate(&mut self, start: usize, region: &Region, (lo, hi): (usize, usize)) -> Tried {
        let slice = &self.text[start..region.end];
        let whole =
            self.text[lo..start].trim().is_empty() && self.text[region.end..hi].trim().is_empty();
        let looks_like_json = slice[1..].trim_start().starts_with([
            '"', '{', '[', '}', ']', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9',
        ]) || slice[1..].trim_start().is_empty();
        if region.depth > MAX_JSON_DEPTH {
            let problem = Problem::new(
                Code::JsonTooDeep,
                format!(
                    "JSON nests arrays/objects more than {MAX_JSON_DEPTH} levels deep; a plan needs far fewer"
                ),
            );
            self.failures.push(Failure {
                looks_like_json: true,
                problem,
            });
            return Tried::Failed { json_like: true };
        }
        match serde_json::from_str::<Value>(slice) {
            Ok(v) => match plan_likeness(&v) {
                Likeness::Strong => Tried::Plan(v),
                Likeness::Weak => {
                    // `{}` or `[1]` inside prose is prose; only a whole answer (or a whole
                    // fence) that is not plan-like is taken, to be rejected by the schema.
                    if whole && self.fallback.is_none() {
                        self.fallback = Some(v);
                    }
                    Tried::Other
                }
            },
            Err(e) => {
                let problem = self.parse_problem(start, &e);
                self.failures.push(Failure {
                    looks_like_json,
                    problem,
                });
                Tried::Failed {
                    json_like: looks_like_json,
                }
            }
        }
    }

    fn parse_problem(&self, start: usize, e: &serde_json::Error) -> Problem {
        let (l0, c0) = line_col(&self.text.as_bytes()[..start]);
        let line = l0 + e.line().saturating_sub(1);
        let column = if e.line() <= 1 {
            c0 + e.column().saturating_sub(1)
        } else {
            e.column()
        };
        let msg = e.to_string();
        let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
        let hint = if e.is_eof() {
            "the answer looks cut off; ask for a shorter plan"
        } else {
            "send valid JSON"
        };
        Problem::new(
            Code::JsonParse,
            format!("JSON is invalid at line {line} column {column}: {msg}; {hint}"),
        )
    }

    /// Bracket-counting scan from the opener at `start`, bounded by `hi` and the byte budget.
    fn scan(&mut self, start: usize, hi: usize) -> Region {
        let bytes = self.text.as_bytes();
        let mut depth = 0usize;
        let mut max = 0usize;
        let mut in_string = false;
        let mut escaped = false;
        let mut i = start;
        while i < hi {
            if self.budget == 0 {
                break;
            }
            self.budget -= 1;
            let b = bytes[i];
            i += 1;
            if in_string {
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == b'"' {
                    in_string = false;
                }
                continue;
            }
            match b {
                b'"' => in_string = true,
                b'{' | b'[' => {
                    depth += 1;
                    max = max.max(depth);
                }
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        return Region {
                            end: i,
                            closed: true,
                            depth: max,
                        };
                    }
                }
                _ => {}
            }
        }
        // Never cut a UTF-8 sequence: `i` may stop only where the budget ran out.
        while !self.text.is_char_boundary(i) {
            i += 1;
        }
        Region {
            end: i,
            closed: false,
            depth: max,
        }
    }
}

enum Tried {
    Plan(Value),
    Other,
    Failed { json_like: bool },
}

enum Likeness {
    Strong,
    Weak,
}

/// Root keys of the plan format; an object with one of them is taken as the answer.
const ROOT_KEYS: &[&str] = &[
    "actions",
    "proposed_changes",
    "summary",
    "context_requests",
    "memory_patch",
    "mode",
    "questions",
    "plan",
    "risks",
    "commands_to_run",
    "verification",
    "rollback",
    "patch",
];

/// Prose often holds bracketed bits that happen to be JSON (`[1]`, `{}`): a value is plan-like
/// when it is an object with a plan field or a non-empty array of objects with `kind`.
fn plan_likeness(v: &Value) -> Likeness {
    let strong = match v {
        Value::Object(map) => map.keys().any(|k| ROOT_KEYS.contains(&k.as_str())),
        Value::Array(items) => {
            !items.is_empty()
                && items
                    .iter()
                    .all(|i| i.as_object().is_some_and(|o| o.contains_key("kind")))
        }
        _ => false,
    };
    if strong {
        Likeness::Strong
    } else {
        Likeness::Weak
    }
}

/// Content ranges of fenced code blocks: those labelled `json` first, then unlabelled ones
/// (the flag says which). Blocks with another label (```` ```python ````) are skipped.
fn fences(text: &str) -> Vec<(usize, usize, bool)> {
    let mut blocks = Vec::new();
    // (content start, labelled json, wanted)
    let mut open: Option<(usize, bool, bool)> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if let Some(info) = line.trim().strip_prefix("```") {
            match open.take() {
                None => {
                    let label = info.trim().to_ascii_lowercase();
                    let is_json = label.starts_with("json");
                    open = Some((offset + line.len(), is_json, is_json || label.is_empty()));
                }
                Some((start, is_json, wanted)) => {
                    if wanted {
                        blocks.push((start, offset, is_json));
                    }
                }
            }
        }
        offset += line.len();
    }
    // An unclosed fence (a cut-off answer) still says where the JSON starts.
    if let Some((start, is_json, true)) = open {
        blocks.push((start, text.len(), is_json));
    }
    blocks.sort_by_key(|b| !b.2);
    blocks
}

/// 1-based line and column (in characters) just after `prefix`.
fn line_col(prefix: &[u8]) -> (usize, usize) {
    let line = 1 + prefix.iter().filter(|b| **b == b'\n').count();
    let last = prefix
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |p| p + 1);
    let column = 1 + String::from_utf8_lossy(&prefix[last..]).chars().count();
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Value {
        extract(text.as_bytes()).unwrap_or_else(|p| panic!("{text:?}: {p}"))
    }

    fn err(text: &[u8]) -> Problem {
        extract(text).expect_err("should fail")
    }

    #[test]
    fn finds_the_value() {
        assert_eq!(ok(r#"{"actions": []}"#)["actions"], Value::Array(vec![]));
        assert!(ok("  [ ]  ").is_array());
        assert!(ok("Here:\n```json\n{\"summary\": \"x\"}\n```\nbye").is_object());
        assert!(ok("Here:\n```\n[{\"kind\":\"CREATE_DIR\",\"path\":\"a\"}]\n```").is_array());
        assert!(ok("See [1] and {\"summary\": \"a } ] \\\" [\"} after").is_object());
        assert!(ok("(see [the docs]: {\"summary\": \"x\"}").is_object());
        assert!(ok("unclosed [ bracket then {\"summary\": \"x\"}").is_object());
        assert_eq!(ok("\u{feff}{\"summary\": 1} trailing")["summary"], 1);
        assert!(ok(" {} ").is_object());
        assert_eq!(err(b"prose {} and [1]").code, Code::NoJson);
    }

    #[test]
    fn clean_errors() {
        assert_eq!(err(b"").code, Code::EmptyInput);
        assert_eq!(err(b" \n\t").code, Code::EmptyInput);
        assert_eq!(err(b"{\"a\": \xff}").code, Code::InputNotUtf8);
        assert_eq!(err(b"just prose").code, Code::NoJson);
        let p = err(b"{\n  \"actions\": [\n");
        assert_eq!(p.code, Code::JsonParse);
        assert!(p.reason.contains("line 3"), "{}", p.reason);
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(err(deep.as_bytes()).code, Code::JsonTooDeep);
        let deep_open = "[".repeat(100_000);
        assert_eq!(err(deep_open.as_bytes()).code, Code::JsonTooDeep);
        assert_eq!(
            err(&vec![b' '; MAX_INPUT_BYTES + 1]).code,
            Code::InputTooLarge
        );
    }

    #[test]
    fn a_broken_value_is_never_mined_for_inner_values() {
        let broken = r#"{"actions": [{"kind": "CREATE_DIR", "path": "a"}], "summary": "x",}"#;
        assert_eq!(err(broken.as_bytes()).code, Code::JsonParse);
        let cut =
            r#"{"summary": "x", "actions": [{"kind": "CREATE_DIR", "path": "a"}], "risks": ["#;
        assert_eq!(err(cut.as_bytes()).code, Code::JsonParse);
        let fenced = "```json\n[{\"kind\": \"CREATE_DIR\", \"path\": \"a\"}, [1]\n```";
        assert_eq!(err(fenced.as_bytes()).code, Code::JsonParse);
    }

    #[test]
    fn error_position_is_absolute() {
        let p = err(b"prose line\n```json\n{\"a\": 1,\n \"b\": }\n```");
        assert_eq!(p.code, Code::JsonParse);
        assert!(p.reason.contains("line 4 column"), "{}", p.reason);
    }

    #[test]
    fn depth_limit_is_exact() {
        let at = format!(
            "{}{}",
            "[".repeat(MAX_JSON_DEPTH),
            "]".repeat(MAX_JSON_DEPTH)
        );
        assert!(extract(at.as_bytes()).is_ok());
        let over = format!("[{at}]");
        assert_eq!(err(over.as_bytes()).code, Code::JsonTooDeep);
    }
}
