//! The clocks `tracekit record` reads while capturing: the runtime's raw
//! event clock, `CLOCK_MONOTONIC` and `CLOCK_REALTIME`, and pairs of them
//! from which a recording's ticks are converted to time when it is loaded.

/// Reads the raw event clock the runtime uses (same counter, same machine).
pub fn raw_clock() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: rdtsc has no preconditions on x86-64.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        monotonic_ns()
    }
}

/// `CLOCK_MONOTONIC` in ns.
pub fn monotonic_ns() -> u64 {
    clock_ns(libc::CLOCK_MONOTONIC)
}

/// `CLOCK_REALTIME` in ns since the Unix epoch.
pub fn realtime_ns() -> u64 {
    clock_ns(libc::CLOCK_REALTIME)
}

fn clock_ns(id: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: valid out-pointer.
    unsafe { libc::clock_gettime(id, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// A (raw clock, monotonic ns) pair read as close together as possible:
/// the monotonic reading is bracketed by two raw readings and the pair with
/// the narrowest bracket of five tries is kept.
pub fn clock_pair() -> (u64, u64) {
    let mut best = (u64::MAX, 0, 0);
    for _ in 0..5 {
        let a = raw_clock();
        let m = monotonic_ns();
        let b = raw_clock();
        if b.wrapping_sub(a) < best.0 {
            best = (b.wrapping_sub(a), a / 2 + b / 2, m);
        }
    }
    (best.1, best.2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_is_consistent() {
        let (t1, m1) = clock_pair();
        std::thread::sleep(std::time::Duration::from_millis(5));
        let (t2, m2) = clock_pair();
        assert!(t2 > t1 && m2 > m1 + 4_000_000);
    }
}
