use super::*;

/// One input event: `B`, `E` (method or NO_NAME), `X` (start, end).
#[derive(Clone, Copy)]
enum In {
    B(u32, u64),
    E(u32, u64),
    X(u32, u64, u64),
}

/// Runs events through a thread and returns `(kind, method, t)` per event,
/// with kind `>` enter, `<` exit, plus the repairs.
fn run(events: &[In]) -> (Vec<(char, u32, u64)>, Repairs) {
    let mut rep = Repairs::default();
    let mut cx = Ctx {
        repairs: &mut rep,
        cpu: true,
    };
    let mut t = ThreadCalls::default();
    for &e in events {
        match e {
            In::B(m, ts) => t.begin(&mut cx, m, ts, ts, None),
            In::E(m, ts) => t.end(&mut cx, m, ts, ts, false),
            In::X(m, ts, end) => t.begin(&mut cx, m, ts, ts, Some((end, end))),
        }
    }
    let c = t.finish(&mut cx);
    assert_eq!(c.words.len(), c.ts.len());
    assert_eq!(c.cpu, c.ts, "thread time follows wall time in these tests");
    let out = c
        .words
        .iter()
        .zip(&c.ts)
        .map(|(&w, &ts)| (if w & 3 == ENTER { '>' } else { '<' }, w >> 2, ts))
        .collect();
    (out, rep)
}

/// Checks the model's invariants: balanced, matching, time non-decreasing.
fn check_balanced(seq: &[(char, u32, u64)]) {
    let mut stack = Vec::new();
    let mut last = 0;
    for &(k, m, t) in seq {
        assert!(t >= last, "time went back in {seq:?}");
        last = t;
        if k == '>' {
            stack.push(m);
        } else {
            assert_eq!(stack.pop(), Some(m), "unmatched exit in {seq:?}");
        }
    }
    assert!(stack.is_empty(), "left open in {seq:?}");
}

#[test]
fn nested_complete_and_begin_end_slices() {
    let (seq, rep) = run(&[
        In::X(1, 0, 100),
        In::X(2, 10, 20),
        In::B(3, 30),
        In::E(NO_NAME, 40),
        In::X(4, 40, 40),
        In::X(5, 100, 110),
    ]);
    assert_eq!(
        seq,
        vec![
            ('>', 1, 0),
            ('>', 2, 10),
            ('<', 2, 20),
            ('>', 3, 30),
            ('<', 3, 40),
            ('>', 4, 40),
            ('<', 4, 40),
            ('<', 1, 100),
            ('>', 5, 100),
            ('<', 5, 110),
        ]
    );
    assert_eq!(rep, Repairs::default());
}

#[test]
fn overlapping_complete_slice_is_shortened() {
    let (seq, rep) = run(&[In::X(1, 0, 50), In::X(2, 10, 80)]);
    assert_eq!(seq, vec![('>', 1, 0), ('>', 2, 10), ('<', 2, 50), ('<', 1, 50)]);
    assert_eq!(rep.overlapping, 1);
}

#[test]
fn begin_outliving_its_complete_parent_lengthens_it() {
    let (seq, rep) = run(&[In::X(1, 0, 50), In::B(2, 10), In::E(2, 70), In::X(3, 80, 90)]);
    check_balanced(&seq);
    assert_eq!(&seq[..4], &[('>', 1, 0), ('>', 2, 10), ('<', 2, 70), ('<', 1, 70)]);
    assert_eq!(rep.overlapping, 1);
}

#[test]
fn end_without_begin_wraps_from_the_first_event() {
    let (seq, rep) = run(&[
        In::X(1, 5, 8),
        In::E(7, 10),
        In::B(2, 12),
        In::E(2, 13),
        In::E(NO_NAME, 20),
    ]);
    assert_eq!(
        seq,
        vec![
            ('>', UNNAMED, 5),
            ('>', 7, 5),
            ('>', 1, 5),
            ('<', 1, 8),
            ('<', 7, 10),
            ('>', 2, 12),
            ('<', 2, 13),
            ('<', UNNAMED, 20),
        ]
    );
    assert_eq!(rep.end_without_begin, 2);
    assert!(rep.unnamed_used);
}

#[test]
fn mismatched_end_closes_down_to_its_name() {
    let (seq, rep) = run(&[In::B(1, 0), In::B(2, 1), In::B(3, 2), In::E(1, 5)]);
    assert_eq!(
        seq,
        vec![
            ('>', 1, 0),
            ('>', 2, 1),
            ('>', 3, 2),
            ('<', 3, 5),
            ('<', 2, 5),
            ('<', 1, 5)
        ]
    );
    assert_eq!(rep.mismatched_end, 2);
    let (seq, rep) = run(&[In::B(1, 0), In::B(2, 1), In::E(9, 5), In::E(NO_NAME, 6)]);
    assert_eq!(seq, vec![('>', 1, 0), ('>', 2, 1), ('<', 2, 5), ('<', 1, 6)]);
    assert_eq!(rep.mismatched_end, 1);
}

#[test]
fn open_at_end_closes_at_the_last_event() {
    let (seq, rep) = run(&[In::B(1, 0), In::X(2, 3, 9)]);
    assert_eq!(seq, vec![('>', 1, 0), ('>', 2, 3), ('<', 2, 9), ('<', 1, 9)]);
    assert_eq!(rep.open_at_end, 1);
}

#[test]
fn complete_slices_written_at_their_end_are_sorted() {
    // Children before parents, as tools that write `X` when a slice closes do.
    let (seq, rep) = run(&[In::X(3, 12, 14), In::X(2, 10, 15), In::X(1, 10, 20), In::X(4, 25, 30)]);
    assert_eq!(
        seq,
        vec![
            ('>', 1, 10),
            ('>', 2, 10),
            ('>', 3, 12),
            ('<', 3, 14),
            ('<', 2, 15),
            ('<', 1, 20),
            ('>', 4, 25),
            ('<', 4, 30),
        ]
    );
    assert_eq!(rep.unsorted_threads, 1);
    assert_eq!(rep.overlapping, 0);
}

#[test]
fn switching_to_sorting_keeps_what_was_placed() {
    let (seq, rep) = run(&[In::B(1, 0), In::X(2, 5, 8), In::E(7, 9), In::B(3, 20), In::X(4, 2, 3)]);
    check_balanced(&seq);
    assert_eq!(rep.unsorted_threads, 1);
    assert_eq!(rep.end_without_begin, 0);
    assert!(seq.contains(&('>', 4, 2)) && seq.contains(&('<', 4, 3)));
    // The `E` named 7 closed `B` 1 (mismatch) before the switch; the
    // result keeps that.
    assert!(seq.contains(&('<', 1, 9)));
}

#[test]
fn thread_time_going_back_is_held() {
    let mut rep = Repairs::default();
    let mut cx = Ctx {
        repairs: &mut rep,
        cpu: true,
    };
    let mut t = ThreadCalls::default();
    t.begin(&mut cx, 1, 0, 100, Some((10, 150)));
    t.begin(&mut cx, 2, 2, 110, Some((5, 160)));
    let c = t.finish(&mut cx);
    assert_eq!(c.cpu, vec![100, 110, 160, 160]);
    assert_eq!(rep.thread_time_backwards, 1);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 500, failure_persistence: None, ..Default::default() })]

    /// Whatever the events, the result is balanced and in time order.
    #[test]
    fn any_events_give_a_balanced_sequence(
        events in proptest::collection::vec((0u8..3, 0u32..4, 0u64..50, 0u64..30), 0..40)
    ) {
        let events: Vec<In> = events
            .into_iter()
            .map(|(k, m, t, d)| match k {
                0 => In::B(m, t),
                1 => In::E(if m == 3 { NO_NAME } else { m }, t),
                _ => In::X(m, t, t + d),
            })
            .collect();
        let (seq, _) = run(&events);
        check_balanced(&seq);
        let begins = events.iter().filter(|e| !matches!(e, In::E(..))).count();
        let enters = seq.iter().filter(|e| e.0 == '>').count();
        proptest::prop_assert!(enters >= begins);
    }
}
