//! Process-wide state: configuration from the environment, the image token,
//! the process map copies, and the `fork`/`dlopen` hooks.

use crate::{select, thread_buf};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::sync::{Mutex, OnceLock};

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
static MAPS_LOCK: Mutex<()> = Mutex::new(());

/// What the environment asked for.
pub struct Config {
    /// `TRACEKIT_DIR`: where trace files go.
    pub dir: PathBuf,
    /// `TRACEKIT_BUFFER_MB`: capacity of one thread's file (MiB); events past
    /// it are dropped and counted.
    pub buffer_bytes: usize,
    /// `TRACEKIT_RING_DIR`: where per-thread ring buffers go when the recorder drains them.
    pub ring_dir: Option<PathBuf>,
    /// `TRACEKIT_RING_KB`: ring capacity (KiB, rounded to a power of two).
    pub ring_bytes: usize,
    /// `TRACEKIT_OVERFLOW=wait`: wait for the recorder instead of dropping.
    pub wait: bool,
}

/// Whether a full ring makes the writer wait (rather than drop and count).
pub fn wait_on_overflow() -> bool {
    config().is_some_and(|c| c.wait)
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
            let ring_bytes = (kb.max(64) << 10).next_power_of_two();
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
    save_maps();
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

/// The parent thread that forked this process (0 when none), consumed by the
/// first trace file the child creates.
pub fn take_forked_from() -> u32 {
    FORKING_TID.swap(0, Ordering::Relaxed)
}

extern "C" fn before_fork() {
    // SAFETY: gettid has no preconditions.
    FORKING_TID.store(unsafe { libc::syscall(libc::SYS_gettid) } as u32, Ordering::Relaxed);
}

extern "C" fn after_fork_in_parent() {
    clear_forking();
}

extern "C" fn after_fork_in_child() {
    // SAFETY: getpid has no preconditions.
    PID.store(unsafe { libc::getpid() } as u32, Ordering::Relaxed);
    thread_buf::reset_after_fork();
    save_maps();
}

/// In the parent, forget the forking thread again.
fn clear_forking() {
    FORKING_TID.store(0, Ordering::Relaxed);
}

/// Copies `/proc/self/maps` into the recording directory (atomically
/// replacing the previous copy), so addresses can be symbolized offline.
pub fn save_maps() {
    let Some(cfg) = config() else { return };
    let _g = MAPS_LOCK.lock();
    let Ok(maps) = std::fs::read("/proc/self/maps") else {
        return;
    };
    let name = tracekit_rt_format::maps_file_name(pid(), image());
    let tmp = cfg.dir.join(format!(".{name}.tmp"));
    if std::fs::write(&tmp, maps).is_ok() {
        let _ = std::fs::rename(&tmp, cfg.dir.join(name));
    }
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
            save_maps();
            save_clock_pair();
        }
    }
    dtor
};

type DlopenFn = unsafe extern "C" fn(*const libc::c_char, libc::c_int) -> *mut libc::c_void;

/// `dlopen` wrapper: calls the real one, then saves the new process map so
/// functions of the loaded library can be symbolized.
///
/// # Safety
/// Same contract as `dlopen(3)`.
#[no_mangle]
pub unsafe extern "C" fn dlopen(file: *const libc::c_char, flags: libc::c_int) -> *mut libc::c_void {
    static REAL: OnceLock<usize> = OnceLock::new();
    let real = *REAL.get_or_init(|| libc::dlsym(libc::RTLD_NEXT, c"dlopen".as_ptr()) as usize);
    if real == 0 {
        return std::ptr::null_mut();
    }
    let f: DlopenFn = std::mem::transmute(real);
    let h = f(file, flags);
    if ENABLED.load(Ordering::Relaxed) && !h.is_null() {
        save_maps();
    }
    h
}

type LongjmpFn = unsafe extern "C" fn(*mut libc::c_void, libc::c_int) -> !;

fn real_longjmp(name: &std::ffi::CStr, slot: &OnceLock<usize>) -> Option<LongjmpFn> {
    let f = *slot.get_or_init(|| unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr()) } as usize);
    // SAFETY: the symbol, when found, has the longjmp signature.
    (f != 0).then(|| unsafe { std::mem::transmute::<usize, LongjmpFn>(f) })
}

macro_rules! longjmp_wrapper {
    ($name:ident, $cname:literal) => {
        /// Wrapper that records a `Longjmp` event (so the frames it abandons
        /// can be closed offline) and then jumps.
        ///
        /// # Safety
        /// Same contract as the C library function of the same name.
        #[no_mangle]
        pub unsafe extern "C" fn $name(env: *mut libc::c_void, val: libc::c_int) -> ! {
            static REAL: OnceLock<usize> = OnceLock::new();
            crate::record_longjmp();
            match real_longjmp($cname, &REAL) {
                Some(f) => f(env, val),
                None => libc::abort(),
            }
        }
    };
}

longjmp_wrapper!(longjmp, c"longjmp");
longjmp_wrapper!(_longjmp, c"_longjmp");
longjmp_wrapper!(siglongjmp, c"siglongjmp");
longjmp_wrapper!(__longjmp_chk, c"__longjmp_chk");
