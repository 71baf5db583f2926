//! Writes repeated runs of the example crate's synthetic program as Android
//! traces, for trying `tracekit diff` and for `scripts/bench/diff.sh`:
//!
//! `gen_runs DIR RUNS_PER_SIDE METHODS CALLS [SEED [METHOD PERCENT]]`
//!
//! writes `DIR/a-NN.trace` and `DIR/b-NN.trace`; with METHOD and PERCENT,
//! method number METHOD costs PERCENT% more in side B.

use std::path::PathBuf;
use tracekit_example::runs::{method, program_run, RunsSpec, Side};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: gen_runs DIR RUNS_PER_SIDE METHODS CALLS [SEED [METHOD PERCENT]]";
    if args.len() < 4 {
        eprintln!("{usage}");
        std::process::exit(2);
    }
    let num = |i: usize| -> u64 {
        args[i].parse().unwrap_or_else(|_| {
            eprintln!("{usage}");
            std::process::exit(2)
        })
    };
    let dir = PathBuf::from(&args[0]);
    let runs = num(1) as u32;
    let mut spec = RunsSpec {
        methods: num(2) as usize,
        calls: num(3) as usize,
        ..RunsSpec::default()
    };
    if args.len() > 4 {
        spec.seed = num(4);
    }
    if args.len() > 6 {
        let percent: f64 = args[6].parse().unwrap_or(10.0);
        spec.changes.push((num(5) as usize, 1.0 + percent / 100.0));
        eprintln!(
            "planted: {} costs {percent}% more in B",
            method(num(5) as usize).display_name()
        );
    }
    std::fs::create_dir_all(&dir).expect("create the output directory");
    for (side, letter) in [(Side::A, 'a'), (Side::B, 'b')] {
        for r in 0..runs {
            let s = program_run(&spec, side, r);
            let base = dir.join(format!("{letter}-{r:02}"));
            tracekit_io::save(&s, &base).expect("write the trace");
            eprintln!("{}.trace: {} calls", base.display(), s.call_event_count() / 2);
        }
    }
}
