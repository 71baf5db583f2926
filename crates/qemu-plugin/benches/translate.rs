//! The plugin's translation hot path: `Recorder::translate` for a run of
//! new blocks (the common case: 96–98% of a JVM's translations are blocks
//! never seen before) and for retranslations of known ones. The blocks
//! mimic AArch64 code: 4-byte instructions, 1–16 per block, laid out one
//! after another as a program's text is.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use std::hint::black_box;
use tracekit_qemu_plugin::recorder::{InsnBytes, Options, Recorder};

const BLOCKS: usize = 50_000;

/// (block address, instruction bytes) for BLOCKS consecutive blocks.
fn blocks() -> Vec<(u64, Vec<[u8; 4]>)> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut vaddr = 0x40_0000u64;
    (0..BLOCKS)
        .map(|_| {
            let n = 1 + (next() % 16) as usize;
            let insns: Vec<[u8; 4]> = (0..n).map(|_| (next() as u32).to_le_bytes()).collect();
            let at = vaddr;
            vaddr += 4 * n as u64;
            (at, insns)
        })
        .collect()
}

fn translate_all(rec: &mut Recorder, blocks: &[(u64, Vec<[u8; 4]>)]) {
    let mut insns = Vec::new();
    for (vaddr, bytes) in blocks {
        insns.clear();
        insns.extend(bytes.iter().enumerate().map(|(i, b)| InsnBytes {
            vaddr: vaddr + 4 * i as u64,
            bytes: b,
        }));
        let placed = rec
            .translate(*vaddr, &insns, None, |_| String::new())
            .expect("translated");
        black_box(placed);
    }
}

/// A directory on tmpfs when there is one, as `emu run` stages there.
fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir_in("/dev/shm")
        .or_else(|_| tempfile::tempdir())
        .expect("temp dir")
}

fn recorder(dir: &tempfile::TempDir) -> Recorder {
    let opts = Options::parse(&[format!("out={}", dir.path().display())]).expect("options");
    Recorder::start(opts, "aarch64").expect("recorder")
}

fn bench(c: &mut Criterion) {
    let blocks = blocks();
    let mut group = c.benchmark_group("translate");
    group.throughput(Throughput::Elements(BLOCKS as u64));
    group.sample_size(20);
    group.bench_function("new blocks", |b| {
        b.iter_batched(
            || {
                let dir = temp_dir();
                let rec = recorder(&dir);
                (dir, rec)
            },
            |(dir, mut rec)| {
                translate_all(&mut rec, &blocks);
                (dir, rec)
            },
            BatchSize::PerIteration,
        )
    });
    let dir = temp_dir();
    let mut known = recorder(&dir);
    translate_all(&mut known, &blocks);
    group.bench_function("known blocks", |b| b.iter(|| translate_all(&mut known, &blocks)));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
