//! Encode/decode throughput of each scheme on a synthetic loopy CFG and a
//! 100 000-edge path with predictable branches (70% repeat the previous
//! choice). Run: `cargo bench -p tracekit-paths --bench codecs`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use tracekit_paths::*;

fn bench(c: &mut Criterion) {
    let program = synth::random_program(11, 40, 70, 3);
    let m = MethodId(0);
    let cfg = program.cfg(m);
    let path = synth::random_path(cfg, 11, 100_000, 70);
    let edges = (path.len() - 1) as u64;
    let mut g = c.benchmark_group("paths");
    g.throughput(Throughput::Elements(edges));
    g.sample_size(20);
    for width in [32u32, 64] {
        for scheme in Scheme::ALL {
            let codec = Codec::new(&program, m, scheme, width).unwrap();
            let fresh = AdaptiveModel::new(&program, AdaptiveParams::default()).unwrap();
            let id = format!("{scheme}/w{width}");
            g.bench_function(BenchmarkId::new("encode", &id), |b| {
                b.iter(|| {
                    let mut model = fresh.clone();
                    black_box(codec.encode(Some(&mut model), black_box(&path)).unwrap())
                })
            });
            let trace = codec.encode(Some(&mut fresh.clone()), &path).unwrap();
            g.bench_function(BenchmarkId::new("decode", &id), |b| {
                b.iter(|| {
                    let mut model = fresh.clone();
                    black_box(codec.decode(Some(&mut model), black_box(&trace.items)).unwrap())
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
