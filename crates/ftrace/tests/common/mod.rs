//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;
use tracekit_ftrace::Outcome;
use tracekit_model::{CallKind, Session};

/// `shared/realdata/systrace` beside the workspace (`../shared/realdata`
/// from the workspace root; for a worktree nested deeper, the nearest
/// ancestor that has one), if present.
pub fn realdata() -> Option<PathBuf> {
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let found = crate_dir
        .ancestors()
        .skip(2)
        .map(|a| a.join("shared/realdata/systrace"))
        .find(|d| d.is_dir());
    if found.is_none() {
        eprintln!(
            "skipped: realdata folder absent (no shared/realdata/systrace above {})",
            crate_dir.display()
        );
    }
    found
}

/// The fixtures in `tests/data`.
pub fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

/// The model's invariants after an import: every thread's calls balanced
/// (each exit leaves the innermost open method) and in time order; counter,
/// marker and per-CPU scheduling times in order; every line accounted for.
pub fn check_invariants(s: &Session, o: &Outcome) {
    assert_eq!(o.unaccounted(), 0, "{o:?}");
    for (_, t, calls) in s.thread_calls() {
        let mut stack = Vec::new();
        let mut last = 0;
        for e in calls.iter() {
            assert!(e.ts_ns >= last, "thread {} time goes back", t.tid);
            last = e.ts_ns;
            if e.kind == CallKind::Enter {
                stack.push(e.method);
            } else {
                assert_eq!(stack.pop(), Some(e.method), "thread {} unbalanced", t.tid);
            }
        }
        assert!(stack.is_empty(), "thread {} left open", t.tid);
    }
    for c in &s.counters {
        assert_eq!(c.times.len(), c.values.len());
        assert!(
            c.times.windows(2).all(|w| w[0] <= w[1]),
            "counter {} out of order",
            c.name
        );
        assert!(c.times.iter().all(|&t| t >= 0));
    }
    assert!(s.markers.windows(2).all(|w| w[0].ts_ns <= w[1].ts_ns));
    assert!(s.async_slices.windows(2).all(|w| w[0].ts_ns <= w[1].ts_ns));
    let mut per_cpu: std::collections::BTreeMap<u32, u64> = Default::default();
    for sl in &s.sched {
        let end = per_cpu.entry(sl.cpu).or_insert(0);
        assert!(sl.ts_ns >= *end, "cpu {} slices overlap", sl.cpu);
        *end = sl.ts_ns + sl.dur_ns;
        assert!((sl.thread.0 as usize) < s.threads.len());
    }
    if let Some(d) = s.duration_ns {
        if let Some((_, hi)) = s.time_span() {
            assert!(hi <= d);
        }
    }
}
