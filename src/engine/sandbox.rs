//! The check's sandbox: what a check command may touch.
//!
//! The check runs code a model wrote, so on Linux it runs under Landlock: it may read and execute
//! anything the user can, but write only in its worktree, its private temporary directory, the
//! harmless devices (`/dev/null` and the like) and directories the user listed
//! (`papayu.checkWritable`); it may open no TCP connection nor bind a port, reach no abstract
//! Unix socket, and signal no process outside the check (unless `--check-network`). The rules
//! are built in the parent and enforced in the child between `fork` and `exec`, so papayu itself
//! stays unrestricted.
//!
//! This module must never restrict the papayu process itself, and never claim a protection the
//! kernel did not enforce: the child reports what was enforced back through a pipe.

use std::path::PathBuf;
use std::process::Command;

/// What the check may do beyond reading the filesystem.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    /// Directories (and files) the check may write.
    pub writable: Vec<PathBuf>,
    /// Allow network access.
    pub network: bool,
}

/// What the kernel enforced for one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Enforced {
    /// The user turned the sandbox off (`papayu.checkSandbox false`).
    Off,
    /// The kernel has no Landlock: the check ran unsandboxed.
    Unavailable,
    /// Writes are confined; `network` says whether TCP was confined too.
    Landlock { abi: u8, network_confined: bool },
}

impl Enforced {
    /// A one-line warning when the check ran with less protection than asked for.
    pub fn warning(&self, network_allowed: bool) -> Option<String> {
        match self {
            Enforced::Off => Some(
                "the check ran without a sandbox (papayu.checkSandbox is false): it could write anywhere you can"
                    .into(),
            ),
            Enforced::Unavailable => Some(
                "the check ran without a sandbox: this kernel has no Landlock, so it could write anywhere you can and use the network"
                    .into(),
            ),
            Enforced::Landlock {
                abi,
                network_confined: false,
            } if !network_allowed => Some(format!(
                "the check's writes were confined, but this kernel's Landlock (ABI {abi}) cannot block network connections"
            )),
            Enforced::Landlock { .. } => None,
        }
    }
}

/// Devices a build or test commonly writes to; none of them stores anything.
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/tty",
    "/dev/pts",
    "/dev/ptmx",
];

/// Starts `cmd` confined to `policy` (or unconfined with `None`) and says what was enforced.
/// `cmd` is consumed, so every descriptor it held for the child (pipes included) is closed in
/// this process once the child has started.
pub fn spawn(
    mut cmd: Command,
    policy: Option<&Policy>,
) -> std::io::Result<(std::process::Child, Enforced)> {
    let Some(policy) = policy else {
        return Ok((cmd.spawn()?, Enforced::Off));
    };
    let report = confine(&mut cmd, policy)?;
    let child = cmd.spawn();
    drop(cmd);
    let child = child?;
    Ok((child, report.enforced()))
}

/// Reads what the child enforced, once the command has been spawned.
struct Report {
    #[cfg(target_os = "linux")]
    reader: Option<std::io::PipeReader>,
}

impl Report {
    /// What was enforced. Call after `spawn` returned and the command was dropped.
    fn enforced(self) -> Enforced {
        #[cfg(target_os = "linux")]
        if let Some(mut reader) = self.reader {
            use std::io::Read;
            let mut bytes = Vec::new();
            let _ = reader.read_to_end(&mut bytes);
            return decode(&bytes);
        }
        Enforced::Unavailable
    }
}

/// What the child wrote: the Landlock ABI it enforced (0 for none) and whether TCP is confined.
fn decode(bytes: &[u8]) -> Enforced {
    match bytes {
        [abi, net] if *abi > 0 => Enforced::Landlock {
            abi: *abi,
            network_confined: *net == 1,
        },
        _ => Enforced::Unavailable,
    }
}

/// Sets `cmd` up to confine itself to `policy` when it starts.
#[cfg(target_os = "linux")]
fn confine(cmd: &mut Command, policy: &Policy) -> std::io::Result<Report> {
    use std::os::fd::AsRawFd;
    use std::os::unix::process::CommandExt;
    use std::sync::Mutex;

    let ruleset = match build(policy) {
        Ok(r) => r,
        // Building fails only when the kernel rejects a rule outright; run unsandboxed then,
        // and say so.
        Err(_) => return Ok(Report { reader: None }),
    };
    let (reader, writer) = std::io::pipe()?;
    let slot = Mutex::new(Some((ruleset, writer)));
    let network = policy.network;
    // SAFETY: the closure runs in the forked child before exec. papayu is single-threaded when
    // it starts a check, so taking the uncontended lock cannot deadlock; it then makes two
    // system calls (prctl and landlock_restrict_self) and one write to a pipe.
    unsafe {
        cmd.pre_exec(move || {
            let taken = slot.lock().ok().and_then(|mut s| s.take());
            let Some((ruleset, writer)) = taken else {
                return Ok(());
            };
            let status = ruleset
                .restrict_self()
                .map_err(|_| std::io::Error::last_os_error())?;
            let abi = match status.landlock {
                landlock::LandlockStatus::Available { effective_abi, .. }
                    if status.ruleset != landlock::RulesetStatus::NotEnforced =>
                {
                    effective_abi as u8
                }
                _ => 0,
            };
            // TCP rules exist from ABI 4 on.
            let confined = u8::from(!network && abi >= 4);
            let bytes = [abi, confined];
            libc::write(writer.as_raw_fd(), bytes.as_ptr().cast(), bytes.len());
            Ok(())
        });
    }
    Ok(Report {
        reader: Some(reader),
    })
}

/// Without Landlock there is nothing to set up.
#[cfg(not(target_os = "linux"))]
fn confine(_cmd: &mut Command, _policy: &Policy) -> std::io::Result<Report> {
    Ok(Report {})
}

#[cfg(target_os = "linux")]
fn build(policy: &Policy) -> Result<landlock::RulesetCreated, landlock::RulesetError> {
    use landlock::{
        ABI, Access, AccessFs, AccessNet, BitFlags, Ruleset, RulesetAttr, RulesetCreatedAttr,
        Scope, path_beneath_rules,
    };
    let abi = ABI::V9;
    let mut handled = AccessFs::from_all(abi);
    if policy.network {
        // Connecting to a named Unix socket counts as network here.
        handled &= !BitFlags::from(AccessFs::ResolveUnix);
    }
    let mut ruleset = Ruleset::default().handle_access(handled)?;
    if !policy.network {
        ruleset = ruleset
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?
            .scope(Scope::AbstractUnixSocket)?;
    }
    let ruleset = ruleset.scope(Scope::Signal)?.create()?;
    let writable = policy
        .writable
        .iter()
        .map(PathBuf::as_path)
        .chain(DEVICES.iter().map(std::path::Path::new));
    ruleset
        .add_rules(path_beneath_rules(["/"], AccessFs::from_read(abi)))?
        .add_rules(path_beneath_rules(writable, handled))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_child_reports_is_decoded() {
        assert_eq!(
            decode(&[7, 1]),
            Enforced::Landlock {
                abi: 7,
                network_confined: true
            }
        );
        assert_eq!(
            decode(&[3, 0]),
            Enforced::Landlock {
                abi: 3,
                network_confined: false
            }
        );
        // Nothing written (the child never reached the report) or no Landlock.
        assert_eq!(decode(&[]), Enforced::Unavailable);
        assert_eq!(decode(&[0, 0]), Enforced::Unavailable);
    }

    #[test]
    fn less_protection_than_asked_is_a_warning() {
        let full = Enforced::Landlock {
            abi: 7,
            network_confined: true,
        };
        assert_eq!(full.warning(false), None);
        let old = Enforced::Landlock {
            abi: 3,
            network_confined: false,
        };
        assert!(old.warning(false).unwrap().contains("cannot block network"));
        assert_eq!(old.warning(true), None);
        assert!(
            Enforced::Unavailable
                .warning(true)
                .unwrap()
                .contains("no Landlock")
        );
        assert!(
            Enforced::Off
                .warning(false)
                .unwrap()
                .contains("checkSandbox")
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_child_is_confined_and_the_parent_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(format!(
            "echo in > '{}/in' && ! echo out > '{}/out' 2>/dev/null",
            dir.path().display(),
            outside.path().display()
        ));
        let policy = Policy {
            writable: vec![dir.path().to_path_buf()],
            network: false,
        };
        let (mut child, enforced) = spawn(cmd, Some(&policy)).unwrap();
        assert!(child.wait().unwrap().success(), "{enforced:?}");
        assert!(
            matches!(enforced, Enforced::Landlock { .. }),
            "{enforced:?}"
        );
        assert!(dir.path().join("in").exists());
        assert!(!outside.path().join("out").exists());
        // This process was never restricted.
        std::fs::write(outside.path().join("parent"), "ok").unwrap();
    }
}
