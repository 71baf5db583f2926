//! `tracekit replay INPUT`: the indented call listing of any trace.

use super::input::{self, ThreadFilter};
use std::path::PathBuf;
use tracekit_analysis::listing::{listing, render_text, ListingFilter};
use tracekit_analysis::reports::ListingReport;

/// Arguments of `tracekit replay`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[arg(value_name = "INPUT", help = tracekit_io::INPUT_HELP)]
    input: PathBuf,
    /// Print `{"events": [...], "lost_events": N}` as JSON.
    #[arg(long)]
    json: bool,
    /// Print per-thread event and lost-event counts only (fast on huge recordings).
    #[arg(long, conflicts_with = "json")]
    stats: bool,
    #[command(flatten)]
    threads: ThreadFilter,
    /// Only events nested less deeply than this.
    #[arg(long)]
    depth: Option<usize>,
    /// Only these functions (glob) and what they call (repeatable).
    #[arg(short = 'F', long = "function")]
    functions: Vec<String>,
}

/// Prints the listing.
pub fn run(a: Args) -> anyhow::Result<()> {
    if a.stats {
        if !tracekit_recording::is_recording_dir(&a.input) {
            anyhow::bail!("{}: --stats reads recording directories only", a.input.display());
        }
        let stats = tracekit_recording::recording_stats(&a.input)?;
        println!("{:>8} {:>8} {:>14} {:>14}", "pid", "tid", "events", "lost");
        for t in &stats {
            println!(
                "{:>8} {:>8} {:>14} {:>14}",
                t.header.pid, t.header.tid, t.events, t.header.lost
            );
        }
        let (ev, lost): (u64, u64) = stats.iter().fold((0, 0), |(e, l), t| (e + t.events, l + t.header.lost));
        println!(
            "total {ev} events recorded, {lost} lost (counted), {} threads",
            stats.len()
        );
        return Ok(());
    }
    let s = input::open(&a.input)?;
    let tids = match a.threads.resolve(&s)? {
        Some(ids) => ids.iter().map(|&id| s.thread(id).tid).collect(),
        None => Vec::new(),
    };
    let events = listing(
        &s,
        &ListingFilter {
            tids,
            max_depth: a.depth,
            functions: a.functions,
        },
    );
    if a.json {
        let report = ListingReport {
            events,
            lost_events: s.lost_events,
        };
        println!("{}", serde_json::to_string(&report)?);
    } else {
        if let Some(l) = input::lost_line(&s) {
            println!("# {l}");
        }
        print!("{}", tracekit_safeio::terminal_lines(&render_text(&events)));
    }
    Ok(())
}
