//! Write → read on generated and handmade sessions: the same threads,
//! calls (kind, method, nesting), wall and thread times to the nanosecond
//! (the writer keeps three decimals of µs), counters, markers and async
//! slices come back, shifted by the one offset the reader's timeline takes
//! (timeline 0 = the earliest event).

use proptest::prelude::*;
use tracekit_model::*;

/// The earliest time of everything the writer writes, on the session's timeline.
fn earliest(s: &Session) -> i64 {
    let mut t = i64::MAX;
    for (_, _, c) in s.thread_calls() {
        if let Some(&f) = c.times().first() {
            t = t.min(f as i64);
        }
    }
    t = s.markers.iter().map(|m| m.ts_ns as i64).fold(t, i64::min);
    t = s.async_slices.iter().map(|a| a.ts_ns as i64).fold(t, i64::min);
    for c in &s.counters {
        t = c.times.iter().copied().fold(t, i64::min);
    }
    for c in s.context.iter().filter(|c| c.kind() != ContextType::String) {
        t = c.times.iter().copied().fold(t, i64::min);
    }
    t
}

fn round_trip(s: &Session) -> Session {
    let mut out = Vec::new();
    tracekit_chrome::write(s, &mut out).unwrap();
    assert!(tracekit_chrome::sniff(&out[..out.len().min(65536)]));
    tracekit_chrome::read_bytes(&out, "rt.json").unwrap_or_else(|e| panic!("{e}"))
}

/// Checks that `back` is `s` read back; returns the timeline shift.
fn assert_same(s: &Session, back: &Session) -> i64 {
    let shift = earliest(s);
    assert_eq!(back.clocks, s.clocks);
    assert!(back.repairs.is_empty(), "{:?}", back.repairs);
    assert_eq!(back.threads.len(), s.threads.len());
    let single = (s.processes.len() == 1).then(|| s.processes[0].pid);
    for ((_, t, calls), (_, bt, bcalls)) in s.thread_calls().zip(back.thread_calls()) {
        assert_eq!((&bt.name, bt.tid), (&t.name, t.tid));
        assert_eq!(bt.pid, Some(t.pid.or(single).unwrap_or(tracekit_chrome::DEFAULT_PID)));
        assert_eq!(bcalls.len(), calls.len(), "thread {}", t.name);
        let cpu0 = calls.iter().next().and_then(|e| e.cpu_ns).unwrap_or(0);
        for (e, b) in calls.iter().zip(bcalls.iter()) {
            assert_eq!(b.kind, e.kind);
            assert_eq!(
                back.methods.get(b.method).display_name(),
                s.methods.get(e.method).display_name()
            );
            assert_eq!(b.ts_ns as i64, e.ts_ns as i64 - shift);
            assert_eq!(b.cpu_ns, e.cpu_ns.map(|c| c - cpu0));
        }
    }
    let markers: Vec<(u64, u32, &str)> = back
        .markers
        .iter()
        .map(|m| (m.ts_ns, m.thread.0, m.name.as_str()))
        .collect();
    let mut expected: Vec<(u64, u32, &str)> = s
        .markers
        .iter()
        .map(|m| ((m.ts_ns as i64 - shift) as u64, m.thread.0, m.name.as_str()))
        .collect();
    expected.sort_by_key(|m| m.0);
    assert_eq!(markers, expected);
    let mut tracks: Vec<(String, Vec<i64>, Vec<f64>)> = s
        .counters
        .iter()
        .map(|c| {
            (
                c.name.clone(),
                c.times.iter().map(|t| t - shift).collect(),
                c.values.clone(),
            )
        })
        .collect();
    for c in s.context.iter().filter(|c| c.kind() != ContextType::String) {
        let values = (0..c.len()).map(|i| c.samples.get_f64(i).unwrap()).collect();
        tracks.push((c.label.clone(), c.times.iter().map(|t| t - shift).collect(), values));
    }
    let got: Vec<(String, Vec<i64>, Vec<f64>)> = back
        .counters
        .iter()
        .map(|c| (c.name.clone(), c.times.clone(), c.values.clone()))
        .collect();
    assert_eq!(got.len(), tracks.len());
    for (g, t) in got.iter().zip(&tracks) {
        assert_eq!(g.0, t.0);
        assert_eq!(g.1, t.1, "{}", t.0);
        for (a, b) in g.2.iter().zip(&t.2) {
            // Float tracks were f32: compare at f32 precision.
            assert!((a - b).abs() <= b.abs() * 1e-6, "{}: {a} vs {b}", t.0);
        }
    }
    assert_eq!(back.async_slices.len(), s.async_slices.len());
    for (b, a) in back.async_slices.iter().zip(&s.async_slices) {
        assert_eq!(
            (&b.name, &b.category, b.cookie, b.thread, b.dur_ns, b.open),
            (&a.name, &a.category, a.cookie, a.thread, a.dur_ns, a.open)
        );
        assert_eq!(b.ts_ns as i64, a.ts_ns as i64 - shift);
    }
    assert_eq!(back.anchor_unix_ns, s.anchor_unix_ns.map(|a| a + shift));
    shift
}

#[test]
fn the_bundled_example_comes_back() {
    let s = tracekit_example::browser_session(&tracekit_example::Options {
        seed: 7,
        duration_s: 30.0,
    });
    assert!(s.call_event_count() > 10_000);
    let unwinds = s
        .thread_calls()
        .flat_map(|(_, _, c)| c.iter())
        .filter(|e| e.kind == CallKind::Unwind)
        .count();
    let back = round_trip(&s);
    let shift = assert_same(&s, &back);
    assert!(shift < 0, "the context log starts before the trace: {shift}");
    let back_unwinds = back
        .thread_calls()
        .flat_map(|(_, _, c)| c.iter())
        .filter(|e| e.kind == CallKind::Unwind)
        .count();
    assert_eq!(back_unwinds, unwinds);
    assert_eq!(back.processes[0].name, "org.mozilla.fennec");
    assert_eq!(
        back.properties.iter().find(|(k, _)| k == "vm").map(|(_, v)| v.as_str()),
        Some("dalvik")
    );
}

#[test]
fn the_synthetic_session_comes_back_and_again() {
    let s = tracekit_report::synthetic::session(30_000);
    let back = round_trip(&s);
    assert_same(&s, &back);
    // A second trip changes nothing more: the first read fixed the origin.
    let again = round_trip(&back);
    assert_eq!(assert_same(&back, &again), 0);
    assert_eq!(again.source_clock, back.source_clock);
}

/// A session with what the generated ones lack: several processes, a
/// thread of unknown process, names that need escaping, zero-length and
/// same-time calls, sub-µs times, a wall-only clock, markers, async slices
/// (one still open), a counter of one process and a categorised method.
fn handmade(clocks: Clocks) -> Session {
    let mut s = Session::new("hand", clocks);
    s.processes.push(Process {
        pid: 10,
        name: "first \"one\"".into(),
    });
    s.processes.push(Process {
        pid: 20,
        name: "zweite ✓".into(),
    });
    let a = s.add_thread(Thread {
        tid: 11,
        pid: Some(10),
        name: "main".into(),
    });
    let b = s.add_thread(Thread {
        tid: 21,
        pid: Some(20),
        name: "wörker\ttab".into(),
    });
    let c = s.add_thread(Thread::new(7, ""));
    let f = s.methods.intern(Method::new("a/B", "f", "(I)V"));
    let g = s.methods.intern(Method::new("", "g \"quoted\" \\ \u{1}", ""));
    let mut h = Method::new("", "h", "");
    h.module = Some("toplevel,cat".into());
    let h = s.methods.intern(h);
    let cpu = |t: u64| clocks.thread_cpu.then_some(t / 2);
    for (thread, times) in [
        (a, [1_001u64, 1_001, 2_500, 2_500, 9_999]),
        (b, [5, 6, 6, 6, 7]),
        (c, [0, 0, 0, 0, 0]),
    ] {
        let calls = s.calls_mut(thread);
        calls.push(CallEvent::enter(f, times[0], cpu(times[0])));
        calls.push(CallEvent::enter(g, times[1], cpu(times[1])));
        calls.push(CallEvent::unwind(g, times[2], cpu(times[2])));
        calls.push(CallEvent::enter(h, times[3], cpu(times[3])));
        calls.push(CallEvent::exit(h, times[3], cpu(times[3])));
        calls.push(CallEvent::exit(f, times[4], cpu(times[4])));
    }
    s.markers.push(Marker {
        ts_ns: 2_000,
        thread: b,
        name: "brb".into(),
    });
    s.markers.push(Marker {
        ts_ns: 3,
        thread: a,
        name: "early \u{7f}".into(),
    });
    s.async_slices.push(AsyncSlice {
        name: "load".into(),
        category: Some("net".into()),
        cookie: 0x1f,
        pid: Some(10),
        thread: Some(a),
        ts_ns: 100,
        dur_ns: 5_000,
        open: false,
    });
    s.async_slices.push(AsyncSlice {
        name: "never".into(),
        category: Some("net".into()),
        cookie: 2,
        pid: Some(20),
        thread: Some(b),
        ts_ns: 200,
        dur_ns: 0,
        open: true,
    });
    let mut counter = CounterTrack::new("queue depth", None);
    counter.pid = Some(20);
    counter.push(50, 1.5);
    counter.push(60, -2.25e-7);
    s.counters.push(counter);
    s.anchor_unix_ns = Some(1_700_000_000_123_456_789);
    s.source_clock = Some(SourceClock {
        name: "boot".into(),
        origin_ns: 123_456_789,
    });
    s
}

#[test]
fn handmade_sessions_come_back() {
    for clocks in [Clocks::DUAL, Clocks::WALL] {
        let s = handmade(clocks);
        let back = round_trip(&s);
        // The open async slice comes back open, and is reported as such.
        let mut repairs = back.clone();
        repairs
            .repairs
            .retain(|r| r.code != tracekit_chrome::repair::ASYNC_OPEN_AT_END);
        assert_eq!(back.repairs.len(), 1);
        assert_same(&s, &repairs);
        assert_eq!(back.threads[2].pid, Some(tracekit_chrome::DEFAULT_PID));
        assert_eq!(back.processes[1].name, "zweite ✓");
        let h = back.methods.find("h");
        assert_eq!(back.methods.get(h[0]).module.as_deref(), Some("toplevel,cat"));
        let clock = back.source_clock.unwrap();
        assert_eq!(clock.name, "boot");
        assert_eq!(clock.origin_ns, 123_456_789);
    }
}

#[test]
fn output_is_json_that_viewers_accept() {
    // Python's json module as an independent parser, checking what
    // chrome://tracing and Perfetto's importer need of each event.
    let Ok(python) = which_python() else {
        eprintln!("skipped: python3 not found");
        return;
    };
    let mut out = Vec::new();
    tracekit_chrome::write(&handmade(Clocks::DUAL), &mut out).unwrap();
    let dir = std::env::temp_dir().join(format!("tracekit-chrome-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("out.json");
    std::fs::write(&file, &out).unwrap();
    let check = r#"
import json, sys, collections
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
need = {"B": "ph pid tid ts name", "E": "ph pid tid ts", "i": "ph pid tid ts name s",
        "C": "ph pid ts name args", "M": "ph pid name args", "b": "ph pid tid ts name cat id",
        "e": "ph pid tid ts name cat id"}
depth = collections.Counter()
for e in ev:
    for k in need[e["ph"]].split():
        assert k in e, (k, e)
    for k in ("pid", "tid"):
        assert k not in e or isinstance(e[k], int), e
    assert "ts" not in e or isinstance(e["ts"], (int, float)) and e["ts"] >= 0, e
    if e["ph"] in "BE":
        depth[(e["pid"], e["tid"])] += 1 if e["ph"] == "B" else -1
        assert depth[(e["pid"], e["tid"])] >= 0, e
assert all(v == 0 for v in depth.values()), depth
assert isinstance(d["metadata"], dict)
print(len(ev))
"#;
    let res = std::process::Command::new(python)
        .arg("-c")
        .arg(check)
        .arg(&file)
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert!(res.status.success(), "{}", String::from_utf8_lossy(&res.stderr));
    let n: usize = String::from_utf8_lossy(&res.stdout).trim().parse().unwrap();
    // 2 process names, 3 thread names, 18 call events, 2 markers, 2
    // counter samples, 3 async events.
    assert_eq!(n, 30);
}

fn which_python() -> Result<&'static str, ()> {
    std::process::Command::new("python3")
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|_| "python3")
        .ok_or(())
}

/// A random balanced call tree on up to three threads.
fn session_strategy() -> impl Strategy<Value = Session> {
    let thread = proptest::collection::vec((0u8..4, 0u64..3_000, 0u64..5), 0..60);
    (
        proptest::collection::vec(thread, 1..4),
        any::<bool>(),
        "[a-zA-Z\"\\\\é ]{0,6}",
    )
        .prop_map(|(threads, dual, extra)| {
            let mut s = Session::new("p", if dual { Clocks::DUAL } else { Clocks::WALL });
            let methods: Vec<MethodId> = (0..4)
                .map(|i| s.methods.intern(Method::new("", format!("m{i}{extra}"), "")))
                .collect();
            for (ti, steps) in threads.into_iter().enumerate() {
                let id = s.add_thread(Thread::new(ti as u32 + 1, format!("t{ti}")));
                let (mut t, mut cpu, mut stack) = (0u64, 0u64, Vec::new());
                for (op, dt, dc) in steps {
                    t += dt;
                    cpu += dc;
                    let c = dual.then_some(cpu);
                    if op < 2 || stack.is_empty() {
                        let m = methods[op as usize % 4];
                        stack.push(m);
                        s.calls_mut(id).push(CallEvent::enter(m, t, c));
                    } else if let Some(m) = stack.pop() {
                        let e = if op == 3 {
                            CallEvent::unwind(m, t, c)
                        } else {
                            CallEvent::exit(m, t, c)
                        };
                        s.calls_mut(id).push(e);
                    }
                }
                while let Some(m) = stack.pop() {
                    s.calls_mut(id).push(CallEvent::exit(m, t, dual.then_some(cpu)));
                }
            }
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_sessions_come_back(s in session_strategy()) {
        let back = round_trip(&s);
        assert_same(&s, &back);
    }
}

/// Found by the property above: a dual-clock session whose threads made no
/// calls has no `tts` to show its thread clock; tracekit's metadata keeps it.
#[test]
fn dual_clocks_survive_without_calls() {
    let mut s = Session::new("p", Clocks::DUAL);
    s.add_thread(Thread::new(1, "t0"));
    assert_eq!(round_trip(&s).clocks, Clocks::DUAL);
}
