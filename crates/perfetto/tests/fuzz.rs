//! Fuzzing the reader: proptest mutations of valid traces must never panic,
//! and whatever is read must keep the model's invariants (each thread's
//! calls balanced and time-ordered, scheduling slices inside the trace).
//! `tests/corpus/` (seed traces, and inputs that once failed) is replayed
//! as a regression test; `write_seed_corpus` (ignored) regenerates the seeds.

mod common;

use proptest::prelude::*;
use std::path::{Path, PathBuf};
use tracekit_model::*;
use tracekit_perfetto::read_bytes;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn corpus() -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
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
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect()
}

/// Seeds: a hand-built trace of every packet kind, and the writer's output
/// for a session with unwinds, markers, async and scheduling slices.
fn seeds() -> Vec<(&'static str, Vec<u8>)> {
    let mut s = Session::new("seed", Clocks::DUAL);
    let t = s.add_thread(Thread::new(3, "main"));
    let u = s.add_thread(Thread::new(4, "io"));
    let m = s.methods.intern(Method::new("a/B", "c", "()V"));
    for (i, e) in [
        CallEvent::enter(m, 10, Some(1)),
        CallEvent::enter(m, 20, Some(2)),
        CallEvent::unwind(m, 30, Some(3)),
        CallEvent::exit(m, 40, Some(4)),
    ]
    .into_iter()
    .enumerate()
    {
        s.calls_mut(t).push(e);
        s.calls_mut(u).push(CallEvent {
            ts_ns: e.ts_ns + i as u64,
            ..e
        });
    }
    s.markers.push(Marker {
        ts_ns: 15,
        thread: t,
        name: "m".into(),
    });
    s.async_slices.push(AsyncSlice {
        name: "a".into(),
        category: Some("c".into()),
        cookie: 0,
        pid: None,
        thread: None,
        ts_ns: 5,
        dur_ns: 20,
        open: false,
    });
    s.sched.push(SchedSlice {
        cpu: 1,
        ts_ns: 0,
        dur_ns: 30,
        thread: u,
        priority: Some(100),
        end_state: Some(EndState::new("D")),
    });
    let mut f = CounterTrack::new("cpu1 freq", Some("kHz"));
    f.cpu = Some(1);
    f.push(3, 1_000_000.0);
    s.counters.push(f);
    let mut c = CounterTrack::new("power", Some("W")).with_kind(CounterKind::Sampled);
    c.push(-5, 1.5);
    c.push(25, 2.0);
    s.counters.push(c);
    let mut written = Vec::new();
    tracekit_perfetto::write(&s, &mut written).unwrap();
    vec![
        ("kitchen_sink.pftrace", common::kitchen_sink()),
        ("written.pftrace", written),
    ]
}

/// Reads `bytes`; must not panic, and what it reads must hold the invariants.
fn check(bytes: &[u8]) {
    let Ok(s) = read_bytes(bytes, "fuzz.pftrace") else {
        return;
    };
    for (_, _, calls) in s.thread_calls() {
        let mut stack = Vec::new();
        let mut last = 0;
        for e in calls.iter() {
            assert!(e.ts_ns >= last, "time goes back");
            last = e.ts_ns;
            if e.kind == CallKind::Enter {
                stack.push(e.method);
            } else {
                assert_eq!(stack.pop(), Some(e.method), "unbalanced");
            }
            assert!((e.method.0 as usize) < s.methods.len());
        }
        assert!(stack.is_empty(), "left open");
        assert!(
            calls.is_empty() || calls.has_cpu() == s.clocks.thread_cpu,
            "thread-CPU column disagrees with the clocks"
        );
    }
    for c in &s.counters {
        assert_eq!(c.times.len(), c.values.len());
        assert!(c.times.windows(2).all(|w| w[0] <= w[1]));
    }
    for m in &s.markers {
        assert!((m.thread.0 as usize) < s.threads.len());
    }
    for x in &s.sched {
        assert!((x.thread.0 as usize) < s.threads.len());
    }
}

#[test]
fn corpus_replays() {
    let files = corpus();
    assert!(files.len() >= 2, "tests/corpus/ is missing");
    for (name, bytes) in files {
        let r = std::panic::catch_unwind(|| check(&bytes));
        assert!(r.is_ok(), "corpus file {name} fails");
    }
}

#[test]
#[ignore = "regenerates tests/corpus seeds"]
fn write_seed_corpus() {
    for (name, bytes) in seeds() {
        std::fs::write(corpus_dir().join(name), bytes).unwrap();
    }
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Truncate(usize),
    Varint(usize, u64),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1u8..=255).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (any::<usize>(), proptest::collection::vec(any::<u8>(), 1..12)).prop_map(|(i, v)| Mutation::Insert(i, v)),
        (any::<usize>(), 1usize..24).prop_map(|(i, n)| Mutation::Delete(i, n)),
        any::<usize>().prop_map(Mutation::Truncate),
        (
            any::<usize>(),
            prop_oneof![Just(0u64), Just(u64::MAX), Just(1 << 31), Just(4096), any::<u64>()]
        )
            .prop_map(|(i, v)| Mutation::Varint(i, v)),
    ]
}

fn apply(mut b: Vec<u8>, muts: &[Mutation]) -> Vec<u8> {
    for m in muts {
        let n = b.len().max(1);
        match m {
            Mutation::Flip(i, x) => {
                if !b.is_empty() {
                    b[i % n] ^= x;
                }
            }
            Mutation::Insert(i, v) => {
                let at = i % (b.len() + 1);
                b.splice(at..at, v.iter().copied());
            }
            Mutation::Delete(i, k) => {
                if !b.is_empty() {
                    let at = i % n;
                    let end = (at + k).min(b.len());
                    b.drain(at..end);
                }
            }
            Mutation::Truncate(i) => b.truncate(i % (b.len() + 1)),
            Mutation::Varint(i, v) => {
                let at = i % (b.len() + 1);
                b.splice(at..at, common::varint(*v));
            }
        }
    }
    b
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, max_shrink_iters: 2000, ..ProptestConfig::default() })]
    #[test]
    fn mutated_traces_never_panic(seed in 0usize..16, muts in proptest::collection::vec(mutation(), 1..6)) {
        let mut inputs: Vec<Vec<u8>> = seeds().into_iter().map(|(_, b)| b).collect();
        inputs.extend(corpus().into_iter().map(|(_, b)| b));
        // Extra seeds, such as the real traces: TRACEKIT_FUZZ_SEEDS=a:b.
        if let Some(paths) = std::env::var_os("TRACEKIT_FUZZ_SEEDS") {
            inputs = std::env::split_paths(&paths).filter_map(|p| std::fs::read(p).ok()).collect();
        }
        let base = inputs[seed % inputs.len()].clone();
        check(&apply(base, &muts));
    }
}
