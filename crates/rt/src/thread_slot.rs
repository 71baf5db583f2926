//! Where each thread's [`ThreadBuf`] lives.
//!
//! Every traced call looks its buffer up, so the lookup is on the hot path.
//! Rust's `thread_local!` in a shared library uses the *general-dynamic* TLS
//! model: each lookup calls `__tls_get_addr` through the PLT. On x86-64
//! Linux the buffer instead sits in a block of the library's own `.tbss`,
//! reached with the *initial-exec* model: one load of the block's offset
//! from the GOT plus the thread pointer in `%fs`, no call. (Stable Rust has
//! no per-variable TLS model, hence the two lines of assembly; nightly's
//! `-Z tls-model=initial-exec` would do the same for every variable.)
//!
//! Initial-exec needs the library in the static TLS area: true for
//! `LD_PRELOAD` (how `tracekit record` loads it) and for linking it in; a
//! late `dlopen` works while glibc's static TLS surplus has room for the
//! block's 128 bytes. Other targets keep `thread_local!`.
//!
//! The block starts as zero bytes in every new thread, which is exactly
//! [`ThreadBuf::zero`]: every field of a thread buffer starts at zero.

use crate::thread_buf::ThreadBuf;

/// Size reserved for the buffer in the `.tbss` block (checked below).
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
const SLOT_BYTES: usize = 128;

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
const _: () = assert!(std::mem::size_of::<ThreadBuf>() <= SLOT_BYTES && std::mem::align_of::<ThreadBuf>() <= 64);

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
core::arch::global_asm!(
    ".pushsection .tbss,\"awT\",@nobits",
    ".p2align 6",
    ".globl tracekit_rt_thread_buf",
    ".hidden tracekit_rt_thread_buf",
    ".type tracekit_rt_thread_buf,@object",
    ".size tracekit_rt_thread_buf,128",
    "tracekit_rt_thread_buf:",
    ".zero 128",
    ".popsection",
);

/// Runs `f` on the calling thread's buffer.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[inline(always)]
pub fn with<R>(f: impl FnOnce(&ThreadBuf) -> R) -> Option<R> {
    let p: usize;
    // SAFETY: the initial-exec sequence: the GOT holds the block's offset
    // from the thread pointer, and `%fs:0` holds the thread pointer itself.
    unsafe {
        core::arch::asm!(
            "mov {p}, qword ptr [rip + tracekit_rt_thread_buf@GOTTPOFF]",
            "add {p}, qword ptr fs:[0]",
            p = out(reg) p,
            options(pure, readonly, nostack),
        );
    }
    // SAFETY: the block is 64-aligned, large enough (asserted above), lives
    // as long as the thread, is only touched by this thread, and all-zero
    // bytes are a valid `ThreadBuf` (ThreadBuf::zero).
    Some(f(unsafe { &*(p as *const ThreadBuf) }))
}

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
thread_local! {
    static BUF: ThreadBuf = const { ThreadBuf::zero() };
}

/// Runs `f` on the calling thread's buffer (`None` while the thread exits).
#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
#[inline(always)]
pub fn with<R>(f: impl FnOnce(&ThreadBuf) -> R) -> Option<R> {
    BUF.try_with(f).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_thread_sees_the_zero_buffer_and_threads_do_not_share() {
        let here = with(|b| b as *const ThreadBuf as usize).unwrap();
        let (there, fresh) = std::thread::spawn(|| with(|b| (b as *const ThreadBuf as usize, b.is_zero())).unwrap())
            .join()
            .unwrap();
        assert_ne!(here, there);
        assert!(fresh);
        assert_eq!(here % std::mem::align_of::<ThreadBuf>(), 0);
    }
}
