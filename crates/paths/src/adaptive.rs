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
//!
//! **Run contexts** ([`ContextKind::Runs`], opt-in). A block with
//! `2 ≤ k ≤ 16` symbols then keeps `2k` counter sets instead of one and
//! picks the set from its own history: `last` (the symbol it coded last,
//! initially 0), `run` (how many times in a row it coded `last`, initially
//! 0) and `last_run[s]` (the length of the most recent finished run of each
//! symbol, initially 0). The set is `2·last + (run > 0 && run == last_run[last])`.
//! After coding `s` (and updating that set's counters as above):
//! `if s == last { run += 1 } else { last_run[last] = run; last = s; run = 1 }`.
//! A loop whose trip count repeats then costs almost nothing per execution:
//! when the current run reaches the previous trip count, the exit's own
//! counter set predicts it. Blocks with more than 16 symbols keep one set.

use crate::arith::MAX_TOTAL;
use crate::cfg::{BlockId, Cfg};
use crate::edge_model::EdgeModel;
use crate::error::{PathError, Result};
pub use crate::model_options::{ContextKind, ModelOptions, SymbolOrder, MAX_CONTEXT_SYMBOLS};
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
        AdaptiveParams { inc: 3, bound: 65535 }
    }
}

impl AdaptiveParams {
    /// Checks `1 ≤ bound` and `inc ≤ 2^18`.
    pub fn check(&self) -> Result<()> {
        if self.bound == 0 {
            return Err(PathError::InvalidParameter("bound must be at least 1".into()));
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

/// Counters of one method.
#[derive(Debug, Clone)]
struct MethodCounters {
    /// Per block, offset of its per-symbol entries (`succ_of`, `symbol_of`,
    /// `last_run`); blocks with fewer than two live out-edges have none.
    start: Vec<u32>,
    /// Per symbol, the successor index it stands for.
    succ_of: Vec<u32>,
    /// Per successor index, its symbol.
    symbol_of: Vec<u32>,
    /// Per symbol, the length of its last finished run (run contexts).
    last_run: Vec<u32>,
    /// Per block, offset of its counter sets in `counts` (sets × k).
    cstart: Vec<u32>,
    /// Counters, set after set, each in symbol order.
    counts: Vec<u32>,
    /// Per block, offset of its sets' totals in `totals`.
    tstart: Vec<u32>,
    totals: Vec<u64>,
    /// Per block: last symbol and current run length (run contexts).
    last: Vec<u32>,
    run: Vec<u32>,
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
    pub fn from_edge_model(program: &Program, model: &EdgeModel, params: AdaptiveParams) -> Result<Self> {
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
        let options = ModelOptions {
            symbol_order,
            ..ModelOptions::default()
        };
        Self::from_edge_model_with_options(program, model, params, options)
    }

    /// Counters for `program` initialised from a model file's counters
    /// (per-context rows where the file has them), with the given options.
    pub fn from_edge_model_with_options(
        program: &Program,
        model: &EdgeModel,
        params: AdaptiveParams,
        options: ModelOptions,
    ) -> Result<Self> {
        params.check()?;
        let mut methods = Vec::with_capacity(program.len());
        for m in program.method_ids() {
            methods.push(Self::method_counters(program.cfg(m), model, options)?);
        }
        Ok(AdaptiveModel { params, methods })
    }

    fn method_counters(cfg: &Cfg, model: &EdgeModel, options: ModelOptions) -> Result<MethodCounters> {
        let n = cfg.block_count();
        let mut mc = MethodCounters {
            start: vec![0; n + 1],
            succ_of: Vec::new(),
            symbol_of: Vec::new(),
            last_run: Vec::new(),
            cstart: vec![0; n + 1],
            counts: Vec::new(),
            tstart: vec![0; n + 1],
            totals: Vec::new(),
            last: vec![0; n],
            run: vec![0; n],
        };
        for v in cfg.blocks() {
            mc.start[v.index()] = mc.succ_of.len() as u32;
            mc.cstart[v.index()] = mc.counts.len() as u32;
            mc.tstart[v.index()] = mc.totals.len() as u32;
            let succ = cfg.successors(v);
            let k = succ.len();
            if k < 2 {
                continue;
            }
            if k > MAX_OUT_DEGREE {
                return Err(PathError::Unsupported {
                    method: cfg.name().to_string(),
                    message: format!(
                        "AdapTracer: block {:?} has {k} out-edges (at most {MAX_OUT_DEGREE})",
                        cfg.block_name(v)
                    ),
                });
            }
            let from = cfg.block_name(v);
            let plain: Vec<u32> = succ
                .iter()
                .map(|&w| model.counter(cfg.name(), from, cfg.block_name(w)).unwrap_or(1).max(1))
                .collect();
            let mut order: Vec<u32> = (0..k as u32).collect();
            if options.symbol_order == SymbolOrder::Frequency {
                order.sort_by_key(|&i| std::cmp::Reverse(plain[i as usize]));
            }
            let mut inverse = vec![0u32; k];
            for (sym, &i) in order.iter().enumerate() {
                inverse[i as usize] = sym as u32;
            }
            mc.succ_of.extend_from_slice(&order);
            mc.symbol_of.extend_from_slice(&inverse);
            mc.last_run.resize(mc.last_run.len() + k, 0);
            let sets = if options.context == ContextKind::Runs && k <= MAX_CONTEXT_SYMBOLS {
                2 * k
            } else {
                1
            };
            for set in 0..sets {
                let first = mc.counts.len();
                mc.counts.extend(order.iter().map(|&i| {
                    let to = cfg.block_name(succ[i as usize]);
                    match sets {
                        1 => plain[i as usize],
                        _ => model
                            .context_counter(cfg.name(), from, to, set as u32)
                            .unwrap_or(plain[i as usize])
                            .max(1),
                    }
                }));
                let c = &mut mc.counts[first..];
                let mut total: u64 = c.iter().map(|&x| u64::from(x)).sum();
                while total > MAX_TOTAL {
                    total = halve(c);
                }
                mc.totals.push(total);
            }
        }
        mc.start[n] = mc.succ_of.len() as u32;
        mc.cstart[n] = mc.counts.len() as u32;
        mc.tstart[n] = mc.totals.len() as u32;
        if mc.counts.len() > u32::MAX as usize {
            return Err(PathError::Unsupported {
                method: cfg.name().to_string(),
                message: "too many edges".into(),
            });
        }
        Ok(mc)
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

    /// Number of counter sets of block `v` (1 without run contexts).
    pub fn context_count(&self, m: MethodId, v: BlockId) -> usize {
        let mc = &self.methods[m.index()];
        (mc.tstart[v.index() + 1] - mc.tstart[v.index()]) as usize
    }

    /// The counter set block `v` codes its next choice with.
    #[inline]
    pub fn current_context(&self, m: MethodId, v: BlockId) -> usize {
        let mc = &self.methods[m.index()];
        if mc.tstart[v.index() + 1] - mc.tstart[v.index()] <= 1 {
            return 0;
        }
        let (last, run) = (mc.last[v.index()], mc.run[v.index()]);
        let done = run > 0 && run == mc.last_run[mc.start[v.index()] as usize + last as usize];
        2 * last as usize + usize::from(done)
    }

    /// Counters of set `set` of block `v`, in symbol order.
    pub fn context_counters(&self, m: MethodId, v: BlockId, set: usize) -> &[u32] {
        let mc = &self.methods[m.index()];
        let k = self.range(m, v).len();
        let base = mc.cstart[v.index()] as usize + set * k;
        &mc.counts[base..base + k]
    }

    /// Counters of block `v` of method `m` in symbol order (the first set
    /// with run contexts; empty when the block has no choice).
    pub fn counters(&self, m: MethodId, v: BlockId) -> &[u32] {
        self.context_counters(m, v, 0)
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
        let (_, freq, total) = self.interval(m, v, s);
        freq as f64 / total as f64
    }

    /// Counters and total of the set block `v` codes with now.
    #[inline]
    fn current_set(&self, m: MethodId, v: BlockId) -> (&[u32], u64) {
        let set = self.current_context(m, v);
        let mc = &self.methods[m.index()];
        (
            self.context_counters(m, v, set),
            mc.totals[mc.tstart[v.index()] as usize + set],
        )
    }

    /// `(cum_low, freq, total)` of symbol `s` at block `v`.
    #[inline]
    pub(crate) fn interval(&self, m: MethodId, v: BlockId, s: usize) -> (u64, u64, u64) {
        let (c, total) = self.current_set(m, v);
        let cum: u64 = c[..s].iter().map(|&x| u64::from(x)).sum();
        (cum, u64::from(c[s]), total)
    }

    /// Codes symbol `s` of block `v` with `code(cum, freq, total)`, then
    /// updates; the counter set is looked up once.
    #[inline]
    pub(crate) fn code_with(&mut self, m: MethodId, v: BlockId, s: usize, code: impl FnOnce(u64, u64, u64)) {
        let set = self.current_context(m, v);
        let (cum, freq, total) = {
            let c = self.context_counters(m, v, set);
            let mc = &self.methods[m.index()];
            let cum: u64 = c[..s].iter().map(|&x| u64::from(x)).sum();
            (cum, u64::from(c[s]), mc.totals[mc.tstart[v.index()] as usize + set])
        };
        code(cum, freq, total);
        self.update_set(m, v, set, s);
    }

    /// Decodes a symbol of block `v` from `dec`, then updates; the counter
    /// set is looked up once. Returns the symbol.
    #[inline]
    pub(crate) fn decode_with(&mut self, m: MethodId, v: BlockId, dec: &mut crate::arith::Decoder<'_>) -> usize {
        let set = self.current_context(m, v);
        let (s, cum, freq, total) = {
            let c = self.context_counters(m, v, set);
            let mc = &self.methods[m.index()];
            let total = mc.totals[mc.tstart[v.index()] as usize + set];
            let t = dec.target(total);
            let mut cum = 0u64;
            let mut found = None;
            for (s, &x) in c.iter().enumerate() {
                let next = cum + u64::from(x);
                if t < next {
                    found = Some((s, cum, u64::from(x)));
                    break;
                }
                cum = next;
            }
            let (s, cum, freq) = found.expect("the target is below the total");
            (s, cum, freq, total)
        };
        dec.consume(cum, freq, total);
        self.update_set(m, v, set, s);
        s
    }

    /// Algorithm 1's update after symbol `s` of block `v` was coded, then the
    /// run-context history.
    pub(crate) fn update(&mut self, m: MethodId, v: BlockId, s: usize) {
        let set = self.current_context(m, v);
        self.update_set(m, v, set, s);
    }

    /// Updates the counters along `path` (an entry-to-exit path of `m`,
    /// checked) as coding it would, without coding: the decoder's side of
    /// the seed's model update.
    pub fn observe_path(&mut self, program: &crate::program::Program, m: MethodId, path: &[BlockId]) -> Result<()> {
        let cfg = program.cfg(m);
        cfg.check_path(path)?;
        for w in path.windows(2) {
            if cfg.successors(w[0]).len() > 1 {
                let i = cfg.successor_index(w[0], w[1]).expect("checked path");
                let s = self.symbol(m, w[0], i);
                self.update(m, w[0], s);
            }
        }
        Ok(())
    }

    /// [`Self::update`] for counter set `set`.
    #[inline]
    fn update_set(&mut self, m: MethodId, v: BlockId, set: usize, s: usize) {
        let k = self.range(m, v).len();
        let inc = self.params.inc;
        let bound = u64::from(self.params.bound);
        let mc = &mut self.methods[m.index()];
        let base = mc.cstart[v.index()] as usize + set * k;
        let total = &mut mc.totals[mc.tstart[v.index()] as usize + set];
        let c = &mut mc.counts[base..base + k];
        if u64::from(c[s]) + u64::from(inc) > bound || *total + u64::from(inc) > MAX_TOTAL {
            *total = halve(c);
        }
        c[s] += inc;
        *total += u64::from(inc);
        let i = v.index();
        if mc.last[i] == s as u32 {
            mc.run[i] += 1;
        } else {
            let slot = mc.start[i] as usize + mc.last[i] as usize;
            mc.last_run[slot] = mc.run[i];
            mc.last[i] = s as u32;
            mc.run[i] = 1;
        }
    }

    /// Writes every counter into `model` (replacing the edges it covers).
    /// With run contexts, each edge's plain counter is `1 + Σ (c − 1)` over
    /// its sets and every set is also written as a context row.
    pub fn write_into(&self, program: &Program, model: &mut EdgeModel) {
        for m in program.method_ids() {
            let cfg: &Cfg = program.cfg(m);
            for v in cfg.blocks() {
                let succ = cfg.successors(v);
                let sets = self.context_count(m, v);
                for (sym, &i) in self.symbol_order(m, v).iter().enumerate() {
                    let (from, to) = (cfg.block_name(v), cfg.block_name(succ[i as usize]));
                    let mut plain: u64 = 1;
                    for set in 0..sets {
                        let c = self.context_counters(m, v, set)[sym];
                        plain += u64::from(c) - 1;
                        if sets > 1 {
                            model.set_context_counter(cfg.name(), from, to, set as u32, c);
                        }
                    }
                    model.set_counter(cfg.name(), from, to, plain.min(u64::from(u32::MAX)) as u32);
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
        b.edge("A", "B").edge("B", "C").edge("C", "B").edge("C", "D");
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
        assert_eq!(a.interval(m, c, 1), (8, 1, 9));
        let e = a.to_edge_model(&p);
        assert_eq!(e.counter("m", "C", "B"), Some(8));
        let again = AdaptiveModel::from_edge_model(&p, &e, params).unwrap();
        assert_eq!(again.counters(m, c), &[8, 1]);
    }

    #[test]
    fn run_contexts_learn_a_repeating_trip_count() {
        // C→B continues the loop, C→D leaves it: 6 turns per execution.
        let cfg = crate::cfg::seed_cfg();
        let mut p = Program::new();
        let m = p.add_method(cfg, vec![]).unwrap();
        let c = p.cfg(m).block_id("C").unwrap();
        let opts = |context| ModelOptions {
            context,
            ..ModelOptions::default()
        };
        let cost = |context| {
            let mut a = AdaptiveModel::from_edge_model_with_options(
                &p,
                &EdgeModel::new(),
                AdaptiveParams::default(),
                opts(context),
            )
            .unwrap();
            let mut bits = 0.0;
            for _ in 0..50 {
                for turn in 0..6 {
                    let s = usize::from(turn == 5);
                    let (_, f, t) = a.interval(m, c, s);
                    bits += (t as f64 / f as f64).log2();
                    a.update(m, c, s);
                }
            }
            (bits, a)
        };
        let (plain, _) = cost(ContextKind::None);
        let (runs, a) = cost(ContextKind::Runs);
        assert_eq!(a.context_count(m, c), 4);
        assert!(plain > 150.0, "order-0 pays for every exit: {plain}");
        assert!(runs < 40.0, "the exit at the learned trip count is cheap: {runs}");
        // Contexts survive the model file.
        let e = a.to_edge_model(&p);
        assert!(e.iter_contexts().count() == 8);
        let b = AdaptiveModel::from_edge_model_with_options(&p, &e, AdaptiveParams::default(), opts(ContextKind::Runs))
            .unwrap();
        for set in 0..4 {
            assert_eq!(a.context_counters(m, c, set), b.context_counters(m, c, set));
        }
    }

    #[test]
    fn symbols_put_the_most_frequent_edge_first() {
        let mut b = CfgBuilder::new("m");
        b.edge("A", "X").edge("A", "Y").edge("A", "Z").edge("X", "E");
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
        let a = AdaptiveModel::from_edge_model_with_order(&p, &e, AdaptiveParams::default(), SymbolOrder::Frequency)
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
