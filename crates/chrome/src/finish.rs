//! The end of reading: threads ordered and their calls placed, every time
//! rebased to timeline 0 = the earliest event, counters and async slices
//! made into tracks, and what was skipped and repaired noted.

use crate::build::{Builder, ThreadBuild, UNNAMED_TEXT};
use crate::calls::{biased, Columns, Ctx, Repairs, UNNAMED};
use crate::repair;
use rustc_hash::FxHashMap;
use tracekit_model::{CallColumns, Clocks, Marker, Method, Process, Session, SourceClock, Thread, ThreadId};

/// The session from everything the builder gathered.
pub(crate) fn finish(b: Builder, name: &str) -> Session {
    let Builder {
        threads,
        processes,
        methods,
        markers,
        counters,
        asyncs,
        skipped,
        mut repairs,
        ..
    } = b;
    let cpu = b.cpu_ok && (b.calls_seen || b.declared_dual);
    let origin = if b.min_ts == i64::MAX { 0 } else { b.min_ts };
    let mut s = Session::new(name, if cpu { Clocks::DUAL } else { Clocks::WALL });
    s.methods = methods;
    // Thread order: by sort indexes when the file gives any (stable, so
    // otherwise first appearance).
    let process_sort: FxHashMap<i64, i64> = processes.iter().filter_map(|p| Some((p.pid, p.sort?))).collect();
    let mut order: Vec<usize> = (0..threads.len()).collect();
    if !process_sort.is_empty() || threads.iter().any(|t| t.sort.is_some()) {
        order.sort_by_key(|&i| {
            let t = &threads[i];
            (
                t.pid.and_then(|p| process_sort.get(&p).copied()).unwrap_or(0),
                t.sort.unwrap_or(0),
            )
        });
    }
    let mut thread_of = vec![0u32; threads.len()];
    for (new, &old) in order.iter().enumerate() {
        thread_of[old] = new as u32;
    }
    // Place every thread's calls first: a thread that needs sorting does
    // its nesting only now, and may need the `(unnamed)` method.
    let mut slots: Vec<Option<ThreadBuild>> = threads.into_iter().map(Some).collect();
    let mut placed = Vec::with_capacity(order.len());
    for &old in &order {
        let Some(mut t) = slots[old].take() else { continue };
        let mut cx = Ctx {
            repairs: &mut repairs,
            cpu,
        };
        let cols = std::mem::take(&mut t.calls).finish(&mut cx);
        placed.push((t, cols));
    }
    let unnamed = repairs
        .unnamed_used
        .then(|| s.methods.intern(Method::new("", UNNAMED_TEXT, "")).0);
    for (t, cols) in placed {
        let id = s.add_thread(Thread {
            tid: t.tid as u32,
            pid: t.pid.map(|p| p as u32),
            name: t.name,
        });
        let mut cols = rebase(cols, biased(origin), unnamed);
        // Large columns shrink in place (the allocator remaps them).
        cols.shrink_to_fit();
        s.set_calls(id, cols);
    }
    s.processes = processes
        .into_iter()
        .map(|p| Process {
            pid: p.pid as u32,
            name: p.name,
        })
        .collect();
    let mut markers: Vec<Marker> = markers
        .into_iter()
        .map(|(t, thread, name)| Marker {
            ts_ns: biased(t) - biased(origin),
            thread: ThreadId(thread_of[thread as usize]),
            name,
        })
        .collect();
    markers.sort_by_key(|m| m.ts_ns);
    s.markers = markers;
    s.counters = counters.into_tracks(origin);
    let ends_without_begin = asyncs.ends_without_begin;
    let (slices, open_async) = asyncs.into_slices(origin, &thread_of);
    s.async_slices = slices;
    if b.min_ts != i64::MAX {
        s.source_clock = Some(SourceClock {
            name: clock_name(b.clock_domain.as_deref()),
            origin_ns: origin,
        });
    }
    s.anchor_unix_ns = b
        .anchor
        .map(|(unix, ts)| unix.saturating_add(origin.saturating_sub(ts)));
    s.properties = b.properties;
    for (kind, n) in skipped {
        s.note_skipped(&kind, n);
    }
    note_repairs(&mut s, &repairs);
    let other = [
        (
            repair::MISSING_DURATION,
            b.missing_durations,
            "complete (X) events without \"dur\" were read as lasting 0",
        ),
        (
            repair::NEGATIVE_DURATION,
            b.negative_durations,
            "negative durations were read as 0",
        ),
        (
            repair::ASYNC_END_WITHOUT_BEGIN,
            ends_without_begin,
            "async ends with no open begin were ignored",
        ),
        (
            repair::ASYNC_OPEN_AT_END,
            open_async,
            "async slices never ended; kept as open slices",
        ),
    ];
    for (code, n, detail) in other {
        s.note_repair(code, n, detail);
    }
    if let Some(at) = b.truncated_at {
        s.note_repair(
            repair::TRUNCATED,
            1,
            format!("the input is cut off at byte {at}; every complete event before it was kept"),
        );
    }
    s
}

/// Thread calls with times from the origin, thread time from the thread's
/// first reading, and the placeholder for unnamed slices replaced.
fn rebase(mut c: Columns, origin: u64, unnamed: Option<u32>) -> CallColumns {
    for t in &mut c.ts {
        *t = t.saturating_sub(origin);
    }
    if let Some(&first) = c.cpu.first() {
        for t in &mut c.cpu {
            *t = t.saturating_sub(first);
        }
    }
    if let Some(id) = unnamed {
        for w in &mut c.words {
            if *w >> 2 == UNNAMED {
                *w = (id << 2) | (*w & 3);
            }
        }
    }
    // The columns are built with equal lengths; the fallback never triggers.
    let len = c.ts.len();
    CallColumns::from_parts(c.words, c.ts, c.cpu).unwrap_or_else(|| CallColumns::with_capacity(len, false))
}

fn note_repairs(s: &mut Session, r: &Repairs) {
    let notes = [
        (
            repair::UNSORTED,
            r.unsorted_threads,
            "threads whose events were not in time order; sorted before nesting",
        ),
        (
            repair::OVERLAPPING,
            r.overlapping,
            "slices that did not nest on their thread were shortened or lengthened to nest",
        ),
        (
            repair::MISMATCHED_END,
            r.mismatched_end,
            "E events whose name matched no open B closed the innermost one, or closed the slices above their own",
        ),
        (
            repair::END_WITHOUT_BEGIN,
            r.end_without_begin,
            "E events with no open B; a slice was made from the thread's first event",
        ),
        (
            repair::OPEN_AT_END,
            r.open_at_end,
            "B events never ended; closed at their thread's last event",
        ),
        (
            repair::THREAD_TIME_BACKWARDS,
            r.thread_time_backwards,
            "thread time went backwards; held at its last value",
        ),
    ];
    for (code, n, detail) in notes {
        s.note_repair(code, n, detail);
    }
}

/// The model's name of a Chrome `clock-domain`.
fn clock_name(domain: Option<&str>) -> String {
    match domain {
        None => "trace".into(),
        Some(d) if d.contains("MONOTONIC") => "monotonic".into(),
        Some(d) if d.contains("BOOTTIME") => "boot".into(),
        Some(d) if d.contains("REALTIME") => "realtime".into(),
        Some(d) => d.into(),
    }
}
