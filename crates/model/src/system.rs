//! System-wide activity that is not a method call: which thread each CPU ran
//! (scheduling slices), spans that a trace names but that do not nest on a
//! thread's stack (async slices), and the clock a source used.
//!
//! These come from kernel and system traces (ftrace/atrace, Perfetto) and
//! from power samplers; method traces leave them empty.

use crate::session::ThreadId;
use serde::{Deserialize, Serialize};

/// A span during which one CPU ran one thread, from scheduler events
/// (`sched_switch` in ftrace, `SchedSwitch` in Perfetto).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchedSlice {
    /// The CPU (0-based).
    pub cpu: u32,
    /// Start, ns on the session's timeline clock.
    pub ts_ns: u64,
    /// Duration in ns.
    pub dur_ns: u64,
    /// The thread that ran (the idle task is not recorded as a slice).
    pub thread: ThreadId,
    /// Kernel priority while it ran, when known.
    pub priority: Option<i32>,
    /// The state the thread left the CPU in, as the kernel prints it
    /// (`R`, `R+`, `S`, `D`, …); `None` when unknown or still running at the
    /// end of the trace.
    pub end_state: Option<EndState>,
}

/// A thread's state when it was switched out, as ftrace prints it: up to
/// four ASCII characters (`R`, `R+`, `S`, `D`, `x`, `D|K`, …) kept inline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct EndState(pub [u8; 4]);

impl EndState {
    /// Keeps the first four bytes of `s` (state strings are ASCII).
    pub fn new(s: &str) -> EndState {
        let mut b = [0u8; 4];
        for (d, c) in b.iter_mut().zip(s.bytes()) {
            *d = c;
        }
        EndState(b)
    }

    /// The state as text.
    pub fn as_str(&self) -> &str {
        let n = self.0.iter().position(|&c| c == 0).unwrap_or(4);
        std::str::from_utf8(&self.0[..n]).unwrap_or("?")
    }

    /// True when the thread was still runnable (preempted, `R` or `R+`).
    pub fn is_runnable(&self) -> bool {
        self.0[0] == b'R'
    }
}

/// A named span that is not a call on one thread's stack: an async slice
/// (atrace `S|`/`F|`, Chrome `b`/`e`, Perfetto async tracks), or a slice of
/// a track that belongs to a process or the whole system.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AsyncSlice {
    /// Name shown to users.
    pub name: String,
    /// Category or track name, when the source gives one.
    pub category: Option<String>,
    /// The id that pairs begin and end (atrace cookie, Chrome `id`).
    pub cookie: u64,
    /// Process it belongs to, when known.
    pub pid: Option<u32>,
    /// Thread that began it, when known.
    pub thread: Option<ThreadId>,
    /// Start, ns on the session's timeline clock.
    pub ts_ns: u64,
    /// Duration in ns (0 for a span whose end the trace never showed; see
    /// [`AsyncSlice::open`]).
    pub dur_ns: u64,
    /// True when the trace ended before the span did.
    pub open: bool,
}

/// The clock a source stamped its events with, and where the session's
/// timeline starts on it. Sources on the same clock can be lined up by
/// subtracting their origins.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceClock {
    /// The clock's name: `boot`, `monotonic`, `realtime`, `trace` (ftrace's
    /// own), `tsc`, …
    pub name: String,
    /// The source clock's reading, in ns, at timeline 0.
    pub origin_ns: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn end_states_keep_four_bytes() {
        assert_eq!(EndState::new("R+").as_str(), "R+");
        assert!(EndState::new("R+").is_runnable());
        assert_eq!(EndState::new("D|K|W").as_str(), "D|K|");
        assert!(!EndState::new("S").is_runnable());
        assert_eq!(EndState::new("").as_str(), "");
    }
}
