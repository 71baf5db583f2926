//! Measures the linear model's fit: a simulated phone (4 CPUs in two
//! clusters changing frequency and idle state, screen brightness, Wi-Fi
//! traffic) with a meter read at 100 Hz, N samples, power linear in the
//! state plus 2% noise; prints the median of R fits and the fit's error.
//!
//! `cargo run --release -p tracekit-powermodel --example bench_fit -- [SAMPLES] [RUNS]`

use std::time::Instant;
use tracekit_model::{Clocks, ContextTrack, ContextType, ContextValue, CounterTrack, Session};

/// This thread's CPU time, ns (Linux's schedstat).
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let samples: usize = args.next().map_or(1_000_000, |a| a.parse().expect("SAMPLES"));
    let runs: usize = args.next().map_or(5, |a| a.parse().expect("RUNS"));
    let mut x = 0x2545f4914f6cdd1du64;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as f64 / (1u64 << 53) as f64
    };
    let t0 = Instant::now();
    let mut s = Session::new("bench", Clocks::WALL);
    let speeds = [
        [300_000.0, 1_100_000.0, 1_800_000.0],
        [700_000.0, 1_800_000.0, 2_800_000.0],
    ];
    let mut freq_t: Vec<CounterTrack> = (0..4u32)
        .map(|c| {
            let mut t = CounterTrack::new(format!("cpu{c} freq"), Some("kHz"));
            t.cpu = Some(c);
            t
        })
        .collect();
    let mut idle_t: Vec<CounterTrack> = (0..4u32)
        .map(|c| {
            let mut t = CounterTrack::new(format!("cpu{c} idle"), None);
            t.cpu = Some(c);
            t
        })
        .collect();
    let mut bright_t = ContextTrack::new("Screen brightness", ContextType::Int);
    let mut screen_t = ContextTrack::new("Screen state", ContextType::Int);
    screen_t.push(0, ContextValue::Int(1));
    let (mut freq, mut run, mut bright) = ([0.0f64; 4], [false; 4], 128.0f64);
    let (mut times, mut watts) = (Vec::with_capacity(samples), Vec::with_capacity(samples));
    const TICK: i64 = 10_000_000; // 100 Hz
                                  // The meter's sample at t is the mean power over the 10 ms before t.
    let mut p = 0.0;
    for k in 0..=samples {
        let t = k as i64 * TICK;
        if k > 0 {
            times.push(t);
            watts.push(p * (1.0 + 0.02 * (rnd() - 0.5)));
        }
        for c in 0..4 {
            if k == 0 || rnd() < 0.05 {
                freq[c] = speeds[c / 2][(rnd() * 3.0) as usize % 3];
                freq_t[c].push(t, freq[c]);
            }
            if k == 0 || rnd() < 0.3 {
                run[c] = rnd() < 0.5;
                idle_t[c].push(t, if run[c] { -1.0 } else { 1.0 });
            }
        }
        if k == 0 || rnd() < 0.01 {
            bright = (rnd() * 255.0).floor();
            bright_t.push(t, ContextValue::Int(bright as i32));
        }
        p = 0.4 + 0.8 * bright / 255.0;
        for c in 0..4 {
            if run[c] {
                p += [0.05, 0.12][c / 2] + [0.09, 0.31][c / 2] * freq[c] * 1e-6;
            }
        }
    }
    s.counters.extend(freq_t);
    s.counters.extend(idle_t);
    s.context.extend([screen_t, bright_t]);
    eprintln!(
        "built {samples} samples ({:.0} s at 100 Hz) in {:.2} s",
        samples as f64 / 100.0,
        t0.elapsed().as_secs_f64()
    );
    let (mut wall, mut cpu) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let t = Instant::now();
        let c0 = cpu_ns();
        let fit = tracekit_powermodel::fit(&s, &times, &watts, None).expect("the model fits");
        wall.push(t.elapsed().as_secs_f64());
        cpu.push((cpu_ns() - c0) as f64 * 1e-9);
        eprintln!(
            "  {:.3} s wall, {:.3} s CPU (R² {:.4}, MAPE {:.2}%, {})",
            wall.last().unwrap(),
            cpu.last().unwrap(),
            fit.error.r2,
            fit.error.mape_pct,
            fit.quality.verdict
        );
    }
    wall.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    println!(
        "fit on {samples} samples: median {:.3} s wall, {:.3} s CPU over {runs} runs (wall min {:.3}, max {:.3})",
        wall[runs / 2],
        cpu[runs / 2],
        wall[0],
        wall[runs - 1]
    );
}
