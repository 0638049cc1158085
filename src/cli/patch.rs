//! `git papayu patch`: apply a diff to one file with the tolerant engine, outside any plan.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use git_papayu::patch::{self, Applied, Options};
use git_papayu::{Code, Problem};

use super::{CliResult, ui};

/// Apply a unified diff to one file, tolerating imperfect model output.
///
/// Patches FILE with the hunks of PATCHFILE (`-` reads the diff from stdin). As with `patch FILE
/// PATCHFILE`, you named the file: a diff of one file applies to FILE whatever its ---/+++ lines
/// call it (the difference is noted on stderr). A diff that creates or deletes the file, or
/// changes other files too, is refused; --path takes one file's part of a larger diff. Accepts
/// git and plain unified diffs with wrong or missing line numbers and counts, diffs in a ```
/// fence, and the `*** Begin Patch` envelope. A hunk is placed only
/// where it fits in exactly one place; otherwise nothing changes and the report says which
/// hunk failed, what was tried and what the file holds instead.
///
/// The patched text goes to stdout byte for byte (on a terminal, control characters other than
/// line endings and tabs are made visible), or back into FILE with --in-place; the report goes
/// to stderr. With --json, stdout has one JSON document with the hunks' placements (or the
/// failure report) and, without --in-place, the patched text as `content`. Exit 0 when every hunk applied, 1 when the patch was refused. Works outside a git
/// repository.
#[derive(Debug, Args)]
pub struct PatchArgs {
    /// The file to patch.
    file: PathBuf,
    /// The diff, or `-` to read it from stdin.
    patchfile: PathBuf,
    /// Rewrite FILE (atomically, keeping its permissions) instead of printing the result.
    #[arg(long)]
    in_place: bool,
    /// Apply this file's part of the diff to FILE, whatever the diff calls it or whatever else
    /// it changes (as named in the diff, with or without `a/`/`b/`).
    #[arg(long, value_name = "PATH")]
    path: Option<String>,
}

/// `patch --json` when every hunk applied: each hunk's report, and the patched text unless it
/// was written back.
#[derive(serde::Serialize)]
struct Patched<'a> {
    file: &'a Path,
    hunks: &'a [patch::HunkReport],
    content: Option<&'a str>,
}

/// `patch --json` when the patch was refused: what failed and what the file holds instead.
#[derive(serde::Serialize)]
struct Refused<'a> {
    file: &'a Path,
    report: Option<&'a patch::FailureReport>,
}

pub fn run(args: PatchArgs) -> CliResult {
    let PatchArgs {
        file,
        patchfile,
        in_place,
        path,
    } = args;
    let original = read_text(&file, Code::NonUtf8File)?;
    let diff = match patchfile.as_os_str() == "-" {
        true => read_stdin()?,
        false => read_text(&patchfile, Code::InputNotUtf8)?,
    };
    let named = file.to_string_lossy().into_owned();
    let pick = path.or_else(|| {
        let other = patch::other_name(&diff, &named)?;
        ui::status(&format!(
            "note: the diff names {other}; applying it to {named}, the file you named"
        ));
        Some(other)
    });
    let options = Options {
        path: Some(named),
        pick,
        line_hint: None,
    };
    let applied = match patch::apply_with(&original, &diff, &options) {
        Ok(applied) => applied,
        Err(e) => {
            ui::data(&Refused {
                file: &file,
                report: e.report.as_deref(),
            });
            if !ui::json_mode() {
                ui::status(e.report_text().trim_end());
            }
            return Err(e.problem.into());
        }
    };
    if in_place {
        write_atomically(&file, &applied.content)?;
    } else {
        ui::out_data(&applied.content);
    }
    ui::data(&Patched {
        file: &file,
        hunks: &applied.hunks,
        content: (!in_place).then_some(applied.content.as_str()),
    });
    summarize(&applied, ui::verbose());
    Ok(())
}

fn summarize(applied: &Applied, verbose: bool) {
    if verbose {
        for h in &applied.hunks {
            ui::status(&format!(
                "hunk {}: {} at line {} (offset {:+})",
                h.hunk, h.strategy, h.line, h.offset
            ));
        }
    }
    let strategies: Vec<&str> = applied.hunks.iter().map(|h| h.strategy.as_str()).collect();
    ui::status(&format!(
        "{} hunk(s) applied ({})",
        applied.hunks.len(),
        strategies.join(", ")
    ));
}

fn read_text(path: &Path, not_utf8: Code) -> Result<String, Problem> {
    let bytes = fs::read(path).map_err(|e| {
        Problem::new(
            Code::InputUnreadable,
            format!("cannot read {}: {e}", path.display()),
        )
    })?;
    String::from_utf8(bytes).map_err(|_| {
        Problem::new(
            not_utf8,
            format!(
                "{} is not UTF-8 text; only text files can be patched",
                path.display()
            ),
        )
    })
}

fn read_stdin() -> Result<String, Problem> {
    let mut bytes = Vec::new();
    std::io::stdin().read_to_end(&mut bytes).map_err(|e| {
        Problem::new(
            Code::InputUnreadable,
            format!("cannot read the diff from stdin: {e}"),
        )
    })?;
    String::from_utf8(bytes)
        .map_err(|_| Problem::new(Code::InputNotUtf8, "the diff on stdin is not UTF-8 text"))
}

/// Replaces `path`'s content through a temporary file in the same directory and a rename, so a
/// reader sees the old file or the new one, never half of one; permissions are kept.
fn write_atomically(path: &Path, content: &str) -> Result<(), Problem> {
    let io = |what: &str, e: std::io::Error| {
        Problem::new(Code::Io, format!("cannot {what} {}: {e}", path.display()))
    };
    let target = fs::canonicalize(path).map_err(|e| io("resolve", e))?;
    let dir = target.parent().unwrap_or(Path::new("."));
    let permissions = fs::metadata(&target)
        .map_err(|e| io("stat", e))?
        .permissions();
    let mut tmp = tempfile::Builder::new()
        .prefix(".papayu-patch-")
        .tempfile_in(dir)
        .map_err(|e| io("create a temporary file next to", e))?;
    tmp.write_all(content.as_bytes())
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| io("write a temporary file next to", e))?;
    fs::set_permissions(tmp.path(), permissions).map_err(|e| io("set permissions for", e))?;
    tmp.persist(&target).map_err(|e| io("replace", e.error))?;
    Ok(())
}
