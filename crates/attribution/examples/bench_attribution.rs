//! Measures attribution: a method trace of N calls on four threads (dual
//! clock, calls of 2–40 µs nested up to depth 8) against a power track
//! sampled at 100 Hz, with per-method energies; prints the median of R runs.
//!
//! `cargo run --release -p tracekit-attribution --example bench_attribution -- [CALLS] [RUNS]`

use std::time::Instant;
use tracekit_attribution::{attribute, BaseRule, Options, PowerSamples};
use tracekit_energy::curve::Rule;

/// This thread's CPU time, ns (Linux's schedstat), so that a machine shared
/// with other work does not inflate the figure as wall time would.
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let calls: usize = args.next().map_or(10_000_000, |a| a.parse().expect("CALLS"));
    let runs: usize = args.next().map_or(5, |a| a.parse().expect("RUNS"));
    let t0 = Instant::now();
    let s = tracekit_example::synthetic_calls(calls);
    let end = s.time_span().map_or(0, |(_, b)| b);
    let n = (end / 10_000_000 + 2) as usize;
    let power = PowerSamples {
        times: (0..n as i64).map(|k| k * 10_000_000).collect(),
        watts: (0..n).map(|k| 1.0 + ((k as f64) * 0.37).sin().abs() * 2.0).collect(),
        rule: Rule::Trapezoid,
    };
    eprintln!(
        "built {} events on 4 threads, {:.1} s of trace, {} power samples (100 Hz) in {:.2} s",
        s.call_event_count(),
        end as f64 * 1e-9,
        n,
        t0.elapsed().as_secs_f64()
    );
    let mut times = Vec::new();
    let mut cpu_times = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        let c0 = cpu_ns();
        let a = attribute(
            &s,
            &power,
            &Options {
                base: BaseRule::default(),
                methods: true,
                ..Options::default()
            },
        );
        times.push(t.elapsed().as_secs_f64());
        cpu_times.push((cpu_ns() - c0) as f64 * 1e-9);
        let rel = (a.accounted_j() - a.measured_j).abs() / a.measured_j;
        assert!(rel < 1e-9, "invariant broken: {rel}");
        eprintln!(
            "  {:.3} s wall, {:.3} s CPU ({} methods, invariant error {rel:.2e})",
            times.last().unwrap(),
            cpu_times.last().unwrap(),
            a.methods.len()
        );
    }
    times.sort_by(f64::total_cmp);
    cpu_times.sort_by(f64::total_cmp);
    println!(
        "attribution of {} calls against {} samples: median {:.3} s wall, {:.3} s CPU over {runs} runs (wall min {:.3}, max {:.3})",
        calls,
        n,
        times[runs / 2],
        cpu_times[runs / 2],
        times[0],
        times[runs - 1]
    );
}
