//! Encode/decode throughput of the context stream (the default JVM trace)
//! in invocations per second: 200 synthetic methods, 2,000 distinct
//! invocations (paths of 1–60 blocks) played 20 times over, so the history
//! predictor hits as it does on a real program's repeated call sequences.
//! Run: `cargo bench -p tracekit-paths --bench context_stream`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use tracekit_paths::*;

fn bench(c: &mut Criterion) {
    let p = synth::random_methods(1, 200);
    let mut rng = synth::Lcg(42);
    let mut distinct = Vec::new();
    for i in 0..2_000u64 {
        let m = MethodId(rng.below(p.len()) as u32);
        let path = synth::random_path(p.cfg(m), i, 1 + rng.below(60), 70);
        distinct.push((m, path));
    }
    let invocations: Vec<_> = (0..20).flat_map(|_| distinct.iter().cloned()).collect();
    let model = AdaptiveModel::new(&p, AdaptiveParams::default()).unwrap();
    let layout = ContextLayout::new(&p, &model).unwrap();
    let encode = || {
        let mut enc = ContextEncoder::new(&p, &layout, 64).unwrap();
        for (m, path) in &invocations {
            enc.append(*m, path, None).unwrap();
        }
        enc.finish()
    };
    let mut g = c.benchmark_group("context_stream");
    g.throughput(Throughput::Elements(invocations.len() as u64));
    g.sample_size(20);
    g.bench_function("encode", |b| b.iter(|| black_box(encode())));
    let trace = encode();
    g.bench_function("decode", |b| {
        b.iter(|| {
            let mut dec = ContextDecoder::new(&p, &layout, black_box(&trace.words), 64).unwrap();
            let mut n = 0usize;
            while let Some(inv) = dec.next_invocation().unwrap() {
                n += inv.path.len();
            }
            black_box(n)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
