//! `tracekit info NAME`: what a session contains.

use super::input::{self, open_loaded};
use anyhow::Result;
use serde_json::json;
use std::path::PathBuf;

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
    let loaded = open_loaded(&a.input)?;
    let s = &loaded.session;
    let counters: Vec<_> = s
        .counters
        .iter()
        .map(
            |c| json!({"name": c.name, "unit": c.unit, "samples": c.len(), "pid": c.pid, "cpu": c.cpu, "kind": c.kind}),
        )
        .collect();
    let span = s.time_span().unwrap_or((0, 0));
    let threads: Vec<_> = s
        .thread_calls()
        .map(|(_, t, c)| json!({"tid": t.tid, "name": t.label(), "call_events": c.len()}))
        .collect();
    let context: Vec<_> = s
        .context
        .iter()
        .map(|t| json!({"label": t.label, "type": t.kind().name(), "records": t.len(), "unit": t.unit}))
        .collect();
    let repairs: Vec<_> = s
        .repairs
        .iter()
        .map(|r| json!({"code": r.code, "count": r.count, "detail": r.detail}))
        .collect();
    if a.json {
        return input::print_json(&json!({
            "name": s.name,
            "clock": s.clocks.name(),
            "start_unix_us": s.anchor_unix_ns.map(|n| n / 1000),
            "duration_us": input::us(s.duration_ns.unwrap_or(span.1)),
            "methods": s.methods.len(),
            "call_events": s.call_event_count(),
            "threads": threads,
            "context": context,
            "properties": s.properties.iter().map(|(k, v)| json!([k, v])).collect::<Vec<_>>(),
            "repairs": repairs,
            "format": loaded.format.name(),
            "inputs": loaded.inputs,
            "counters": counters,
            "sched_slices": s.sched.len(),
            "async_slices": s.async_slices.len(),
            "markers": s.markers.len(),
            "skipped": s.skipped.iter().map(|(k, n)| json!({"kind": k, "count": n})).collect::<Vec<_>>(),
            "lost_events": s.lost_events,
        }));
    }
    println!("session      {}", s.name);
    println!("format       {}", loaded.format.describe());
    println!("clock        {}", s.clocks.name());
    if let Some(a) = s.anchor_unix_ns {
        println!("started      {} µs since the epoch", a / 1000);
    }
    println!("duration     {} ms", input::ms(s.duration_ns.unwrap_or(span.1)));
    println!("methods      {}", s.methods.len());
    println!("call events  {}", s.call_event_count());
    println!("threads      {}", s.threads.len());
    for (_, t, c) in s.thread_calls() {
        println!("  {:>6}  {:<24} {} events", t.tid, t.label(), c.len());
    }
    if s.context.is_empty() {
        let why = if loaded.format == tracekit_io::Format::AndroidTrace {
            " (no .clog beside the trace)"
        } else {
            ""
        };
        println!("context      none{why}");
    } else {
        println!("context      {} items", s.context.len());
        for t in &s.context {
            println!("  {:<34} {:<6} {} records", t.label, t.kind().name(), t.len());
        }
    }
    if !s.counters.is_empty() {
        println!("counters     {} tracks", s.counters.len());
        for c in &s.counters {
            let unit = c.unit.as_deref().map(|u| format!(" ({u})")).unwrap_or_default();
            println!("  {:<34} {} samples", format!("{}{unit}", c.name), c.len());
        }
    }
    if !s.sched.is_empty() {
        println!("scheduling   {} slices", s.sched.len());
    }
    if !s.async_slices.is_empty() {
        println!("async spans  {}", s.async_slices.len());
    }
    if !s.markers.is_empty() {
        println!("markers      {}", s.markers.len());
    }
    for (kind, n) in &s.skipped {
        println!("not used     {kind} ({n}×)");
    }
    if s.lost_events > 0 {
        println!("lost events  {}", s.lost_events);
    }
    for r in &s.repairs {
        println!("repaired     {} ({}×): {}", r.code, r.count, r.detail);
    }
    Ok(())
}
