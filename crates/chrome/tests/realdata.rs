//! The real Chrome JSON traces in `../shared/realdata/chrome-json/`
//! (SOURCES.md describes them). The counts asserted here were taken from
//! the files with Python's `json` module, independently of this crate:
//!
//! ```python
//! d = json.load(open(f)); ev = d["traceEvents"]
//! collections.Counter(e["ph"] for e in ev)
//! ```
//!
//! and every call is compared with the file's `X` events as parsed by
//! `serde_json::Value` (a second parser, not the crate's scanner).

use std::collections::BTreeMap;
use std::path::PathBuf;
use tracekit_model::{CallKind, Session};

/// The file in `../shared/realdata/chrome-json` beside the workspace (or
/// under `$TRACEKIT_REALDATA`, for a checkout elsewhere).
fn realdata(name: &str) -> Option<PathBuf> {
    let root = std::env::var_os("TRACEKIT_REALDATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/realdata"));
    let dir = root.join("chrome-json");
    if !dir.is_dir() {
        eprintln!("skipped: realdata folder absent ({})", dir.display());
        return None;
    }
    Some(dir.join(name))
}

fn skipped(s: &Session, kind: &str) -> u64 {
    s.skipped.iter().find(|(k, _)| k == kind).map_or(0, |(_, n)| *n)
}

/// Every call of the session as (pid, tid, name, start, end, cpu start,
/// cpu end), times in ns from the session's origin.
type Call = (u32, u32, String, u64, u64, u64, u64);

fn calls_of(s: &Session) -> Vec<Call> {
    let mut out = Vec::new();
    for (_, t, calls) in s.thread_calls() {
        let mut open = Vec::new();
        for e in calls.iter() {
            if e.kind == CallKind::Enter {
                open.push(e);
            } else {
                let b = open.pop().expect("balanced");
                assert_eq!(b.method, e.method);
                let name = s.methods.get(e.method).name.clone();
                out.push((
                    t.pid.unwrap(),
                    t.tid,
                    name,
                    b.ts_ns,
                    e.ts_ns,
                    b.cpu_ns.unwrap(),
                    e.cpu_ns.unwrap(),
                ));
            }
        }
        assert!(open.is_empty());
    }
    out.sort();
    out
}

/// The `X` events of the file by `serde_json::Value`, in the same shape
/// (thread time relative to each thread's earliest `tts`).
fn x_events_of(path: &PathBuf, origin_ns: i64) -> Vec<Call> {
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let us = |e: &serde_json::Value, k: &str| (e[k].as_f64().unwrap() * 1000.0).round() as i64;
    let events: Vec<&serde_json::Value> = v["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X")
        .collect();
    let mut first_tts: BTreeMap<(u64, u64), i64> = BTreeMap::new();
    for e in &events {
        let key = (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap());
        let t = us(e, "tts");
        first_tts.entry(key).and_modify(|f| *f = (*f).min(t)).or_insert(t);
    }
    let mut out: Vec<Call> = events
        .iter()
        .map(|e| {
            let key = (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap());
            let (ts, tts) = (us(e, "ts") - origin_ns, us(e, "tts") - first_tts[&key]);
            (
                key.0 as u32,
                key.1 as u32,
                e["name"].as_str().unwrap().to_owned(),
                ts as u64,
                (ts + us(e, "dur")) as u64,
                tts as u64,
                (tts + us(e, "tdur")) as u64,
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn chrome_116_devtools_trace() {
    let Some(path) = realdata("speedscope_chrome116_devtools_trace.json") else {
        return;
    };
    let s = tracekit_chrome::read_path(&path).unwrap();
    // 3,108 events: X 2456, b 234, e 234, I 97, M 28, P 17, R 13, s 13,
    // f 13, O 2, N 1.
    assert_eq!(s.call_event_count(), 2 * 2456);
    assert_eq!(s.async_slices.len(), 234);
    assert!(s
        .async_slices
        .iter()
        .all(|a| !a.open && a.category.as_deref() == Some("cc,benchmark,disabled-by-default-devtools.timeline.frame")));
    assert_eq!(s.markers.len(), 97);
    for (kind, n) in [
        ("P (sample)", 17),
        ("R (mark)", 13),
        ("s (flow start)", 13),
        ("f (flow end)", 13),
        ("O (object snapshot)", 2),
        ("N (object created)", 1),
        // The 28 M events: 15 thread_name, 3 process_name, 3
        // process_sort_index, 1 thread_sort_index are used.
        ("M process_uptime_seconds", 3),
        ("M num_cpus", 3),
    ] {
        assert_eq!(skipped(&s, kind), n, "{kind}");
    }
    assert_eq!(s.skipped.len(), 8, "{:?}", s.skipped);
    assert!(s.repairs.is_empty(), "{:?}", s.repairs);
    // Every X event has tts and tdur: a dual-clock session.
    assert!(s.clocks.wall && s.clocks.thread_cpu);
    let clock = s.source_clock.as_ref().unwrap();
    assert_eq!((clock.name.as_str(), clock.origin_ns), ("trace", 9_632_361_274_000));
    assert_eq!(s.threads.len(), 15);
    let main = s
        .threads
        .iter()
        .position(|t| t.pid == Some(6488) && t.tid == 259)
        .unwrap();
    assert_eq!(s.threads[main].name, "CrBrowserMain");
    assert_eq!(s.calls(tracekit_model::ThreadId(main as u32)).len(), 2 * 1732);
    let mut names: Vec<&str> = s.processes.iter().map(|p| p.name.as_str()).collect();
    names.sort();
    assert_eq!(names, ["", "Browser", "GPU Process", "Renderer"]);
    assert_eq!(calls_of(&s), x_events_of(&path, clock.origin_ns));
    assert_eq!(
        s.properties
            .iter()
            .find(|(k, _)| k == "source")
            .map(|(_, v)| v.as_str()),
        Some("DevTools")
    );
}

#[test]
fn nexus5_catapult_trace_with_thread_time() {
    let Some(path) = realdata("catapult_profile_chrome_nexus5_chrome53.json") else {
        return;
    };
    let s = tracekit_chrome::read_path(&path).unwrap();
    // 10 events: X 6, ( 2, ) 1, O 1; 117 stackFrames, 280 samples.
    assert_eq!(s.call_event_count(), 12);
    assert_eq!(skipped(&s, "( (context enter)"), 2);
    assert_eq!(skipped(&s, ") (context leave)"), 1);
    assert_eq!(skipped(&s, "O (object snapshot)"), 1);
    assert_eq!(skipped(&s, "stackFrames"), 117);
    assert_eq!(skipped(&s, "samples"), 280);
    assert!(s.repairs.is_empty(), "{:?}", s.repairs);
    assert!(
        s.clocks.thread_cpu,
        "tts/tdur on every X event give the thread-CPU clock"
    );
    let clock = s.source_clock.as_ref().unwrap();
    assert_eq!(
        (clock.name.as_str(), clock.origin_ns),
        ("monotonic", 196_489_505_302_000)
    );
    assert_eq!(s.threads.len(), 1);
    assert_eq!((s.threads[0].pid, s.threads[0].tid), (Some(13931), 13956));
    let calls = calls_of(&s);
    assert_eq!(calls, x_events_of(&path, clock.origin_ns));
    // The outermost task: MessageLoop::RunTask, 463 µs wall, 460 µs thread time.
    let run = calls.iter().find(|c| c.2 == "MessageLoop::RunTask").unwrap();
    assert_eq!((run.4 - run.3, run.6 - run.5), (463_000, 460_000));
    assert_eq!(
        s.properties
            .iter()
            .find(|(k, _)| k == "clock-domain")
            .map(|(_, v)| v.as_str()),
        Some("LINUX_CLOCK_MONOTONIC")
    );
}

#[test]
fn real_files_survive_a_round_trip() {
    for name in [
        "speedscope_chrome116_devtools_trace.json",
        "catapult_profile_chrome_nexus5_chrome53.json",
    ] {
        let Some(path) = realdata(name) else {
            return;
        };
        let bytes = std::fs::read(&path).unwrap();
        assert!(tracekit_chrome::sniff(&bytes[..bytes.len().min(64 << 10)]), "{name}");
        let s = tracekit_chrome::read_path(&path).unwrap();
        let mut out = Vec::new();
        tracekit_chrome::write(&s, &mut out).unwrap();
        let back = tracekit_chrome::read_bytes(&out, name).unwrap();
        assert_eq!(calls_of(&back), calls_of(&s), "{name}");
        assert_eq!(back.markers, s.markers, "{name}");
        assert_eq!(back.async_slices.len(), s.async_slices.len(), "{name}");
        assert_eq!(back.source_clock, s.source_clock, "{name}");
        assert_eq!(back.clocks, s.clocks, "{name}");
    }
}
