//! Hand-made fixture files (see `tests/fixtures/make_fixtures.py`, which
//! lays them out field by field) read back against expectations derived by
//! hand from the format description.

use tracekit_dmtrace::{read_path, repair, write};
use tracekit_model::{CallEvent, CallKind, Clocks, Session, ThreadId};

fn fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Events of a thread as (kind, qualified method name, ts µs, cpu µs).
fn events(s: &Session, t: u32) -> Vec<(CallKind, String, u64, Option<u64>)> {
    s.calls(ThreadId(t))
        .iter()
        .map(|e: CallEvent| {
            (
                e.kind,
                s.methods.get(e.method).qualified_name(),
                e.ts_ns / 1000,
                e.cpu_ns.map(|c| c / 1000),
            )
        })
        .collect()
}

fn repairs(s: &Session) -> Vec<(String, u64)> {
    let mut r: Vec<_> = s.repairs.iter().map(|r| (r.code.clone(), r.count)).collect();
    r.sort();
    r
}

use CallKind::{Enter as E, Exit as X, Unwind as U};

#[test]
fn version_1_nine_byte_records() {
    let s = read_path(fixture("v1-cpu.trace")).unwrap();
    assert_eq!(s.name, "v1-cpu");
    // No clock= line: thread-CPU, as Traceview assumes.
    assert_eq!(s.clocks, Clocks::THREAD_CPU);
    assert_eq!(s.anchor_unix_ns, Some(1_300_000_000_000_000_000));
    assert_eq!(s.duration_ns, Some(2_000_000));
    assert_eq!(
        s.threads.iter().map(|t| (t.tid, t.name.as_str())).collect::<Vec<_>>(),
        vec![(1, "main"), (3, "worker")]
    );
    let run = s.methods.get(s.methods.find("java.lang.Thread.run")[0]);
    assert_eq!(run.address, Some(0x4001_a2c8));
    assert_eq!(run.source_file.as_deref(), Some("Thread.java"));
    assert_eq!(run.line, Some(100));
    assert_eq!(
        events(&s, 0),
        vec![
            (E, "java.lang.Thread.run".into(), 10, Some(10)),
            (X, "java.lang.Thread.run".into(), 30, Some(30))
        ]
    );
    assert_eq!(
        events(&s, 1),
        vec![
            (E, "com.ex.Work.step".into(), 5, Some(5)),
            (X, "com.ex.Work.step".into(), 25, Some(25))
        ]
    );
    assert!(s.repairs.is_empty(), "{:?}", s.repairs);
}

#[test]
fn version_2_wall_clock_with_repairs() {
    let s = read_path(fixture("v2-wall-repairs.trace")).unwrap();
    assert_eq!(s.clocks, Clocks::WALL);
    assert!(s.properties.contains(&("future-key".into(), "hello".into())));
    // The exit of g without an entry gets an enter at main's first timestamp;
    // f and the second g are still open at the end and close at 300 µs.
    assert_eq!(
        events(&s, 0),
        vec![
            (E, "a.B.g".into(), 100, None),
            (X, "a.B.g".into(), 100, None),
            (E, "a.B.f".into(), 200, None),
            (E, "a.B.g".into(), 300, None),
            (X, "a.B.g".into(), 300, None),
            (X, "a.B.f".into(), 300, None),
        ]
    );
    // Thread 7 is not in *threads and method 0x40 not in *methods.
    assert_eq!(s.threads[1].tid, 7);
    assert_eq!(s.threads[1].name, "[7]");
    assert_eq!(
        events(&s, 1),
        vec![(E, "(0x40)".into(), 250, None), (X, "(0x40)".into(), 250, None)]
    );
    assert_eq!(
        repairs(&s),
        vec![
            (repair::EXIT_WITHOUT_ENTRY.into(), 1),
            (repair::OPEN_AT_END.into(), 3),
            (repair::UNKNOWN_METHOD.into(), 1),
            (repair::UNKNOWN_THREAD.into(), 1),
        ]
    );
}

#[test]
fn version_2_wall_clock_idle_for_forty_minutes_twice() {
    // Each idle gap is over 2^31 µs; the second carries the 32-bit time past
    // 2^32 µs. Both are steps forward: no time goes back, nothing is lost.
    let s = read_path(fixture("v2-wall-idle.trace")).unwrap();
    let g = 40 * 60 * 1_000_000u64;
    let (lp, poll, dispatch) = (
        "android.os.Looper.loop",
        "android.os.MessageQueue.nativePollOnce",
        "android.os.Handler.dispatchMessage",
    );
    assert_eq!(
        events(&s, 0),
        vec![
            (E, lp.into(), 100, None),
            (E, poll.into(), 200, None),
            (X, poll.into(), g + 200, None),
            (E, dispatch.into(), g + 300, None),
            (X, dispatch.into(), g + 5_300, None),
            (E, poll.into(), g + 5_400, None),
            (X, poll.into(), 2 * g + 5_400, None),
            (E, dispatch.into(), 2 * g + 6_000, None),
            (X, dispatch.into(), 2 * g + 9_000, None),
            (X, lp.into(), 2 * g + 10_000, None),
        ]
    );
    assert_eq!(
        events(&s, 1),
        vec![
            (E, dispatch.into(), 300, None),
            (X, dispatch.into(), 400, None),
            (E, dispatch.into(), g + 6_000, None),
            (X, dispatch.into(), g + 7_000, None),
        ]
    );
    assert_eq!(repairs(&s), vec![(repair::CLOCK_WRAP.into(), 1)]);
    assert_eq!(s.time_span().unwrap().1, (2 * g + 10_000) * 1000);
}

#[test]
fn an_unknown_clock_is_repaired_and_reported() {
    let bytes = std::fs::read(fixture("v2-wall-repairs.trace")).unwrap();
    let mut patched = bytes.clone();
    let at = bytes.windows(10).position(|w| w == b"clock=wall").unwrap();
    patched[at + 6..at + 10].copy_from_slice(b"bogs");
    let s = tracekit_dmtrace::read(patched.as_slice()).unwrap();
    assert_eq!(s.clocks, Clocks::THREAD_CPU, "v2 10-byte records: Traceview's default");
    let r = s.repairs.iter().find(|r| r.code == repair::UNKNOWN_CLOCK).unwrap();
    assert!(
        r.detail.contains("clock=\"bogs\"") && r.detail.contains("thread-cpu"),
        "{}",
        r.detail
    );
}

#[test]
fn version_3_thread_cpu_wrap_overflow_truncation() {
    let s = read_path(fixture("v3-cpu-wrap.trace")).unwrap();
    assert_eq!(s.clocks, Clocks::THREAD_CPU);
    assert_eq!(s.processes[0].pid, 42);
    assert_eq!(s.threads[0].pid, Some(42));
    let wrap = 1u64 << 32;
    assert_eq!(
        events(&s, 0),
        vec![
            (E, "a.C.loop".into(), 4_294_967_000, Some(4_294_967_000)),
            (X, "a.C.loop".into(), wrap + 100, Some(wrap + 100)),
            (E, "a.C.loop".into(), wrap + 200, Some(wrap + 200)),
            (X, "a.C.loop".into(), wrap + 200, Some(wrap + 200)),
        ]
    );
    assert_eq!(
        repairs(&s),
        vec![
            (repair::CLOCK_WRAP.into(), 1),
            (repair::DATA_FILE_OVERFLOW.into(), 1),
            (repair::OPEN_AT_END.into(), 1),
            (repair::TRUNCATED_RECORD.into(), 1),
        ]
    );
}

#[test]
fn version_3_dual_clock_reads_and_writes_byte_for_byte() {
    let path = fixture("v3-dual.trace");
    let s = read_path(&path).unwrap();
    assert_eq!(s.clocks, Clocks::DUAL);
    assert_eq!(s.anchor_unix_ns, Some(1_700_000_000_000_000_000));
    assert_eq!(s.duration_ns, Some(1_000_000));
    assert_eq!(
        events(&s, 0),
        vec![
            (E, "com.ex.App.run".into(), 10, Some(0)),
            (E, "com.ex.App.draw".into(), 20, Some(3)),
            (U, "com.ex.App.draw".into(), 40, Some(8)),
            (X, "com.ex.App.run".into(), 90, Some(12)),
        ]
    );
    assert_eq!(
        events(&s, 1),
        vec![
            (E, "com.ex.App.draw".into(), 15, Some(0)),
            (X, "com.ex.App.draw".into(), 60, Some(30))
        ]
    );
    assert_eq!(s.threads[1].name, "RenderThread");
    assert!(s.repairs.is_empty());
    let mut out = Vec::new();
    write(&s, &mut out).unwrap();
    assert_eq!(out, std::fs::read(&path).unwrap());
}

#[test]
fn art_streaming_dual_clock() {
    let s = read_path(fixture("streaming-dual.trace")).unwrap();
    assert_eq!(s.clocks, Clocks::DUAL);
    assert_eq!(s.anchor_unix_ns, Some(1_600_000_000_000_000_000));
    assert_eq!(s.duration_ns, Some(20_000));
    assert_eq!(s.processes[0].pid, 7);
    assert_eq!(s.threads[0].name, "main");
    assert_eq!(
        events(&s, 0),
        vec![
            (E, "com.ex.A.m".into(), 5, Some(0)),
            (E, "com.ex.A.n".into(), 6, Some(1)),
            (X, "com.ex.A.n".into(), 7, Some(2)),
            (X, "com.ex.A.m".into(), 9, Some(3)),
        ]
    );
    let m = s.methods.get(s.methods.find("com.ex.A.n")[0]);
    assert_eq!(
        (m.address, m.source_file.as_deref(), m.line),
        (Some(8), Some("A.java"), None)
    );
    assert!(s.repairs.is_empty(), "{:?}", s.repairs);
}

#[test]
fn the_android_trace_log_crate_reads_our_fixture_the_same_way() {
    let bytes = std::fs::read(fixture("v3-dual.trace")).unwrap();
    let theirs = android_trace_log::parse(&bytes).unwrap();
    assert_eq!(theirs.events.len(), 6);
    assert_eq!(theirs.threads.len(), 2);
    assert_eq!(theirs.methods[1].name, "draw");
}

#[test]
fn malformed_files_are_errors_with_offsets() {
    let good = std::fs::read(fixture("v3-dual.trace")).unwrap();
    let header_at = good.windows(5).position(|w| w == b"*end\n").unwrap() as u64 + 5;
    // Bad magic: the offset is the header's.
    let mut bad = good.clone();
    bad[header_at as usize] = b'X';
    let e = tracekit_dmtrace::read_bytes(&bad).unwrap_err();
    assert_eq!(e.offset(), Some(header_at));
    assert!(e.to_string().contains("magic"), "{e}");
    // Cut inside the header.
    let e = tracekit_dmtrace::read_bytes(&good[..header_at as usize + 10]).unwrap_err();
    assert_eq!(e.offset(), Some(header_at + 10));
    // A bad thread line: line 12, at its first byte.
    let text = String::from_utf8_lossy(&good[..header_at as usize]).replace("5\tRenderThread", "x5\tRenderThread");
    let mut bytes = text.into_bytes();
    bytes.extend_from_slice(&good[header_at as usize..]);
    match tracekit_dmtrace::read_bytes(&bytes).unwrap_err() {
        tracekit_dmtrace::Error::Text { line, offset, message } => {
            assert_eq!(line, 12);
            assert_eq!(&bytes[offset as usize..offset as usize + 2], b"x5");
            assert!(message.contains("thread id"), "{message}");
        }
        other => panic!("unexpected {other:?}"),
    }
    // Not a trace at all.
    assert!(tracekit_dmtrace::read_bytes(b"PK\x03\x04 zip").is_err());
    assert!(tracekit_dmtrace::read_bytes(b"").is_err());
}

#[test]
fn version_5_dual_clock_new_format() {
    let s = read_path(fixture("v5-dual.trace")).unwrap();
    assert_eq!(s.clocks, Clocks::DUAL);
    // The newer format starts on the monotonic clock, not the Unix epoch.
    assert_eq!(s.anchor_unix_ns, None);
    assert!(s
        .properties
        .contains(&("start-monotonic-nsec".into(), "123456789000".into())));
    assert_eq!(s.duration_ns, Some(10_000));
    assert_eq!(
        (s.threads[0].tid, s.threads[0].name.as_str(), s.threads[0].pid),
        (4242, "main", Some(4242))
    );
    let ns = |t: u32| -> Vec<(CallKind, String, u64, Option<u64>)> {
        s.calls(ThreadId(t))
            .iter()
            .map(|e| (e.kind, s.methods.get(e.method).qualified_name(), e.ts_ns, e.cpu_ns))
            .collect()
    };
    assert_eq!(
        ns(0),
        vec![
            (E, "com.ex.A.run".into(), 1000, Some(0)),
            (E, "com.ex.A.draw".into(), 2500, Some(700)),
            (X, "com.ex.A.draw".into(), 4000, Some(1500)),
            (X, "com.ex.A.run".into(), 9000, Some(2000)),
        ]
    );
    let draw = s.methods.get(s.methods.find("com.ex.A.draw")[0]);
    assert_eq!(
        (draw.address, draw.signature.as_str(), draw.source_file.as_deref()),
        (Some(0x7000_0000_1020), "(I)V", Some("A.java"))
    );
    assert!(s.repairs.is_empty(), "{:?}", s.repairs);
}

#[test]
fn version_4_wall_clock_streaming_new_format() {
    let s = read_path(fixture("v4-wall-streaming.trace")).unwrap();
    assert_eq!(s.clocks, Clocks::WALL);
    assert_eq!(s.duration_ns, Some(400));
    let ns = |t: u32| -> Vec<(CallKind, String, u64, Option<u64>)> {
        s.calls(ThreadId(t))
            .iter()
            .map(|e| (e.kind, s.methods.get(e.method).qualified_name(), e.ts_ns, e.cpu_ns))
            .collect()
    };
    // Deltas restart in every block: the exit is at 300 ns, not 400.
    assert_eq!(
        ns(0),
        vec![(E, "com.ex.B.m".into(), 100, None), (X, "com.ex.B.m".into(), 300, None)]
    );
    assert_eq!(s.threads[1].name, "[99]");
    assert_eq!(
        ns(1),
        vec![(E, "(0x5550)".into(), 350, None), (X, "(0x5550)".into(), 350, None)]
    );
    assert_eq!(
        repairs(&s),
        vec![
            (repair::OPEN_AT_END.into(), 1),
            (repair::UNKNOWN_METHOD.into(), 1),
            (repair::UNKNOWN_THREAD.into(), 1)
        ]
    );
    // Both read paths agree (one-pass keeps the blocks until the summary).
    let bytes = std::fs::read(fixture("v4-wall-streaming.trace")).unwrap();
    let one_pass = tracekit_dmtrace::read(&bytes[..]).unwrap();
    assert_eq!(one_pass.call_event_count(), s.call_event_count());
    assert_eq!(one_pass.repairs, s.repairs);
}
