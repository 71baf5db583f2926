//! The event clock: the CPU's time-stamp counter where it is invariant
//! (x86-64), `CLOCK_MONOTONIC` elsewhere. The recorder converts ticks to
//! monotonic nanoseconds offline from (ticks, ns) pairs taken before and after
//! the run, so the hot path never makes a system call.

use tracekit_rt_format::{CLOCK_MONOTONIC_NS, CLOCK_TSC};

/// Clock kind written into every thread file header.
#[cfg(target_arch = "x86_64")]
pub const KIND: u32 = CLOCK_TSC;
/// Clock kind written into every thread file header.
#[cfg(not(target_arch = "x86_64"))]
pub const KIND: u32 = CLOCK_MONOTONIC_NS;

/// The raw event clock.
#[inline(always)]
pub fn now() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: rdtsc has no preconditions on x86-64.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = CLOCK_TSC;
        monotonic_ns()
    }
}

/// `CLOCK_MONOTONIC` in nanoseconds.
pub fn monotonic_ns() -> u64 {
    read(libc::CLOCK_MONOTONIC)
}

/// `CLOCK_REALTIME` in nanoseconds since the Unix epoch.
pub fn realtime_ns() -> u64 {
    read(libc::CLOCK_REALTIME)
}

fn read(id: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: ts is a valid out-pointer.
    unsafe { libc::clock_gettime(id, &mut ts) };
    let _ = CLOCK_MONOTONIC_NS;
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}
