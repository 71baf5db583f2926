//! Robustness of everything that reads outside data: the CFG file, the
//! model file, JSON traces and the three decoders. Mutations of valid inputs
//! (proptest) and a replayed corpus (`tests/corpus/`): every input gives a
//! value or an error — never a panic or a hang.

use proptest::prelude::*;
use std::path::{Path, PathBuf};
use tracekit_paths::*;

fn corpus(dir: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus").join(dir);
    let mut v: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect();
    v.sort();
    v
}

fn expect_ok(p: &Path) -> bool {
    p.file_name().unwrap().to_str().unwrap().starts_with("ok-")
}

/// Runs every scheme's decoder on a few traces of a parsed program.
fn exercise(program: &Program) {
    for m in program.method_ids() {
        let cfg = program.cfg(m);
        for width in [3, 8, 64] {
            for scheme in Scheme::ALL {
                let Ok(codec) = Codec::new(program, m, scheme, width) else {
                    continue;
                };
                for items in [
                    vec![],
                    vec![TraceItem::Word(0)],
                    vec![TraceItem::Word(5), TraceItem::Node(cfg.exit()), TraceItem::Word(1)],
                ] {
                    if scheme == Scheme::AdapTracer {
                        let at = AdapTracer::new(program, width).unwrap().with_max_steps(5_000);
                        let mut model = AdaptiveModel::new(program, Default::default()).unwrap();
                        let words: Vec<u64> = items
                            .iter()
                            .filter_map(|i| if let TraceItem::Word(w) = i { Some(*w) } else { None })
                            .collect();
                        let _ = at.decode(&mut model, m, &words);
                        let _ = at.decode_visits(&mut model, m, &words);
                    } else {
                        let _ = codec.decode(None, &items);
                    }
                }
            }
        }
    }
}

#[test]
fn cfg_corpus_replays() {
    let files = corpus("cfg");
    assert!(files.len() >= 10);
    for (p, bytes) in files {
        let text = String::from_utf8_lossy(&bytes);
        let r = Program::from_json_str(&text, &p);
        match (&r, expect_ok(&p)) {
            (Ok(prog), true) => exercise(prog),
            (Err(e), false) => {
                assert!(e.to_string().contains(p.to_str().unwrap()), "{e}");
            }
            _ => panic!("{}: unexpected {:?}", p.display(), r.map(|_| ())),
        }
    }
}

#[test]
fn model_corpus_replays() {
    let files = corpus("model");
    assert!(files.len() >= 8);
    for (p, bytes) in files {
        let text = String::from_utf8_lossy(&bytes);
        let r = EdgeModel::from_text(&text, &p);
        assert_eq!(r.is_ok(), expect_ok(&p), "{}: {:?}", p.display(), r);
        if let Err(e) = r {
            assert!(e.to_string().contains("line "), "{e}");
        }
    }
}

fn mutate(base: &[u8], edits: &[(usize, u8, u8)]) -> Vec<u8> {
    let mut v = base.to_vec();
    for &(pos, op, byte) in edits {
        if v.is_empty() {
            v.push(byte);
            continue;
        }
        let i = pos % v.len();
        match op % 3 {
            0 => v[i] = byte,
            1 => v.insert(i, byte),
            _ => {
                v.remove(i);
            }
        }
    }
    v
}

const MUTATION_ALPHABET: &[u8] = b"{}[]\",:AB<>exit0123456789 \n\tmethodsedgesentrycalls";

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn mutated_cfg_files_never_panic(
        which in 0usize..3,
        edits in prop::collection::vec((any::<usize>(), any::<u8>(), prop::sample::select(MUTATION_ALPHABET)), 1..6),
    ) {
        let base = corpus("cfg").into_iter().filter(|(p, _)| expect_ok(p)).nth(which).unwrap().1;
        let bytes = mutate(&base, &edits);
        if let Ok(prog) = Program::from_json_str(&String::from_utf8_lossy(&bytes), Path::new("m.json")) {
            exercise(&prog);
        }
    }

    #[test]
    fn mutated_model_files_never_panic(
        edits in prop::collection::vec((any::<usize>(), any::<u8>(), prop::sample::select(b"\t\n#.0123456789mCBD-e".as_slice())), 1..6),
    ) {
        let base = corpus("model").into_iter().find(|(p, _)| p.ends_with("ok-seed.tsv")).unwrap().1;
        let bytes = mutate(&base, &edits);
        let _ = EdgeModel::from_text(&String::from_utf8_lossy(&bytes), Path::new("m.tsv"));
    }

    #[test]
    fn random_traces_never_panic(
        words in prop::collection::vec(any::<u64>(), 0..8),
        nodes in prop::collection::vec(0u32..6, 0..4),
        width in 3u32..=64,
        json_noise in "[\\[\\]0-9,\" ABCD-]{0,20}",
    ) {
        let text = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/cfg/ok-seed.json"),
        ).unwrap();
        let prog = Program::from_json_str(&text, Path::new("seed.json")).unwrap();
        let m = MethodId(0);
        let cfg = prog.cfg(m);
        let _ = trace_from_json(cfg, &json_noise);
        let mask = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
        let mut items: Vec<TraceItem> = words.iter().map(|w| TraceItem::Word(w & mask)).collect();
        for (i, n) in nodes.iter().enumerate() {
            let at = (i * 2 + 1).min(items.len());
            items.insert(at, TraceItem::Node(BlockId(n % 4)));
        }
        for scheme in [Scheme::Blpp, Scheme::Pap] {
            let codec = Codec::new(&prog, m, scheme, width).unwrap();
            if let Ok(p) = codec.decode(None, &items) {
                // Whatever decodes is a real path.
                prop_assert!(cfg.check_path(&p).is_ok());
            }
        }
        let at = AdapTracer::new(&prog, width).unwrap().with_max_steps(20_000);
        let mut model = AdaptiveModel::new(&prog, Default::default()).unwrap();
        let ws: Vec<u64> = words.iter().map(|w| w & mask).collect();
        if let Ok(p) = at.decode(&mut model, m, &ws) {
            prop_assert!(cfg.check_path(&p).is_ok());
        }
    }
}
