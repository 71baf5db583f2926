//! Subcommands, one module each.

use clap::{Parser, Subcommand};

mod record;
mod replay;
mod version;

/// Execution tracing and profiling with context.
#[derive(Debug, Parser)]
#[command(name = "tracekit", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print version and build information.
    Version(version::Args),
    /// Record a native program (built with -finstrument-functions or using the tracekit C API).
    Record(record::Args),
    /// List the calls of a recording, indented, with durations.
    Replay(replay::Args),
    /// The context sampler process that `record` starts (internal).
    #[command(hide = true)]
    ContextSampler(record::SamplerArgs),
}

/// Runs the chosen subcommand.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Version(a) => version::run(a),
        Command::Record(a) => record::run(a),
        Command::Replay(a) => replay::run(a),
        Command::ContextSampler(a) => record::run_sampler(a),
    }
}
