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
    (
        field(),
        field(),
        field(),
        proptest::option::of("[A-Za-z]{1,8}\\.java"),
        proptest::option::of(0u32..100_000),
    )
        .prop_map(|(class, name, sig, file, line)| {
            let mut m = Method::new(class, name, sig);
            m.source_file = file;
            m.line = line;
            m
        })
}

/// One thread's balanced call sequence as (enter?, method index, unwind?, wall step, cpu step) steps.
type Steps = Vec<(bool, usize, bool, u32, u32)>;

fn thread_steps() -> impl Strategy<Value = Steps> {
    proptest::collection::vec(
        (any::<bool>(), 0usize..64, any::<bool>(), 0u32..5_000, 0u32..5_000),
        0..60,
    )
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
            s.calls_mut(id).push(CallEvent {
                kind,
                method: tracekit_model::MethodId(m),
                ts_ns: ts * 1000,
                cpu_ns,
            });
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
                push(
                    &mut s,
                    if unwind { CallKind::Unwind } else { CallKind::Exit },
                    m,
                    wall,
                    cpu,
                );
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
    (
        clocks(),
        proptest::collection::vec(method(), 1..12),
        proptest::collection::vec(thread_steps(), 1..4),
        0u64..2_000_000_000_000_000,
    )
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

/// The session as ART's streaming variant (`0xF3`, dual clock): thread and
/// method packets before first use, records, then the summary packet.
fn streaming_bytes(s: &Session) -> Vec<u8> {
    let mut b = tracekit_dmtrace::BinaryHeader {
        version: 3,
        streaming: true,
        data_offset: 32,
        start_unix_us: (s.anchor_unix_ns.unwrap() / 1000) as u64,
        record_size: 14,
        start_monotonic_ns: 0,
    }
    .to_bytes()
    .to_vec();
    let (mut seen_t, mut seen_m) = (std::collections::HashSet::new(), std::collections::HashSet::new());
    for (tid, e) in merged(s) {
        if seen_t.insert(tid) {
            let name = &s.threads.iter().find(|t| t.tid == u32::from(tid)).unwrap().name;
            b.extend([0, 0, tracekit_dmtrace::OP_THREAD]);
            b.extend(tid.to_le_bytes());
            b.extend((name.len() as u16).to_le_bytes());
            b.extend(name.as_bytes());
        }
        let m = s.methods.get(e.method);
        let id = m.address.unwrap() as u32;
        if seen_m.insert(id) {
            let line = format!(
                "{id:#x}\t{}\t{}\t{}\t{}\n",
                m.class,
                m.name,
                m.signature,
                m.source_file.as_deref().unwrap_or("")
            );
            b.extend([0, 0, tracekit_dmtrace::OP_METHOD]);
            b.extend((line.len() as u16).to_le_bytes());
            b.extend(line.as_bytes());
        }
        b.extend(tid.to_le_bytes());
        b.extend((id | e.kind as u32).to_le_bytes());
        b.extend(((e.cpu_ns.unwrap() / 1000) as u32).to_le_bytes());
        b.extend(((e.ts_ns / 1000) as u32).to_le_bytes());
    }
    let summary = "*version\n3\ndata-file-overflow=false\nclock=dual\nvm=art\n*threads\n*methods\n*end\n";
    b.extend([0, 0, tracekit_dmtrace::OP_SUMMARY]);
    b.extend((summary.len() as u32).to_le_bytes());
    b.extend(summary.as_bytes());
    b
}

fn uleb(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn sleb(out: &mut Vec<u8>, mut v: i64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if (v == 0 && b & 0x40 == 0) || (v == -1 && b & 0x40 != 0) {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// The session in ART's newer format: version 5 (dual) or 4, one entry
/// block per thread, then the summary.
fn packet_bytes(s: &Session) -> Vec<u8> {
    let dual = s.clocks.wall && s.clocks.thread_cpu;
    let mut b = Vec::new();
    b.extend(0x574F_4C53u32.to_le_bytes());
    b.extend((if dual { 5u16 } else { 4 }).to_le_bytes());
    b.extend(77u64.to_le_bytes());
    b.resize(32, 0);
    for t in &s.threads {
        b.push(0);
        b.extend(t.tid.to_le_bytes());
        b.extend((t.name.len() as u16).to_le_bytes());
        b.extend(t.name.as_bytes());
    }
    for (_, m) in s.methods.iter() {
        let line = format!(
            "{}\t{}\t{}\t{}\n",
            m.class,
            m.name,
            m.signature,
            m.source_file.as_deref().unwrap_or("")
        );
        b.push(1);
        b.extend(m.address.unwrap().to_le_bytes());
        b.extend((line.len() as u16).to_le_bytes());
        b.extend(line.as_bytes());
    }
    for (_, t, calls) in s.thread_calls() {
        let mut body = Vec::new();
        let (mut pm, mut pw, mut pc) = (0u64, 0u64, 0u64);
        for e in calls.iter() {
            let word = s.methods.get(e.method).address.unwrap() | e.kind as u64;
            sleb(&mut body, word.wrapping_sub(pm) as i64);
            pm = word;
            let cpu = e.cpu_ns.unwrap_or(0);
            if s.clocks.wall {
                uleb(&mut body, e.ts_ns - pw);
                pw = e.ts_ns;
            }
            if s.clocks.thread_cpu {
                uleb(&mut body, cpu - pc);
                pc = cpu;
            }
        }
        b.push(2);
        b.extend(t.tid.to_le_bytes());
        b.extend(&(calls.len() as u32).to_le_bytes()[..3]);
        b.extend((body.len() as u32).to_le_bytes());
        b.extend(body);
    }
    let summary = format!(
        "*version\n{}\nclock={}\nelapsed-time-nsec=5\n*end\n",
        if dual { 5 } else { 4 },
        s.clocks.name()
    );
    b.push(3);
    b.extend((summary.len() as u16).to_le_bytes());
    b.extend(summary.as_bytes());
    b
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn new_format_reads_back(s in session(false)) {
        let bytes = packet_bytes(&s);
        for r in [read_bytes(&bytes).unwrap(), tracekit_dmtrace::read(&bytes[..]).unwrap()] {
            prop_assert_eq!(r.clocks, s.clocks);
            prop_assert_eq!(&r.threads, &s.threads);
            prop_assert_eq!(all_events(&r), all_events(&s));
            // The format's method lines carry no declaration line.
            for ((_, x), (_, y)) in r.methods.iter().zip(s.methods.iter()) {
                prop_assert_eq!(x, &Method { line: None, ..y.clone() });
            }
            prop_assert!(r.repairs.is_empty(), "{:?}", r.repairs);
        }
    }

    #[test]
    fn streaming_variant_reads_back(s in session(false)) {
        prop_assume!(s.clocks == Clocks::DUAL);
        // Streaming files name the threads that ran, in first-use order.
        let by_tid = |x: &Session| {
            let mut v: Vec<(u32, Vec<CallEvent>)> = x.thread_calls().filter(|(_, _, c)| !c.is_empty()).map(|(_, t, c)| (t.tid, c.iter().collect())).collect();
            v.sort_by_key(|p| p.0);
            v
        };
        let expected = by_tid(&s);
        let bytes = streaming_bytes(&s);
        for r in [read_bytes(&bytes).unwrap(), tracekit_dmtrace::read(&bytes[..]).unwrap()] {
            let got = by_tid(&r);
            prop_assert_eq!(got.len(), expected.len());
            for ((gt, g), (et, e)) in got.iter().zip(&expected) {
                prop_assert_eq!(gt, et);
                prop_assert_eq!(g.len(), e.len());
                for (a, b) in g.iter().zip(e) {
                    prop_assert_eq!((a.kind, a.ts_ns, a.cpu_ns), (b.kind, b.ts_ns, b.cpu_ns));
                    prop_assert_eq!(r.methods.get(a.method).address, s.methods.get(b.method).address);
                    prop_assert_eq!(&r.methods.get(a.method).name, &s.methods.get(b.method).name);
                }
            }
            prop_assert!(r.repairs.is_empty(), "{:?}", r.repairs);
        }
    }

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
    let mut s = Session::new("x", Clocks::WALL);
    let t = s.add_thread(Thread::new(1, "main"));
    s.calls_mut(t)
        .push(CallEvent::enter(tracekit_model::MethodId(3), 0, None));
    assert!(
        write(&s, &mut Vec::new()).is_err(),
        "a call to a method the session lacks"
    );
    let info = TraceInfo::new(Clocks::WALL);
    let mut w = TraceWriter::new(Cursor::new(Vec::new()), &info).unwrap();
    assert!(w.write_record(1, 5, CallKind::Enter, 0, 0).is_err());
}
