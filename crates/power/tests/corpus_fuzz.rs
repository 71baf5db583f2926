//! The corpus in `tests/corpus/` is replayed (`ok-*` must read, `err-*`
//! must fail with an error naming the file and a line inside it), and
//! proptest mutates and cuts it: the readers never panic, and a file cut
//! anywhere keeps exactly the samples complete before the cut.

use proptest::prelude::*;
use std::path::Path;
use tracekit_model::Session;
use tracekit_power::{read_bytes, Error};

fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect()
}

/// Reads without panicking and checks what any result must satisfy.
fn check(bytes: &[u8]) -> Result<Session, Error> {
    let result = std::panic::catch_unwind(|| read_bytes(bytes, "fuzzed.txt")).expect("reader panicked");
    match &result {
        Ok(s) => {
            for c in &s.counters {
                assert_eq!(c.times.len(), c.values.len());
                assert!(c.times.windows(2).all(|w| w[0] <= w[1]), "{} times decrease", c.name);
                assert!(
                    c.values.iter().all(|v| v.is_finite()),
                    "{} has a non-finite value",
                    c.name
                );
            }
        }
        Err(e) => {
            assert!(
                e.to_string().starts_with("fuzzed.txt"),
                "error does not name the file: {e}"
            );
            if let (Some(line), Some(offset)) = (e.line(), e.offset()) {
                assert!(offset <= bytes.len() as u64, "offset {offset} past the end");
                let lines = bytes.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
                assert!(line >= 1 && line <= lines, "line {line} outside 1..={lines}");
            }
        }
    }
    result
}

#[test]
fn corpus_files_behave() {
    let files = corpus();
    assert!(files.len() >= 15, "corpus too small");
    for (name, bytes) in &files {
        let result = check(bytes);
        if name.starts_with("ok-") {
            let s = result.unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!s.counters.is_empty(), "{name}: no counters");
        } else if name.starts_with("err-") {
            assert!(result.is_err(), "{name} was read");
        }
    }
}

/// Every counter of `cut` is a prefix of the same counter in `full`.
fn is_prefix(cut: &Session, full: &Session, compare_times: bool) {
    for c in &cut.counters {
        let f = full
            .counters
            .iter()
            .find(|f| f.name == c.name)
            .expect("counter only in the cut file");
        assert!(c.len() <= f.len());
        assert_eq!(c.values[..], f.values[..c.len()], "{}", c.name);
        if compare_times {
            assert_eq!(c.times[..], f.times[..c.len()], "{}", c.name);
        }
    }
}

#[test]
fn every_cut_keeps_the_complete_lines() {
    for (name, bytes) in corpus().into_iter().filter(|(n, _)| n.starts_with("ok-")) {
        let full = read_bytes(&bytes, "fuzzed.txt").unwrap();
        // Whole-second power-monitor readings are spread over their second,
        // so a cut moves the last second's times; its values still agree.
        let compare_times = !name.contains("powermonitor-whole");
        for cut in 0..bytes.len() {
            if let Ok(s) = check(&bytes[..cut]) {
                is_prefix(&s, &full, compare_times);
            }
        }
    }
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Duplicate(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let interesting = prop_oneof![
        Just(b"\n".to_vec()),
        Just(b",".to_vec()),
        Just(b"\t".to_vec()),
        Just(b"\"".to_vec()),
        Just(b"-".to_vec()),
        Just(b"1e308".to_vec()),
        Just(b"nan".to_vec()),
        Just(b"Time [ms]".to_vec()),
        Just(b"+99999999999d".to_vec()),
        Just(b"9999999999.999999999999".to_vec()),
        proptest::collection::vec(any::<u8>(), 1..8),
    ];
    prop_oneof![
        (any::<usize>(), 1u8..=255).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (any::<usize>(), interesting).prop_map(|(i, v)| Mutation::Insert(i, v)),
        (any::<usize>(), 1usize..16).prop_map(|(i, n)| Mutation::Delete(i, n)),
        (any::<usize>(), 1usize..64).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
    ]
}

fn apply(mut bytes: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    for m in mutations {
        let len = bytes.len().max(1);
        match m {
            Mutation::Flip(i, b) => {
                if !bytes.is_empty() {
                    bytes[i % len] ^= b;
                }
            }
            Mutation::Insert(i, v) => {
                let at = i % (bytes.len() + 1);
                bytes.splice(at..at, v.iter().copied());
            }
            Mutation::Delete(i, n) => {
                let at = i % len;
                let end = (at + n).min(bytes.len());
                if at < end {
                    bytes.drain(at..end);
                }
            }
            Mutation::Duplicate(i, n) => {
                let at = i % len;
                let end = (at + n).min(bytes.len());
                if at < end {
                    let copy = bytes[at..end].to_vec();
                    bytes.splice(end..end, copy);
                }
            }
        }
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn mutated_corpus_never_panics(
        file in any::<prop::sample::Index>(),
        mutations in proptest::collection::vec(mutation(), 1..6),
    ) {
        let files = corpus();
        let (_, bytes) = &files[file.index(files.len())];
        let _ = check(&apply(bytes.clone(), &mutations));
    }
}
