//! `tracekit record`: runs a program under the native runtime, with the
//! context sampler beside it.

use super::choices::{ContextSource, EventClock, Overflow};
use std::path::PathBuf;
use tracekit_record::context::{run_sampler_until_stdin_closes, SamplerConfig, ALL_SOURCES};
use tracekit_record::{record, RecordOptions};

/// Arguments of `tracekit record`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Output directory of the recording. One that already holds a
    /// recording is replaced only with --force.
    #[arg(
        short = 'o',
        long = "output",
        alias = "out",
        value_name = "PATH",
        default_value = "tracekit.data"
    )]
    out: PathBuf,
    /// What to trace: comma-separated `module:GLOB`, `class:GLOB` or function-name `GLOB` (all when absent).
    #[arg(long)]
    filter: Option<String>,
    /// Replace the recording already in the output directory.
    #[arg(long)]
    force: bool,
    /// Context sources to sample (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "all")]
    context: Vec<ContextSource>,
    /// Context sampling period in milliseconds (10 or more).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(10..))]
    context_period_ms: u64,
    /// Also write every power sample as an atrace counter (C|pid|name|value)
    /// to this file: a tracefs trace_marker puts them in the kernel's trace
    /// buffer, on the trace clock.
    #[arg(long, value_name = "PATH")]
    trace_marker: Option<PathBuf>,
    /// Root standing for /proc (for tests with a fixture tree).
    #[arg(long, default_value = "/proc")]
    proc_root: PathBuf,
    /// Root standing for /sys.
    #[arg(long, default_value = "/sys")]
    sys_root: PathBuf,
    /// Per-thread file capacity in MiB with --direct; events past it are dropped and counted.
    #[arg(long)]
    buffer_mb: Option<usize>,
    /// Threads write their trace files directly (sparse, mapped) instead of
    /// through ring buffers that this process drains.
    #[arg(long)]
    direct: bool,
    /// Ring buffer capacity each thread starts with, in KiB (default 8192;
    /// 64 to 1048576, rounded up to a power of two).
    #[arg(long, value_name = "KIB", value_parser = ring_kib())]
    ring_kb: Option<u64>,
    /// Ring buffer capacity a busy thread moves up to, in KiB (default
    /// 32768): a thread that laps its ring 128 times moves once to a ring
    /// this large, which the recorder prepares beforehand, if all threads'
    /// rings take at most 16 MiB (so, with the default sizes, one thread
    /// moves). At or below --ring-kb, rings keep their size.
    #[arg(long, value_name = "KIB", value_parser = ring_kib())]
    ring_max_kb: Option<u64>,
    /// What a thread does when its ring is full: wait for the drainer (the
    /// default: nothing is lost), or drop the event (and count it).
    #[arg(long, value_enum, default_value = "wait")]
    overflow: Overflow,
    /// Event clock (default: tsc).
    #[arg(long, value_enum)]
    clock: Option<EventClock>,
    /// Runtime library to preload (default: $TRACEKIT_RT, else beside tracekit or in ../lib/tracekit, else the copy built into tracekit).
    #[arg(long)]
    runtime: Option<PathBuf>,
    /// The command to record and its arguments.
    #[arg(trailing_var_arg = true, required = true, num_args = 1..)]
    command: Vec<String>,
}

/// Arguments of the hidden `tracekit context-sampler` process.
#[derive(Debug, clap::Args)]
pub struct SamplerArgs {
    /// Output file (`context.jsonl`).
    #[arg(long)]
    out: PathBuf,
    /// Comma-separated source groups.
    #[arg(long)]
    sources: String,
    /// Period in milliseconds.
    #[arg(long)]
    period_ms: u64,
    /// Root standing for /proc.
    #[arg(long)]
    proc_root: PathBuf,
    /// Root standing for /sys.
    #[arg(long)]
    sys_root: PathBuf,
    /// Traced process.
    #[arg(long)]
    pid: Option<u32>,
    /// Also write power samples as atrace counters to this trace_marker file.
    #[arg(long)]
    trace_marker: Option<PathBuf>,
}

fn sources(spec: &str) -> anyhow::Result<Vec<String>> {
    match spec {
        "none" => Ok(vec![]),
        "all" => Ok(ALL_SOURCES.iter().map(|s| s.to_string()).collect()),
        _ => spec
            .split(',')
            .map(|s| {
                let s = s.trim();
                anyhow::ensure!(
                    ALL_SOURCES.contains(&s),
                    "unknown context source `{s}` (known: {})",
                    ALL_SOURCES.join(",")
                );
                Ok(s.to_owned())
            })
            .collect(),
    }
}

/// Records the command, then ends with the program's own status (see
/// [`super::exit_like_program`]).
pub fn run(a: Args) -> anyhow::Result<()> {
    let groups = ContextSource::groups(&a.context);
    let replacing = tracekit_record::holds_recording(&a.out);
    if replacing && !a.force {
        anyhow::bail!(
            "{} already holds a recording; give --force to replace it, or choose another -o",
            a.out.display()
        );
    }
    if replacing {
        super::note(format_args!("replacing the recording in {}", a.out.display()));
    }
    let sampler = if groups.is_empty() {
        None
    } else {
        let mut c = std::process::Command::new(std::env::current_exe()?);
        c.arg("context-sampler")
            .arg("--out")
            .arg(a.out.join(tracekit_recording::names::CONTEXT_FILE))
            .arg("--sources")
            .arg(groups.join(","))
            .arg("--period-ms")
            .arg(a.context_period_ms.to_string())
            .arg("--proc-root")
            .arg(&a.proc_root)
            .arg("--sys-root")
            .arg(&a.sys_root);
        if let Some(m) = &a.trace_marker {
            c.arg("--trace-marker").arg(m);
        }
        Some(c)
    };
    let opts = RecordOptions {
        out: a.out.clone(),
        command: a.command,
        filter: a.filter,
        buffer_mb: a.buffer_mb,
        clock: a.clock.map(|c| c.name().to_owned()),
        direct: a.direct,
        ring_kb: a.ring_kb.map(|k| k as usize),
        ring_max_kb: a.ring_max_kb.map(|k| k as usize),
        drop_on_overflow: a.overflow == Overflow::Drop,
        runtime: Some(match a.runtime {
            Some(r) => r,
            None => crate::libs::find(&crate::libs::RUNTIME)?,
        }),
        replace: a.force,
    };
    let outcome = record(&opts, sampler)?;
    super::note(format_args!("recorded into {}", a.out.display()));
    // The drainer counted as it went; without one (`--direct`) the counts
    // come from the thread files' block headers.
    let counts = match outcome.drained {
        Some(d) => Some((d.events, d.lost)),
        None => tracekit_recording::recording_stats(&a.out).ok().map(|stats| {
            stats
                .iter()
                .fold((0u64, 0u64), |(e, l), t| (e + t.events, l + t.header.lost))
        }),
    };
    if let Some(moved) = outcome.drained.map(|d| d.moved).filter(|&n| n > 0) {
        let threads = if moved == 1 { "thread" } else { "threads" };
        super::note(format_args!(
            "{moved} busy {threads} moved to a larger ring buffer (--ring-max-kb) while recording"
        ));
    }
    if let Some((events, lost)) = counts {
        if lost > 0 {
            super::warning(format_args!(
                "{lost} events were lost (buffers full; {events} recorded): every report of this recording says so; \
                 leave out --overflow drop, or enlarge --ring-kb/--buffer-mb, to lose none"
            ));
        }
    }
    super::exit_like_program(
        outcome.exit_code,
        outcome.signal,
        "the recording keeps every event written before the end",
    );
    Ok(())
}

/// Ring sizes in KiB: at least the runtime's smallest ring, at most 1 GiB.
fn ring_kib() -> clap::builder::RangedU64ValueParser<u64> {
    clap::value_parser!(u64).range(64..=1 << 20)
}

/// Runs the context sampler until its standard input closes.
pub fn run_sampler(a: SamplerArgs) -> anyhow::Result<()> {
    let cfg = SamplerConfig {
        proc_root: a.proc_root,
        sys_root: a.sys_root,
        period: std::time::Duration::from_millis(a.period_ms.max(1)),
        sources: sources(&a.sources)?,
        pid: a.pid,
        trace_marker: a.trace_marker,
    };
    run_sampler_until_stdin_closes(&cfg, &a.out)
}
