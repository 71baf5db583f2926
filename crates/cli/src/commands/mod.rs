//! Subcommands, one module each.

use clap::{Parser, Subcommand};

mod calltree;
mod context;
mod demo;
mod emu;
mod energy;
mod example;
mod info;
mod input;
mod paths;
mod paths_jvm;
mod power;
mod problems;
mod profile;
mod report;
mod ui;

mod convert;
mod record;
mod replay;
mod seqdiag;
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
    /// Energy, mean power and charge of a capture, a window, a slice's instances or a condition's intervals.
    Energy(energy::Args),
    /// Write the self-contained HTML timeline viewer (report NAME --html -o FILE).
    Report(report::Args),
    /// Serve the timeline viewer on 127.0.0.1 (for traces too large for one file).
    Ui(ui::Args),
    /// Print version information.
    Version(version::Args),
    /// Path profiling: encode and decode paths with BLPP, PAP or AdapTracer.
    Paths(paths::Args),

    /// Record a native program (built with -finstrument-functions or using the tracekit C API).
    Record(record::Args),
    /// List the calls of a recording, indented, with durations.
    Replay(replay::Args),
    /// Convert a recording or object trace to an object trace or Android .trace + .clog.
    Convert(convert::Args),
    /// Draw the UML sequence diagram of an object trace or recording; report deadlocks.
    Seqdiag(seqdiag::Args),
    /// Sample battery, RAPL and hwmon power on Linux (and write the phone-side sampler script).
    Power(power::Args),
    /// The context sampler process that `record` starts (internal).
    #[command(hide = true)]
    ContextSampler(record::SamplerArgs),

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
        Command::Energy(a) => energy::run(a),
        Command::Report(a) => report::run(a),
        Command::Ui(a) => ui::run(a),
        Command::Version(a) => version::run(a),
        Command::Paths(a) => paths::run(a),

        Command::Record(a) => record::run(a),
        Command::Replay(a) => replay::run(a),
        Command::Convert(a) => convert::run(a),
        Command::Seqdiag(a) => seqdiag::run(a),
        Command::Power(a) => power::run(a),
        Command::ContextSampler(a) => record::run_sampler(a),

        Command::Emu(a) => emu::run(a),
    }
}
