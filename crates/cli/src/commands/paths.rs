//! `tracekit paths …`: path profiling (BLPP, PAP, AdapTracer).
//!
//! A nested subcommand group: each variant of [`PathsCommand`] has its own
//! arguments struct and handler, so adding a command is a variant, a match
//! arm and a function.

use super::choices::{CodecScheme, RunsContext, SymbolOrder};
use anyhow::{bail, Context, Result};
use clap::Subcommand;
use std::path::PathBuf;
use tracekit_paths::{
    trace_from_json, trace_to_json, AdapTracer, AdaptiveModel, AdaptiveParams, BlockId, Codec, DecodeReport, EdgeModel,
    EncodeReport, MethodId, ModelOptions, Program, Scheme, TraceItem, Visit,
};

/// Arguments of `tracekit paths`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: PathsCommand,
}

/// The `paths` subcommands.
#[derive(Debug, Subcommand)]
pub enum PathsCommand {
    /// Encode one path of a method under a scheme.
    Encode(EncodeArgs),
    /// Decode a trace back into the path.
    Decode(DecodeArgs),
    /// Instrument an Android app (APK, apktool or baksmali directory) through its smali.
    InstrumentApk(super::paths_smali::InstrumentApkArgs),
    /// Java programs: instrument, decode-log, report, compare, adapt.
    #[command(flatten)]
    Jvm(super::paths_jvm::JvmCommand),
}

/// Runs a `paths` subcommand.
pub fn run(args: Args) -> Result<()> {
    match args.command {
        PathsCommand::Encode(a) => encode(a),
        PathsCommand::Decode(a) => decode(a),
        PathsCommand::InstrumentApk(a) => super::paths_smali::run(a),
        PathsCommand::Jvm(c) => super::paths_jvm::run(c),
    }
}

/// Options shared by `encode` and `decode`.
#[derive(Debug, clap::Args)]
pub struct CodecArgs {
    /// CFG JSON file: {"methods": [{"name", "entry", "exit", "edges": [[from, to], …]}]}.
    #[arg(long, value_name = "F")]
    cfg: PathBuf,
    /// Method name in the CFG file.
    #[arg(long, value_name = "M")]
    method: String,
    /// Path numbering scheme.
    #[arg(long, value_enum)]
    scheme: CodecScheme,
    /// Word width in bits (3 to 64).
    #[arg(long, value_name = "W", default_value_t = 32)]
    width: u32,
    /// AdapTracer: edge model file to start from (default: all counters 1).
    #[arg(long, value_name = "F")]
    model: Option<PathBuf>,
    /// AdapTracer: write the model after this run here.
    #[arg(long, value_name = "F")]
    update_model: Option<PathBuf>,
    /// AdapTracer: counter increment per taken edge.
    #[arg(long, default_value_t = AdaptiveParams::default().inc)]
    inc: u32,
    /// AdapTracer: counter bound that triggers halving.
    #[arg(long, default_value_t = AdaptiveParams::default().bound)]
    bound: u32,
    /// AdapTracer: number out-edges as symbols in successor order, or by
    /// the starting counters, most frequent first ("frequency": a path of
    /// most-frequent edges then costs no word).
    #[arg(long, value_enum, default_value = "successor")]
    symbol_order: SymbolOrder,
    /// AdapTracer: "none" (one counter set per block, the seed's model) or
    /// "runs" (counter sets chosen by the block's last choice and whether
    /// its run reached the previous run's length: repeating loop trip counts
    /// become nearly free).
    #[arg(long, value_enum, default_value = "none")]
    context: RunsContext,
    /// AdapTracer: also code the callees listed in the CFG's "calls"; path
    /// items are then written method::block.
    #[arg(long)]
    interprocedural: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Arguments of `tracekit paths encode`.
#[derive(Debug, clap::Args)]
pub struct EncodeArgs {
    #[command(flatten)]
    common: CodecArgs,
    /// The path: comma-separated block names from entry to exit.
    #[arg(long, value_name = "A,B,…")]
    path: String,
}

/// Arguments of `tracekit paths decode`.
#[derive(Debug, clap::Args)]
pub struct DecodeArgs {
    #[command(flatten)]
    common: CodecArgs,
    /// The trace as a JSON list, e.g. '[7, "C", 1]'.
    #[arg(long, value_name = "JSON")]
    trace: String,
    /// AdapTracer: give up after this many decoded blocks.
    #[arg(long, default_value_t = 10_000_000)]
    max_steps: usize,
}

/// The program, the method and (for AdapTracer) the model of one run.
struct Setup {
    program: Program,
    method: MethodId,
    model: Option<AdaptiveModel>,
}

impl CodecArgs {
    /// The library's scheme.
    fn scheme(&self) -> Scheme {
        self.scheme.into()
    }

    fn setup(&self) -> Result<Setup> {
        let program = Program::load(&self.cfg)?;
        let method = program.method_id(&self.method).map_err(|_| {
            let names: Vec<&str> = program.method_ids().map(|m| program.cfg(m).name()).collect();
            anyhow::anyhow!(
                "{}: no method {:?} (methods: {})",
                self.cfg.display(),
                self.method,
                names.join(", ")
            )
        })?;
        if self.interprocedural && self.scheme() != Scheme::AdapTracer {
            bail!("--interprocedural is only defined for --scheme adaptracer");
        }
        let model = if self.scheme() == Scheme::AdapTracer {
            let params = AdaptiveParams {
                inc: self.inc,
                bound: self.bound,
            };
            let edges = match &self.model {
                Some(f) => EdgeModel::load(f)?,
                None => EdgeModel::new(),
            };
            let options = ModelOptions {
                symbol_order: self.symbol_order.into(),
                context: self.context.into(),
            };
            Some(AdaptiveModel::from_edge_model_with_options(
                &program, &edges, params, options,
            )?)
        } else {
            if self.model.is_some() || self.update_model.is_some() {
                bail!("--model and --update-model apply to --scheme adaptracer only");
            }
            None
        };
        Ok(Setup { program, method, model })
    }

    /// Writes the updated model (merged into the input model file's rows).
    fn save_model(&self, s: &Setup) -> Result<()> {
        let (Some(out), Some(model)) = (&self.update_model, &s.model) else {
            return Ok(());
        };
        let mut edges = match &self.model {
            Some(f) => EdgeModel::load(f)?,
            None => EdgeModel::new(),
        };
        model.write_into(&s.program, &mut edges);
        edges.save(out)?;
        Ok(())
    }
}

fn encode(a: EncodeArgs) -> Result<()> {
    let c = &a.common;
    let mut s = c.setup()?;
    let names: Vec<&str> = if a.path.trim().is_empty() {
        Vec::new()
    } else {
        a.path.split(',').map(str::trim).collect()
    };
    let (items, bits, ideal) = if c.interprocedural {
        let visits = parse_visits(&s.program, &names)?;
        let at = AdapTracer::new(&s.program, c.width)?;
        let t = at.encode_visits(s.model.as_mut().expect("adaptracer"), s.method, &visits)?;
        let bits = t.words.len() as u64 * u64::from(c.width);
        (
            t.words.into_iter().map(TraceItem::Word).collect(),
            bits,
            Some(t.ideal_bits),
        )
    } else {
        let codec = Codec::new(&s.program, s.method, c.scheme(), c.width)?;
        let path = codec.cfg().resolve_path(&names)?;
        let t = codec.encode(s.model.as_mut(), &path)?;
        (t.items, t.bits, t.ideal_bits)
    };
    c.save_model(&s)?;
    let cfg = s.program.cfg(s.method);
    if c.json {
        let out = EncodeReport {
            trace: trace_to_json(cfg, &items),
            bits,
            ideal_bits: ideal,
        };
        println!("{}", serde_json::to_string(&out)?);
    } else {
        let shown: Vec<String> = trace_to_json(cfg, &items)
            .as_array()
            .expect("list")
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
            .collect();
        println!("scheme: {} (W = {})", c.scheme(), c.width);
        println!(
            "trace: {}",
            if shown.is_empty() {
                "(empty)".into()
            } else {
                tracekit_safeio::terminal(&shown.join(" ")).into_owned()
            }
        );
        println!("bits: {bits}");
        if let Some(i) = ideal {
            println!("ideal bits: {i:.2}");
        }
    }
    Ok(())
}

fn decode(a: DecodeArgs) -> Result<()> {
    let c = &a.common;
    let mut s = c.setup()?;
    let cfg = s.program.cfg(s.method);
    let items = trace_from_json(cfg, &a.trace).context("--trace")?;
    let names: Vec<String> = if c.interprocedural {
        let words = items
            .iter()
            .map(|it| match it {
                TraceItem::Word(w) => Ok(*w),
                TraceItem::Node(_) => bail!("an AdapTracer trace holds integers only"),
            })
            .collect::<Result<Vec<u64>>>()?;
        let at = AdapTracer::new(&s.program, c.width)?.with_max_steps(a.max_steps);
        let visits = at.decode_visits(s.model.as_mut().expect("adaptracer"), s.method, &words)?;
        visits
            .iter()
            .map(|v| {
                let m = s.program.cfg(v.method);
                format!("{}::{}", m.name(), m.block_name(v.block))
            })
            .collect()
    } else {
        let path: Vec<BlockId> = if c.scheme() == Scheme::AdapTracer {
            let words: Vec<u64> = items
                .iter()
                .map(|it| match it {
                    TraceItem::Word(w) => Ok(*w),
                    TraceItem::Node(_) => bail!("an AdapTracer trace holds integers only"),
                })
                .collect::<Result<_>>()?;
            let at = AdapTracer::new(&s.program, c.width)?.with_max_steps(a.max_steps);
            at.decode(s.model.as_mut().expect("adaptracer"), s.method, &words)?
        } else {
            Codec::new(&s.program, s.method, c.scheme(), c.width)?.decode(None, &items)?
        };
        cfg.path_names(&path)
    };
    c.save_model(&s)?;
    if c.json {
        println!("{}", serde_json::to_string(&DecodeReport { path: names })?);
    } else {
        println!("path: {}", tracekit_safeio::terminal(&names.join(" ")));
        println!("blocks: {}", names.len());
    }
    Ok(())
}

/// Parses `method::block` items of an interprocedural path.
fn parse_visits(program: &Program, names: &[&str]) -> Result<Vec<Visit>> {
    names
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let Some((m, b)) = item.rsplit_once("::") else {
                bail!("path item {i} ({item:?}) is not method::block");
            };
            let method = program.method_id(m).with_context(|| format!("path item {i}"))?;
            let block = program
                .cfg(method)
                .require_block(b)
                .with_context(|| format!("path item {i}"))?;
            Ok(Visit { method, block })
        })
        .collect()
}
