//! `tracekit example -o DIR`: writes the bundled example session.

use anyhow::Result;
use std::path::{Path, PathBuf};

/// Arguments of `tracekit example`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Directory to write NAME.trace and NAME.clog into.
    #[arg(
        short = 'o',
        long = "output",
        alias = "out",
        value_name = "PATH",
        default_value = "."
    )]
    out: PathBuf,
    /// Base name of the files.
    #[arg(long, default_value = "browser")]
    name: String,
    /// Seed of the simulated user and app.
    #[arg(long, default_value_t = tracekit_example::Options::default().seed)]
    seed: u64,
    /// Length of the session in seconds.
    #[arg(
        long = "duration-s",
        alias = "duration",
        value_name = "SECONDS",
        default_value_t = 150.0,
        value_parser = super::input::positive_seconds
    )]
    duration_s: f64,
}

/// Writes the example and returns its base path.
pub fn write(out: &Path, name: &str, seed: u64, duration: f64) -> Result<PathBuf> {
    std::fs::create_dir_all(out).map_err(|e| anyhow::anyhow!("{}: {e}", out.display()))?;
    let session = tracekit_example::browser_session(&tracekit_example::Options {
        seed,
        duration_s: duration,
    });
    let base = out.join(name);
    tracekit_io::save(&session, &base)?;
    Ok(base)
}

/// Writes the example files.
pub fn run(a: Args) -> Result<()> {
    let base = write(&a.out, &a.name, a.seed, a.duration_s)?;
    println!("wrote {0}.trace and {0}.clog", base.display());
    Ok(())
}
