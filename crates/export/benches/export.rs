//! Export throughput per format on a synthetic browser-like session of
//! 100 000 calls (bytes written per second). The 10⁷-call figures in
//! BENCHMARKS.md come from `scripts/bench/export.sh`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tracekit_export::{write_firefox, write_folded, write_speedscope, FoldedOptions};

fn bench(c: &mut Criterion) {
    let session = tracekit_report::synthetic::session(100_000);
    let mut g = c.benchmark_group("export-100k-calls");
    let size = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut v = Vec::new();
        f(&mut v);
        v.len() as u64
    };
    let speedscope = |v: &mut Vec<u8>| write_speedscope(&session, v).unwrap();
    let firefox = |v: &mut Vec<u8>| write_firefox(&session, v).unwrap();
    let folded = |v: &mut Vec<u8>| write_folded(&session, &FoldedOptions::default(), v).unwrap();
    for (name, f) in [
        ("speedscope", &speedscope as &dyn Fn(&mut Vec<u8>)),
        ("firefox", &firefox),
        ("folded", &folded),
    ] {
        g.throughput(Throughput::Bytes(size(f)));
        g.bench_function(name, |b| {
            let mut buf = Vec::with_capacity(1 << 24);
            b.iter(|| {
                buf.clear();
                f(&mut buf);
                buf.len()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
