//! Clocks: every timestamp is brought to the trace clock (CLOCK_BOOTTIME),
//! using the latest `ClockSnapshot` for other builtin clocks and the
//! sequence's own snapshot for sequence-scoped clocks (ids 64..=127, which
//! may be incremental and scaled, as the Perfetto SDK writes them).

use crate::proto::{clock, ClockSnapshot};
use rustc_hash::FxHashMap;

/// A clock defined on one sequence.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SequenceClock {
    /// Each reading is a delta from the previous one.
    pub incremental: bool,
    /// Nanoseconds per unit.
    pub multiplier_ns: u64,
    /// The clock's reading at the snapshot (updated by incremental readings).
    pub last: u64,
    /// The clock's reading at the snapshot.
    pub at_snapshot: u64,
    /// BOOTTIME at the snapshot.
    pub boot_at_snapshot: u64,
}

/// What the importer knows about clocks.
#[derive(Debug, Default)]
pub(crate) struct Clocks {
    /// Builtin clock id → (its reading, BOOTTIME) at the latest snapshot.
    builtin: FxHashMap<u32, (u64, u64)>,
    /// REALTIME and BOOTTIME at the first snapshot that has both.
    pub realtime_pair: Option<(u64, u64)>,
    /// BOOTTIME of the earliest snapshot.
    pub earliest_boot: Option<u64>,
    /// Timestamps on clocks no snapshot defined.
    pub unknown_clock: u64,
}

impl Clocks {
    /// Takes in a snapshot; returns the sequence-scoped clocks it defines.
    pub(crate) fn snapshot(&mut self, snap: &ClockSnapshot) -> Vec<(u32, SequenceClock)> {
        let boot = snap
            .clocks
            .iter()
            .find(|c| c.clock_id == Some(clock::BOOTTIME))
            .and_then(|c| c.timestamp);
        let Some(boot) = boot else {
            return Vec::new();
        };
        self.earliest_boot = Some(self.earliest_boot.map_or(boot, |e| e.min(boot)));
        let mut scoped = Vec::new();
        for c in &snap.clocks {
            let (Some(id), Some(ts)) = (c.clock_id, c.timestamp) else {
                continue;
            };
            if (64..=127).contains(&id) {
                scoped.push((
                    id,
                    SequenceClock {
                        incremental: c.is_incremental.unwrap_or(false),
                        multiplier_ns: c.unit_multiplier_ns.unwrap_or(1).max(1),
                        last: ts,
                        at_snapshot: ts,
                        boot_at_snapshot: boot,
                    },
                ));
            } else {
                self.builtin.insert(id, (ts, boot));
                if id == clock::REALTIME && self.realtime_pair.is_none() {
                    self.realtime_pair = Some((ts, boot));
                }
            }
        }
        scoped
    }

    /// `ts` on builtin clock `id`, as BOOTTIME.
    pub(crate) fn boot_time(&mut self, id: u32, ts: u64) -> u64 {
        if id == clock::BOOTTIME {
            return ts;
        }
        match self.builtin.get(&id) {
            Some(&(at, boot)) => shift(ts, at, boot),
            None => {
                self.unknown_clock += 1;
                ts
            }
        }
    }
}

impl SequenceClock {
    /// A reading of this clock, as BOOTTIME.
    pub(crate) fn boot_time(&mut self, ts: u64) -> u64 {
        let value = if self.incremental {
            self.last = self.last.wrapping_add(ts);
            self.last
        } else {
            ts
        };
        let delta = (i128::from(value) - i128::from(self.at_snapshot)) * i128::from(self.multiplier_ns);
        clamp(i128::from(self.boot_at_snapshot) + delta)
    }
}

/// `ts` read on a clock that read `at` when BOOTTIME read `boot`.
fn shift(ts: u64, at: u64, boot: u64) -> u64 {
    clamp(i128::from(ts) - i128::from(at) + i128::from(boot))
}

fn clamp(v: i128) -> u64 {
    v.clamp(0, i128::from(i64::MAX)) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::Clock;

    fn c(id: u32, ts: u64) -> Clock {
        Clock {
            clock_id: Some(id),
            timestamp: Some(ts),
            is_incremental: None,
            unit_multiplier_ns: None,
        }
    }

    #[test]
    fn converts_builtin_and_incremental_clocks() {
        let mut k = Clocks::default();
        let mut inc = c(64, 1_000);
        inc.is_incremental = Some(true);
        inc.unit_multiplier_ns = Some(1_000);
        let snap = ClockSnapshot {
            clocks: vec![c(6, 50_000), c(1, 1_700_000_000_000_000_000), c(3, 40_000), inc],
            primary_trace_clock: None,
        };
        let mut scoped = k.snapshot(&snap);
        assert_eq!(k.boot_time(3, 41_000), 51_000);
        assert_eq!(k.realtime_pair, Some((1_700_000_000_000_000_000, 50_000)));
        assert_eq!(scoped.len(), 1);
        let seq = &mut scoped[0].1;
        assert_eq!(seq.boot_time(5), 55_000);
        assert_eq!(seq.boot_time(2), 57_000);
        assert_eq!(k.boot_time(9, 7), 7);
        assert_eq!(k.unknown_clock, 1);
    }
}
