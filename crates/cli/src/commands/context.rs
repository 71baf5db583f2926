//! `tracekit context NAME --at µs`: every context item's value at an instant.

use super::input::{self, open};
use anyhow::Result;
use serde_json::json;
use std::path::PathBuf;
use tracekit_analysis::context::snapshot;

/// Arguments of `tracekit context`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[arg(value_name = "INPUT", help = tracekit_io::INPUT_HELP)]
    input: PathBuf,
    /// Time in µs since the trace start (negative: before it).
    #[arg(long, allow_negative_numbers = true)]
    at: f64,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Prints the context snapshot.
pub fn run(a: Args) -> Result<()> {
    let s = open(&a.input)?;
    if s.context.is_empty() {
        anyhow::bail!("{}: no context log (.clog) beside the trace", a.input.display());
    }
    let t = (a.at * 1000.0).round() as i64;
    let items = snapshot(&s, t);
    if a.json {
        let v: Vec<_> = items
            .iter()
            .map(|r| json!({"label": r.label, "type": r.kind, "value": r.value}))
            .collect();
        return input::print_json(&json!({"at_us": a.at, "context": v}));
    }
    println!("context at {} µs:", a.at);
    for r in items {
        let v = r.value.map_or("(undefined)".to_string(), |v| v.to_string());
        println!("  {:<34} {:<6} {}", r.label, r.kind, v);
    }
    Ok(())
}
