//! The **context stream** (opt-in extension of AdapTracer's stream mode):
//! one arithmetic coder per thread carries *everything* of the thread —
//! for every finished invocation a flag "a repeat of the predicted
//! invocation" or else its method id, how it ended, then its branch choices
//! — under predictions from the thread's history ([`crate::repeat`],
//! [`crate::predictor`]). A stream ends with the method id `#methods`.
//!
//! # Repeats
//! Every invocation starts with one decision of [`crate::repeat`]: *is it
//! the invocation the thread's history predicts?* An invocation's key is
//! its method and its choice digits as the JVM probes pack them (each
//! choice's successor index in `⌈log2 k⌉` bits, least significant first);
//! it is *repeatable* when it ended normally and the digits fit in 64 bits.
//! The thread keeps a ring of its last `2^16` keys, a table of `2^16`
//! entries from a hash of the last three keys to the position (+1) of the
//! invocation that followed them, and a *match*: a predicted position and
//! its length. Key hash `h = (m + 1)·0xC2B2AE35 ^ lo(d)·0x9E3779B1 ^
//! hi(d)·0x85EBCA6B` (`^ 0x27D4EB2F` when unrepeatable, whose digits count
//! as 0); context `((h1 ^ rotl(h2, 13) ^ rotl(h3, 26))·0x9E3779B1) >> 16`
//! (`h1` the last key's hash, all 0 at the start; u32 arithmetic).
//!
//! With no match, the table entry of the context, if set and at most `2^16`
//! invocations old, starts one of length 0. If the predicted key is
//! repeatable, a flag (0 = "it is this one") is coded under the pair of
//! bucket `min(bits(len), 15)` (16 pairs starting at `(1, 1)`, flag update
//! rule); a hit is the whole invocation, and the match moves one on. A miss
//! ends the match and the invocation is coded by the events below. When the
//! predicted key is unrepeatable no flag is coded, the events code the
//! invocation, and the match moves on only if it was an unrepeatable
//! invocation of the same method. After every invocation (not the end
//! marker, which meets a predicted repeatable key as a miss) the table
//! entry of the context before it is set to its position, its key goes into
//! the ring and the hashes shift. The events' models see only the
//! invocations they code.
//!
//! # Coding one event
//! The predictor offers up to two candidate events for the slot (see
//! [`crate::predictor`]); for a method id two more follow, from the
//! thread's order-2 and order-1 *method* tables (one table of 2^16 entries
//! `(event + 1) << 2 | conf`, updated by [`table_update`](crate::predictor::table_update);
//! order 2 at `((p ^ p2·0x85EBCA6B) + 1)·0x9E3779B1 >> 16`, order 1 at
//! `p·0x9E3779B1 >> 16`, where `p`, `p2` are the last two method ids coded,
//! initially `2^32 − 1`), each only if it differs from the earlier ones,
//! with buckets `32 + 4·level + conf` (level 0 = order 2). For each candidate in turn a binary *flag*
//! (symbol 0 = "it is this one", 1 = "it is not") is coded under the flag
//! counters of (slot, bucket); the first hit ends the event (a candidate's
//! flag is skipped when the missed ones leave a single symbol of the slot:
//! a choice's `k`, or `#methods + 1` method ids). If every
//! candidate missed (or there was none), the event is coded by the slot's
//! fallback model with the missed candidates **excluded** (their counters
//! left out of `cum` and `total`; if one symbol remains, nothing is coded):
//!
//! - choice at block `v` of method `m`: the block's AdapTracer counters
//!   (shipped model, `inc`/`bound` from the parameters);
//! - method id: unless every method seen so far on the thread was missed,
//!   a flag "not seen before" (pair `new`, starting at `(1, 1)`, flag update
//!   rule; *seen* = its counter below is non-zero). A **new** id: the
//!   thread's first one uniformly, `(id, 1, #methods + 1)`; later ones by
//!   `d`, the distance to the nearest seen id (methods of a class are
//!   numbered together): `⌊log2 d⌋` under the counters `dist` (the first
//!   `bits(#methods + 1)` of 32, starting at 1, `inc` 4, AdapTracer update),
//!   the `⌊log2 d⌋` low bits of `d` as `(low, 1, 2^⌊log2 d⌋)`, then the id's
//!   index among the unseen ids at distance exactly `d` (ascending), `(i,
//!   1, count)` — the end marker `#methods` is an id like the others. A
//!   **seen** id: the *successor list* of the previous method `p` (8 slots
//!   at `(p·0x85EBCA6B >> 20)·8` of a table of `2^12 × 8`, entries `id + 1`,
//!   0 = empty, most recent first; after every method id `g` the list of the
//!   previous one moves `g` to its front, dropping the last entry if `g`
//!   was absent) minus the missed candidates: a flag "not on the list"
//!   (pair `list`, `(1, 1)`, flag rule) — skipped when the list is empty
//!   (not on it) or holds every remaining seen id (on it) — then either the
//!   position on the list under the counters `rank` (first `n` of 8, start
//!   1, `inc` 4, AdapTracer update) or the thread's method counters
//!   (`#methods + 1`, 0 = unseen, which never take part) with the missed
//!   candidates and the list excluded. These method counters update only
//!   after a fallback: `c[m] += inc` ([`METHOD_INC`]) after halving the
//!   non-zero ones (never below 1) when `c[m] + inc > 65535` or the total
//!   would pass `2^20`;
//! - end: a per-method pair `[normal, exception]` (flag update rule); after
//!   "exception", the Elias-gamma code of `len + 1` as fair binary choices
//!   (`(bit, 1, 2)`): `nb = ⌊log2(len + 1)⌋` ones, a zero, then the `nb` low
//!   bits of `len + 1`, most significant first.
//!
//! Then the models update — a choice block's counters and an end pair also
//! after a hit, the method counters only after a fallback — and the
//! predictor records the event (not the end marker).
//!
//! **Flags.** A flag pair `(f0, f1)` codes `(0, f0, f0 + f1)` or
//! `(f0, f1, f0 + f1)` and updates like AdapTracer's counters with `inc`
//! [`FLAG_INC`] and bound 65535. Methods (`BUCKETS + 8` pairs) and ends
//! ([`BUCKETS`](crate::predictor::BUCKETS) pairs) have one array per thread, starting at `(1, 1)`. A choice block has
//! its own pairs, starting at `(0, 0)` = unused: on first use a pair copies
//! the thread's *global* choice pair of the same bucket, halved
//! (`max(1, x >> 1)` both) until `f0 + f1 ≤ 64`. Global pairs start at
//! `(1, 1)` and update after every choice flag like the block's pair.
//!
//! Counters of methods never invoked are never touched; the layout
//! ([`ContextLayout`]) numbers every choice block's counters globally (method
//! after method, block after block) — that number is a choice's event.

use crate::adaptive::{AdaptiveModel, AdaptiveParams};
use crate::arith::{Decoder, Encoder, MAX_TOTAL};
use crate::cfg::BlockId;
use crate::context_model::{Cost, Io, ThreadModel};
use crate::error::{check_width, PathError, Result};
use crate::predictor::PAYLOAD_MAX;
use crate::program::{MethodId, Program};
use crate::repeat::InvocationKey;

/// `inc` of the flag pairs.
pub const FLAG_INC: u32 = 32;
/// `inc` of the method-id counters.
pub const METHOD_INC: u32 = 2;

/// Where every method's choice counters sit, and their starting values.
#[derive(Debug, Clone)]
pub struct ContextLayout {
    /// Per method: first global counter index.
    pub(crate) method_offset: Vec<u32>,
    /// Per method, per block: counter offset within the method (`-1`: no choice).
    pub(crate) bases: Vec<Vec<i32>>,
    /// Per method, per block: index of its flag pairs within the method (`-1`: no choice).
    pub(crate) flag_index: Vec<Vec<i32>>,
    /// Per method: starting counters.
    pub(crate) init: Vec<Vec<u32>>,
    pub(crate) params: AdaptiveParams,
}

impl ContextLayout {
    /// The layout of `program`, counters starting at `model`'s (successor order).
    pub fn new(program: &Program, model: &AdaptiveModel) -> Result<Self> {
        let mut l = ContextLayout {
            method_offset: Vec::new(),
            bases: Vec::new(),
            flag_index: Vec::new(),
            init: Vec::new(),
            params: model.params(),
        };
        let mut offset: u64 = 0;
        for m in program.method_ids() {
            let cfg = program.cfg(m);
            let (mut bases, mut flags, mut init) = (Vec::new(), Vec::new(), Vec::new());
            let mut nflags = 0;
            for v in cfg.blocks() {
                let c = model.counters(m, v);
                if c.len() < 2 {
                    bases.push(-1);
                    flags.push(-1);
                    continue;
                }
                bases.push(init.len() as i32);
                flags.push(nflags);
                nflags += 1;
                init.extend_from_slice(c);
            }
            l.method_offset.push(offset as u32);
            offset += init.len() as u64;
            if offset > u64::from(PAYLOAD_MAX) {
                return Err(PathError::Unsupported {
                    method: cfg.name().to_string(),
                    message: format!("context stream: more than {PAYLOAD_MAX} choice counters"),
                });
            }
            l.bases.push(bases);
            l.flag_index.push(flags);
            l.init.push(init);
        }
        if program.len() as u64 + 1 > MAX_TOTAL.min(u64::from(PAYLOAD_MAX)) {
            return Err(PathError::InvalidParameter(format!(
                "context stream: {} methods (at most {})",
                program.len(),
                MAX_TOTAL - 1
            )));
        }
        Ok(l)
    }

    /// Per method, per block: counter offset within the method, `-1` without a choice.
    pub fn bases(&self, m: MethodId) -> &[i32] {
        &self.bases[m.index()]
    }

    /// First global counter index of method `m`.
    pub fn method_offset(&self, m: MethodId) -> u32 {
        self.method_offset[m.index()]
    }
}

/// One finished invocation of a context stream.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamInvocation {
    /// The method.
    pub method: MethodId,
    /// Blocks from entry to exit (an invocation ended by an exception:
    /// completed to the exit as the probe coded it).
    pub path: Vec<BlockId>,
    /// `Some(len)`: ended by an exception after `len` blocks past the entry.
    pub aborted_after: Option<u32>,
    /// What its method id, end and choices cost: `Σ −log2 p`, bits.
    pub ideal_bits: f64,
}

/// What a finished context stream holds.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextTrace {
    /// The words (`W` bits each).
    pub words: Vec<u64>,
    /// Ideal code length `Σ −log2 p` of every coded decision, bits.
    pub ideal_bits: f64,
    /// Branch choices coded.
    pub choices: u64,
    /// `ideal_bits` split into method ids (and the end marker), ends and choices.
    pub ideal_parts: [f64; 3],
}

/// Codes one thread's invocations into one word list.
pub struct ContextEncoder<'p> {
    program: &'p Program,
    layout: &'p ContextLayout,
    model: ThreadModel,
    enc: Encoder,
    parts: [f64; 3],
    choices: u64,
}

impl<'p> ContextEncoder<'p> {
    /// A fresh stream for `width`-bit words.
    pub fn new(program: &'p Program, layout: &'p ContextLayout, width: u32) -> Result<Self> {
        check_width(width)?;
        Ok(ContextEncoder {
            program,
            layout,
            model: ThreadModel::new(layout),
            enc: Encoder::new(width),
            parts: [0.0; 3],
            choices: 0,
        })
    }

    /// Appends an invocation: its full path from entry to exit (completed
    /// when it ended by an exception after `aborted_after` blocks).
    pub fn append(&mut self, m: MethodId, path: &[BlockId], aborted_after: Option<u32>) -> Result<()> {
        let cfg = self.program.cfg(m);
        cfg.check_path(path)?;
        let key = InvocationKey::of_path(cfg, m.0, path, aborted_after.is_some());
        let mut part = Cost::new();
        let mut io = Io::Enc(&mut self.enc, &mut part);
        if self.model.repeat.code(&mut io, Some(&key)).is_some() {
            self.parts[0] += part.bits();
            self.choices += path.windows(2).filter(|w| cfg.successors(w[0]).len() > 1).count() as u64;
            return Ok(());
        }
        self.model.method(&mut io, m.0)?;
        self.parts[0] += part.bits();
        part = Cost::new();
        let mut io = Io::Enc(&mut self.enc, &mut part);
        self.model.end(&mut io, m.index(), aborted_after)?;
        self.parts[1] += part.bits();
        part = Cost::new();
        let mut io = Io::Enc(&mut self.enc, &mut part);
        for w in path.windows(2) {
            let succ = cfg.successors(w[0]);
            if succ.len() > 1 {
                let s = cfg.successor_index(w[0], w[1]).expect("checked path");
                self.model
                    .choice(&mut io, self.layout, m.index(), w[0].index(), s, succ.len());
                self.choices += 1;
            }
        }
        self.parts[2] += part.bits();
        self.model.repeat.record(&key);
        Ok(())
    }

    /// Ends a *block*: flushes the coder and starts a fresh one, keeping the
    /// model (no end marker). A log split into blocks this way lets a reader
    /// decode each block once it has it, with no look-ahead into the next;
    /// [`ContextBlockDecoder`] reads them back.
    pub fn finish_block(&mut self) -> Vec<u64> {
        let width = self.enc.width();
        std::mem::replace(&mut self.enc, Encoder::new(width)).finish()
    }

    /// Ideal code length so far, bits.
    pub fn ideal_bits(&self) -> f64 {
        self.parts.iter().sum()
    }

    /// Branch choices coded so far.
    pub fn choices(&self) -> u64 {
        self.choices
    }

    /// Ends the stream (codes the end marker) and flushes.
    pub fn finish(mut self) -> ContextTrace {
        let mut part = Cost::new();
        let mut io = Io::Enc(&mut self.enc, &mut part);
        let marker = InvocationKey {
            method: self.program.len() as u32,
            digits: 0,
            repeatable: false,
        };
        self.model.repeat.code(&mut io, Some(&marker));
        self.model
            .method(&mut io, self.program.len() as u32)
            .expect("the end marker is a valid id");
        self.parts[0] += part.bits();
        ContextTrace {
            words: self.enc.finish(),
            ideal_bits: self.parts.iter().sum(),
            choices: self.choices,
            ideal_parts: self.parts,
        }
    }
}

/// Decodes one thread's context stream written in blocks
/// ([`ContextEncoder::finish_block`]): each block is a complete word list
/// holding a known number of invocations; the model carries over.
pub struct ContextBlockDecoder<'p> {
    program: &'p Program,
    layout: &'p ContextLayout,
    model: ThreadModel,
    width: u32,
    max_steps: usize,
}

impl<'p> ContextBlockDecoder<'p> {
    /// A decoder for one thread's blocks of `width`-bit words.
    pub fn new(program: &'p Program, layout: &'p ContextLayout, width: u32) -> Result<Self> {
        check_width(width)?;
        Ok(ContextBlockDecoder {
            program,
            layout,
            model: ThreadModel::new(layout),
            width,
            max_steps: crate::adaptracer::DEFAULT_MAX_STEPS,
        })
    }

    /// Decodes the `count` invocations of one block, handing each to `f`
    /// (one invocation's buffer serves the whole block).
    pub fn decode_block(
        &mut self,
        words: &[u64],
        count: usize,
        mut f: impl FnMut(&StreamInvocation) -> Result<()>,
    ) -> Result<()> {
        let mut dec = Decoder::new(words, self.width);
        let mut inv = StreamInvocation {
            method: MethodId(0),
            path: Vec::new(),
            aborted_after: None,
            ideal_bits: 0.0,
        };
        for _ in 0..count {
            let more = next_invocation_into(
                self.program,
                self.layout,
                &mut self.model,
                &mut dec,
                self.max_steps,
                &mut inv,
            )?;
            if !more {
                return Err(PathError::InvalidTrace {
                    method: String::new(),
                    message: "end marker inside a block".into(),
                });
            }
            f(&inv)?;
        }
        Ok(())
    }
}

/// Decodes one invocation (`None` at the end marker).
fn next_invocation(
    program: &Program,
    layout: &ContextLayout,
    model: &mut ThreadModel,
    dec: &mut Decoder<'_>,
    max_steps: usize,
) -> Result<Option<StreamInvocation>> {
    let mut inv = StreamInvocation {
        method: MethodId(0),
        path: Vec::new(),
        aborted_after: None,
        ideal_bits: 0.0,
    };
    let more = next_invocation_into(program, layout, model, dec, max_steps, &mut inv)?;
    Ok(more.then_some(inv))
}

/// Decodes one invocation into `inv`, reusing its path's allocation;
/// false at the end marker.
fn next_invocation_into(
    program: &Program,
    layout: &ContextLayout,
    model: &mut ThreadModel,
    dec: &mut Decoder<'_>,
    max_steps: usize,
    inv: &mut StreamInvocation,
) -> Result<bool> {
    let mut bits = Cost::new();
    let mut io = Io::Dec(dec, &mut bits);
    if let Some(key) = model.repeat.code(&mut io, None) {
        let method = MethodId(key.method);
        key.path_into(program.cfg(method), &mut inv.path, max_steps)?;
        inv.method = method;
        inv.aborted_after = None;
        inv.ideal_bits = bits.bits();
        return Ok(true);
    }
    let m = model.method(&mut io, 0)?;
    if m as usize >= program.len() {
        return Ok(false);
    }
    let method = MethodId(m);
    let aborted_after = model.end(&mut io, m as usize, None)?;
    let cfg = program.cfg(method);
    let mut v = cfg.entry();
    let path = &mut inv.path;
    path.clear();
    path.push(v);
    while v != cfg.exit() {
        let succ = cfg.successors(v);
        v = match succ.len() {
            0 => {
                return Err(PathError::InvalidTrace {
                    method: cfg.name().to_string(),
                    message: format!("block {:?} has no way to the exit", cfg.block_name(v)),
                })
            }
            1 => succ[0],
            k => succ[model.choice(&mut io, layout, m as usize, v.index(), 0, k)],
        };
        path.push(v);
        if path.len() > max_steps {
            return Err(PathError::InvalidTrace {
                method: cfg.name().to_string(),
                message: format!("decoding exceeded {max_steps} block visits"),
            });
        }
    }
    inv.method = method;
    inv.aborted_after = aborted_after;
    inv.ideal_bits = bits.bits();
    model
        .repeat
        .record(&InvocationKey::of_path(cfg, m, path, aborted_after.is_some()));
    Ok(true)
}

/// Decodes one thread's word list back into its invocations.
pub struct ContextDecoder<'p, 'w> {
    program: &'p Program,
    layout: &'p ContextLayout,
    model: ThreadModel,
    dec: Decoder<'w>,
    max_steps: usize,
    done: bool,
}

impl<'p, 'w> ContextDecoder<'p, 'w> {
    /// Starts decoding `words` of `width` bits.
    pub fn new(program: &'p Program, layout: &'p ContextLayout, words: &'w [u64], width: u32) -> Result<Self> {
        check_width(width)?;
        Ok(ContextDecoder {
            program,
            layout,
            model: ThreadModel::new(layout),
            dec: Decoder::new(words, width),
            max_steps: crate::adaptracer::DEFAULT_MAX_STEPS,
            done: false,
        })
    }

    /// Changes the decoding guard (maximum blocks per invocation).
    pub fn with_max_steps(mut self, max_steps: usize) -> Self {
        self.max_steps = max_steps;
        self
    }

    /// The next invocation, or `None` at the end marker.
    pub fn next_invocation(&mut self) -> Result<Option<StreamInvocation>> {
        if self.done {
            return Ok(None);
        }
        let inv = next_invocation(
            self.program,
            self.layout,
            &mut self.model,
            &mut self.dec,
            self.max_steps,
        )?;
        self.done = inv.is_none();
        Ok(inv)
    }

    /// Every remaining invocation up to the end marker.
    pub fn decode_all(mut self) -> Result<Vec<StreamInvocation>> {
        let mut out = Vec::new();
        while let Some(inv) = self.next_invocation()? {
            out.push(inv);
        }
        Ok(out)
    }
}
