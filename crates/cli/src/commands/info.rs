//! `tracekit info INPUT`: what a session contains.

use super::input::{self, open_loaded, safe};
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

/// `info --json`: the session's summary and how the one door read it.
#[derive(serde::Serialize)]
struct InfoReport<'a> {
    #[serde(flatten)]
    summary: &'a SessionSummary,
    /// The format the door detected (`android-trace`, `systrace`, …).
    format: &'static str,
    /// Every file or directory read.
    inputs: &'a [PathBuf],
}

/// Prints a summary of the session.
pub fn run(a: Args) -> Result<()> {
    let loaded = open_loaded(&a.input)?;
    let s = &loaded.session;
    let sum = SessionSummary::of(s);
    if a.json {
        return input::print_json(&InfoReport {
            summary: &sum,
            format: loaded.format.name(),
            inputs: &loaded.inputs,
        });
    }
    println!("session      {}", safe(&sum.name));
    println!("format       {}", loaded.format.describe());
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
        let why = if loaded.format == tracekit_io::Format::AndroidTrace {
            " (no .clog beside the trace)"
        } else {
            ""
        };
        println!("context      none{why}");
    } else {
        println!("context      {} items", sum.context.len());
        for t in &sum.context {
            println!("  {:<34} {:<6} {} records", safe(&t.label), t.kind, t.records);
        }
    }
    if !sum.counters.is_empty() {
        println!("counters     {} tracks", sum.counters.len());
        for c in &sum.counters {
            let unit = c.unit.as_deref().map(|u| format!(" ({u})")).unwrap_or_default();
            println!("  {:<34} {} samples", safe(&format!("{}{unit}", c.name)), c.samples);
        }
    }
    if sum.sched_slices > 0 {
        println!("scheduling   {} slices", sum.sched_slices);
    }
    if sum.async_slices > 0 {
        println!("async spans  {}", sum.async_slices);
    }
    if sum.markers > 0 {
        println!("markers      {}", sum.markers);
    }
    for k in &sum.skipped {
        println!("not used     {} ({}×)", safe(&k.kind), k.count);
    }
    if sum.lost_events > 0 {
        println!("lost events  {}", sum.lost_events);
    }
    for r in &sum.repairs {
        println!("repaired     {} ({}×): {}", r.code, r.count, safe(&r.detail));
    }
    Ok(())
}
