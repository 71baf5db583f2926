//! Export throughput on a synthetic browser-like session:
//! `cargo run --release -p tracekit-export --example export_bench -- [RUNS] [CALLS] [FORMAT]`
//! (defaults 5 and 10⁷; `scripts/bench/export.sh` runs it). Each format is
//! written RUNS times into a byte-counting sink (the encoder's own speed, no
//! disk), and the median time gives MB/s written and call events/s.

use std::io::Write;
use std::time::Instant;
use tracekit_export::{write_firefox, write_folded, write_speedscope, Clock, FoldedOptions};
use tracekit_model::Session;

/// Counts bytes and throws them away.
struct Count(u64);

impl Write for Count {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len() as u64;
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

type Writer = fn(&Session, &mut Count) -> Result<(), tracekit_export::Error>;

fn main() {
    let mut args = std::env::args().skip(1);
    let runs: usize = args.next().map_or(5, |a| a.parse().expect("RUNS"));
    let calls: usize = args.next().map_or(10_000_000, |a| a.parse().expect("CALLS"));
    let only = args.next();
    let t0 = Instant::now();
    let session = tracekit_report::synthetic::session(calls);
    let events = session.call_event_count() as f64;
    eprintln!(
        "session: {} call events on {} threads, built in {:.1} s",
        events,
        session.threads.len(),
        t0.elapsed().as_secs_f64()
    );
    let formats: [(&str, Writer); 4] = [
        ("speedscope", |s, w| write_speedscope(s, w)),
        ("firefox", |s, w| write_firefox(s, w)),
        ("folded (wall)", |s, w| write_folded(s, &FoldedOptions::default(), w)),
        ("folded (thread-cpu)", |s, w| {
            write_folded(
                s,
                &FoldedOptions {
                    clock: Clock::ThreadCpu,
                    thread_roots: true,
                },
                w,
            )
        }),
    ];
    println!("| format | output | median time | MB/s written | call events/s |");
    println!("|---|---|---|---|---|");
    for (name, write) in formats {
        if only.as_deref().is_some_and(|o| !name.starts_with(o)) {
            continue;
        }
        let mut times = Vec::new();
        let mut bytes = 0;
        for _ in 0..runs {
            let mut sink = Count(0);
            let t = Instant::now();
            write(&session, &mut sink).expect("export");
            times.push(t.elapsed().as_secs_f64());
            bytes = sink.0;
        }
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        println!(
            "| {name} | {:.1} MB | {:.2} s | {:.0} | {:.1} M |",
            bytes as f64 / 1e6,
            median,
            bytes as f64 / 1e6 / median,
            events / median / 1e6
        );
    }
}
