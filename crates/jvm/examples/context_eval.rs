//! Offline evaluator of the context stream: runs a Java command once under
//! the raw scheme (ground truth), codes every thread's invocations with the
//! core's [`ContextEncoder`], decodes them back (must be equal), and prints
//! the stream's size against `zstd -19` over the raw branch-choice stream
//! and against plain AdapTracer stream mode (choices only, per-record method
//! references outside the coder).
//!
//! `cargo run --release -p tracekit-jvm --example context_eval -- NAME -- java -cp …`

use anyhow::{bail, Context, Result};
use tracekit_jvm::compare::{choice_stream, run_scheme, zstd_bits, JavaCommand};
use tracekit_jvm::decode::bits_for;
use tracekit_jvm::schemes::core_program;
use tracekit_jvm::{Config, Scheme};
use tracekit_paths::{AdaptiveModel, BlockId, ChoiceEncoder, ContextDecoder, ContextEncoder, ContextLayout, MethodId};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args.first().context("usage: context_eval NAME -- java …")?;
    let cmd = JavaCommand::parse(&args[2..], None)?;
    let dir = std::env::temp_dir().join(format!("tk-context-eval-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let config = Config {
        scheme: Scheme::Raw,
        ..Config::default()
    };
    let run = run_scheme(&cmd, &config, None, &dir)?;
    let zstd = zstd_bits(&choice_stream(&run.program, &run.decoded), &dir).unwrap_or(0);
    let core = core_program(&run.program)?;
    let model = AdaptiveModel::new(&core, Default::default())?;
    let layout = ContextLayout::new(&core, &model)?;
    let paths = run.decoded.completed_paths(&run.program);
    let threads = run
        .decoded
        .invocations
        .iter()
        .map(|i| i.thread_index)
        .max()
        .map_or(0, |t| t + 1);
    let width = 64;
    let (mut bits, mut ideal, mut plain) = (0u64, 0.0, 0u64);
    let mut parts = [0.0; 3];
    for t in 0..threads {
        let mut enc = ContextEncoder::new(&core, &layout, width)?;
        let mut old = ChoiceEncoder::new(width);
        let mut old_model = model.clone();
        let mut want = Vec::new();
        for (inv, (m, nodes)) in run
            .decoded
            .invocations
            .iter()
            .zip(&paths)
            .filter(|(i, _)| i.thread_index == t)
        {
            let blocks: Vec<BlockId> = nodes.iter().map(|&b| BlockId(b)).collect();
            let aborted = inv.aborted.then_some(inv.path.len() as u32);
            enc.append(MethodId(*m as u32), &blocks, aborted)?;
            old.append_path(&mut old_model, &core, MethodId(*m as u32), &blocks)?;
            plain += bits_for(run.program.methods.len()) + if inv.aborted { width as u64 } else { 0 };
            want.push((MethodId(*m as u32), blocks, aborted));
        }
        let trace = enc.finish();
        bits += trace.words.len() as u64 * width as u64;
        ideal += trace.ideal_bits;
        for i in 0..3 {
            parts[i] += trace.ideal_parts[i];
        }
        plain += old.finish().words.len() as u64 * width as u64;
        let got = ContextDecoder::new(&core, &layout, &trace.words, width)?.decode_all()?;
        if got.len() != want.len() {
            bail!("thread {t}: decoded {} invocations, want {}", got.len(), want.len());
        }
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            if (g.method, &g.path, g.aborted_after) != (w.0, &w.1, w.2) {
                bail!("thread {t}, invocation {k}: decoded differently");
            }
        }
    }
    println!(
        "{name:<14} context {bits:>9} (ideal {ideal:>9.0})  zstd {zstd:>7}  ratio {:>5.2}  [methods {:.0} ends {:.0} choices {:.0}]  AT stream {plain:>9}  invocations {}",
        bits as f64 / zstd.max(1) as f64,
        parts[0],
        parts[1],
        parts[2],
        run.decoded.invocations.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
