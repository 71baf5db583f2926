//! `tracekit ui NAME [--port P] [--from-us A --to-us B]`: the timeline viewer
//! served on 127.0.0.1, of the whole input or of a time window.

use super::charge::PowerArgs;
use super::input::{open_window, TimeRange};
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
}

/// Serves until interrupted.
pub fn run(a: Args) -> Result<()> {
    let mut s = open_window(&a.input, &a.range)?.session;
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
