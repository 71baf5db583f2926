//! `tracekit seqdiag`: the UML sequence diagram of the objects and processes
//! in an object trace or native recording, with deadlocks pointed out.

use std::path::PathBuf;
use tracekit_seqdiag::{mermaid, plantuml, svg, DiagramFilter, SeqdiagReport};

/// Diagram formats.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Format {
    /// PlantUML source.
    Plantuml,
    /// Mermaid `sequenceDiagram` source.
    Mermaid,
    /// A standalone SVG picture.
    Svg,
}

/// Arguments of `tracekit seqdiag`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[arg(value_name = "INPUT", help = tracekit_io::INPUT_HELP)]
    input: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "plantuml")]
    format: Format,
    /// Print the diagram's participants, messages and deadlocks as JSON instead.
    #[arg(long, conflicts_with = "format")]
    json: bool,
    /// Output file (stdout when absent).
    #[arg(short = 'o', long = "output", alias = "out", value_name = "PATH")]
    out: Option<PathBuf>,
    /// Only objects of classes matching this glob (repeatable).
    #[arg(long = "class")]
    classes: Vec<String>,
    /// Only these processes (repeatable).
    #[arg(long = "pid")]
    pids: Vec<u32>,
    /// Only messages at or after this time (ns on the trace's timeline).
    #[arg(long)]
    from_ns: Option<u64>,
    /// Only messages at or before this time (ns).
    #[arg(long)]
    to_ns: Option<u64>,
}

/// Draws the diagram and reports deadlocks on stderr.
pub fn run(a: Args) -> anyhow::Result<()> {
    let loaded = super::input::open_loaded(&a.input)?;
    if let Some(out) = &a.out {
        super::input::check_output(out, &loaded)?;
    }
    let s = loaded.session;
    let f = DiagramFilter {
        classes: a.classes,
        pids: a.pids,
        from_ns: a.from_ns,
        to_ns: a.to_ns,
    };
    let report = SeqdiagReport::new(&s, &f);
    let text = if a.json {
        serde_json::to_string_pretty(&report)? + "\n"
    } else {
        match a.format {
            Format::Plantuml => plantuml(&report.diagram),
            Format::Mermaid => mermaid(&report.diagram),
            Format::Svg => svg(&report.diagram),
        }
    };
    match &a.out {
        Some(p) => std::fs::write(p, text).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?,
        // On the terminal, names' control characters are shown escaped.
        None => print!("{}", tracekit_safeio::terminal_lines(&text)),
    }
    for dl in &report.deadlocks {
        super::warning(dl.to_string().trim_end());
    }
    Ok(())
}
