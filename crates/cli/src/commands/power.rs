//! `tracekit power`: sample battery, RAPL and hwmon power on Linux; fit
//! and drive power models (`power fit`, `power model`).

use super::choices::ContextSource;
use std::path::PathBuf;
use tracekit_record::context::SamplerConfig;
use tracekit_record::{power_record, PowerRecordOptions};

/// Arguments of `tracekit power`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Sample power while a command runs (or for --duration-s, or until Ctrl-C) into a recording directory.
    Record(RecordArgs),
    /// Write the POSIX-sh power sampler for a rooted phone (toybox sh): it
    /// writes atrace counters into the kernel's trace_marker.
    Script(ScriptArgs),
    /// Fit a linear component model (CPU clusters, screen, Wi-Fi, …) to a
    /// capture's measured power; write it as a power_profile.xml.
    Fit(super::power_model::FitArgs),
    /// Drive a power_profile.xml with a capture's tracks and set it beside
    /// the measured power, a fitted model and an emulator estimate.
    Model(super::power_model::ModelArgs),
}

#[derive(Debug, clap::Args)]
struct RecordArgs {
    /// Output directory (a recording: `tracekit energy DIR`, `tracekit info DIR`).
    #[arg(
        short = 'o',
        long = "output",
        alias = "out",
        value_name = "PATH",
        default_value = "tracekit.power"
    )]
    out: PathBuf,
    /// Sampling period in milliseconds (10 or more).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(10..))]
    period_ms: u64,
    /// Without a command: how long to sample, in seconds.
    #[arg(long)]
    duration_s: Option<f64>,
    /// Context sources besides power (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "cpufreq")]
    context: Vec<ContextSource>,
    /// Also write each sample as an atrace counter (C|pid|name|value) to this
    /// file, e.g. /sys/kernel/tracing/trace_marker.
    #[arg(long, value_name = "PATH")]
    trace_marker: Option<PathBuf>,
    /// Root standing for /sys (for tests with a fixture tree).
    #[arg(long, default_value = "/sys")]
    sys_root: PathBuf,
    /// Root standing for /proc.
    #[arg(long, default_value = "/proc")]
    proc_root: PathBuf,
    /// Command and arguments to run while sampling.
    #[arg(last = true)]
    command: Vec<String>,
}

#[derive(Debug, clap::Args)]
struct ScriptArgs {
    /// Where to write the script (default: standard output).
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    out: Option<PathBuf>,
}

/// The shipped sampler script.
pub const SAMPLER_SCRIPT: &str = include_str!("../../../record/sh/tracekit-power.sh");

/// Runs `tracekit power`.
pub fn run(a: Args) -> anyhow::Result<()> {
    match a.command {
        Command::Record(r) => record(r),
        Command::Fit(f) => super::power_model::fit(f),
        Command::Model(m) => super::power_model::model(m),
        Command::Script(s) => match s.out {
            Some(p) => {
                std::fs::write(&p, SAMPLER_SCRIPT).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
                super::note(format_args!("wrote {}", p.display()));
                Ok(())
            }
            None => {
                print!("{SAMPLER_SCRIPT}");
                Ok(())
            }
        },
    }
}

fn record(a: RecordArgs) -> anyhow::Result<()> {
    let mut sources = vec!["power".to_owned()];
    for s in ContextSource::groups(&a.context) {
        if !sources.contains(&s) {
            sources.push(s);
        }
    }
    if tracekit_recording::is_recording_dir(&a.out) {
        super::note(format_args!("replacing the recording in {}", a.out.display()));
        for f in [
            tracekit_recording::names::META_FILE,
            tracekit_recording::names::CONTEXT_FILE,
        ] {
            let _ = std::fs::remove_file(a.out.join(f));
        }
    }
    let opts = PowerRecordOptions {
        out: a.out.clone(),
        sampler: SamplerConfig {
            proc_root: a.proc_root,
            sys_root: a.sys_root,
            period: std::time::Duration::from_millis(a.period_ms),
            sources,
            pid: None,
            trace_marker: a.trace_marker,
        },
        command: a.command,
        duration: a.duration_s.map(std::time::Duration::from_secs_f64),
    };
    let outcome = power_record(&opts)?;
    super::note(format_args!("power samples in {}", a.out.display()));
    if !opts.command.is_empty() {
        super::exit_like_program(
            outcome.exit_code,
            outcome.signal,
            "the samples taken until then are kept",
        );
    }
    Ok(())
}
