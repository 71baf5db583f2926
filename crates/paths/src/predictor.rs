//! The history predictors of the context stream ([`crate::context_stream`]):
//! a match model over the thread's whole event history and an order-`K`
//! table, both in fixed-size integer arrays (no hash maps), so a JVM probe
//! mirrors them bit for bit. All arithmetic is on 32-bit unsigned integers
//! with wrap-around (Java `int`).
//!
//! **Events.** Every coded item is a 32-bit event: a branch choice is
//! `slot << 2` (its global counter index, see
//! [`ContextLayout`](crate::context_stream::ContextLayout)), a method id
//! `m << 2 | 1`, an invocation end `code << 2 | 2` (`code` 0 = normal
//! return, `len + 1` = ended by an exception after `len` nodes, saturated at
//! [`END_CODE_MAX`]).
//!
//! **History.** A ring of [`RING`] events; `n` counts events pushed (mod 2^32).
//! Two rolling hashes, `hm` over the last [`MATCH_MIN`] events and `hk` over
//! the last [`ORDER_K`]: on push of `e`, `h = h·B + e − out·B^L` where `out`
//! is the event leaving the window (`hist[n − L]`, or nothing while
//! `n < L`), `B = 0x01000193`.
//!
//! **Order-K table.** [`KTABLE`] entries `(event + 1) << 2 | conf` (0 =
//! empty), indexed by `((hk ^ key·0x85EBCA6B)·0x9E3779B1) >> 16` where `key`
//! names the slot being coded (a choice block's first counter index `<< 2`,
//! 1 for methods, 2 for ends). While the match model's `len` is at least
//! [`LONG_MATCH`] the table is skipped: no prediction, no update. After
//! coding `e` under that index: empty →
//! `(e, 0)`; same event → `conf = min(conf + 1, 3)`; else `conf > 0` →
//! `conf − 1`; else → `(e, 0)`.
//!
//! **Match model.** A table of [`MTABLE`] positions indexed by
//! `(hm·0x9E3779B1) >> 16`, a pointer `ptr` and a length `len` (0 = no
//! match). After pushing `e` (before `n += 1`, the match is checked first:
//! if `len > 0`, `hist[ptr] == e` → `ptr += 1, len = min(len + 1, 2^30)`,
//! else `len = 0`); then, once `n ≥ MATCH_MIN`, with `i` the index of `hm`:
//! if `len == 0` and `cand = mtable[i]` is non-zero with `0 < n − cand <
//! RING − 64`, count `l` (up to 32) equal events backwards from `cand − 1`
//! and `n − 1`; if `l ≥ MATCH_MIN` then `len = l, ptr = cand`. Finally
//! `mtable[i] = n`. The predicted next event is `hist[ptr]` while `len > 0`.
//!
//! **Candidates** for a slot: the match prediction if it belongs to the
//! slot, with bucket `3·min(⌊log2(len >> 4)⌋, 7) + t` (`t` = 0: the table
//! has no prediction for the slot, 1: a different one, 2: the same); then
//! the table's prediction if it belongs to the slot and differs: bucket
//! `28 + conf` after a match candidate, `24 + conf` alone.

/// Events kept in the history ring.
pub const RING: u32 = 1 << 18;
/// Events a match must share before it predicts.
pub const MATCH_MIN: u32 = 20;
/// Events hashed for the order-K table.
pub const ORDER_K: u32 = 6;
/// Matches at least this long leave the order-K table alone: it is neither
/// consulted nor trained while they last.
pub const LONG_MATCH: u32 = 1024;
/// Entries of the match-position table.
pub const MTABLE: usize = 1 << 16;
/// Entries of the order-K table.
pub const KTABLE: usize = 1 << 16;
/// Flag contexts per slot (see the module docs).
pub const BUCKETS: usize = 32;
/// Largest end code an event can carry (longer aborted invocations share it
/// and are never predicted).
pub const END_CODE_MAX: u32 = (1 << 26) - 1;
/// Largest event payload (`slot`, method id) an event can carry.
pub const PAYLOAD_MAX: u32 = (1 << 27) - 1;

const B: u32 = 0x0100_0193;
const GOLDEN: u32 = 0x9E37_79B1;
const KEY_MUL: u32 = 0x85EB_CA6B;
const LEN_CAP: u32 = 1 << 30;

/// The update of a table entry `(event + 1) << 2 | conf` (0 = empty)
/// after `ev` was coded: empty → `(ev, 0)`; same event → `conf + 1` (at
/// most 3); else `conf > 0` → `conf − 1`; else → `(ev, 0)`.
pub fn table_update(entry: u32, ev: u32) -> u32 {
    if entry == 0 || (entry & 3 == 0 && (entry >> 2) - 1 != ev) {
        (ev + 1) << 2
    } else if (entry >> 2) - 1 == ev {
        ((ev + 1) << 2) | ((entry & 3) + 1).min(3)
    } else {
        entry - 1
    }
}

/// What an event stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// A choice at the block whose counters start at global index `lo` with `k` symbols.
    Choice {
        /// First global counter index of the block.
        lo: u32,
        /// Number of symbols.
        k: u32,
    },
    /// The method id of the next invocation.
    Method,
    /// How the invocation ended.
    End,
}

impl Slot {
    fn key(self) -> u32 {
        match self {
            Slot::Choice { lo, .. } => lo << 2,
            Slot::Method => 1,
            Slot::End => 2,
        }
    }

    /// Whether `ev` is an event of this slot (and can be predicted).
    pub fn holds(self, ev: u32) -> bool {
        match self {
            Slot::Choice { lo, k } => ev & 3 == 0 && (ev >> 2).wrapping_sub(lo) < k,
            Slot::Method => ev & 3 == 1,
            Slot::End => ev & 3 == 2 && (ev >> 2) < END_CODE_MAX,
        }
    }
}

/// Up to two predicted events with their flag buckets, in coding order.
#[derive(Debug, Clone, Copy, Default)]
pub struct Candidates {
    /// Predicted events.
    pub events: [u32; 4],
    /// Their buckets.
    pub buckets: [u32; 4],
    /// How many are valid.
    pub len: usize,
}

impl Candidates {
    /// Appends a candidate.
    pub fn push(&mut self, ev: u32, bucket: u32) {
        self.events[self.len] = ev;
        self.buckets[self.len] = bucket;
        self.len += 1;
    }
}

/// One thread's history predictors.
#[derive(Debug, Clone)]
pub struct Predictor {
    hist: Vec<u32>,
    n: u32,
    hm: u32,
    hk: u32,
    mtable: Vec<u32>,
    ptr: u32,
    len: u32,
    ktable: Vec<u32>,
    pow_m: u32,
    pow_k: u32,
}

impl Default for Predictor {
    fn default() -> Self {
        Self::new()
    }
}

impl Predictor {
    /// Empty history.
    pub fn new() -> Self {
        Predictor {
            hist: vec![0; RING as usize],
            n: 0,
            hm: 0,
            hk: 0,
            mtable: vec![0; MTABLE],
            ptr: 0,
            len: 0,
            ktable: vec![0; KTABLE],
            pow_m: B.wrapping_pow(MATCH_MIN),
            pow_k: B.wrapping_pow(ORDER_K),
        }
    }

    #[inline]
    fn at(&self, pos: u32) -> u32 {
        self.hist[(pos & (RING - 1)) as usize]
    }

    #[inline]
    fn kindex(&self, slot: Slot) -> usize {
        ((self.hk ^ slot.key().wrapping_mul(KEY_MUL)).wrapping_mul(GOLDEN) >> 16) as usize
    }

    /// The predictions for the next event of `slot`.
    pub fn candidates(&self, slot: Slot) -> Candidates {
        let mut c = Candidates::default();
        let entry = if self.len >= LONG_MATCH {
            0
        } else {
            self.ktable[self.kindex(slot)]
        };
        let table = (entry != 0)
            .then(|| ((entry >> 2) - 1, entry & 3))
            .filter(|&(ev, _)| slot.holds(ev));
        let matched = (self.len > 0).then(|| self.at(self.ptr)).filter(|&ev| slot.holds(ev));
        match (matched, table) {
            (Some(ev), t) => {
                let lb = (31 - (self.len >> 4).leading_zeros()).min(7);
                let agree = match t {
                    None => 0,
                    Some((tev, _)) if tev != ev => 1,
                    Some(_) => 2,
                };
                c.push(ev, 3 * lb + agree);
                if let Some((tev, conf)) = t.filter(|&(tev, _)| tev != ev) {
                    c.push(tev, 28 + conf);
                }
            }
            (None, Some((tev, conf))) => c.push(tev, 24 + conf),
            (None, None) => {}
        }
        c
    }

    /// Records that `ev` was coded for `slot`.
    pub fn push(&mut self, slot: Slot, ev: u32) {
        if self.len < LONG_MATCH {
            let ki = self.kindex(slot);
            self.ktable[ki] = table_update(self.ktable[ki], ev);
        }
        if self.len > 0 {
            if self.at(self.ptr) == ev {
                self.ptr = self.ptr.wrapping_add(1);
                self.len = (self.len + 1).min(LEN_CAP);
            } else {
                self.len = 0;
            }
        }
        let n = self.n;
        let out_m = if n >= MATCH_MIN { self.at(n - MATCH_MIN) } else { 0 };
        let out_k = if n >= ORDER_K { self.at(n - ORDER_K) } else { 0 };
        self.hist[(n & (RING - 1)) as usize] = ev;
        self.hm = self
            .hm
            .wrapping_mul(B)
            .wrapping_add(ev)
            .wrapping_sub(out_m.wrapping_mul(self.pow_m));
        self.hk = self
            .hk
            .wrapping_mul(B)
            .wrapping_add(ev)
            .wrapping_sub(out_k.wrapping_mul(self.pow_k));
        let n = n.wrapping_add(1);
        self.n = n;
        if n >= MATCH_MIN {
            let i = (self.hm.wrapping_mul(GOLDEN) >> 16) as usize;
            if self.len == 0 {
                let cand = self.mtable[i];
                let d = n.wrapping_sub(cand);
                if cand != 0 && d > 0 && d < RING - 64 {
                    let mut l = 0;
                    while l < 32 && self.at(cand.wrapping_sub(1 + l)) == self.at(n.wrapping_sub(1 + l)) {
                        l += 1;
                    }
                    if l >= MATCH_MIN {
                        self.len = l;
                        self.ptr = cand;
                    }
                }
            }
            self.mtable[i] = n;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_sequence_is_predicted_by_the_match_model() {
        let mut p = Predictor::new();
        let slot = Slot::Choice { lo: 0, k: 64 };
        let seq: Vec<u32> = (0..50u32).map(|i| ((i * 7) % 64) << 2).collect();
        for &e in &seq {
            p.push(slot, e);
        }
        let mut predicted = 0;
        for &e in &seq {
            let c = p.candidates(slot);
            if c.len > 0 && c.events[0] == e {
                predicted += 1;
            }
            p.push(slot, e);
        }
        assert!(predicted >= 50 - MATCH_MIN as usize, "{predicted}");
        assert!(!Slot::Method.holds(4) && Slot::Method.holds(5) && Slot::End.holds(2));
    }

    #[test]
    fn order_k_table_learns_a_short_cycle() {
        let mut p = Predictor::new();
        let slot = Slot::Method;
        for i in 0..40u32 {
            p.push(slot, ((i % 3) << 2) | 1);
        }
        let c = p.candidates(slot);
        assert!(c.len >= 1);
        assert!(c.events[..c.len].contains(&((40 % 3) << 2 | 1)));
    }
}
