//! Ctrl-C (and SIGTERM, SIGHUP) during a check: noted, so the check's whole group is killed
//! and the apply stops; without this papayu would die and leave the check running in its own
//! process group, which the terminal's Ctrl-C never reaches.

use std::sync::atomic::{AtomicBool, Ordering};

static HIT: AtomicBool = AtomicBool::new(false);

#[cfg(unix)]
const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

#[cfg(unix)]
extern "C" fn on_signal(_: libc::c_int) {
    HIT.store(true, Ordering::SeqCst);
}

/// The handlers in force while a check runs; the previous ones come back on drop.
pub struct Watch {
    #[cfg(unix)]
    previous: Vec<(libc::c_int, libc::sigaction)>,
}

impl Watch {
    pub fn install() -> Watch {
        HIT.store(false, Ordering::SeqCst);
        #[cfg(unix)]
        {
            let mut previous = Vec::new();
            for signal in SIGNALS {
                // SAFETY: sigaction with a zeroed, then filled, struct; the handler only
                // stores to an atomic, which is async-signal-safe.
                unsafe {
                    let mut action: libc::sigaction = std::mem::zeroed();
                    action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
                    action.sa_flags = libc::SA_RESTART;
                    libc::sigemptyset(&mut action.sa_mask);
                    let mut old: libc::sigaction = std::mem::zeroed();
                    if libc::sigaction(signal, &action, &mut old) == 0 {
                        previous.push((signal, old));
                    }
                }
            }
            Watch { previous }
        }
        #[cfg(not(unix))]
        Watch {}
    }

    pub fn hit(&self) -> bool {
        HIT.load(Ordering::SeqCst)
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        #[cfg(unix)]
        for (signal, old) in &self.previous {
            // SAFETY: restores the action sigaction returned for this signal.
            unsafe {
                libc::sigaction(*signal, old, std::ptr::null_mut());
            }
        }
    }
}
