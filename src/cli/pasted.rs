//! Answers recorded elsewhere (a chat, another tool, a replay), read from the files given with
//! `--response` for the service to check and store.

use std::io::Read;
use std::path::{Path, PathBuf};

use git_papayu::service::paste::{Answer, one_stdin};
use git_papayu::{Code, Problem};

/// Reads a file, or stdin for `-`.
pub fn read_input(path: &Path) -> Result<Vec<u8>, Problem> {
    if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| Problem::new(Code::InputUnreadable, format!("reading stdin: {e}")))?;
        Ok(buf)
    } else {
        std::fs::read(path).map_err(|e| {
            Problem::new(
                Code::InputUnreadable,
                format!("reading {}: {e}", path.display()),
            )
        })
    }
}

/// Reads every answer given, each named by its file; standard input at most once.
pub fn answers(files: &[PathBuf]) -> Result<Vec<Answer>, Problem> {
    one_stdin(files.iter().map(|f| f.as_os_str()))?;
    files
        .iter()
        .map(|file| {
            Ok(Answer {
                name: file.display().to_string(),
                bytes: read_input(file)?,
            })
        })
        .collect()
}
