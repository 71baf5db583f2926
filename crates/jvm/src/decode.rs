//! `tracekit paths decode-log`: a trace log plus the instrumented jar's
//! program description give every invocation's exact block path.

use anyhow::{bail, Context, Result};
use serde::Serialize;

use crate::log::{Token, TraceLog};
use crate::program::StoredProgram;
use crate::schemes::Decoder;
use crate::tables::Scheme;

/// One decoded invocation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Invocation {
    /// `class.name(descriptor)`.
    pub method: String,
    /// Thread name.
    pub thread: String,
    /// Executed basic blocks (bytecode order ids, without the virtual ENTRY/EXIT).
    pub path: Vec<u32>,
    /// True when the invocation ended by an exception or JVM exit.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub aborted: bool,
    /// Method id (index into the program).
    #[serde(skip)]
    pub method_id: usize,
    /// Bits this invocation's record costs in the trace.
    #[serde(skip)]
    pub bits: u64,
}

/// A decoded log.
#[derive(Debug, Clone, Serialize)]
pub struct Decoded {
    /// Total trace size in bits (see [`record_bits`]).
    pub bits: u64,
    /// Every invocation, per thread in completion order.
    pub invocations: Vec<Invocation>,
}

/// Bits needed to name one of `n` things.
pub fn bits_for(n: usize) -> u64 {
    if n <= 1 {
        0
    } else {
        64 - ((n - 1) as u64).leading_zeros() as u64
    }
}

/// Size of one record: the method reference (`ceil(log2 #methods)`), every
/// word (`W` bits; a raw node id costs `ceil(log2 #nodes)`), every PAP
/// breakpoint node (`ceil(log2 #nodes)`), and for an aborted invocation its
/// length (`W` bits).
pub fn record_bits(scheme: Scheme, width: u32, methods: usize, nodes: usize, tokens: &[Token], aborted: bool) -> u64 {
    let node_bits = bits_for(nodes);
    let words: u64 = tokens
        .iter()
        .map(|t| match (t, scheme) {
            (Token::Value(_), Scheme::Raw) => node_bits,
            (Token::Value(_), _) => width as u64,
            (Token::Breakpoint(_), _) => node_bits,
        })
        .sum();
    bits_for(methods) + words + if aborted { width as u64 } else { 0 }
}

impl Decoded {
    /// Every normally finished invocation as `(method id, nodes from ENTRY to EXIT)`.
    pub fn completed_paths(&self, program: &crate::program::Program) -> Vec<(usize, Vec<u32>)> {
        self.invocations
            .iter()
            .filter(|i| !i.aborted)
            .map(|i| {
                let exit = program.methods[i.method_id].cfg.exit();
                let mut nodes = Vec::with_capacity(i.path.len() + 2);
                nodes.push(0);
                nodes.extend(i.path.iter().map(|b| b + 1));
                nodes.push(exit);
                (i.method_id, nodes)
            })
            .collect()
    }
}

/// Decodes every record of `log` against the program stored in the jar.
pub fn decode_log(stored: &StoredProgram, log: &TraceLog, decoder: &mut Decoder) -> Result<Decoded> {
    let program = &stored.program;
    let scheme = stored.config.scheme;
    if log.scheme != scheme.name() || log.width != stored.config.width {
        bail!(
            "log was written with scheme={} width={}, but the jar was instrumented with scheme={} width={}",
            log.scheme,
            log.width,
            scheme.name(),
            stored.config.width
        );
    }
    let mut out = Decoded { bits: 0, invocations: Vec::with_capacity(log.records.len()) };
    for (k, rec) in log.records.iter().enumerate() {
        let m = program.methods.get(rec.method).with_context(|| format!("record {}: unknown method id {}", k + 1, rec.method))?;
        let cfg = &m.cfg;
        let mut path = decoder
            .decode(rec)
            .with_context(|| format!("record {} ({} on thread {})", k + 1, m.display_name(), rec.thread))?;
        check_path(cfg, &path).with_context(|| format!("record {}: decoded path of {} is not a CFG path", k + 1, m.display_name()))?;
        if let Some(n) = rec.aborted_after {
            if n + 1 > path.len() {
                bail!("record {}: aborted after {n} nodes, but the path has only {}", k + 1, path.len());
            }
            path.truncate(n + 1);
        }
        let bits = record_bits(scheme, log.width, program.methods.len(), cfg.node_count(), &rec.tokens, rec.aborted_after.is_some());
        out.bits += bits;
        let exit = cfg.exit();
        out.invocations.push(Invocation {
            method: m.display_name(),
            thread: log.threads[rec.thread].name.clone(),
            path: path.iter().filter(|&&v| v != 0 && v != exit).map(|&v| v - 1).collect(),
            aborted: rec.aborted_after.is_some(),
            method_id: rec.method,
            bits,
        });
    }
    Ok(out)
}

fn check_path(cfg: &crate::cfg::MethodCfg, path: &[u32]) -> Result<()> {
    if path.first() != Some(&0) || path.last() != Some(&cfg.exit()) {
        bail!("does not run from ENTRY to EXIT");
    }
    for w in path.windows(2) {
        if !cfg.succs[w[0] as usize].contains(&w[1]) {
            bail!("no edge {} -> {}", cfg.node_name(w[0]), cfg.node_name(w[1]));
        }
    }
    Ok(())
}
