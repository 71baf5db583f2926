//! Repairs of malformed-but-real record sequences, built with the streaming
//! writer (which writes whatever records it is given).

use std::io::Cursor;
use tracekit_dmtrace::{read_bytes, repair, MethodLine, TraceInfo, TraceWriter};
use tracekit_model::{CallKind, Clocks, Session, ThreadId};

const A: u32 = 0x10;
const B: u32 = 0x14;
const C: u32 = 0x18;

fn trace(clocks: Clocks, records: &[(u16, u32, CallKind, u64, u64)]) -> Vec<u8> {
    let mut info = TraceInfo::new(clocks);
    info.threads = vec![(1, "main".into()), (2, "other".into())];
    info.methods = [A, B, C]
        .iter()
        .zip(["a", "b", "c"])
        .map(|(&id, n)| MethodLine {
            id,
            class: "X".into(),
            name: n.into(),
            signature: "()V".into(),
            source_file: None,
            line: None,
        })
        .collect();
    let mut w = TraceWriter::new(Cursor::new(Vec::new()), &info).unwrap();
    for &(tid, m, k, cpu, wall) in records {
        w.write_record(tid, m, k, cpu, wall).unwrap();
    }
    w.finish().unwrap().into_inner()
}

fn names(s: &Session, t: u32) -> Vec<String> {
    s.calls(ThreadId(t))
        .iter()
        .map(|e| {
            format!(
                "{}{}@{}",
                if e.kind == CallKind::Enter { "+" } else { "-" },
                s.methods.get(e.method).name,
                e.ts_ns / 1000
            )
        })
        .collect()
}

fn count(s: &Session, code: &str) -> u64 {
    s.repairs.iter().find(|r| r.code == code).map_or(0, |r| r.count)
}

/// Every exit matches the innermost open enter, and nothing stays open.
fn assert_balanced(s: &Session) {
    for (_, _, calls) in s.thread_calls() {
        let mut stack = Vec::new();
        let mut last = 0;
        for e in calls.iter() {
            assert!(e.ts_ns >= last, "time went backwards");
            last = e.ts_ns;
            if e.kind == CallKind::Enter {
                stack.push(e.method);
            } else {
                assert_eq!(stack.pop(), Some(e.method));
            }
        }
        assert!(stack.is_empty());
    }
}

use CallKind::{Enter, Exit, Unwind};

#[test]
fn exit_below_the_top_closes_the_methods_above() {
    let s = read_bytes(&trace(
        Clocks::WALL,
        &[
            (1, A, Enter, 0, 1),
            (1, B, Enter, 0, 2),
            (1, C, Enter, 0, 3),
            (1, A, Exit, 0, 9),
        ],
    ))
    .unwrap();
    assert_eq!(names(&s, 0), ["+a@1", "+b@2", "+c@3", "-c@9", "-b@9", "-a@9"]);
    assert_eq!(count(&s, repair::MISMATCHED_EXIT), 2);
    assert_balanced(&s);
}

#[test]
fn several_exits_without_entries_nest_outward() {
    let s = read_bytes(&trace(
        Clocks::WALL,
        &[
            (1, C, Enter, 0, 5),
            (1, C, Exit, 0, 6),
            (1, A, Exit, 0, 7),
            (1, B, Unwind, 0, 8),
        ],
    ))
    .unwrap();
    // a and b were entered before tracing started; b encloses a.
    assert_eq!(names(&s, 0), ["+b@5", "+a@5", "+c@5", "-c@6", "-a@7", "-b@8"]);
    assert_eq!(count(&s, repair::EXIT_WITHOUT_ENTRY), 2);
    assert_balanced(&s);
}

#[test]
fn exit_of_a_method_not_on_a_nonempty_stack() {
    let s = read_bytes(&trace(
        Clocks::WALL,
        &[(1, A, Enter, 0, 1), (1, B, Exit, 0, 4), (1, C, Enter, 0, 5)],
    ))
    .unwrap();
    assert_eq!(names(&s, 0), ["+b@1", "+a@1", "-a@4", "-b@4", "+c@5", "-c@5"]);
    assert_eq!(count(&s, repair::EXIT_WITHOUT_ENTRY), 1);
    assert_eq!(count(&s, repair::MISMATCHED_EXIT), 1);
    assert_eq!(count(&s, repair::OPEN_AT_END), 1);
    assert_balanced(&s);
}

#[test]
fn invalid_actions_are_skipped_and_time_never_goes_back() {
    let mut bytes = trace(
        Clocks::DUAL,
        &[
            (1, A, Enter, 5, 10),
            (1, B, Enter, 3, 8),
            (1, B, Exit, 6, 12),
            (1, A, Exit, 7, 13),
        ],
    );
    // Turn the last record's action into the unused value 3.
    let n = bytes.len();
    bytes[n - 12] |= 3;
    let s = read_bytes(&bytes).unwrap();
    assert_eq!(names(&s, 0), ["+a@10", "+b@10", "-b@12", "-a@12"]);
    assert_eq!(count(&s, repair::INVALID_ACTION), 1);
    assert_eq!(count(&s, repair::TIME_BACKWARDS), 2);
    assert_eq!(count(&s, repair::OPEN_AT_END), 1);
    assert_balanced(&s);
}

#[test]
fn wall_wraps_globally_cpu_wraps_per_thread() {
    let w = u64::from(u32::MAX) + 1;
    let recs = [
        (1, A, Enter, w - 10, w - 100),
        (2, B, Enter, 5, w - 50),
        (1, A, Exit, w + 20, w + 30),
        (2, B, Exit, 9, w + 40),
    ];
    let s = read_bytes(&trace(Clocks::DUAL, &recs)).unwrap();
    let cpu: Vec<_> = s.calls(ThreadId(0)).iter().map(|e| e.cpu_ns.unwrap() / 1000).collect();
    assert_eq!(cpu, [w - 10, w + 20]);
    assert_eq!(names(&s, 1), [format!("+b@{}", w - 50), format!("-b@{}", w + 40)]);
    assert_eq!(count(&s, repair::CLOCK_WRAP), 2);
}

#[test]
fn every_session_read_is_balanced_even_from_random_records() {
    // A small deterministic generator of arbitrary record sequences.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..200 {
        let mut recs = Vec::new();
        for i in 0..(x % 40) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let m = [A, B, C, 0x40][(x % 4) as usize];
            let k = [Enter, Exit, Unwind][((x >> 8) % 3) as usize];
            recs.push((1 + ((x >> 16) % 3) as u16, m, k, i * 3, i * 5 + (x >> 20) % 4));
        }
        let s = read_bytes(&trace(Clocks::DUAL, &recs)).unwrap();
        assert_balanced(&s);
    }
}
