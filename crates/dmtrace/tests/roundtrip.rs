//! Property tests: sessions written by this crate read back unchanged, and
//! the `android_trace_log` crate reads the same records from our files.

use proptest::prelude::*;
use std::io::Cursor;
use tracekit_dmtrace::{read_bytes, write, MethodLine, TraceInfo, TraceWriter};
use tracekit_model::{CallEvent, CallKind, Clocks, Method, Session, Thread, ThreadId};

/// A field without tabs or newlines (and non-empty: the other crate needs that).
fn field() -> impl Strategy<Value = String> {
    "[A-Za-z0-9_$<>/.;()\\[]{1,12}"
}

fn method() -> impl Strategy<Value = Method> {
    (field(), field(), field(), proptest::option::of("[A-Za-z]{1,8}\\.java"), proptest::option::of(0u32..100_000)).prop_map(
        |(class, name, sig, file, line)| {
            let mut m = Method::new(class, name, sig);
            m.source_file = file;
            m.line = line;
            m
        },
    )
}

/// One thread's balanced call sequence as (enter?, method index, unwind?, wall step, cpu step) steps.
type Steps = Vec<(bool, usize, bool, u32, u32)>;

fn thread_steps() -> impl Strategy<Value = Steps> {
    proptest::collection::vec((any::<bool>(), 0usize..64, any::<bool>(), 0u32..5_000, 0u32..5_000), 0..60)
}

/// Builds a session whose timestamps are whole µs. `big` makes steps large
/// enough that the 32-bit µs fields wrap.
fn build(clocks: Clocks, methods: Vec<Method>, threads: Vec<Steps>, anchor_us: u64, big: bool) -> Session {
    let mut s = Session::new("rt", clocks);
    s.anchor_unix_ns = Some(anchor_us as i64 * 1000);
    let n = methods.len();
    for (i, mut m) in methods.into_iter().enumerate() {
        m.address = Some(0x1000 + 4 * i as u64);
        s.methods.push(m);
    }
    for (ti, steps) in threads.into_iter().enumerate() {
        let id = s.add_thread(Thread::new(ti as u32 * 3 + 1, format!("t{ti}")));
        let (mut wall, mut cpu) = (0u64, 0u64);
        let mut stack = Vec::new();
        let scale = if big { 400_000 } else { 1 };
        let push = |s: &mut Session, kind: CallKind, m: u32, wall: u64, cpu: u64| {
            let ts = if clocks.wall { wall } else { cpu };
            let cpu_ns = clocks.thread_cpu.then_some(cpu * 1000);
            s.calls_mut(id).push(CallEvent { kind, method: tracekit_model::MethodId(m), ts_ns: ts * 1000, cpu_ns });
        };
        for (enter, mi, unwind, dw, dc) in steps {
            wall += u64::from(dw) * scale;
            cpu += u64::from(dc.min(dw)) * scale;
            if enter || stack.is_empty() {
                let m = (mi % n) as u32;
                stack.push(m);
                push(&mut s, CallKind::Enter, m, wall, cpu);
            } else {
                let m = stack.pop().unwrap();
                push(&mut s, if unwind { CallKind::Unwind } else { CallKind::Exit }, m, wall, cpu);
            }
        }
        while let Some(m) = stack.pop() {
            push(&mut s, CallKind::Exit, m, wall, cpu);
        }
    }
    s
}

fn clocks() -> impl Strategy<Value = Clocks> {
    prop_oneof![Just(Clocks::DUAL), Just(Clocks::WALL), Just(Clocks::THREAD_CPU)]
}

fn session(big: bool) -> impl Strategy<Value = Session> {
    (clocks(), proptest::collection::vec(method(), 1..12), proptest::collection::vec(thread_steps(), 1..4), 0u64..2_000_000_000_000_000)
        .prop_map(move |(c, m, t, a)| build(c, m, t, a, big))
}

fn all_events(s: &Session) -> Vec<Vec<CallEvent>> {
    s.thread_calls().map(|(_, _, c)| c.iter().collect()).collect()
}

fn assert_same(a: &Session, b: &Session) {
    assert_eq!(a.clocks, b.clocks);
    assert_eq!(a.anchor_unix_ns, b.anchor_unix_ns);
    assert_eq!(a.threads, b.threads);
    assert_eq!(a.methods.len(), b.methods.len());
    for ((_, x), (_, y)) in a.methods.iter().zip(b.methods.iter()) {
        assert_eq!(x, y);
    }
    assert_eq!(all_events(a), all_events(b));
    assert!(b.repairs.is_empty(), "{:?}", b.repairs);
}

/// Events of all threads merged by time, as the writers order them.
fn merged(s: &Session) -> Vec<(u16, CallEvent)> {
    let mut v: Vec<(u64, usize, usize, u16, CallEvent)> = Vec::new();
    for (t, th, c) in s.thread_calls() {
        for (i, e) in c.iter().enumerate() {
            v.push((e.ts_ns, t.0 as usize, i, th.tid as u16, e));
        }
    }
    v.sort_by_key(|x| (x.0, x.1, x.2));
    v.into_iter().map(|x| (x.3, x.4)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn write_then_read_is_identity(s in session(false)) {
        let mut bytes = Vec::new();
        write(&s, &mut bytes).unwrap();
        let back = read_bytes(&bytes).unwrap();
        assert_same(&s, &back);
        prop_assert_eq!(back.duration_ns, Some(s.time_span().map_or(0, |x| x.1)));
    }

    #[test]
    fn wrapped_clocks_survive_the_round_trip(s in session(true)) {
        let mut bytes = Vec::new();
        write(&s, &mut bytes).unwrap();
        let mut back = read_bytes(&bytes).unwrap();
        let wrapped = s.time_span().is_some_and(|(_, hi)| hi / 1000 > u64::from(u32::MAX));
        back.repairs.retain(|r| r.code != tracekit_dmtrace::repair::CLOCK_WRAP || !wrapped);
        assert_same(&s, &back);
    }

    #[test]
    fn streaming_writer_matches_for_every_version(s in session(false), version in 1u16..=3) {
        let dual = s.clocks.wall && s.clocks.thread_cpu;
        prop_assume!(!(dual && version < 3));
        let mut info = TraceInfo::new(s.clocks);
        info.version = version;
        info.start_unix_us = (s.anchor_unix_ns.unwrap() / 1000) as u64;
        info.threads = s.threads.iter().map(|t| (t.tid as u16, t.name.clone())).collect();
        info.methods = s.methods.iter().map(|(_, m)| MethodLine {
            id: m.address.unwrap() as u32, class: m.class.clone(), name: m.name.clone(),
            signature: m.signature.clone(), source_file: m.source_file.clone(), line: m.line,
        }).collect();
        let mut w = TraceWriter::new(Cursor::new(Vec::new()), &info).unwrap();
        for (tid, e) in merged(&s) {
            let id = s.methods.get(e.method).address.unwrap() as u32;
            w.write_record(tid, id, e.kind, e.cpu_ns.unwrap_or(0) / 1000, e.ts_ns / 1000).unwrap();
        }
        let bytes = w.finish().unwrap().into_inner();
        let back = read_bytes(&bytes).unwrap();
        assert_same(&s, &back);
        prop_assert_eq!(back.call_event_count(), s.call_event_count());
    }

    #[test]
    fn android_trace_log_reads_the_same_records(s in session(false)) {
        let mut bytes = Vec::new();
        write(&s, &mut bytes).unwrap();
        let theirs = android_trace_log::parse(&bytes).unwrap();
        let ours = merged(&s);
        prop_assert_eq!(theirs.events.len(), ours.len());
        prop_assert_eq!(theirs.methods.len(), s.methods.len());
        for (t, (tid, e)) in theirs.events.iter().zip(&ours) {
            prop_assert_eq!(t.thread_id, *tid);
            prop_assert_eq!(u64::from(t.method_id) << 2, s.methods.get(e.method).address.unwrap());
            let (cpu, wall) = match t.time {
                android_trace_log::Time::Monotonic { cpu, wall } => (cpu, wall),
                android_trace_log::Time::Global(g) => (None, Some(g)),
            };
            if s.clocks.wall {
                prop_assert_eq!(wall.unwrap().as_nanos() as u64, e.ts_ns);
            }
            if s.clocks.thread_cpu {
                prop_assert_eq!(cpu.unwrap().as_nanos() as u64, e.cpu_ns.unwrap());
            }
        }
    }
}

#[test]
fn placeholder_thread_names_and_missing_addresses_are_written_sensibly() {
    let mut s = Session::new("x", Clocks::WALL);
    let t = s.add_thread(Thread::new(9, ""));
    let m = s.methods.intern(Method::new("a/B", "c", "()V"));
    s.calls_mut(t).push(CallEvent::enter(m, 1000, None));
    s.calls_mut(t).push(CallEvent::exit(m, 2000, None));
    let mut bytes = Vec::new();
    write(&s, &mut bytes).unwrap();
    let back = read_bytes(&bytes).unwrap();
    assert_eq!(back.threads[0].name, "thread 9");
    assert_eq!(back.methods.get(tracekit_model::MethodId(0)).address, Some(4));
    assert_eq!(back.calls(ThreadId(0)).len(), 2);
}

#[test]
fn unwritable_sessions_are_errors() {
    let mut s = Session::new("x", Clocks::WALL);
    s.add_thread(Thread::new(70_000, "big"));
    assert!(write(&s, &mut Vec::new()).is_err());
    let mut info = TraceInfo::new(Clocks::DUAL);
    info.version = 2;
    assert!(TraceWriter::new(Cursor::new(Vec::new()), &info).is_err());
    let info = TraceInfo::new(Clocks::WALL);
    let mut w = TraceWriter::new(Cursor::new(Vec::new()), &info).unwrap();
    assert!(w.write_record(1, 5, CallKind::Enter, 0, 0).is_err());
}
