//! AdapTracer's adaptive per-block counters (the seed's Algorithm 1).
//!
//! Every live block with more than one live out-edge has one counter per
//! out-edge, starting at 1 or at the value of an [`EdgeModel`]. The out-edges
//! are numbered as *symbols* once, when the model is built
//! ([`SymbolOrder`]): by default symbol = index in
//! [`Cfg::successors`](crate::Cfg::successors); with
//! [`SymbolOrder::Frequency`], by initial counter, largest first, ties in
//! successor order — then symbol 0 is the edge taken most often in earlier
//! runs, and a path that takes only symbol-0 edges keeps the coder at
//! `low = 0` and costs no word at all.
//! Choosing symbol `s` codes the interval `[Σ_{i<s} c_i, Σ_{i≤s} c_i)` of
//! `total = Σ c_i` (counters in symbol order), then updates:
//!
//! ```text
//! if c[s] + inc > bound  or  total + inc > MAX_TOTAL (2^20):
//!     for every i: c[i] = max(1, c[i] >> 1)          # shrink
//!     total = Σ c[i]
//! c[s] += inc;  total += inc
//! ```
//!
//! Counters loaded from a file are halved the same way until their total is
//! at most `MAX_TOTAL`.

use crate::arith::MAX_TOTAL;
use crate::cfg::{BlockId, Cfg};
use crate::edge_model::EdgeModel;
use crate::error::{PathError, Result};
use crate::program::{MethodId, Program};

/// Largest out-degree and `inc` the counters support.
pub const MAX_OUT_DEGREE: usize = 1 << 18;

/// The adaptation parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdaptiveParams {
    /// Added to an edge's counter each time it is taken (the seed uses 3).
    pub inc: u32,
    /// A counter about to exceed this triggers shrinking of its block.
    pub bound: u32,
}

impl Default for AdaptiveParams {
    fn default() -> Self {
        AdaptiveParams {
            inc: 3,
            bound: 65535,
        }
    }
}

impl AdaptiveParams {
    /// Checks `1 ≤ bound` and `inc ≤ 2^18`.
    pub fn check(&self) -> Result<()> {
        if self.bound == 0 {
            return Err(PathError::InvalidParameter(
                "bound must be at least 1".into(),
            ));
        }
        if self.inc as usize > MAX_OUT_DEGREE {
            return Err(PathError::InvalidParameter(format!(
                "inc {} is above {MAX_OUT_DEGREE}",
                self.inc
            )));
        }
        Ok(())
    }
}

/// How a block's out-edges are numbered as coder symbols.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SymbolOrder {
    /// Symbol = index in `Cfg::successors` (the seed's behaviour).
    #[default]
    Successor,
    /// By starting counter, largest first; ties in successor order.
    Frequency,
}

impl std::str::FromStr for SymbolOrder {
    type Err = PathError;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "successor" => Ok(SymbolOrder::Successor),
            "frequency" => Ok(SymbolOrder::Frequency),
            _ => Err(PathError::InvalidParameter(format!(
                "unknown symbol order {s:?} (expected successor or frequency)"
            ))),
        }
    }
}

/// Counters of one method.
#[derive(Debug, Clone)]
struct MethodCounters {
    /// Per block, offset of its counters in `counts` (blocks with fewer
    /// than two live out-edges have none).
    start: Vec<u32>,
    /// Counters in symbol order.
    counts: Vec<u32>,
    /// Per symbol, the successor index it stands for.
    succ_of: Vec<u32>,
    /// Per successor index, its symbol.
    symbol_of: Vec<u32>,
    totals: Vec<u64>,
}

/// The adaptive counters of every method of a [`Program`].
#[derive(Debug, Clone)]
pub struct AdaptiveModel {
    params: AdaptiveParams,
    methods: Vec<MethodCounters>,
}

impl AdaptiveModel {
    /// Fresh counters (all 1) for `program`.
    pub fn new(program: &Program, params: AdaptiveParams) -> Result<Self> {
        Self::from_edge_model(program, &EdgeModel::new(), params)
    }

    /// Counters for `program` initialised from a model file's counters,
    /// symbols in successor order.
    pub fn from_edge_model(
        program: &Program,
        model: &EdgeModel,
        params: AdaptiveParams,
    ) -> Result<Self> {
        Self::from_edge_model_with_order(program, model, params, SymbolOrder::Successor)
    }

    /// Counters for `program` initialised from a model file's counters, with
    /// the given symbol numbering.
    pub fn from_edge_model_with_order(
        program: &Program,
        model: &EdgeModel,
        params: AdaptiveParams,
        symbol_order: SymbolOrder,
    ) -> Result<Self> {
        params.check()?;
        let mut methods = Vec::with_capacity(program.len());
        for m in program.method_ids() {
            let cfg = program.cfg(m);
            let n = cfg.block_count();
            let mut start = vec![0u32; n + 1];
            let mut counts = Vec::new();
            let mut succ_of = Vec::new();
            let mut symbol_of = Vec::new();
            let mut totals = vec![0u64; n];
            for v in cfg.blocks() {
                start[v.index()] = counts.len() as u32;
                let succ = cfg.successors(v);
                if succ.len() < 2 {
                    continue;
                }
                if succ.len() > MAX_OUT_DEGREE {
                    return Err(PathError::Unsupported {
                        method: cfg.name().to_string(),
                        message: format!(
                            "AdapTracer: block {:?} has {} out-edges (at most {MAX_OUT_DEGREE})",
                            cfg.block_name(v),
                            succ.len()
                        ),
                    });
                }
                let from = cfg.block_name(v);
                let initial: Vec<u32> = succ
                    .iter()
                    .map(|&w| {
                        model
                            .counter(cfg.name(), from, cfg.block_name(w))
                            .unwrap_or(1)
                            .max(1)
                    })
                    .collect();
                let mut order: Vec<u32> = (0..succ.len() as u32).collect();
                if symbol_order == SymbolOrder::Frequency {
                    order.sort_by_key(|&i| std::cmp::Reverse(initial[i as usize]));
                }
                let mut inverse = vec![0u32; succ.len()];
                for (sym, &i) in order.iter().enumerate() {
                    inverse[i as usize] = sym as u32;
                }
                let first = counts.len();
                counts.extend(order.iter().map(|&i| initial[i as usize]));
                succ_of.extend_from_slice(&order);
                symbol_of.extend_from_slice(&inverse);
                let c = &mut counts[first..];
                let mut total: u64 = c.iter().map(|&x| u64::from(x)).sum();
                while total > MAX_TOTAL {
                    total = halve(c);
                }
                totals[v.index()] = total;
            }
            start[n] = counts.len() as u32;
            if counts.len() > u32::MAX as usize {
                return Err(PathError::Unsupported {
                    method: cfg.name().to_string(),
                    message: "too many edges".into(),
                });
            }
            methods.push(MethodCounters {
                start,
                counts,
                succ_of,
                symbol_of,
                totals,
            });
        }
        Ok(AdaptiveModel { params, methods })
    }

    /// The parameters.
    pub fn params(&self) -> AdaptiveParams {
        self.params
    }

    /// Number of methods the model covers.
    pub fn method_count(&self) -> usize {
        self.methods.len()
    }

    fn range(&self, m: MethodId, v: BlockId) -> std::ops::Range<usize> {
        let mc = &self.methods[m.index()];
        mc.start[v.index()] as usize..mc.start[v.index() + 1] as usize
    }

    /// Counters of block `v` of method `m` in symbol order (empty when the
    /// block has no choice).
    pub fn counters(&self, m: MethodId, v: BlockId) -> &[u32] {
        &self.methods[m.index()].counts[self.range(m, v)]
    }

    /// Per symbol of block `v`, the index into
    /// [`Cfg::successors`](crate::Cfg::successors) it stands for.
    pub fn symbol_order(&self, m: MethodId, v: BlockId) -> &[u32] {
        &self.methods[m.index()].succ_of[self.range(m, v)]
    }

    /// The symbol that codes out-edge `succ_index` of block `v` (what an
    /// instrumented probe passes to the coder).
    pub fn symbol(&self, m: MethodId, v: BlockId, succ_index: usize) -> usize {
        let r = self.range(m, v);
        self.methods[m.index()].symbol_of[r.start + succ_index] as usize
    }

    /// The successor index that symbol `sym` of block `v` stands for.
    pub fn successor_index(&self, m: MethodId, v: BlockId, sym: usize) -> usize {
        let r = self.range(m, v);
        self.methods[m.index()].succ_of[r.start + sym] as usize
    }

    /// Probability the model gives to symbol `s` of block `v` now.
    pub fn probability(&self, m: MethodId, v: BlockId, s: usize) -> f64 {
        let c = self.counters(m, v);
        f64::from(c[s]) / self.methods[m.index()].totals[v.index()] as f64
    }

    /// `(cum_low, freq, total)` of symbol `s` at block `v`.
    #[inline]
    pub(crate) fn interval(&self, m: MethodId, v: BlockId, s: usize) -> (u64, u64, u64) {
        let mc = &self.methods[m.index()];
        let base = mc.start[v.index()] as usize;
        let c = &mc.counts[base..base + s + 1];
        let cum: u64 = c[..s].iter().map(|&x| u64::from(x)).sum();
        (cum, u64::from(c[s]), mc.totals[v.index()])
    }

    /// Total count of block `v`.
    #[inline]
    pub(crate) fn total(&self, m: MethodId, v: BlockId) -> u64 {
        self.methods[m.index()].totals[v.index()]
    }

    /// The symbol whose interval contains `target`, with its interval.
    #[inline]
    pub(crate) fn find(&self, m: MethodId, v: BlockId, target: u64) -> (usize, u64, u64) {
        let mc = &self.methods[m.index()];
        let c = &mc.counts[mc.start[v.index()] as usize..mc.start[v.index() + 1] as usize];
        let mut cum = 0u64;
        for (s, &x) in c.iter().enumerate() {
            let next = cum + u64::from(x);
            if target < next {
                return (s, cum, u64::from(x));
            }
            cum = next;
        }
        unreachable!("target {target} beyond total {cum}")
    }

    /// Algorithm 1's update after symbol `s` of block `v` was coded.
    #[inline]
    pub(crate) fn update(&mut self, m: MethodId, v: BlockId, s: usize) {
        let inc = self.params.inc;
        let bound = u64::from(self.params.bound);
        let mc = &mut self.methods[m.index()];
        let base = mc.start[v.index()] as usize;
        let end = mc.start[v.index() + 1] as usize;
        let total = &mut mc.totals[v.index()];
        let c = &mut mc.counts[base..end];
        if u64::from(c[s]) + u64::from(inc) > bound || *total + u64::from(inc) > MAX_TOTAL {
            *total = halve(c);
        }
        c[s] += inc;
        *total += u64::from(inc);
    }

    /// Writes every counter into `model` (replacing the edges it covers).
    pub fn write_into(&self, program: &Program, model: &mut EdgeModel) {
        for m in program.method_ids() {
            let cfg: &Cfg = program.cfg(m);
            for v in cfg.blocks() {
                let succ = cfg.successors(v);
                for (&x, &i) in self.counters(m, v).iter().zip(self.symbol_order(m, v)) {
                    let w = succ[i as usize];
                    model.set_counter(cfg.name(), cfg.block_name(v), cfg.block_name(w), x);
                }
            }
        }
    }

    /// The counters as a fresh [`EdgeModel`].
    pub fn to_edge_model(&self, program: &Program) -> EdgeModel {
        let mut e = EdgeModel::new();
        self.write_into(program, &mut e);
        e
    }
}

/// Halves every counter (never below 1); returns the new total.
fn halve(c: &mut [u32]) -> u64 {
    let mut t = 0u64;
    for x in c.iter_mut() {
        *x = (*x >> 1).max(1);
        t += u64::from(*x);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::CfgBuilder;

    #[test]
    fn counters_grow_and_shrink() {
        let mut b = CfgBuilder::new("m");
        b.edge("A", "B")
            .edge("B", "C")
            .edge("C", "B")
            .edge("C", "D");
        let cfg = b.entry("A").exit("D").build().unwrap();
        let mut p = Program::new();
        let m = p.add_method(cfg, vec![]).unwrap();
        let params = AdaptiveParams { inc: 3, bound: 10 };
        let mut a = AdaptiveModel::new(&p, params).unwrap();
        let c = p.cfg(m).block_id("C").unwrap();
        assert_eq!(a.counters(m, c), &[1, 1]);
        a.update(m, c, 0);
        assert_eq!(a.counters(m, c), &[4, 1]);
        a.update(m, c, 0);
        a.update(m, c, 0);
        assert_eq!(a.counters(m, c), &[10, 1]);
        a.update(m, c, 0); // 13 > 10: shrink to [5, 1], then +3
        assert_eq!(a.counters(m, c), &[8, 1]);
        assert_eq!(a.total(m, c), 9);
        let e = a.to_edge_model(&p);
        assert_eq!(e.counter("m", "C", "B"), Some(8));
        let again = AdaptiveModel::from_edge_model(&p, &e, params).unwrap();
        assert_eq!(again.counters(m, c), &[8, 1]);
    }

    #[test]
    fn symbols_put_the_most_frequent_edge_first() {
        let mut b = CfgBuilder::new("m");
        b.edge("A", "X")
            .edge("A", "Y")
            .edge("A", "Z")
            .edge("X", "E");
        b.edge("Y", "E").edge("Z", "E");
        let cfg = b.entry("A").exit("E").build().unwrap();
        let mut p = Program::new();
        let m = p.add_method(cfg, vec![]).unwrap();
        let mut e = EdgeModel::new();
        e.set_counter("m", "A", "Y", 5);
        e.set_counter("m", "A", "Z", 9);
        let v = p.cfg(m).entry();
        let plain = AdaptiveModel::from_edge_model(&p, &e, AdaptiveParams::default()).unwrap();
        assert_eq!(plain.symbol_order(m, v), &[0, 1, 2]);
        assert_eq!(plain.counters(m, v), &[1, 5, 9]);
        let a = AdaptiveModel::from_edge_model_with_order(
            &p,
            &e,
            AdaptiveParams::default(),
            SymbolOrder::Frequency,
        )
        .unwrap();
        assert_eq!(a.symbol_order(m, v), &[2, 1, 0]);
        assert_eq!(a.counters(m, v), &[9, 5, 1]);
        assert_eq!(a.symbol(m, v, 2), 0);
        assert_eq!(a.successor_index(m, v, 2), 0);
        assert_eq!(a.to_edge_model(&p), {
            let mut x = e.clone();
            x.set_counter("m", "A", "X", 1);
            x
        });
    }
}
