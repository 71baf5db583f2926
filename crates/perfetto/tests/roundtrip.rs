//! Sessions written as Perfetto traces and read back give the same calls
//! (method names, nesting, kinds), times to the ns, thread-CPU times,
//! counters, markers, async and scheduling slices.

use proptest::prelude::*;
use tracekit_model::*;

/// A counter or numeric context item: name, unit, times, values.
type Series = (String, Option<String>, Vec<i64>, Vec<f64>);
/// An async slice: name, category, pid, start, duration.
type AsyncKey = (String, Option<String>, Option<u32>, u64, u64);

/// A thread's calls as comparable rows: kind, method display name, times.
fn rows(s: &Session, t: ThreadId) -> Vec<(CallKind, String, u64, Option<u64>)> {
    s.calls(t)
        .iter()
        .map(|e| (e.kind, s.methods.get(e.method).display_name(), e.ts_ns, e.cpu_ns))
        .collect()
}

fn thread_with_tid(s: &Session, tid: u32) -> ThreadId {
    let i = s.threads.iter().position(|t| t.tid == tid).expect("thread present");
    ThreadId(i as u32)
}

fn round_trip(s: &Session) -> Session {
    let mut bytes = Vec::new();
    tracekit_perfetto::write(s, &mut bytes).unwrap();
    assert!(tracekit_perfetto::sniff(&bytes[..bytes.len().min(65536)]));
    tracekit_perfetto::read_bytes(&bytes, "rt.pftrace").unwrap()
}

/// Checks calls, threads, counters, context items and markers.
fn assert_same(a: &Session, b: &Session) {
    assert_eq!(a.clocks, b.clocks, "clocks");
    assert_eq!(a.anchor_unix_ns, b.anchor_unix_ns, "anchor");
    for (t, thread, calls) in a.thread_calls() {
        if calls.is_empty() {
            continue;
        }
        let u = thread_with_tid(b, thread.tid);
        assert_eq!(b.thread(u).name, thread.name);
        assert!(b.thread(u).pid.is_some());
        let (x, y) = (rows(a, t), rows(b, u));
        assert_eq!(x.len(), y.len(), "events of thread {}", thread.tid);
        for (i, (p, q)) in x.iter().zip(&y).enumerate() {
            assert_eq!(p, q, "event {i} of thread {}", thread.tid);
        }
    }
    let numeric = a.context.iter().filter(|c| c.kind() != ContextType::String);
    let expected: Vec<Series> = numeric
        .map(|c| {
            let v = (0..c.len()).map(|i| c.samples.get_f64(i).unwrap()).collect();
            (c.label.clone(), c.unit.clone(), c.times.clone(), v)
        })
        .chain(
            a.counters
                .iter()
                .map(|c| (c.name.clone(), c.unit.clone(), c.times.clone(), c.values.clone())),
        )
        .collect();
    assert_eq!(b.counters.len(), expected.len());
    for (name, unit, times, values) in expected {
        let c = b.counters.iter().find(|c| c.name == name).expect("counter kept");
        assert_eq!(c.unit, unit, "{name}");
        assert_eq!(c.times, times, "{name}");
        assert_eq!(c.values, values, "{name}");
    }
    let marks = |s: &Session| -> Vec<(u64, u32, String)> {
        let mut v: Vec<_> = s
            .markers
            .iter()
            .map(|m| (m.ts_ns, s.thread(m.thread).tid, m.name.clone()))
            .collect();
        v.sort();
        v
    };
    assert_eq!(marks(a), marks(b));
}

#[test]
fn the_bundled_example_survives() {
    let s = tracekit_example::browser_session(&tracekit_example::Options {
        seed: 5,
        duration_s: 20.0,
    });
    let back = round_trip(&s);
    assert!(back.call_event_count() > 10_000);
    assert_same(&s, &back);
    assert_eq!(
        back.processes.iter().find(|p| p.pid == 2817).unwrap().name,
        s.processes[0].name
    );
    assert!(back.repairs.is_empty(), "{:?}", back.repairs);
    // Text context items are instants on tracks of their own, and come back.
    let wifi = s.context.iter().find(|c| c.kind() == ContextType::String).unwrap();
    assert_eq!(back.context_track(&wifi.label), Some(wifi));
}

#[test]
fn the_synthetic_viewer_session_survives() {
    let s = tracekit_report::synthetic::session(30_000);
    assert_same(&s, &round_trip(&s));
}

/// A session exercising what the example does not: unwinds, markers,
/// categories, async and scheduling slices, per-process counters, threads
/// of several processes.
fn handmade() -> Session {
    let mut s = Session::new("hand", Clocks::WALL);
    s.source_clock = Some(SourceClock {
        name: "boot".into(),
        origin_ns: 5_000_000_000,
    });
    s.processes.push(Process {
        pid: 10,
        name: "app".into(),
    });
    s.processes.push(Process {
        pid: 20,
        name: "server".into(),
    });
    let a = s.add_thread(Thread {
        tid: 10,
        pid: Some(10),
        name: "main".into(),
    });
    let b = s.add_thread(Thread {
        tid: 21,
        pid: Some(20),
        name: "worker".into(),
    });
    let mut draw = Method::new("com/ex/View", "draw", "(I)V");
    draw.module = Some("gfx".into());
    let draw = s.methods.intern(draw);
    let io = s.methods.intern(Method::new("", "read", ""));
    let c = s.calls_mut(a);
    c.push(CallEvent::enter(draw, 0, None));
    c.push(CallEvent::enter(io, 10, None));
    c.push(CallEvent::unwind(io, 15, None));
    c.push(CallEvent::enter(io, 15, None));
    c.push(CallEvent::exit(io, 15, None));
    c.push(CallEvent::exit(draw, 40, None));
    let c = s.calls_mut(b);
    c.push(CallEvent::enter(io, 3, None));
    c.push(CallEvent::exit(io, 99, None));
    s.markers.push(Marker {
        ts_ns: 12,
        thread: a,
        name: "brb".into(),
    });
    let mut q = CounterTrack::new("queue", None);
    q.pid = Some(20);
    q.push(1, 3.0);
    q.push(50, 0.5);
    s.counters.push(q);
    let mut f = CounterTrack::new("cpu1 freq", Some("kHz"));
    f.cpu = Some(1);
    f.push(0, 300_000.0);
    f.push(30, 1_800_000.0);
    s.counters.push(f);
    let mut idle = CounterTrack::new("cpu1 idle", None);
    idle.cpu = Some(1);
    idle.push(2, 1.0);
    idle.push(9, -1.0);
    s.counters.push(idle);
    let mut v = CounterTrack::new("battery voltage", Some("V")).with_kind(CounterKind::Sampled);
    v.push(-20, 3.85);
    s.counters.push(v);
    for (name, ts, dur) in [("load", 2, 30), ("load", 20, 40), ("fetch", 5, 10)] {
        s.async_slices.push(AsyncSlice {
            name: name.into(),
            category: Some("net".into()),
            cookie: 1,
            pid: Some(10),
            thread: Some(a),
            ts_ns: ts,
            dur_ns: dur,
            open: false,
        });
    }
    for (cpu, ts, dur, t, state) in [
        (0, 0, 10, a, Some("S")),
        (0, 10, 5, b, Some("R+")),
        (1, 4, 90, b, Some("D")),
    ] {
        s.sched.push(SchedSlice {
            cpu,
            ts_ns: ts,
            dur_ns: dur,
            thread: t,
            priority: Some(120),
            end_state: state.map(EndState::new),
        });
    }
    s
}

#[test]
fn unwinds_markers_async_and_sched_survive() {
    let s = handmade();
    let back = round_trip(&s);
    assert_same(&s, &back);
    assert_eq!(back.source_clock, s.source_clock);
    let m = back
        .methods
        .iter()
        .find(|(_, m)| m.name == "com.ex.View.draw (I)V")
        .unwrap()
        .1;
    assert_eq!(m.module.as_deref(), Some("gfx"));
    let key = |s: &Session| -> Vec<AsyncKey> {
        let mut v: Vec<_> = s
            .async_slices
            .iter()
            .map(|a| (a.name.clone(), a.category.clone(), a.pid, a.ts_ns, a.dur_ns))
            .collect();
        v.sort();
        v
    };
    assert_eq!(key(&s), key(&back));
    let sched = |s: &Session| -> Vec<(u32, u64, u64, u32, Option<String>)> {
        let mut v: Vec<_> = s
            .sched
            .iter()
            .map(|x| {
                (
                    x.cpu,
                    x.ts_ns,
                    x.dur_ns,
                    s.thread(x.thread).tid,
                    x.end_state.map(|e| e.as_str().to_owned()),
                )
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(sched(&s), sched(&back));
    assert_eq!(back.processes.iter().find(|p| p.pid == 20).unwrap().name, "server");
    let mut counters = back.counters.clone();
    counters.sort_by(|a, b| a.name.cmp(&b.name));
    let mut want = s.counters.clone();
    want.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(counters, want, "counters keep unit, process, CPU and kind");
}

/// Random well-nested call sequences on a few threads, dual clock.
fn arb_session() -> impl Strategy<Value = Session> {
    let thread = proptest::collection::vec((0u8..3, 0u64..5_000, 0u64..3_000, any::<bool>()), 0..60);
    proptest::collection::vec(thread, 1..4).prop_map(|threads| {
        let mut s = Session::new("prop", Clocks::DUAL);
        let methods: Vec<MethodId> = ["a", "b", "c"]
            .iter()
            .map(|n| s.methods.intern(Method::new("pkg/K", *n, "()V")))
            .collect();
        for (i, ops) in threads.into_iter().enumerate() {
            let t = s.add_thread(Thread::new(100 + i as u32, format!("t{i}")));
            let (mut ts, mut cpu) = (0u64, 0u64);
            let mut stack = Vec::new();
            let mut cols = CallColumns::new();
            for (op, dt, dc, unwind) in ops {
                ts += dt;
                cpu = if cols.is_empty() { 0 } else { cpu + dc.min(dt) };
                if op < 2 || stack.is_empty() {
                    let m = methods[(op as usize + stack.len()) % 3];
                    stack.push(m);
                    cols.push(CallEvent::enter(m, ts, Some(cpu)));
                } else {
                    let m = stack.pop().unwrap();
                    let e = if unwind {
                        CallEvent::unwind(m, ts, Some(cpu))
                    } else {
                        CallEvent::exit(m, ts, Some(cpu))
                    };
                    cols.push(e);
                }
            }
            while let Some(m) = stack.pop() {
                cols.push(CallEvent::exit(m, ts, Some(cpu)));
            }
            s.set_calls(t, cols);
        }
        s
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn random_sessions_survive(s in arb_session()) {
        let back = round_trip(&s);
        // Threads without calls keep their descriptors; the ones with calls match.
        if s.call_event_count() > 0 {
            // CPU times count from each thread's first reading, as in the model.
            assert_same(&s, &back);
        }
        prop_assert!(back.repairs.is_empty(), "{:?}", back.repairs);
    }
}
