//! Property tests: decode(encode(path)) == path for random CFGs, random
//! paths, every scheme and every width 3..=64.

use proptest::prelude::*;
use tracekit_paths::*;

fn random_program(seed: u64, n: usize, extra: usize, dead: usize) -> Program {
    synth::random_program(seed, n, extra, dead)
}

fn random_path(cfg: &Cfg, seed: u64, len: usize) -> Vec<BlockId> {
    synth::random_path(cfg, seed, len, (seed % 90) as u32)
}

/// Model options the AdapTracer checks go through: all four combinations,
/// or (for the big cases) the default and the richest one.
const ALL_OPTIONS: [(SymbolOrder, ContextKind); 4] = [
    (SymbolOrder::Successor, ContextKind::None),
    (SymbolOrder::Frequency, ContextKind::None),
    (SymbolOrder::Successor, ContextKind::Runs),
    (SymbolOrder::Frequency, ContextKind::Runs),
];

fn check_all_schemes(program: &Program, paths: &[Vec<BlockId>], width: u32, params: AdaptiveParams) {
    check_schemes(program, paths, width, params, &ALL_OPTIONS);
}

fn check_schemes(
    program: &Program,
    paths: &[Vec<BlockId>],
    width: u32,
    params: AdaptiveParams,
    options: &[(SymbolOrder, ContextKind)],
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
            assert_eq!(&codec.decode(None, &t.items).unwrap(), p, "{scheme} W={width}");
        }
    }
    // AdapTracer: one model across invocations on each side, with every
    // combination of symbol order and counter-set selection.
    let at = AdapTracer::new(program, width).unwrap();
    for &(symbol_order, context) in options {
        let options = ModelOptions { symbol_order, context };
        // A learned starting model exercises frequency order and context rows.
        let mut warm =
            AdaptiveModel::from_edge_model_with_options(program, &EdgeModel::new(), params, options).unwrap();
        if let Some(p) = paths.first() {
            at.encode(&mut warm, m, p).unwrap();
        }
        let start = warm.to_edge_model(program);
        let mut enc = AdaptiveModel::from_edge_model_with_options(program, &start, params, options).unwrap();
        let mut dec = enc.clone();
        for p in paths {
            let t = at.encode(&mut enc, m, p).unwrap();
            assert!(width == 64 || t.words.iter().all(|&w| w < 1u64 << width));
            assert_eq!(
                &at.decode(&mut dec, m, &t.words).unwrap(),
                p,
                "adaptracer W={width} {options:?}"
            );
            // Near-optimal: the words hold at most ideal + 2 bits, plus padding.
            let bits = (t.words.len() as u64 * u64::from(width)) as f64;
            assert!(bits <= t.ideal_bits + 2.0 + f64::from(width) + 1e-6 * t.ideal_bits);
        }
        assert_eq!(enc.to_edge_model(program), dec.to_edge_model(program));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

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
        let options = [ALL_OPTIONS[0], ALL_OPTIONS[3]];
        check_schemes(&program, &[path], width, AdaptiveParams::default(), &options);
        done += 1;
        if done == 3 {
            return;
        }
    }
    panic!("only {done} seeds gave long walks");
}

/// A random program of `methods` methods where method i may call methods
/// j > i (an acyclic call graph) from random blocks.
fn random_call_program(seed: u64, methods: usize) -> Program {
    let mut rng = synth::Lcg(seed);
    let mut specs = Vec::new();
    for i in 0..methods {
        let one = synth::random_program(seed.wrapping_add(i as u64 * 7919), 2 + rng.below(8), rng.below(12), 1);
        let cfg = one.cfg(MethodId(0));
        let edges: Vec<EdgeSpec> = cfg
            .edges()
            .iter()
            .map(|&(f, t, _)| EdgeSpec::Plain(cfg.block_name(f).into(), cfg.block_name(t).into()))
            .collect();
        let mut calls = std::collections::BTreeMap::new();
        if i + 1 < methods {
            for _ in 0..rng.below(3) {
                let b = cfg.block_name(BlockId(rng.below(cfg.block_count()) as u32)).to_string();
                let callee = format!("f{}", i + 1 + rng.below(methods - i - 1));
                calls.entry(b).or_insert_with(Vec::new).push(callee);
            }
        }
        specs.push(MethodSpec {
            name: format!("f{i}"),
            entry: cfg.block_name(cfg.entry()).into(),
            exit: Some(cfg.block_name(cfg.exit()).into()),
            edges,
            blocks: vec![],
            calls,
        });
    }
    Program::from_specs(&specs).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Interprocedural AdapTracer: an invocation tree decoded from random
    /// words (a valid tree by construction) re-encodes to words that decode
    /// to the same tree, with identical counters on both sides.
    #[test]
    fn interprocedural_trees_roundtrip(
        seed in any::<u64>(),
        methods in 1usize..5,
        words in prop::collection::vec(any::<u64>(), 0..6),
        width in 3u32..=64,
    ) {
        let program = random_call_program(seed, methods);
        let root = MethodId(0);
        let mask = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
        let words: Vec<u64> = words.iter().map(|w| w & mask).collect();
        let at = AdapTracer::new(&program, width).unwrap().with_max_steps(200_000);
        let params = AdaptiveParams { inc: 1 + (seed % 4) as u32, bound: 50 };
        let mut m0 = AdaptiveModel::new(&program, params).unwrap();
        let Ok(tree) = at.decode_visits(&mut m0, root, &words) else {
            // Zeros past the end may loop forever in some CFGs: the guard fires.
            return Ok(());
        };
        let mut enc = AdaptiveModel::new(&program, params).unwrap();
        let mut dec = enc.clone();
        let t = at.encode_visits(&mut enc, root, &tree).unwrap();
        prop_assert_eq!(&at.decode_visits(&mut dec, root, &t.words).unwrap(), &tree);
        prop_assert_eq!(enc.to_edge_model(&program), dec.to_edge_model(&program));
        // Per-invocation split is consistent with the call sites.
        let inv = program.split_invocations(root, &tree).unwrap();
        prop_assert_eq!(inv.iter().map(|i| i.1.len()).sum::<usize>(), tree.len());
        for (m, p) in &inv {
            prop_assert!(program.cfg(*m).check_path(p).is_ok());
        }
    }
}

/// The interprocedural property is not vacuous: many random programs give
/// trees with several invocations.
#[test]
fn random_call_programs_give_real_trees() {
    let mut trees_with_calls = 0;
    for seed in 0..60u64 {
        let program = random_call_program(seed, 4);
        let at = AdapTracer::new(&program, 16).unwrap().with_max_steps(100_000);
        let mut model = AdaptiveModel::new(&program, AdaptiveParams::default()).unwrap();
        let words = [seed.wrapping_mul(0x9E37) & 0xffff, 0x5a5a, 0x1234];
        if let Ok(tree) = at.decode_visits(&mut model, MethodId(0), &words) {
            if program.split_invocations(MethodId(0), &tree).unwrap().len() > 1 {
                trees_with_calls += 1;
            }
        }
    }
    assert!(trees_with_calls >= 15, "only {trees_with_calls} of 60");
}
