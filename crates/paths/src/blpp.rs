//! Ball–Larus path profiling (BLPP) with back-edge dummy edges and DAG
//! splitting.
//!
//! Numbering: the back edges of the DFS from the entry are removed; each back
//! edge `v → w` becomes a dummy edge `v → EXIT`, and the path that follows it
//! starts at `w`. In reverse topological order every block `v` numbers its
//! live out-edges in declaration order: `Val(e) = NumPaths(v)` so far, then
//! `NumPaths(v) += NumPaths(target)` (1 for a dummy edge); `NumPaths(exit) = 1`.
//!
//! Encoding: `r = 0`; a DAG edge adds `Val(e)`; at the exit the id `r` is
//! emitted; on a back edge `v → w` the id `r + Val(v → EXIT)` is emitted and
//! `r = 0` restarts at `w`. A cyclic execution is the list of ids.
//!
//! Two choices this crate makes where Ball and Larus leave room:
//! - **Start-relative ids.** A path after a back edge is numbered among the
//!   paths *from `w`* (`r = 0`) rather than through a dummy `ENTRY → w` edge
//!   with its own `Val`. The decoder always knows `w` from the previous id's
//!   final dummy edge, so nothing is lost, and every id stays below `2^W`
//!   even when a method has more loop heads than `2^W`.
//! - **DAG splitting.** When some `NumPaths(v)` would exceed `2^W`, the
//!   successor of `v` with the most paths becomes a *cut* block: every edge
//!   into it is treated like a back edge (dummy edge to EXIT, a new id starts
//!   at the cut block). Cuts are chosen greedily in reverse topological order,
//!   then all values are recomputed. A block with more than `2^W` out-edges
//!   cannot be encoded and is reported.
//!
//! Regeneration walks forward from the segment's start block taking, at each
//! block, the out-edge with the largest `Val ≤` the remaining id.

use crate::cfg::{BlockId, Cfg};
use crate::error::{check_width, PathError, Result};

/// How an out-edge is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlppStep {
    /// A DAG edge: add `val` to the register and continue.
    Add(u64),
    /// A back edge or an edge into a cut block: emit `r + val`, then restart
    /// with `r = 0` at the target.
    Emit(u64),
}

/// BLPP numbering of one method for one word width.
#[derive(Debug, Clone)]
pub struct Blpp<'c> {
    cfg: &'c Cfg,
    width: u32,
    /// Per block, per live out-edge (in `Cfg::successors` order).
    steps: Vec<Vec<BlppStep>>,
    /// Per block, number of paths from it to the exit (≤ 2^W).
    num_paths: Vec<u128>,
    cut: Vec<bool>,
}

impl<'c> Blpp<'c> {
    /// Numbers `cfg` for ids of `width` bits (3..=64).
    pub fn new(cfg: &'c Cfg, width: u32) -> Result<Self> {
        check_width(width)?;
        let limit: u128 = 1u128 << width;
        let n = cfg.block_count();
        let mut cut = vec![false; n];
        let mut np = vec![0u128; n];
        // Phase 1: choose cut blocks greedily.
        for &v in cfg.postorder() {
            loop {
                let total = Self::count(cfg, v, &np, &cut);
                if total <= limit {
                    np[v.index()] = total;
                    break;
                }
                let best = cfg
                    .successors(v)
                    .iter()
                    .filter(|&&w| !cfg.is_back_edge(v, w) && !cut[w.index()] && np[w.index()] > 1)
                    .max_by_key(|&&w| np[w.index()]);
                match best {
                    Some(&w) => cut[w.index()] = true,
                    None => {
                        return Err(PathError::Unsupported {
                            method: cfg.name().to_string(),
                            message: format!(
                                "BLPP: block {:?} has {} out-edges, more than 2^{width} ids",
                                cfg.block_name(v),
                                cfg.successors(v).len()
                            ),
                        })
                    }
                }
            }
        }
        // Phase 2: exact values with the final cut set.
        let mut steps = vec![Vec::new(); n];
        for &v in cfg.postorder() {
            let mut total: u128 = if v == cfg.exit() { 1 } else { 0 };
            let mut s = Vec::with_capacity(cfg.successors(v).len());
            for &w in cfg.successors(v) {
                let val = total as u64;
                if cfg.is_back_edge(v, w) || cut[w.index()] {
                    s.push(BlppStep::Emit(val));
                    total += 1;
                } else {
                    s.push(BlppStep::Add(val));
                    total += np[w.index()];
                }
            }
            debug_assert!(total <= limit);
            np[v.index()] = total;
            steps[v.index()] = s;
        }
        Ok(Blpp {
            cfg,
            width,
            steps,
            num_paths: np,
            cut,
        })
    }

    fn count(cfg: &Cfg, v: BlockId, np: &[u128], cut: &[bool]) -> u128 {
        if v == cfg.exit() {
            return 1;
        }
        cfg.successors(v)
            .iter()
            .map(|&w| {
                if cfg.is_back_edge(v, w) || cut[w.index()] {
                    1
                } else {
                    np[w.index()]
                }
            })
            .sum()
    }

    /// The word width.
    pub fn width(&self) -> u32 {
        self.width
    }
    /// The CFG.
    pub fn cfg(&self) -> &Cfg {
        self.cfg
    }
    /// How the edge `from → to` (a live edge) is encoded.
    pub fn step(&self, from: BlockId, to: BlockId) -> Option<BlppStep> {
        let i = self.cfg.successor_index(from, to)?;
        Some(self.steps[from.index()][i])
    }
    /// Number of acyclic paths from `b` to the exit (a segment starting at
    /// `b` has an id below this).
    pub fn num_paths(&self, b: BlockId) -> u128 {
        self.num_paths[b.index()]
    }
    /// True if the splitting made `b` a segment start.
    pub fn is_cut(&self, b: BlockId) -> bool {
        self.cut[b.index()]
    }

    /// Encodes an entry-to-exit path as a list of path ids.
    pub fn encode(&self, path: &[BlockId]) -> Result<Vec<u64>> {
        self.cfg.check_path(path)?;
        let mut ids = Vec::new();
        let mut r: u64 = 0;
        for w in path.windows(2) {
            let i = self.cfg.successor_index(w[0], w[1]).expect("checked path");
            match self.steps[w[0].index()][i] {
                BlppStep::Add(v) => r += v,
                BlppStep::Emit(v) => {
                    ids.push(r + v);
                    r = 0;
                }
            }
        }
        ids.push(r);
        Ok(ids)
    }

    /// Regenerates the path from a list of ids.
    pub fn decode(&self, ids: &[u64]) -> Result<Vec<BlockId>> {
        let mut next = ids.iter().copied();
        let mut path = Vec::new();
        let used = self.decode_into(|| Ok(next.next()), &mut path)?;
        if used != ids.len() {
            let last = ids[used - 1];
            return Err(PathError::InvalidTrace {
                method: self.cfg.name().to_string(),
                message: format!(
                    "id {last} (item {}) reaches the exit but {} more ids follow",
                    used - 1,
                    ids.len() - used
                ),
            });
        }
        Ok(path)
    }

    /// Regenerates a path into `path` (cleared first), taking ids from
    /// `next` one at a time until the path reaches the exit (`None`: the ids
    /// ended early); returns how many ids it took. This is how a reader of
    /// a stream of records knows where a BLPP record ends.
    pub fn decode_into(&self, mut next: impl FnMut() -> Result<Option<u64>>, path: &mut Vec<BlockId>) -> Result<usize> {
        let bad = |message: String| PathError::InvalidTrace {
            method: self.cfg.name().to_string(),
            message,
        };
        path.clear();
        if !self.cfg.is_live(self.cfg.entry()) {
            return Err(bad("the exit is not reachable from the entry".into()));
        }
        let mut start = self.cfg.entry();
        let mut k = 0usize;
        loop {
            let Some(id) = next()? else {
                return Err(bad("the ids end before the exit".into()));
            };
            if u128::from(id) >= self.num_paths[start.index()] {
                return Err(bad(format!(
                    "id {id} (item {k}) is not below the {} paths from {:?}",
                    self.num_paths[start.index()],
                    self.cfg.block_name(start)
                )));
            }
            let mut cur = start;
            let mut rem = id;
            path.push(cur);
            loop {
                if cur == self.cfg.exit() {
                    return Ok(k + 1);
                }
                let steps = &self.steps[cur.index()];
                let i = steps.partition_point(|s| match *s {
                    BlppStep::Add(v) | BlppStep::Emit(v) => v <= rem,
                }) - 1;
                let w = self.cfg.successors(cur)[i];
                match steps[i] {
                    BlppStep::Add(v) => {
                        rem -= v;
                        path.push(w);
                        cur = w;
                    }
                    BlppStep::Emit(_) => {
                        start = w;
                        break;
                    }
                }
            }
            k += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::CfgBuilder;

    fn seed() -> Cfg {
        crate::cfg::seed_cfg()
    }

    #[test]
    fn seed_loop_is_one_id_per_iteration() {
        let c = seed();
        let bl = Blpp::new(&c, 3).unwrap();
        let p = c.resolve_path(&["A", "B", "C", "B", "C", "B", "C", "D"]).unwrap();
        let ids = bl.encode(&p).unwrap();
        // C has out-edges C→B (back, Val 0) and C→D (Val 1): A B C ends with
        // the back edge (id 0), B C likewise (0), the last B C D is id 1.
        assert_eq!(ids, vec![0, 0, 1]);
        assert_eq!(bl.decode(&ids).unwrap(), p);
    }

    #[test]
    fn diamond_ids_are_distinct_and_dense() {
        let mut b = CfgBuilder::new("d");
        b.edge("A", "B").edge("A", "C").edge("B", "D").edge("C", "D");
        b.edge("D", "E").edge("D", "F").edge("E", "G").edge("F", "G");
        let c = b.entry("A").exit("G").build().unwrap();
        let bl = Blpp::new(&c, 8).unwrap();
        assert_eq!(bl.num_paths(c.entry()), 4);
        let mut seen = Vec::new();
        for x in ["B", "C"] {
            for y in ["E", "F"] {
                let p = c.resolve_path(&["A", x, "D", y, "G"]).unwrap();
                let ids = bl.encode(&p).unwrap();
                assert_eq!(ids.len(), 1);
                assert_eq!(bl.decode(&ids).unwrap(), p);
                seen.push(ids[0]);
            }
        }
        seen.sort();
        assert_eq!(seen, vec![0, 1, 2, 3]);
    }

    #[test]
    fn splitting_keeps_ids_within_width() {
        // A chain of 10 diamonds has 1024 paths; width 3 forces cuts.
        let mut b = CfgBuilder::new("chain");
        for i in 0..10 {
            let (s, t) = (format!("S{i}"), format!("S{}", i + 1));
            b.edge(&s, &format!("L{i}")).edge(&s, &format!("R{i}"));
            b.edge(&format!("L{i}"), &t).edge(&format!("R{i}"), &t);
        }
        let c = b.entry("S0").exit("S10").build().unwrap();
        let bl = Blpp::new(&c, 3).unwrap();
        assert!(c.blocks().all(|v| bl.num_paths(v) <= 8));
        let mut names = vec!["S0".to_string()];
        for i in 0..10 {
            names.push(if i % 3 == 0 { format!("L{i}") } else { format!("R{i}") });
            names.push(format!("S{}", i + 1));
        }
        let p = c.resolve_path(&names).unwrap();
        let ids = bl.encode(&p).unwrap();
        assert!(ids.len() > 1 && ids.iter().all(|&i| i < 8));
        assert_eq!(bl.decode(&ids).unwrap(), p);
    }

    #[test]
    fn bad_ids_are_errors() {
        let c = seed();
        let bl = Blpp::new(&c, 3).unwrap();
        assert!(bl.decode(&[]).is_err());
        assert!(bl.decode(&[7]).is_err());
        assert!(bl.decode(&[1, 0]).is_err());
        assert!(bl.decode(&[0]).is_err());
    }

    #[test]
    fn too_many_out_edges_is_reported() {
        let mut b = CfgBuilder::new("sw");
        for i in 0..9 {
            b.edge("A", &format!("C{i}")).edge(&format!("C{i}"), "X");
        }
        let c = b.entry("A").exit("X").build().unwrap();
        let e = Blpp::new(&c, 3).unwrap_err().to_string();
        assert!(e.contains("9 out-edges"), "{e}");
        assert!(Blpp::new(&c, 4).is_ok());
    }
}
