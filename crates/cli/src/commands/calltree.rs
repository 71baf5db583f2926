//! `tracekit calltree INPUT`: dmtracedump's call tree.

use super::input::{self, open, safe};
use anyhow::Result;
use std::path::PathBuf;
use tracekit_analysis::reports::CallTreeReport;
use tracekit_analysis::CallTree;

/// Arguments of `tracekit calltree`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[arg(value_name = "INPUT", help = tracekit_io::INPUT_HELP)]
    input: PathBuf,
    /// Print JSON (a nested tree).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    select: input::Selection,
    /// Deepest level to show.
    #[arg(long)]
    depth: Option<usize>,
    /// Hide nodes below this share of the total real time, in percent.
    #[arg(long, default_value_t = 0.0)]
    min_percent: f64,
}

/// Prints the call tree.
pub fn run(a: Args) -> Result<()> {
    let s = open(&a.input)?;
    let opts = a.select.options(&s)?;
    let building = crate::progress::step("building the call tree");
    let tree = CallTree::of(&s, opts.threads.as_deref(), opts.window.as_ref());
    drop(building);
    let total = tree.root().incl_real_ns.max(tree.root().incl_cpu_ns).max(1);
    let keep = |n: usize| {
        let node = &tree.nodes[n];
        node.incl_real_ns.max(node.incl_cpu_ns) as f64 * 100.0 / total as f64 >= a.min_percent
    };
    if a.json {
        return input::print_json(&CallTreeReport::new(&s, &tree, a.depth, &keep));
    }
    println!(
        "{:>12} {:>12} {:>8}  call tree (real ms incl / excl, calls)",
        "incl ms", "excl ms", "calls"
    );
    let mut hidden_under: Option<usize> = None;
    for (n, d) in tree.depth_first(a.depth) {
        if let Some(h) = hidden_under {
            if d > h {
                continue;
            }
            hidden_under = None;
        }
        if !keep(n) {
            hidden_under = Some(d);
            continue;
        }
        let node = &tree.nodes[n];
        let name = node
            .method
            .map(|m| s.methods.get(m).qualified_name())
            .unwrap_or_default();
        println!(
            "{:>12} {:>12} {:>8}  {}{}",
            input::ms(node.incl_real_ns),
            input::ms(node.excl_real_ns),
            node.calls,
            "  ".repeat(d),
            safe(&name)
        );
    }
    Ok(())
}
