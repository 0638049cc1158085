//! The integration tests: one binary (linking the crate and its dependencies once), one module
//! per area. Every module runs the real binary as `git papayu` against temporary repositories;
//! `common` holds the harness and the fake LLM server.

mod common;

mod ask;
mod attribution;
mod builtin;
mod compare;
mod context;
mod errors_doc;
mod evidence;
mod golden;
mod json_doc;
mod large;
mod layout;
mod lifecycle;
#[cfg(feature = "mcp")]
mod mcp;
mod patch_cli;
mod patch_git_cases;
mod protocol_docs;
mod protocol_jsonschema;
mod protocol_props;
mod protocol_rules;
mod protocol_schema;
mod quiet;
mod readme;
mod repro;
mod robust;
mod screens;
mod search;
mod secrets;
mod security;
mod session;
mod settings;
mod shared_notes;
mod situations;
mod streams;
mod teams;
#[cfg(unix)]
mod terminal;
mod trace;
mod trace_list;
mod trust;
mod validate_cli;
mod verdicts;
mod workers;
