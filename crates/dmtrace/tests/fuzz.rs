//! Fuzzing the reader: proptest mutations of valid traces must never panic,
//! and the two read paths (two-pass from memory, one-pass from a reader)
//! must agree. `tests/corpus/` (inputs found by `cargo fuzz`, minimized,
//! plus the fixtures) is replayed as a regression test.

use proptest::prelude::*;
use std::path::Path;
use tracekit_dmtrace::{read, read_bytes};

fn dir_files(dir: &Path) -> Vec<Vec<u8>> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
        .into_iter()
        .filter(|p| p.extension().is_none_or(|e| e != "py" && e != "md"))
        .map(|p| std::fs::read(p).unwrap())
        .collect()
}

fn seeds() -> Vec<Vec<u8>> {
    dir_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"))
}

/// Reads `bytes` both ways (two passes from memory, one pass from a plain
/// reader); both must agree on success and on what they read.
fn check(bytes: &[u8]) {
    let a = read_bytes(bytes);
    let b = read(bytes);
    match (&a, &b) {
        (Ok(x), Ok(y)) => {
            assert_eq!(x.call_event_count(), y.call_event_count());
            assert_eq!(x.repairs, y.repairs);
            for (_, _, calls) in x.thread_calls() {
                let mut depth = 0i64;
                for e in calls.iter() {
                    depth += if e.kind == tracekit_model::CallKind::Enter {
                        1
                    } else {
                        -1
                    };
                    assert!(depth >= 0);
                }
                assert_eq!(depth, 0);
            }
        }
        (Err(x), Err(y)) => assert_eq!(x.to_string(), y.to_string()),
        _ => panic!("read paths disagree: {:?} vs {:?}", a.as_ref().err(), b.as_ref().err()),
    }
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Truncate(usize),
    Overwrite(usize, u32),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1u8..=255).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (any::<usize>(), proptest::collection::vec(any::<u8>(), 1..16)).prop_map(|(i, v)| Mutation::Insert(i, v)),
        (any::<usize>(), 1usize..32).prop_map(|(i, n)| Mutation::Delete(i, n)),
        any::<usize>().prop_map(Mutation::Truncate),
        (
            any::<usize>(),
            prop_oneof![Just(0u32), Just(u32::MAX), Just(0xF3), Just(3), any::<u32>()]
        )
            .prop_map(|(i, v)| Mutation::Overwrite(i, v)),
    ]
}

fn apply(mut b: Vec<u8>, muts: &[Mutation]) -> Vec<u8> {
    for m in muts {
        let len = b.len().max(1);
        match m {
            Mutation::Flip(i, x) => {
                if !b.is_empty() {
                    b[i % len] ^= x;
                }
            }
            Mutation::Insert(i, v) => {
                let at = i % (b.len() + 1);
                b.splice(at..at, v.iter().copied());
            }
            Mutation::Delete(i, n) => {
                let at = i % len;
                let end = (at + n).min(b.len());
                if at < end {
                    b.drain(at..end);
                }
            }
            Mutation::Truncate(i) => b.truncate(i % len),
            Mutation::Overwrite(i, v) => {
                let at = i % len;
                for (k, byte) in v.to_le_bytes().iter().enumerate() {
                    if let Some(slot) = b.get_mut(at + k) {
                        *slot = *byte;
                    }
                }
            }
        }
    }
    b
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_traces_never_panic(seed in any::<prop::sample::Index>(), muts in proptest::collection::vec(mutation(), 1..6)) {
        let seeds = seeds();
        let input = apply(seeds[seed.index(seeds.len())].clone(), &muts);
        check(&input);
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256), binary in any::<bool>()) {
        let mut input = if binary { b"SLOW".to_vec() } else { b"*version\n3\nclock=dual\n*end\n".to_vec() };
        input.extend(bytes);
        check(&input);
    }
}

#[test]
fn corpus_replays_without_panic() {
    let corpus = dir_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus"));
    for input in &corpus {
        check(input);
    }
    for input in seeds() {
        check(&input);
    }
}
