//! Writes a Chrome JSON trace of a synthetic session with about CALLS calls
//! (`tracekit_report::synthetic::session`: three threads, dual clock,
//! context items, a counter, big-red-button calls) and prints the export's
//! timing: `writer=tracekit-chrome calls=… bytes=… secs=…`.
//!
//! ```sh
//! cargo run --release -p tracekit-chrome --example gen_chrome -- OUT.json 10000000
//! ```
//!
//! With `/dev/null` as OUT it measures the export alone.

use std::io::Write;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(out), Some(calls)) = (args.first(), args.get(1).and_then(|n| n.parse::<usize>().ok())) else {
        eprintln!("usage: gen_chrome OUT.json CALLS");
        std::process::exit(2);
    };
    let t0 = Instant::now();
    let session = tracekit_report::synthetic::session(calls);
    let made = t0.elapsed().as_secs_f64();
    let file = std::fs::File::create(out).unwrap_or_else(|e| {
        eprintln!("error: {out}: {e}");
        std::process::exit(1);
    });
    let mut w = Counting(std::io::BufWriter::with_capacity(1 << 20, file), 0);
    let start = Instant::now();
    if let Err(e) = tracekit_chrome::write(&session, &mut w).and_then(|()| w.flush().map_err(Into::into)) {
        eprintln!("error: {out}: {e}");
        std::process::exit(1);
    }
    let secs = start.elapsed().as_secs_f64();
    let bytes = w.1;
    println!(
        "writer=tracekit-chrome calls={} bytes={bytes} secs={secs:.3} generate_secs={made:.3}",
        session.call_event_count() / 2
    );
}

/// Counts the bytes written through it.
struct Counting<W>(W, u64);

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.0.write(buf)?;
        self.1 += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}
