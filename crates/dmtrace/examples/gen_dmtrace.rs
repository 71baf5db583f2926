//! Writes a synthetic but realistic Android method trace with the streaming
//! [`TraceWriter`]: several threads, nested calls over a few thousand
//! methods, wall and thread-CPU clocks advancing plausibly. Used by the
//! benchmarks (`scripts/bench/dmtrace.sh`).
//!
//! `cargo run --release -p tracekit-dmtrace --example gen_dmtrace -- OUT [RECORDS] [dual|wall|thread-cpu]`

use tracekit_dmtrace::{MethodLine, TraceInfo, TraceWriter};
use tracekit_model::{CallKind, Clocks};

const THREADS: u16 = 8;
const METHODS: u32 = 4000;
const MAX_DEPTH: usize = 40;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let out = args
        .next()
        .ok_or("usage: gen_dmtrace OUT [RECORDS] [dual|wall|thread-cpu]")?;
    let records: u64 = args.next().map(|s| s.parse()).transpose()?.unwrap_or(10_000_000);
    let clocks = Clocks::from_name(&args.next().unwrap_or_else(|| "dual".into())).ok_or("bad clock")?;
    let mut info = TraceInfo::new(clocks);
    info.start_unix_us = 1_700_000_000_000_000;
    info.properties = vec![
        ("clock-call-overhead-nsec".into(), "150".into()),
        ("vm".into(), "art".into()),
        ("pid".into(), "4242".into()),
    ];
    info.threads = (1..=THREADS)
        .map(|t| {
            (
                t,
                if t == 1 {
                    "main".to_string()
                } else {
                    format!("worker-{t}")
                },
            )
        })
        .collect();
    info.methods = (0..METHODS)
        .map(|i| MethodLine {
            id: (i + 1) << 2,
            class: format!("com/example/pkg{}/Class{}", i % 37, i / 7),
            name: format!("method{i}"),
            signature: "(ILjava/lang/String;)V".into(),
            source_file: Some(format!("Class{}.java", i / 7)),
            line: Some(10 + i % 500),
        })
        .collect();
    let mut w = TraceWriter::create(&out, &info)?;
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut stacks: Vec<Vec<u32>> = vec![Vec::new(); usize::from(THREADS)];
    let mut cpu = vec![0u64; usize::from(THREADS)];
    let mut wall = 0u64;
    let mut written = 0u64;
    let mut thread = 0usize;
    while written < records {
        let r = next();
        if r % 64 == 0 {
            thread = (r >> 8) as usize % usize::from(THREADS);
        }
        let step = 1 + (r >> 20) % 4;
        wall += step;
        cpu[thread] += (r >> 24) % (step + 1);
        let stack = &mut stacks[thread];
        let room = records - written;
        let enter =
            stack.len() < MAX_DEPTH && (stack.is_empty() || (r >> 30) % 100 < 52) && room > stack.len() as u64 + 1;
        let tid = thread as u16 + 1;
        if enter {
            let m = ((r >> 34) % u64::from(METHODS)) as u32;
            stack.push(m);
            w.write_record(tid, (m + 1) << 2, CallKind::Enter, cpu[thread], wall)?;
        } else if let Some(m) = stack.pop() {
            let kind = if (r >> 40) % 500 == 0 {
                CallKind::Unwind
            } else {
                CallKind::Exit
            };
            w.write_record(tid, (m + 1) << 2, kind, cpu[thread], wall)?;
        } else {
            continue;
        }
        written += 1;
        if room <= stacks.iter().map(Vec::len).sum::<usize>() as u64 {
            break;
        }
    }
    // Close what is open so the file is balanced.
    for (t, stack) in stacks.iter_mut().enumerate() {
        while let Some(m) = stack.pop() {
            wall += 1;
            w.write_record(t as u16 + 1, (m + 1) << 2, CallKind::Exit, cpu[t], wall)?;
            written += 1;
        }
    }
    w.finish()?;
    eprintln!("wrote {written} records to {out}");
    Ok(())
}
