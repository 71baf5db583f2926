//! Process-wide state: configuration from the environment, the image token,
//! and the `fork` hooks.

use crate::{maps, select, thread_buf};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::sync::OnceLock;

/// Set once tracing is configured and on; read by every explicit-event hook.
pub static ENABLED: AtomicBool = AtomicBool::new(false);

/// What the call hooks do, in one byte so they test it with one load:
/// 0 (off), or [`CALLS_ON`] plus [`CALLS_SELECTED`] and [`CALLS_SLOW_CLOCK`] flags.
pub static CALLS: AtomicU8 = AtomicU8::new(0);
/// Function calls are traced.
pub const CALLS_ON: u8 = 1;
/// Only selected functions are traced.
pub const CALLS_SELECTED: u8 = 2;
/// The clock is not the time-stamp counter (ask `clock::now`).
pub const CALLS_SLOW_CLOCK: u8 = 4;

static PID: AtomicU32 = AtomicU32::new(0);
static IMAGE: AtomicU64 = AtomicU64::new(0);
static CONFIG: OnceLock<Option<Config>> = OnceLock::new();
static WARNED: AtomicBool = AtomicBool::new(false);

/// What the environment asked for.
pub struct Config {
    /// `TRACEKIT_DIR`: where trace files go.
    pub dir: PathBuf,
    /// `TRACEKIT_BUFFER_MB`: capacity of one thread's file (MiB); events past
    /// it are dropped and counted.
    pub buffer_bytes: usize,
    /// `TRACEKIT_RING_DIR`: where per-thread ring buffers go when the recorder drains them.
    pub ring_dir: Option<PathBuf>,
    /// `TRACEKIT_RING_KB`: ring capacity (KiB, 64 to 1048576, rounded to a power of two).
    pub ring_bytes: usize,
    /// `TRACEKIT_OVERFLOW=wait`: wait for the recorder instead of dropping.
    pub wait: bool,
}

impl Config {
    /// [`Config::dir`] as bytes.
    pub fn dir_bytes(&self) -> &[u8] {
        use std::os::unix::ffi::OsStrExt;
        self.dir.as_os_str().as_bytes()
    }
}

/// Set once a writer waited [`DRAIN_TIMEOUT`] on a full ring without the
/// recorder taking anything: the recorder is gone or stuck, so no thread
/// waits any more (events are dropped and counted instead of the program
/// hanging on every event).
static DRAIN_STALLED: AtomicBool = AtomicBool::new(false);

/// How long a writer waits on a full ring that nobody drains.
pub const DRAIN_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Whether a full ring makes the writer wait (rather than drop and count).
pub fn wait_on_overflow() -> bool {
    config().is_some_and(|c| c.wait) && !DRAIN_STALLED.load(Ordering::Relaxed)
}

/// Records that the recorder took nothing for [`DRAIN_TIMEOUT`] while a
/// writer waited: from now on full rings drop (and count) instead of waiting.
pub fn drain_stalled() {
    if !DRAIN_STALLED.swap(true, Ordering::Relaxed) {
        eprintln!(
            "tracekit-rt: the recorder took nothing from a full ring for {} s; events are dropped and counted from now on",
            DRAIN_TIMEOUT.as_secs()
        );
    }
}

/// The configuration, reading the environment on first use.
pub fn config() -> Option<&'static Config> {
    CONFIG
        .get_or_init(|| {
            let dir = std::env::var_os("TRACEKIT_DIR")?;
            let mb = std::env::var("TRACEKIT_BUFFER_MB")
                .ok()
                .and_then(|v| v.parse::<usize>().ok())
                .unwrap_or(256);
            let ring_dir = std::env::var_os("TRACEKIT_RING_DIR").map(PathBuf::from);
            let kb = std::env::var("TRACEKIT_RING_KB")
                .ok()
                .and_then(|v| v.parse::<usize>().ok())
                .unwrap_or(8192);
            let ring_bytes = (kb.clamp(64, 1 << 20) << 10).next_power_of_two();
            let wait = std::env::var("TRACEKIT_OVERFLOW").is_ok_and(|v| v == "wait");
            Some(Config {
                dir: PathBuf::from(dir),
                buffer_bytes: mb.max(1) << 20,
                ring_dir,
                ring_bytes,
                wait,
            })
        })
        .as_ref()
}

/// The current process id (kept fresh across `fork`).
pub fn pid() -> u32 {
    PID.load(Ordering::Relaxed)
}

/// Token of this program image (distinguishes the images one pid runs across `exec`).
pub fn image() -> u64 {
    IMAGE.load(Ordering::Relaxed)
}

/// Prints one warning per process to stderr.
pub fn warn_once(msg: &str) {
    if !WARNED.swap(true, Ordering::Relaxed) {
        eprintln!("tracekit-rt: {msg}");
    }
}

/// Sets tracing up from the environment. Runs from the ELF constructor;
/// idempotent.
pub fn init() {
    static DONE: AtomicBool = AtomicBool::new(false);
    if DONE.swap(true, Ordering::SeqCst) {
        return;
    }
    let Some(cfg) = config() else { return };
    // SAFETY: getpid has no preconditions.
    PID.store(unsafe { libc::getpid() } as u32, Ordering::Relaxed);
    IMAGE.store(crate::clock::realtime_ns(), Ordering::Relaxed);
    if let Some(r) = &cfg.ring_dir {
        let _ = std::fs::create_dir_all(r);
    }
    if std::fs::create_dir_all(&cfg.dir).is_err() {
        warn_once(&format!("cannot create {}", cfg.dir.display()));
        return;
    }
    crate::clock::configure(std::env::var("TRACEKIT_CLOCK").ok().as_deref());
    select::init(std::env::var("TRACEKIT_FILTER").ok().as_deref().unwrap_or(""));
    crate::wrap::init();
    maps::snapshot();
    save_clock_pair();
    // SAFETY: registering a plain extern "C" handler.
    unsafe { libc::pthread_atfork(Some(before_fork), Some(after_fork_in_parent), Some(after_fork_in_child)) };
    ENABLED.store(true, Ordering::Release);
    let mut calls = CALLS_ON;
    if select::FILTERING.load(Ordering::Relaxed) {
        calls |= CALLS_SELECTED;
    }
    if crate::clock::kind() != tracekit_rt_format::CLOCK_TSC {
        calls |= CALLS_SLOW_CLOCK;
    }
    CALLS.store(calls, Ordering::Release);
}

static FORKING_TID: AtomicU32 = AtomicU32::new(0);
static FORK_STAMP: AtomicU64 = AtomicU64::new(0);
static FORKING_PID: AtomicU32 = AtomicU32::new(0);

/// The parent process and thread that forked this process and the stamp of
/// its `Fork` event (zeros when none), consumed by the first trace file the
/// child creates. (The parent pid is kept from before the fork: `getppid`
/// no longer names it once the parent has exited, as after `daemon`.)
pub fn take_forked_from() -> (u32, u32, u64) {
    (
        FORKING_PID.swap(0, Ordering::Relaxed),
        FORKING_TID.swap(0, Ordering::Relaxed),
        FORK_STAMP.swap(0, Ordering::Relaxed),
    )
}

extern "C" fn before_fork() {
    // The forking thread notes where in its call stack the child starts;
    // the child's first thread file names this event by its stamp.
    let stamp = crate::clock::now();
    crate::record_fork(stamp);
    // SAFETY: gettid has no preconditions.
    FORKING_TID.store(unsafe { libc::syscall(libc::SYS_gettid) } as u32, Ordering::Relaxed);
    FORK_STAMP.store(stamp, Ordering::Relaxed);
    FORKING_PID.store(pid(), Ordering::Relaxed);
    // Last: no allocation may happen between this and the fork.
    crate::alloc::lock_for_fork();
}

extern "C" fn after_fork_in_parent() {
    crate::alloc::unlock_after_fork();
    FORKING_TID.store(0, Ordering::Relaxed);
    FORK_STAMP.store(0, Ordering::Relaxed);
    FORKING_PID.store(0, Ordering::Relaxed);
}

extern "C" fn after_fork_in_child() {
    crate::alloc::unlock_after_fork();
    maps::reset_after_fork();
    // SAFETY: getpid has no preconditions.
    PID.store(unsafe { libc::getpid() } as u32, Ordering::Relaxed);
    thread_buf::reset_after_fork();
    maps::snapshot();
}

/// Appends a (raw clock, monotonic ns) pair to `clock-<pid>-<image>.txt`,
/// so a directory written without the recorder can still convert ticks.
pub fn save_clock_pair() {
    use std::io::Write;
    let Some(cfg) = config() else { return };
    let path = cfg.dir.join(tracekit_rt_format::names::clock_file_name(pid(), image()));
    let line = format!("{} {}\n", crate::clock::now(), crate::clock::monotonic_ns());
    if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
        let _ = f.write_all(line.as_bytes());
    }
}

#[used]
#[link_section = ".init_array"]
static CONSTRUCTOR: extern "C" fn() = {
    extern "C" fn ctor() {
        init();
    }
    ctor
};

#[used]
#[link_section = ".fini_array"]
static DESTRUCTOR: extern "C" fn() = {
    extern "C" fn dtor() {
        if ENABLED.load(Ordering::Relaxed) {
            maps::snapshot();
            save_clock_pair();
        }
    }
    dtor
};
