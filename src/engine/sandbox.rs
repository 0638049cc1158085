//! The check's sandbox: what a check command may touch, and how long it may live.
//!
//! The check runs code a model wrote. On Linux it may read and execute anything the user can, but
//! write only in its worktree, its private temporary directory, the harmless devices (`/dev/null`
//! and the like) and the directories the user listed (`papayu.checkWritable`), and — unless the
//! user allowed the network — reach nothing outside the check:
//!
//! - **A network of its own.** Where unprivileged user namespaces are allowed, the check gets a
//!   fresh network namespace holding only a loopback interface (what `unshare -rn` and
//!   bubblewrap's `--unshare-net` do). TCP, TCP Fast Open, UDP, ICMP and abstract Unix sockets
//!   then reach only the check itself, whatever system call is used, and a test can still run a
//!   server on `127.0.0.1`.
//! - **Otherwise a filter.** A seccomp filter refuses every internet socket (`socket()` for any
//!   family but Unix and netlink), and any `sendto`/`sendmsg` with `MSG_FASTOPEN`; Landlock's TCP
//!   rules (kernel 6.7 and later) refuse `connect` and `bind` as well.
//! - **Unix sockets with a path** (`/var/run/docker.sock`) are in no namespace. Where Landlock can
//!   confine them (ABI 9), the check may connect only to sockets in the directories it may write;
//!   elsewhere the filter refuses to create Unix sockets at all (`socketpair` still works).
//! - `io_uring` is refused: its operations do not pass through the seccomp filter.
//!
//! The rules are built in papayu and enforced by the child itself between `fork` and `exec`, so
//! papayu stays unrestricted. The child also asks the kernel to kill it when papayu dies
//! (`PR_SET_PDEATHSIG`); the caller kills the rest of its process group.
//!
//! This module must never restrict the papayu process itself, and never claim a protection the
//! kernel did not enforce: the child reports back through a pipe what each step achieved, and
//! [`Confinement`] is computed from that report alone.

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

/// How the check was kept off the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Network {
    /// The user allowed the network (`--check-network`).
    Allowed,
    /// A network namespace with only its own loopback.
    Namespace,
    /// No internet socket can be created (seccomp), TCP Fast Open refused.
    Filtered,
    /// Only TCP `connect` and `bind` are refused (Landlock): UDP and TCP Fast Open get out.
    TcpOnly,
    /// Nothing was enforced.
    Open,
}

/// What the check may do with Unix sockets that have a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UnixSockets {
    /// The user allowed the network.
    Allowed,
    /// Only sockets in the directories the check may write (Landlock ABI 9).
    Confined,
    /// No Unix socket can be created (seccomp); `socketpair` works.
    Blocked,
    /// Nothing was enforced: a socket such as `/var/run/docker.sock` is reachable.
    Open,
}

/// What the kernel enforced for one check, from the child's own report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Confinement {
    /// The Landlock ABI the child enforced, `None` without Landlock.
    pub landlock_abi: Option<u8>,
    /// Writes outside the worktree, the temporary directory and `papayu.checkWritable` fail.
    pub writes_confined: bool,
    /// How the network was cut.
    pub network: Network,
    /// TCP (Fast Open included) and UDP reach nothing outside the check.
    pub network_confined: bool,
    pub unix_sockets: UnixSockets,
    /// The seccomp filter was installed.
    pub seccomp: bool,
}

/// What the sandbox did for one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enforced {
    /// The user turned the sandbox off (`papayu.checkSandbox false`).
    Off,
    /// The sandbox was asked for; this is what the kernel enforced.
    On(Confinement),
}

impl serde::Serialize for Enforced {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Enforced::Off => serializer.serialize_str("off"),
            Enforced::On(c) => c.serialize(serializer),
        }
    }
}

impl Enforced {
    /// The line of a failed check's output that shows a write the sandbox refused, if any.
    ///
    /// Landlock refuses a write with `EACCES`, which tools print as "Permission denied"; where
    /// writes were confined, such a line is far more often the sandbox than the test itself, and
    /// saying so points at `papayu.checkWritable` instead of at the code under test.
    pub fn denial(&self, output: &str) -> Option<String> {
        match self {
            Enforced::On(c) if c.writes_confined => {}
            _ => return None,
        }
        let line = output
            .lines()
            .rev()
            .map(str::trim)
            .find(|l| l.contains("Permission denied") || l.contains("os error 13"))?;
        let mut shown: String = line.chars().take(200).collect();
        if shown.len() < line.len() {
            shown.push('…');
        }
        Some(shown)
    }

    /// A one-line warning when the check ran with less protection than asked for.
    pub fn warning(&self, network_allowed: bool) -> Option<String> {
        let c = match self {
            Enforced::Off => {
                return Some(
                    "the check ran without a sandbox (papayu.checkSandbox is false): it could write anywhere you can and use the network"
                        .into(),
                );
            }
            Enforced::On(c) => c,
        };
        let mut gaps = Vec::new();
        if !c.writes_confined {
            gaps.push(
                "this kernel has no Landlock, so it could write anywhere you can".to_string(),
            );
        }
        if !network_allowed {
            match c.network {
                Network::Open => gaps.push("nothing kept it off the network".into()),
                Network::TcpOnly => gaps.push(format!(
                    "only TCP connections were blocked (Landlock ABI {}): UDP and TCP Fast Open could leave the machine",
                    c.landlock_abi.unwrap_or(0)
                )),
                _ => {}
            }
            if c.unix_sockets == UnixSockets::Open {
                gaps.push("it could connect to Unix sockets such as /var/run/docker.sock".into());
            }
        }
        (!gaps.is_empty()).then(|| {
            format!(
                "the check ran with less protection than asked: {}",
                gaps.join("; ")
            )
        })
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

/// A check's process as started: the process, what the sandbox enforced, and whether its
/// processes were contained in a PID namespace.
pub struct Spawned {
    pub child: std::process::Child,
    pub enforced: Enforced,
    pub contained: super::contain::Contained,
}

/// Starts `cmd` confined to `policy` (or unconfined with `None`) and says what was enforced.
/// Either way its processes are contained ([`super::contain`]) and the child is killed by the
/// kernel when the thread that started it dies. `cmd` is consumed, so every descriptor it held
/// for the child (pipes included) is closed in this process once the child has started.
pub fn spawn(mut cmd: Command, policy: Option<&Policy>) -> std::io::Result<Spawned> {
    // First in the child: the namespaces, before Landlock forbids writing the id maps.
    let containment = super::contain::register(&mut cmd, policy.is_some_and(|p| !p.network))?;
    let report = match policy {
        Some(policy) => Some(confine(&mut cmd, policy)?),
        None => None,
    };
    die_with_parent(&mut cmd);
    let child = cmd.spawn();
    drop(cmd);
    let child = child?;
    let enforced = match report {
        Some(report) => Enforced::On(report.enforced(policy.is_some_and(|p| p.network))),
        None => Enforced::Off,
    };
    Ok(Spawned {
        child,
        enforced,
        contained: containment.contained(),
    })
}

/// Asks the kernel to SIGKILL the child when papayu dies, so a killed papayu does not leave a
/// check running without its time limit. Registered last: changing credentials (entering a user
/// namespace) clears the setting.
fn die_with_parent(cmd: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: getpid is async-signal-safe.
        let parent = unsafe { libc::getpid() };
        // SAFETY: the closure runs in the forked child before exec and makes only
        // async-signal-safe system calls (prctl, getppid).
        unsafe {
            cmd.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // papayu died between fork and prctl: the signal was never sent. In a PID
                // namespace the parent is the containment step's first process, outside the
                // namespace, which getppid reports as 0; it dies with papayu in turn.
                let now = libc::getppid();
                if now != parent && now != 0 {
                    return Err(std::io::Error::other("papayu exited"));
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = cmd;
}

/// Reads what the child enforced, once the command has been spawned.
struct Report {
    #[cfg(target_os = "linux")]
    reader: Option<std::io::PipeReader>,
}

impl Report {
    /// What was enforced. Call after `spawn` returned and the command was dropped.
    fn enforced(self, network_allowed: bool) -> Confinement {
        #[cfg(target_os = "linux")]
        if let Some(mut reader) = self.reader {
            use std::io::Read;
            let mut bytes = Vec::new();
            let _ = reader.read_to_end(&mut bytes);
            return decode(&bytes, network_allowed);
        }
        decode(&[], network_allowed)
    }
}

/// Bits of the child's report after the Landlock ABI byte.
const NETNS: u8 = 1;
const SECCOMP: u8 = 2;
const UNIX_BLOCKED: u8 = 4;

/// What the child wrote: the Landlock ABI it enforced (0 for none) and which of the other steps
/// succeeded. Nothing written means nothing was enforced.
fn decode(bytes: &[u8], network_allowed: bool) -> Confinement {
    let (abi, flags) = match bytes {
        [abi, flags] => (*abi, *flags),
        _ => (0, 0),
    };
    let netns = flags & NETNS != 0;
    let seccomp = flags & SECCOMP != 0;
    let network = if network_allowed {
        Network::Allowed
    } else if netns {
        Network::Namespace
    } else if seccomp {
        Network::Filtered
    } else if abi >= 4 {
        Network::TcpOnly
    } else {
        Network::Open
    };
    let unix_sockets = if network_allowed {
        UnixSockets::Allowed
    } else if abi >= 9 {
        UnixSockets::Confined
    } else if seccomp && flags & UNIX_BLOCKED != 0 {
        UnixSockets::Blocked
    } else {
        UnixSockets::Open
    };
    Confinement {
        landlock_abi: (abi > 0).then_some(abi),
        writes_confined: abi > 0,
        network,
        network_confined: matches!(network, Network::Namespace | Network::Filtered),
        unix_sockets,
        seccomp,
    }
}

/// Sets `cmd` up to confine itself to `policy` when it starts.
#[cfg(target_os = "linux")]
fn confine(cmd: &mut Command, policy: &Policy) -> std::io::Result<Report> {
    use std::os::fd::AsRawFd;
    use std::os::unix::process::CommandExt;
    use std::sync::Mutex;

    // Two rulesets: with a network namespace the check's TCP stays on its own loopback and needs
    // no Landlock rule; without one, Landlock refuses TCP connect and bind.
    let rulesets = if policy.network {
        (build(policy, false).ok(), None)
    } else {
        (build(policy, false).ok(), build(policy, true).ok())
    };
    let filters = filters::Set::new(policy.network);
    let network = policy.network;
    let (reader, writer) = std::io::pipe()?;
    let slot = Mutex::new(Some((rulesets, writer)));
    // SAFETY: the closure runs in the forked child before exec. The mutex is locked only
    // there, in the child's own copy of memory: the parent never locks it, so no thread of the
    // parent can have held it at the fork, however many threads papayu runs (`apply --all`,
    // the MCP server). Everything the child needs (rulesets, filters) was built before the
    // fork, and the child makes only system calls: landlock, seccomp, prctl, and one write to
    // the report pipe.
    unsafe {
        cmd.pre_exec(move || {
            let taken = slot.lock().ok().and_then(|mut s| s.take());
            let Some(((open_net, closed_net), writer)) = taken else {
                return Ok(());
            };
            // The namespaces were entered by the containment step, which runs first.
            let netns = super::contain::netns_entered();
            // Never fall back to the open ruleset without a namespace: the report would then
            // claim TCP rules that were not enforced.
            let ruleset = if netns || network {
                open_net
            } else {
                closed_net
            };
            let abi = match ruleset {
                Some(ruleset) => restrict(ruleset)?,
                None => 0,
            };
            let mut flags = if netns { NETNS } else { 0 };
            if let Some(filter) = filters.pick(netns, abi)
                && seccompiler::apply_filter(&filter.program).is_ok()
            {
                flags |= SECCOMP;
                if filter.blocks_unix {
                    flags |= UNIX_BLOCKED;
                }
            }
            let bytes = [abi, flags];
            libc::write(writer.as_raw_fd(), bytes.as_ptr().cast(), bytes.len());
            Ok(())
        });
    }
    Ok(Report {
        reader: Some(reader),
    })
}

/// Enforces `ruleset` on the calling thread; returns the ABI enforced, 0 for none.
#[cfg(target_os = "linux")]
fn restrict(ruleset: landlock::RulesetCreated) -> std::io::Result<u8> {
    let status = ruleset
        .restrict_self()
        .map_err(|_| std::io::Error::last_os_error())?;
    Ok(match status.landlock {
        landlock::LandlockStatus::Available { effective_abi, .. }
            if status.ruleset != landlock::RulesetStatus::NotEnforced =>
        {
            effective_abi as u8
        }
        _ => 0,
    })
}

/// Without Landlock there is nothing to set up.
#[cfg(not(target_os = "linux"))]
fn confine(_cmd: &mut Command, _policy: &Policy) -> std::io::Result<Report> {
    Ok(Report {})
}

/// The Landlock ruleset; `tcp` adds the rules that refuse TCP connect and bind.
#[cfg(target_os = "linux")]
fn build(policy: &Policy, tcp: bool) -> Result<landlock::RulesetCreated, landlock::RulesetError> {
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
    if tcp {
        ruleset = ruleset.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?;
    }
    if !policy.network {
        ruleset = ruleset.scope(Scope::AbstractUnixSocket)?;
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

/// The seccomp filters, compiled before the fork; the child picks one by what it achieved.
#[cfg(target_os = "linux")]
mod filters {
    use std::collections::BTreeMap;

    use seccompiler::{
        BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
        SeccompRule,
    };

    pub struct Filter {
        pub program: BpfProgram,
        /// The filter refuses to create Unix sockets.
        pub blocks_unix: bool,
    }

    /// One filter per situation: inside a network namespace or not, with or without Landlock's
    /// Unix socket rules.
    pub struct Set {
        /// Indexed by `[netns][unix_confined_by_landlock]`.
        filters: Option<[[Option<Filter>; 2]; 2]>,
    }

    impl Set {
        /// No filter when the network is allowed.
        pub fn new(network: bool) -> Set {
            if network {
                return Set { filters: None };
            }
            let make = |netns: bool, unix: bool| {
                build(netns, !unix).map(|program| Filter {
                    program,
                    blocks_unix: !unix,
                })
            };
            Set {
                filters: Some([
                    [make(false, false), make(false, true)],
                    [make(true, false), make(true, true)],
                ]),
            }
        }

        pub fn pick(&self, netns: bool, landlock_abi: u8) -> Option<&Filter> {
            let filters = self.filters.as_ref()?;
            filters[usize::from(netns)][usize::from(landlock_abi >= 9)].as_ref()
        }
    }

    /// The x32 ABI numbers its system calls with this bit set; seccomp sees them as x86_64.
    #[cfg(target_arch = "x86_64")]
    const X32: i64 = 0x4000_0000;

    fn build(netns: bool, block_unix: bool) -> Option<BpfProgram> {
        let arch = std::env::consts::ARCH.try_into().ok()?;
        let mut allowed = vec![libc::AF_NETLINK];
        if netns {
            allowed.extend([libc::AF_INET, libc::AF_INET6]);
        }
        if !block_unix {
            allowed.push(libc::AF_UNIX);
        }
        let family = allowed
            .iter()
            .map(|&f| cond(0, SeccompCmpOp::Ne, f as u64))
            .collect::<Option<Vec<_>>>()?;
        let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
        rules.insert(libc::SYS_socket, vec![SeccompRule::new(family).ok()?]);
        for call in [
            libc::SYS_io_uring_setup,
            libc::SYS_io_uring_enter,
            libc::SYS_io_uring_register,
        ] {
            rules.insert(call, vec![]);
        }
        if !netns {
            // Belt and braces: no internet socket can be created, but none may open a TCP
            // connection without `connect` either.
            let fast_open = |arg| {
                cond(
                    arg,
                    SeccompCmpOp::MaskedEq(libc::MSG_FASTOPEN as u64),
                    libc::MSG_FASTOPEN as u64,
                )
                .and_then(|c| SeccompRule::new(vec![c]).ok())
            };
            rules.insert(libc::SYS_sendto, vec![fast_open(3)?]);
            rules.insert(libc::SYS_sendmsg, vec![fast_open(2)?]);
            rules.insert(libc::SYS_sendmmsg, vec![fast_open(3)?]);
        }
        #[cfg(target_arch = "x86_64")]
        {
            // x32 uses the x86_64 numbers for these except sendmsg (518) and sendmmsg (538).
            let mut x32 = BTreeMap::new();
            for (&nr, rule) in &rules {
                let nr = match nr {
                    libc::SYS_sendmsg => 518,
                    libc::SYS_sendmmsg => 538,
                    nr => nr,
                };
                x32.insert(nr | X32, rule.clone());
            }
            rules.extend(x32);
        }
        let filter = SeccompFilter::new(
            rules,
            SeccompAction::Allow,
            SeccompAction::Errno(libc::EPERM as u32),
            arch,
        )
        .ok()?;
        filter.try_into().ok()
    }

    fn cond(arg: u8, op: SeccompCmpOp, value: u64) -> Option<SeccompCondition> {
        SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_child_reports_is_decoded() {
        let ns = decode(&[7, NETNS | SECCOMP | UNIX_BLOCKED], false);
        assert_eq!(ns.network, Network::Namespace);
        assert!(ns.network_confined && ns.writes_confined && ns.seccomp);
        assert_eq!(ns.unix_sockets, UnixSockets::Blocked);
        assert_eq!(ns.landlock_abi, Some(7));

        let filtered = decode(&[7, SECCOMP | UNIX_BLOCKED], false);
        assert_eq!(filtered.network, Network::Filtered);
        assert!(filtered.network_confined);

        // Landlock's TCP rules alone leave UDP and Fast Open open: not confined.
        let tcp = decode(&[7, 0], false);
        assert_eq!(tcp.network, Network::TcpOnly);
        assert!(!tcp.network_confined);
        assert_eq!(tcp.unix_sockets, UnixSockets::Open);

        let old = decode(&[3, 0], false);
        assert_eq!(old.network, Network::Open);

        // Landlock ABI 9 confines named Unix sockets itself.
        assert_eq!(
            decode(&[9, NETNS | SECCOMP], false).unix_sockets,
            UnixSockets::Confined
        );

        // Nothing written: the child never reached the report.
        let none = decode(&[], false);
        assert!(!none.writes_confined && !none.network_confined && !none.seccomp);
        assert_eq!(none.landlock_abi, None);

        let allowed = decode(&[7, 0], true);
        assert_eq!(allowed.network, Network::Allowed);
        assert_eq!(allowed.unix_sockets, UnixSockets::Allowed);
    }

    #[test]
    fn less_protection_than_asked_is_a_warning() {
        let full = Enforced::On(decode(&[7, NETNS | SECCOMP | UNIX_BLOCKED], false));
        assert_eq!(full.warning(false), None);
        let tcp = Enforced::On(decode(&[7, 0], false));
        let warning = tcp.warning(false).unwrap();
        assert!(warning.contains("UDP and TCP Fast Open"), "{warning}");
        assert!(warning.contains("docker.sock"), "{warning}");
        assert_eq!(Enforced::On(decode(&[7, 0], true)).warning(true), None);
        assert!(
            Enforced::On(decode(&[], false))
                .warning(false)
                .unwrap()
                .contains("no Landlock")
        );
        assert!(
            Enforced::Off
                .warning(false)
                .unwrap()
                .contains("the check ran without a sandbox")
        );
    }

    #[test]
    fn the_report_names_each_protection() {
        let json = serde_json::to_value(Enforced::On(decode(
            &[7, NETNS | SECCOMP | UNIX_BLOCKED],
            false,
        )))
        .unwrap();
        assert_eq!(json["network"], "namespace");
        assert_eq!(json["network_confined"], true);
        assert_eq!(json["unix_sockets"], "blocked");
        assert_eq!(json["landlock_abi"], 7);
        assert_eq!(serde_json::to_value(Enforced::Off).unwrap(), "off");
    }

    #[cfg(all(
        target_os = "linux",
        any(
            target_arch = "x86_64",
            target_arch = "aarch64",
            target_arch = "riscv64"
        )
    ))]
    #[test]
    fn a_filter_exists_for_every_situation() {
        let set = filters::Set::new(false);
        for netns in [false, true] {
            let without = set.pick(netns, 7).expect("a filter");
            assert!(without.blocks_unix);
            let with = set.pick(netns, 9).expect("a filter");
            assert!(!with.blocks_unix);
        }
        assert!(filters::Set::new(true).pick(false, 7).is_none());
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
        let Spawned {
            mut child,
            enforced,
            ..
        } = spawn(cmd, Some(&policy)).unwrap();
        assert!(child.wait().unwrap().success(), "{enforced:?}");
        assert!(
            matches!(enforced, Enforced::On(c) if c.writes_confined),
            "{enforced:?}"
        );
        assert!(dir.path().join("in").exists());
        assert!(!outside.path().join("out").exists());
        // This process was never restricted.
        std::fs::write(outside.path().join("parent"), "ok").unwrap();
        std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    }
}
