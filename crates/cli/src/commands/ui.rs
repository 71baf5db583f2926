//! `tracekit ui NAME [--port P] [--from-us A --to-us B] [--max-events N]`:
//! the timeline viewer served on 127.0.0.1, of the whole input or of a time
//! window. A recording too long to hold in memory opens on its first
//! stretch of `--max-events` events, and says so.

use super::charge::PowerArgs;
use super::input::{open_window_ns, TimeRange};
use super::report::ready_problems;
use anyhow::Result;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use tracekit_report::{AnalysisSolver, ViewModel};

/// Arguments of `tracekit ui`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[arg(value_name = "INPUT", help = tracekit_io::INPUT_HELP)]
    input: PathBuf,
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 8040)]
    port: u16,
    /// Method the big red button calls.
    #[arg(long, default_value = "brb")]
    brb_method: String,
    /// A problem to compute at start: "METHOD" or "METHOD when CONDITION" (repeatable).
    #[arg(long = "problem")]
    problems: Vec<String>,
    #[command(flatten)]
    charge: PowerArgs,
    /// Only this time window's calls (a recording is read only up to its end).
    #[command(flatten)]
    range: TimeRange,
    /// Without --from-us/--to-us, a recording of more events than this opens
    /// on its first stretch of about this many (the viewer holds about 24
    /// bytes per event); 0: always the whole recording.
    #[arg(long, default_value_t = DEFAULT_MAX_EVENTS, value_name = "N")]
    max_events: u64,
}

/// Events the viewer loads by default: about half a gigabyte, ready in a few seconds.
const DEFAULT_MAX_EVENTS: u64 = 20_000_000;

/// The window to show: the one asked for, or for a recording longer than
/// `--max-events` its first stretch of that many events (with a note).
fn window(a: &Args) -> Result<Option<(u64, u64)>> {
    if let Some(r) = a.range.read_ns()? {
        return Ok(Some(r));
    }
    if a.max_events == 0 {
        return Ok(None);
    }
    let Some(w) = tracekit_io::first_events_window(&a.input, a.max_events)? else {
        return Ok(None);
    };
    let (from_us, to_us) = (w.range_ns.0 as f64 / 1e3, w.range_ns.1 as f64 / 1e3);
    super::note(format_args!(
        "{} holds {} events, more than --max-events {}: showing its first {:.3} s ({} events, \
         as --from-us {from_us:.0} --to-us {to_us:.0}); choose another window with --from-us/--to-us, \
         or raise --max-events (0: the whole recording, about {} MB)",
        a.input.display(),
        w.total,
        a.max_events,
        (w.range_ns.1 - w.range_ns.0) as f64 / 1e9,
        w.events,
        (w.total * 24) >> 20,
    ));
    Ok(Some(w.range_ns))
}

/// Serves until interrupted.
pub fn run(a: Args) -> Result<()> {
    let mut s = open_window_ns(&a.input, window(&a)?)?.session;
    a.charge.line_up(&mut s, &a.input)?;
    let session = Arc::new(s);
    let problems = ready_problems(&session, &a.brb_method, &a.problems)?;
    let indexing = crate::progress::step("indexing the calls for the viewer");
    let mut view = ViewModel::new(&session);
    a.charge.attach_to_view(&mut view, &session)?;
    let view = Arc::new(view);
    drop(indexing);
    let server = tracekit_ui::Server::bind(a.port, view, Arc::new(AnalysisSolver::new(session)), problems)
        .map_err(anyhow::Error::msg)?;
    println!(
        "tracekit ui: serving {} at http://{}/ (Ctrl-C stops)",
        a.input.display(),
        server.addr()
    );
    std::io::stdout().flush()?;
    server.run();
    Ok(())
}
