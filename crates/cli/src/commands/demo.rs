//! `tracekit demo`: the main job on the bundled example — generate a
//! realistic session, read it back from its files, profile it, find the
//! context that goes with the big-red-button presses, and charge the
//! battery's energy to what ran: which methods and which context cost it.

use super::charge::PowerArgs;
use super::input::{open, safe};
use super::{energy, example, problems, profile};
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

/// The battery: the power the context log recorded, charged to the methods
/// that ran and ranked against the context.
fn battery(s: &tracekit_model::Session, limit: usize) -> Result<()> {
    let charge = PowerArgs::default();
    let Ok(prepared) = charge.prepare(s) else {
        println!("\nNo battery data in the context log, so no energy.");
        return Ok(());
    };
    let at = charge.attribute(s, &prepared, None, true, false, 0);
    println!(
        "\nBattery ({}): {:.1} J over {:.1} s, mean {:.2} W; base {:.2} W ({:.0}% of the energy), \
         unattributed {:.0}%.",
        safe(&prepared.source),
        at.measured_j,
        at.covered_ns as f64 * 1e-9,
        at.measured_j / (at.covered_ns as f64 * 1e-9).max(1e-9),
        at.base_w,
        100.0 * at.idle_j / at.measured_j.max(1e-12),
        100.0 * at.unattributed_j / at.measured_j.max(1e-12)
    );
    println!("Methods by the energy they drew (exclusive; the rest is base power and time no thread ran):");
    println!(
        "{:>10} {:>7} {:>10} {:>7}  method",
        "excl J", "excl%", "incl J", "incl%"
    );
    let pct = |e: f64| 100.0 * e / at.measured_j.max(1e-12);
    for m in at.methods.iter().take(limit) {
        println!(
            "{:>10.3} {:>6.2}% {:>10.3} {:>6.2}%  {}",
            m.excl_j,
            pct(m.excl_j),
            m.incl_j,
            pct(m.incl_j),
            safe(&s.methods.get(m.method).display_name())
        );
    }
    println!();
    let h = tracekit_attribution::context::power_hints(s, &prepared.power, &prepared.power_tracks);
    energy::print_power_hints(&h, 5);
    Ok(())
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
    battery(&sessions[0], a.limit.min(10))?;
    let b = base.display();
    println!("\nNext: tracekit problems {b} --method GeckoLayerClient.setPageRect --when \"Screen orientation == 1\"");
    println!("      tracekit profile {b} --when \"Screen orientation == 1\"");
    println!("      tracekit profile {b} --energy --when \"Screen orientation == 1\"");
    println!("      tracekit energy {b} --by method --when \"Screen orientation == 1\"");
    println!("      tracekit calltree {b} --depth 4");
    println!("      tracekit report {b} --html -o session.html");
    Ok(())
}
