//! Reads a trace with the `android_trace_log` crate (the comparison anchor)
//! and prints what it took, in the same format as `read_dmtrace`.

use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: read_android_trace_log FILE")?;
    let t = Instant::now();
    let data = std::fs::read(&path)?;
    let log = android_trace_log::parse(&data).map_err(|e| e.to_string())?;
    let secs = t.elapsed().as_secs_f64();
    println!(
        "reader=android_trace_log records={} bytes={} secs={secs:.4} mb_per_s={:.1}",
        log.events.len(),
        data.len(),
        data.len() as f64 / 1e6 / secs
    );
    Ok(())
}
