//! A model's answer as `show --conversation` shows it: the plan it holds read out — summary,
//! each action with its patch as a diff and its new content as added lines, the context it asked
//! for, questions and risks — instead of one line of JSON with every newline escaped.
//!
//! It only lays the answer out; it never judges it (the conversation's rounds say what was
//! rejected and why). An answer with no readable JSON is shown as it was written.

use serde_json::{Map, Value};

use super::text;

/// The keys laid out by name, in this order; any other key is shown as compact JSON.
const LISTS: [(&str, &str); 7] = [
    ("questions", "questions"),
    ("risks", "risks"),
    ("steps", "steps"),
    ("plan", "steps"),
    ("commands_to_run", "commands it suggests (never run)"),
    ("verification", "verification"),
    ("rollback", "rollback"),
];

/// The answer's lines, each indented by `indent`; `None` when it holds no JSON to read.
pub fn readable(answer: &str, indent: &str) -> Option<String> {
    let value = git_papayu::protocol::answer_json(answer.as_bytes()).ok()?;
    let mut out = Lines::new(indent);
    match &value {
        Value::Array(actions) => out.actions(actions),
        Value::Object(root) => out.root(root),
        _ => return None,
    }
    Some(out.text)
}

struct Lines {
    indent: String,
    text: String,
}

impl Lines {
    fn new(indent: &str) -> Lines {
        Lines {
            indent: indent.to_string(),
            text: String::new(),
        }
    }

    /// One line at `depth` steps of two spaces below the indent, made terminal-safe.
    fn push(&mut self, depth: usize, line: &str) {
        self.text.push_str(&self.indent);
        self.text.push_str(&"  ".repeat(depth));
        self.text.push_str(&text::line(line));
        self.text.push('\n');
    }

    fn root(&mut self, root: &Map<String, Value>) {
        let mut shown = vec!["summary", "actions", "proposed_changes", "context_requests"];
        if let Some(summary) = root.get("summary") {
            self.push(0, &format!("summary: {}", plain(summary)));
        }
        let nested = root
            .get("proposed_changes")
            .and_then(|p| p.get("actions"))
            .and_then(Value::as_array);
        if let Some(actions) = root.get("actions").and_then(Value::as_array).or(nested) {
            self.actions(actions);
        }
        if let Some(Value::Array(requests)) = root.get("context_requests") {
            self.push(0, "asks for context:");
            for r in requests {
                self.push(1, &context_request(r));
            }
        }
        for (key, title) in LISTS {
            let Some(value) = root.get(key) else { continue };
            shown.push(key);
            self.push(0, &format!("{title}:"));
            match value {
                Value::Array(items) => items.iter().for_each(|i| self.push(1, &plain(i))),
                other => self.push(1, &plain(other)),
            }
        }
        for (key, value) in root.iter().filter(|(k, _)| !shown.contains(&k.as_str())) {
            self.push(0, &format!("{key}: {value}"));
        }
    }

    fn actions(&mut self, actions: &[Value]) {
        for action in actions {
            self.action(action);
        }
    }

    fn action(&mut self, action: &Value) {
        let field = |name: &str| action.get(name).and_then(Value::as_str);
        let kind = field("kind").or_else(|| field("type")).unwrap_or("?");
        let path = field("path").unwrap_or("?");
        let mut head = format!("{kind} {path}");
        if let (Some(start), Some(end)) = (action.get("start_line"), action.get("end_line")) {
            head.push_str(&format!(" lines {start}-{end}"));
        }
        if let Some(sha) = field("base_sha256") {
            let short: String = sha.chars().take(12).collect();
            head.push_str(&format!(" (base sha256 {short}…)"));
        }
        self.push(0, &head);
        if let Some(patch) = field("patch") {
            for line in patch.lines() {
                self.push(1, line);
            }
        }
        if let Some(content) = field("content") {
            for line in content.lines() {
                self.push(1, &format!("+{line}"));
            }
            if !content.is_empty() && !content.ends_with('\n') {
                self.push(1, "\\ No newline at end of file");
            }
        }
    }
}

/// A context request in words: `read_file src/app.py lines 1-40`, `search "parse" in *.py`.
fn context_request(r: &Value) -> String {
    let field = |name: &str| r.get(name).map(plain);
    let mut words = vec![field("type").unwrap_or_else(|| "?".to_string())];
    words.extend(field("path"));
    if let Some(query) = field("query") {
        words.push(format!("{query:?}"));
    }
    if let Some(glob) = field("glob") {
        words.push(format!("in {glob}"));
    }
    words.extend(field("source"));
    match (field("start_line"), field("end_line")) {
        (None, None) => {}
        (start, end) => words.push(format!(
            "lines {}-{}",
            start.unwrap_or_default(),
            end.unwrap_or_default()
        )),
    }
    if let Some(n) = field("last_n") {
        words.push(format!("last {n}"));
    }
    words.join(" ")
}

/// A string as it is, anything else as compact JSON.
fn plain(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Object(o) => ["step", "description", "title"]
            .iter()
            .find_map(|k| o.get(*k).and_then(Value::as_str))
            .map_or_else(|| value.to_string(), str::to_string),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::readable;

    #[test]
    fn a_patch_reads_as_a_diff_and_content_as_added_lines() {
        let answer = r#"Here it is:
```json
{"summary": "Handle None", "actions": [
  {"kind": "PATCH_FILE", "path": "p.py", "base_sha256": "ab12ab12ab12ab12ab12", "patch": "@@ -1,2 +1,3 @@\n def parse(v):\n+    if v is None: return None\n     return v.strip()\n"},
  {"kind": "CREATE_FILE", "path": "t.py", "content": "import p\n"}
], "risks": ["none"], "extra": 1}
```"#;
        let shown = readable(answer, "  ").unwrap();
        assert_eq!(
            shown,
            "  summary: Handle None\n  PATCH_FILE p.py (base sha256 ab12ab12ab12…)\n    @@ -1,2 +1,3 @@\n     def parse(v):\n    +    if v is None: return None\n         return v.strip()\n  CREATE_FILE t.py\n    +import p\n  risks:\n    none\n  extra: 1\n"
        );
    }

    #[test]
    fn context_requests_read_as_words_and_prose_stays_prose() {
        let answer = r#"{"context_requests": [{"type": "read_file", "path": "a.py", "start_line": 1, "end_line": 40}, {"type": "search", "query": "parse"}]}"#;
        let shown = readable(answer, "").unwrap();
        assert!(shown.contains("read_file a.py lines 1-40\n"), "{shown}");
        assert!(shown.contains("search \"parse\"\n"), "{shown}");
        assert_eq!(readable("I cannot help with that.", ""), None);
    }
}
