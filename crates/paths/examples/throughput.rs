//! Encode/decode throughput of each scheme, timed directly: the same
//! workload as the criterion bench (`benches/codecs.rs`), each operation run
//! 21 times, reporting the median and the fastest run, which a loaded
//! machine disturbs least.
//!
//! Run: `cargo run --release -p tracekit-paths --example throughput`.

use std::time::Instant;
use tracekit_paths::*;

fn time(mut f: impl FnMut()) -> (f64, f64) {
    let mut runs: Vec<f64> = (0..21)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .collect();
    runs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (runs[runs.len() / 2], runs[0])
}

fn main() {
    let program = synth::random_program(11, 40, 70, 3);
    let m = MethodId(0);
    let path = synth::random_path(program.cfg(m), 11, 100_000, 70);
    let edges = (path.len() - 1) as f64;
    println!("{} edges per path", path.len() - 1);
    println!("| operation | scheme | W | median ms | fastest ms | M edges/s (median) |");
    println!("|---|---|---|---|---|---|");
    for width in [32u32, 64] {
        for scheme in Scheme::ALL {
            let codec = Codec::new(&program, m, scheme, width).unwrap();
            let fresh = AdaptiveModel::new(&program, AdaptiveParams::default()).unwrap();
            let trace = codec.encode(Some(&mut fresh.clone()), &path).unwrap();
            let enc = time(|| {
                let mut model = fresh.clone();
                std::hint::black_box(codec.encode(Some(&mut model), &path).unwrap());
            });
            let dec = time(|| {
                let mut model = fresh.clone();
                let p = codec.decode(Some(&mut model), &trace.items).unwrap();
                assert_eq!(p.len(), path.len());
            });
            for (op, (med, min)) in [("encode", enc), ("decode", dec)] {
                println!(
                    "| {op} | {scheme} | {width} | {:.2} | {:.2} | {:.1} |",
                    med * 1e3,
                    min * 1e3,
                    edges / med / 1e6
                );
            }
        }
    }
}
