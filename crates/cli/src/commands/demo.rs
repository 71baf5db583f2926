//! `tracekit demo`: the main job on the bundled example — generate a
//! realistic session, read it back from its files, profile it, and find the
//! context that goes with the big-red-button presses.

use super::input::open;
use super::{example, problems, profile};
use anyhow::Result;
use std::path::PathBuf;
use tracekit_analysis::hints::hints;
use tracekit_analysis::problems::{find, ProblemDef};
use tracekit_analysis::{Profile, ProfileOptions};

/// Arguments of `tracekit demo`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Where to write the example files (default: a folder in the system's temp dir).
    #[arg(short = 'o', long = "output", alias = "out", value_name = "PATH")]
    out: Option<PathBuf>,
    /// Profile rows to show.
    #[arg(long, default_value_t = 15, alias = "top")]
    limit: usize,
}

/// Runs the demo.
pub fn run(a: Args) -> Result<()> {
    let dir = a.out.unwrap_or_else(|| std::env::temp_dir().join("tracekit-demo"));
    let opts = tracekit_example::Options::default();
    let base = example::write(&dir, "browser", opts.seed, opts.duration_s)?;
    println!(
        "Generated a {:.0} s browser session: {1}.trace + {1}.clog",
        opts.duration_s,
        base.display()
    );
    let s = open(&base)?;
    println!(
        "Read back: {} threads, {} methods, {} call events, {} context items.\n",
        s.threads.len(),
        s.methods.len(),
        s.call_event_count(),
        s.context.len()
    );
    let p = Profile::of(&s, &ProfileOptions::default());
    profile::print_table(&s, &p, a.limit);
    println!();
    let def = ProblemDef::Brb { method: "brb".into() };
    let sessions = [s];
    let m = find(&sessions, &def)?;
    let h = hints(&sessions, &m.occurrences);
    problems::print_text(&sessions, &def, &m, &h, 20);
    let b = base.display();
    println!("\nNext: tracekit problems {b} --method GeckoLayerClient.setPageRect --when \"Screen orientation == 1\"");
    println!("      tracekit profile {b} --when \"Screen orientation == 1\"");
    println!("      tracekit calltree {b} --depth 4");
    println!("      tracekit report {b} --html -o session.html");
    Ok(())
}
