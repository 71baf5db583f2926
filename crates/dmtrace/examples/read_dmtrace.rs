//! Reads a trace with tracekit's reader and prints what it took:
//! `records=<n> bytes=<n> secs=<s> mb_per_s=<x>`. Used by `scripts/bench/dmtrace.sh`.

use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: read_dmtrace FILE")?;
    let bytes = std::fs::metadata(&path)?.len();
    let t = Instant::now();
    let s = tracekit_dmtrace::read_path(&path)?;
    let secs = t.elapsed().as_secs_f64();
    let heap: usize = s.thread_calls().map(|(_, _, c)| c.heap_bytes()).sum();
    println!(
        "reader=tracekit records={} bytes={bytes} secs={secs:.4} mb_per_s={:.1} call_heap_mb={:.1} repairs={}",
        s.call_event_count(),
        bytes as f64 / 1e6 / secs,
        heap as f64 / 1e6,
        s.repairs.len()
    );
    Ok(())
}
