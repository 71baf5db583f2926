//! `tracekit convert`: writes a native recording (or an object trace) as an
//! object trace, or as an Android `.trace` + `.clog` pair.

use std::path::PathBuf;

/// Output formats.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Format {
    /// Seed 004's human-readable object trace (`.otr`).
    Objtrace,
    /// Android method trace `OUT.trace` plus context log `OUT.clog` (when there is context).
    Android,
}

/// Arguments of `tracekit convert`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A recording directory, an `.otr` object trace, or NAME of NAME.trace (+ NAME.clog).
    input: PathBuf,
    /// Output format.
    #[arg(long, value_enum)]
    to: Format,
    /// Output file (objtrace) or base name (android: OUT.trace, OUT.clog).
    #[arg(short, long)]
    out: PathBuf,
}

/// Converts.
pub fn run(a: Args) -> anyhow::Result<()> {
    let s = super::input::open(&a.input)?;
    match a.to {
        Format::Objtrace => {
            std::fs::write(&a.out, tracekit_objtrace::write_string(&s))
                .map_err(|e| anyhow::anyhow!("{}: {e}", a.out.display()))?;
            eprintln!(
                "tracekit: wrote {} ({} object and {} cross-process events)",
                a.out.display(),
                s.objects.len(),
                s.remote_calls.len()
            );
        }
        Format::Android => {
            for p in tracekit_io::save(&s, &a.out)? {
                eprintln!("tracekit: wrote {}", p.display());
            }
        }
    }
    Ok(())
}
