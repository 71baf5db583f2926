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
    /// Aborted invocations: the coded node sequence, completed to EXIT.
    #[serde(skip)]
    pub completed: Option<Vec<u32>>,
    /// Recursive invocation, coded with its own copy of the model.
    #[serde(skip)]
    pub nested: bool,
    /// Index of the thread in the log.
    #[serde(skip)]
    pub thread_index: usize,
    /// Bits of the same record in the self-delimiting packed form ([`packed_record_bits`]).
    #[serde(skip)]
    pub packed_bits: u64,
}

/// A decoded log.
#[derive(Debug, Clone, Serialize)]
pub struct Decoded {
    /// Total trace size in bits (see [`record_bits`]).
    pub bits: u64,
    /// Total size of the packed form (see [`packed_record_bits`]).
    #[serde(skip)]
    pub packed_bits: u64,
    /// Part of `bits` spent on method references (`ceil(log2 #methods)` per record).
    #[serde(skip)]
    pub method_ref_bits: u64,
    /// Records whose decoded path was checked against the same run's nodes.
    #[serde(skip)]
    pub verified: usize,
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
    /// Every invocation as `(method id, nodes from ENTRY to EXIT)`, aborted
    /// ones completed as the probes coded them.
    pub fn completed_paths(&self, program: &crate::program::Program) -> Vec<(usize, Vec<u32>)> {
        self.invocations
            .iter()
            .map(|i| {
                if let Some(c) = &i.completed {
                    return (i.method_id, c.clone());
                }
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

/// Length of the Elias-gamma code of `n ≥ 1`.
pub fn gamma_bits(n: u64) -> u64 {
    2 * (63 - n.max(1).leading_zeros() as u64) + 1
}

/// Size of one record in a packed, self-delimiting serialization of the
/// same trace, for logs kept as one bit stream per thread: the method
/// reference, then for AdapTracer the record's bit string up to its last 1
/// bit (the decoder reads zeros after it) preceded by its Elias-gamma coded
/// length; for BLPP/PAP/raw each value Elias-gamma coded (`v + 1`) and each
/// breakpoint node in `ceil(log2 #nodes)` bits; an aborted record adds its
/// gamma-coded length.
pub fn packed_record_bits(
    scheme: Scheme,
    width: u32,
    methods: usize,
    nodes: usize,
    tokens: &[Token],
    aborted_after: Option<usize>,
) -> u64 {
    let body: u64 = match scheme {
        Scheme::Adaptracer => {
            let words: Vec<u64> = tokens
                .iter()
                .filter_map(|t| if let Token::Value(v) = t { Some(*v) } else { None })
                .collect();
            let len = match words.iter().rposition(|&w| w != 0) {
                Some(i) => i as u64 * width as u64 + (width as u64 - words[i].trailing_zeros() as u64),
                None => 0,
            };
            gamma_bits(len + 1) + len
        }
        _ => tokens
            .iter()
            .map(|t| match t {
                Token::Value(v) => gamma_bits(v.saturating_add(1)),
                Token::Breakpoint(_) => bits_for(nodes),
            })
            .sum(),
    };
    bits_for(methods) + body + aborted_after.map(|n| gamma_bits(n as u64 + 1)).unwrap_or(0)
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
    if stored.config.is_context() {
        return crate::context::decode_context_log(stored, decoder.core(), log);
    }
    let streamed = if stored.config.stream {
        Some(decoder.decode_streams(log)?)
    } else {
        None
    };
    let mut out = Decoded {
        bits: 0,
        packed_bits: 0,
        method_ref_bits: 0,
        verified: 0,
        invocations: Vec::with_capacity(log.records.len()),
    };
    for (k, rec) in log.records.iter().enumerate() {
        let m = program
            .methods
            .get(rec.method)
            .with_context(|| format!("record {}: unknown method id {}", k + 1, rec.method))?;
        let cfg = &m.cfg;
        let mut path = match &streamed {
            Some(paths) => paths[k].clone(),
            None => decoder
                .decode(rec)
                .with_context(|| format!("record {} ({} on thread {})", k + 1, m.display_name(), rec.thread))?,
        };
        check_path(cfg, &path).with_context(|| {
            format!(
                "record {}: decoded path of {} is not a CFG path",
                k + 1,
                m.display_name()
            )
        })?;
        if let Some(raw) = &rec.raw {
            if path.len() != raw.len() + 1 || path[1..] != raw[..] {
                bail!(
                    "record {} ({}): decoded path differs from the nodes recorded in the same run",
                    k + 1,
                    m.display_name()
                );
            }
            out.verified += 1;
        }
        let mut completed = None;
        if let Some(n) = rec.aborted_after {
            if n + 1 > path.len() {
                bail!(
                    "record {}: aborted after {n} nodes, but the path has only {}",
                    k + 1,
                    path.len()
                );
            }
            completed = Some(path.clone());
            path.truncate(n + 1);
        }
        let bits = record_bits(
            scheme,
            log.width,
            program.methods.len(),
            cfg.node_count(),
            &rec.tokens,
            rec.aborted_after.is_some(),
        );
        out.bits += bits;
        out.method_ref_bits += bits_for(program.methods.len());
        let packed_bits = packed_record_bits(
            scheme,
            log.width,
            program.methods.len(),
            cfg.node_count(),
            &rec.tokens,
            rec.aborted_after,
        );
        out.packed_bits += packed_bits;
        let exit = cfg.exit();
        out.invocations.push(Invocation {
            method: m.display_name(),
            thread: log.threads[rec.thread].name.clone(),
            path: path.iter().filter(|&&v| v != 0 && v != exit).map(|&v| v - 1).collect(),
            aborted: rec.aborted_after.is_some(),
            method_id: rec.method,
            bits,
            packed_bits,
            completed,
            nested: rec.nested,
            thread_index: rec.thread,
        });
    }
    if streamed.is_some() {
        // The threads' word lists, W bits per word.
        let words: u64 = log
            .threads
            .iter()
            .map(|t| t.words.as_ref().map_or(0, |w| w.len() as u64))
            .sum();
        out.bits += words * log.width as u64;
        out.packed_bits += words * log.width as u64;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_count_words_nodes_and_packed_lengths() {
        assert_eq!(bits_for(1), 0);
        assert_eq!(bits_for(4), 2);
        assert_eq!(bits_for(5), 3);
        assert_eq!(gamma_bits(1), 1);
        assert_eq!(gamma_bits(4), 5);
        let pap = [Token::Value(7), Token::Breakpoint(2), Token::Value(1)];
        // The seed's example: 3 + 2 + 3 bits, plus a method reference among 2 methods.
        assert_eq!(record_bits(Scheme::Pap, 3, 2, 4, &pap, false), 1 + 8);
        // AdapTracer word 0b0110_0000 (W = 8): its code is "011", 3 bits, length 4 gamma-coded in 5.
        let at = [Token::Value(0b0110_0000)];
        assert_eq!(packed_record_bits(Scheme::Adaptracer, 8, 1, 4, &at, None), 5 + 3);
        assert_eq!(packed_record_bits(Scheme::Adaptracer, 8, 1, 4, &[], None), 1);
    }
}
