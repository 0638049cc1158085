//! The validation rules of the plan protocol that need no repository: per-action fields, paths,
//! protection, allowlist, limits, conflicts, and the `NO_CHANGES:` rule.
//!
//! Every rule adds a [`Problem`] with its own code and a reason that names the action; rules
//! never stop at the first problem. Rules that need the base tree (does the file exist, does
//! `base_sha256` match) belong to the apply engine; this module must never guess at them.

use std::collections::HashMap;

use super::content::{MAX_FILE_BYTES, MAX_TOTAL_BYTES, check_text};
use super::paths::{is_protected, path_problem, show};
use super::shape::{Field, RawAction};
use super::{MAX_ACTIONS, ParseOptions};
use papayu_core::codes::{Code, Problem};
use papayu_core::plan::{ActionKind, Mode, ProtocolVersion};

/// Collects problems and warnings about one answer.
pub(crate) struct Report {
    pub problems: Vec<Problem>,
    pub warnings: Vec<String>,
}

impl Report {
    pub(crate) fn new() -> Report {
        Report {
            problems: Vec::new(),
            warnings: Vec::new(),
        }
    }

    pub(crate) fn add(&mut self, code: Code, reason: String) {
        self.problems.push(Problem::new(code, reason));
    }

    fn action(&mut self, action: &RawAction, code: Code, why: impl AsRef<str>) {
        let problem = Problem::new(code, format!("{}: {}", action.label(), why.as_ref()));
        self.problems.push(match action.path.ok() {
            Some(path) => problem.at_path(path.as_str()),
            None => problem,
        });
    }
}

/// Checks every action on its own: kind for the version, fields for the kind, path, protection,
/// allowlist, and content. Returns the byte count the action carries (content plus patch).
pub(crate) fn check_action(
    action: &RawAction,
    version: ProtocolVersion,
    opts: &ParseOptions,
    report: &mut Report,
) -> usize {
    if let Some(path) = action.path.ok() {
        check_action_path(action, path, opts, report);
    }
    let Some(kind) = action.kind.ok().copied() else {
        return 0;
    };
    if version == ProtocolVersion::V1
        && matches!(kind, ActionKind::PatchFile | ActionKind::ReplaceRange)
    {
        report.action(
            action,
            Code::V1KindNotAllowed,
            format!(
                "{} is a protocol v2 kind; in v1 send the whole file with UPDATE_FILE, or answer in v2",
                kind.as_str()
            ),
        );
        return 0;
    }
    check_fields(action, kind, report);
    let mut bytes = 0;
    for (field, name) in [(&action.content, "content"), (&action.patch, "patch")] {
        if let Some(text) = field.ok() {
            bytes += text.len();
            check_payload(action, text, name, opts, report);
        }
    }
    bytes
}

fn check_action_path(action: &RawAction, path: &str, opts: &ParseOptions, report: &mut Report) {
    if let Some((code, why)) = path_problem(path) {
        report.action(action, code, why);
        return;
    }
    let Some(kind) = action.kind.ok().copied() else {
        return;
    };
    if is_protected(path) {
        match kind {
            ActionKind::CreateFile | ActionKind::CreateDir => report.warnings.push(format!(
                "{}: creates a protected path; review it before applying",
                action.label()
            )),
            _ => report.action(
                action,
                Code::ProtectedPath,
                format!(
                    "{} is a protected path (.env, *.pem, *.key, *.p12, id_rsa*, secrets/); {} is not allowed, change it by hand",
                    show(path),
                    kind.as_str()
                ),
            ),
        }
    }
    if let Some(list) = &opts.allowlist
        && let Err(why) = list.check(kind, path)
    {
        report.action(
            action,
            Code::ForbiddenPath,
            format!("{why}; the allowlist forbids it"),
        );
    }
}

/// Which fields each kind needs, may carry, and must not carry.
fn check_fields(action: &RawAction, kind: ActionKind, report: &mut Report) {
    use ActionKind::*;
    let has_content = action.content.is_present();
    let has_patch = action.patch.is_present();
    let needs_content = matches!(kind, CreateFile | UpdateFile | ReplaceRange);
    if needs_content && !has_content {
        report.action(
            action,
            Code::ContentMissing,
            format!("{} needs 'content'", kind.as_str()),
        );
    }
    if has_content && has_patch {
        report.action(
            action,
            Code::PatchWithContent,
            "'patch' and 'content' exclude each other; send one of them",
        );
    } else if has_content && kind == PatchFile {
        report.action(
            action,
            Code::PatchWithContent,
            "PATCH_FILE carries 'patch', never 'content'; put the change in a unified diff",
        );
    } else if has_content && !needs_content {
        unexpected(action, kind, "content", report);
    } else if has_patch && kind != PatchFile {
        unexpected(action, kind, "patch", report);
    }
    if kind == PatchFile {
        check_patch(action, report);
    }
    match kind {
        PatchFile | ReplaceRange => check_sha(action, true, report),
        UpdateFile | DeleteFile => check_sha(action, false, report),
        _ if action.base_sha256.is_present() => unexpected(action, kind, "base_sha256", report),
        _ => {}
    }
    if kind == ReplaceRange {
        check_range(action, report);
    } else {
        for (field, name) in [
            (&action.start_line, "start_line"),
            (&action.end_line, "end_line"),
        ] {
            if field.is_present() {
                unexpected(action, kind, name, report);
            }
        }
    }
}

fn unexpected(action: &RawAction, kind: ActionKind, field: &str, report: &mut Report) {
    report.action(
        action,
        Code::ContentUnexpected,
        format!(
            "'{field}' means nothing for {}; leave it out",
            kind.as_str()
        ),
    );
}

fn check_patch(action: &RawAction, report: &mut Report) {
    match &action.patch {
        Field::Ok(p) if !p.trim().is_empty() => {
            if !looks_unified(p) {
                report.action(
                    action,
                    Code::PatchNotUnified,
                    "'patch' is not a unified diff (no '@@' hunk header); send a unified diff with @@ hunks",
                );
            }
        }
        Field::Bad => {}
        _ => report.action(
            action,
            Code::PatchMissing,
            "PATCH_FILE needs 'patch', a unified diff of the change",
        ),
    }
}

/// A unified diff has at least one line starting with `@@`; the `*** Begin Patch` envelope
/// some models use is accepted as a diff too.
pub fn looks_unified(patch: &str) -> bool {
    let first = patch.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    first.trim() == "*** Begin Patch" || patch.lines().any(|l| l.starts_with("@@"))
}

/// `true` for 64 hexadecimal digits, in either case.
pub fn is_sha256_hex(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

fn check_sha(action: &RawAction, required: bool, report: &mut Report) {
    let why = match &action.base_sha256 {
        Field::Ok(s) if is_sha256_hex(s) => return,
        Field::Ok(s) => format!(
            "'base_sha256' must be 64 hex digits, got {} characters; copy the sha256 shown with the file",
            s.chars().count()
        ),
        Field::Absent if required => {
            "'base_sha256' is required; copy the sha256 shown with the file".to_string()
        }
        _ => return,
    };
    report.action(action, Code::BaseSha256Invalid, why);
}

fn check_range(action: &RawAction, report: &mut Report) {
    let (start, end) = match (&action.start_line, &action.end_line) {
        (Field::Ok(s), Field::Ok(e)) => (*s, *e),
        (Field::Bad, _) | (_, Field::Bad) => return,
        _ => {
            report.action(
                action,
                Code::RangeInvalid,
                "REPLACE_RANGE needs 'start_line' and 'end_line'",
            );
            return;
        }
    };
    let max = i128::from(u32::MAX);
    if start > max || end > max {
        report.action(
            action,
            Code::RangeInvalid,
            format!("line numbers above {max} are not supported"),
        );
    } else if start < 1 {
        report.action(
            action,
            Code::RangeInvalid,
            format!("start_line is {start}; lines are numbered from 1"),
        );
    } else if end < start - 1 {
        report.action(
            action,
            Code::RangeInvalid,
            format!(
                "end_line {end} is before start_line {start}; use end_line >= start_line (end_line = start_line - 1 inserts before start_line)"
            ),
        );
    }
}

fn check_payload(
    action: &RawAction,
    text: &str,
    name: &str,
    opts: &ParseOptions,
    report: &mut Report,
) {
    let size = if opts.normalize_eol && name == "content" {
        super::content::normalize_eol(text).len()
    } else {
        text.len()
    };
    if size > MAX_FILE_BYTES {
        report.action(
            action,
            Code::FileTooLarge,
            format!(
                "'{name}' is {size} bytes; the limit is {MAX_FILE_BYTES} bytes (1 MiB) per file"
            ),
        );
    }
    if let Some((code, why)) = check_text(text, name) {
        report.action(action, code, why);
    }
}

/// Plan-wide limits: number of actions and total bytes.
pub(crate) fn check_limits(count: usize, total_bytes: usize, report: &mut Report) {
    if count > MAX_ACTIONS {
        report.add(
            Code::TooManyActions,
            format!("answer has {count} actions; the limit is {MAX_ACTIONS}; split the change into smaller plans"),
        );
    }
    if total_bytes > MAX_TOTAL_BYTES {
        report.add(
            Code::TotalTooLarge,
            format!("actions carry {total_bytes} bytes of content and patches; the limit is {MAX_TOTAL_BYTES} bytes (5 MiB); split the change"),
        );
    }
}

/// One path may be named by one action only, and nothing may happen under a path that is
/// written as a file or deleted.
pub(crate) fn check_conflicts(actions: &[RawAction], report: &mut Report) {
    let mut by_path: HashMap<&str, &RawAction> = HashMap::new();
    for action in actions {
        let (Some(path), Some(_)) = (action.path.ok(), action.kind.ok()) else {
            continue;
        };
        if path_problem(path).is_some() {
            continue;
        }
        match by_path.get(path.as_str()) {
            Some(first) => report.action(
                action,
                Code::ActionConflict,
                format!(
                    "{} already names this path; keep one action per path",
                    first.label()
                ),
            ),
            None => {
                by_path.insert(path, action);
            }
        }
    }
    for action in actions {
        let Some(path) = action.path.ok() else {
            continue;
        };
        if !by_path
            .get(path.as_str())
            .is_some_and(|a| std::ptr::eq(*a, action))
        {
            continue;
        }
        for (i, _) in path.match_indices('/') {
            let Some(parent) = by_path.get(&path[..i]) else {
                continue;
            };
            let parent_kind = parent.kind.ok().copied();
            if !matches!(parent_kind, Some(ActionKind::CreateDir)) {
                report.action(
                    action,
                    Code::ActionConflict,
                    format!(
                        "{} makes '{}' a file or deletes it, so nothing can be placed under it in the same plan",
                        parent.label(),
                        show(&path[..i])
                    ),
                );
            }
        }
    }
}

/// In APPLY an empty plan must say `NO_CHANGES:`; a plan that says it must be empty.
pub(crate) fn check_no_changes(
    mode: Mode,
    count: usize,
    summary: Option<&str>,
    report: &mut Report,
) {
    let marked = summary.is_some_and(|s| s.trim_start().starts_with("NO_CHANGES:"));
    if count == 0 && mode == Mode::Apply && !marked {
        report.add(
            Code::NoChangesMarker,
            "APPLY answer has no actions; if nothing needs to change, start 'summary' with 'NO_CHANGES:', otherwise send the actions".into(),
        );
    }
    if count > 0 && marked {
        report.add(
            Code::NoChangesMarker,
            format!(
                "summary starts with 'NO_CHANGES:' but the answer has {count} action{}; drop the marker or the actions",
                if count == 1 { "" } else { "s" }
            ),
        );
    }
}

/// The longest query a search takes, in characters (the schemas' `maxLength` for `query`). A
/// longer one is refused before it is compiled: a regex built from a megabyte of text exceeds the
/// regex engine's size limit even as an escaped literal, and no line of code needs one.
pub const MAX_QUERY_CHARS: usize = 1000;

/// Why `query` cannot be searched for, or `None` when it can.
pub fn query_problem(query: &str) -> Option<String> {
    let chars = query.chars().count();
    (chars > MAX_QUERY_CHARS).then(|| {
        format!(
            "query too long: {chars} characters, at most {MAX_QUERY_CHARS}; search for a shorter piece of the text"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unified_detection() {
        assert!(looks_unified("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"));
        assert!(looks_unified("@@ -1,3 +1,4 @@\n..."));
        assert!(looks_unified(
            "\n*** Begin Patch\n*** Update File: x\n-a\n+b\n*** End Patch"
        ));
        assert!(!looks_unified("unified diff (optional)"));
        assert!(!looks_unified(" @@ indented"));
    }

    #[test]
    fn sha_format() {
        assert!(is_sha256_hex(&"aB".repeat(32)));
        assert!(!is_sha256_hex(&"a".repeat(65)));
        assert!(!is_sha256_hex(&"g".repeat(64)));
    }
}
