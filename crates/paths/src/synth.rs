//! Synthetic CFGs and paths for tests, benchmarks and demos.

use crate::cfg::{BlockId, Cfg, CfgBuilder, EdgeKind};
use crate::program::Program;
use std::collections::{HashSet, VecDeque};

/// A small deterministic pseudo-random generator (64-bit LCG).
#[derive(Debug, Clone)]
pub struct Lcg(pub u64);

impl Lcg {
    /// The next 31-bit value.
    pub fn next_u32(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
    /// A value in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        ((u64::from(self.next_u32()) * n as u64) >> 31) as usize
    }
}

/// A random program of `methods` methods `m0…`, each a [`random_program`]
/// CFG with its own seed, size, extra edges and dead blocks.
pub fn random_methods(seed: u64, methods: usize) -> Program {
    let mut p = Program::new();
    for i in 0..methods {
        let s = seed.wrapping_mul(31).wrapping_add(i as u64);
        let one = random_program(s, 3 + (s % 9) as usize, (s % 13) as usize, (s % 3) as usize);
        let cfg = one.cfg(crate::program::MethodId(0));
        let mut b = CfgBuilder::new(format!("m{i}"));
        for v in cfg.blocks() {
            b.block(cfg.block_name(v));
        }
        for &(f, t, kind) in cfg.edges() {
            b.edge_of_kind(cfg.block_name(f), cfg.block_name(t), kind);
        }
        b.entry(cfg.block_name(cfg.entry())).exit(cfg.block_name(cfg.exit()));
        p.add_method(b.build().expect("a random_program CFG"), vec![])
            .expect("distinct method names");
    }
    p
}

/// A random one-method program named `m`: a spine `b0 → … → b{n−1}` (the
/// exit), `extra` random edges (loops, self-loops, switches, some exception
/// edges) and `dead` blocks that are unreachable or cannot reach the exit.
/// In-degree stays ≤ 7 and out-degree ≤ 8, so BLPP and PAP fit 3-bit words.
pub fn random_program(seed: u64, n: usize, extra: usize, dead: usize) -> Program {
    assert!(n >= 2);
    let mut rng = Lcg(seed);
    let name = |i: usize| format!("b{i}");
    let mut b = CfgBuilder::new("m");
    let mut indeg = vec![0usize; n + dead];
    let mut outdeg = vec![0usize; n + dead];
    let mut seen = HashSet::new();
    let mut add = |b: &mut CfgBuilder, f: usize, t: usize, kind: EdgeKind| {
        if f == n - 1 || indeg[t] >= 7 || outdeg[f] >= 8 || !seen.insert((f, t)) {
            return;
        }
        indeg[t] += 1;
        outdeg[f] += 1;
        b.edge_of_kind(&name(f), &name(t), kind);
    };
    for i in 0..n - 1 {
        add(&mut b, i, i + 1, EdgeKind::Normal);
    }
    for _ in 0..extra {
        let f = rng.below(n);
        let t = rng.below(n);
        let kind = if rng.below(5) == 0 {
            EdgeKind::Exception
        } else {
            EdgeKind::Normal
        };
        add(&mut b, f, t, kind);
    }
    for d in n..n + dead {
        if rng.below(2) == 0 {
            let t = rng.below(n);
            add(&mut b, d, t, EdgeKind::Normal);
        } else {
            let f = rng.below(n - 1);
            add(&mut b, f, d, EdgeKind::Normal);
        }
    }
    b.entry(&name(0)).exit(&name(n - 1));
    let mut p = Program::new();
    p.add_method(b.build().expect("valid synthetic CFG"), vec![])
        .expect("one method");
    p
}

/// A random entry-to-exit walk: while shorter than `len` it takes random
/// live out-edges avoiding the exit when it can, then the shortest way out.
/// `bias` (0..=100) is the percentage of steps that repeat the block's
/// previous choice, which makes branches predictable like real code.
pub fn random_path(cfg: &Cfg, seed: u64, len: usize, bias: u32) -> Vec<BlockId> {
    let mut rng = Lcg(seed ^ 0x9e37_79b9_7f4a_7c15);
    let mut dist = vec![usize::MAX; cfg.block_count()];
    dist[cfg.exit().index()] = 0;
    let mut q = VecDeque::from([cfg.exit()]);
    while let Some(v) = q.pop_front() {
        for &u in cfg.predecessors(v) {
            if dist[u.index()] == usize::MAX {
                dist[u.index()] = dist[v.index()] + 1;
                q.push_back(u);
            }
        }
    }
    let mut last: Vec<Option<BlockId>> = vec![None; cfg.block_count()];
    let mut cur = cfg.entry();
    let mut path = vec![cur];
    while cur != cfg.exit() {
        let succ = cfg.successors(cur);
        let next = if path.len() < len {
            let stay: Vec<BlockId> = succ.iter().copied().filter(|&w| w != cfg.exit()).collect();
            match last[cur.index()] {
                Some(prev) if stay.contains(&prev) && rng.below(100) < bias as usize => prev,
                _ if !stay.is_empty() => stay[rng.below(stay.len())],
                _ => succ[rng.below(succ.len())],
            }
        } else {
            *succ.iter().min_by_key(|w| dist[w.index()]).expect("live block")
        };
        last[cur.index()] = Some(next);
        cur = next;
        path.push(cur);
    }
    path
}
