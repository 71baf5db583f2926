//! Bridge to the path-profiling core (`tracekit-paths`): the probes' runtime
//! tables and the work of every edge probe are derived from the core's
//! numbering, and logs are decoded with the core's decoders (`decode`), so
//! the in-JVM encoders and the Rust decoders share one definition of every
//! scheme.
//!
//! Block names in the core CFG are `entry`, `b0`, `b1`, …, `exit`, declared
//! in node order so that core block ids equal this crate's node ids, with
//! edges in this crate's out-edge order.

use std::fmt::Write;
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use tracekit_paths as core;
use tracekit_paths::{AdaptiveModel, AdaptiveParams, BlockId, Blpp, BlppStep, EdgeModel, MethodId, Pap};

use crate::cfg::MethodCfg;
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

    /// Appends the plan's `E from to op args…` lines of method `id`: the
    /// work each CFG edge does in the probes (choice digits for raw and
    /// AdapTracer, BLPP increments and emits, PAP updates). Edges without
    /// work get no line.
    pub fn edge_work(&self, id: usize, cfg: &MethodCfg, out: &mut String) -> Result<()> {
        let m = MethodId(id as u32);
        let live = |v: u32| match &self.core {
            Some(c) => c.cfg(m).is_live(BlockId(v)),
            None => true,
        };
        let width = self.config.width;
        let ccfg = self.core.as_ref().map(|c| c.cfg(m));
        let blpp = match (self.config.scheme, ccfg) {
            (Scheme::Blpp, Some(c)) => Some(Blpp::new(c, width).map_err(|e| anyhow!("{e}"))?),
            _ => None,
        };
        let pap = match (self.config.scheme, ccfg) {
            (Scheme::Pap, Some(c)) => Some(Pap::new(c, width).map_err(|e| anyhow!("{e}"))?),
            _ => None,
        };
        let digit_bits = |v: usize| match cfg.succs[v].len() {
            k if k > 1 && live(v as u32) => core::repeat::digit_bits(k),
            _ => 0,
        };
        // The most digit bits packed before each node, and PAP's largest register.
        let digits_before = matches!(self.config.scheme, Scheme::Raw | Scheme::Adaptracer)
            .then(|| most_before(&cfg.succs, |u, _, x| x.saturating_add(u64::from(digit_bits(u)))));
        let pap_before = pap.as_ref().map(|pap| {
            most_before(&cfg.succs, |u, w, x| match pap.radix(BlockId(w as u32)) {
                k if k > 1 => {
                    let idx = pap.in_index(BlockId(u as u32), BlockId(w as u32)).unwrap_or(k);
                    x.saturating_mul(k).saturating_add(idx)
                }
                _ => x,
            })
        });
        for v in 1..cfg.node_count() as u32 - 1 {
            let succs = &cfg.succs[v as usize];
            if succs.is_empty() || !live(v) {
                continue;
            }
            match self.config.scheme {
                Scheme::Raw | Scheme::Adaptracer => {
                    if succs.len() > 1 {
                        let bits = digit_bits(v as usize);
                        // `d`: no path reaches this digit with the word too full for it.
                        let op = match digits_before.as_ref().and_then(|b| b[v as usize]) {
                            Some(b) if b + u64::from(bits) <= 64 => 'd',
                            _ => 'D',
                        };
                        for (s, w) in succs.iter().enumerate() {
                            let _ = writeln!(out, "E\t{v}\t{w}\t{op}\t{s}\t{bits}");
                        }
                    }
                }
                Scheme::Blpp => {
                    let blpp = blpp.as_ref().context("BLPP numbering")?;
                    for &w in succs {
                        match blpp.step(BlockId(v), BlockId(w)) {
                            Some(BlppStep::Add(0)) => {}
                            Some(BlppStep::Add(x)) => {
                                let _ = writeln!(out, "E\t{v}\t{w}\tA\t{x}");
                            }
                            Some(BlppStep::Emit(x)) => {
                                let _ = writeln!(out, "E\t{v}\t{w}\tX\t{x}");
                            }
                            None => bail!("no BLPP step for edge {v}->{w}"),
                        }
                    }
                }
                Scheme::Pap => {
                    let pap = pap.as_ref().context("PAP numbering")?;
                    let max = core::error::word_max(width);
                    for &w in succs {
                        let k = pap.radix(BlockId(w));
                        if k > 1 {
                            let idx = pap.in_index(BlockId(v), BlockId(w)).context("PAP in-edge")?;
                            let lim = (max - idx) / k;
                            // `p`: no path reaches the edge with a register above the limit.
                            let op = match pap_before.as_ref().and_then(|b| b[v as usize]) {
                                Some(r) if r <= lim => 'p',
                                _ => 'P',
                            };
                            let _ = writeln!(out, "E\t{v}\t{w}\t{op}\t{k}\t{idx}\t{lim}");
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The model text the probes start from.
    pub fn model_text(&self) -> Option<String> {
        self.model_text.clone()
    }
}

/// Per node: the largest value a probe word can hold on arrival, over the
/// paths from a source (the entry, where it is 0), or `None` when a path
/// through a cycle reaches it (no bound). `step(u, w, x)` is the value
/// after edge `u → w` for value `x` before it (saturating). Kahn's order
/// reaches exactly the nodes with no cycle before them.
pub(crate) fn most_before(succs: &[Vec<u32>], step: impl Fn(usize, usize, u64) -> u64) -> Vec<Option<u64>> {
    let n = succs.len();
    let mut indegree = vec![0u32; n];
    for s in succs {
        for &w in s {
            indegree[w as usize] += 1;
        }
    }
    let mut most = vec![0u64; n];
    let mut done = vec![false; n];
    let mut ready: Vec<usize> = (0..n).filter(|&v| indegree[v] == 0).collect();
    while let Some(v) = ready.pop() {
        done[v] = true;
        for &w in &succs[v] {
            let w = w as usize;
            most[w] = most[w].max(step(v, w, most[v]));
            indegree[w] -= 1;
            if indegree[w] == 0 {
                ready.push(w);
            }
        }
    }
    (0..n).map(|v| done[v].then_some(most[v])).collect()
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
}

/// The seed's TraceParser step, one invocation at a time: starting from
/// the model the probes used, every decoded path (completed to EXIT) in log
/// order updates the adaptive counters; [`ModelUpdate::finish`] gives the
/// next run's edge model. Edges of the input model that the program lacks
/// are kept.
pub struct ModelUpdate<'a> {
    core: &'a CoreProgram,
    model: AdaptiveModel,
}

impl<'a> ModelUpdate<'a> {
    /// Starts from the probes' initial model.
    pub fn new(core: &'a CoreProgram) -> Self {
        ModelUpdate {
            core,
            model: core.initial.clone(),
        }
    }

    /// Counts one invocation's path (`ENTRY … EXIT` node ids).
    pub fn observe(&mut self, method: usize, nodes: &[u32]) -> Result<()> {
        let blocks: Vec<BlockId> = nodes.iter().map(|&b| BlockId(b)).collect();
        self.model
            .observe_path(&self.core.program, MethodId(method as u32), &blocks)
            .map_err(|e| anyhow!("{e}"))
    }

    /// The next run's model.
    pub fn finish(self) -> EdgeModel {
        let mut out = self.core.edge_model.clone();
        self.model.write_into(&self.core.program, &mut out);
        out
    }
}

/// What replaying an AdapTracer run through the core encoder shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Replay {
    /// Ideal code length `Σ −log2 p` under the same adaptive model, bits.
    pub ideal_bits: f64,
    /// Branch choices coded.
    pub choices: u64,
    /// Every record's (or block's) words equal what the core encoder produces.
    pub words_equal: bool,
}

#[cfg(test)]
mod tests {
    use super::most_before;

    #[test]
    fn bounds_stop_at_cycles() {
        // 0 → 1 → {2, 3} → 4; 4 → 5 ⇄ 6 → 7.
        let succs = vec![
            vec![1],
            vec![2, 3],
            vec![4],
            vec![4],
            vec![5],
            vec![6],
            vec![5, 7],
            vec![],
        ];
        let bits = |v: usize| u64::from(succs[v].len() > 1);
        let b = most_before(&succs, |u, _, x| x + bits(u));
        assert_eq!(&b[..5], &[Some(0), Some(0), Some(1), Some(1), Some(1)]);
        assert_eq!(&b[5..], &[None, None, None]);
        // A register times the radix of 4 (two in-edges) plus the in-edge index.
        let b = most_before(&succs, |u, w, x| if w == 4 { x * 2 + u64::from(u == 3) } else { x });
        assert_eq!(b[4], Some(1));
    }
}
