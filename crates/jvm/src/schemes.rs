//! Bridge to the path-profiling core (`tracekit-paths`): the probes' runtime
//! tables are derived from the core's numbering, and logs are decoded with
//! the core's decoders, so the in-JVM encoders and the Rust decoders share one
//! definition of every scheme.
//!
//! Block names in the core CFG are `entry`, `b0`, `b1`, …, `exit`, declared
//! in node order so that core block ids equal this crate's node ids, with
//! edges in this crate's out-edge order.

use std::collections::HashMap;
use std::fmt::Write;
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use tracekit_paths as core;
use tracekit_paths::{
    AdapTracer, AdaptiveModel, AdaptiveParams, BlockId, Blpp, BlppStep, EdgeModel, MethodId, Pap, PapItem,
};

use crate::cfg::MethodCfg;
use crate::log::{Record, Token};
use crate::program::{Program, StoredProgram};
use crate::tables::{Config, Scheme};

/// The core CFG of one method.
pub fn core_cfg(name: &str, cfg: &MethodCfg) -> Result<core::Cfg> {
    let mut b = core::CfgBuilder::new(name);
    for v in 0..cfg.node_count() as u32 {
        b.block(&cfg.node_name(v));
    }
    for (v, w) in cfg.edges() {
        b.edge(&cfg.node_name(v), &cfg.node_name(w));
    }
    b.entry("entry").exit("exit");
    b.build().map_err(|e| anyhow!("{name}: {e}"))
}

/// The whole program as a core [`core::Program`] (method ids equal ours).
pub fn core_program(program: &Program) -> Result<core::Program> {
    let mut p = core::Program::new();
    for m in &program.methods {
        p.add_method(core_cfg(&m.display_name(), &m.cfg)?, vec![])
            .map_err(|e| anyhow!("{e}"))?;
    }
    p.resolve_calls().map_err(|e| anyhow!("{e}"))?;
    Ok(p)
}

fn params(config: &Config) -> AdaptiveParams {
    AdaptiveParams {
        inc: config.inc,
        bound: config.bound,
    }
}

fn load_model(text: Option<&str>) -> Result<EdgeModel> {
    match text {
        Some(t) => EdgeModel::from_text(t, Path::new("model")).map_err(|e| anyhow!("{e}")),
        None => Ok(EdgeModel::new()),
    }
}

/// Per-method tables of the configured scheme, ready to be written.
pub struct SchemeTables {
    config: Config,
    model_text: Option<String>,
    core: Option<core::Program>,
    adaptive: Option<AdaptiveModel>,
}

impl SchemeTables {
    /// Computes the scheme's numbering for every method of `program`;
    /// `model` is an edge-model file for AdapTracer.
    pub fn new(program: &Program, config: &Config, model: Option<&Path>) -> Result<SchemeTables> {
        core::error::check_width(config.width).map_err(|e| anyhow!("{e}"))?;
        let model_text = match model {
            Some(p) => Some(tracekit_safeio::read_text(p).context("cannot read the model")?),
            None => None,
        };
        let edge_model = load_model(model_text.as_deref())
            .with_context(|| format!("model {}", model.map(|p| p.display().to_string()).unwrap_or_default()))?;
        let core = if config.scheme == Scheme::Raw {
            None
        } else {
            Some(core_program(program)?)
        };
        let adaptive = match (&core, config.scheme) {
            (Some(c), Scheme::Adaptracer) => {
                Some(AdaptiveModel::from_edge_model(c, &edge_model, params(config)).map_err(|e| anyhow!("{e}"))?)
            }
            _ => None,
        };
        if let (true, Some(c), Some(a)) = (config.is_context(), &core, &adaptive) {
            // The context stream numbers every counter in one space: refuse what it cannot hold now, not at decoding.
            tracekit_paths::ContextLayout::new(c, a).map_err(|e| anyhow!("{e}"))?;
        }
        Ok(SchemeTables {
            config: config.clone(),
            model_text,
            core,
            adaptive,
        })
    }

    /// Appends the scheme rows of method `id` to the tables text.
    pub fn rows(&self, id: usize, cfg: &MethodCfg, out: &mut String) -> Result<()> {
        let Some(core) = &self.core else {
            return Ok(());
        };
        let m = MethodId(id as u32);
        scheme_rows(
            self.config.scheme,
            self.config.width,
            core.cfg(m),
            m,
            self.adaptive.as_ref(),
            &cfg.succs,
            out,
        )
    }

    /// The model text the probes start from.
    pub fn model_text(&self) -> Option<String> {
        self.model_text.clone()
    }
}

/// Writes the runtime rows of `scheme` for method `m`, whose runtime node
/// ids equal the core CFG's block ids and whose out-edges are `succs` (the
/// core's successor order for every live block); `model` holds the
/// AdapTracer counters.
pub fn scheme_rows(
    scheme: Scheme,
    width: u32,
    ccfg: &core::Cfg,
    m: MethodId,
    model: Option<&AdaptiveModel>,
    succs: &[Vec<u32>],
    out: &mut String,
) -> Result<()> {
    let nodes = succs.len() as u32;
    let live_with_edges = |v: u32| ccfg.is_live(BlockId(v)) && !succs[v as usize].is_empty();
    match scheme {
        Scheme::Raw => {}
        Scheme::Blpp => {
            let blpp = Blpp::new(ccfg, width).map_err(|e| anyhow!("{e}"))?;
            for v in (0..nodes).filter(|&v| live_with_edges(v)) {
                let steps: Vec<BlppStep> = succs[v as usize]
                    .iter()
                    .map(|&w| {
                        blpp.step(BlockId(v), BlockId(w))
                            .with_context(|| format!("no BLPP step for edge {v}->{w}"))
                    })
                    .collect::<Result<_>>()?;
                let _ = write!(out, "bi {v}");
                for s in &steps {
                    let _ = write!(
                        out,
                        " {}",
                        match s {
                            BlppStep::Add(x) | BlppStep::Emit(x) => *x,
                        }
                    );
                }
                let _ = write!(out, "\nbr {v}");
                for s in &steps {
                    out.push_str(match s {
                        BlppStep::Add(_) => " -",
                        BlppStep::Emit(_) => " 0",
                    });
                }
                out.push('\n');
            }
        }
        Scheme::Pap => {
            let pap = Pap::new(ccfg, width).map_err(|e| anyhow!("{e}"))?;
            out.push_str("pr");
            for v in 0..nodes {
                let _ = write!(out, " {}", pap.radix(BlockId(v)));
            }
            out.push('\n');
            for v in (0..nodes).filter(|&v| live_with_edges(v)) {
                let _ = write!(out, "pi {v}");
                for &w in &succs[v as usize] {
                    let _ = write!(out, " {}", pap.in_index(BlockId(v), BlockId(w)).unwrap_or(0));
                }
                out.push('\n');
            }
        }
        Scheme::Adaptracer => {
            let model = model.context("AdapTracer rows need a model")?;
            let mut bases = Vec::with_capacity(nodes as usize);
            let mut counts: Vec<u32> = Vec::new();
            for v in 0..nodes {
                let c = model.counters(m, BlockId(v));
                if c.len() < 2 {
                    bases.push(-1i64);
                    continue;
                }
                if ccfg.successors(BlockId(v)) != succs[v as usize].iter().map(|&w| BlockId(w)).collect::<Vec<_>>() {
                    bail!("{}: out-edge order of node {v} differs from the core's", ccfg.name());
                }
                bases.push(counts.len() as i64);
                counts.extend_from_slice(c);
            }
            out.push_str("ab");
            for b in bases {
                let _ = write!(out, " {b}");
            }
            out.push_str("\nac");
            for c in counts {
                let _ = write!(out, " {c}");
            }
            out.push('\n');
        }
    }
    Ok(())
}

/// The core program and the initial model of a stored program, built once
/// per decoding.
pub struct CoreProgram {
    program: core::Program,
    edge_model: EdgeModel,
    initial: AdaptiveModel,
}

impl CoreProgram {
    /// Builds the core view of `stored`.
    pub fn new(stored: &StoredProgram) -> Result<CoreProgram> {
        let program = core_program(&stored.program)?;
        let edge_model = load_model(stored.model.as_deref())?;
        let initial = AdaptiveModel::from_edge_model(&program, &edge_model, params(&stored.config))
            .map_err(|e| anyhow!("{e}"))?;
        Ok(CoreProgram {
            program,
            edge_model,
            initial,
        })
    }

    /// The core program.
    pub fn program(&self) -> &core::Program {
        &self.program
    }

    /// Counters as the probes had them at start.
    pub fn initial_model(&self) -> &AdaptiveModel {
        &self.initial
    }

    /// A one-method program and its initial model (recursive invocations
    /// start from the shipped counters of their method).
    fn single(&self, m: usize, params: AdaptiveParams) -> Result<(core::Program, AdaptiveModel)> {
        let mut p = core::Program::new();
        p.add_method(self.program.cfg(MethodId(m as u32)).clone(), vec![])
            .map_err(|e| anyhow!("{e}"))?;
        let model = AdaptiveModel::from_edge_model(&p, &self.edge_model, params).map_err(|e| anyhow!("{e}"))?;
        Ok((p, model))
    }
}

/// Decodes records of one log in order, keeping the adaptive state.
pub struct Decoder<'a> {
    stored: &'a StoredProgram,
    core: &'a CoreProgram,
    blpp: HashMap<usize, Blpp<'a>>,
    pap: HashMap<usize, Pap<'a>>,
    /// AdapTracer: per thread, the counters of outermost invocations.
    thread_models: HashMap<usize, AdaptiveModel>,
}

impl<'a> Decoder<'a> {
    /// A decoder for logs of the jar described by `stored`.
    pub fn new(stored: &'a StoredProgram, core: &'a CoreProgram) -> Decoder<'a> {
        Decoder {
            stored,
            core,
            blpp: HashMap::new(),
            pap: HashMap::new(),
            thread_models: HashMap::new(),
        }
    }

    /// Decodes one record into the node sequence from ENTRY to EXIT
    /// (completed when the invocation aborted; the caller truncates).
    pub fn decode(&mut self, record: &Record) -> Result<Vec<u32>> {
        let cfg = &self.stored.program.methods[record.method].cfg;
        let width = self.stored.config.width;
        let m = MethodId(record.method as u32);
        let words = || -> Result<Vec<u64>> {
            record
                .tokens
                .iter()
                .map(|t| match t {
                    Token::Value(v) => Ok(*v),
                    Token::Breakpoint(_) => bail!("breakpoint in a non-PAP trace"),
                })
                .collect()
        };
        let path: Vec<BlockId> = match self.stored.config.scheme {
            Scheme::Raw => {
                let mut path = vec![0u32];
                for t in &record.tokens {
                    match t {
                        Token::Value(v) if *v < cfg.node_count() as u64 => path.push(*v as u32),
                        _ => bail!("raw trace holds {t:?}, not a node id of this method"),
                    }
                }
                return Ok(path);
            }
            Scheme::Blpp => {
                let ccfg = self.core.program.cfg(m);
                let blpp = match self.blpp.entry(record.method) {
                    std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                    std::collections::hash_map::Entry::Vacant(e) => {
                        e.insert(Blpp::new(ccfg, width).map_err(|e| anyhow!("{e}"))?)
                    }
                };
                blpp.decode(&words()?).map_err(|e| anyhow!("{e}"))?
            }
            Scheme::Pap => {
                let ccfg = self.core.program.cfg(m);
                let pap = match self.pap.entry(record.method) {
                    std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                    std::collections::hash_map::Entry::Vacant(e) => {
                        e.insert(Pap::new(ccfg, width).map_err(|e| anyhow!("{e}"))?)
                    }
                };
                let items: Vec<PapItem> = record
                    .tokens
                    .iter()
                    .map(|t| match t {
                        Token::Value(v) => PapItem::Value(*v),
                        Token::Breakpoint(n) => PapItem::Node(BlockId(*n)),
                    })
                    .collect();
                pap.decode(&items).map_err(|e| anyhow!("{e}"))?
            }
            Scheme::Adaptracer => {
                let words = words()?;
                if record.nested {
                    let (single, mut model) = self.core.single(record.method, params(&self.stored.config))?;
                    let at = AdapTracer::new(&single, width).map_err(|e| anyhow!("{e}"))?;
                    at.decode(&mut model, MethodId(0), &words).map_err(|e| anyhow!("{e}"))?
                } else {
                    let at = AdapTracer::new(&self.core.program, width).map_err(|e| anyhow!("{e}"))?;
                    let model = self
                        .thread_models
                        .entry(record.thread)
                        .or_insert_with(|| self.core.initial.clone());
                    at.decode(model, m, &words).map_err(|e| anyhow!("{e}"))?
                }
            }
        };
        Ok(path.into_iter().map(|b| b.0).collect())
    }
}

impl<'a> Decoder<'a> {
    /// The core view of the program being decoded.
    pub fn core(&self) -> &'a CoreProgram {
        self.core
    }

    /// AdapTracer stream mode: decodes every record of `log`, thread by
    /// thread from each thread's one word list, in record order.
    pub fn decode_streams(&mut self, log: &crate::log::TraceLog) -> Result<Vec<Vec<u32>>> {
        let width = self.stored.config.width;
        let at = AdapTracer::new(&self.core.program, width).map_err(|e| anyhow!("{e}"))?;
        let mut out = vec![Vec::new(); log.records.len()];
        for (t, info) in log.threads.iter().enumerate() {
            let empty = Vec::new();
            let words = info.words.as_ref().unwrap_or(&empty);
            let mut stream = at.stream(words).map_err(|e| anyhow!("thread {t}: {e}"))?;
            let mut model = self.core.initial.clone();
            for (k, rec) in log.records.iter().enumerate().filter(|(_, r)| r.thread == t) {
                if !rec.tokens.is_empty() {
                    bail!("record {}: values in a stream-mode log", k + 1);
                }
                let path = at
                    .decode_next(&mut stream, &mut model, MethodId(rec.method as u32))
                    .map_err(|e| anyhow!("record {} (thread {t}): {e}", k + 1))?;
                out[k] = path.into_iter().map(|b| b.0).collect();
            }
        }
        Ok(out)
    }
}

/// The seed's TraceParser step: starting from the model the probes used,
/// replays every decoded path (completed to EXIT) in log order through the
/// adaptive counters and returns the next run's edge model. Edges of the
/// input model that the program lacks are kept.
pub fn updated_model(
    stored: &StoredProgram,
    core: &CoreProgram,
    completed_paths: &[(usize, Vec<u32>)],
) -> Result<EdgeModel> {
    let mut model = core.initial.clone();
    let at = AdapTracer::new(&core.program, stored.config.width.max(3)).map_err(|e| anyhow!("{e}"))?;
    for (m, path) in completed_paths {
        let blocks: Vec<BlockId> = path.iter().map(|&b| BlockId(b)).collect();
        at.encode(&mut model, MethodId(*m as u32), &blocks)
            .map_err(|e| anyhow!("{e}"))?;
    }
    let mut out = core.edge_model.clone();
    model.write_into(&core.program, &mut out);
    Ok(out)
}

/// What replaying an AdapTracer run through the core encoder shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Replay {
    /// Ideal code length `Σ −log2 p` under the same adaptive model, bits.
    pub ideal_bits: f64,
    /// Branch choices coded.
    pub choices: u64,
    /// Every record's words equal what the core encoder produces.
    pub words_equal: bool,
}

/// Re-encodes every decoded invocation of an AdapTracer run with the core
/// encoder, under the same per-thread model sequence as the probes (nested
/// invocations from the shipped model), giving the ideal code length and a
/// bit-for-bit check of the in-JVM encoder on a real run.
pub fn replay_adaptracer(
    stored: &StoredProgram,
    core: &CoreProgram,
    log: &crate::log::TraceLog,
    decoded: &crate::decode::Decoded,
) -> Result<Replay> {
    let width = stored.config.width;
    let at = AdapTracer::new(&core.program, width).map_err(|e| anyhow!("{e}"))?;
    let mut models: HashMap<usize, AdaptiveModel> = HashMap::new();
    let mut out = Replay {
        ideal_bits: 0.0,
        choices: 0,
        words_equal: true,
    };
    let paths = decoded.completed_paths(&stored.program);
    if stored.config.stream {
        for (t, info) in log.threads.iter().enumerate() {
            let mut model = core.initial.clone();
            let mut enc = tracekit_paths::ChoiceEncoder::new(width);
            for (_, (m, nodes)) in decoded
                .invocations
                .iter()
                .zip(&paths)
                .filter(|(inv, _)| inv.thread_index == t)
            {
                let blocks: Vec<BlockId> = nodes.iter().map(|&b| BlockId(b)).collect();
                enc.append_path(&mut model, &core.program, MethodId(*m as u32), &blocks)
                    .map_err(|e| anyhow!("{e}"))?;
            }
            let trace = enc.finish();
            out.ideal_bits += trace.ideal_bits;
            out.choices += trace.choices;
            out.words_equal &= info.words.clone().unwrap_or_default() == trace.words;
        }
        return Ok(out);
    }
    for ((inv, rec), (m, nodes)) in decoded.invocations.iter().zip(&log.records).zip(&paths) {
        let blocks: Vec<BlockId> = nodes.iter().map(|&b| BlockId(b)).collect();
        let trace = if inv.nested {
            let (single, mut model) = core.single(*m, params(&stored.config))?;
            AdapTracer::new(&single, width)
                .map_err(|e| anyhow!("{e}"))?
                .encode(&mut model, MethodId(0), &blocks)
        } else {
            let model = models.entry(inv.thread_index).or_insert_with(|| core.initial.clone());
            at.encode(model, MethodId(*m as u32), &blocks)
        }
        .map_err(|e| anyhow!("{e}"))?;
        out.ideal_bits += trace.ideal_bits;
        out.choices += trace.choices;
        let logged: Vec<u64> = rec
            .tokens
            .iter()
            .filter_map(|t| if let Token::Value(v) = t { Some(*v) } else { None })
            .collect();
        out.words_equal &= logged == trace.words;
    }
    Ok(out)
}
