//! Which part of a diff applies to the file, and whether the diff means that file at all.
//!
//! A diff is never cut down silently: one that changes other files too, names another file,
//! renames, creates or deletes the file is refused with its own code, unless the caller picked
//! the part on purpose. Sections that all name the same file are one change to it.

use papayu_core::codes::{Code, Problem};

use super::Options;
use super::parse::FilePatch;

/// The one file's part of `files`, as `options` allow.
pub(crate) fn one_file(files: Vec<FilePatch>, options: &Options) -> Result<FilePatch, Problem> {
    if let Some(pick) = &options.pick {
        return picked(files, pick);
    }
    let file = match <[FilePatch; 1]>::try_from(merged(files)) {
        Ok([file]) => file,
        Err(files) => {
            let names: Vec<String> = files.iter().map(FilePatch::path).collect();
            return Err(Problem::new(
                Code::PatchMultiFile,
                format!(
                    "the diff changes {} files ({}); a patch changes only its own file: send \
                     one patch per file",
                    files.len(),
                    names.join(", ")
                ),
            ));
        }
    };
    if let Some(path) = &options.path {
        check_name(&file, path)?;
    }
    Ok(file)
}

/// The name a one-file diff gives its file when that is not `path` (another file, or a rename
/// of it); `None` when it names `path`, names nothing, or changes several files.
pub(crate) fn other_name(files: Vec<FilePatch>, path: &str) -> Option<String> {
    let files = merged(files);
    let [file] = files.as_slice() else {
        return None;
    };
    check_name(file, path).err().map(|_| file.path())
}

/// Refuses a diff that deletes the file, or creates it while it has content.
pub(crate) fn check_sides(file: &FilePatch, original: &str) -> Result<(), Problem> {
    let name = file.path();
    if file.deleted {
        return Err(Problem::new(
            Code::PatchDevNull,
            format!("the diff deletes {name} (+++ /dev/null); remove a file with DELETE_FILE"),
        ));
    }
    if file.created && !original.is_empty() {
        return Err(Problem::new(
            Code::PatchDevNull,
            format!(
                "the diff creates {name} (--- /dev/null), but the file exists with content; \
                 change it with a diff against its current text"
            ),
        ));
    }
    if file.hunks.is_empty() {
        return Err(Problem::new(
            Code::PatchNotUnified,
            format!("the diff has no hunks for {name}; send @@ hunks with the change"),
        ));
    }
    Ok(())
}

/// The section the caller named, from a diff of one or more files.
fn picked(files: Vec<FilePatch>, pick: &str) -> Result<FilePatch, Problem> {
    let mut files = match <[FilePatch; 1]>::try_from(merged(files)) {
        Ok([file]) => return Ok(file),
        Err(files) => files,
    };
    let want = normal(pick);
    let names: Vec<String> = files.iter().map(FilePatch::path).collect();
    let exact: Vec<usize> = (0..files.len())
        .filter(|&i| {
            let f = &files[i];
            [&f.new_path, &f.old_path]
                .iter()
                .any(|p| p.as_deref().map(normal) == Some(want))
        })
        .collect();
    let suffix: Vec<usize> = (0..files.len())
        .filter(|&i| same_file(&names[i], want))
        .collect();
    match (exact.as_slice(), suffix.as_slice()) {
        ([one], _) | ([], [one]) => Ok(files.swap_remove(*one)),
        _ => Err(Problem::new(
            Code::PatchMultiFile,
            format!(
                "the diff changes {} files ({}) and none is unambiguously {pick}",
                files.len(),
                names.join(", ")
            ),
        )),
    }
}

/// Sections that name the same file (or no file) joined into one, in order of first mention.
fn merged(files: Vec<FilePatch>) -> Vec<FilePatch> {
    let mut out: Vec<FilePatch> = Vec::with_capacity(files.len());
    for f in files {
        let same = out.iter_mut().find(|o| {
            o.old_path == f.old_path
                && o.new_path == f.new_path
                && o.created == f.created
                && o.deleted == f.deleted
        });
        match same {
            Some(o) => o.hunks.extend(f.hunks),
            None => out.push(f),
        }
    }
    out
}

/// Refuses a diff that names another file than `path`, or renames it.
fn check_name(file: &FilePatch, path: &str) -> Result<(), Problem> {
    let want = normal(path);
    if let (Some(old), Some(new)) = (&file.old_path, &file.new_path)
        && bare(old) != bare(new)
    {
        return Err(Problem::new(
            Code::PatchPathMismatch,
            format!(
                "the diff renames {old} to {new}; a patch changes {want} in place (rename with \
                 DELETE_FILE and CREATE_FILE)"
            ),
        ));
    }
    match file.new_path.as_deref().or(file.old_path.as_deref()) {
        Some(named) if !same_file(named, want) => Err(Problem::new(
            Code::PatchPathMismatch,
            format!(
                "the diff is for {named}, not {want}; name {want} in its ---/+++ lines, or send \
                 the change for {named} separately"
            ),
        )),
        _ => Ok(()),
    }
}

/// A path without `./`, `a/` or `b/` in front.
fn normal(path: &str) -> &str {
    let p = path.trim();
    let p = p.strip_prefix("./").unwrap_or(p);
    p.strip_prefix("a/")
        .or_else(|| p.strip_prefix("b/"))
        .unwrap_or(p)
}

/// A path as a diff names it, without `./`, `a/`, `b/` or a note after it (`x.rs (original)`).
fn bare(path: &str) -> &str {
    let p = normal(path);
    p.split_once(" (").map_or(p, |(name, _)| name.trim_end())
}

/// The same file: equal, or one a tail of the other at a `/` (a diff made in a subdirectory).
fn same_file(named: &str, want: &str) -> bool {
    let named = bare(named);
    named == want || named.ends_with(&format!("/{want}")) || want.ends_with(&format!("/{named}"))
}

#[cfg(test)]
mod tests {
    use super::super::{Options, apply_with};
    use papayu_core::codes::Code;

    fn code(original: &str, diff: &str, path: Option<&str>) -> Code {
        let options = Options {
            path: path.map(str::to_string),
            ..Options::default()
        };
        apply_with(original, diff, &options)
            .unwrap_err()
            .problem
            .code
    }

    const ONE: &str = "--- a/src/x.rs\n+++ b/src/x.rs\n@@ -1 +1 @@\n-a\n+b\n";

    #[test]
    fn the_file_named_or_unnamed_or_a_tail_applies() {
        let noted = ONE.replace("a/src/x.rs", "a/src/x.rs (original)");
        let options = Options {
            path: Some("src/x.rs".into()),
            ..Options::default()
        };
        assert_eq!(apply_with("a\n", &noted, &options).unwrap().content, "b\n");
        for path in ["src/x.rs", "./src/x.rs", "x.rs", "repo/src/x.rs"] {
            let options = Options {
                path: Some(path.into()),
                ..Options::default()
            };
            assert_eq!(apply_with("a\n", ONE, &options).unwrap().content, "b\n");
        }
        let bare = "@@ -1 +1 @@\n-a\n+b\n";
        let options = Options {
            path: Some("other.rs".into()),
            ..Options::default()
        };
        assert_eq!(apply_with("a\n", bare, &options).unwrap().content, "b\n");
    }

    #[test]
    fn another_file_a_rename_or_more_files_are_refused() {
        assert_eq!(code("a\n", ONE, Some("src/y.rs")), Code::PatchPathMismatch);
        let rename = "--- a/src/x.rs\n+++ b/src/y.rs\n@@ -1 +1 @@\n-a\n+b\n";
        assert_eq!(
            code("a\n", rename, Some("src/x.rs")),
            Code::PatchPathMismatch
        );
        let two = format!("{ONE}--- a/src/y.rs\n+++ b/src/y.rs\n@@ -1 +1 @@\n-c\n+d\n");
        assert_eq!(code("a\n", &two, Some("src/x.rs")), Code::PatchMultiFile);
        assert_eq!(code("a\n", &two, None), Code::PatchMultiFile);
    }

    #[test]
    fn two_sections_for_the_same_file_are_one_change() {
        let split =
            "--- a/x\n+++ b/x\n@@ -3 +3 @@\n-c\n+C\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+A\n";
        let options = Options {
            path: Some("x".into()),
            ..Options::default()
        };
        assert_eq!(
            apply_with("a\nb\nc\n", split, &options).unwrap().content,
            "A\nb\nC\n"
        );
    }

    #[test]
    fn dev_null_sides_are_refused_unless_creating_an_empty_file() {
        let delete = "--- a/x\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n";
        assert_eq!(code("a\n", delete, None), Code::PatchDevNull);
        let create = "--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+a\n";
        assert_eq!(code("b\n", create, Some("x")), Code::PatchDevNull);
        assert_eq!(
            apply_with("", create, &Options::default()).unwrap().content,
            "a\n"
        );
    }
}
