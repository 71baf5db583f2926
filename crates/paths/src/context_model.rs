//! The per-thread model of the context stream (rules in
//! [`crate::context_stream`]): one code path for encoding and decoding.

use crate::arith::{Decoder, Encoder, MAX_TOTAL};
use crate::context_stream::{ContextLayout, FLAG_INC, METHOD_INC};
use crate::error::{PathError, Result};
use crate::predictor::{table_update, Predictor, Slot, BUCKETS, END_CODE_MAX};
use crate::repeat::RepeatModel;

pub(crate) const FLAG_BOUND: u32 = 65535;
const SUCC_BITS: u32 = 12;
const SUCC_LIST: usize = 8;
const RANK_INC: u32 = 4;
const FLAG_INIT_MAX: u32 = 64;

/// The ideal code length `Σ −log2 p` of a run of coded decisions, kept as
/// a product of `1/p` so that a decision costs a division, not a `log2`
/// (the `log2` was 8% of decoding the context stream). The product is
/// folded into `bits` before it could overflow.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cost {
    bits: f64,
    inverse_p: f64,
}

impl Cost {
    /// No decisions yet.
    pub(crate) fn new() -> Self {
        Cost {
            bits: 0.0,
            inverse_p: 1.0,
        }
    }

    /// One decision of probability `freq / total`.
    #[inline]
    fn add(&mut self, total: f64, freq: f64) {
        self.inverse_p *= total / freq;
        // Each factor is below 2^21: far from f64's 2^1023.
        if self.inverse_p > 1e250 {
            self.bits += self.inverse_p.log2();
            self.inverse_p = 1.0;
        }
    }

    /// The code length so far, bits.
    pub(crate) fn bits(&self) -> f64 {
        self.bits + self.inverse_p.log2()
    }
}

/// Encodes or decodes: the one code path both directions share. Both add
/// the cost of every coded decision to their [`Cost`].
pub(crate) enum Io<'a, 'w> {
    Enc(&'a mut Encoder, &'a mut Cost),
    Dec(&'a mut Decoder<'w>, &'a mut Cost),
}

impl Io<'_, '_> {
    /// Codes one of `counts` (leaving out `excluded` symbols): encodes
    /// `sym`, or decodes and returns it.
    fn pick(&mut self, counts: &[u32], excluded: &[usize], sym: usize) -> usize {
        let live = |i: usize| counts[i] > 0 && !excluded.contains(&i);
        // One pass for the total, the number of live symbols and the last
        // of them: this runs for every coded decision.
        let (mut total, mut live_symbols, mut last) = (0u64, 0usize, 0usize);
        for (i, &c) in counts.iter().enumerate() {
            if c > 0 && !excluded.contains(&i) {
                total += u64::from(c);
                live_symbols += 1;
                last = i;
            }
        }
        if live_symbols == 1 {
            return last;
        }
        match self {
            Io::Enc(enc, ideal) => {
                let cum: u64 = (0..sym).filter(|&i| live(i)).map(|i| u64::from(counts[i])).sum();
                let freq = u64::from(counts[sym]);
                enc.encode(cum, freq, total);
                ideal.add(total as f64, freq as f64);
                sym
            }
            Io::Dec(dec, ideal) => {
                let target = dec.target(total);
                let mut cum = 0u64;
                for (i, &c) in counts.iter().enumerate() {
                    if !live(i) {
                        continue;
                    }
                    if target < cum + u64::from(c) {
                        dec.consume(cum, u64::from(c), total);
                        ideal.add(total as f64, f64::from(c));
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
                ideal.add(n as f64, 1.0);
                value
            }
            Io::Dec(dec, ideal) => {
                let v = dec.target(n);
                dec.consume(v, 1, n);
                ideal.add(n as f64, 1.0);
                v
            }
        }
    }

    /// Codes one bit under the pair `counts`: [`Io::pick`] of two, the
    /// same code with one division instead of three when both counts are
    /// live (flag pairs always are: their counts never drop below 1). The
    /// commonest decision of all.
    #[inline]
    pub(crate) fn bit(&mut self, counts: [u32; 2], bit: bool) -> bool {
        let [c0, c1] = counts;
        if c0 == 0 || c1 == 0 {
            return self.pick(&counts, &[], usize::from(bit)) == 1;
        }
        let total = u64::from(c0) + u64::from(c1);
        let (one, ideal) = match self {
            Io::Enc(enc, ideal) => {
                enc.encode_bit(u64::from(c0), total, bit);
                (bit, ideal)
            }
            Io::Dec(dec, ideal) => (dec.decode_bit(u64::from(c0), total), ideal),
        };
        let freq = if one { c1 } else { c0 };
        ideal.add(total as f64, f64::from(freq));
        one
    }
}

/// AdapTracer's counter update: shrink (halve, never below 1) when `c[s]`
/// would pass `bound` or the total `MAX_TOTAL`, then `c[s] += inc`.
pub(crate) fn update(c: &mut [u32], s: usize, inc: u32, bound: u32) {
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
pub(crate) struct ThreadModel {
    /// The first decision of every invocation: a repeat of the predicted one?
    pub(crate) repeat: RepeatModel,
    predictor: Predictor,
    /// Per method (made on its first choice): choice counters and flag pairs.
    counts: Vec<Option<Vec<u32>>>,
    flags: Vec<Option<Vec<u32>>>,
    /// Flag pairs per bucket: the choices' shared starting points, methods', ends'.
    global_flags: Vec<u32>,
    method_flags: Vec<u32>,
    end_flags: Vec<u32>,
    /// Method-id fallback counters (0 = not seen on this thread).
    method_counts: Vec<u32>,
    /// Order-2 and order-1 method tables in one array: entries
    /// `(event + 1) << 2 | conf` (0 = empty), see [`table_update`].
    method_table: Vec<u32>,
    /// The last two method ids coded (`u32::MAX` before any).
    prev_method: u32,
    prev_method2: u32,
    /// Per previous method (hashed), its recent successors, most recent first.
    succ_lists: Vec<u32>,
    list_flag: [u32; 2],
    rank_counts: [u32; SUCC_LIST],
    /// `⌊log2 d⌋` of new method ids' distance to the nearest seen id.
    dist_counts: [u32; 32],
    /// Method ids coded so far at least once (their counts are non-zero).
    seen: usize,
    new_flag: [u32; 2],
    /// Per method: how its invocations ended `[normal, exception]`.
    end_counts: Vec<u32>,
}

impl ThreadModel {
    pub(crate) fn new(layout: &ContextLayout) -> Self {
        let methods = layout.bases.len();
        ThreadModel {
            repeat: RepeatModel::new(),
            predictor: Predictor::new(),
            counts: vec![None; methods],
            flags: vec![None; methods],
            global_flags: vec![1; 2 * BUCKETS],
            method_flags: vec![1; 2 * (BUCKETS + 8)],
            method_table: vec![0; 1 << 16],
            prev_method: u32::MAX,
            succ_lists: vec![0; SUCC_LIST << SUCC_BITS],
            list_flag: [1, 1],
            rank_counts: [1; SUCC_LIST],
            dist_counts: [1; 32],
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
    pub(crate) fn method(&mut self, io: &mut Io, method: u32) -> Result<u32> {
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
                let new = if seen_left == 0 {
                    true
                } else {
                    let pair = [self.new_flag[0], self.new_flag[1]];
                    let new = io.bit(pair, self.method_counts[method as usize] == 0);
                    update(&mut self.new_flag, usize::from(new), FLAG_INC, FLAG_BOUND);
                    new
                };
                if new && self.seen > 0 {
                    // By its distance to the nearest id seen (methods of a class are
                    // numbered together): ⌊log2 d⌋ adaptively, the low bits of d, then
                    // which of the unseen ids at that distance.
                    let dist = nearest_seen(&self.method_counts);
                    let d = dist[method as usize];
                    let nbits = (32 - (symbols as u32).leading_zeros()) as usize;
                    let nb = io.pick(
                        &self.dist_counts[..nbits],
                        &[],
                        (31 - d.max(1).leading_zeros()) as usize,
                    );
                    update(&mut self.dist_counts[..nbits], nb, RANK_INC, FLAG_BOUND);
                    let d = (1u32 << nb) + io.uniform(1 << nb, u64::from(d).wrapping_sub(1 << nb)) as u32;
                    let at: Vec<usize> = (0..symbols).filter(|&i| dist[i] == d).collect();
                    let k = at.iter().position(|&i| i == method as usize).unwrap_or(0);
                    let k = io.uniform(at.len() as u64, k as u64) as usize;
                    self.seen += 1;
                    *at.get(k).ok_or_else(bad_id)? as u32
                } else if new {
                    // The thread's first method: uniform over every id.
                    self.seen += 1;
                    io.uniform(symbols as u64, u64::from(method)) as u32
                } else {
                    let mut excluded: Vec<usize> = missed.iter().map(|&e| (e >> 2) as usize).collect();
                    // The methods that followed the previous one lately, most recent first.
                    let at = succ_key(self.prev_method) * SUCC_LIST;
                    let list: Vec<usize> = self.succ_lists[at..at + SUCC_LIST]
                        .iter()
                        .filter(|&&e| e != 0)
                        .map(|&e| (e - 1) as usize)
                        .filter(|i| !excluded.contains(i))
                        .collect();
                    let pos = list.iter().position(|&i| i == method as usize);
                    // Seen ids neither missed nor on the list (list entries are seen ids).
                    let others = seen_left - list.len();
                    let in_list = if list.is_empty() {
                        false
                    } else if others == 0 {
                        true
                    } else {
                        let pair = [self.list_flag[0], self.list_flag[1]];
                        let out = io.bit(pair, pos.is_none());
                        update(&mut self.list_flag, usize::from(out), FLAG_INC, FLAG_BOUND);
                        !out
                    };
                    if in_list {
                        let n = list.len();
                        let r = io.pick(&self.rank_counts[..n], &[], pos.unwrap_or(0));
                        update(&mut self.rank_counts[..n], r, RANK_INC, FLAG_BOUND);
                        list[r] as u32
                    } else {
                        excluded.extend_from_slice(&list);
                        io.pick(&self.method_counts, &excluded, method as usize) as u32
                    }
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
        let at = succ_key(self.prev_method) * SUCC_LIST;
        let l = &mut self.succ_lists[at..at + SUCC_LIST];
        let end = l.iter().position(|&e| e == got + 1).unwrap_or(SUCC_LIST - 1);
        l.copy_within(0..end, 1);
        l[0] = got + 1;
        self.prev_method2 = self.prev_method;
        self.prev_method = got;
        if (got as usize) < symbols - 1 {
            self.predictor.push(Slot::Method, (got << 2) | 1);
        }
        Ok(got)
    }

    /// Codes (or decodes) how an invocation of `m` ended: `None` normal,
    /// `Some(len)` by an exception after `len` nodes.
    pub(crate) fn end(&mut self, io: &mut Io, m: usize, ended: Option<u32>) -> Result<Option<u32>> {
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
    pub(crate) fn choice(
        &mut self,
        io: &mut Io,
        layout: &ContextLayout,
        m: usize,
        v: usize,
        sym: usize,
        k: usize,
    ) -> usize {
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
/// Per method id, the distance to the nearest id with a non-zero count
/// (`u32::MAX` when there is none).
fn nearest_seen(counts: &[u32]) -> Vec<u32> {
    let mut d = vec![u32::MAX; counts.len()];
    let mut last = None;
    for i in 0..counts.len() {
        if counts[i] > 0 {
            last = Some(i);
        }
        if let Some(l) = last {
            d[i] = (i - l) as u32;
        }
    }
    last = None;
    for i in (0..counts.len()).rev() {
        if counts[i] > 0 {
            last = Some(i);
        }
        if let Some(l) = last {
            d[i] = d[i].min((l - i) as u32);
        }
    }
    d
}

fn bad_id() -> PathError {
    PathError::InvalidTrace {
        method: String::new(),
        message: "context stream: no method id at the decoded distance".into(),
    }
}

/// Slot of the successor list after method `prev`.
fn succ_key(prev: u32) -> usize {
    (prev.wrapping_mul(0x85EB_CA6B) >> (32 - SUCC_BITS)) as usize
}

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
