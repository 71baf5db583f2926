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
