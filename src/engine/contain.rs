//! Keeping every process of a check inside the check, so that nothing it started outlives it.
//!
//! A check's process group is not enough: a process that calls `setsid` (or double-forks into a
//! new session) leaves the group, and would go on running — rewriting test files while the next
//! check, or the base run, runs in the same worktree. So on Linux each check gets a **PID
//! namespace** of its own (inside a user namespace, so no privilege is needed): the check's shell
//! is process 1 there, and when it exits — or is killed by a time limit, a Ctrl-C or papayu's
//! death — the kernel kills every process left in the namespace, whatever session or group it
//! moved to. Nothing can leave a PID namespace.
//!
//! `unshare(CLONE_NEWPID)` places only the caller's *children* in the new namespace, so the
//! child papayu forks for the check forks once more: the first process stays outside, waits for
//! the second (the namespace's process 1, which goes on to `exec` the check) and exits with its
//! status. The network namespace of the sandbox is made in the same step (one user namespace
//! for both), and Landlock and seccomp, set up later in the same child, still apply to it.
//!
//! Where the kernel refuses user namespaces, the check is marked with a token in its
//! environment, papayu becomes a *child subreaper* (orphans of its descendants become its
//! children instead of init's), and after the check [`sweep`] kills every orphan carrying the
//! token. That fallback is weaker — a process that rewrites its own environment escapes it —
//! and the check's report says which one was in force.
//!
//! Everything the forked child runs here is a system call: it runs between `fork` and `exec`.

use std::process::Command;

/// The environment variable marking a check's processes for [`sweep`].
pub const TOKEN_VAR: &str = "PAPAYU_CHECK_RUN";

/// What the kernel gave the check.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Contained {
    /// The check ran in a PID namespace of its own: nothing of it survived its end.
    pub pid_namespace: bool,
}

/// Sets `cmd` up to enter a user and PID namespace (and a network namespace when `netns`)
/// before anything else it does in the child. Returns the reader of the child's one-byte report.
#[cfg(target_os = "linux")]
pub fn register(cmd: &mut Command, netns: bool) -> std::io::Result<Report> {
    use std::os::fd::AsRawFd;
    use std::os::unix::process::CommandExt;
    let ids = namespace::IdMaps::current();
    let (reader, writer) = std::io::pipe()?;
    let fd = writer.as_raw_fd();
    // The writer must live until the command is dropped: it is moved into the closure.
    let writer = std::sync::Mutex::new(Some(writer));
    // SAFETY: the closure runs in the forked child before exec and makes only system calls
    // (unshare, open/write/close on /proc, ioctl, fork, waitpid, prctl, close_range, _exit);
    // the id maps' text was built before the fork. The mutex is never locked in the child.
    unsafe {
        cmd.pre_exec(move || {
            let _ = &writer;
            let flags = namespace::enter(&ids, netns);
            if flags & PIDNS != 0 {
                namespace::fork_init();
            }
            if flags & NETNS != 0 {
                namespace::set_netns_entered();
            }
            libc::write(fd, [flags].as_ptr().cast(), 1);
            libc::close(fd);
            Ok(())
        });
    }
    Ok(Report {
        reader: Some(reader),
    })
}

#[cfg(not(target_os = "linux"))]
pub fn register(_cmd: &mut Command, _netns: bool) -> std::io::Result<Report> {
    Ok(Report {})
}

/// `true` in a forked child whose [`register`] step entered a network namespace.
pub fn netns_entered() -> bool {
    #[cfg(target_os = "linux")]
    return namespace::netns_entered();
    #[cfg(not(target_os = "linux"))]
    false
}

const PIDNS: u8 = 1;
const NETNS: u8 = 2;

/// The child's report of what it entered.
pub struct Report {
    #[cfg(target_os = "linux")]
    reader: Option<std::io::PipeReader>,
}

impl Report {
    /// What was entered. Call after `spawn` returned and the command was dropped.
    pub fn contained(self) -> Contained {
        #[cfg(target_os = "linux")]
        if let Some(mut reader) = self.reader {
            use std::io::Read;
            let mut byte = [0u8; 1];
            if reader.read_exact(&mut byte).is_ok() {
                return Contained {
                    pid_namespace: byte[0] & PIDNS != 0,
                };
            }
        }
        Contained::default()
    }
}

/// Makes papayu the reaper of its descendants' orphans, for [`sweep`]. Harmless when repeated.
pub fn become_subreaper() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with integer arguments on the calling process.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

/// Kills, and reaps, every orphan reparented to papayu whose environment carries `token` in
/// [`TOKEN_VAR`]: what a check left behind when it had no PID namespace. Repeats until a pass
/// finds none, since killing a process orphans its own children. Returns how many were killed.
pub fn sweep(token: &str) -> usize {
    #[cfg(target_os = "linux")]
    {
        let me = std::process::id();
        let mark = format!("{TOKEN_VAR}={token}").into_bytes();
        let mut killed = 0;
        for _ in 0..64 {
            let found = orphans_marked(me, &mark);
            if found.is_empty() {
                break;
            }
            for pid in found {
                // SAFETY: kill and waitpid on a process that is papayu's child.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                    libc::waitpid(pid, std::ptr::null_mut(), 0);
                }
                killed += 1;
            }
        }
        killed
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = token;
        0
    }
}

/// The children of `parent` whose initial environment holds `mark`.
#[cfg(target_os = "linux")]
fn orphans_marked(parent: u32, mark: &[u8]) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // The command name is in parentheses and may hold spaces: fields follow the last ')'.
            let ppid = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .and_then(|p| p.parse::<u32>().ok());
            ppid == Some(parent)
                && std::fs::read(format!("/proc/{pid}/environ"))
                    .is_ok_and(|env| env.split(|&b| b == 0).any(|v| v == mark))
        })
        .collect()
}

#[cfg(target_os = "linux")]
mod namespace {
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::{NETNS, PIDNS};

    /// Set in the forked child when it entered a network namespace; read by the sandbox's own
    /// step in the same child.
    static NETNS_ENTERED: AtomicBool = AtomicBool::new(false);

    pub fn set_netns_entered() {
        NETNS_ENTERED.store(true, Ordering::SeqCst);
    }

    pub fn netns_entered() -> bool {
        NETNS_ENTERED.load(Ordering::SeqCst)
    }

    /// The text written to `/proc/self/{uid,gid}_map`: the user keeps its own ids inside, so
    /// files keep their owners and nothing gains a privilege outside.
    pub struct IdMaps {
        uid: Vec<u8>,
        gid: Vec<u8>,
    }

    impl IdMaps {
        pub fn current() -> IdMaps {
            // SAFETY: getuid and getgid cannot fail.
            let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
            IdMaps {
                uid: format!("{uid} {uid} 1\n").into_bytes(),
                gid: format!("{gid} {gid} 1\n").into_bytes(),
            }
        }
    }

    /// Moves the calling (forked, single-threaded) process into a new user namespace with a new
    /// PID namespace for its children and, when `netns`, a network namespace with its loopback
    /// up. Tries the network namespace alone when the PID one is refused. Returns the
    /// [`PIDNS`]/[`NETNS`] bits of what was entered.
    pub fn enter(ids: &IdMaps, netns: bool) -> u8 {
        let net = if netns { libc::CLONE_NEWNET } else { 0 };
        let tries = [
            (
                libc::CLONE_NEWPID | net,
                PIDNS | if netns { NETNS } else { 0 },
            ),
            (net, NETNS),
        ];
        for (extra, bits) in tries {
            if extra == 0 {
                continue;
            }
            // SAFETY: plain system calls on the calling process.
            if unsafe { libc::unshare(libc::CLONE_NEWUSER | extra) } == 0 {
                // SAFETY: writes to this process's own /proc files.
                unsafe {
                    // Without the maps the process runs as the overflow id; still confined, so
                    // a failure here is not fatal.
                    write_proc(c"/proc/self/setgroups", b"deny");
                    write_proc(c"/proc/self/uid_map", &ids.uid);
                    write_proc(c"/proc/self/gid_map", &ids.gid);
                    if netns {
                        loopback_up();
                    }
                }
                return bits;
            }
        }
        0
    }

    /// Forks the namespace's process 1, which returns to go on towards `exec`. The first
    /// process never returns: it closes every descriptor (the output pipe, the slot's lock, the
    /// reports), waits for process 1 and exits with its status — 128 plus the signal when it
    /// was killed, as shells report it.
    pub fn fork_init() {
        // SAFETY: fork, then in the parent only async-signal-safe calls until _exit.
        unsafe {
            let parent = libc::getppid();
            let pid = libc::fork();
            if pid <= 0 {
                // Process 1 (or no fork at all: the check then runs unconfined by a PID
                // namespace, and the sweep and the group kill are what is left).
                return;
            }
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
            if libc::getppid() != parent {
                libc::kill(pid, libc::SIGKILL);
                libc::_exit(137);
            }
            if libc::syscall(libc::SYS_close_range, 0u32, u32::MAX, 0u32) != 0 {
                for fd in 0..4096 {
                    libc::close(fd);
                }
            }
            let mut status = 0;
            loop {
                let r = libc::waitpid(pid, &mut status, 0);
                if r == pid {
                    break;
                }
                if r < 0 && *libc::__errno_location() != libc::EINTR {
                    libc::_exit(127);
                }
            }
            let code = if libc::WIFEXITED(status) {
                libc::WEXITSTATUS(status)
            } else {
                128 + libc::WTERMSIG(status)
            };
            libc::_exit(code);
        }
    }

    unsafe fn write_proc(path: &std::ffi::CStr, text: &[u8]) {
        // SAFETY: open/write/close on a path and a buffer that outlive the calls.
        unsafe {
            let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
            if fd >= 0 {
                libc::write(fd, text.as_ptr().cast(), text.len());
                libc::close(fd);
            }
        }
    }

    /// A new network namespace's loopback starts down; a test server on 127.0.0.1 needs it up.
    unsafe fn loopback_up() {
        // SAFETY: ifreq is plain data; the ioctls read and write it in place.
        unsafe {
            let fd = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
            if fd < 0 {
                return;
            }
            let mut req: libc::ifreq = std::mem::zeroed();
            for (dst, src) in req.ifr_name.iter_mut().zip(b"lo\0") {
                *dst = *src as libc::c_char;
            }
            if libc::ioctl(fd, libc::SIOCGIFFLAGS as _, &mut req) == 0 {
                req.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
                libc::ioctl(fd, libc::SIOCSIFFLAGS as _, &mut req);
            }
            libc::close(fd);
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// A process that leaves the check's session is still killed when the check ends.
    #[test]
    fn a_process_that_calls_setsid_dies_with_the_check() {
        let dir = tempfile::tempdir().unwrap();
        let late = dir.path().join("late");
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(format!(
            "setsid sh -c 'sleep 1; echo escaped > \"{}\"' </dev/null >/dev/null 2>&1 & exit 3",
            late.display()
        ));
        let report = register(&mut cmd, false).unwrap();
        let mut child = cmd.spawn().unwrap();
        drop(cmd);
        let contained = report.contained();
        let status = child.wait().unwrap();
        assert_eq!(
            status.code(),
            Some(3),
            "the check's own status comes through"
        );
        assert!(
            contained.pid_namespace || std::env::var_os("PAPAYU_TEST_REQUIRE_TOOLS").is_none(),
            "this machine refused the check a PID namespace"
        );
        if !contained.pid_namespace {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(1500));
        assert!(!late.exists(), "a process outlived its check");
    }

    /// Without a namespace, the orphans marked with the check's token are swept.
    #[test]
    fn the_sweep_kills_marked_orphans() {
        let dir = tempfile::tempdir().unwrap();
        let late = dir.path().join("late");
        become_subreaper();
        let token = "sweep-test-token";
        let mut cmd = Command::new("sh");
        cmd.env(TOKEN_VAR, token).arg("-c").arg(format!(
            "setsid sh -c 'sleep 1; echo escaped > \"{}\"' </dev/null >/dev/null 2>&1 & exit 0",
            late.display()
        ));
        assert!(cmd.status().unwrap().success());
        // The escaped shell is reparented to this process once its parent has exited.
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert!(sweep(token) >= 1, "no marked orphan was found");
        std::thread::sleep(std::time::Duration::from_millis(1300));
        assert!(!late.exists(), "a swept process still ran");
    }
}
