//! The processes of a run: Ctrl-C while QEMU runs, and waiting for every
//! process the guest started, not only QEMU's first.
//!
//! `emu run` makes itself a *child subreaper*, so a guest process whose
//! parent exits (a daemon, a shell's background job) becomes its child
//! rather than init's, and it waits for all of them before it reads the
//! counters: every process has then written all it will write. Ctrl-C
//! reaches the guest (same process group) and only marks `emu run`, which
//! stops waiting and keeps what was written.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_interrupt(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::Relaxed);
}

/// Signal dispositions saved by [`Guard::install`], restored on drop.
pub struct Guard {
    old_int: libc::sighandler_t,
    old_quit: libc::sighandler_t,
}

impl Guard {
    /// Catches SIGINT and SIGQUIT (a handler, not `SIG_IGN`, so programs
    /// started after this get the default back at `exec`) and makes this
    /// process a subreaper.
    pub fn install() -> Guard {
        INTERRUPTED.store(false, Ordering::Relaxed);
        let handler = on_interrupt as extern "C" fn(libc::c_int) as libc::sighandler_t;
        // SAFETY: a handler that only stores to an atomic; prctl with integers.
        unsafe {
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
            Guard {
                old_int: libc::signal(libc::SIGINT, handler),
                old_quit: libc::signal(libc::SIGQUIT, handler),
            }
        }
    }

    /// Waits until this process has no children left (reaping each), or
    /// until Ctrl-C; says so when the wait is long.
    pub fn wait_for_children(&self) {
        let start = Instant::now();
        let mut told = false;
        loop {
            let mut status = 0;
            // SAFETY: waitpid for any child, without blocking.
            let r = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
            if r > 0 {
                continue;
            }
            if r < 0 {
                return; // ECHILD: none left
            }
            if INTERRUPTED.load(Ordering::Relaxed) {
                eprintln!(
                    "tracekit: note: stopped waiting for the guest's remaining processes; their counts so far are kept"
                );
                return;
            }
            if !told && start.elapsed() > Duration::from_secs(2) {
                eprintln!(
                    "tracekit: note: QEMU has exited; waiting for the processes the guest started — Ctrl-C stops waiting"
                );
                told = true;
            }
            let pause = if start.elapsed() < Duration::from_millis(100) {
                1
            } else {
                20
            };
            std::thread::sleep(Duration::from_millis(pause));
        }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        // SAFETY: restoring the dispositions saved by `install`.
        unsafe {
            libc::signal(libc::SIGINT, self.old_int);
            libc::signal(libc::SIGQUIT, self.old_quit);
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
        }
    }
}
