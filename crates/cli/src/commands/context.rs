//! `tracekit context INPUT --at-us T`: every context item's value at an instant.

use super::input::{self, safe};
use anyhow::Result;
use std::path::PathBuf;
use tracekit_analysis::reports::ContextReport;

/// Arguments of `tracekit context`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[arg(value_name = "INPUT", help = tracekit_io::INPUT_HELP)]
    input: PathBuf,
    /// Time in µs since the trace start (negative: before it).
    #[arg(
        long = "at-us",
        alias = "at",
        value_name = "MICROSECONDS",
        allow_negative_numbers = true,
        value_parser = input::finite_us
    )]
    at_us: f64,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Prints the context snapshot.
pub fn run(a: Args) -> Result<()> {
    let loaded = input::open_loaded(&a.input)?;
    let s = loaded.session;
    if s.context_items().is_empty() {
        anyhow::bail!(input::no_context_message(loaded.format, &loaded.inputs[0]));
    }
    let report = ContextReport::at(&s, a.at_us);
    if a.json {
        return input::print_json(&report);
    }
    println!("context at {} µs:", a.at_us);
    for r in &report.context {
        let v = r.value.as_ref().map_or("(undefined)".to_string(), |v| v.to_string());
        println!("  {:<34} {:<6} {}", safe(&r.label), r.kind, safe(&v));
    }
    Ok(())
}
