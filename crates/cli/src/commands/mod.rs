//! Subcommands, one module each.

use clap::{Parser, Subcommand};

mod calltree;
mod context;
mod demo;
mod emu;
mod example;
mod info;
mod input;
mod problems;
mod profile;
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
    /// Generate the bundled example session and analyse it (the main job).
    Demo(demo::Args),
    /// Write the bundled example session (NAME.trace + NAME.clog).
    Example(example::Args),
    /// Summarise a session: threads, methods, clocks, context items, repairs.
    Info(info::Args),
    /// Traceview's profile: inclusive/exclusive time per method on each clock.
    Profile(profile::Args),
    /// dmtracedump's call tree with inclusive/exclusive times.
    Calltree(calltree::Args),
    /// The value of every context item at an instant.
    Context(context::Args),
    /// Occurrences of a problem (BRB, or a method under a context condition) and ranked context hints.
    Problems(problems::Args),
    /// Print version information.
    Version(version::Args),
    /// Instruction profiling under QEMU's user-mode emulator.
    Emu(emu::Args),
}

/// Runs the chosen subcommand.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Demo(a) => demo::run(a),
        Command::Example(a) => example::run(a),
        Command::Info(a) => info::run(a),
        Command::Profile(a) => profile::run(a),
        Command::Calltree(a) => calltree::run(a),
        Command::Context(a) => context::run(a),
        Command::Problems(a) => problems::run(a),
        Command::Version(a) => version::run(a),
        Command::Emu(a) => emu::run(a),
    }
}
