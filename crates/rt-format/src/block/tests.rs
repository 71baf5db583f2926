//! Round trips, run coding against one-by-one coding, and malformed payloads.

use super::*;
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Ev {
    Call(u64, bool, u64),
    Ext(u64, Vec<u8>),
}

fn ev() -> impl Strategy<Value = Ev> {
    prop_oneof![
        // A few addresses, so exits often match the top frame.
        (0u64..1 << 60, any::<bool>(), prop_oneof![any::<u64>(), 0u64..4]).prop_map(|(t, x, a)| Ev::Call(t, x, a)),
        (0u64..1 << 60, proptest::collection::vec(any::<u8>(), 0..40)).prop_map(|(t, b)| Ev::Ext(t, b)),
    ]
}

/// Mostly calls, so blocks of calls only are common (one in 8001 is an
/// extended event).
fn mostly_calls() -> impl Strategy<Value = Ev> {
    prop_oneof![
        8000 => (0u64..1 << 60, any::<bool>(), 0u64..4).prop_map(|(t, x, a)| Ev::Call(t, x, a)),
        1 => (0u64..1 << 60, proptest::collection::vec(any::<u8>(), 0..4)).prop_map(|(t, b)| Ev::Ext(t, b)),
    ]
}

proptest! {
    #[test]
    fn blocks_round_trip(evs in proptest::collection::vec(ev(), 1..200)) {
        let mut enc = BlockEncoder::new();
        for e in &evs {
            match e {
                Ev::Call(t, x, a) => enc.push_call(*t, *x, *a),
                Ev::Ext(t, b) => enc.push_ext(*t, b),
            }
        }
        let mut out = Vec::new();
        enc.finish_into(&mut out);
        let h = BlockHeader::read(&out).unwrap();
        prop_assert_eq!(h.events as usize, evs.len());
        prop_assert_eq!(h.payload_len as usize, out.len() - BLOCK_HEADER);
        let mut d = BlockDecoder::new(&out[BLOCK_HEADER..], &h);
        for e in &evs {
            let (ts, got) = d.next_event().unwrap().unwrap();
            match (e, got) {
                (Ev::Call(t, false, a), BlockEvent::Enter(g)) => { prop_assert_eq!((*t, *a), (ts, g)); }
                (Ev::Call(t, true, a), BlockEvent::Exit(g)) => { prop_assert_eq!((*t, *a), (ts, g)); }
                (Ev::Ext(t, b), BlockEvent::Ext(g)) => { prop_assert_eq!((*t, b.as_slice()), (ts, g)); }
                (want, got) => prop_assert!(false, "{:?} decoded as {:?}", want, got),
            }
        }
        prop_assert_eq!(d.next_event(), Ok(None));
    }

    #[test]
    fn calls_coded_in_runs_give_the_same_bytes_as_one_by_one(
        evs in proptest::collection::vec(ev(), 1..300),
        runs in proptest::collection::vec(1usize..40, 1..20),
    ) {
        prop_assert_eq!(encode_one_by_one(&evs), encode_in_runs(&evs, &runs));
    }

    #[test]
    fn every_block_of_calls_carries_its_depth_summary(
        evs in proptest::collection::vec(mostly_calls(), 1..20_000),
        runs in proptest::collection::vec(1usize..3000, 1..20),
    ) {
        let out = encode_in_runs(&evs, &runs);
        let (mut at, mut summarized) = (0, 0);
        while at < out.len() {
            let h = BlockHeader::read(&out[at..]).unwrap();
            let payload = &out[at + BLOCK_HEADER..at + BLOCK_HEADER + h.payload_len as usize];
            let (mut depth, mut lowest, mut ext) = (0i32, 0i32, false);
            let mut d = BlockDecoder::new(payload, &h);
            while let Some((_, e)) = d.next_event().unwrap() {
                match e {
                    BlockEvent::Enter(_) => depth += 1,
                    BlockEvent::Exit(_) => depth -= 1,
                    BlockEvent::Ext(_) => ext = true,
                }
                lowest = lowest.min(depth);
            }
            let want = (!ext).then_some(DepthSummary { net: depth, lowest });
            prop_assert_eq!(h.depth(), want);
            summarized += usize::from(!ext);
            at += BLOCK_HEADER + h.payload_len as usize;
        }
        // Blocks of calls only are common enough to be tried.
        prop_assume!(summarized > 0);
    }

    #[test]
    fn malformed_payloads_never_panic(b in proptest::collection::vec(any::<u8>(), 0..100), first: u64, flags in 0u32..2) {
        let h = BlockHeader { payload_len: b.len() as u32, events: 0, flags, first_ts: first, last_ts: first };
        let mut d = BlockDecoder::new(&b, &h);
        for _ in 0..200 {
            match d.next_event() {
                Ok(Some(_)) => {}
                _ => break,
            }
        }
    }
}

/// Blocks of `evs` coded with `push_call` and `push_ext`.
fn encode_one_by_one(evs: &[Ev]) -> Vec<u8> {
    let mut enc = BlockEncoder::new();
    let mut out = Vec::new();
    for e in evs {
        match e {
            Ev::Call(t, x, a) => enc.push_call(*t, *x, *a),
            Ev::Ext(t, b) => enc.push_ext(*t, b),
        }
        if enc.is_full() {
            enc.finish_into(&mut out);
        }
    }
    enc.finish_into(&mut out);
    out
}

/// Blocks of `evs` with the calls coded by `push_calls`, in runs of at
/// most the lengths `runs` gives in turn, as the drainer does.
fn encode_in_runs(evs: &[Ev], runs: &[usize]) -> Vec<u8> {
    let mut enc = BlockEncoder::new();
    let mut out = Vec::new();
    let (mut i, mut run) = (0, 0);
    while i < evs.len() {
        if let Ev::Ext(t, b) = &evs[i] {
            enc.push_ext(*t, b);
            i += 1;
        } else {
            let mut left = runs[run % runs.len()];
            run += 1;
            let before = i;
            let added = enc.push_calls(|| match evs.get(i) {
                Some(Ev::Call(t, x, a)) if left > 0 => {
                    left -= 1;
                    i += 1;
                    Some((*t, *x, *a))
                }
                _ => None,
            });
            assert_eq!(added as usize, i - before);
        }
        if enc.is_full() {
            enc.finish_into(&mut out);
        }
    }
    enc.finish_into(&mut out);
    out
}

#[test]
fn runs_of_calls_fill_blocks_exactly_as_single_calls_do() {
    // Long enough to fill several blocks, with an extended event now
    // and then and clock and address deltas of every varint length.
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut ts = 1u64 << 50;
    let evs: Vec<Ev> = (0..3 * BLOCK_EVENTS as u64 + 77)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ts = ts.wrapping_add(x >> (x % 60)) & ((1 << 60) - 1);
            if i % 997 == 0 {
                Ev::Ext(ts, vec![i as u8; (i % 13) as usize])
            } else {
                Ev::Call(ts, x & 1 == 1, x.rotate_left(i as u32 % 64) >> (x % 64))
            }
        })
        .collect();
    let one_by_one = encode_one_by_one(&evs);
    assert_eq!(one_by_one, encode_in_runs(&evs, &[5000, 1, 17, 9000]));
    assert_eq!(one_by_one, encode_in_runs(&evs, &[usize::MAX]));
}

#[test]
fn a_call_loop_costs_about_one_and_a_half_bytes_per_event() {
    // A loop calling one function, 20–26 ticks between events: the enter
    // is a clock byte and an address byte, the exit a clock byte.
    let mut enc = BlockEncoder::new();
    let mut ts = 1_000_000u64;
    for i in 0..4000u64 {
        ts += 20 + i % 7;
        enc.push_call(ts, i % 2 == 1, 0x5555_5555_1139);
    }
    let mut out = Vec::new();
    enc.finish_into(&mut out);
    let per_event = (out.len() - BLOCK_HEADER) as f64 / 4000.0;
    assert!((1.5..1.502).contains(&per_event), "{per_event} bytes per event");
}

/// Decodes one block of `out`.
fn decode_block(out: &[u8]) -> Result<Vec<(u64, BlockEvent<'_>)>, usize> {
    let h = BlockHeader::read(out).unwrap();
    let mut d = BlockDecoder::new(&out[BLOCK_HEADER..BLOCK_HEADER + h.payload_len as usize], &h);
    let mut evs = Vec::new();
    while let Some(e) = d.next_event()? {
        evs.push(e);
    }
    Ok(evs)
}

#[test]
fn an_exit_at_the_last_calls_address_carries_none_and_others_do() {
    let mut enc = BlockEncoder::new();
    enc.push_call(10, false, 0x100); // enter: clock byte, address bytes
    enc.push_call(11, false, 0x200);
    enc.push_call(12, true, 0x200); // the last call's address: one byte
    enc.push_call(13, true, 0x100); // another: named
    enc.push_call(14, true, 0x100); // the same again: one byte
    enc.push_call(15, false, 0x100); // an enter is always named
    let mut out = Vec::new();
    enc.finish_into(&mut out);
    let payload = &out[BLOCK_HEADER..];
    assert_eq!(payload[6], 1 << 2 | CODE_SAME_EXIT as u8);
    assert_eq!(payload[7], 1 << 2 | CODE_EXIT as u8);
    assert_eq!(payload[10], 1 << 2 | CODE_SAME_EXIT as u8);
    assert_eq!(payload[11..], [1 << 2 | CODE_ENTER as u8, 0]);
    let evs = decode_block(&out).unwrap();
    let want = [
        (10, BlockEvent::Enter(0x100)),
        (11, BlockEvent::Enter(0x200)),
        (12, BlockEvent::Exit(0x200)),
        (13, BlockEvent::Exit(0x100)),
        (14, BlockEvent::Exit(0x100)),
        (15, BlockEvent::Enter(0x100)),
    ];
    assert_eq!(evs, want);
}

#[test]
fn a_clock_that_steps_back_goes_through_the_escape() {
    let mut enc = BlockEncoder::new();
    enc.push_call(1000, false, 0x100);
    enc.push_call(990, false, 0x200); // back 10 ticks: escaped
    enc.push_call(995, true, 0x200); // the last call's address
    enc.push_call(900, true, 0x100); // back again: escaped
    enc.push_ext(905, b"xy");
    enc.push_call(906, false, 0x300);
    let mut out = Vec::new();
    enc.finish_into(&mut out);
    let evs = decode_block(&out).unwrap();
    let want = [
        (1000, BlockEvent::Enter(0x100)),
        (990, BlockEvent::Enter(0x200)),
        (995, BlockEvent::Exit(0x200)),
        (900, BlockEvent::Exit(0x100)),
        (905, BlockEvent::Ext(b"xy")),
        (906, BlockEvent::Enter(0x300)),
    ];
    assert_eq!(evs, want);
}

#[test]
fn an_unknown_escape_and_a_cut_body_are_errors() {
    fn bad(payload: &[u8]) -> Result<Option<(u64, BlockEvent<'_>)>, usize> {
        let h = BlockHeader {
            payload_len: payload.len() as u32,
            events: 1,
            flags: FLAG_COMPACT,
            first_ts: 5,
            last_ts: 5,
        };
        BlockDecoder::new(payload, &h).next_event()
    }
    assert_eq!(bad(&[3 << 2 | CODE_ESCAPE as u8, 0, 0]), Err(0));
    assert_eq!(bad(&[ESCAPE_EXT as u8 | CODE_ESCAPE as u8, 0, 5, 1]), Err(3));
    assert_eq!(bad(&[1 << 2 | CODE_ENTER as u8]), Err(1));
    // The first exit of a block with no address is at address 0.
    assert_eq!(bad(&[CODE_SAME_EXIT as u8]), Ok(Some((5, BlockEvent::Exit(0)))));
}

#[test]
fn blocks_of_earlier_recorders_still_decode() {
    // The coding without FLAG_COMPACT, by hand: zigzag clock deltas, every
    // exit named, code 2 an extended event.
    let mut payload = Vec::new();
    for (dt, code, rest) in [(0i64, 0u64, zigzag(0x40)), (3, 1, 0), (-2, 2, 2)] {
        put_varint(&mut payload, zigzag(dt) << 2 | code);
        put_varint(&mut payload, rest);
    }
    payload.extend_from_slice(b"hi");
    let h = BlockHeader {
        payload_len: payload.len() as u32,
        events: 3,
        flags: 0,
        first_ts: 50,
        last_ts: 51,
    };
    let mut d = BlockDecoder::new(&payload, &h);
    assert_eq!(d.next_event(), Ok(Some((50, BlockEvent::Enter(0x40)))));
    assert_eq!(d.next_event(), Ok(Some((53, BlockEvent::Exit(0x40)))));
    assert_eq!(d.next_event(), Ok(Some((51, BlockEvent::Ext(b"hi")))));
    assert_eq!(d.next_event(), Ok(None));
}

#[test]
fn a_full_block_of_enters_or_of_exits_keeps_its_summary_whole() {
    for exit in [false, true] {
        let mut enc = BlockEncoder::new();
        let mut ts = 0;
        enc.push_calls(|| {
            ts += 1;
            Some((ts, exit, 0x40))
        });
        let mut out = Vec::new();
        enc.finish_into(&mut out);
        let h = BlockHeader::read(&out).unwrap();
        let n = BLOCK_EVENTS as i32;
        let want = if exit {
            DepthSummary { net: -n, lowest: -n }
        } else {
            DepthSummary { net: n, lowest: 0 }
        };
        assert_eq!(h.depth(), Some(want));
    }
}

#[test]
fn a_summary_that_does_not_hold_together_is_none() {
    let header = |events, net: i32, lowest: i32| BlockHeader {
        payload_len: 0,
        events,
        flags: FLAG_COMPACT | DepthSummary { net, lowest }.flags(),
        first_ts: 0,
        last_ts: 0,
    };
    assert_eq!(header(4, 2, -1).depth(), Some(DepthSummary { net: 2, lowest: -1 }));
    // More movement than events, a lowest point above the end or the start.
    assert_eq!(header(4, 5, 0).depth(), None);
    assert_eq!(header(4, -1, -5).depth(), None);
    assert_eq!(header(4, -2, -1).depth(), None);
    // Blocks of earlier recorders carry none.
    let old = BlockHeader {
        flags: FLAG_COMPACT,
        ..header(4, 0, 0)
    };
    assert_eq!(old.depth(), None);
}
