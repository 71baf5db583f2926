//! `tracekit ui NAME [--port P]`: the timeline viewer served on 127.0.0.1.

use super::charge::PowerArgs;
use super::input::open;
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
}

/// Serves until interrupted.
pub fn run(a: Args) -> Result<()> {
    let mut s = open(&a.input)?;
    a.charge.line_up(&mut s, &a.input)?;
    let session = Arc::new(s);
    let problems = ready_problems(&session, &a.brb_method, &a.problems)?;
    let mut view = ViewModel::new(&session);
    a.charge.attach_to_view(&mut view, &session)?;
    let view = Arc::new(view);
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
