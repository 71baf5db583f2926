//! `tracekit-rt`: the native tracing runtime.
//!
//! Built as a shared library (`libtracekit_rt.so`, loaded with `LD_PRELOAD`
//! by `tracekit record`) and as a static library for linking. It provides
//! - `__cyg_profile_func_enter/exit` for programs built with
//!   `-finstrument-functions` (C, C++),
//! - explicit events through the C API in `include/tracekit.h`: object
//!   created/destroyed, operation entered/left, client-side proxy calls
//!   (sync/async) and server-side stubs, markers, typed context samples,
//!   named function enter/exit (used by the Rust attribute macro).
//!
//! Tracing is on when `TRACEKIT_DIR` names the output directory. Each thread
//! writes 16-byte records into its own memory-mapped file (see
//! `tracekit-rt-format`), so a crash keeps everything written; a full buffer
//! drops events and counts each one in the file header.
//!
//! ```no_run
//! // From Rust, with the runtime linked in:
//! #[tracekit_rt::trace]
//! fn work(n: u32) -> u32 { n * 2 }
//! tracekit_rt::marker("brb");
//! tracekit_rt::object_created("Foo", 0x1000);
//! work(21);
//! ```

/// `#[tracekit_rt::trace]`: traces a Rust function's entry and exit.
pub use tracekit_rt_macros::trace;

mod alloc;
pub mod clock;
mod hooks;
mod jumps;
mod maps;
mod process;
mod select;
mod thread_buf;
mod thread_slot;
mod wrap;

use std::ffi::{c_char, c_void, CStr};
use std::sync::atomic::Ordering;
use tracekit_rt_format::{encode_ext_raw, ext_body_len, ExtKind, KIND_EXT};

/// Records an extended event (rare events: objects, proxies, markers, context).
fn ext_event(sub: ExtKind, remote_pid: u32, object_id: u64, value: u64, strings: &[&[u8]]) {
    if !process::ENABLED.load(Ordering::Relaxed) {
        return;
    }
    let ts = clock::now();
    let mut stack = [0u8; 512];
    let mut heap;
    let need = ext_body_len(strings);
    let buf: &mut [u8] = if need <= stack.len() {
        &mut stack[..need]
    } else {
        heap = vec![0u8; need];
        &mut heap
    };
    if let Ok(n) = encode_ext_raw(buf, sub, remote_pid, object_id, value, strings) {
        thread_buf::append_ext(ts << 4 | KIND_EXT, &buf[..n]);
    }
}

fn cstr(p: *const c_char) -> &'static [u8] {
    if p.is_null() {
        return b"";
    }
    // SAFETY: callers pass NUL-terminated strings (documented in tracekit.h).
    unsafe { CStr::from_ptr(p) }.to_bytes()
}

fn class_ok(class: &[u8]) -> bool {
    select::class_selected(&String::from_utf8_lossy(class))
}

fn object_event(sub: ExtKind, remote: u32, object: u64, class: &[u8], iface: &[u8], op: &[u8]) {
    if !process::ENABLED.load(Ordering::Relaxed) || !class_ok(class) {
        return;
    }
    match sub {
        ExtKind::ObjectCreated | ExtKind::ObjectDestroyed => ext_event(sub, remote, object, 0, &[class]),
        _ => ext_event(sub, remote, object, 0, &[class, iface, op]),
    }
}

/// Records that an object of `class_name` was created (C API).
#[no_mangle]
pub extern "C" fn tracekit_object_created(class_name: *const c_char, object: *const c_void) {
    object_event(ExtKind::ObjectCreated, 0, object as u64, cstr(class_name), b"", b"");
}

/// Records that an object was destroyed (C API).
#[no_mangle]
pub extern "C" fn tracekit_object_destroyed(class_name: *const c_char, object: *const c_void) {
    object_event(ExtKind::ObjectDestroyed, 0, object as u64, cstr(class_name), b"", b"");
}

/// Records that an operation body was entered (C API).
#[no_mangle]
pub extern "C" fn tracekit_operation_enter(
    object: *const c_void,
    class_name: *const c_char,
    interface: *const c_char,
    operation: *const c_char,
) {
    object_event(
        ExtKind::OperationEntered,
        0,
        object as u64,
        cstr(class_name),
        cstr(interface),
        cstr(operation),
    );
}

/// Records that an operation body was left (C API); also ends a proxy call.
#[no_mangle]
pub extern "C" fn tracekit_operation_leave(
    object: *const c_void,
    class_name: *const c_char,
    interface: *const c_char,
    operation: *const c_char,
) {
    object_event(
        ExtKind::OperationLeft,
        0,
        object as u64,
        cstr(class_name),
        cstr(interface),
        cstr(operation),
    );
}

/// Records that a client-side proxy operation was entered (C API); the call
/// goes to `remote_pid`. A non-zero `synchronous` means the caller blocks
/// until the matching `tracekit_operation_leave`.
#[no_mangle]
pub extern "C" fn tracekit_proxy_enter(
    object: *const c_void,
    class_name: *const c_char,
    interface: *const c_char,
    operation: *const c_char,
    remote_pid: u32,
    synchronous: i32,
) {
    let sub = if synchronous != 0 {
        ExtKind::ProxySync
    } else {
        ExtKind::ProxyAsync
    };
    object_event(
        sub,
        remote_pid,
        object as u64,
        cstr(class_name),
        cstr(interface),
        cstr(operation),
    );
}

/// Records that a server-side stub operation was entered (C API); `sender_pid`
/// is the calling process (0 when unknown).
#[no_mangle]
pub extern "C" fn tracekit_stub_enter(
    object: *const c_void,
    class_name: *const c_char,
    interface: *const c_char,
    operation: *const c_char,
    sender_pid: u32,
) {
    object_event(
        ExtKind::Stub,
        sender_pid,
        object as u64,
        cstr(class_name),
        cstr(interface),
        cstr(operation),
    );
}

/// Records an instant marker such as a big-red-button press (C API).
#[no_mangle]
pub extern "C" fn tracekit_marker(name: *const c_char) {
    ext_event(ExtKind::Marker, 0, 0, 0, &[cstr(name)]);
}

/// Records an integer context sample (C API).
#[no_mangle]
pub extern "C" fn tracekit_context_int(label: *const c_char, value: i64) {
    ext_event(ExtKind::ContextInt, 0, 0, value as u64, &[cstr(label)]);
}

/// Records a floating-point context sample (C API).
#[no_mangle]
pub extern "C" fn tracekit_context_double(label: *const c_char, value: f64) {
    ext_event(ExtKind::ContextDouble, 0, 0, value.to_bits(), &[cstr(label)]);
}

/// Records a text context sample (C API).
#[no_mangle]
pub extern "C" fn tracekit_context_text(label: *const c_char, text: *const c_char) {
    ext_event(ExtKind::ContextText, 0, 0, 0, &[cstr(label), cstr(text)]);
}

/// Returns 1 when tracing is on in this process (C API).
#[no_mangle]
pub extern "C" fn tracekit_enabled() -> i32 {
    process::init();
    process::ENABLED.load(Ordering::Relaxed) as i32
}

/// Records entry of a function known by name (used by `#[tracekit::trace]`).
pub fn enter_named(name: &str) {
    ext_event(ExtKind::NamedEnter, 0, 0, 0, &[name.as_bytes()]);
}

/// Records exit of a function known by name.
pub fn exit_named(name: &str) {
    ext_event(ExtKind::NamedExit, 0, 0, 0, &[name.as_bytes()]);
}

/// Guard that records a named function's exit when dropped (also on panic unwinding).
pub struct NamedCall(pub &'static str);

impl NamedCall {
    /// Records entry and returns the guard that records exit.
    pub fn enter(name: &'static str) -> NamedCall {
        enter_named(name);
        NamedCall(name)
    }
}

impl Drop for NamedCall {
    fn drop(&mut self) {
        exit_named(self.0);
    }
}

/// Records a `setjmp` or `longjmp` on the buffer at `env`.
pub(crate) fn record_jump(kind: ExtKind, env: u64) {
    ext_event(kind, 0, env, 0, &[]);
}

/// Records, in the forking thread, that `fork` is about to run (`stamp`
/// names the event in the child's thread file).
pub(crate) fn record_fork(stamp: u64) {
    ext_event(ExtKind::Fork, 0, 0, stamp, &[]);
}

/// Records a marker from Rust.
pub fn marker(name: &str) {
    ext_event(ExtKind::Marker, 0, 0, 0, &[name.as_bytes()]);
}

/// Records an object creation from Rust.
pub fn object_created(class: &str, object: u64) {
    object_event(ExtKind::ObjectCreated, 0, object, class.as_bytes(), b"", b"");
}

/// Records an object destruction from Rust.
pub fn object_destroyed(class: &str, object: u64) {
    object_event(ExtKind::ObjectDestroyed, 0, object, class.as_bytes(), b"", b"");
}
