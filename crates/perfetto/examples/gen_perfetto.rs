//! Generates a browser-like session of CALLS calls (tracekit-report's
//! synthetic generator: three threads, dual clock, context items and a
//! counter) and writes it as a Perfetto trace, printing how long the
//! export took (used by `scripts/bench/perfetto.sh`).
//!
//!     cargo run --release -p tracekit-perfetto --example gen_perfetto -- OUT [CALLS]

use std::io::BufWriter;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(out) = args.first() else {
        eprintln!("usage: gen_perfetto OUT [CALLS]");
        std::process::exit(2);
    };
    let calls: usize = args.get(1).and_then(|c| c.parse().ok()).unwrap_or(10_000_000);
    let t0 = Instant::now();
    let s = tracekit_report::synthetic::session(calls);
    let gen = t0.elapsed().as_secs_f64();
    let model: usize = s.thread_calls().map(|(_, _, c)| c.heap_bytes()).sum();
    let cpu1 = thread_cpu_secs();
    let t1 = Instant::now();
    let file = std::fs::File::create(out).unwrap_or_else(|e| {
        eprintln!("error: {out}: {e}");
        std::process::exit(1);
    });
    let mut w = BufWriter::with_capacity(1 << 20, file);
    if let Err(e) = tracekit_perfetto::write(&s, &mut w) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
    drop(w);
    let secs = t1.elapsed().as_secs_f64();
    let cpu_secs = thread_cpu_secs() - cpu1;
    let bytes = std::fs::metadata(out).map(|m| m.len()).unwrap_or(0);
    println!(
        "writer=perfetto events={} bytes={bytes} gen_secs={gen:.3} secs={secs:.3} cpu_secs={cpu_secs:.3} model_bytes={model}",
        s.call_event_count()
    );
}

/// CPU time this thread has run, in seconds (Linux `schedstat`; 0 elsewhere).
fn thread_cpu_secs() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(0.0, |ns| ns as f64 / 1e9)
}
