//! Reads a Perfetto trace and prints what it holds, with the time the read
//! took (used by `scripts/bench/perfetto.sh`).
//!
//!     cargo run --release -p tracekit-perfetto --example read_perfetto -- FILE [--summary]

use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: read_perfetto FILE [--summary]");
        std::process::exit(2);
    };
    let cpu0 = thread_cpu_secs();
    let t0 = Instant::now();
    let s = match tracekit_perfetto::read_path(std::path::Path::new(path)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let secs = t0.elapsed().as_secs_f64();
    let cpu_secs = thread_cpu_secs() - cpu0;
    let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let model: usize = s.thread_calls().map(|(_, _, c)| c.heap_bytes()).sum();
    println!(
        "reader=perfetto bytes={bytes} secs={secs:.3} cpu_secs={cpu_secs:.3} events={} model_bytes={model}",
        s.call_event_count()
    );
    if args.iter().any(|a| a == "--summary") {
        println!(
            "clocks={} anchor={:?} duration_ns={:?} source_clock={:?}",
            s.clocks.name(),
            s.anchor_unix_ns,
            s.duration_ns,
            s.source_clock
        );
        println!(
            "processes={} threads={} methods={}",
            s.processes.len(),
            s.threads.len(),
            s.methods.len()
        );
        println!(
            "sched={} async={} markers={}",
            s.sched.len(),
            s.async_slices.len(),
            s.markers.len()
        );
        for (k, v) in &s.properties {
            println!("property {k}={v}");
        }
        for c in &s.counters {
            println!(
                "counter {:?} unit={:?} cpu={:?} pid={:?} samples={}",
                c.name,
                c.unit,
                c.cpu,
                c.pid,
                c.len()
            );
        }
        for (k, n) in &s.skipped {
            println!("skipped {k}: {n}");
        }
        for r in &s.repairs {
            println!("repair {} x{}: {}", r.code, r.count, r.detail);
        }
        let mut busiest: Vec<_> = s.thread_calls().filter(|(_, _, c)| !c.is_empty()).collect();
        busiest.sort_by_key(|(_, _, c)| std::cmp::Reverse(c.len()));
        for (_, t, c) in busiest.iter().take(5) {
            println!("thread {} {:?} pid={:?} events={}", t.tid, t.name, t.pid, c.len());
        }
    }
}

/// CPU time this thread has run, in seconds (Linux `schedstat`; 0 elsewhere).
fn thread_cpu_secs() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(0.0, |ns| ns as f64 / 1e9)
}
