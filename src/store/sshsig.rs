//! Signing and verifying worker results with SSH keys, through `ssh-keygen -Y`.
//!
//! git signs with SSH keys the same way (`gpg.format ssh`): `ssh-keygen -Y sign` makes an
//! armored signature of any bytes under a namespace, and `ssh-keygen -Y verify` checks one
//! against an allowed-signers file. papayu signs the exact bytes of a result's payload under the
//! namespace [`NAMESPACE`], so a signature made for a commit or for anything else never passes
//! for a verdict. Verifying never trusts what a result says of its signer: the keys come only
//! from this repository's `papayu.trustedWorkers`.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::codes::{Code, Problem};

/// The namespace every result signature is made under.
pub const NAMESPACE: &str = "papayu-check";

/// Signs `data` with the SSH key at `key` (a private key file, or a public key whose private
/// half an agent holds); returns the armored signature.
pub fn sign(key: &std::path::Path, data: &[u8]) -> Result<String, Problem> {
    let out = run(
        Command::new("ssh-keygen")
            .args(["-q", "-Y", "sign", "-n", NAMESPACE, "-f"])
            .arg(key),
        data,
    )
    .map_err(|e| {
        Problem::new(
            Code::WorkerKey,
            format!("cannot run ssh-keygen to sign results: {e}"),
        )
        .with_hint("install OpenSSH's ssh-keygen, or run the worker without papayu.workerKey")
    })?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() || !text.contains("BEGIN SSH SIGNATURE") {
        return Err(Problem::new(
            Code::WorkerKey,
            format!(
                "ssh-keygen could not sign with {} (its message below)",
                key.display()
            ),
        )
        .with_hint("point papayu.workerKey at a private SSH key this user can read")
        .with_detail(String::from_utf8_lossy(&out.stderr).trim().to_string()));
    }
    Ok(text)
}

/// Whether `signature` is a valid signature of `data` by `identity` under the keys of
/// `allowed` (lines of an allowed-signers file). `Err` when ssh-keygen cannot be run at all.
pub fn verify(
    allowed: &[String],
    identity: &str,
    data: &[u8],
    signature: &str,
) -> Result<bool, std::io::Error> {
    if allowed.is_empty() {
        return Ok(false);
    }
    let dir = tempfile::Builder::new().prefix("papayu-verify").tempdir()?;
    let signers = dir.path().join("allowed_signers");
    std::fs::write(&signers, format!("{}\n", allowed.join("\n")))?;
    let sig = dir.path().join("result.sig");
    std::fs::write(&sig, signature)?;
    let out = run(
        Command::new("ssh-keygen")
            .args(["-Y", "verify", "-n", NAMESPACE, "-f"])
            .arg(&signers)
            .arg("-I")
            .arg(identity)
            .arg("-s")
            .arg(&sig),
        data,
    )?;
    Ok(out.status.success())
}

/// Whether `signature` is a valid signature of `data` under [`NAMESPACE`] by any key at all
/// (`ssh-keygen -Y check-novalidate`): what tells a result signed by an untrusted key from one
/// whose signature is broken.
pub fn is_valid(data: &[u8], signature: &str) -> bool {
    let check = || -> Result<bool, std::io::Error> {
        let dir = tempfile::Builder::new().prefix("papayu-verify").tempdir()?;
        let sig = dir.path().join("result.sig");
        std::fs::write(&sig, signature)?;
        let out = run(
            Command::new("ssh-keygen")
                .args(["-Y", "check-novalidate", "-n", NAMESPACE, "-s"])
                .arg(&sig),
            data,
        )?;
        Ok(out.status.success())
    };
    check().unwrap_or(false)
}

/// The allowed-signers lines of `papayu.trustedWorkers` values: a full line (`NAME keytype
/// base64 [comment]`) as it is, a bare public key (`keytype base64 [comment]`) for any worker
/// name. `None` for a value that is neither.
pub fn allowed_line(value: &str) -> Option<String> {
    let words: Vec<&str> = value.split_whitespace().collect();
    let is_key_type =
        |w: &str| w.starts_with("ssh-") || w.starts_with("ecdsa-") || w.starts_with("sk-");
    match words.as_slice() {
        [kind, key, ..] if is_key_type(kind) && !key.is_empty() => Some(format!("* {kind} {key}")),
        [name, kind, key, ..] if is_key_type(kind) && !key.is_empty() => {
            Some(format!("{name} {kind} {key}"))
        }
        _ => None,
    }
}

/// The public key line of the key at `key` (`keytype base64 comment`): the `.pub` beside it,
/// else what ssh-keygen derives from the private key.
pub fn public_key(key: &std::path::Path) -> Option<String> {
    let beside = std::path::PathBuf::from(format!("{}.pub", key.display()));
    if let Ok(text) = std::fs::read_to_string(&beside) {
        return Some(text.trim().to_string());
    }
    if key.extension().is_some_and(|e| e == "pub") {
        return std::fs::read_to_string(key)
            .ok()
            .map(|t| t.trim().to_string());
    }
    let out = Command::new("ssh-keygen")
        .args(["-y", "-f"])
        .arg(key)
        .stdin(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn run(cmd: &mut Command, input: &[u8]) -> Result<std::process::Output, std::io::Error> {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| std::io::Error::other("the command's input is not a pipe"))?;
    let data = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&data));
    let out = child.wait_with_output()?;
    let _ = writer.join();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::allowed_line;

    #[test]
    fn trusted_worker_values_become_allowed_signers_lines() {
        assert_eq!(
            allowed_line("ssh-ed25519 AAAAC3 ci@example"),
            Some("* ssh-ed25519 AAAAC3".to_string())
        );
        assert_eq!(
            allowed_line("ci-runner ssh-ed25519 AAAAC3"),
            Some("ci-runner ssh-ed25519 AAAAC3".to_string())
        );
        assert_eq!(allowed_line("just words"), None);
        assert_eq!(allowed_line(""), None);
    }
}
