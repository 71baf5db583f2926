//! Energy over 10⁶ windows of a 100 Hz voltage and current capture one
//! hour long (360 000 samples each). `energy_j` is the fast path (two binary
//! searches per window); `window` adds charge, mean power, coverage and the
//! error bounds (six more integrals per window).
//!
//! Windows come in random order (each edge a cache miss) and, as slices and
//! condition intervals do, in time order; the batch calls (`energies`,
//! `windows`) visit any order in time order.
//!
//! Run: `cargo bench -p tracekit-energy --bench windows`

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use tracekit_energy::{EnergyIndex, Options, Window};
use tracekit_model::{power, Clocks, CounterKind, CounterTrack, Session};

const SAMPLES: i64 = 360_000;
const PERIOD_NS: i64 = 10_000_000;
const WINDOWS: usize = 1_000_000;

fn session() -> Session {
    let mut s = Session::new("bench", Clocks::WALL);
    let mut v = CounterTrack::new(power::BATTERY_VOLTAGE, Some("V")).with_kind(CounterKind::Sampled);
    let mut i = CounterTrack::new(power::BATTERY_CURRENT, Some("A")).with_kind(CounterKind::Sampled);
    for k in 0..SAMPLES {
        let t = k as f64 * 0.01;
        v.push(k * PERIOD_NS, 4.2 - 0.5 * t / 3600.0);
        i.push(k * PERIOD_NS, 0.5 + 0.2 * (t * std::f64::consts::TAU).sin());
    }
    s.counters.push(v);
    s.counters.push(i);
    s
}

/// Windows spread over the hour, 1 ms to ~10 s long, in no order.
fn windows() -> Vec<Window> {
    let span = SAMPLES * PERIOD_NS;
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..WINDOWS)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let a = (x % span as u64) as i64;
            let len = 1_000_000 + ((x >> 20) % 10_000_000_000) as i64;
            Window::new(a, a + len)
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let s = session();
    let index = EnergyIndex::build(&s, &Options::default()).unwrap();
    let ws = windows();
    let mut sorted = ws.clone();
    sorted.sort_by_key(|w| w.from_ns);
    let mut g = c.benchmark_group("energy over 1e6 windows (100 Hz, 1 h)");
    g.sample_size(10);
    g.bench_function("energy_j", |b| {
        b.iter(|| {
            let mut sum = 0.0;
            for w in &ws {
                sum += index.energy_j(w.from_ns, w.to_ns).unwrap();
            }
            black_box(sum)
        })
    });
    g.bench_function("energy_j, windows in time order", |b| {
        b.iter(|| {
            let mut sum = 0.0;
            for w in &sorted {
                sum += index.energy_j(w.from_ns, w.to_ns).unwrap();
            }
            black_box(sum)
        })
    });
    g.bench_function("energies (batch, random order)", |b| {
        b.iter(|| black_box(index.energies(&ws).iter().map(|e| e.unwrap()).sum::<f64>()))
    });
    g.bench_function("windows (batch with charge and bounds, random order)", |b| {
        b.iter(|| black_box(index.windows(&ws).iter().map(|w| w.bounds_j.unwrap()[1]).sum::<f64>()))
    });
    g.bench_function("window (charge, bounds)", |b| {
        b.iter(|| {
            let mut sum = 0.0;
            for w in &ws {
                sum += index.window(w).bounds_j.unwrap()[1];
            }
            black_box(sum)
        })
    });
    g.bench_function("window (charge, bounds), windows in time order", |b| {
        b.iter(|| {
            let mut sum = 0.0;
            for w in &sorted {
                sum += index.window(w).bounds_j.unwrap()[1];
            }
            black_box(sum)
        })
    });
    g.bench_function("build index", |b| {
        b.iter(|| black_box(EnergyIndex::build(&s, &Options::default()).unwrap()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
