//! Subcommands, one module each.

use clap::{Parser, Subcommand};

mod emu;
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
    /// Instruction profiling under QEMU's user-mode emulator.
    Emu(emu::Args),
}

/// Runs the chosen subcommand.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Version(a) => version::run(a),
        Command::Emu(a) => emu::run(a),
    }
}
