//! Reads a capture with `tracekit_ftrace::read_path_with_outcome` and
//! prints one `key=value` line (for `scripts/bench/ftrace.sh`) and, with
//! `-v`, what the session holds.
//!
//!   cargo run --release -p tracekit-ftrace --example read_ftrace -- FILE [-v]

use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: read_ftrace FILE [-v]");
        std::process::exit(2);
    };
    let verbose = args.next().as_deref() == Some("-v");
    let t0 = Instant::now();
    let (s, o) = match tracekit_ftrace::read_path_with_outcome(std::path::Path::new(&path)) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let secs = t0.elapsed().as_secs_f64();
    let samples: usize = s.counters.iter().map(|c| c.len()).sum();
    println!(
        "reader=tracekit lines={} used={} skipped={} comments={} unaccounted={} calls={} sched={} counter_samples={} async={} markers={} secs={secs:.6}",
        o.lines,
        o.used,
        o.skipped,
        o.comments,
        o.unaccounted(),
        s.call_event_count(),
        s.sched.len(),
        samples,
        s.async_slices.len(),
        s.markers.len()
    );
    if verbose {
        println!("threads: {}  processes: {}", s.threads.len(), s.processes.len());
        println!(
            "source clock: {:?}  anchor_unix_ns: {:?}",
            s.source_clock, s.anchor_unix_ns
        );
        println!("duration_ns: {:?}  lost events: {}", s.duration_ns, s.lost_events);
        for (k, v) in &s.properties {
            println!("property {k} = {v}");
        }
        for c in &s.counters {
            println!(
                "counter {:?} unit={:?} pid={:?} cpu={:?} kind={:?} samples={}",
                c.name,
                c.unit,
                c.pid,
                c.cpu,
                c.kind,
                c.len()
            );
        }
        for (k, n) in &s.skipped {
            println!("skipped {k}: {n}");
        }
        for r in &s.repairs {
            println!("repair {}: {} ({})", r.code, r.count, r.detail);
        }
        println!("outcome: {o:?}");
    }
}
