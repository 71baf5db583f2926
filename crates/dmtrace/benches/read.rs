//! Parse throughput of tracekit's reader and of the `android_trace_log`
//! crate on the same generated v3 dual-clock trace (200 000 records).
//! The 10-million-record figures come from `scripts/bench/dmtrace.sh`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::io::Cursor;
use tracekit_dmtrace::{MethodLine, TraceInfo, TraceWriter};
use tracekit_model::{CallKind, Clocks};

fn generate(records: u32) -> Vec<u8> {
    let mut info = TraceInfo::new(Clocks::DUAL);
    info.threads = (1..=4).map(|t| (t, format!("thread-{t}"))).collect();
    info.methods = (0..500u32)
        .map(|i| MethodLine {
            id: (i + 1) << 2,
            class: format!("com/example/C{}", i / 10),
            name: format!("m{i}"),
            signature: "()V".into(),
            source_file: Some("C.java".into()),
            line: Some(i),
        })
        .collect();
    let mut w = TraceWriter::new(Cursor::new(Vec::new()), &info).unwrap();
    let mut stacks = vec![Vec::new(); 4];
    let (mut x, mut wall) = (88172645463325252u64, 0u64);
    for i in 0..records {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let t = ((i / 50) % 4) as usize;
        wall += 1 + x % 3;
        let depth_left = (records - i) as usize;
        if stacks[t].len() < 30 && x % 2 == 0 && depth_left > stacks.iter().map(Vec::len).sum::<usize>() + 1 {
            let m = ((x >> 8) % 500) as u32;
            stacks[t].push(m);
            w.write_record(t as u16 + 1, (m + 1) << 2, CallKind::Enter, wall / 2, wall)
                .unwrap();
        } else if let Some(m) = stacks[t].pop() {
            w.write_record(t as u16 + 1, (m + 1) << 2, CallKind::Exit, wall / 2, wall)
                .unwrap();
        }
    }
    w.finish().unwrap().into_inner()
}

fn bench(c: &mut Criterion) {
    let bytes = generate(200_000);
    let mut g = c.benchmark_group("dmtrace-read-200k-dual");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.sample_size(20);
    g.bench_function("tracekit", |b| {
        b.iter(|| tracekit_dmtrace::read_bytes(black_box(&bytes)).unwrap())
    });
    g.bench_function("android_trace_log", |b| {
        b.iter(|| android_trace_log::parse(black_box(&bytes)).unwrap().events.len())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
