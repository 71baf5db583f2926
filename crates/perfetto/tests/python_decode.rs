//! The writer's output decoded by Perfetto's own published protobuf
//! definitions: `tests/perfetto_check.py` parses it with the generated
//! `perfetto_trace_pb2` of the `perfetto` PyPI package (installed by
//! `scripts/deps/perfetto.sh`), rebuilds slices, counters and markers from
//! the packets alone, and compares them with the session.

use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;
use tracekit_model::*;

/// Python with the `perfetto` package, or why not.
fn python() -> Result<&'static str, String> {
    let probe = Command::new("python3")
        .args(["-c", "import perfetto.protos.perfetto.trace.perfetto_trace_pb2"])
        .output();
    match probe {
        Ok(o) if o.status.success() => Ok("python3"),
        Ok(o) => Err(String::from_utf8_lossy(&o.stderr)
            .lines()
            .last()
            .unwrap_or("")
            .to_owned()),
        Err(e) => Err(format!("python3: {e}")),
    }
}

/// What the checker must find: each thread's slices in start order (ties:
/// shallower first, then in end order), counters (numeric context items
/// too) and markers, times on the timeline.
fn expected(s: &Session) -> Value {
    let mut threads = serde_json::Map::new();
    for (_, t, calls) in s.thread_calls() {
        if calls.is_empty() {
            continue;
        }
        let mut open: Vec<(String, u64, Option<u64>)> = Vec::new();
        let mut slices = Vec::new();
        for e in calls.iter() {
            if e.kind == CallKind::Enter {
                open.push((s.methods.get(e.method).display_name(), e.ts_ns, e.cpu_ns));
            } else {
                let (name, start, cpu) = open.pop().unwrap();
                let depth = open.len();
                slices.push((name, start, e.ts_ns, depth, cpu, e.cpu_ns, e.kind == CallKind::Unwind));
            }
        }
        slices.sort_by_key(|x| (x.1, x.3));
        threads.insert(
            t.tid.to_string(),
            json!({ "name": t.name, "slices": slices.iter().map(|x| json!([x.0, x.1, x.2, x.3, x.4, x.5, x.6])).collect::<Vec<_>>() }),
        );
    }
    let mut counters = serde_json::Map::new();
    for c in s.context.iter().filter(|c| c.kind() != ContextType::String) {
        let samples: Vec<Value> = (0..c.len())
            .map(|i| json!([c.times[i], c.samples.get_f64(i).unwrap()]))
            .collect();
        counters.insert(c.label.clone(), json!({ "unit": c.unit, "samples": samples }));
    }
    // Per-CPU frequency and idle counters are ftrace events, not counter tracks.
    for c in s.counters.iter().filter(|c| c.cpu.is_none()) {
        let samples: Vec<Value> = c.times.iter().zip(&c.values).map(|(t, v)| json!([t, v])).collect();
        counters.insert(c.name.clone(), json!({ "unit": c.unit, "samples": samples }));
    }
    let markers: Vec<Value> = s
        .markers
        .iter()
        .map(|m| json!([m.ts_ns, s.thread(m.thread).tid, m.name]))
        .collect();
    json!({ "threads": threads, "counters": counters, "markers": markers })
}

fn check(s: &Session) {
    let python = match python() {
        Ok(p) => p,
        Err(why) => {
            eprintln!(
                "skipped: python3 with the perfetto package is not installed ({why}); run scripts/deps/perfetto.sh"
            );
            return;
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("s.pftrace");
    let want = dir.path().join("expected.json");
    let mut bytes = Vec::new();
    tracekit_perfetto::write(s, &mut bytes).unwrap();
    std::fs::write(&trace, &bytes).unwrap();
    std::fs::write(&want, serde_json::to_vec(&expected(s)).unwrap()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/perfetto_check.py");
    let out = Command::new(python)
        .arg(&script)
        .arg(&trace)
        .arg(&want)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "perfetto_check.py failed: {stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("perfetto_check: ok"), "{stdout}");
    eprintln!("{stdout}");
}

#[test]
fn the_bundled_example_decodes_with_perfettos_protos() {
    let s = tracekit_example::browser_session(&tracekit_example::Options {
        seed: 11,
        duration_s: 15.0,
    });
    check(&s);
}

#[test]
fn unwinds_markers_and_counters_decode_with_perfettos_protos() {
    let mut s = Session::new("hand", Clocks::WALL);
    let t = s.add_thread(Thread {
        tid: 42,
        pid: Some(40),
        name: "main".into(),
    });
    let f = s.methods.intern(Method::new("pkg/A", "f", "()V"));
    let g = s.methods.intern(Method::new("", "g", ""));
    for e in [
        CallEvent::enter(f, 100, None),
        CallEvent::enter(g, 100, None),
        CallEvent::unwind(g, 250, None),
        CallEvent::enter(g, 250, None),
        CallEvent::exit(g, 250, None),
        CallEvent::exit(f, 900, None),
    ] {
        s.calls_mut(t).push(e);
    }
    s.markers.push(Marker {
        ts_ns: 300,
        thread: t,
        name: "brb".into(),
    });
    let mut c = CounterTrack::new("battery current", Some("A"));
    c.push(0, -0.25);
    c.push(500, -0.5);
    s.counters.push(c);
    check(&s);
}
