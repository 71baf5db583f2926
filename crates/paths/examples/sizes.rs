//! Trace sizes of BLPP, PAP and AdapTracer on synthetic CFGs and paths, with
//! AdapTracer's ideal code length, for run 1 (fresh counters) and run 2
//! (counters the decoder of run 1 wrote). Prints a Markdown table.
//!
//! The last column is `zstd -19` over the raw branch-choice stream (one byte
//! per choice), the general-purpose reference the issue names.
//!
//! Run: `cargo run --release -p tracekit-paths --example sizes`.

use std::io::Write;
use std::process::{Command, Stdio};
use tracekit_paths::*;

/// Bits of `zstd -19` over `bytes`, or `None` without a zstd binary.
fn zstd_bits(bytes: &[u8]) -> Option<u64> {
    let mut child = Command::new("zstd")
        .args(["-19", "-c", "-q"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let data = bytes.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&data));
    let out = child.wait_with_output().ok()?;
    writer.join().ok()?.ok()?;
    Some(out.stdout.len() as u64 * 8)
}

/// A kernel-like method: an outer loop of `outer` turns around an inner
/// loop of `inner` turns whose body has an if/else taken every third time.
fn nested_loops(outer: usize, inner: usize) -> (Program, Vec<BlockId>) {
    let mut b = CfgBuilder::new("m");
    b.edge("A", "H1").edge("H1", "H2").edge("H1", "X");
    b.edge("H2", "B").edge("H2", "L1").edge("B", "T").edge("B", "E");
    b.edge("T", "J").edge("E", "J").edge("J", "H2").edge("L1", "H1");
    b.entry("A").exit("X");
    let mut program = Program::new();
    let m = program.add_method(b.build().unwrap(), vec![]).unwrap();
    let mut names = vec!["A"];
    for _ in 0..outer {
        names.extend(["H1", "H2"]);
        for i in 0..inner {
            names.extend(["B", if i % 3 == 2 { "E" } else { "T" }, "J", "H2"]);
        }
        names.push("L1");
    }
    names.extend(["H1", "X"]);
    let path = program.cfg(m).resolve_path(&names).unwrap();
    (program, path)
}

fn main() {
    println!("| workload | W | BLPP bits | PAP bits | AdapTracer run 1 | ideal run 1 | AdapTracer run 2 | ideal run 2 | run 2 vs PAP | run 2, run contexts | zstd -19 of choices |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let synthetic = [
        ("small, random branches", 3u64, 12usize, 20usize, 2_000usize, 0u32),
        ("small, 80% repeat", 4, 12, 20, 2_000, 80),
        ("medium, 95% repeat", 5, 40, 70, 100_000, 95),
        ("large, 70% repeat", 6, 200, 400, 1_000_000, 70),
    ];
    let mut workloads: Vec<(String, Program, Vec<BlockId>)> = Vec::new();
    for (name, seed, n, extra, len, bias) in synthetic {
        // The first seed whose CFG lets the walk run its full length.
        let (program, path) = (seed..seed + 200)
            .map(|s| {
                let p = synth::random_program(s, n, extra, 2);
                let path = synth::random_path(p.cfg(MethodId(0)), s, len, bias);
                (p, path)
            })
            .find(|(_, path)| path.len() >= len)
            .expect("a seed with a long walk");
        workloads.push((name.to_string(), program, path));
    }
    let (program, path) = nested_loops(300, 37);
    workloads.push(("nested loops 300 × 37, if/else 1 in 3".to_string(), program, path));
    let runs = ModelOptions {
        symbol_order: SymbolOrder::Frequency,
        context: ContextKind::Runs,
    };
    let params = AdaptiveParams::default();
    for (name, program, path) in &workloads {
        let m = MethodId(0);
        let choices: Vec<u8> = choice_stream(program.cfg(m), path)
            .unwrap()
            .into_iter()
            .map(|c| c as u8)
            .collect();
        let zstd = zstd_bits(&choices).map_or("n/a".to_string(), |b| b.to_string());
        for width in [32u32, 64] {
            let bits = |s: Scheme| {
                Codec::new(program, m, s, width)
                    .unwrap()
                    .encode(None, path)
                    .unwrap()
                    .bits
            };
            let (blpp, pap) = (bits(Scheme::Blpp), bits(Scheme::Pap));
            let at = AdapTracer::new(program, width).unwrap();
            let words_bits = |t: &AdaptiveTrace| t.words.len() as u64 * u64::from(width);
            // Run 1 from fresh counters, run 2 from the model file the
            // decoder of run 1 writes.
            let two_runs = |options: ModelOptions| {
                let load =
                    |e: &EdgeModel| AdaptiveModel::from_edge_model_with_options(program, e, params, options).unwrap();
                let mut probe = load(&EdgeModel::new());
                let mut parser = probe.clone();
                let r1 = at.encode(&mut probe, m, path).unwrap();
                assert_eq!(&at.decode(&mut parser, m, &r1.words).unwrap(), path);
                let next = parser.to_edge_model(program);
                let (mut probe, mut parser) = (load(&next), load(&next));
                let r2 = at.encode(&mut probe, m, path).unwrap();
                assert_eq!(&at.decode(&mut parser, m, &r2.words).unwrap(), path);
                (r1, r2)
            };
            let (r1, r2) = two_runs(ModelOptions::default());
            let (_, r2c) = two_runs(runs);
            let (b1, b2) = (words_bits(&r1), words_bits(&r2));
            println!(
                "| {name} ({} edges) | {width} | {blpp} | {pap} | {b1} | {:.0} | {b2} | {:.0} | {:+.1}% | {} | {zstd} |",
                path.len() - 1,
                r1.ideal_bits,
                r2.ideal_bits,
                100.0 * (b2 as f64 - pap as f64) / pap as f64,
                words_bits(&r2c),
            );
        }
    }
    short_invocations();
}

/// Many short invocations of a loop-free method, 80% of them on the same
/// path: the
/// case the seed's conclusion names, where every PAP or BLPP trace costs at
/// least one word. Totals over all invocations, each trace on its own.
fn short_invocations() {
    println!();
    println!("| short invocations | W | BLPP bits | PAP bits | AdapTracer run 1 | ideal run 1 | AdapTracer run 2 | ideal run 2 | run 2, frequency order | frequency order vs PAP | frequency order, one stream |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    // A loop-free method: four if/else in a row.
    let mut b = CfgBuilder::new("m");
    for i in 0..4 {
        let (s, t) = (format!("S{i}"), format!("S{}", i + 1));
        for arm in ["L", "R"] {
            b.edge(&s, &format!("{arm}{i}")).edge(&format!("{arm}{i}"), &t);
        }
    }
    b.entry("S0").exit("S4");
    let mut program = Program::new();
    let m = program.add_method(b.build().unwrap(), vec![]).unwrap();
    let cfg = program.cfg(m);
    let path_of = |arms: &str| -> Vec<BlockId> {
        let mut names = vec!["S0".to_string()];
        for (i, a) in arms.chars().enumerate() {
            names.push(format!("{a}{i}"));
            names.push(format!("S{}", i + 1));
        }
        cfg.resolve_path(&names).unwrap()
    };
    let paths = [path_of("RRLR"), path_of("LRLR"), path_of("RRRR"), path_of("LLLL")];
    let mut rng = synth::Lcg(5);
    let invocations: Vec<&Vec<BlockId>> = (0..10_000)
        .map(|_| match rng.below(20) {
            0..=15 => &paths[0],
            16 | 17 => &paths[1],
            18 => &paths[2],
            _ => &paths[3],
        })
        .collect();
    for width in [32u32, 64] {
        let total = |s: Scheme| -> u64 {
            let c = Codec::new(&program, m, s, width).unwrap();
            invocations.iter().map(|p| c.encode(None, p).unwrap().bits).sum()
        };
        let (blpp, pap) = (total(Scheme::Blpp), total(Scheme::Pap));
        let at = AdapTracer::new(&program, width).unwrap();
        let run = |start: &AdaptiveModel| -> (u64, f64, AdaptiveModel) {
            let (mut probe, mut parser) = (start.clone(), start.clone());
            let (mut bits, mut ideal) = (0u64, 0.0);
            for p in &invocations {
                let t = at.encode(&mut probe, m, p).unwrap();
                assert_eq!(&at.decode(&mut parser, m, &t.words).unwrap(), *p);
                bits += t.words.len() as u64 * u64::from(width);
                ideal += t.ideal_bits;
            }
            (bits, ideal, parser)
        };
        let fresh = AdaptiveModel::new(&program, AdaptiveParams::default()).unwrap();
        let (b1, i1, learned) = run(&fresh);
        let learned = learned.to_edge_model(&program);
        let next = |order| {
            AdaptiveModel::from_edge_model_with_order(&program, &learned, AdaptiveParams::default(), order).unwrap()
        };
        let (b2, i2, _) = run(&next(SymbolOrder::Successor));
        let next = next(SymbolOrder::Frequency);
        let (b2f, _, _) = run(&next);
        // The frequency-ordered run 2 with every invocation in one word list.
        let mut probe = next.clone();
        let mut enc = ChoiceEncoder::new(width);
        for p in &invocations {
            enc.append_path(&mut probe, &program, m, p).unwrap();
        }
        let one = enc.finish();
        let mut parser = next.clone();
        let mut stream = at.stream(&one.words).unwrap();
        for p in &invocations {
            assert_eq!(&at.decode_next(&mut stream, &mut parser, m).unwrap(), *p);
        }
        let b_stream = one.words.len() as u64 * u64::from(width);
        println!(
            "| 10 000 calls, 4 if/else, 80% one path | {width} | {blpp} | {pap} | {b1} | {i1:.0} | {b2} | {i2:.0} | {b2f} | {:+.1}% | {b_stream} |",
            100.0 * (b2f as f64 - pap as f64) / pap as f64
        );
    }
}
