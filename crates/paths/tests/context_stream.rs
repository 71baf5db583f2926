//! The context stream: decode(encode(invocations)) == invocations for
//! random programs of several methods, random paths (repeated, so the
//! history predictors fire), exceptional ends and every width; and the
//! shared vector file `testdata/vectors-context.json` that the Java probe
//! reproduces (regenerate with `TRACEKIT_BLESS=1 cargo test -p
//! tracekit-paths --test context_stream`).

use proptest::prelude::*;
use serde_json::{json, Value};
use std::path::Path;
use tracekit_paths::*;

type Inv = (MethodId, Vec<BlockId>, Option<u32>);

fn invocations(p: &Program, seed: u64, count: usize, repeat: usize) -> Vec<Inv> {
    let mut rng = synth::Lcg(seed);
    let mut one = Vec::new();
    for i in 0..count {
        let m = MethodId(rng.below(p.len()) as u32);
        let path = synth::random_path(p.cfg(m), seed ^ i as u64, 1 + rng.below(60), rng.below(100) as u32);
        let aborted = match rng.below(6) {
            0 => Some(rng.below(path.len()) as u32),
            1 if i == 0 => Some(1 << 20),
            _ => None,
        };
        one.push((m, path, aborted));
    }
    let mut all = Vec::new();
    for _ in 0..repeat {
        all.extend(one.iter().cloned());
    }
    all
}

fn roundtrip(p: &Program, invs: &[Inv], width: u32, params: AdaptiveParams) -> ContextTrace {
    let model = AdaptiveModel::new(p, params).unwrap();
    let layout = ContextLayout::new(p, &model).unwrap();
    let mut enc = ContextEncoder::new(p, &layout, width).unwrap();
    for (m, path, a) in invs {
        enc.append(*m, path, *a).unwrap();
    }
    let trace = enc.finish();
    for w in &trace.words {
        assert!(width == 64 || *w < 1 << width);
    }
    let got = ContextDecoder::new(p, &layout, &trace.words, width)
        .unwrap()
        .decode_all()
        .unwrap();
    assert_eq!(got.len(), invs.len());
    for (g, (m, path, a)) in got.iter().zip(invs) {
        assert_eq!((&g.method, &g.path, &g.aborted_after), (m, path, a));
    }
    trace
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn decode_inverts_encode(seed in any::<u64>(), methods in 1usize..6, count in 0usize..30,
                             repeat in 1usize..4, width in 3u32..=64, inc in 1u32..8) {
        let p = synth::random_methods(seed, methods);
        let invs = invocations(&p, seed, count, repeat);
        roundtrip(&p, &invs, width, AdaptiveParams { inc, bound: 65535 });
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Decoding outside data never panics: a valid stream with bits flipped,
    /// words dropped or appended decodes to something or fails cleanly.
    #[test]
    fn mutated_streams_never_panic(seed in any::<u64>(), flips in prop::collection::vec((any::<prop::sample::Index>(), 0u32..64), 1..6),
                                   cut in any::<prop::sample::Index>(), truncate in any::<bool>(), extra in any::<u64>()) {
        let p = synth::random_methods(seed, 3);
        let invs = invocations(&p, seed, 20, 2);
        let model = AdaptiveModel::new(&p, AdaptiveParams::default()).unwrap();
        let layout = ContextLayout::new(&p, &model).unwrap();
        let mut enc = ContextEncoder::new(&p, &layout, 64).unwrap();
        for (m, path, a) in &invs {
            enc.append(*m, path, *a).unwrap();
        }
        let mut words = enc.finish().words;
        words.push(extra);
        for (i, bit) in &flips {
            let at = i.index(words.len());
            words[at] ^= 1 << bit;
        }
        if truncate {
            words.truncate(cut.index(words.len()));
        }
        let mut d = ContextDecoder::new(&p, &layout, &words, 64).unwrap().with_max_steps(20_000);
        for _ in 0..500 {
            match d.next_invocation() {
                Ok(Some(inv)) => prop_assert!(p.cfg(inv.method).check_path(&inv.path).is_ok()),
                _ => break,
            }
        }
    }
}

#[test]
fn a_repeated_workload_costs_almost_nothing_the_second_time() {
    let p = synth::random_methods(7, 4);
    // Repeatable invocations (ended normally, every choice digit in one
    // 64-bit word): the repeat layer codes each second copy with one flag.
    let repeatable = |invs: Vec<Inv>| -> Vec<Inv> {
        invs.into_iter()
            .filter(|(m, path, a)| repeat::InvocationKey::of_path(p.cfg(*m), m.0, path, a.is_some()).repeatable)
            .collect()
    };
    let once = repeatable(invocations(&p, 7, 200, 1));
    assert!(once.len() > 100);
    let twice: Vec<Inv> = once.iter().chain(once.iter()).cloned().collect();
    let a = roundtrip(&p, &once, 64, AdaptiveParams::default()).ideal_bits;
    let b = roundtrip(&p, &twice, 64, AdaptiveParams::default()).ideal_bits;
    assert!(b - a < 0.05 * a, "second copy cost {} bits on top of {a}", b - a);
    // With a quarter of them unrepeatable (exceptions, long loops), those
    // are coded by the thread model again, the rest by one flag each.
    let once = invocations(&p, 7, 200, 1);
    let twice = invocations(&p, 7, 200, 2);
    let a = roundtrip(&p, &once, 64, AdaptiveParams::default()).ideal_bits;
    let b = roundtrip(&p, &twice, 64, AdaptiveParams::default()).ideal_bits;
    assert!(b - a < 0.3 * a, "second copy cost {} bits on top of {a}", b - a);
}

#[test]
fn long_random_stream_and_garbage_input() {
    let p = synth::random_methods(99, 3);
    let invs = invocations(&p, 99, 3000, 1);
    let t = roundtrip(&p, &invs, 32, AdaptiveParams::default());
    assert!(t.choices > 10_000);
    // Garbage words decode to some invocations or a clear error, never a panic.
    let model = AdaptiveModel::new(&p, AdaptiveParams::default()).unwrap();
    let layout = ContextLayout::new(&p, &model).unwrap();
    let mut x = 1u64;
    for _ in 0..50 {
        let words: Vec<u64> = (0..20)
            .map(|_| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                x >> 32
            })
            .collect();
        let mut d = ContextDecoder::new(&p, &layout, &words, 32)
            .unwrap()
            .with_max_steps(20_000);
        for _ in 0..200 {
            match d.next_invocation() {
                Ok(Some(_)) => {}
                _ => break,
            }
        }
    }
}

const VECTORS: &str = "testdata/vectors-context.json";

/// Cases of the shared vector file: (name, seed, methods, invocations, repeat, width, inc).
const CASES: [(&str, u64, usize, usize, usize, u32, u32); 5] = [
    ("one-method-w64", 1, 1, 12, 3, 64, 3),
    ("three-methods-w32", 2, 3, 25, 2, 32, 3),
    ("four-methods-w7", 3, 4, 30, 3, 7, 2),
    ("aborted-w13", 4, 2, 40, 2, 13, 4),
    ("long-w64", 5, 5, 40, 2, 64, 3),
];

fn generate() -> Value {
    let mut vectors = Vec::new();
    for (name, seed, methods, count, repeat, width, inc) in CASES {
        let p = synth::random_methods(seed, methods);
        let invs = invocations(&p, seed, count, repeat);
        let params = AdaptiveParams { inc, bound: 65535 };
        let trace = roundtrip(&p, &invs, width, params);
        let cfg: Vec<Value> = p
            .method_ids()
            .map(|m| {
                let c = p.cfg(m);
                let edges: Vec<Value> = c
                    .edges()
                    .iter()
                    .map(|&(f, t, _)| json!([c.block_name(f), c.block_name(t)]))
                    .collect();
                json!({"name": c.name(), "entry": c.block_name(c.entry()), "exit": c.block_name(c.exit()), "edges": edges})
            })
            .collect();
        let list: Vec<Value> = invs
            .iter()
            .map(|(m, path, a)| json!({"method": p.cfg(*m).name(), "path": p.cfg(*m).path_names(path), "aborted_after": a}))
            .collect();
        vectors.push(json!({"name": name, "width": width, "inc": inc, "bound": 65535,
            "cfg": {"methods": cfg}, "invocations": list, "words": trace.words}));
    }
    json!({"about": "context stream vectors: invocations (full paths, exceptional ends) coded by one thread's coder; see tracekit_paths::context_stream", "vectors": vectors})
}

#[test]
fn vectors_file_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(VECTORS);
    let want = serde_json::to_string_pretty(&generate()).unwrap() + "\n";
    if std::env::var_os("TRACEKIT_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(have == want, "{VECTORS} is stale: rerun with TRACEKIT_BLESS=1");
}
