//! Waiting for every process the traced program started.
//!
//! `record` makes itself a *child subreaper* (`PR_SET_CHILD_SUBREAPER`):
//! when a descendant's parent exits — `daemon()`'s parent, a shell run by
//! `system()` — the descendant becomes our child instead of init's. Once
//! the program itself has ended, `record` waits until it has no child left
//! but the context sampler; every traced process has then written all it
//! will write. Ctrl-C stops the wait early (what was written is kept).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_interrupt(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::Relaxed);
}

/// Makes orphaned descendants our children (Linux; elsewhere a no-op).
pub fn become_subreaper() {
    // SAFETY: prctl with integer arguments.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
}

/// Our live children (zombies included), except `exclude`, from `/proc`.
fn children(exclude: u32) -> Vec<u32> {
    let me = std::process::id();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in dir.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        if pid == exclude || pid == me {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`: comm may hold spaces and parentheses.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        if ppid == Some(me) {
            out.push(pid);
        }
    }
    out
}

/// Waits until no child but `sampler` is left, reaping each as it ends.
pub fn wait_for_descendants(sampler: u32) {
    INTERRUPTED.store(false, Ordering::Relaxed);
    let handler = on_interrupt as extern "C" fn(libc::c_int) as libc::sighandler_t;
    // SAFETY: installing a handler that only stores to an atomic.
    let old = unsafe { libc::signal(libc::SIGINT, handler) };
    let start = Instant::now();
    let mut told = false;
    loop {
        let live = children(sampler);
        for &pid in &live {
            let mut st = 0;
            // SAFETY: reaping a child of ours.
            unsafe { libc::waitpid(pid as libc::pid_t, &mut st, libc::WNOHANG) };
        }
        let live = children(sampler);
        if live.is_empty() {
            break;
        }
        if INTERRUPTED.load(Ordering::Relaxed) {
            eprintln!(
                "tracekit: note: stopped waiting for {} traced process(es); their events so far are kept",
                live.len()
            );
            break;
        }
        if !told && start.elapsed() > Duration::from_secs(2) {
            let pids: Vec<String> = live.iter().map(u32::to_string).collect();
            eprintln!(
                "tracekit: note: the program has ended; waiting for the processes it started (pid {}) — Ctrl-C stops waiting",
                pids.join(", ")
            );
            told = true;
        }
        std::thread::sleep(Duration::from_millis(if start.elapsed() < Duration::from_millis(100) {
            2
        } else {
            20
        }));
    }
    // SAFETY: restoring the previous disposition.
    unsafe { libc::signal(libc::SIGINT, old) };
}
