//! `recording.json`: what `tracekit record` knows about a run besides the
//! per-thread files — the command, the clock anchor and (raw clock,
//! monotonic ns) pairs to convert runtime ticks to time.

use serde::{Deserialize, Serialize};
use std::path::Path;

pub use tracekit_rt_format::names::{CONTEXT_FILE, META_FILE};

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
        let text = tracekit_safeio::read_text(&path)?;
        serde_json::from_str(&text).map_err(|e| anyhow::anyhow!("{}: line {}: {e}", path.display(), e.line()))
    }

    /// Writes `recording.json` into a recording directory.
    pub fn write(&self, dir: &Path) -> anyhow::Result<()> {
        let path = dir.join(META_FILE);
        std::fs::write(&path, serde_json::to_string_pretty(self)?)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
    }
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
        // A signed 64-bit difference (no 128-bit arithmetic: this runs once
        // per event when a recording is read).
        let d = (t.wrapping_sub(self.t0) as i64) as f64 * self.ns_per_tick;
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
}
