//! Writes a synthetic Android method trace of N calls (four threads, dual
//! clock, 2,000 methods: `tracekit_example::synthetic_calls`) for the SQL
//! benchmarks (`scripts/bench/sql.sh`).
//!
//! `cargo run --release -p tracekit-sql --example gen_calls -- CALLS OUT.trace`

fn main() {
    let mut args = std::env::args().skip(1);
    let calls: usize = args.next().map_or(10_000_000, |a| a.parse().expect("CALLS"));
    let out = args.next().unwrap_or_else(|| "calls.trace".into());
    let s = tracekit_example::synthetic_calls(calls);
    tracekit_dmtrace::write_path(&s, &out).expect("write the trace");
    eprintln!("wrote {out}: {} calls", calls / 4 * 4);
}
