//! Fuzzing the reader: proptest mutations of valid traces must never panic,
//! must give sessions that keep the model's invariants, and must read the
//! same from memory as through a reader that hands out one byte at a time
//! (every value then crosses the window's end). `tests/corpus/` (seed
//! traces plus mutated inputs kept because they once reached an unusual
//! path) is replayed as a regression test.

use proptest::prelude::*;
use std::io::Read;
use std::path::Path;
use tracekit_model::{CallKind, Session};

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
    files.into_iter().map(|p| std::fs::read(p).unwrap()).collect()
}

fn corpus() -> Vec<Vec<u8>> {
    dir_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus"))
}

/// Seeds: the corpus and one export of a generated session.
fn seeds() -> Vec<Vec<u8>> {
    let mut seeds = corpus();
    let mut out = Vec::new();
    tracekit_chrome::write(&tracekit_report::synthetic::session(60), &mut out).unwrap();
    seeds.push(out);
    seeds
}

/// Hands out one byte per read.
struct Trickle<'a>(&'a [u8]);

impl Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        match (self.0.split_first(), out.first_mut()) {
            (Some((&b, rest)), Some(slot)) => {
                *slot = b;
                self.0 = rest;
                Ok(1)
            }
            _ => Ok(0),
        }
    }
}

/// The model's invariants on a session read from outside data.
fn check_invariants(s: &Session) {
    for (_, _, calls) in s.thread_calls() {
        let mut stack = Vec::new();
        let (mut last, mut last_cpu) = (0, 0);
        for e in calls.iter() {
            assert!(e.ts_ns >= last, "time went back");
            last = e.ts_ns;
            if let Some(c) = e.cpu_ns {
                assert!(c >= last_cpu, "thread time went back");
                last_cpu = c;
            }
            assert!((e.method.0 as usize) < s.methods.len());
            if e.kind == CallKind::Enter {
                stack.push(e.method);
            } else {
                assert_eq!(stack.pop(), Some(e.method), "unmatched exit");
            }
        }
        assert!(stack.is_empty(), "left open");
        assert_eq!(
            calls.has_cpu() || calls.is_empty(),
            s.clocks.thread_cpu || calls.is_empty()
        );
    }
    assert!(s.markers.windows(2).all(|w| w[0].ts_ns <= w[1].ts_ns));
    assert!(s.async_slices.windows(2).all(|w| w[0].ts_ns <= w[1].ts_ns));
    for c in &s.counters {
        assert!(c.times.windows(2).all(|w| w[0] <= w[1]));
        assert!(c.times.iter().all(|&t| t >= 0));
    }
}

/// A summary that two reads of the same bytes must agree on.
fn summary(s: &Session) -> String {
    format!(
        "{} {:?} {:?} {:?} {:?} {} {}",
        s.call_event_count(),
        s.repairs,
        s.skipped,
        s.markers,
        s.source_clock,
        s.counters.len(),
        s.async_slices.len()
    )
}

fn check(bytes: &[u8]) {
    let a = tracekit_chrome::read_bytes(bytes, "f.json");
    let b = tracekit_chrome::read(Trickle(bytes), "f.json");
    match (&a, &b) {
        (Ok(x), Ok(y)) => {
            check_invariants(x);
            assert_eq!(summary(x), summary(y));
        }
        (Err(x), Err(y)) => {
            assert_eq!(x.to_string(), y.to_string());
            assert!(x.to_string().starts_with("f.json:"), "{x}");
        }
        _ => panic!(
            "the two reads disagree: {:?} vs {:?}",
            a.as_ref().map(summary).map_err(|e| e.to_string()),
            b.as_ref().map(summary).map_err(|e| e.to_string())
        ),
    }
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Truncate(usize),
    Token(usize, &'static str),
}

const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    "\\",
    ",",
    ":",
    "null",
    "-",
    "1e9",
    "0.0005",
    "99999999999999999999",
    "\"ph\":\"E\",",
    "\"ph\":\"B\",",
    "\"ph\":\"X\",",
    "\"ts\":",
    "\"dur\":-1,",
    "\"tid\":\"x\",",
    "\"name\":\"\",",
    "\\u0000",
    "\\ud800",
    "\u{e9}",
    "\u{0}",
    "\t",
    "\n",
];

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1u8..=255).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (any::<usize>(), proptest::collection::vec(any::<u8>(), 1..8)).prop_map(|(i, v)| Mutation::Insert(i, v)),
        (any::<usize>(), 1usize..40).prop_map(|(i, n)| Mutation::Delete(i, n)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), proptest::sample::select(TOKENS)).prop_map(|(i, t)| Mutation::Token(i, t)),
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
            Mutation::Token(i, t) => {
                let at = i % (b.len() + 1);
                b.splice(at..at, t.bytes());
            }
            Mutation::Delete(i, n) => {
                let at = i % len;
                let end = (at + n).min(b.len());
                if at < end {
                    b.drain(at..end);
                }
            }
            Mutation::Truncate(i) => b.truncate(i % len),
        }
    }
    b
}

proptest! {
    // PROPTEST_CASES=100000 for a longer campaign.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(1500),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn mutated_traces_never_panic(seed in any::<prop::sample::Index>(), muts in proptest::collection::vec(mutation(), 1..6)) {
        let seeds = seeds();
        let input = apply(seeds[seed.index(seeds.len())].clone(), &muts);
        // The generated seed is large; keep the one-byte reads affordable.
        let input = &input[..input.len().min(6_000)];
        check(input);
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200), object in any::<bool>()) {
        let mut input = if object { b"{\"traceEvents\":[{".to_vec() } else { b"[{\"ph\":".to_vec() };
        input.extend(bytes);
        check(&input);
    }
}

#[test]
fn corpus_replays() {
    let corpus = corpus();
    assert!(corpus.len() >= 3);
    for input in &corpus {
        check(input);
    }
}

#[test]
fn seeds_read_without_error() {
    for (i, input) in corpus()
        .iter()
        .enumerate()
        .filter(|(_, c)| c.starts_with(b"[{\"ph\":\"M\"") || c.starts_with(b"{\"metadata\""))
    {
        let s = tracekit_chrome::read_bytes(input, "seed.json").unwrap_or_else(|e| panic!("seed {i}: {e}"));
        assert!(s.call_event_count() > 0);
    }
}
