//! The **context stream** (opt-in extension of AdapTracer's stream mode):
//! one arithmetic coder per thread carries *everything* of the thread —
//! for every finished invocation its method id, how it ended, then its
//! branch choices — under predictions from the thread's whole event history
//! ([`crate::predictor`]). A stream ends with the method id `#methods`.
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
//!   rule); a new id is coded uniformly, `(rank, 1, unseen)`, by its rank
//!   among the ids not seen yet (`#methods` — the end marker — included;
//!   nothing when one is left); a seen one by the thread's method counters
//!   (`#methods + 1`, starting at 0 = unseen, which never take part). These
//!   counters update only after such a fallback: `c[m] += inc`
//!   ([`METHOD_INC`]) after halving the non-zero ones (never below 1) when
//!   `c[m] + inc > 65535` or the total would pass `2^20`;
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
//! ([`BUCKETS`] pairs) have one array per thread, starting at `(1, 1)`. A choice block has
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
use crate::error::{check_width, PathError, Result};
use crate::predictor::{table_update, Predictor, Slot, BUCKETS, END_CODE_MAX, PAYLOAD_MAX};
use crate::program::{MethodId, Program};

/// `inc` of the flag pairs.
pub const FLAG_INC: u32 = 32;
/// `inc` of the method-id counters.
pub const METHOD_INC: u32 = 2;
const FLAG_BOUND: u32 = 65535;
const FLAG_INIT_MAX: u32 = 64;

/// Where every method's choice counters sit, and their starting values.
#[derive(Debug, Clone)]
pub struct ContextLayout {
    /// Per method: first global counter index.
    method_offset: Vec<u32>,
    /// Per method, per block: counter offset within the method (`-1`: no choice).
    bases: Vec<Vec<i32>>,
    /// Per method, per block: index of its flag pairs within the method (`-1`: no choice).
    flag_index: Vec<Vec<i32>>,
    /// Per method: starting counters.
    init: Vec<Vec<u32>>,
    params: AdaptiveParams,
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

/// Encodes or decodes: the one code path both directions share.
enum Io<'a, 'w> {
    Enc(&'a mut Encoder, &'a mut f64),
    Dec(&'a mut Decoder<'w>),
}

impl Io<'_, '_> {
    /// Codes one of `counts` (leaving out `excluded` symbols): encodes
    /// `sym`, or decodes and returns it.
    fn pick(&mut self, counts: &[u32], excluded: &[usize], sym: usize) -> usize {
        let live = |i: usize| counts[i] > 0 && !excluded.contains(&i);
        let total: u64 = (0..counts.len())
            .filter(|&i| live(i))
            .map(|i| u64::from(counts[i]))
            .sum();
        if (0..counts.len()).filter(|&i| live(i)).count() == 1 {
            return (0..counts.len()).find(|&i| live(i)).expect("one symbol left");
        }
        match self {
            Io::Enc(enc, ideal) => {
                let cum: u64 = (0..sym).filter(|&i| live(i)).map(|i| u64::from(counts[i])).sum();
                let freq = u64::from(counts[sym]);
                enc.encode(cum, freq, total);
                **ideal += (total as f64 / freq as f64).log2();
                sym
            }
            Io::Dec(dec) => {
                let target = dec.target(total);
                let mut cum = 0u64;
                for (i, &c) in counts.iter().enumerate() {
                    if !live(i) {
                        continue;
                    }
                    if target < cum + u64::from(c) {
                        dec.consume(cum, u64::from(c), total);
                        return i;
                    }
                    cum += u64::from(c);
                }
                unreachable!("the target is below the total")
            }
        }
    }

    /// Codes `value` uniformly among `n` (`n ≥ 1`; nothing when `n == 1`).
    fn uniform(&mut self, n: u64, value: u64) -> u64 {
        if n <= 1 {
            return 0;
        }
        match self {
            Io::Enc(enc, ideal) => {
                enc.encode(value, 1, n);
                **ideal += (n as f64).log2();
                value
            }
            Io::Dec(dec) => {
                let v = dec.target(n);
                dec.consume(v, 1, n);
                v
            }
        }
    }

    fn bit(&mut self, counts: [u32; 2], bit: bool) -> bool {
        self.pick(&counts, &[], usize::from(bit)) == 1
    }
}

/// AdapTracer's counter update: shrink (halve, never below 1) when `c[s]`
/// would pass `bound` or the total `MAX_TOTAL`, then `c[s] += inc`.
fn update(c: &mut [u32], s: usize, inc: u32, bound: u32) {
    let total: u64 = c.iter().map(|&x| u64::from(x)).sum();
    if c[s] + inc > bound || total + u64::from(inc) > MAX_TOTAL {
        for x in c.iter_mut() {
            *x = (*x >> 1).max(1);
        }
    }
    c[s] += inc;
}

/// One thread's whole model: predictor, flags, fallback counters.
#[derive(Debug, Clone)]
struct ThreadModel {
    predictor: Predictor,
    counts: Vec<Option<Vec<u32>>>,
    flags: Vec<Option<Vec<u32>>>,
    global_flags: Vec<u32>,
    method_flags: Vec<u32>,
    end_flags: Vec<u32>,
    method_counts: Vec<u32>,
    /// Order-1 method table: after method `p`, entry `(event) << 2 | conf`
    /// at `method_key(p)` (0 = empty), updated like the order-K table.
    method_table: Vec<u32>,
    prev_method: u32,
    prev_method2: u32,
    /// Method ids coded so far at least once (their counts are non-zero).
    seen: usize,
    new_flag: [u32; 2],
    end_counts: Vec<u32>,
}

impl ThreadModel {
    fn new(layout: &ContextLayout) -> Self {
        let methods = layout.bases.len();
        ThreadModel {
            predictor: Predictor::new(),
            counts: vec![None; methods],
            flags: vec![None; methods],
            global_flags: vec![1; 2 * BUCKETS],
            method_flags: vec![1; 2 * (BUCKETS + 8)],
            method_table: vec![0; 1 << 16],
            prev_method: u32::MAX,
            prev_method2: u32::MAX,
            end_flags: vec![1; 2 * BUCKETS],
            method_counts: vec![0; methods + 1],
            seen: 0,
            new_flag: [1, 1],
            end_counts: vec![1; 2 * methods],
        }
    }

    /// Codes the flags of `slot`'s candidates; `Some(event)` on a hit,
    /// otherwise the missed candidates. `which` selects the pair array;
    /// `symbols` is the slot's alphabet size: a flag is coded only while
    /// more than one symbol is left.
    fn flags(
        &mut self,
        io: &mut Io,
        slot: Slot,
        which: FlagSet,
        symbols: usize,
        actual: u32,
        missed: &mut Vec<u32>,
    ) -> Option<u32> {
        let mut c = self.predictor.candidates(slot);
        if let FlagSet::Method = which {
            for (level, key) in [
                (0, method_key2(self.prev_method, self.prev_method2)),
                (1, method_key(self.prev_method)),
            ] {
                let e = self.method_table[key];
                let ev = (e >> 2).wrapping_sub(1);
                if e != 0 && !c.events[..c.len].contains(&ev) {
                    c.push(ev, BUCKETS as u32 + 4 * level + (e & 3));
                }
            }
        }
        for i in 0..c.len {
            if symbols - missed.len() <= 1 {
                break;
            }
            let (ev, b) = (c.events[i], c.buckets[i] as usize);
            let pair = match which {
                FlagSet::Method => &mut self.method_flags[2 * b..2 * b + 2],
                FlagSet::End => &mut self.end_flags[2 * b..2 * b + 2],
                FlagSet::Choice(m, f) => {
                    let arr = self.flags[m].as_mut().expect("made with the counters");
                    let p = &mut arr[(f * BUCKETS + b) * 2..(f * BUCKETS + b) * 2 + 2];
                    if p[0] == 0 {
                        let (mut g0, mut g1) = (self.global_flags[2 * b], self.global_flags[2 * b + 1]);
                        while g0 + g1 > FLAG_INIT_MAX {
                            g0 = (g0 >> 1).max(1);
                            g1 = (g1 >> 1).max(1);
                        }
                        p[0] = g0;
                        p[1] = g1;
                    }
                    p
                }
            };
            let miss = io.bit([pair[0], pair[1]], actual != ev);
            update(pair, usize::from(miss), FLAG_INC, FLAG_BOUND);
            if let FlagSet::Choice(..) = which {
                update(
                    &mut self.global_flags[2 * b..2 * b + 2],
                    usize::from(miss),
                    FLAG_INC,
                    FLAG_BOUND,
                );
            }
            if !miss {
                return Some(ev);
            }
            missed.push(ev);
        }
        None
    }

    fn method_state(&mut self, layout: &ContextLayout, m: usize) {
        if self.counts[m].is_none() {
            self.counts[m] = Some(layout.init[m].clone());
            let blocks = layout.flag_index[m].iter().filter(|&&f| f >= 0).count();
            self.flags[m] = Some(vec![0; blocks * BUCKETS * 2]);
        }
    }

    /// Codes (or decodes: `method` ignored) the next method id.
    fn method(&mut self, io: &mut Io, method: u32) -> u32 {
        let mut missed = Vec::new();
        let actual = (method << 2) | 1;
        let symbols = self.method_counts.len();
        let mut fallback = false;
        let got = match self.flags(io, Slot::Method, FlagSet::Method, symbols, actual, &mut missed) {
            Some(ev) => ev >> 2,
            None => {
                fallback = true;
                // Candidates are always methods seen before.
                let seen_left = self.seen - missed.len();
                let unseen = symbols - self.seen;
                let new = if seen_left == 0 {
                    true
                } else {
                    let pair = [self.new_flag[0], self.new_flag[1]];
                    let new = io.bit(pair, self.method_counts[method as usize] == 0);
                    update(&mut self.new_flag, usize::from(new), FLAG_INC, FLAG_BOUND);
                    new
                };
                if new {
                    // Uniform over the ids not seen yet (the end marker included).
                    let rank = (0..method as usize).filter(|&i| self.method_counts[i] == 0).count();
                    let r = io.uniform(unseen as u64, rank as u64) as usize;
                    let id = (0..symbols).filter(|&i| self.method_counts[i] == 0).nth(r);
                    self.seen += 1;
                    id.expect("rank below the number of unseen ids") as u32
                } else {
                    let excluded: Vec<usize> = missed.iter().map(|&e| (e >> 2) as usize).collect();
                    io.pick(&self.method_counts, &excluded, method as usize) as u32
                }
            }
        };
        if fallback {
            let c = &mut self.method_counts;
            let total: u64 = c.iter().map(|&x| u64::from(x)).sum();
            if c[got as usize] + METHOD_INC > FLAG_BOUND || total + u64::from(METHOD_INC) > MAX_TOTAL {
                for x in c.iter_mut().filter(|x| **x > 0) {
                    *x = (*x >> 1).max(1);
                }
            }
            c[got as usize] += METHOD_INC;
        }
        for key in [
            method_key2(self.prev_method, self.prev_method2),
            method_key(self.prev_method),
        ] {
            self.method_table[key] = table_update(self.method_table[key], (got << 2) | 1);
        }
        self.prev_method2 = self.prev_method;
        self.prev_method = got;
        if (got as usize) < symbols - 1 {
            self.predictor.push(Slot::Method, (got << 2) | 1);
        }
        got
    }

    /// Codes (or decodes) how an invocation of `m` ended: `None` normal,
    /// `Some(len)` by an exception after `len` nodes.
    fn end(&mut self, io: &mut Io, m: usize, ended: Option<u32>) -> Result<Option<u32>> {
        let code = |e: Option<u32>| e.map_or(0, |l| l.saturating_add(1).min(END_CODE_MAX));
        let actual = (code(ended) << 2) | 2;
        let mut missed = Vec::new();
        let got = match self.flags(io, Slot::End, FlagSet::End, usize::MAX, actual, &mut missed) {
            Some(ev) => match ev >> 2 {
                0 => None,
                c => Some(c - 1),
            },
            None => {
                let pair = [self.end_counts[2 * m], self.end_counts[2 * m + 1]];
                let excluded: Vec<usize> = missed.iter().filter(|&&e| e >> 2 == 0).map(|_| 0).collect();
                if io.pick(&pair, &excluded, usize::from(ended.is_some())) == 0 {
                    None
                } else {
                    Some(gamma(io, ended.map_or(1, |l| l + 1))? - 1)
                }
            }
        };
        update(
            &mut self.end_counts[2 * m..2 * m + 2],
            usize::from(got.is_some()),
            FLAG_INC,
            FLAG_BOUND,
        );
        self.predictor.push(Slot::End, (code(got) << 2) | 2);
        Ok(got)
    }

    /// Codes (or decodes) the choice at block `v` of `m` (symbol = successor index).
    fn choice(&mut self, io: &mut Io, layout: &ContextLayout, m: usize, v: usize, sym: usize, k: usize) -> usize {
        self.method_state(layout, m);
        let lo = layout.method_offset[m] + layout.bases[m][v] as u32;
        let slot = Slot::Choice { lo, k: k as u32 };
        let f = layout.flag_index[m][v] as usize;
        let actual = (lo + sym as u32) << 2;
        let mut missed = Vec::new();
        let base = layout.bases[m][v] as usize;
        let got = match self.flags(io, slot, FlagSet::Choice(m, f), k, actual, &mut missed) {
            Some(ev) => ((ev >> 2) - lo) as usize,
            None => {
                let excluded: Vec<usize> = missed.iter().map(|&e| ((e >> 2) - lo) as usize).collect();
                let c = &self.counts[m].as_ref().expect("made above")[base..base + k];
                io.pick(c, &excluded, sym)
            }
        };
        let c = &mut self.counts[m].as_mut().expect("made above")[base..base + k];
        update(c, got, layout.params.inc, layout.params.bound);
        self.predictor.push(slot, (lo + got as u32) << 2);
        got
    }
}

/// Index of the order-1 method table after method `prev`.
fn method_key(prev: u32) -> usize {
    (prev.wrapping_mul(0x9E37_79B1) >> 16) as usize
}

/// Index of the order-2 method table after methods `prev2`, `prev`.
fn method_key2(prev: u32, prev2: u32) -> usize {
    ((prev ^ prev2.wrapping_mul(0x85EB_CA6B))
        .wrapping_add(1)
        .wrapping_mul(0x9E37_79B1)
        >> 16) as usize
}

#[derive(Clone, Copy)]
enum FlagSet {
    Method,
    End,
    Choice(usize, usize),
}

/// Elias-gamma code of `x ≥ 1` as fair binary choices.
fn gamma(io: &mut Io, x: u32) -> Result<u32> {
    let nb = 31 - x.max(1).leading_zeros();
    let mut n = 0;
    loop {
        let one = io.bit([1, 1], n < nb);
        if !one {
            break;
        }
        n += 1;
        if n > 31 {
            return Err(PathError::InvalidTrace {
                method: String::new(),
                message: "context stream: invocation length code too long".into(),
            });
        }
    }
    let mut v: u64 = 1;
    for i in (0..n).rev() {
        v = (v << 1) | u64::from(io.bit([1, 1], (x >> i) & 1 == 1));
    }
    u32::try_from(v).map_err(|_| PathError::InvalidTrace {
        method: String::new(),
        message: "context stream: invocation length out of range".into(),
    })
}

/// One finished invocation of a context stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamInvocation {
    /// The method.
    pub method: MethodId,
    /// Blocks from entry to exit (an invocation ended by an exception:
    /// completed to the exit as the probe coded it).
    pub path: Vec<BlockId>,
    /// `Some(len)`: ended by an exception after `len` blocks past the entry.
    pub aborted_after: Option<u32>,
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
        let mut part = 0.0;
        let mut io = Io::Enc(&mut self.enc, &mut part);
        self.model.method(&mut io, m.0);
        self.parts[0] += part;
        part = 0.0;
        let mut io = Io::Enc(&mut self.enc, &mut part);
        self.model.end(&mut io, m.index(), aborted_after)?;
        self.parts[1] += part;
        part = 0.0;
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
        self.parts[2] += part;
        Ok(())
    }

    /// Ends the stream (codes the end marker) and flushes.
    pub fn finish(mut self) -> ContextTrace {
        let mut part = 0.0;
        let mut io = Io::Enc(&mut self.enc, &mut part);
        self.model.method(&mut io, self.program.len() as u32);
        self.parts[0] += part;
        ContextTrace {
            words: self.enc.finish(),
            ideal_bits: self.parts.iter().sum(),
            choices: self.choices,
            ideal_parts: self.parts,
        }
    }
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

    /// The next invocation, or `None` at the end marker.
    pub fn next_invocation(&mut self) -> Result<Option<StreamInvocation>> {
        if self.done {
            return Ok(None);
        }
        let mut io = Io::Dec(&mut self.dec);
        let m = self.model.method(&mut io, 0);
        if m as usize >= self.program.len() {
            self.done = true;
            return Ok(None);
        }
        let method = MethodId(m);
        let aborted_after = self.model.end(&mut io, m as usize, None)?;
        let cfg = self.program.cfg(method);
        let mut v = cfg.entry();
        let mut path = vec![v];
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
                k => succ[self.model.choice(&mut io, self.layout, m as usize, v.index(), 0, k)],
            };
            path.push(v);
            if path.len() > self.max_steps {
                return Err(PathError::InvalidTrace {
                    method: cfg.name().to_string(),
                    message: format!("decoding exceeded {} block visits", self.max_steps),
                });
            }
        }
        Ok(Some(StreamInvocation {
            method,
            path,
            aborted_after,
        }))
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
