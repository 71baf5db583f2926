//! `__cyg_profile_func_enter/exit`: the hooks GCC and Clang call on every
//! entry and exit of a function compiled with `-finstrument-functions`.
//!
//! On x86-64 Linux their common case is written in assembly: tracing on,
//! time-stamp counter clock, no filter, room in the thread's buffer. It is
//! [`crate::thread_buf::append`] of `tsc << 4 | kind` and the function's
//! address, instruction for instruction, but reaches the thread's buffer
//! with `%fs`-relative operands (one load of its offset from the GOT)
//! instead of first loading the thread pointer from `%fs:0`, and needs no
//! stack frame: the traced loop of `scripts/bench/native-producer.sh` took
//! 1.21× the TSC-only run's time with the hooks compiled from Rust and
//! 1.08× with these (11 interleaved rounds; BENCHMARKS.md, stop 33).
//! Everything else (tracing off, a filter, a slow clock, a full buffer, a
//! thread's first event) jumps to the Rust path, [`call_event`], with the
//! arguments untouched.
//!
//! The record is written in the order `append` writes it: the lap flag is
//! read before the slot is reserved (a signal handler that traces past the
//! lap's end changes the flag, not this record's), the slot is reserved
//! before the stores (a handler writes after it), and the first word,
//! which the drainer tests, is stored last (x86-64 keeps stores in order).

use crate::process;
use crate::thread_buf;
use std::ffi::c_void;
use std::sync::atomic::Ordering;
use tracekit_rt_format::{KIND_ENTER, KIND_EXIT};

/// Every traced call enters here twice (the whole path where the assembly
/// fast path is not built; its slow path where it is). The common cases
/// (time-stamp counter, no filter or a filter whose verdict is cached) are
/// kept free of calls; anything else takes one jump to
/// [`call_event_general`].
#[inline(always)]
fn call_event(kind: u64, func: *mut c_void) {
    let mode = process::CALLS.load(Ordering::Relaxed);
    if mode & !process::CALLS_SELECTED == process::CALLS_ON {
        let addr = func as u64;
        if mode & process::CALLS_SELECTED != 0 {
            match crate::select::cached_verdict(addr) {
                Some(true) => {}
                Some(false) => return,
                None => return call_event_general(mode, kind, func),
            }
        }
        thread_buf::append(crate::clock::tsc() << 4 | kind, addr);
    } else if mode != 0 {
        call_event_general(mode, kind, func);
    }
}

/// [`call_event`] under a slow clock or before a function's filter verdict is cached.
#[inline(never)]
fn call_event_general(mode: u8, kind: u64, func: *mut c_void) {
    let addr = func as u64;
    if mode & process::CALLS_SELECTED != 0 && !crate::select::function_selected(addr) {
        return;
    }
    let ts = if mode & process::CALLS_SLOW_CLOCK == 0 {
        crate::clock::tsc()
    } else {
        crate::clock::now()
    };
    thread_buf::append(ts << 4 | kind, addr);
}

/// Hook GCC and Clang call on entry of every function compiled with
/// `-finstrument-functions`.
#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
#[no_mangle]
pub extern "C" fn __cyg_profile_func_enter(func: *mut c_void, _call_site: *mut c_void) {
    call_event(KIND_ENTER, func);
}

/// Hook called on every exit (also while an exception unwinds the frame).
#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
#[no_mangle]
pub extern "C" fn __cyg_profile_func_exit(func: *mut c_void, _call_site: *mut c_void) {
    call_event(KIND_EXIT, func);
}

/// The entry hook's path outside the assembly's common case.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[inline(never)]
extern "C" fn enter_slow(func: *mut c_void) {
    call_event(KIND_ENTER, func);
}

/// The exit hook's path outside the assembly's common case.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[inline(never)]
extern "C" fn exit_slow(func: *mut c_void) {
    call_event(KIND_EXIT, func);
}

/// The body of one hook: codes `$kind` and jumps to `$slow` outside the
/// common case (see the module docs).
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
macro_rules! hook_body {
    ($kind:expr, $slow:path) => {
        core::arch::naked_asm!(
            // Tracing on, TSC clock, no filter: CALLS == CALLS_ON.
            "cmpb ${on}, {calls}(%rip)",
            "jne {slow}",
            "rdtsc",
            "movq tracekit_rt_thread_buf@GOTTPOFF(%rip), %rcx",
            "shlq $32, %rdx",
            "orq %rdx, %rax",
            // w, and room for one record below the limit.
            "movq %fs:{w}(%rcx), %rdx",
            "leaq {record}(%rdx), %rsi",
            "cmpq %fs:{limit}(%rcx), %rsi",
            "ja {slow}",
            // The lap flag, read before the reservation.
            "movq %fs:{lap}(%rcx), %r9",
            "movq %rsi, %fs:{w}(%rcx)",
            // The slot and the line PREFETCH_AHEAD bytes on: base + (x & mask).
            "leaq {ahead}(%rdx), %r8",
            "movq %fs:{mask}(%rcx), %rsi",
            "andq %rsi, %rdx",
            "andq %rsi, %r8",
            "movq %fs:{base}(%rcx), %rsi",
            "addq %rsi, %rdx",
            "addq %rsi, %r8",
            "prefetchw (%r8)",
            // The address, then the first word: tsc << 4 | kind, lap flag flipped.
            "movq %rdi, 8(%rdx)",
            "shlq $4, %rax",
            "orq ${kind}, %rax",
            "xorq %r9, %rax",
            "movq %rax, (%rdx)",
            "ret",
            on = const process::CALLS_ON,
            calls = sym process::CALLS,
            slow = sym $slow,
            kind = const $kind,
            record = const tracekit_rt_format::RECORD_SIZE,
            ahead = const thread_buf::PREFETCH_AHEAD,
            w = const thread_buf::OFFSET_W,
            limit = const thread_buf::OFFSET_LIMIT,
            base = const thread_buf::OFFSET_BASE,
            mask = const thread_buf::OFFSET_MASK,
            lap = const thread_buf::OFFSET_LAP,
            options(att_syntax),
        )
    };
}

/// Hook GCC and Clang call on entry of every function compiled with
/// `-finstrument-functions`.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn __cyg_profile_func_enter(_func: *mut c_void, _call_site: *mut c_void) {
    hook_body!(KIND_ENTER, enter_slow)
}

/// Hook called on every exit (also while an exception unwinds the frame).
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn __cyg_profile_func_exit(_func: *mut c_void, _call_site: *mut c_void) {
    hook_body!(KIND_EXIT, exit_slow)
}
