//! The real Perfetto traces in `../shared/realdata/perfetto/` (see
//! SOURCES.md there). The expected counts were taken independently, by
//! decoding the files with Perfetto's own `perfetto_trace_pb2` and counting
//! events (sched_switch slices per CPU in time order, atrace `B`/`E` per
//! thread), and agree with SOURCES.md where it gives them.

use std::path::PathBuf;
use tracekit_model::*;

/// `../shared/realdata` beside the workspace, or `$TRACEKIT_REALDATA` (for
/// a checkout elsewhere, such as a git worktree).
fn realdata(name: &str) -> Option<PathBuf> {
    let root = std::env::var_os("TRACEKIT_REALDATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/realdata"));
    let p = root.join("perfetto").join(name);
    if p.exists() {
        Some(p)
    } else {
        eprintln!("skipped: realdata folder absent ({})", p.display());
        None
    }
}

/// The model's invariant: each thread's calls balanced and time-ordered.
fn assert_balanced(s: &Session) {
    for (_, t, calls) in s.thread_calls() {
        let mut stack = Vec::new();
        let mut last = 0;
        for e in calls.iter() {
            assert!(e.ts_ns >= last, "thread {} goes back in time", t.tid);
            last = e.ts_ns;
            if e.kind == CallKind::Enter {
                stack.push(e.method);
            } else {
                assert_eq!(stack.pop(), Some(e.method), "thread {}: exit does not match", t.tid);
            }
        }
        assert!(stack.is_empty(), "thread {} left open", t.tid);
    }
}

fn skipped(s: &Session, kind: &str) -> u64 {
    s.skipped.iter().find(|(k, _)| k == kind).map_or(0, |(_, n)| *n)
}

fn thread(s: &Session, tid: u32) -> (ThreadId, &Thread) {
    let i = s.threads.iter().position(|t| t.tid == tid).expect("thread");
    (ThreadId(i as u32), &s.threads[i])
}

#[test]
fn samsung_s20_scheduling_frequency_and_idle() {
    let Some(path) = realdata("mstools_samsung_s20_test_trace.perfetto-trace") else {
        return;
    };
    let s = tracekit_perfetto::read_path(&path).unwrap();
    assert_eq!(s.name, "mstools_samsung_s20_test_trace");
    // 15,267 sched_switch events: 9,613 slices closed by a later switch on
    // their CPU, and 2 threads still running when the trace ends.
    assert_eq!(s.sched.len(), 9_615);
    assert_eq!(s.sched.iter().filter(|x| x.end_state.is_none()).count(), 2);
    // prev_state 128 (idle, "I") ended 3,978 slices; 256 (preempted, "R+") 904.
    assert_eq!(
        s.sched
            .iter()
            .filter(|x| x.end_state.map(|e| e.as_str() == "I").unwrap_or(false))
            .count(),
        3_978
    );
    assert_eq!(
        s.sched
            .iter()
            .filter(|x| x.end_state.map(|e| e.as_str() == "R+").unwrap_or(false))
            .count(),
        904
    );
    for cpu in 0..8 {
        let mut end = 0;
        for x in s.sched.iter().filter(|x| x.cpu == cpu) {
            assert!(x.ts_ns >= end, "cpu {cpu}: slices overlap");
            end = x.ts_ns + x.dur_ns;
        }
    }
    // 162 distinct tids switched in or out (the idle task excluded).
    assert_eq!(s.threads.len(), 162);
    // 11,687 cpu_idle and 168 cpu_frequency events (SOURCES.md: 11.7k, 168).
    let count = |suffix: &str| -> usize {
        s.counters
            .iter()
            .filter(|c| c.name.ends_with(suffix))
            .map(|c| c.len())
            .sum()
    };
    assert_eq!(count(" idle"), 11_687);
    assert_eq!(count(" freq"), 168);
    let cpu0 = s.counters.iter().find(|c| c.name == "cpu0 freq").unwrap();
    assert_eq!(
        (cpu0.len(), cpu0.cpu, cpu0.unit.as_deref(), cpu0.kind),
        (39, Some(0), Some("kHz"), CounterKind::Level)
    );
    assert!(
        cpu0.values.iter().all(|&v| (300_000.0..4_000_000.0).contains(&v)),
        "{:?}",
        cpu0.values
    );
    assert!(s.context_items().iter().any(|c| c.label == "cpu3 idle"));
    // The one track event: an instant on the TraceLogApiTest thread, whose
    // descriptors come after it in the file.
    let (t, main) = thread(&s, 20_855);
    assert_eq!((main.name.as_str(), main.pid), ("TraceLogApiTest", Some(20_855)));
    assert_eq!(s.markers.len(), 1);
    assert_eq!((s.markers[0].thread, s.markers[0].name.as_str()), (t, "Hello Trace"));
    assert_eq!(
        s.processes.iter().find(|p| p.pid == 20_855).unwrap().name,
        "./TraceLogApiTests"
    );
    // Names from the scheduler for threads no descriptor named.
    assert_eq!(thread(&s, 834).1.name, "kworker/u17:9");
    // Everything else is counted, not dropped.
    assert_eq!(skipped(&s, "ftrace sched_wakeup"), 8_743);
    assert_eq!(skipped(&s, "packet android_log"), 3);
    // Timeline 0 is the first clock snapshot; its REALTIME reading anchors it.
    assert_eq!(
        s.source_clock,
        Some(SourceClock {
            name: "boot".into(),
            origin_ns: 1_986_331_036_741
        })
    );
    assert_eq!(s.anchor_unix_ns, Some(1_629_744_747_688_731_177));
    assert!(s.repairs.is_empty(), "{:?}", s.repairs);
    assert_balanced(&s);
    // The device, from system_info.
    let prop = |k: &str| s.properties.iter().find(|(key, _)| key == k).map(|(_, v)| v.as_str());
    assert_eq!(prop("kernel"), Some("Linux 4.19.113-22067904 aarch64"));
    assert_eq!(
        prop("android.build"),
        Some("samsung/x1quex/x1q:11/RP1A.200720.012/G981U1UEU2DUG1:user/release-keys")
    );
}

#[test]
fn pixel7_atrace_markers_become_calls() {
    let Some(path) = realdata("nowinandroid_pixel7pro.perfetto-trace") else {
        return;
    };
    let s = tracekit_perfetto::read_path(&path).unwrap();
    // 6,246 ftrace print events: 3,122 B and 3,122 E (tids 9305, 9398, 9432,
    // 9412) and one S/F async pair.
    assert_eq!(s.call_event_count(), 6_244);
    let events = |tid| s.calls(thread(&s, tid).0).len();
    assert_eq!(
        (events(9305), events(9398), events(9432), events(9412)),
        (5_574, 660, 6, 4)
    );
    assert_eq!(s.async_slices.len(), 1);
    assert!(!s.async_slices[0].open);
    // The markers' pid field: every thread belongs to process 9305.
    assert!(s.threads.iter().all(|t| t.pid == Some(9305)), "{:?}", s.threads);
    assert!(s.methods.find("Startup").len() == 1);
    assert_eq!(skipped(&s, "packet frame_timeline_event"), 7_475);
    assert_eq!(skipped(&s, "packet packages_list"), 2);
    assert!(s.repairs.is_empty(), "{:?}", s.repairs);
    assert_eq!(s.clocks, Clocks::WALL);
    assert_balanced(&s);
    // The calls nest: the main thread's deepest stack is several frames.
    let mut depth: i32 = 0;
    let mut deepest = 0;
    for e in s.calls(thread(&s, 9305).0).iter() {
        depth += if e.kind == CallKind::Enter { 1 } else { -1 };
        deepest = deepest.max(depth);
    }
    assert!(deepest >= 3, "{deepest}");
}

#[test]
fn real_traces_survive_a_round_trip() {
    for name in [
        "mstools_samsung_s20_test_trace.perfetto-trace",
        "nowinandroid_pixel7pro.perfetto-trace",
    ] {
        let Some(path) = realdata(name) else {
            return;
        };
        let s = tracekit_perfetto::read_path(&path).unwrap();
        let mut bytes = Vec::new();
        tracekit_perfetto::write(&s, &mut bytes).unwrap();
        let back = tracekit_perfetto::read_bytes(&bytes, name).unwrap();
        assert_eq!(back.call_event_count(), s.call_event_count(), "{name}");
        assert_eq!(back.sched.len(), s.sched.len(), "{name}");
        assert_eq!(back.markers.len(), s.markers.len(), "{name}");
        assert_eq!(back.async_slices.len(), s.async_slices.len(), "{name}");
        assert_eq!(back.anchor_unix_ns, s.anchor_unix_ns, "{name}");
        // Counters come back whole: CPU frequency and idle as ftrace events
        // (cpu, unit and kind kept), others as counter tracks.
        let sorted = |s: &Session| {
            let mut v = s.counters.clone();
            v.sort_by(|a, b| a.name.cmp(&b.name));
            v
        };
        assert_eq!(sorted(&back), sorted(&s), "{name}");
        let threads = |s: &Session| {
            let mut v: Vec<(u32, Option<u32>, String)> =
                s.threads.iter().map(|t| (t.tid, t.pid, t.name.clone())).collect();
            v.sort();
            v
        };
        if name.starts_with("nowinandroid") {
            assert_eq!(threads(&back), threads(&s), "{name}");
        }
    }
}
