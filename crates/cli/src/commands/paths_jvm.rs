//! `tracekit paths instrument|decode-log|report|compare`: path profiling of
//! Java programs (crate `tracekit-jvm`).

use std::path::{Path, PathBuf};

use super::choices::{JvmScheme, StreamContext};
use anyhow::{Context, Result};
use clap::{Args as ClapArgs, Subcommand};
use tracekit_jvm::{
    compare, decode_log, parse_log, report, updated_model, Config, CoreProgram, Decoded, Decoder, Program, Scheme,
    StoredProgram,
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
    /// With `--stream`: `predict` codes method ids, ends and choices all in
    /// the thread's coder, predicted from the thread's history (the context
    /// stream); `none` (default) keeps per-block order-0 counters.
    #[arg(long, value_enum, default_value = "none")]
    pub context: StreamContext,
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
    /// Print `{"bits", "invocations": [{"method", "thread", "path"}]}`.
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

fn config(scheme: Scheme, a: &SchemeArgs) -> Config {
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

/// `--context none|predict` with `--stream`.
fn context_stream(context: StreamContext, stream: bool) -> Result<bool> {
    let predict = context == StreamContext::Predict;
    if predict && !stream {
        anyhow::bail!("--context predict needs --stream (the context stream is a stream mode)");
    }
    Ok(predict)
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
            let cfg = Config {
                verify: a.verify,
                stream: a.stream,
                context: context_stream(a.context, a.stream)?,
                ..config(scheme, &a.scheme_args)
            };
            if cfg.context && scheme != Scheme::Adaptracer {
                anyhow::bail!("--context predict is an AdapTracer mode (--scheme adaptracer)");
            }
            if a.output.exists() && !tracekit_safeio::same_file(&a.input, &a.output) {
                super::note(format_args!("replacing {}", a.output.display()));
            }
            let r = tracekit_jvm::instrument_jar(&a.input, &a.output, &cfg, a.model.as_deref(), &a.classpath)?;
            eprint!("{}", tracekit_safeio::terminal_lines(&r.log));
            super::note(format_args!(
                "{} methods instrumented ({} skipped) -> {}",
                r.methods,
                r.skipped.len(),
                a.output.display()
            ));
            Ok(())
        }
        JvmCommand::DecodeLog(a) => {
            let (stored, core, decoded) = load_and_decode(&a.log, &a.program)?;
            if let Some(m) = &a.update_model {
                let model = updated_model(&stored, &core, &decoded.completed_paths(&stored.program))?;
                model.save(m).map_err(|e| anyhow::anyhow!("{e}"))?;
            }
            if a.json {
                println!("{}", serde_json::to_string(&decoded)?);
            } else {
                println!("{} invocations, {} bits", decoded.invocations.len(), decoded.bits);
                if decoded.verified > 0 {
                    println!(
                        "{} decoded paths equal the nodes recorded in the same run",
                        decoded.verified
                    );
                }
            }
            Ok(())
        }
        JvmCommand::Report(a) => {
            let (stored, _, decoded) = load_and_decode(&a.log, &a.program)?;
            let reports = report::method_reports(&stored.program, &decoded, a.paths_per_method);
            if a.json {
                println!("{}", serde_json::to_string_pretty(&reports)?);
            } else {
                print!(
                    "{}",
                    tracekit_safeio::terminal_lines(&report::render(&reports, &decoded, a.limit))
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
            let cfg = Config {
                stream: a.stream,
                context: context_stream(a.context, a.stream)?,
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
                    "run", "bits", "packed", "ideal", "choices"
                );
                for r in &runs {
                    println!(
                        "{:>4} {:>12} {:>12} {:>12.0} {:>10}",
                        r.run, r.bits, r.packed_bits, r.ideal_bits, r.choices
                    );
                }
            }
            Ok(())
        }
    }
}

fn load_and_decode(log: &Path, jar: &Path) -> Result<(StoredProgram, CoreProgram, Decoded)> {
    let stored = Program::from_instrumented_jar(jar)?;
    let core = CoreProgram::new(&stored).with_context(|| format!("{}", jar.display()))?;
    let text = tracekit_safeio::read_text(log)?;
    let parsed = parse_log(&text).with_context(|| format!("{}", log.display()))?;
    let mut decoder = Decoder::new(&stored, &core);
    let decoded = decode_log(&stored, &parsed, &mut decoder).with_context(|| format!("decoding {}", log.display()))?;
    Ok((stored, core, decoded))
}
