//! Reads a Chrome JSON trace and prints one line of facts and timing:
//! `reader=tracekit-chrome bytes=… calls=… threads=… secs=…`, then, with
//! `-v`, the threads, skipped kinds and repairs.
//!
//! ```sh
//! cargo run --release -p tracekit-chrome --example read_chrome -- trace.json [-v]
//! ```

use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: read_chrome TRACE.json [-v]");
        std::process::exit(2);
    };
    let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let start = Instant::now();
    let s = match tracekit_chrome::read_path(std::path::Path::new(path)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let secs = start.elapsed().as_secs_f64();
    // The model's own size: 12 bytes per call event, 20 with thread time
    // (ARCHITECTURE.md), plus what the columns hold spare.
    let model_bytes: usize = s.thread_calls().map(|(_, _, c)| c.heap_bytes()).sum();
    println!(
        "reader=tracekit-chrome bytes={bytes} model_bytes={model_bytes} calls={} threads={} markers={} counters={} async={} clocks={} secs={secs:.3}",
        s.call_event_count() / 2,
        s.threads.len(),
        s.markers.len(),
        s.counters.len(),
        s.async_slices.len(),
        s.clocks.name(),
    );
    if args.iter().any(|a| a == "-v") {
        for (_, t, c) in s.thread_calls() {
            println!("thread pid={:?} tid={} {:?}: {} events", t.pid, t.tid, t.name, c.len());
        }
        for p in &s.processes {
            println!("process {} {:?}", p.pid, p.name);
        }
        println!("source clock: {:?}", s.source_clock);
        for (k, n) in &s.skipped {
            println!("skipped {k}: {n}");
        }
        for r in &s.repairs {
            println!("repair {} x{}: {}", r.code, r.count, r.detail);
        }
    }
}
