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
    #[arg(value_name = "INPUT", help = tracekit_io::INPUT_HELP)]
    input: PathBuf,
    /// Output format.
    #[arg(long, value_enum)]
    to: Format,
    /// Output file (objtrace) or base name (android: OUT.trace, OUT.clog).
    #[arg(short = 'o', long = "output", alias = "out", value_name = "PATH")]
    out: PathBuf,
}

/// Converts.
pub fn run(a: Args) -> anyhow::Result<()> {
    let loaded = super::input::open_loaded(&a.input)?;
    let s = &loaded.session;
    match a.to {
        Format::Objtrace => {
            super::input::check_output(&a.out, &loaded)?;
            std::fs::write(&a.out, tracekit_objtrace::write_string(s))
                .map_err(|e| anyhow::anyhow!("{}: {e}", a.out.display()))?;
            super::note(format_args!(
                "wrote {} ({} object and {} cross-process events)",
                a.out.display(),
                s.objects.len(),
                s.remote_calls.len()
            ));
        }
        Format::Android => {
            let base = tracekit_io::base_of(&a.out);
            for ext in ["trace", "clog"] {
                let mut file = base.clone().into_os_string();
                file.push(format!(".{ext}"));
                super::input::check_output(std::path::Path::new(&file), &loaded)?;
            }
            for p in tracekit_io::save(s, &base)? {
                super::note(format_args!("wrote {}", p.display()));
            }
        }
    }
    Ok(())
}
