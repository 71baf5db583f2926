//! Decoding a trace log as a stream: `tracekit paths decode-log`, `report`,
//! `compare` and the model update all read the log chunk by chunk and see
//! each invocation once, so memory is the program (CFGs, numberings,
//! per-thread adaptive models) plus one block per thread, never the run.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use serde::Serialize;
use tracekit_paths::{
    AdapTracer, AdaptiveModel, BlockId, Blpp, ChoiceEncoder, ContextBlockDecoder, ContextEncoder, ContextLayout,
    MethodId, Pap, PapItem,
};

use crate::cfg::MethodCfg;
use crate::log::{BitReader, Block, Chunk, LogReader, Mode, SidecarReader};
use crate::program::StoredProgram;
use crate::schemes::{CoreProgram, Replay};
use crate::tables::Scheme;

/// One decoded invocation, as `decode-log --json` prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Invocation {
    /// `class.name(descriptor)`.
    pub method: String,
    /// Thread name.
    pub thread: String,
    /// Executed basic blocks (bytecode order ids, without the virtual ENTRY/EXIT).
    pub path: Vec<u32>,
    /// True when the invocation ended by an exception.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub aborted: bool,
    /// Method id (index into the program).
    #[serde(skip)]
    pub method_id: usize,
    /// Bits this invocation's record costs in the trace.
    #[serde(skip)]
    pub bits: u64,
    /// Index of the thread in the log.
    #[serde(skip)]
    pub thread_index: usize,
}

/// One invocation as the stream decoder hands it over (borrowed).
#[derive(Debug, Clone, Copy)]
pub struct Decoding<'a> {
    /// Thread index.
    pub thread: usize,
    /// Thread name.
    pub thread_name: &'a str,
    /// Method id.
    pub method: usize,
    /// Nodes from ENTRY to EXIT as coded (an aborted invocation completed to EXIT).
    pub nodes: &'a [u32],
    /// `Some(n)`: ended by an exception after `n` nodes past ENTRY.
    pub aborted_after: Option<usize>,
    /// Bits of its record (stream mode: its head; context stream: its ideal code length).
    pub bits: u64,
}

impl Decoding<'_> {
    /// The nodes it really reached after ENTRY (EXIT included when it returned).
    pub fn reached(&self) -> &[u32] {
        match self.aborted_after {
            Some(n) => &self.nodes[1..=n],
            None => &self.nodes[1..],
        }
    }

    /// The blocks it ran (bytecode order ids), as in [`Invocation::path`].
    pub fn blocks(&self) -> impl Iterator<Item = u32> + '_ {
        let exit = *self.nodes.last().unwrap_or(&0);
        self.reached().iter().filter(move |&&v| v != exit).map(|&v| v - 1)
    }

    /// The owned form.
    pub fn to_invocation(&self, stored: &StoredProgram) -> Invocation {
        Invocation {
            method: stored.program.methods[self.method].display_name(),
            thread: self.thread_name.to_string(),
            path: self.blocks().collect(),
            aborted: self.aborted_after.is_some(),
            method_id: self.method,
            bits: self.bits,
            thread_index: self.thread,
        }
    }
}

/// What a whole log holds, besides its invocations.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    /// Trace size in bits: every record's bits plus `width` per word.
    pub bits: u64,
    /// Part of `bits` spent on record heads (method references, abort marks).
    pub method_ref_bits: u64,
    /// Invocations decoded.
    pub invocations: u64,
    /// Invocations checked against the verification sidecar.
    pub verified: u64,
    /// Thread names, by index.
    pub threads: Vec<String>,
    /// False when the log was cut short (no end mark).
    pub complete: bool,
    /// Bytes of the log file.
    pub log_bytes: u64,
    /// With [`Options::replay`] on an AdapTracer log: the core encoder's re-encoding.
    #[serde(skip)]
    pub replay: Option<Replay>,
}

/// Decoding options.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Re-encode every AdapTracer invocation with the core encoder and
    /// compare its words with the log's (bit-exactness on a real run).
    pub replay: bool,
}

/// Bits needed to name one of `n` things.
pub fn bits_for(n: usize) -> u32 {
    if n <= 1 {
        0
    } else {
        usize::BITS - (n - 1).leading_zeros()
    }
}

/// The sidecar of a log, `LOG.verify`.
pub fn sidecar_path(log: &Path) -> PathBuf {
    let mut s = log.as_os_str().to_owned();
    s.push(".verify");
    PathBuf::from(s)
}

/// Decodes the log at `path` (with its sidecar when there is one), handing
/// every invocation to `sink` in log order.
pub fn decode_file(
    stored: &StoredProgram,
    core: &CoreProgram,
    path: &Path,
    options: Options,
    sink: impl FnMut(&Decoding) -> Result<()>,
) -> Result<Summary> {
    let file = tracekit_safeio::open_regular(path)?;
    let bytes = file.metadata().map(|m| m.len()).unwrap_or(0);
    let log = LogReader::new(BufReader::with_capacity(1 << 16, file)).with_context(|| path.display().to_string())?;
    let side = sidecar_path(path);
    let sidecar = if side.is_file() {
        let f = tracekit_safeio::open_regular(&side)?;
        Some(SidecarReader::new(BufReader::new(f)).with_context(|| side.display().to_string())?)
    } else {
        None
    };
    let mut summary =
        decode_stream(stored, core, log, sidecar, options, sink).with_context(|| path.display().to_string())?;
    summary.log_bytes = bytes;
    Ok(summary)
}

/// Decodes every invocation of the log at `path` into memory (small logs: tests, examples).
pub fn decode_log(stored: &StoredProgram, core: &CoreProgram, path: &Path) -> Result<(Summary, Vec<Invocation>)> {
    let mut invs = Vec::new();
    let summary = decode_file(stored, core, path, Options::default(), |d| {
        invs.push(d.to_invocation(stored));
        Ok(())
    })?;
    Ok((summary, invs))
}

/// Per-thread decoding state.
struct ThreadDec<'a> {
    model: Option<AdaptiveModel>,
    context: Option<ContextBlockDecoder<'a>>,
    replay_model: Option<AdaptiveModel>,
    replay_context: Option<ContextEncoder<'a>>,
}

/// Decodes a log stream (and its sidecar) against the jar's program.
pub fn decode_stream<R: Read, S: Read>(
    stored: &StoredProgram,
    core: &CoreProgram,
    mut log: LogReader<R>,
    mut sidecar: Option<SidecarReader<S>>,
    options: Options,
    mut sink: impl FnMut(&Decoding) -> Result<()>,
) -> Result<Summary> {
    let h = log.header().clone();
    let config = &stored.config;
    let want_mode = if config.is_context() {
        Mode::Context
    } else if config.stream && config.scheme == Scheme::Adaptracer {
        Mode::Stream
    } else {
        Mode::Records
    };
    if h.scheme != config.scheme || h.width != config.width || h.mode != want_mode {
        bail!(
            "the log was written with scheme={} width={} ({:?}), but the jar was instrumented with scheme={} width={} ({want_mode:?})",
            h.scheme.name(),
            h.width,
            h.mode,
            config.scheme.name(),
            config.width
        );
    }
    if h.methods != stored.program.methods.len() || (stored.fingerprint != 0 && h.fingerprint != stored.fingerprint) {
        bail!("the log was written by another instrumented jar (its tables differ from this jar's)");
    }
    if let Some(s) = &sidecar {
        if s.run != h.run {
            bail!("the verification sidecar belongs to another run than the log (a stale LOG.verify?)");
        }
    }
    let layout = match h.mode {
        Mode::Context => Some(ContextLayout::new(core.program(), core.initial_model()).map_err(|e| anyhow!("{e}"))?),
        _ => None,
    };
    let mut dec = BlockDecoder::new(stored, core, layout.as_ref(), options)?;
    let mut summary = Summary::default();
    let mut threads: Vec<ThreadDec> = Vec::new();
    loop {
        let at = log.offset();
        let Some(chunk) = log.next_chunk()? else { break };
        match chunk {
            Chunk::Thread { index, name, .. } => {
                if index != threads.len() {
                    bail!("byte {at}: thread {index} out of order");
                }
                summary.threads.push(name);
                threads.push(ThreadDec {
                    model: None,
                    context: None,
                    replay_model: None,
                    replay_context: None,
                });
            }
            Chunk::Block(b) => {
                let t = threads
                    .get_mut(b.thread)
                    .with_context(|| format!("byte {at}: block of unknown thread {}", b.thread))?;
                let verify = match &mut sidecar {
                    Some(s) => {
                        let (thread, recs) = s
                            .next_block()?
                            .with_context(|| format!("byte {at}: the sidecar ends before the log"))?;
                        if thread != b.thread || recs.len() != b.count {
                            bail!("byte {at}: the sidecar's block does not match the log's");
                        }
                        Some(recs)
                    }
                    None => None,
                };
                dec.block(t, &b, &mut summary, verify.as_deref(), &mut sink)
                    .with_context(|| format!("block at byte {at} (thread {})", b.thread))?;
            }
        }
    }
    summary.complete = log.complete;
    if options.replay && config.scheme == Scheme::Adaptracer {
        summary.replay = Some(dec.replay);
    }
    Ok(summary)
}

/// Decodes blocks; one per log.
struct BlockDecoder<'a> {
    stored: &'a StoredProgram,
    core: &'a CoreProgram,
    layout: Option<&'a ContextLayout>,
    options: Options,
    at: AdapTracer<'a>,
    blpp: Vec<Option<Blpp<'a>>>,
    pap: Vec<Option<Pap<'a>>>,
    head_bits: u32,
    nodes: Vec<u32>,
    /// A decoder's path, reused from record to record (as is `words`).
    path: Vec<BlockId>,
    /// An AdapTracer record's words.
    words: Vec<u64>,
    /// A PAP record's values and breakpoints.
    items: Vec<PapItem>,
    replay: Replay,
    /// Per method: whether its core CFG (which the context stream's decoder
    /// walks) was found to have the stored CFG's blocks, ends and edges.
    /// A path walked along an agreeing CFG needs no [`check_path`].
    same_cfg: Vec<Option<bool>>,
}

/// Whether `core` has exactly `stored`'s blocks, entry, exit and edges, so
/// that a path walked along `core`'s edges is a path of `stored`.
fn cfgs_agree(core: &tracekit_paths::Cfg, stored: &MethodCfg) -> bool {
    let n = stored.node_count();
    if core.block_count() != n || core.entry().index() != 0 || core.exit().index() != stored.exit() as usize {
        return false;
    }
    (0..n).all(|v| {
        let (mut a, mut b): (Vec<u32>, Vec<u32>) = (
            core.successors(BlockId(v as u32)).iter().map(|w| w.0).collect(),
            stored.succs[v].clone(),
        );
        a.sort_unstable();
        b.sort_unstable();
        a == b
    })
}

impl<'a> BlockDecoder<'a> {
    fn new(
        stored: &'a StoredProgram,
        core: &'a CoreProgram,
        layout: Option<&'a ContextLayout>,
        options: Options,
    ) -> Result<Self> {
        let n = stored.program.methods.len();
        Ok(BlockDecoder {
            stored,
            core,
            layout,
            options,
            at: AdapTracer::new(core.program(), stored.config.width.max(3)).map_err(|e| anyhow!("{e}"))?,
            blpp: (0..n).map(|_| None).collect(),
            pap: (0..n).map(|_| None).collect(),
            head_bits: bits_for(n + 1),
            nodes: Vec::new(),
            path: Vec::new(),
            words: Vec::new(),
            items: Vec::new(),
            replay: Replay {
                ideal_bits: 0.0,
                choices: 0,
                words_equal: true,
            },
            same_cfg: vec![None; n],
        })
    }

    fn block(
        &mut self,
        t: &mut ThreadDec<'a>,
        b: &Block,
        summary: &mut Summary,
        verify: Option<&[Vec<u32>]>,
        sink: &mut impl FnMut(&Decoding) -> Result<()>,
    ) -> Result<()> {
        let width = self.stored.config.width;
        summary.bits += b.record_bits + b.words.len() as u64 * u64::from(width);
        if let Some(layout) = self.layout {
            return self.context_block(t, layout, b, summary, verify, sink);
        }
        let stream = self.stored.config.stream && self.stored.config.scheme == Scheme::Adaptracer;
        let mut r = BitReader::new(&b.records, b.record_bits);
        let mut words = match stream {
            true => Some(self.at.stream(&b.words).map_err(|e| anyhow!("{e}"))?),
            false => None,
        };
        let mut replay_enc = (stream && self.options.replay).then(|| ChoiceEncoder::new(width));
        let thread_name = summary.threads.get(b.thread).cloned().unwrap_or_default();
        for k in 0..b.count {
            let start = r.position();
            let (m, cur) = self.head(&mut r).with_context(|| format!("record {}", k + 1))?;
            summary.method_ref_bits += r.position() - start;
            let mcfg = &self.stored.program.methods[m].cfg;
            let mut record_words = std::mem::take(&mut self.words);
            match (self.stored.config.scheme, &mut words) {
                (Scheme::Adaptracer, Some(stream)) => {
                    let model = t.model.get_or_insert_with(|| self.core.initial_model().clone());
                    self.at
                        .decode_next_into(stream, model, MethodId(m as u32), &mut self.path)
                        .map_err(|e| anyhow!("record {}: {e}", k + 1))?;
                    self.nodes_from_path();
                }
                _ => self
                    .record(t, m, mcfg, &mut r, &mut record_words)
                    .with_context(|| format!("record {} ({})", k + 1, self.stored.program.methods[m].display_name()))?,
            }
            check_path(mcfg, &self.nodes).with_context(|| {
                format!(
                    "record {}: decoded path of {} is not a CFG path",
                    k + 1,
                    self.stored.program.methods[m].display_name()
                )
            })?;
            let aborted_after = match cur {
                Some(c) => Some(
                    self.nodes
                        .iter()
                        .rposition(|&v| v == c)
                        .filter(|&i| i > 0)
                        .with_context(|| {
                            format!("record {}: the path never reaches block {c} where it ended", k + 1)
                        })?,
                ),
                None => None,
            };
            if self.options.replay && self.stored.config.scheme == Scheme::Adaptracer {
                self.replay_record(t, m, replay_enc.as_mut(), &record_words)?;
            }
            self.words = record_words;
            let d = Decoding {
                thread: b.thread,
                thread_name: &thread_name,
                method: m,
                nodes: &self.nodes,
                aborted_after,
                bits: r.position() - start,
            };
            finish(&d, verify.map(|v| &v[k][..]), summary, k, sink)?;
        }
        if let Some(enc) = replay_enc {
            let trace = enc.finish();
            self.replay.ideal_bits += trace.ideal_bits;
            self.replay.choices += trace.choices;
            self.replay.words_equal &= trace.words == b.words;
        }
        Ok(())
    }

    /// A record's head: method id, and for an aborted invocation the block it ended in.
    fn head(&self, r: &mut BitReader) -> Result<(usize, Option<u32>)> {
        let methods = self.stored.program.methods.len();
        let h = r.get(self.head_bits).context("cut short in its head")? as usize;
        if h < methods {
            return Ok((h, None));
        }
        if h > methods {
            bail!("head {h} is neither a method id nor the abort mark");
        }
        let m = r.get(self.head_bits).context("cut short in its head")? as usize;
        if m >= methods {
            bail!("method id {m} out of range");
        }
        let nodes = self.stored.program.methods[m].cfg.node_count();
        let c = r.get(bits_for(nodes)).context("cut short in its head")? as u32;
        if c == 0 || c as usize >= nodes - 1 {
            bail!("abort block {c} is not a block of the method");
        }
        Ok((m, Some(c)))
    }

    /// `self.nodes` from the path a decoder left in `self.path`.
    fn nodes_from_path(&mut self) {
        self.nodes.clear();
        self.nodes.extend(self.path.iter().map(|b| b.0));
    }

    /// Decodes one record's body (records mode) into `self.nodes`.
    fn record(
        &mut self,
        t: &mut ThreadDec<'a>,
        m: usize,
        cfg: &MethodCfg,
        r: &mut BitReader,
        words_out: &mut Vec<u64>,
    ) -> Result<()> {
        let width = self.stored.config.width;
        let cut = || anyhow!("cut short");
        let mid = MethodId(m as u32);
        match self.stored.config.scheme {
            Scheme::Raw => {
                let nb = bits_for(cfg.node_count());
                self.nodes.clear();
                self.nodes.push(0);
                loop {
                    let v = r.get(nb).ok_or_else(cut)? as u32;
                    self.nodes.push(v);
                    if v == cfg.exit() {
                        break;
                    }
                    if self.nodes.len() > tracekit_paths::DEFAULT_MAX_STEPS {
                        bail!("a raw path longer than {} blocks", tracekit_paths::DEFAULT_MAX_STEPS);
                    }
                }
            }
            Scheme::Blpp => {
                if self.blpp[m].is_none() {
                    self.blpp[m] = Some(Blpp::new(self.core.program().cfg(mid), width).map_err(|e| anyhow!("{e}"))?);
                }
                let blpp = self.blpp[m].as_ref().expect("made above");
                blpp.decode_into(|| Ok(r.get(width)), &mut self.path)
                    .map_err(|e| anyhow!("{e}"))?;
                self.nodes.clear();
                self.nodes.extend(self.path.iter().map(|b| b.0));
            }
            Scheme::Pap => {
                if self.pap[m].is_none() {
                    self.pap[m] = Some(Pap::new(self.core.program().cfg(mid), width).map_err(|e| anyhow!("{e}"))?);
                }
                let breaks = r.gamma().ok_or_else(cut)? - 1;
                if breaks > r.remaining() {
                    bail!("{breaks} breakpoints in {} bits", r.remaining());
                }
                let nb = bits_for(cfg.node_count());
                let items = &mut self.items;
                items.clear();
                for _ in 0..breaks {
                    items.push(PapItem::Value(r.get(width).ok_or_else(cut)?));
                    items.push(PapItem::Node(BlockId(r.get(nb).ok_or_else(cut)? as u32)));
                }
                items.push(PapItem::Value(r.get(width).ok_or_else(cut)?));
                self.pap[m]
                    .as_ref()
                    .expect("made above")
                    .decode_into(items, &mut self.path)
                    .map_err(|e| anyhow!("{e}"))?;
                self.nodes_from_path();
            }
            Scheme::Adaptracer => {
                let n = r.gamma().ok_or_else(cut)? - 1;
                if n > r.remaining() {
                    bail!("{n} words in {} bits", r.remaining());
                }
                words_out.clear();
                for _ in 0..n {
                    words_out.push(r.get(width).ok_or_else(cut)?);
                }
                let model = t.model.get_or_insert_with(|| self.core.initial_model().clone());
                self.at
                    .decode_into(model, mid, words_out, &mut self.path)
                    .map_err(|e| anyhow!("{e}"))?;
                self.nodes_from_path();
            }
        }
        Ok(())
    }

    /// Re-encodes the invocation in `self.nodes` with the core encoder.
    fn replay_record(
        &mut self,
        t: &mut ThreadDec<'a>,
        m: usize,
        stream: Option<&mut ChoiceEncoder>,
        words: &[u64],
    ) -> Result<()> {
        let model = t.replay_model.get_or_insert_with(|| self.core.initial_model().clone());
        self.path.clear();
        self.path.extend(self.nodes.iter().map(|&v| BlockId(v)));
        let mid = MethodId(m as u32);
        match stream {
            Some(enc) => enc
                .append_path(model, self.core.program(), mid, &self.path)
                .map_err(|e| anyhow!("{e}"))?,
            None => {
                let trace = self.at.encode(model, mid, &self.path).map_err(|e| anyhow!("{e}"))?;
                self.replay.ideal_bits += trace.ideal_bits;
                self.replay.choices += trace.choices;
                self.replay.words_equal &= trace.words == words;
            }
        }
        Ok(())
    }

    fn context_block(
        &mut self,
        t: &mut ThreadDec<'a>,
        layout: &'a ContextLayout,
        b: &Block,
        summary: &mut Summary,
        verify: Option<&[Vec<u32>]>,
        sink: &mut impl FnMut(&Decoding) -> Result<()>,
    ) -> Result<()> {
        let program = self.core.program();
        let width = self.stored.config.width;
        if t.context.is_none() {
            t.context = Some(ContextBlockDecoder::new(program, layout, width).map_err(|e| anyhow!("{e}"))?);
            if self.options.replay {
                t.replay_context = Some(ContextEncoder::new(program, layout, width).map_err(|e| anyhow!("{e}"))?);
            }
        }
        let methods = &self.stored.program.methods;
        let mut k = 0;
        let mut replay = t.replay_context.take();
        let before = replay.as_ref().map(|e| (e.ideal_bits(), e.choices()));
        let nodes = &mut self.nodes;
        let same_cfg = &mut self.same_cfg;
        let thread_name = summary.threads.get(b.thread).cloned().unwrap_or_default();
        t.context
            .as_mut()
            .expect("made above")
            .decode_block(&b.words, b.count, |inv| {
                nodes.clear();
                nodes.extend(inv.path.iter().map(|v| v.0));
                let m = inv.method.index();
                let agree = *same_cfg[m].get_or_insert_with(|| cfgs_agree(program.cfg(inv.method), &methods[m].cfg));
                if !agree {
                    check_path(&methods[m].cfg, nodes)
                        .map_err(|e| tracekit_paths::PathError::InvalidParameter(format!("{e:#}")))?;
                }
                if let Some(enc) = &mut replay {
                    enc.append(inv.method, &inv.path, inv.aborted_after)?;
                }
                let d = Decoding {
                    thread: b.thread,
                    thread_name: &thread_name,
                    method: m,
                    nodes,
                    aborted_after: inv.aborted_after.map(|n| n as usize),
                    bits: inv.ideal_bits.round() as u64,
                };
                finish(&d, verify.map(|v| &v[k][..]), summary, k, sink)
                    .map_err(|e| tracekit_paths::PathError::InvalidParameter(format!("{e:#}")))?;
                k += 1;
                Ok(())
            })
            .map_err(|e| anyhow!("{e}"))?;
        if let (Some(mut enc), Some(before)) = (replay, before) {
            let words = enc.finish_block();
            self.replay.ideal_bits += enc.ideal_bits() - before.0;
            self.replay.choices += enc.choices() - before.1;
            self.replay.words_equal &= words == b.words;
            t.replay_context = Some(enc);
        }
        Ok(())
    }
}

/// Checks an invocation against its sidecar record, counts it, hands it on.
fn finish(
    d: &Decoding,
    verify: Option<&[u32]>,
    summary: &mut Summary,
    k: usize,
    sink: &mut impl FnMut(&Decoding) -> Result<()>,
) -> Result<()> {
    if let Some(v) = verify {
        let exit = *d.nodes.last().unwrap_or(&0);
        let reached: Vec<u32> = d.reached().iter().copied().filter(|&x| x != exit).collect();
        if reached != v {
            bail!(
                "invocation {}: decoded path differs from the blocks recorded in the same run",
                k + 1
            );
        }
        summary.verified += 1;
    }
    summary.invocations += 1;
    sink(d)
}

/// Checks that `path` runs from ENTRY to EXIT along edges of `cfg`.
pub fn check_path(cfg: &MethodCfg, path: &[u32]) -> Result<()> {
    if path.first() != Some(&0) || path.last() != Some(&cfg.exit()) {
        bail!("does not run from ENTRY to EXIT");
    }
    for w in path.windows(2) {
        match cfg.succs.get(w[0] as usize) {
            Some(s) if s.contains(&w[1]) => {}
            _ => bail!("no edge {} -> {}", cfg.node_name(w[0]), cfg.node_name(w[1])),
        }
    }
    Ok(())
}

/// Opens a log for [`decode_stream`] (refusing anything but a regular file).
pub fn open_log(path: &Path) -> Result<LogReader<BufReader<File>>> {
    let file = tracekit_safeio::open_regular(path)?;
    LogReader::new(BufReader::with_capacity(1 << 16, file)).with_context(|| path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_core_cfg_made_from_the_stored_one_agrees_and_a_changed_one_does_not() {
        let block = |offset| crate::cfg::Block {
            first_insn: offset / 2,
            offset,
            lines: (0, 0),
        };
        // entry -> b0 -> {b1, exit}; b1 -> b0
        let stored = MethodCfg {
            blocks: vec![block(0), block(4)],
            insn_count: 6,
            succs: vec![vec![1], vec![2, 3], vec![1], vec![]],
        };
        let core = crate::schemes::core_cfg("m", &stored).unwrap();
        assert!(cfgs_agree(&core, &stored));
        let mut other = stored.clone();
        other.succs[2] = vec![3];
        assert!(!cfgs_agree(&core, &other));
        let mut bigger = stored.clone();
        bigger.blocks.push(block(8));
        bigger.succs.insert(3, vec![4]);
        assert!(!cfgs_agree(&core, &bigger));
    }

    #[test]
    fn bits_for_counts() {
        assert_eq!(bits_for(1), 0);
        assert_eq!(bits_for(4), 2);
        assert_eq!(bits_for(5), 3);
    }
}
