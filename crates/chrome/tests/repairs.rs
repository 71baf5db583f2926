//! Events that do not nest are repaired and reported, never dropped in
//! silence; afterwards every thread's calls are balanced and in time order.

use tracekit_chrome::{read_bytes, repair};
use tracekit_model::{CallKind, Session};

fn read(events: &str) -> Session {
    read_bytes(format!("[{events}]").as_bytes(), "r.json").unwrap_or_else(|e| panic!("{e}"))
}

/// (kind, name, µs) per call event of thread `i`, checking the invariants.
fn calls(s: &Session, i: usize) -> Vec<(char, String, u64)> {
    let (_, _, c) = s.thread_calls().nth(i).unwrap();
    let mut stack = Vec::new();
    let mut last = 0;
    let mut out = Vec::new();
    for e in c.iter() {
        assert!(e.ts_ns >= last, "time went back");
        last = e.ts_ns;
        if e.kind == CallKind::Enter {
            stack.push(e.method);
        } else {
            assert_eq!(stack.pop(), Some(e.method), "unmatched exit");
        }
        let k = match e.kind {
            CallKind::Enter => '>',
            CallKind::Exit => '<',
            CallKind::Unwind => '!',
        };
        out.push((k, s.methods.get(e.method).name.clone(), e.ts_ns / 1000));
    }
    assert!(stack.is_empty(), "left open");
    out
}

fn count(s: &Session, code: &str) -> u64 {
    s.repairs.iter().find(|r| r.code == code).map_or(0, |r| r.count)
}

fn seq(items: &[(char, &str, u64)]) -> Vec<(char, String, u64)> {
    items.iter().map(|&(k, n, t)| (k, n.to_owned(), t)).collect()
}

#[test]
fn overlapping_complete_events_are_shortened() {
    let s = read(r#"{"ph":"X","name":"a","ts":0,"dur":10,"tid":1},{"ph":"X","name":"b","ts":5,"dur":10,"tid":1}"#);
    assert_eq!(
        calls(&s, 0),
        seq(&[('>', "a", 0), ('>', "b", 5), ('<', "b", 10), ('<', "a", 10)])
    );
    assert_eq!(count(&s, repair::OVERLAPPING), 1);
}

#[test]
fn an_end_without_a_begin_gets_one_at_the_threads_start() {
    let s = read(
        r#"{"ph":"X","name":"a","ts":2,"dur":1,"tid":1},{"ph":"E","name":"outer","ts":7,"tid":1},{"ph":"E","ts":9,"tid":1}"#,
    );
    assert_eq!(
        calls(&s, 0),
        seq(&[
            ('>', "(unnamed)", 0),
            ('>', "outer", 0),
            ('>', "a", 0),
            ('<', "a", 1),
            ('<', "outer", 5),
            ('<', "(unnamed)", 7),
        ])
    );
    assert_eq!(count(&s, repair::END_WITHOUT_BEGIN), 2);
}

#[test]
fn an_unnamed_end_in_a_thread_that_needed_sorting() {
    let s = read(
        r#"{"ph":"X","name":"a","ts":5,"dur":1,"tid":1},{"ph":"X","name":"b","ts":1,"dur":1,"tid":1},{"ph":"E","ts":9,"tid":1}"#,
    );
    assert_eq!(
        calls(&s, 0),
        seq(&[
            ('>', "(unnamed)", 0),
            ('>', "b", 0),
            ('<', "b", 1),
            ('>', "a", 4),
            ('<', "a", 5),
            ('<', "(unnamed)", 8),
        ])
    );
    assert_eq!(count(&s, repair::UNSORTED), 1);
    assert_eq!(count(&s, repair::END_WITHOUT_BEGIN), 1);
}

#[test]
fn a_mismatched_end_closes_down_to_its_name() {
    let s = read(
        r#"{"ph":"B","name":"a","ts":0,"tid":1},{"ph":"B","name":"b","ts":1,"tid":1},{"ph":"E","name":"a","ts":4,"tid":1}"#,
    );
    assert_eq!(
        calls(&s, 0),
        seq(&[('>', "a", 0), ('>', "b", 1), ('<', "b", 4), ('<', "a", 4)])
    );
    assert_eq!(count(&s, repair::MISMATCHED_END), 1);
}

#[test]
fn a_begin_never_ended_closes_at_the_last_event() {
    let s = read(r#"{"ph":"B","name":"a","ts":0,"tid":1},{"ph":"X","name":"b","ts":3,"dur":4,"tid":1}"#);
    assert_eq!(
        calls(&s, 0),
        seq(&[('>', "a", 0), ('>', "b", 3), ('<', "b", 7), ('<', "a", 7)])
    );
    assert_eq!(count(&s, repair::OPEN_AT_END), 1);
}

#[test]
fn events_out_of_time_order_are_sorted() {
    // Written when each slice closed: children first.
    let s = read(
        r#"{"ph":"X","name":"c","ts":3,"dur":1,"tid":1},{"ph":"X","name":"b","ts":2,"dur":5,"tid":1},{"ph":"X","name":"a","ts":2,"dur":9,"tid":1},{"ph":"X","name":"z","ts":0,"dur":1,"tid":2}"#,
    );
    assert_eq!(
        calls(&s, 0),
        seq(&[
            ('>', "a", 2),
            ('>', "b", 2),
            ('>', "c", 3),
            ('<', "c", 4),
            ('<', "b", 7),
            ('<', "a", 11)
        ])
    );
    assert_eq!(count(&s, repair::UNSORTED), 1);
    assert_eq!(count(&s, repair::OVERLAPPING), 0);
    // Timeline 0 is the earliest event of any thread (z, at 0 µs).
    assert_eq!(calls(&s, 1), seq(&[('>', "z", 0), ('<', "z", 1)]));
}

#[test]
fn durations_missing_or_negative_read_as_zero() {
    let s = read(r#"{"ph":"X","name":"a","ts":1,"tid":1},{"ph":"X","name":"b","ts":2,"dur":-3,"tid":1}"#);
    assert_eq!(
        calls(&s, 0),
        seq(&[('>', "a", 0), ('<', "a", 0), ('>', "b", 1), ('<', "b", 1)])
    );
    assert_eq!(count(&s, repair::MISSING_DURATION), 1);
    assert_eq!(count(&s, repair::NEGATIVE_DURATION), 1);
}

#[test]
fn thread_time_is_kept_only_when_every_call_has_it() {
    let s = read(
        r#"{"ph":"X","name":"a","ts":1,"dur":5,"tts":10,"tdur":4,"tid":1},{"ph":"X","name":"b","ts":8,"dur":1,"tid":2}"#,
    );
    assert!(!s.clocks.thread_cpu);
    assert!(s.thread_calls().all(|(_, _, c)| !c.has_cpu()));
    let s = read(
        r#"{"ph":"X","name":"a","ts":1,"dur":5,"tts":10,"tdur":4,"tid":1},{"ph":"X","name":"b","ts":2,"dur":1,"tts":11,"tdur":2,"tid":1}"#,
    );
    assert!(s.clocks.thread_cpu);
    let (_, _, c) = s.thread_calls().next().unwrap();
    let cpu: Vec<u64> = c.iter().map(|e| e.cpu_ns.unwrap()).collect();
    // b's thread time (11+2) ends before a's (10+4): in order, no repair.
    assert_eq!(cpu, [0, 1_000, 3_000, 4_000]);
    assert!(s.repairs.is_empty());
    let s = read(
        r#"{"ph":"X","name":"a","ts":1,"dur":5,"tts":10,"tdur":4,"tid":1},{"ph":"X","name":"b","ts":2,"dur":1,"tts":11,"tdur":9,"tid":1}"#,
    );
    assert_eq!(count(&s, repair::THREAD_TIME_BACKWARDS), 1);
}

#[test]
fn async_slices_pair_and_unpaired_ends_are_reported() {
    let s = read(
        r#"{"ph":"b","cat":"n","name":"load","id":"0x1","ts":0,"pid":1,"tid":1},
           {"ph":"b","cat":"n","name":"load","id2":{"local":"0x1"},"ts":1,"pid":2,"tid":1},
           {"ph":"e","cat":"n","name":"load","id":"0x1","ts":5,"pid":1,"tid":3},
           {"ph":"e","cat":"n","name":"load","id2":{"local":"0x1"},"ts":3,"pid":2,"tid":1},
           {"ph":"e","cat":"n","name":"load","id":"0x9","ts":6,"pid":1,"tid":1},
           {"ph":"n","cat":"n","name":"tick","id":7,"ts":2,"pid":1,"tid":1},
           {"ph":"S","cat":"n","name":"old","id":5,"ts":2,"pid":1,"tid":1}"#,
    );
    let a: Vec<(&str, u64, u64, bool, Option<u32>)> = s
        .async_slices
        .iter()
        .map(|a| (a.name.as_str(), a.ts_ns / 1000, a.dur_ns / 1000, a.open, a.pid))
        .collect();
    assert_eq!(
        a,
        [
            ("load", 0, 5, false, Some(1)),
            ("load", 1, 2, false, Some(2)),
            ("old", 2, 0, true, Some(1)),
            ("tick", 2, 0, false, Some(1))
        ]
    );
    assert_eq!(s.async_slices[3].cookie, 7);
    assert_eq!(count(&s, repair::ASYNC_END_WITHOUT_BEGIN), 1);
    assert_eq!(count(&s, repair::ASYNC_OPEN_AT_END), 1);
}

#[test]
fn counters_instants_and_metadata() {
    let s = read(
        r#"{"ph":"M","name":"process_name","pid":4,"args":{"name":"Browser"}},
           {"ph":"M","name":"thread_name","pid":4,"tid":9,"args":{"name":"Main"}},
           {"ph":"M","name":"thread_sort_index","pid":4,"tid":8,"args":{"sort_index":-1}},
           {"ph":"C","name":"mem","pid":4,"ts":10,"args":{"heap":5,"stack":"2.5","note":"x"}},
           {"ph":"C","name":"fps","pid":4,"ts":12,"id":3,"args":{"value":60}},
           {"ph":"i","name":"click","pid":4,"tid":9,"ts":11,"s":"g"},
           {"ph":"I","name":"old instant","pid":4,"tid":9,"ts":12},
           {"ph":"X","name":"run","pid":4,"tid":8,"ts":10,"dur":1}"#,
    );
    let names: Vec<&str> = s.threads.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["", "Main"], "sort index -1 puts thread 8 first");
    assert_eq!(s.processes[0].name, "Browser");
    let tracks: Vec<(&str, Vec<i64>, Vec<f64>)> = s
        .counters
        .iter()
        .map(|c| (c.name.as_str(), c.times.clone(), c.values.clone()))
        .collect();
    assert_eq!(
        tracks,
        [
            ("mem.heap", vec![0], vec![5.0]),
            ("mem.stack", vec![0], vec![2.5]),
            ("fps[3]", vec![2_000], vec![60.0])
        ]
    );
    assert!(s.counters.iter().all(|c| c.pid == Some(4)));
    assert_eq!(s.skipped, [("C non-numeric value".to_owned(), 1)]);
    let m: Vec<(&str, u64, u32)> = s
        .markers
        .iter()
        .map(|m| (m.name.as_str(), m.ts_ns, m.thread.0))
        .collect();
    assert_eq!(m, [("click", 1_000, 1), ("old instant", 2_000, 1)]);
}
