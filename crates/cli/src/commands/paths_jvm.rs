//! `tracekit paths instrument|decode-log|report|compare`: path profiling of
//! Java programs (crate `tracekit-jvm`).

use std::path::{Path, PathBuf};

use super::choices::{JvmScheme, StreamContext};
use anyhow::{Context, Result};
use clap::{Args as ClapArgs, Subcommand};
use tracekit_jvm::{
    compare, decode_file, report, Config, CoreProgram, ModelUpdate, Options, Program, Scheme, StoredProgram,
};

/// The JVM commands of the `paths` group.
#[derive(Debug, Subcommand)]
pub enum JvmCommand {
    /// Instrument a jar so that running it records its paths.
    Instrument(InstrumentArgs),
    /// Decode a trace log written by an instrumented jar.
    DecodeLog(DecodeLogArgs),
    /// Hot paths per method with source lines, bits per invocation and branch.
    Report(ReportArgs),
    /// Run a Java command under every scheme and compare trace sizes.
    Compare(CompareArgs),
    /// Run a Java command repeatedly under AdapTracer, each run starting from the previous run's updated model.
    Adapt(AdaptArgs),
}

/// `tracekit paths adapt`.
#[derive(Debug, ClapArgs)]
pub struct AdaptArgs {
    /// The class-path jar to instrument (default: the first jar of -cp).
    #[arg(long)]
    pub jar: Option<PathBuf>,
    /// Model of the first run (default: every counter 1).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Write the last updated model here.
    #[arg(long)]
    pub save_model: Option<PathBuf>,
    /// Number of runs.
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// One word list per thread (see `instrument --stream`).
    #[arg(long)]
    pub stream: bool,
    /// With `--stream`: the context stream or not (see `instrument --context`).
    #[arg(long, value_enum, default_value = "none")]
    pub context: StreamContext,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub scheme_args: SchemeArgs,
    /// The Java command, e.g. `java -cp app.jar Main`.
    #[arg(last = true, required = true)]
    pub command: Vec<String>,
}

/// Scheme settings shared by `instrument` and `compare`.
#[derive(Debug, ClapArgs)]
pub struct SchemeArgs {
    /// PathID word width in bits (3..=64).
    #[arg(long, default_value_t = 64)]
    pub width: u32,
    /// AdapTracer counter increment.
    #[arg(long, default_value_t = 3)]
    pub inc: u32,
    /// AdapTracer counter bound.
    #[arg(long, default_value_t = 65535)]
    pub bound: u32,
}

/// `tracekit paths instrument`.
#[derive(Debug, ClapArgs)]
pub struct InstrumentArgs {
    /// Input jar.
    pub input: PathBuf,
    /// Output jar (never the input; an existing file is replaced, and said so).
    #[arg(short = 'o', long = "output", alias = "out", value_name = "PATH")]
    pub output: PathBuf,
    /// Path numbering scheme the probes record.
    #[arg(long, value_enum, default_value = "adaptracer")]
    pub scheme: JvmScheme,
    /// AdapTracer edge-probability model to start from (from `decode-log --update-model`).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Other jars the program needs (for stack-map frame computation).
    #[arg(long = "cp", value_delimiter = ':')]
    pub classpath: Vec<PathBuf>,
    /// Also record every block beside the trace; decode-log then checks each
    /// decoded path against the same run.
    #[arg(long)]
    pub verify: bool,
    /// AdapTracer: one word list per thread (invocations coded when they
    /// finish, no per-invocation padding) instead of words per invocation.
    #[arg(long)]
    pub stream: bool,
    /// AdapTracer: `predict` (the default) codes method ids, ends and
    /// choices all in the thread's coder, predicted from the thread's
    /// history — the context stream, the smallest trace; `none` keeps the
    /// seed's per-block counters (words per invocation, or with `--stream`
    /// one word list per thread). What each costs: BENCHMARKS.md.
    #[arg(long, value_enum)]
    pub context: Option<StreamContext>,
    #[command(flatten)]
    pub scheme_args: SchemeArgs,
}

/// `tracekit paths decode-log`.
#[derive(Debug, ClapArgs)]
pub struct DecodeLogArgs {
    /// The trace log.
    pub log: PathBuf,
    /// The instrumented jar that wrote it.
    #[arg(long)]
    pub program: PathBuf,
    /// Write the updated edge-probability model here.
    #[arg(long)]
    pub update_model: Option<PathBuf>,
    /// Print `{"invocations": [{"method", "thread", "path"}], "bits", …}`,
    /// streamed invocation by invocation.
    #[arg(long)]
    pub json: bool,
}

/// `tracekit paths report`.
#[derive(Debug, ClapArgs)]
pub struct ReportArgs {
    /// The trace log.
    pub log: PathBuf,
    /// The instrumented jar that wrote it.
    #[arg(long)]
    pub program: PathBuf,
    /// Hot paths shown per method.
    #[arg(long, default_value_t = 3, alias = "top")]
    pub paths_per_method: usize,
    /// Methods shown (rows of the report).
    #[arg(long, default_value_t = 20, alias = "methods")]
    pub limit: usize,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `tracekit paths compare`.
#[derive(Debug, ClapArgs)]
pub struct CompareArgs {
    /// The class-path jar to instrument (default: the first jar of -cp).
    #[arg(long)]
    pub jar: Option<PathBuf>,
    /// AdapTracer model to start from.
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Runs per scheme (times are medians).
    #[arg(long, default_value_t = 1)]
    pub repeat: usize,
    #[command(flatten)]
    pub scheme_args: SchemeArgs,
    /// The Java command, e.g. `java -cp app.jar Main`.
    #[arg(last = true, required = true)]
    pub command: Vec<String>,
}

pub(super) fn config(scheme: Scheme, a: &SchemeArgs) -> Config {
    Config {
        scheme,
        width: a.width,
        inc: a.inc,
        bound: a.bound,
        verify: false,
        stream: false,
        context: false,
    }
}

/// The AdapTracer mode of `--stream`/`--context`: (stream, context).
/// Without either, the context stream (the smallest trace).
pub(super) fn adaptracer_mode(context: Option<StreamContext>, stream: bool) -> (bool, bool) {
    match context {
        Some(StreamContext::Predict) => (true, true),
        Some(StreamContext::None) => (stream, false),
        None if stream => (true, false),
        None => (true, true),
    }
}

/// Runs one JVM path command.
pub fn run(cmd: JvmCommand) -> Result<()> {
    if matches!(
        cmd,
        JvmCommand::Instrument(_) | JvmCommand::Compare(_) | JvmCommand::Adapt(_)
    ) {
        crate::preflight::java_and_asm()?;
    }
    match cmd {
        JvmCommand::Instrument(a) => {
            let scheme = Scheme::from(a.scheme);
            let (stream, context) = if scheme == Scheme::Adaptracer {
                adaptracer_mode(a.context, a.stream)
            } else if a.stream || a.context.is_some() {
                anyhow::bail!("--stream and --context are AdapTracer modes (--scheme adaptracer)");
            } else {
                (false, false)
            };
            let cfg = Config {
                verify: a.verify,
                stream,
                context,
                ..config(scheme, &a.scheme_args)
            };
            if a.output.exists() && !tracekit_safeio::same_file(&a.input, &a.output) {
                super::note(format_args!("replacing {}", a.output.display()));
            }
            let r = tracekit_jvm::instrument_jar(&a.input, &a.output, &cfg, a.model.as_deref(), &a.classpath)?;
            // The instrumenter's own lines: what it left uninstrumented is
            // always shown; its closing count is a note, which --quiet drops.
            for line in r.log.lines() {
                match line.strip_prefix("tracekit: ") {
                    Some(count) if count.starts_with("instrumented ") => super::note(count),
                    _ => eprintln!("{}", tracekit_safeio::terminal_lines(line)),
                }
            }
            super::note(format_args!(
                "{} methods instrumented ({} skipped), {} -> {}",
                r.methods,
                r.skipped.len(),
                tracekit_jvm::compare::variant_name(&cfg),
                a.output.display()
            ));
            Ok(())
        }
        JvmCommand::DecodeLog(a) => decode_log(&a),
        JvmCommand::Report(a) => {
            let (stored, core) = load(&a.program)?;
            let mut builder = report::ReportBuilder::new(&stored.program, a.paths_per_method);
            let summary = decode_file(&stored, &core, &a.log, Options::default(), |d| {
                builder.observe(d);
                Ok(())
            })?;
            if builder.start_collecting() {
                decode_file(&stored, &core, &a.log, Options::default(), |d| {
                    builder.collect(d);
                    Ok(())
                })?;
            }
            let reports = builder.finish();
            if !summary.complete {
                super::warning(format_args!(
                    "{} was cut short; the report covers what it holds",
                    a.log.display()
                ));
            }
            if a.json {
                println!("{}", serde_json::to_string_pretty(&reports)?);
            } else {
                print!(
                    "{}",
                    tracekit_safeio::terminal_lines(&report::render(&reports, &summary, a.limit))
                );
            }
            Ok(())
        }
        JvmCommand::Compare(a) => {
            let running = crate::progress::step("running the workload under every scheme");
            let c = compare::compare(
                &a.command,
                a.jar.as_deref(),
                &config(Scheme::Raw, &a.scheme_args),
                a.model.as_deref(),
                a.repeat,
            )?;
            drop(running);
            if a.json {
                println!("{}", serde_json::to_string_pretty(&c)?);
            } else {
                print!("{}", tracekit_safeio::terminal_lines(&compare::render_comparison(&c)));
            }
            if c.rows.iter().any(|r| !r.exact) || !c.adaptracer_words_equal {
                anyhow::bail!("a scheme's decoded paths differ from the raw ground truth");
            }
            Ok(())
        }
        JvmCommand::Adapt(a) => {
            let (stream, context) = adaptracer_mode(Some(a.context), a.stream);
            let cfg = Config {
                stream,
                context,
                ..config(Scheme::Adaptracer, &a.scheme_args)
            };
            let running = crate::progress::step(format!("the adaptive loop: {} runs", a.runs));
            let runs = tracekit_jvm::adapt::adapt(
                &a.command,
                a.jar.as_deref(),
                &cfg,
                a.model.as_deref(),
                a.runs,
                a.save_model.as_deref(),
            )?;
            drop(running);
            if a.json {
                println!("{}", serde_json::to_string_pretty(&runs)?);
            } else {
                println!(
                    "{:>4} {:>12} {:>12} {:>12} {:>10}",
                    "run", "bits", "log bytes", "ideal", "choices"
                );
                for r in &runs {
                    println!(
                        "{:>4} {:>12} {:>12} {:>12.0} {:>10}",
                        r.run, r.bits, r.log_bytes, r.ideal_bits, r.choices
                    );
                }
            }
            Ok(())
        }
    }
}

fn load(jar: &Path) -> Result<(StoredProgram, CoreProgram)> {
    let stored = Program::from_instrumented_jar(jar)?;
    let core = CoreProgram::new(&stored).with_context(|| format!("{}", jar.display()))?;
    Ok((stored, core))
}

/// `decode-log`: one pass; JSON is written invocation by invocation.
fn decode_log(a: &DecodeLogArgs) -> Result<()> {
    use std::io::Write;
    let (stored, core) = load(&a.program)?;
    let mut update = a.update_model.as_ref().map(|_| ModelUpdate::new(&core));
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut first = true;
    if a.json {
        out.write_all(b"{\"invocations\":[")?;
    }
    let summary = decode_file(&stored, &core, &a.log, Options::default(), |d| {
        if let Some(u) = &mut update {
            u.observe(d.method, d.nodes)?;
        }
        if a.json {
            if !first {
                out.write_all(b",")?;
            }
            first = false;
            let inv = JsonInvocation {
                method: stored.program.methods[d.method].display_name(),
                thread: d.thread_name,
                path: d.blocks().collect(),
                aborted: d.aborted_after.is_some(),
            };
            serde_json::to_writer(&mut out, &inv)?;
        }
        Ok(())
    });
    let summary = summary?;
    if let (Some(path), Some(u)) = (&a.update_model, update) {
        u.finish().save(path).map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    if a.json {
        write!(
            out,
            "],\"bits\":{},\"log_bytes\":{},\"verified\":{},\"complete\":{}}}",
            summary.bits, summary.log_bytes, summary.verified, summary.complete
        )?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "{} invocations, {} bits, {} bytes on disk ({:.3} × the bits)",
            summary.invocations,
            summary.bits,
            summary.log_bytes,
            summary.log_bytes as f64 * 8.0 / summary.bits.max(1) as f64
        )?;
        if summary.verified > 0 {
            writeln!(
                out,
                "{} decoded paths equal the blocks recorded in the same run",
                summary.verified
            )?;
        }
    }
    out.flush()?;
    if !summary.complete {
        super::warning(format_args!(
            "{} has no end mark (the run was cut short); every block before the cut was decoded",
            a.log.display()
        ));
    }
    Ok(())
}

/// One invocation of `decode-log --json`.
#[derive(serde::Serialize)]
struct JsonInvocation<'a> {
    method: String,
    thread: &'a str,
    path: Vec<u32>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    aborted: bool,
}
