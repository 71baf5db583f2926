//! `tracekit version`.

/// Arguments of `tracekit version`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Prints the version.
pub fn run(_: Args) -> anyhow::Result<()> {
    println!("tracekit {}", env!("CARGO_PKG_VERSION"));
    Ok(())
}
