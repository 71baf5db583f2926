//! Wrappers of C library functions that change what the recording must
//! know: `dlopen`/`dlclose` (the process map changes: snapshot it), and the
//! functions that start a program with an environment of the caller's
//! choosing (`execve`, `execvpe`, `fexecve`, `posix_spawn`, `posix_spawnp`).
//!
//! A child started with a replaced environment would run without
//! `LD_PRELOAD` and `TRACEKIT_*`, and so untraced. The wrappers pass the
//! environment on with the runtime's own variables added (and the runtime
//! put first in `LD_PRELOAD`), so children are traced however they are
//! started. `fork`, `vfork`, `system`, `popen` and the `exec*` forms that
//! keep `environ` need nothing: the child inherits the environment.
//!
//! Each wrapper finds the real function with `dlsym(RTLD_NEXT, …)`. The
//! environment is merged on the stack (no allocation), since `execve` may
//! run in a `vfork` child that shares its parent's memory.

use crate::maps;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// The variables a traced child needs (besides `LD_PRELOAD`).
const KEYS: [&str; 7] = [
    "TRACEKIT_DIR",
    "TRACEKIT_RING_DIR",
    "TRACEKIT_RING_KB",
    "TRACEKIT_OVERFLOW",
    "TRACEKIT_FILTER",
    "TRACEKIT_CLOCK",
    "TRACEKIT_BUFFER_MB",
];

struct Inherit {
    /// `KEY=VALUE\0` of each variable set in this process.
    vars: Vec<Vec<u8>>,
    /// The runtime library's path.
    library: Vec<u8>,
}

static INHERIT: OnceLock<Inherit> = OnceLock::new();

/// Reads what children must inherit (from the constructor).
pub fn init() {
    INHERIT.get_or_init(|| {
        let mut vars = Vec::new();
        for k in KEYS {
            if let Some(v) = std::env::var_os(k) {
                use std::os::unix::ffi::OsStrExt;
                let mut e = Vec::with_capacity(k.len() + v.len() + 2);
                e.extend_from_slice(k.as_bytes());
                e.push(b'=');
                e.extend_from_slice(v.as_bytes());
                e.push(0);
                vars.push(e);
            }
        }
        let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
        // SAFETY: dladdr only reads the loader's tables.
        let found = unsafe { libc::dladdr(init as *const c_void, &mut info) } != 0 && !info.dli_fname.is_null();
        let library = if found {
            // SAFETY: dladdr returned a NUL-terminated path.
            unsafe { CStr::from_ptr(info.dli_fname) }.to_bytes().to_vec()
        } else {
            Vec::new()
        };
        Inherit { vars, library }
    });
}

/// The real function `name`, looked up once into `slot`.
fn real(name: &CStr, slot: &AtomicUsize) -> usize {
    let f = slot.load(Ordering::Relaxed);
    if f != 0 {
        return f;
    }
    // SAFETY: dlsym with a NUL-terminated name.
    let f = unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr()) } as usize;
    slot.store(f, Ordering::Relaxed);
    f
}

fn starts_with_key(entry: &[u8], key: &[u8]) -> bool {
    entry.len() > key.len() && entry.starts_with(key) && entry[key.len()] == b'='
}

const MAX_ENV: usize = 1024;

/// Calls `f` with `envp` plus the runtime's variables. Without tracing, or
/// when `envp` is null or too long to merge on the stack, `f` gets `envp`.
fn with_traced_env<R>(envp: *const *const c_char, f: impl FnOnce(*const *const c_char) -> R) -> R {
    let Some(inh) = INHERIT.get() else { return f(envp) };
    if envp.is_null() || !crate::process::ENABLED.load(Ordering::Relaxed) || inh.library.is_empty() {
        return f(envp);
    }
    let mut out = [std::ptr::null::<c_char>(); MAX_ENV + KEYS.len() + 2];
    let mut n = 0;
    let mut preload = [0u8; 4096];
    let mut have = [false; KEYS.len()];
    let mut had_preload = false;
    let mut i = 0;
    loop {
        // SAFETY: envp is a NULL-terminated array of C strings (exec contract).
        let e = unsafe { *envp.add(i) };
        if e.is_null() {
            break;
        }
        i += 1;
        if n == MAX_ENV {
            return f(envp);
        }
        // SAFETY: each entry is NUL-terminated.
        let bytes = unsafe { CStr::from_ptr(e) }.to_bytes();
        if starts_with_key(bytes, b"LD_PRELOAD") {
            had_preload = true;
            let value = &bytes[b"LD_PRELOAD=".len()..];
            let ours = value.windows(inh.library.len()).any(|w| w == inh.library.as_slice());
            let len = b"LD_PRELOAD=".len() + inh.library.len() + 1 + value.len();
            if !ours && len < preload.len() {
                let mut p = 0;
                for part in [b"LD_PRELOAD=".as_slice(), &inh.library, b":", value] {
                    preload[p..p + part.len()].copy_from_slice(part);
                    p += part.len();
                }
                preload[p] = 0;
                out[n] = preload.as_ptr() as *const c_char;
                n += 1;
                continue;
            }
        }
        for (k, seen) in KEYS.iter().zip(have.iter_mut()) {
            if starts_with_key(bytes, k.as_bytes()) {
                *seen = true;
            }
        }
        out[n] = e;
        n += 1;
    }
    if !had_preload {
        let len = b"LD_PRELOAD=".len() + inh.library.len();
        if len < preload.len() {
            preload[..11].copy_from_slice(b"LD_PRELOAD=");
            preload[11..len].copy_from_slice(&inh.library);
            preload[len] = 0;
            out[n] = preload.as_ptr() as *const c_char;
            n += 1;
        }
    }
    for v in &inh.vars {
        let key = v.split(|&c| c == b'=').next().unwrap_or(b"");
        let idx = KEYS.iter().position(|k| k.as_bytes() == key);
        if idx.is_some_and(|i| !have[i]) {
            out[n] = v.as_ptr() as *const c_char;
            n += 1;
        }
    }
    out[n] = std::ptr::null();
    f(out.as_ptr())
}

type DlopenFn = unsafe extern "C" fn(*const c_char, c_int) -> *mut c_void;
type DlcloseFn = unsafe extern "C" fn(*mut c_void) -> c_int;
type ExecveFn = unsafe extern "C" fn(*const c_char, *const *const c_char, *const *const c_char) -> c_int;
type FexecveFn = unsafe extern "C" fn(c_int, *const *const c_char, *const *const c_char) -> c_int;
type SpawnFn = unsafe extern "C" fn(
    *mut libc::pid_t,
    *const c_char,
    *const c_void,
    *const c_void,
    *const *const c_char,
    *const *const c_char,
) -> c_int;

fn enabled() -> bool {
    crate::process::ENABLED.load(Ordering::Relaxed)
}

/// `dlopen` wrapper: calls the real one, then snapshots the process map so
/// functions of the loaded library can be symbolized.
///
/// # Safety
/// Same contract as `dlopen(3)`.
#[no_mangle]
pub unsafe extern "C" fn dlopen(file: *const c_char, flags: c_int) -> *mut c_void {
    static REAL: AtomicUsize = AtomicUsize::new(0);
    let f = real(c"dlopen", &REAL);
    if f == 0 {
        return std::ptr::null_mut();
    }
    let h = std::mem::transmute::<usize, DlopenFn>(f)(file, flags);
    if enabled() && !h.is_null() {
        maps::snapshot();
    }
    h
}

/// `dlclose` wrapper: snapshots the process map before the library may be
/// unmapped (its destructors still run after) and again afterwards.
///
/// # Safety
/// Same contract as `dlclose(3)`.
#[no_mangle]
pub unsafe extern "C" fn dlclose(handle: *mut c_void) -> c_int {
    static REAL: AtomicUsize = AtomicUsize::new(0);
    let f = real(c"dlclose", &REAL);
    if f == 0 {
        return -1;
    }
    if enabled() {
        maps::snapshot();
    }
    let r = std::mem::transmute::<usize, DlcloseFn>(f)(handle);
    if enabled() {
        maps::snapshot();
    }
    r
}

/// `execve` wrapper: the new program inherits the runtime's variables.
///
/// # Safety
/// Same contract as `execve(2)`.
#[no_mangle]
pub unsafe extern "C" fn execve(path: *const c_char, argv: *const *const c_char, envp: *const *const c_char) -> c_int {
    static REAL: AtomicUsize = AtomicUsize::new(0);
    let f = real(c"execve", &REAL);
    if f == 0 {
        *libc::__errno_location() = libc::ENOSYS;
        return -1;
    }
    with_traced_env(envp, |e| std::mem::transmute::<usize, ExecveFn>(f)(path, argv, e))
}

/// `execvpe` wrapper: the new program inherits the runtime's variables.
///
/// # Safety
/// Same contract as `execvpe(3)`.
#[no_mangle]
pub unsafe extern "C" fn execvpe(file: *const c_char, argv: *const *const c_char, envp: *const *const c_char) -> c_int {
    static REAL: AtomicUsize = AtomicUsize::new(0);
    let f = real(c"execvpe", &REAL);
    if f == 0 {
        *libc::__errno_location() = libc::ENOSYS;
        return -1;
    }
    with_traced_env(envp, |e| std::mem::transmute::<usize, ExecveFn>(f)(file, argv, e))
}

/// `fexecve` wrapper: the new program inherits the runtime's variables.
///
/// # Safety
/// Same contract as `fexecve(3)`.
#[no_mangle]
pub unsafe extern "C" fn fexecve(fd: c_int, argv: *const *const c_char, envp: *const *const c_char) -> c_int {
    static REAL: AtomicUsize = AtomicUsize::new(0);
    let f = real(c"fexecve", &REAL);
    if f == 0 {
        *libc::__errno_location() = libc::ENOSYS;
        return -1;
    }
    with_traced_env(envp, |e| std::mem::transmute::<usize, FexecveFn>(f)(fd, argv, e))
}

macro_rules! spawn_wrapper {
    ($name:ident, $cname:literal) => {
        /// Wrapper: the spawned program inherits the runtime's variables
        /// even when the caller passes an environment of its own.
        ///
        /// # Safety
        /// Same contract as the C library function of the same name.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            pid: *mut libc::pid_t,
            path: *const c_char,
            actions: *const c_void,
            attr: *const c_void,
            argv: *const *const c_char,
            envp: *const *const c_char,
        ) -> c_int {
            static REAL: AtomicUsize = AtomicUsize::new(0);
            let f = real($cname, &REAL);
            if f == 0 {
                return libc::ENOSYS;
            }
            with_traced_env(envp, |e| {
                std::mem::transmute::<usize, SpawnFn>(f)(pid, path, actions, attr, argv, e)
            })
        }
    };
}

spawn_wrapper!(posix_spawn, c"posix_spawn");
spawn_wrapper!(posix_spawnp, c"posix_spawnp");
