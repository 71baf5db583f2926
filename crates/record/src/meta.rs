//! `recording.json`: what `tracekit record` knows about a run besides the
//! per-thread files — the command, the clock anchor and (raw clock,
//! monotonic ns) pairs to convert runtime ticks to time.

use serde::{Deserialize, Serialize};
use std::path::Path;

/// File name of the metadata in a recording directory.
pub const META_FILE: &str = "recording.json";
/// File name of the context sampler's output.
pub const CONTEXT_FILE: &str = "context.jsonl";

/// Metadata of one recording.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordingMeta {
    /// Format version (1).
    pub version: u32,
    /// The traced command and its arguments.
    pub command: Vec<String>,
    /// `CLOCK_REALTIME` ns at the anchor: timestamp 0 of the session.
    pub anchor_unix_ns: i64,
    /// `CLOCK_MONOTONIC` ns at the anchor.
    pub anchor_mono_ns: u64,
    /// (raw event clock, `CLOCK_MONOTONIC` ns) pairs taken around the run.
    pub clock_pairs: Vec<(u64, u64)>,
    /// Exit code of the traced command, when it exited.
    pub exit_code: Option<i32>,
    /// Signal that killed the traced command, when it was killed.
    pub signal: Option<i32>,
    /// Function filter given to the runtime.
    pub filter: Option<String>,
}

impl RecordingMeta {
    /// Reads `recording.json` from a recording directory.
    pub fn read(dir: &Path) -> anyhow::Result<RecordingMeta> {
        let path = dir.join(META_FILE);
        let text = std::fs::read_to_string(&path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        serde_json::from_str(&text).map_err(|e| anyhow::anyhow!("{}: line {}: {e}", path.display(), e.line()))
    }

    /// Writes `recording.json` into a recording directory.
    pub fn write(&self, dir: &Path) -> anyhow::Result<()> {
        let path = dir.join(META_FILE);
        std::fs::write(&path, serde_json::to_string_pretty(self)?)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
    }
}

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

/// Converts raw event clock values to monotonic ns by a straight line through
/// the earliest and latest known pairs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TickConverter {
    t0: u64,
    m0: u64,
    ns_per_tick: f64,
}

impl TickConverter {
    /// The identity (the runtime already wrote monotonic ns).
    pub const IDENTITY: TickConverter = TickConverter {
        t0: 0,
        m0: 0,
        ns_per_tick: 1.0,
    };

    /// A converter from pairs; `None` when fewer than two distinct pairs exist.
    pub fn from_pairs(pairs: &[(u64, u64)]) -> Option<TickConverter> {
        let lo = pairs.iter().min_by_key(|p| p.0)?;
        let hi = pairs.iter().max_by_key(|p| p.0)?;
        if hi.0 <= lo.0 || hi.1 <= lo.1 {
            return None;
        }
        Some(TickConverter {
            t0: lo.0,
            m0: lo.1,
            ns_per_tick: (hi.1 - lo.1) as f64 / (hi.0 - lo.0) as f64,
        })
    }

    /// Monotonic ns of a raw clock value.
    pub fn to_mono(&self, t: u64) -> u64 {
        let d = (t as i128 - self.t0 as i128) as f64 * self.ns_per_tick;
        (self.m0 as f64 + d).max(0.0) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converter_is_linear() {
        let c = TickConverter::from_pairs(&[(1000, 500), (3000, 1500), (2000, 1000)]).unwrap();
        assert_eq!(c.to_mono(2000), 1000);
        assert_eq!(c.to_mono(5000), 2500);
        assert!(TickConverter::from_pairs(&[(1, 1)]).is_none());
        assert_eq!(TickConverter::IDENTITY.to_mono(77), 77);
    }

    #[test]
    fn pair_is_consistent() {
        let (t1, m1) = clock_pair();
        std::thread::sleep(std::time::Duration::from_millis(5));
        let (t2, m2) = clock_pair();
        assert!(t2 > t1 && m2 > m1 + 4_000_000);
    }
}
