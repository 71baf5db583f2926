//! `tracekit calltree INPUT`: dmtracedump's call tree, or its call graph
//! with the time a condition held highlighted (`--format dot|svg`).

use super::input::{self, open_loaded, safe};
use anyhow::{bail, Context, Result};
use std::path::PathBuf;
use tracekit_analysis::reports::CallTreeReport;
use tracekit_analysis::{CallGraph, CallTree};
use tracekit_callgraph::{render_dot, render_svg, Caption};

/// A graph of more methods than this is pruned at 0.5% unless told otherwise.
const LARGE_GRAPH: usize = 200;

/// What `calltree` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The indented call tree.
    Text,
    /// The call tree as nested JSON (same as --json).
    Json,
    /// The call graph as Graphviz DOT.
    Dot,
    /// The call graph as SVG, laid out by tracekit (no Graphviz needed).
    Svg,
}

/// Arguments of `tracekit calltree`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[arg(value_name = "INPUT", help = tracekit_io::INPUT_HELP)]
    input: PathBuf,
    /// Print JSON (a nested tree).
    #[arg(long, conflicts_with = "format")]
    json: bool,
    /// text or json: the call tree; dot or svg: the call graph (methods with
    /// inclusive time and calls, caller → callee edges with call counts),
    /// with the share that ran while --when held highlighted.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Where to write a dot or svg graph (default: standard output).
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    out: Option<PathBuf>,
    #[command(flatten)]
    select: input::Selection,
    /// Deepest level to show (call tree only).
    #[arg(long)]
    depth: Option<usize>,
    /// Hide nodes below this share of the total time, in percent [default:
    /// 0; for a graph of more than 200 methods, 0.5]. A pruned graph says
    /// what it left out.
    #[arg(long, value_name = "PERCENT")]
    min_percent: Option<f64>,
}

/// Prints the call tree, or writes the call graph.
pub fn run(a: Args) -> Result<()> {
    let format = if a.json { Format::Json } else { a.format };
    if let Some(p) = a.min_percent.filter(|p| !p.is_finite() || *p < 0.0) {
        bail!("--min-percent {p} is not a percentage (give a number from 0 to 100)");
    }
    match format {
        Format::Dot | Format::Svg => graph(&a, format),
        Format::Text | Format::Json => {
            if a.out.is_some() {
                bail!("-o writes a graph: give --format dot or --format svg (the tree goes to standard output)");
            }
            tree(&a, format == Format::Json)
        }
    }
}

fn tree(a: &Args, json: bool) -> Result<()> {
    let min_percent = a.min_percent.unwrap_or(0.0);
    // A recording is walked as it is read, never held whole.
    let wanted = input::Wanted {
        tree: true,
        ..Default::default()
    };
    let streamed = input::stream_analysis(&a.input, &a.select, wanted)?;
    let (s, tree) = match streamed {
        Some(input::Streamed {
            session,
            tree: Some(tree),
            ..
        }) => (session, tree),
        _ => {
            let s = open_loaded(&a.input)?.session;
            let opts = a.select.options(&s)?;
            let building = crate::progress::step("building the call tree");
            let tree = CallTree::of(&s, opts.threads.as_deref(), opts.window.as_ref());
            drop(building);
            (s, tree)
        }
    };
    let total = tree.root().incl_real_ns.max(tree.root().incl_cpu_ns).max(1);
    let keep = |n: usize| {
        let node = &tree.nodes[n];
        node.incl_real_ns.max(node.incl_cpu_ns) as f64 * 100.0 / total as f64 >= min_percent
    };
    if json {
        return input::print_json(&CallTreeReport::new(&s, &tree, a.depth, &keep));
    }
    if let Some(l) = input::lost_line(&s) {
        println!("{l}");
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

fn graph(a: &Args, format: Format) -> Result<()> {
    if a.depth.is_some() {
        bail!("--depth limits the call tree; a call graph has no depth (use --min-percent to prune it)");
    }
    let loaded = open_loaded(&a.input)?;
    if let Some(out) = &a.out {
        input::check_output(out, &loaded)?;
    }
    let s = &loaded.session;
    let opts = a.select.options(s)?;
    let mut g = CallGraph::of(s, opts.threads.as_deref(), opts.window.as_ref());
    let default = if g.nodes.len() > LARGE_GRAPH { 0.5 } else { 0.0 };
    let p = g.prune(a.min_percent.unwrap_or(default));
    if p.nodes + p.edges > 0 {
        super::note(format_args!(
            "pruned below {}% of the time: {} of {} methods and {} of {} edges left out (--min-percent 0 keeps all)",
            p.min_percent, p.nodes, p.nodes_before, p.edges, p.edges_before
        ));
    }
    if opts.window.as_ref().is_some_and(|w| w.is_empty()) {
        super::warning("the condition never holds: nothing is highlighted");
    }
    let caption = Caption {
        name: s.name.clone(),
        condition: a.select.when.clone(),
    };
    let text = match format {
        Format::Dot => render_dot(&g, s, &caption),
        _ => render_svg(&g, s, &caption),
    };
    match &a.out {
        Some(out) => {
            std::fs::write(out, &text).with_context(|| format!("cannot write {}", out.display()))?;
            println!(
                "wrote {} ({} methods, {} edges)",
                out.display(),
                g.nodes.len(),
                g.edges.len()
            );
        }
        None => print!("{text}"),
    }
    Ok(())
}
