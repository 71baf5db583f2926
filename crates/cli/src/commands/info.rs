//! `tracekit info INPUT`: what a session contains.

use super::input::{self, open, safe};
use anyhow::Result;
use std::path::PathBuf;
use tracekit_analysis::reports::SessionSummary;

/// Arguments of `tracekit info`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[arg(value_name = "INPUT", help = tracekit_io::INPUT_HELP)]
    input: PathBuf,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Prints a summary of the session.
pub fn run(a: Args) -> Result<()> {
    let s = open(&a.input)?;
    let sum = SessionSummary::of(&s);
    if a.json {
        return input::print_json(&sum);
    }
    println!("session      {}", safe(&sum.name));
    println!("clock        {}", sum.clock);
    if let Some(start) = sum.start_unix_us {
        println!("started      {start} µs since the epoch");
    }
    let span = s.time_span().unwrap_or((0, 0));
    println!("duration     {} ms", input::ms(s.duration_ns.unwrap_or(span.1)));
    println!("methods      {}", sum.methods);
    println!("call events  {}", sum.call_events);
    println!("threads      {}", s.threads.len());
    for t in &sum.threads {
        println!("  {:>6}  {:<24} {} events", t.tid, safe(&t.name), t.call_events);
    }
    if sum.context.is_empty() {
        println!("context      none (no .clog beside the trace)");
    } else {
        println!("context      {} items", sum.context.len());
        for t in &sum.context {
            println!("  {:<34} {:<6} {} records", safe(&t.label), t.kind, t.records);
        }
    }
    for r in &sum.repairs {
        println!("repaired     {} ({}×): {}", r.code, r.count, safe(&r.detail));
    }
    Ok(())
}
