//! The executor over an in-memory tree: no repository, no git.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::json;

use super::{AutoCrlf, Base, BuildOptions, ChangeKind, Settings, changes};
use crate::codes::{Code, Problem};
use crate::protocol::Plan;
use crate::store::{Entry, Oid, TreeEdit};

/// A base tree as a map from path to entry, with blob contents by id.
#[derive(Default)]
struct Memory {
    entries: BTreeMap<String, Entry>,
    blobs: BTreeMap<Oid, Vec<u8>>,
}

impl Memory {
    fn file(mut self, path: &str, content: &str) -> Memory {
        let id = Oid::from_bytes(&[self.blobs.len() as u8 + 1; 20]).expect("20 bytes");
        self.blobs.insert(id, content.as_bytes().to_vec());
        self.entries.insert(
            path.to_string(),
            Entry::File {
                blob: id,
                executable: false,
            },
        );
        let mut dir = path;
        while let Some((parent, _)) = dir.rsplit_once('/') {
            self.entries.insert(parent.to_string(), Entry::Dir);
            dir = parent;
        }
        self
    }
}

impl Base for Memory {
    fn entry(&self, path: &str) -> Entry {
        self.entries.get(path).copied().unwrap_or(Entry::Missing)
    }

    fn blob(&self, id: Oid) -> Result<Arc<[u8]>, Problem> {
        self.blobs
            .get(&id)
            .map(|b| Arc::from(b.as_slice()))
            .ok_or_else(|| Problem::new(Code::Git, format!("no blob {id}")))
    }

    fn names(&self, dir: &str) -> Vec<String> {
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        self.entries
            .keys()
            .filter_map(|p| p.strip_prefix(&prefix))
            .filter(|rest| !rest.contains('/'))
            .map(str::to_string)
            .collect()
    }

    fn entries_under(&self, dir: &str) -> Vec<(String, Entry)> {
        let prefix = format!("{dir}/");
        self.entries
            .iter()
            .filter(|(p, _)| p.starts_with(&prefix))
            .map(|(p, e)| (p.clone(), *e))
            .collect()
    }
}

fn plan(actions: serde_json::Value) -> Plan {
    serde_json::from_value(json!({ "protocol": 1, "actions": actions })).expect("a plan")
}

const CHECK: BuildOptions<'static> = BuildOptions {
    write: false,
    read: None,
};

#[test]
fn edits_say_what_the_store_writes() {
    let base = Memory::default()
        .file("src/a.rs", "old\n")
        .file("old/x.txt", "x\n");
    let plan = plan(json!([
        {"kind": "CREATE_DIR", "path": "empty"},
        {"kind": "UPDATE_FILE", "path": "src/a.rs", "content": "new\n"},
        {"kind": "DELETE_DIR", "path": "old"},
    ]));
    let out = changes(&base, &Settings::default(), &plan, &CHECK).expect("valid");
    let edits: Vec<String> = out
        .edits()
        .iter()
        .map(|e| match e {
            TreeEdit::Put { path, content, .. } => format!("put {path} {content:?}"),
            TreeEdit::Remove { path } => format!("remove {path}"),
        })
        .collect();
    assert_eq!(
        edits,
        [
            "put empty/.gitkeep []",
            "remove old",
            "put src/a.rs [110, 101, 119, 10]"
        ]
    );
    let kinds: Vec<(&str, ChangeKind)> = out
        .changes
        .iter()
        .map(|c| (c.path.as_str(), c.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("src/a.rs", ChangeKind::Modified),
            ("old/x.txt", ChangeKind::Deleted),
            ("empty/.gitkeep", ChangeKind::Added),
        ]
    );
}

#[test]
fn every_problem_is_reported_with_its_hint_and_nothing_is_built() {
    let base = Memory::default().file("README.md", "hi\n");
    let plan = plan(json!([
        {"kind": "DELETE_FILE", "path": "missing.txt"},
        {"kind": "CREATE_FILE", "path": "README.md", "content": "x"},
    ]));
    let problems = changes(&base, &Settings::default(), &plan, &CHECK).expect_err("refused");
    let lines: Vec<String> = problems
        .iter()
        .map(|p| format!("{}: {}", p.code, p.text()))
        .collect();
    assert_eq!(
        lines,
        [
            "ERR_TARGET_MISSING: action 1 (DELETE_FILE missing.txt): no such file in the commit the plan applies to; create it with CREATE_FILE",
            "ERR_TARGET_EXISTS: action 2 (CREATE_FILE README.md): the file already exists; change it with UPDATE_FILE (v1) or PATCH_FILE (v2)",
        ]
    );
    assert_eq!(
        problems[0].hint.as_deref(),
        Some("create it with CREATE_FILE")
    );
}

#[test]
fn a_directory_holding_a_private_file_is_not_deleted() {
    let base = Memory::default()
        .file(".gitattributes", "keys/** papayu-private\n")
        .file("keys/prod.txt", "secret\n");
    let plan = plan(json!([{"kind": "DELETE_DIR", "path": "keys"}]));
    let problems = changes(&base, &Settings::default(), &plan, &CHECK).expect_err("refused");
    assert_eq!(problems[0].code, Code::ProtectedPath);
    assert!(
        problems[0].reason.contains("'keys/prod.txt'"),
        "{problems:?}"
    );
}

#[test]
fn info_attributes_and_autocrlf_come_from_the_settings() {
    let base = Memory::default().file("notes.txt", "a\n");
    let plan = plan(json!([{"kind": "UPDATE_FILE", "path": "notes.txt", "content": "b\r\n"}]));
    let lf = Settings {
        autocrlf: AutoCrlf::Input,
        ..Settings::default()
    };
    let out = changes(&base, &lf, &plan, &CHECK).expect("valid");
    assert_eq!(out.changes[0].new.as_deref(), Some(&b"b\n"[..]));
    let private = Settings {
        info_attributes: Some("notes.txt papayu-private\n".into()),
        ..Settings::default()
    };
    let problems = changes(&base, &private, &plan, &CHECK).expect_err("refused");
    assert_eq!(problems[0].code, Code::ProtectedPath);
}
