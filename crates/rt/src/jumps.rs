//! `setjmp` and `longjmp`: which frames a jump abandons.
//!
//! A `longjmp` leaves every frame above the one that called `setjmp` on the
//! same buffer without running their exit hooks. The runtime records both
//! ends with the `jmp_buf` address: `Setjmp` when the buffer is set (the
//! reader notes the call stack there) and `Longjmp` when it is used (the
//! reader closes every frame above that stack). This is exact for jumps
//! out of any number of frames, repeated jumps and jumps from signal
//! handlers.
//!
//! `setjmp` returns twice, so its wrapper cannot be an ordinary function:
//! its frame would be gone when `longjmp` comes back. On x86-64 the
//! wrappers are a few instructions of assembly that record the event and
//! then *jump* (not call) to the C library's function, which so saves the
//! program's own return address and registers. Elsewhere only the
//! `longjmp` side is recorded and the reader falls back to its heuristic.

use std::ffi::CStr;
use std::sync::atomic::{AtomicUsize, Ordering};

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

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
mod set {
    use super::*;

    macro_rules! setjmp_wrapper {
        ($name:ident, $note:ident, $cname:literal) => {
            /// Records `Setjmp` for the buffer in `env` and returns the C
            /// library's function for the assembly stub to jump to.
            extern "C" fn $note(env: usize) -> usize {
                static REAL: AtomicUsize = AtomicUsize::new(0);
                crate::record_jump(tracekit_rt_format::ExtKind::Setjmp, env as u64);
                match real($cname, &REAL) {
                    0 => libc::abort as *const () as usize,
                    f => f,
                }
            }

            /// Wrapper of the C library's function of the same name: records
            /// the buffer, then jumps to the real function (see the module docs).
            ///
            /// # Safety
            /// Same contract as the C library function.
            // Entry: %rsp ≡ 8 (mod 16). Two pushes and 8 bytes keep the
            // call aligned; the argument registers are restored before the
            // tail jump, and the return address on the stack is still the
            // program's.
            #[unsafe(naked)]
            #[no_mangle]
            pub unsafe extern "C" fn $name() {
                core::arch::naked_asm!(
                    "push rdi",
                    "push rsi",
                    "sub rsp, 8",
                    "call {note}",
                    "add rsp, 8",
                    "pop rsi",
                    "pop rdi",
                    "jmp rax",
                    note = sym $note,
                );
            }
        };
    }

    setjmp_wrapper!(_setjmp, note_underscore_setjmp, c"_setjmp");
    setjmp_wrapper!(setjmp, note_setjmp, c"setjmp");
    setjmp_wrapper!(__sigsetjmp, note_sigsetjmp, c"__sigsetjmp");
}

type LongjmpFn = unsafe extern "C" fn(*mut libc::c_void, libc::c_int) -> !;

macro_rules! longjmp_wrapper {
    ($name:ident, $cname:literal) => {
        /// Wrapper that records a `Longjmp` event for the buffer (so the
        /// frames it abandons can be closed offline) and then jumps.
        ///
        /// # Safety
        /// Same contract as the C library function of the same name.
        #[no_mangle]
        pub unsafe extern "C" fn $name(env: *mut libc::c_void, val: libc::c_int) -> ! {
            static REAL: AtomicUsize = AtomicUsize::new(0);
            crate::record_jump(tracekit_rt_format::ExtKind::Longjmp, env as u64);
            match real($cname, &REAL) {
                0 => libc::abort(),
                f => std::mem::transmute::<usize, LongjmpFn>(f)(env, val),
            }
        }
    };
}

longjmp_wrapper!(longjmp, c"longjmp");
longjmp_wrapper!(_longjmp, c"_longjmp");
longjmp_wrapper!(siglongjmp, c"siglongjmp");
longjmp_wrapper!(__longjmp_chk, c"__longjmp_chk");
