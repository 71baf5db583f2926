//! Fuzzing the text, compressed and HTML readers: proptest mutations of
//! real captures and fixtures, and lines assembled from ftrace fragments,
//! must never panic; whatever reads must satisfy the model's invariants
//! with every line accounted for; and reading in random small chunks must
//! give exactly what reading from memory gives (chunk boundaries are where
//! streaming readers break). `tests/corpus/` is replayed as a regression test.

mod common;

use common::{check_invariants, realdata};
use proptest::prelude::*;
use std::io::{Read, Write};
use std::path::Path;
use tracekit_ftrace::{read_bytes_with_outcome, read_input};

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

fn zlib(text: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(b"TRACE:\n".to_vec(), flate2::Compression::default());
    e.write_all(text).unwrap();
    e.finish().unwrap()
}

/// The inputs mutations start from: fixtures, the corpus, a compressed
/// fixture, and the start of each small real capture (the first 12 KiB,
/// so thousands of cases stay fast).
fn seeds() -> &'static [Vec<u8>] {
    static SEEDS: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    SEEDS.get_or_init(load_seeds)
}

fn load_seeds() -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut out = dir_files(&root.join("data"));
    out.extend(dir_files(&root.join("corpus")));
    out.push(zlib(&out[0]));
    if let Some(dir) = realdata() {
        for name in [
            "catapult_atrace_data.txt",
            "catapult_android_systrace.txt",
            "catapult_decompressed_atrace_data.txt",
            "catapult_trivial_systrace.html",
            "catapult_compressed_atrace_data.bin",
        ] {
            let b = std::fs::read(dir.join(name)).unwrap();
            out.push(b[..b.len().min(12 * 1024)].to_vec());
        }
    }
    out
}

/// A reader that hands out `n` bytes per call, `n` cycling through `sizes`.
struct Trickle<'a> {
    data: &'a [u8],
    sizes: Vec<usize>,
    k: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.sizes[self.k % self.sizes.len()]
            .max(1)
            .min(self.data.len())
            .min(out.len());
        self.k += 1;
        out[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn check(bytes: &[u8], sizes: &[usize]) {
    let whole = read_bytes_with_outcome(bytes, "fuzz");
    let trickled = read_input(
        Trickle {
            data: bytes,
            sizes: sizes.to_vec(),
            k: 0,
        },
        "fuzz",
    );
    match (&whole, &trickled) {
        (Ok((a, ao)), Ok((b, bo))) => {
            check_invariants(a, ao);
            assert_eq!(ao, bo);
            assert_eq!(a.call_event_count(), b.call_event_count());
            assert_eq!(a.counters, b.counters);
            assert_eq!(a.sched, b.sched);
            assert_eq!(a.async_slices, b.async_slices);
            assert_eq!(a.repairs, b.repairs);
            assert_eq!(a.skipped, b.skipped);
        }
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        _ => panic!(
            "memory and chunked reads disagree: {:?} vs {:?}",
            whole.as_ref().err().map(|e| e.to_string()),
            trickled.as_ref().err().map(|e| e.to_string())
        ),
    }
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Truncate(usize),
    /// Duplicates a range somewhere else (reorders lines, repeats tags).
    Copy(usize, usize, usize),
}

/// Byte strings that matter to the parsers.
fn fragment() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(b"\n".to_vec()),
        Just(b"\\n\\\n".to_vec()),
        Just(b"|".to_vec()),
        Just(b" [000] ".to_vec()),
        Just(b"(-----)".to_vec()),
        Just(b": tracing_mark_write: B|1|x".to_vec()),
        Just(b": tracing_mark_write: E".to_vec()),
        Just(b"</script>".to_vec()),
        Just(b"<script class=\"trace-data\">\n".to_vec()),
        Just(b"var linuxPerfData = \"\\\n".to_vec()),
        Just(b"\"".to_vec()),
        Just(b"TRACE:\n".to_vec()),
        Just(b"4294967295".to_vec()),
        Just(b"99999999999.999999:".to_vec()),
        proptest::collection::vec(any::<u8>(), 1..12),
    ]
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1u8..=255).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (any::<usize>(), fragment()).prop_map(|(i, v)| Mutation::Insert(i, v)),
        (any::<usize>(), 1usize..64).prop_map(|(i, n)| Mutation::Delete(i, n)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), 1usize..200, any::<usize>()).prop_map(|(a, n, b)| Mutation::Copy(a, n, b)),
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
            Mutation::Copy(from, n, to) => {
                if !b.is_empty() {
                    let from = from % b.len();
                    let piece = b[from..(from + n).min(b.len())].to_vec();
                    let to = to % (b.len() + 1);
                    b.splice(to..to, piece);
                }
            }
        }
    }
    b
}

/// One line made of ftrace-ish parts, to reach the field parsers.
fn ftrace_line() -> impl Strategy<Value = Vec<u8>> {
    let task = prop_oneof![Just("<...>"), Just("a b-c"), Just("<idle>"), Just("x"), Just("")];
    let tgid = prop_oneof![Just(""), Just("(-----) "), Just("( 12) "), Just("(x) ")];
    let flags = prop_oneof![Just(""), Just("...1 "), Just("d..2. ")];
    let ts = prop_oneof![Just("1.000001"), Just("0.0"), Just("12"), Just("3.5x")];
    let payload = prop_oneof![
        Just("sched_switch: prev_comm=a prev_pid=5 prev_prio=120 prev_state=S ==> next_comm=b next_pid=6 next_prio=1"),
        Just("sched_switch: prev_comm=b prev_pid=6 prev_prio=1 prev_state=R+ ==> next_comm=a next_pid=0 next_prio=1"),
        Just("cpu_frequency: state=300000 cpu_id=2"),
        Just("cpu_idle: state=4294967295 cpu_id=9"),
        Just("clock_set_rate: c state=5 cpu_id=0"),
        Just("tracing_mark_write: B|5|n"),
        Just("tracing_mark_write: E|5"),
        Just("tracing_mark_write: S|5|a|1"),
        Just("tracing_mark_write: F|5|a|1"),
        Just("tracing_mark_write: G|5|t|a|1"),
        Just("tracing_mark_write: H|5|t|1"),
        Just("tracing_mark_write: C|5|n|-2"),
        Just("tracing_mark_write: trace_event_clock_sync: parent_ts=1.5"),
        Just("tracing_mark_write: trace_event_clock_sync: realtime_ts=1700000000000"),
        Just("write_power_ringbuffer: v:1 c:-2 e:3"),
        Just("0: I|5|i"),
        Just("other_event: whatever"),
    ];
    (task, 0u32..8, tgid, 0u32..5, flags, ts, payload).prop_map(|(task, pid, tgid, cpu, flags, ts, payload)| {
        format!("  {task}-{pid} {tgid}[{cpu:03}] {flags}{ts}: {payload}\n").into_bytes()
    })
}

/// 4000 cases per property unless `PROPTEST_CASES` asks for more (longer local runs).
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4000)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_captures_never_panic(
        seed in any::<prop::sample::Index>(),
        muts in proptest::collection::vec(mutation(), 1..6),
        sizes in proptest::collection::vec(1usize..600, 1..4),
    ) {
        let seeds = seeds();
        let input = apply(seeds[seed.index(seeds.len())].clone(), &muts);
        check(&input, &sizes);
    }

    #[test]
    fn assembled_lines_never_panic(lines in proptest::collection::vec(ftrace_line(), 0..40), html in any::<bool>(), sizes in proptest::collection::vec(1usize..64, 1..3)) {
        let mut input = if html {
            b"<!DOCTYPE html>\n<script class=\"trace-data\" type=\"application/text\">\n".to_vec()
        } else {
            b"# tracer: nop\n".to_vec()
        };
        for l in &lines {
            input.extend_from_slice(l);
        }
        if html {
            input.extend_from_slice(b"</script>\n");
        }
        check(&input, &sizes);
    }
}

#[test]
fn corpus_replays() {
    for input in dir_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")) {
        check(&input, &[1]);
        check(&input, &[3, 1000]);
    }
    for input in seeds() {
        check(input, &[7]);
    }
}
