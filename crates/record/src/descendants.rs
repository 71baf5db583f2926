//! Waiting for every process the traced program started.
//!
//! `record` makes itself a *child subreaper* (`PR_SET_CHILD_SUBREAPER`):
//! when a descendant's parent exits — `daemon()`'s parent, a shell run by
//! `system()` — the descendant becomes our child instead of init's. Once
//! the program itself has ended, `record` waits until no process that ran
//! the runtime is alive among its descendants (each announces itself with
//! its maps file before its first event; a child adopted before it could
//! is known by the `TRACEKIT_DIR` it inherited); every traced process has
//! then written all it will write. Ctrl-C stops the wait early (what was written
//! is kept).

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tracekit_rt_format::names::{self, RecordingFile};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_interrupt(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::Relaxed);
}

/// Makes orphaned descendants our children (Linux; elsewhere a no-op).
pub fn become_subreaper() {
    // SAFETY: prctl with integer arguments.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
}

/// `(state, ppid)` of a process from `/proc/<pid>/stat`.
fn stat_of(pid: u32) -> Option<(char, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid …`: comm may hold spaces and parentheses.
    let (_, rest) = stat.rsplit_once(')')?;
    let mut f = rest.split_whitespace();
    let state = f.next()?.chars().next()?;
    let ppid = f.next()?.parse().ok()?;
    Some((state, ppid))
}

/// Whether `pid` is a live descendant of ours (reaping it when it is a
/// child of ours that has ended).
fn live_descendant(pid: u32) -> bool {
    let mut st = 0;
    // SAFETY: waitpid on a pid; ECHILD when it is not our child.
    match unsafe { libc::waitpid(pid as libc::pid_t, &mut st, libc::WNOHANG) } {
        0 => return true,                             // our child, still running
        r if r == pid as libc::pid_t => return false, // our child, just reaped
        _ => {}
    }
    // Not our child: a descendant still has a living parent between it and
    // us. Walk up its ancestors.
    let me = std::process::id();
    let mut p = pid;
    for _ in 0..64 {
        match stat_of(p) {
            Some(('Z', _)) | Some(('X', _)) | None => return false,
            Some((_, ppid)) if ppid == me => return true,
            Some((_, ppid)) if ppid <= 1 => return false,
            Some((_, ppid)) => p = ppid,
        }
    }
    false
}

/// The processes that ran the runtime: each writes a maps file
/// (`maps-<pid>-<image>.txt`) as it starts (after `fork` too), before
/// any event, so every traced process is known by its files.
fn traced_pids(out: &Path) -> Vec<u32> {
    let mut pids: Vec<u32> = std::fs::read_dir(out)
        .map(|d| {
            d.flatten()
                .filter_map(|e| match names::parse(&e.file_name().to_string_lossy()) {
                    Some(RecordingFile::Maps { pid, .. }) => Some(pid),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    pids.sort_unstable();
    pids.dedup();
    pids
}

/// Our own children (orphans adopted as subreaper included) whose
/// environment names this recording. A traced process is known by its maps
/// file only once it has run; a daemon's child that was not yet scheduled
/// when its parent exited has none yet, but it is already our child, and
/// it inherited `TRACEKIT_DIR`.
fn children_recording_into(out: &Path) -> Vec<u32> {
    use std::os::unix::ffi::OsStrExt;
    let me = std::process::id();
    let mut pids: Vec<u32> = Vec::new();
    if let Ok(tasks) = std::fs::read_dir(format!("/proc/{me}/task")) {
        for t in tasks.flatten() {
            if let Ok(text) = std::fs::read_to_string(t.path().join("children")) {
                pids.extend(text.split_whitespace().filter_map(|p| p.parse::<u32>().ok()));
            }
        }
    }
    let mut want = b"TRACEKIT_DIR=".to_vec();
    want.extend_from_slice(out.as_os_str().as_bytes());
    pids.retain(|p| {
        std::fs::read(format!("/proc/{p}/environ"))
            .is_ok_and(|env| env.split(|&b| b == 0).any(|v| v == want.as_slice()))
    });
    pids
}

/// Waits until no process that ran the runtime (found by its files in
/// `out`) is alive among our descendants, reaping each that ends. (The
/// context sampler, our other child, is not waited for here.)
pub fn wait_for_descendants(out: &Path) {
    INTERRUPTED.store(false, Ordering::Relaxed);
    let handler = on_interrupt as extern "C" fn(libc::c_int) as libc::sighandler_t;
    // SAFETY: installing a handler that only stores to an atomic.
    let old = unsafe { libc::signal(libc::SIGINT, handler) };
    let start = Instant::now();
    let mut told = false;
    loop {
        let mut candidates = traced_pids(out);
        candidates.extend(children_recording_into(out));
        candidates.sort_unstable();
        candidates.dedup();
        let live: Vec<u32> = candidates.into_iter().filter(|&p| live_descendant(p)).collect();
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
