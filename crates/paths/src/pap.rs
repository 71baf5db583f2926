//! PAP, "profiling all paths" (Li, Wang, Leung, Liu 2012): a mixed-radix
//! number built from in-edge choices, decoded backwards from the exit.
//!
//! Each live block `v` orders its in-edges: first every non-back edge, then
//! the back edges (declaration order within each group); the entry gets an
//! extra *start* in-edge at index 0. `radix(v)` = number of in-edges. On an
//! edge `u → v` with `radix(v) > 1` the probe computes
//! `r = r · radix(v) + index(u → v)`. If the result would not fit in `W`
//! bits, a *breakpoint* `(r, u)` is recorded first and `r` restarts at 0
//! before the update. At the exit, `r` is recorded. The trace reads
//! `r₀, u₀, r₁, u₁, …, r_k`.
//!
//! Decoding walks backwards from the exit with `r_k`: at a block with
//! radix > 1 the predecessor is `in(v)[r mod radix]` and `r = r div radix`,
//! otherwise the single predecessor; a segment ends at its start block (the
//! previous breakpoint's node, or the entry) once `r = 0`. Putting the
//! non-back in-edges first makes that stop unambiguous: with `r = 0` every
//! step follows an index-0 edge, which is never a back edge, so the walk
//! cannot come round to the start block again.
//!
//! With the seed's CFG (A→B, B→C, C→B, C→D), path A B C B C B C B C B C D
//! and W = 3, the trace is `7, C, 1`.

use crate::cfg::{BlockId, Cfg};
use crate::error::{check_width, word_max, PathError, Result};

/// One element of a PAP trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PapItem {
    /// A probe value (`W` bits).
    Value(u64),
    /// A breakpoint's block (`ceil(log2 #blocks)` bits).
    Node(BlockId),
}

/// PAP numbering of one method for one word width.
#[derive(Debug, Clone)]
pub struct Pap<'c> {
    cfg: &'c Cfg,
    width: u32,
    /// Per block: ordered in-edge sources; `None` is the entry's start edge.
    in_order: Vec<Vec<Option<BlockId>>>,
}

impl<'c> Pap<'c> {
    /// Prepares the probes of `cfg` for `width`-bit values (3..=64).
    pub fn new(cfg: &'c Cfg, width: u32) -> Result<Self> {
        check_width(width)?;
        let mut in_order = vec![Vec::new(); cfg.block_count()];
        for v in cfg.blocks().filter(|&v| cfg.is_live(v)) {
            let preds = cfg.predecessors(v);
            let mut order: Vec<Option<BlockId>> = Vec::with_capacity(preds.len() + 1);
            if v == cfg.entry() {
                order.push(None);
            }
            order.extend(preds.iter().filter(|&&u| !cfg.is_back_edge(u, v)).map(|&u| Some(u)));
            order.extend(preds.iter().filter(|&&u| cfg.is_back_edge(u, v)).map(|&u| Some(u)));
            if order.len() as u128 > u128::from(word_max(width)) + 1 {
                return Err(PathError::Unsupported {
                    method: cfg.name().to_string(),
                    message: format!(
                        "PAP: block {:?} has {} in-edges, more than 2^{width} values",
                        cfg.block_name(v),
                        order.len()
                    ),
                });
            }
            in_order[v.index()] = order;
        }
        Ok(Pap { cfg, width, in_order })
    }

    /// The word width.
    pub fn width(&self) -> u32 {
        self.width
    }
    /// Number of in-edges of `v` (the probe's radix; 1 means no probe).
    pub fn radix(&self, v: BlockId) -> u64 {
        self.in_order[v.index()].len() as u64
    }
    /// Index of the in-edge `from → to` (the probe's addend).
    pub fn in_index(&self, from: BlockId, to: BlockId) -> Option<u64> {
        self.in_order[to.index()]
            .iter()
            .position(|&u| u == Some(from))
            .map(|i| i as u64)
    }
    /// Bits of a breakpoint's node id: `ceil(log2 #blocks)`.
    pub fn node_bits(&self) -> u32 {
        node_id_bits(self.cfg.block_count())
    }

    /// Encodes an entry-to-exit path.
    pub fn encode(&self, path: &[BlockId]) -> Result<Vec<PapItem>> {
        self.cfg.check_path(path)?;
        let max = u128::from(word_max(self.width));
        let mut out = Vec::new();
        let mut r: u128 = 0;
        for w in path.windows(2) {
            let (u, v) = (w[0], w[1]);
            let radix = self.radix(v);
            if radix <= 1 {
                continue;
            }
            let idx = self.in_index(u, v).expect("checked path");
            let next = r * u128::from(radix) + u128::from(idx);
            if next > max {
                out.push(PapItem::Value(r as u64));
                out.push(PapItem::Node(u));
                r = u128::from(idx);
            } else {
                r = next;
            }
        }
        out.push(PapItem::Value(r as u64));
        Ok(out)
    }

    /// Decodes a trace backwards into the path.
    pub fn decode(&self, items: &[PapItem]) -> Result<Vec<BlockId>> {
        let mut path = Vec::new();
        self.decode_into(items, &mut path)?;
        Ok(path)
    }

    /// [`Pap::decode`] into `path` (cleared first), whose allocation a
    /// decoder of millions of invocations reuses.
    pub fn decode_into(&self, items: &[PapItem], path: &mut Vec<BlockId>) -> Result<()> {
        let bad = |message: String| PathError::InvalidTrace {
            method: self.cfg.name().to_string(),
            message,
        };
        // Items alternate value, breakpoint block, value, ..., value.
        for (i, it) in items.iter().enumerate() {
            match (i % 2, it) {
                (0, PapItem::Value(_)) => {}
                (1, PapItem::Node(b)) if b.index() < self.cfg.block_count() => {}
                (0, _) => return Err(bad(format!("item {i} should be a value"))),
                _ => return Err(bad(format!("item {i} should be a breakpoint block"))),
            }
        }
        if items.len() % 2 == 0 {
            return Err(bad("a trace must end with a value".into()));
        }
        let value = |k: usize| match items[2 * k] {
            PapItem::Value(v) => v,
            PapItem::Node(_) => unreachable!("checked above"),
        };
        let node = |k: usize| match items[2 * k + 1] {
            PapItem::Node(b) => b,
            PapItem::Value(_) => unreachable!("checked above"),
        };
        if !self.cfg.is_live(self.cfg.entry()) {
            return Err(bad("the exit is not reachable from the entry".into()));
        }
        let guard = (self.width as usize + 2) * (self.cfg.block_count() + 1) + 16;
        // Built backwards, then reversed.
        path.clear();
        path.push(self.cfg.exit());
        let mut end = self.cfg.exit();
        for k in (0..items.len().div_ceil(2)).rev() {
            let start = if k == 0 { self.cfg.entry() } else { node(k - 1) };
            if !self.cfg.is_live(start) {
                return Err(bad(format!(
                    "breakpoint block {:?} is not on any path",
                    self.cfg.block_name(start)
                )));
            }
            let mut r = value(k);
            let mut cur = end;
            let mut steps = 0usize;
            while !(cur == start && r == 0) {
                steps += 1;
                if steps > guard {
                    return Err(bad(format!("segment {k} does not lead back to its start")));
                }
                let order = &self.in_order[cur.index()];
                let pred = match order.len() {
                    0 => None,
                    1 => order[0],
                    // Most joins have two ways in: a shift, not a division.
                    2 => {
                        let idx = (r & 1) as usize;
                        r >>= 1;
                        order[idx]
                    }
                    n => {
                        let n = n as u64;
                        let idx = (r % n) as usize;
                        r /= n;
                        order[idx]
                    }
                };
                let Some(p) = pred else {
                    return Err(bad(format!(
                        "segment {k} reaches the method start with value left over"
                    )));
                };
                path.push(p);
                cur = p;
            }
            end = start;
        }
        path.reverse();
        Ok(())
    }
}

/// Bits of a block id in a CFG of `blocks` blocks: `ceil(log2 blocks)`.
pub fn node_id_bits(blocks: usize) -> u32 {
    if blocks <= 1 {
        0
    } else {
        usize::BITS - (blocks - 1).leading_zeros()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::CfgBuilder;

    #[test]
    fn seed_example_gives_7_c_1() {
        let c = crate::cfg::seed_cfg();
        let pap = Pap::new(&c, 3).unwrap();
        let p = c
            .resolve_path(&["A", "B", "C", "B", "C", "B", "C", "B", "C", "B", "C", "D"])
            .unwrap();
        let t = pap.encode(&p).unwrap();
        let cid = c.block_id("C").unwrap();
        assert_eq!(t, vec![PapItem::Value(7), PapItem::Node(cid), PapItem::Value(1)]);
        assert_eq!(pap.node_bits(), 2);
        assert_eq!(pap.decode(&t).unwrap(), p);
    }

    #[test]
    fn back_edge_listed_first_still_decodes() {
        // C→B declared before A→B: the non-back in-edge must still get index 0.
        let mut b = CfgBuilder::new("m");
        b.edge("C", "B").edge("A", "B").edge("B", "C").edge("C", "D");
        let c = b.entry("A").exit("D").build().unwrap();
        let pap = Pap::new(&c, 3).unwrap();
        let p = c.resolve_path(&["A", "B", "C", "B", "C", "D"]).unwrap();
        let t = pap.encode(&p).unwrap();
        assert_eq!(pap.decode(&t).unwrap(), p);
    }

    #[test]
    fn loop_at_entry_uses_start_edge() {
        let mut b = CfgBuilder::new("m");
        b.edge("A", "B").edge("B", "A").edge("B", "X");
        let c = b.entry("A").exit("X").build().unwrap();
        let pap = Pap::new(&c, 3).unwrap();
        for n in 1..12 {
            let mut names = vec![];
            for _ in 0..n {
                names.extend(["A", "B"]);
            }
            names.push("X");
            let p = c.resolve_path(&names).unwrap();
            let t = pap.encode(&p).unwrap();
            assert_eq!(pap.decode(&t).unwrap(), p, "{n} iterations: {t:?}");
        }
    }

    #[test]
    fn node_bits() {
        assert_eq!(node_id_bits(1), 0);
        assert_eq!(node_id_bits(2), 1);
        assert_eq!(node_id_bits(4), 2);
        assert_eq!(node_id_bits(5), 3);
    }

    #[test]
    fn malformed_traces_are_errors() {
        let c = crate::cfg::seed_cfg();
        let pap = Pap::new(&c, 3).unwrap();
        let a = c.block_id("A").unwrap();
        assert!(pap.decode(&[]).is_err());
        assert!(pap.decode(&[PapItem::Node(a)]).is_err());
        assert!(pap.decode(&[PapItem::Value(1), PapItem::Node(a)]).is_err());
        // 5 = 1 + 2·(0 + 2·1): after one loop turn the walk reaches A with 1 left over.
        assert!(pap.decode(&[PapItem::Value(5)]).is_err());
        assert!(pap.decode(&[PapItem::Value(3)]).is_ok());
        assert!(pap.decode(&[PapItem::Value(0)]).is_ok());
    }
}
