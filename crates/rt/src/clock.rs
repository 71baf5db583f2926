//! The event clock. By default the CPU's time-stamp counter where it is
//! invariant (x86-64), `CLOCK_MONOTONIC` elsewhere; the recorder converts
//! ticks to monotonic nanoseconds offline from (ticks, ns) pairs taken before
//! and after the run, so the hot path never makes a system call.
//!
//! `TRACEKIT_CLOCK` chooses another source: `monotonic` (`clock_gettime`,
//! what uftrace uses) or `order` (no time at all: each thread numbers its
//! events, for call-sequence capture at the lowest cost).

use std::cell::Cell;
use std::sync::atomic::{AtomicU32, Ordering};
use tracekit_rt_format::{CLOCK_MONOTONIC_NS, CLOCK_ORDER, CLOCK_TSC};

#[cfg(target_arch = "x86_64")]
const DEFAULT: u32 = CLOCK_TSC;
#[cfg(not(target_arch = "x86_64"))]
const DEFAULT: u32 = CLOCK_MONOTONIC_NS;

static MODE: AtomicU32 = AtomicU32::new(DEFAULT);

thread_local! {
    static SEQ: Cell<u64> = const { Cell::new(0) };
}

/// Chooses the clock from a `TRACEKIT_CLOCK` value (before tracing starts).
pub fn configure(name: Option<&str>) {
    let mode = match name {
        Some("monotonic") => CLOCK_MONOTONIC_NS,
        Some("order") => CLOCK_ORDER,
        _ => DEFAULT,
    };
    MODE.store(mode, Ordering::Relaxed);
}

/// Clock kind written into every thread file header.
pub fn kind() -> u32 {
    MODE.load(Ordering::Relaxed)
}

/// The time-stamp counter (only called when [`kind`] is `CLOCK_TSC`, which
/// it never is off x86-64).
#[inline(always)]
pub fn tsc() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: rdtsc has no preconditions on x86-64.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        other_clock()
    }
}

/// The raw event clock.
#[inline(always)]
pub fn now() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        if MODE.load(Ordering::Relaxed) == CLOCK_TSC {
            // SAFETY: rdtsc has no preconditions on x86-64.
            return unsafe { core::arch::x86_64::_rdtsc() };
        }
    }
    other_clock()
}

#[inline(never)]
fn other_clock() -> u64 {
    if MODE.load(Ordering::Relaxed) == CLOCK_ORDER {
        return SEQ
            .try_with(|s| {
                let v = s.get() + 1;
                s.set(v);
                v
            })
            .unwrap_or(0);
    }
    monotonic_ns()
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
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}
