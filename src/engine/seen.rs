//! What the model saw decides what it may change.
//!
//! A model that rewrites a whole file it never saw, or saw only in part, silently deletes the
//! code it did not see; so does one that writes "... rest of the file unchanged ..." in place
//! of code. These rules run at plan time on answers from a model, against the fingerprint of
//! what was sent; their problems go back to the model in the repair round.

use std::sync::LazyLock;

use regex::Regex;

use crate::codes::{Code, Problem};
use crate::protocol::{ActionKind, Plan};
use crate::store::records::Fingerprint;
use crate::store::{Oid, Store};

/// Every "what it saw" problem of `plan`, made against `base` after being shown `sent`.
pub fn check(store: &Store, base: Oid, plan: &Plan, sent: &[Fingerprint]) -> Vec<Problem> {
    let Ok(snap) = store.snapshot(base) else {
        return Vec::new();
    };
    let mut problems = Vec::new();
    for (i, action) in plan.actions.iter().enumerate() {
        let whole = matches!(action.kind, ActionKind::UpdateFile | ActionKind::CreateFile);
        if !whole {
            continue;
        }
        let Ok(Some(base_file)) = snap.read(&action.path) else {
            continue;
        };
        let label = format!(
            "action {} ({} {})",
            i + 1,
            action.kind.as_str(),
            action.path
        );
        let seen = sent.iter().find(|f| f.path == action.path);
        match seen {
            None if action.kind == ActionKind::UpdateFile => problems.push(Problem::new(
                Code::UpdateWithoutBase,
                format!("{label}: the file exists but was never shown to you; ask for it with a read_file context request first"),
            ).at_path(&action.path)),
            Some(f) if !f.ranges.is_empty() || f.truncated => problems.push(Problem::new(
                Code::UpdatePartialView,
                format!("{label}: you saw only part of this file, so a whole-file rewrite would drop the rest; change it with PATCH_FILE (or REPLACE_RANGE), or ask for the whole file with read_file"),
            ).at_path(&action.path)),
            _ => {}
        }
        if let (Some(new), Ok(old)) = (&action.content, std::str::from_utf8(&base_file.bytes))
            && let Some(line) = elided(old, new)
        {
            problems.push(Problem::new(
                Code::ContentElided,
                format!("{label}: the content stands in for existing code with \"{}\"; send the complete file, or change only the lines that change with PATCH_FILE", line.trim()),
            ).at_path(&action.path));
        }
    }
    problems
}

#[expect(
    clippy::expect_used,
    reason = "a regex literal: it compiles, as the tests show"
)]
static ELISION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)^\s*(?://+|#+|/\*+|\*|<!--|--|;+|%|\{/\*)?\s*",
        r"(?:\.{3}|…)?\s*\(?\s*",
        r"(?:(?:the\s+)?rest\s+of\s+(?:the\s+)?(?:file|code|class|function|module|implementation|methods?)",
        r"|(?:existing|remaining|other|previous|original|unchanged)\s+(?:code|content|lines|methods|functions|implementation|imports|tests)",
        r"|(?:code|content|everything\s+else|all\s+else)\s+(?:remains?|stays?|is|are)\s+(?:the\s+same|unchanged|as\s+(?:before|is))",
        r"|(?:rest|remainder)(?:\s+of\s+\w+)?\s+(?:is\s+|remains?\s+|stays?\s+)?(?:unchanged|the\s+same|as\s+(?:before|is))",
        r"|unchanged|same\s+as\s+before|omitted\s+for\s+brevity|as\s+before",
        r")\b.*$"
    ))
    .expect("static regex")
});

#[expect(
    clippy::expect_used,
    reason = "a regex literal: it compiles, as the tests show"
)]
static BARE_ELLIPSIS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(?://|#|/\*|<!--|--)?\s*(?:\.{3}|…)\s*(?:\*/|-->)?\s*$").expect("static regex")
});

/// The first line of `new` that stands in for code of `old` that `new` no longer has, if any.
/// A marker line that was already in the base, or one in a file that keeps all its old lines,
/// is not an elision.
fn elided(old: &str, new: &str) -> Option<String> {
    let old_lines: std::collections::HashSet<&str> = old.lines().map(str::trim).collect();
    let new_lines: std::collections::HashSet<&str> = new.lines().map(str::trim).collect();
    let lost = old
        .lines()
        .map(str::trim)
        .filter(|l| l.len() > 2 && !new_lines.contains(l))
        .count();
    if lost < 2 {
        return None;
    }
    new.lines()
        .filter(|l| !old_lines.contains(l.trim()))
        .find(|l| {
            let marker =
                ELISION.is_match(l) && (l.contains("...") || l.contains('…') || is_comment(l));
            marker || BARE_ELLIPSIS.is_match(l)
        })
        .map(str::to_string)
}

fn is_comment(line: &str) -> bool {
    let t = line.trim_start();
    ["//", "#", "/*", "*", "<!--", "--", ";", "{/*"]
        .iter()
        .any(|m| t.starts_with(m))
}

#[cfg(test)]
mod tests {
    use super::elided;

    const OLD: &str =
        "import os\n\ndef a():\n    return 1\n\ndef b():\n    return 2\n\ndef c():\n    return 3\n";

    #[test]
    fn catches_the_usual_markers() {
        for marker in [
            "# ... rest of the file unchanged ...",
            "    # existing code here",
            "// ... existing code ...",
            "<!-- rest unchanged -->",
            "# ...",
            "    ...",
            "/* remaining functions unchanged */",
        ] {
            let new = format!("import os\n\ndef a():\n    return 10\n\n{marker}\n");
            assert!(elided(OLD, &new).is_some(), "missed {marker}");
        }
    }

    #[test]
    fn no_false_alarms() {
        // A genuinely short new file, a literal "..." in code, and a marker that was already there.
        assert!(elided(OLD, "print('hi')\n").is_none());
        let with_literal = format!("{OLD}\ndef d():\n    return \"loading...\"\n");
        assert!(elided(OLD, &with_literal).is_none());
        let kept = "import os\n# ... rest of the file unchanged ...\n";
        assert!(elided(kept, "import sys\n# ... rest of the file unchanged ...\n").is_none());
        let rewritten = "def a():\n    return 1\n\ndef b():\n    return 2\n\ndef c():\n    # unchanged behaviour, faster\n    return 3\n";
        assert!(elided(OLD, rewritten).is_none(), "every old line kept");
    }
}
