//! Who a worker is: its name, its signing key, its lease — read once from its settings.
//!
//! The name is `papayu.workerName`; without one it is taken from the key (`ssh-` and the first
//! 12 hex digits of the SHA-256 of the public key, the same on every CI run that has the key),
//! else from the host name. The key is `papayu.workerKey`, else git's `user.signingKey` when
//! `gpg.format` is `ssh`. A worker without a key writes unsigned results, which no clone counts
//! as more than a claim.

use std::path::PathBuf;
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::worker::Setup;
use crate::codes::{Code, Problem};
use crate::engine::check::CheckSettings;
use crate::settings::Settings;
use crate::store::checks::is_ref_component;
use crate::store::sshsig;

/// How long a claim holds without renewal, unless `papayu.workerLease` says otherwise.
pub const DEFAULT_LEASE_SECS: u64 = 300;

/// The worker's setup from its settings, for `remote`.
pub fn setup(config: &Settings, remote: String) -> Result<Setup, Problem> {
    let key = key(config)?;
    let name = match config.git("papayu.workerName").map(str::trim) {
        Some(name) if is_ref_component(name) => name.to_string(),
        Some(name) => {
            return Err(invalid(
                "papayu.workerName",
                &format!("'{name}' is no ref name: use letters, digits, '.', '_' and '-'"),
            ));
        }
        None => default_name(key.as_deref()),
    };
    // Its declaration takes 3 seconds or more.
    let lease = config
        .number("papayu.workerLease")?
        .and_then(|n| u64::try_from(n).ok())
        .unwrap_or(DEFAULT_LEASE_SECS);
    Ok(Setup {
        remote,
        name,
        key,
        lease: Duration::from_secs(lease),
        settings: CheckSettings::resolve(config, false, None)?,
        commands: config
            .git_all("papayu.workerCommands")
            .into_iter()
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(str::to_string)
            .collect(),
    })
}

/// `papayu.workerKey`, else `user.signingKey` under `gpg.format ssh`; a key that is no readable
/// file is refused here rather than after a whole check.
fn key(config: &Settings) -> Result<Option<PathBuf>, Problem> {
    let ssh = config
        .git("gpg.format")
        .is_some_and(|f| f.eq_ignore_ascii_case("ssh"));
    let value = config
        .git("papayu.workerKey")
        .map(|v| ("papayu.workerKey", v))
        .or_else(|| {
            ssh.then(|| {
                config
                    .git("user.signingKey")
                    .map(|v| ("user.signingKey", v))
            })
            .flatten()
        });
    let Some((setting, value)) = value.filter(|(_, v)| !v.trim().is_empty()) else {
        return Ok(None);
    };
    let path = match (value.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => PathBuf::from(value),
    };
    if !path.is_file() {
        return Err(Problem::new(
            Code::WorkerKey,
            format!("{setting} names {}, which is no file here", path.display()),
        )
        .with_hint(format!(
            "point it at the worker's private SSH key: git config {setting} PATH"
        )));
    }
    Ok(Some(path))
}

/// The name a worker goes by when none is set: from its key, else its host.
fn default_name(key: Option<&std::path::Path>) -> String {
    if let Some(public) = key.and_then(sshsig::public_key) {
        let blob = public.split_whitespace().nth(1).unwrap_or(&public);
        let digest = Sha256::digest(blob.as_bytes());
        let hex: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
        return format!("ssh-{hex}");
    }
    let host = std::fs::read_to_string("/etc/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_default();
    let host: String = host
        .trim()
        .chars()
        .map(
            |c| match c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                true => c,
                false => '-',
            },
        )
        .take(48)
        .collect();
    match is_ref_component(&host) {
        true => host,
        false => "worker".to_string(),
    }
}

fn invalid(key: &str, what: &str) -> Problem {
    Problem::new(
        Code::WorkerConfigInvalid,
        format!("git config {key} {what}"),
    )
    .with_hint(format!(
        "fix it with git config {key} VALUE (docs/config.md)"
    ))
}
