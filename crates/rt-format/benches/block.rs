//! The recorder's drain hot path: coding ring records into compact blocks
//! (`BlockEncoder::push_call` one by one, and `push_calls` in runs as the
//! drainer does), and decoding them back. The events mimic a
//! call-heavy native program: nested calls among a few hundred functions,
//! a few tens of clock ticks apart.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use tracekit_rt_format::block::{BlockDecoder, BlockEncoder, BlockEvent, BLOCK_HEADER};

const EVENTS: usize = 1 << 20;

/// (raw clock, exit?, address) for EVENTS events of nested calls.
fn events() -> Vec<(u64, bool, u64)> {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let (mut ts, mut stack, mut out) = (1u64 << 40, Vec::new(), Vec::with_capacity(EVENTS));
    while out.len() < EVENTS {
        let r = next();
        ts += 20 + r % 64;
        if stack.is_empty() || (r >> 8) % 3 != 0 && stack.len() < 64 {
            let addr = 0x40_1000 + (r >> 16) % 400 * 48;
            stack.push(addr);
            out.push((ts, false, addr));
        } else {
            out.push((ts, true, stack.pop().unwrap()));
        }
    }
    out
}

fn encode(events: &[(u64, bool, u64)]) -> Vec<u8> {
    let mut enc = BlockEncoder::new();
    let mut out = Vec::with_capacity(events.len() * 4);
    for &(ts, exit, addr) in events {
        enc.push_call(ts, exit, addr);
        if enc.is_full() {
            enc.finish_into(&mut out);
        }
    }
    enc.finish_into(&mut out);
    out
}

/// [`encode`] with the calls coded in runs, as the drainer codes a ring.
fn encode_runs(events: &[(u64, bool, u64)]) -> Vec<u8> {
    let mut enc = BlockEncoder::new();
    let mut out = Vec::with_capacity(events.len() * 4);
    let mut it = events.iter().copied();
    loop {
        let added = enc.push_calls(|| it.next());
        if enc.is_full() {
            enc.finish_into(&mut out);
        } else if added == 0 {
            break;
        }
    }
    enc.finish_into(&mut out);
    out
}

fn bench(c: &mut Criterion) {
    let ev = events();
    let coded = encode(&ev);
    let mut g = c.benchmark_group("block");
    g.throughput(Throughput::Elements(EVENTS as u64));
    assert_eq!(coded, encode_runs(&ev));
    g.bench_function("encode", |b| b.iter(|| black_box(encode(black_box(&ev)))));
    g.bench_function("encode_runs", |b| b.iter(|| black_box(encode_runs(black_box(&ev)))));
    g.bench_function("decode", |b| {
        b.iter(|| {
            let (mut at, mut sum) = (0, 0u64);
            while at < coded.len() {
                let h = tracekit_rt_format::block::BlockHeader::read(&coded[at..]).unwrap();
                let start = at + BLOCK_HEADER;
                let end = start + h.payload_len as usize;
                let mut d = BlockDecoder::new(&coded[start..end], &h);
                while let Some((ts, e)) = d.next_event().unwrap() {
                    if let BlockEvent::Enter(a) | BlockEvent::Exit(a) = e {
                        sum = sum.wrapping_add(ts ^ a);
                    }
                }
                at = end;
            }
            black_box(sum)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
