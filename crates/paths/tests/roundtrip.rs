//! Property tests: decode(encode(path)) == path for random CFGs, random
//! paths, every scheme and every width 3..=64.

use proptest::prelude::*;
use std::collections::VecDeque;
use tracekit_paths::*;

/// A small deterministic generator for walks (proptest supplies the seed).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A random CFG: a spine 0→1→…→n−1 (exit), random extra edges (loops,
/// self-loops, switches), exception edges, and a few blocks that are
/// unreachable or cannot reach the exit. In-degree ≤ 7 and out-degree ≤ 8
/// so BLPP and PAP fit even 3-bit words.
fn random_program(seed: u64, n: usize, extra_edges: usize, dead: usize) -> Program {
    let mut rng = Lcg(seed);
    let name = |i: usize| format!("b{i}");
    let mut b = CfgBuilder::new("m");
    let mut indeg = vec![0usize; n + dead];
    let mut outdeg = vec![0usize; n + dead];
    let mut seen = std::collections::HashSet::new();
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
    for _ in 0..extra_edges {
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
        // Unreachable (edges into the graph) or dead end (edges from it).
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
    p.add_method(b.build().unwrap(), vec![]).unwrap();
    p
}

/// A random entry-to-exit walk of about `len` edges: random live edges,
/// then the shortest way to the exit.
fn random_path(cfg: &Cfg, seed: u64, len: usize) -> Vec<BlockId> {
    let mut rng = Lcg(seed ^ 0x9e37_79b9_7f4a_7c15);
    // Distance to the exit over live edges.
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
    let mut cur = cfg.entry();
    let mut path = vec![cur];
    while cur != cfg.exit() {
        let succ = cfg.successors(cur);
        let stay: Vec<BlockId> = succ.iter().copied().filter(|&w| w != cfg.exit()).collect();
        cur = if path.len() < len && !stay.is_empty() {
            stay[rng.below(stay.len())]
        } else {
            *succ.iter().min_by_key(|w| dist[w.index()]).unwrap()
        };
        path.push(cur);
    }
    path
}

fn check_all_schemes(
    program: &Program,
    paths: &[Vec<BlockId>],
    width: u32,
    params: AdaptiveParams,
) {
    let m = program.method_id("m").unwrap();
    for scheme in [Scheme::Blpp, Scheme::Pap] {
        let codec = Codec::new(program, m, scheme, width).unwrap();
        for p in paths {
            let t = codec.encode(None, p).unwrap();
            for it in &t.items {
                if let TraceItem::Word(w) = it {
                    assert!(width == 64 || *w < 1u64 << width);
                }
            }
            assert_eq!(
                &codec.decode(None, &t.items).unwrap(),
                p,
                "{scheme} W={width}"
            );
        }
    }
    // AdapTracer: one model across invocations on each side.
    let at = AdapTracer::new(program, width).unwrap();
    let mut enc = AdaptiveModel::new(program, params).unwrap();
    let mut dec = enc.clone();
    for p in paths {
        let t = at.encode(&mut enc, m, p).unwrap();
        assert!(width == 64 || t.words.iter().all(|&w| w < 1u64 << width));
        assert_eq!(
            &at.decode(&mut dec, m, &t.words).unwrap(),
            p,
            "adaptracer W={width}"
        );
        // Near-optimal: the words hold at most ideal + 2 bits, plus padding.
        let bits = (t.words.len() as u64 * u64::from(width)) as f64;
        assert!(bits <= t.ideal_bits + 2.0 + f64::from(width) + 1e-6 * t.ideal_bits);
    }
    assert_eq!(enc.to_edge_model(program), dec.to_edge_model(program));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn small_cfgs_and_paths_roundtrip(
        seed in any::<u64>(),
        n in 2usize..24,
        extra in 0usize..40,
        dead in 0usize..4,
        len in 0usize..300,
        width in 3u32..=64,
        inc in 0u32..6,
        bound in 1u32..5000,
    ) {
        let program = random_program(seed, n, extra, dead);
        let cfg = program.cfg(MethodId(0));
        let paths: Vec<_> = (0..3).map(|k| random_path(cfg, seed.wrapping_add(k), len)).collect();
        check_all_schemes(&program, &paths, width, AdaptiveParams { inc, bound });
    }
}

#[test]
fn every_width_on_one_loopy_cfg() {
    let program = random_program(7, 12, 25, 2);
    let cfg = program.cfg(MethodId(0));
    let paths: Vec<_> = (0..4).map(|k| random_path(cfg, k, 2000)).collect();
    for width in 3..=64 {
        check_all_schemes(&program, &paths, width, AdaptiveParams::default());
    }
}

#[test]
fn million_edge_paths_roundtrip() {
    // The first seeds whose random CFG lets a walk go on that long.
    let mut done = 0;
    for seed in 0u64..100 {
        let program = random_program(seed, 16, 30, 2);
        let cfg = program.cfg(MethodId(0));
        let path = random_path(cfg, seed, 1_000_000);
        if path.len() <= 1_000_000 {
            continue;
        }
        let width = [3, 64, 29][done];
        check_all_schemes(&program, &[path], width, AdaptiveParams::default());
        done += 1;
        if done == 3 {
            return;
        }
    }
    panic!("only {done} seeds gave long walks");
}
