//! The context stream's first decision for every invocation: *is it the
//! invocation the thread's history predicts?* (rules in
//! [`crate::context_stream`], "Repeats"). Real programs mostly repeat
//! whole invocations (91% of HSQLDB's in tracekit's SQL benchmark, more in
//! its regular stretches), so one flag per such invocation replaces the
//! method id, end and every choice the
//! [`ThreadModel`](crate::context_model::ThreadModel) would code, and the
//! JVM runtime's coder gets close to keeping up with the program.

use crate::cfg::{BlockId, Cfg};
use crate::context_model::{update, Io, FLAG_BOUND};
use crate::context_stream::FLAG_INC;
use crate::error::{PathError, Result};

/// The ring of past invocations holds `2^RING_BITS` of them.
pub const RING_BITS: u32 = 16;
/// The context table has `2^TABLE_BITS` entries.
pub const TABLE_BITS: u32 = 16;
/// Flag pairs, by the length of the current match (`⌊log2 len⌋ + 1`, capped).
pub const REPEAT_BUCKETS: usize = 16;

/// The ring's mark of a repeatable invocation (method ids stay below 2^20).
const REPEATABLE: u32 = 1 << 31;

/// An invocation as the repeat layer compares them: its method and its
/// choice digits, packed as the JVM probes pack them (successor index of
/// each choice in `⌈log2 k⌉` bits, least significant first). Only an
/// invocation that ended normally with every digit in one 64-bit word can
/// repeat; the others keep their method (for the context) and never match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvocationKey {
    /// The method id.
    pub method: u32,
    /// The choice digits (0 when not repeatable).
    pub digits: u64,
    /// Ended normally and its digits fit in one word.
    pub repeatable: bool,
}

impl InvocationKey {
    /// The key of an invocation of `method` taking `path` (entry to exit).
    pub fn of_path(cfg: &Cfg, method: u32, path: &[BlockId], aborted: bool) -> Self {
        let not = InvocationKey {
            method,
            digits: 0,
            repeatable: false,
        };
        if aborted {
            return not;
        }
        let (mut digits, mut sh) = (0u64, 0u32);
        for w in path.windows(2) {
            let succ = cfg.successors(w[0]);
            if succ.len() < 2 {
                continue;
            }
            let bits = digit_bits(succ.len());
            if sh + bits > 64 {
                return not;
            }
            let sym = cfg.successor_index(w[0], w[1]).unwrap_or(0) as u64;
            digits |= sym << sh;
            sh += bits;
        }
        InvocationKey {
            method,
            digits,
            repeatable: true,
        }
    }

    /// The path of a repeatable key (entry to exit) into `path`.
    pub fn path_into(&self, cfg: &Cfg, path: &mut Vec<BlockId>, max_steps: usize) -> Result<()> {
        let bad = |message: String| PathError::InvalidTrace {
            method: cfg.name().to_string(),
            message,
        };
        path.clear();
        let mut v = cfg.entry();
        path.push(v);
        let mut sh = 0u32;
        while v != cfg.exit() {
            let succ = cfg.successors(v);
            v = match succ.len() {
                0 => return Err(bad(format!("block {:?} has no way to the exit", cfg.block_name(v)))),
                1 => succ[0],
                k => {
                    let bits = digit_bits(k);
                    if sh + bits > 64 {
                        return Err(bad("a repeated invocation's digits run out".into()));
                    }
                    let sym = ((self.digits >> sh) & ((1u64 << bits) - 1)) as usize;
                    sh += bits;
                    *succ
                        .get(sym)
                        .ok_or_else(|| bad(format!("choice {sym} of {k} in a repeat")))?
                }
            };
            path.push(v);
            if path.len() > max_steps {
                return Err(bad(format!("decoding exceeded {max_steps} block visits")));
            }
        }
        Ok(())
    }

    fn hash(&self) -> u32 {
        let h = (self.method.wrapping_add(1)).wrapping_mul(0xC2B2_AE35)
            ^ (self.digits as u32).wrapping_mul(0x9E37_79B1)
            ^ ((self.digits >> 32) as u32).wrapping_mul(0x85EB_CA6B);
        if self.repeatable {
            h
        } else {
            h ^ 0x27D4_EB2F
        }
    }
}

/// `⌈log2 k⌉` for `k ≥ 2`: the bits of the digit of a choice among `k`
/// successors (the JVM probes' packing).
pub fn digit_bits(k: usize) -> u32 {
    32 - ((k - 1) as u32).leading_zeros()
}

/// One thread's repeat layer: the ring of its past invocations, the table
/// from the last two invocations to where they were last followed, the
/// current match and its flag pairs.
#[derive(Debug, Clone)]
pub(crate) struct RepeatModel {
    /// Per ring slot: method + 1, with [`REPEATABLE`] for a repeatable invocation (0: empty).
    ring_method: Vec<u32>,
    ring_digits: Vec<u64>,
    /// Per context: position + 1 of the invocation that followed it (0: none).
    table: Vec<u32>,
    /// Invocations recorded so far (wrapping).
    count: u32,
    /// Hashes of the last invocation and the one before it.
    h1: u32,
    h2: u32,
    h3: u32,
    /// The predicted position, when a match is on, and its length.
    ptr: Option<u32>,
    len: u32,
    flags: [u32; 2 * REPEAT_BUCKETS],
}

impl RepeatModel {
    pub(crate) fn new() -> Self {
        RepeatModel {
            ring_method: vec![0; 1 << RING_BITS],
            ring_digits: vec![0; 1 << RING_BITS],
            table: vec![0; 1 << TABLE_BITS],
            count: 0,
            h1: 0,
            h2: 0,
            h3: 0,
            ptr: None,
            len: 0,
            flags: [1; 2 * REPEAT_BUCKETS],
        }
    }

    fn context(&self) -> usize {
        ((self.h1 ^ self.h2.rotate_left(13) ^ self.h3.rotate_left(26)).wrapping_mul(0x9E37_79B1) >> (32 - TABLE_BITS))
            as usize
    }

    /// Codes whether the next invocation is the predicted one: `actual` when
    /// encoding, `None` when decoding. Returns the predicted key on a hit
    /// (then recorded already); `None` when there was no prediction or it
    /// missed, and the invocation is coded by the thread model, then
    /// [`record`](Self::record)ed.
    pub(crate) fn code(&mut self, io: &mut Io, actual: Option<&InvocationKey>) -> Option<InvocationKey> {
        if self.ptr.is_none() {
            let e = self.table[self.context()];
            if e != 0 {
                let p = e - 1;
                let age = self.count.wrapping_sub(p);
                if (1..=1 << RING_BITS).contains(&age) {
                    self.ptr = Some(p);
                    self.len = 0;
                }
            }
        }
        let p = self.ptr?;
        let slot = (p & ((1 << RING_BITS) - 1)) as usize;
        let entry = self.ring_method[slot];
        if entry & REPEATABLE == 0 {
            // Not repeatable: no flag; the match goes on if the thread
            // model codes an unrepeatable invocation of the same method.
            return None;
        }
        let predicted = InvocationKey {
            method: (entry & !REPEATABLE) - 1,
            digits: self.ring_digits[slot],
            repeatable: true,
        };
        let b = (32 - self.len.leading_zeros()).min(REPEAT_BUCKETS as u32 - 1) as usize;
        let pair = &mut self.flags[2 * b..2 * b + 2];
        let miss = io.bit([pair[0], pair[1]], actual.is_some_and(|a| *a != predicted));
        update(pair, usize::from(miss), FLAG_INC, FLAG_BOUND);
        if miss {
            self.ptr = None;
            return None;
        }
        self.push(&predicted);
        self.follow(p);
        Some(predicted)
    }

    /// The match goes on at the position after `p`.
    fn follow(&mut self, p: u32) {
        self.ptr = Some(p.wrapping_add(1));
        self.len = self.len.saturating_add(1);
    }

    /// Records an invocation the thread model coded (after a miss or with no prediction).
    pub(crate) fn record(&mut self, key: &InvocationKey) {
        let going_on = self.ptr.map(|p| {
            let entry = self.ring_method[(p & ((1 << RING_BITS) - 1)) as usize];
            (p, !key.repeatable && entry == key.method + 1)
        });
        self.push(key);
        match going_on {
            Some((p, true)) => self.follow(p),
            _ => self.ptr = None,
        }
    }

    fn push(&mut self, key: &InvocationKey) {
        let ctx = self.context();
        self.table[ctx] = self.count.wrapping_add(1);
        let slot = (self.count & ((1 << RING_BITS) - 1)) as usize;
        self.ring_method[slot] = (key.method + 1) | if key.repeatable { REPEATABLE } else { 0 };
        self.ring_digits[slot] = key.digits;
        self.h3 = self.h2;
        self.h2 = self.h1;
        self.h1 = key.hash();
        self.count = self.count.wrapping_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth;

    #[test]
    fn a_repeatable_key_gives_its_path_back() {
        let p = synth::random_methods(11, 6);
        let (mut repeatable, mut long) = (0, 0);
        for m in p.method_ids() {
            let cfg = p.cfg(m);
            for seed in 0..200 {
                let path = synth::random_path(cfg, seed, 1 + (seed as usize % 80), 50);
                let key = InvocationKey::of_path(cfg, m.0, &path, false);
                if !key.repeatable {
                    long += 1;
                    continue;
                }
                repeatable += 1;
                let mut back = Vec::new();
                key.path_into(cfg, &mut back, 100_000).unwrap();
                assert_eq!(back, path);
                assert!(!InvocationKey::of_path(cfg, m.0, &path, true).repeatable);
            }
        }
        assert!(
            repeatable > 500 && long > 10,
            "{repeatable} repeatable, {long} too long"
        );
    }

    #[test]
    fn digits_pack_like_the_probes() {
        // A method whose entry chooses among 3 (2 bits), then a block among 2 (1 bit).
        let mut b = crate::cfg::CfgBuilder::new("m");
        for n in ["e", "a", "b", "c", "d", "x"] {
            b.block(n);
        }
        for (f, t) in [
            ("e", "a"),
            ("e", "b"),
            ("e", "c"),
            ("a", "d"),
            ("a", "x"),
            ("b", "x"),
            ("c", "x"),
            ("d", "x"),
        ] {
            b.edge(f, t);
        }
        let cfg = b.entry("e").exit("x").build().unwrap();
        let id = |n: &str| cfg.block_id(n).unwrap();
        let key = InvocationKey::of_path(&cfg, 4, &[id("e"), id("a"), id("x")], false);
        // e: successor 0 in 2 bits; a: successor 1 (x) in 1 bit at shift 2.
        assert_eq!(key.digits, 0b100);
        let key = InvocationKey::of_path(&cfg, 4, &[id("e"), id("c"), id("x")], false);
        assert_eq!(key.digits, 0b10);
    }
}
