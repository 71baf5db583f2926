//! Offline evaluator of the context stream: runs a Java command once under
//! the raw scheme (ground truth), codes every thread's invocations with the
//! core's context-stream encoder, decodes them back (must be equal), and
//! prints the stream's size against `zstd -19` over the raw branch-choice
//! stream and against plain AdapTracer stream mode (choices only,
//! per-record method references outside the coder).
//!
//! `cargo run --release -p tracekit-jvm --example context_eval -- NAME [W] -- java -cp …`

use anyhow::{bail, Context, Result};
use tracekit_jvm::compare::{choice_stream, run_scheme, zstd_bits, JavaCommand};
use tracekit_jvm::context::encode_thread;
use tracekit_jvm::decode::bits_for;
use tracekit_jvm::{Config, CoreProgram, Program, Scheme};
use tracekit_paths::{BlockId, ChoiceEncoder, ContextDecoder, ContextLayout, MethodId};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args.first().context("usage: context_eval NAME [W] -- java …")?;
    let sep = args
        .iter()
        .position(|a| a == "--")
        .context("no -- before the java command")?;
    let width: u32 = args.get(1).filter(|_| sep > 1).map_or(Ok(64), |w| w.parse())?;
    let cmd = JavaCommand::parse(&args[sep + 1..], None)?;
    let dir = std::env::temp_dir().join(format!("tk-context-eval-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let config = Config {
        scheme: Scheme::Raw,
        ..Config::default()
    };
    let run = run_scheme(&cmd, &config, None, &dir)?;
    let zstd = zstd_bits(&choice_stream(&run.program, &run.decoded), &dir).unwrap_or(0);
    let core = CoreProgram::new(&Program::from_instrumented_jar(&run.jar)?)?;
    let layout = ContextLayout::new(core.program(), core.initial_model())?;
    let paths = run.decoded.completed_paths(&run.program);
    let threads = run
        .decoded
        .invocations
        .iter()
        .map(|i| i.thread_index)
        .max()
        .map_or(0, |t| t + 1);
    let (mut bits, mut ideal, mut plain) = (0u64, 0.0, 0u64);
    let mut parts = [0.0; 3];
    for t in 0..threads {
        let trace = encode_thread(&core, &layout, width, &run.decoded, &paths, t)?;
        bits += trace.words.len() as u64 * u64::from(width);
        ideal += trace.ideal_bits;
        for (p, x) in parts.iter_mut().zip(trace.ideal_parts) {
            *p += x;
        }
        // Plain stream mode on the same run, and the round trip.
        let mut old = ChoiceEncoder::new(width);
        let mut old_model = core.initial_model().clone();
        let mine = run
            .decoded
            .invocations
            .iter()
            .zip(&paths)
            .filter(|(i, _)| i.thread_index == t);
        let got = ContextDecoder::new(core.program(), &layout, &trace.words, width)?.decode_all()?;
        let mut n = 0;
        for ((inv, (m, nodes)), g) in mine.zip(&got) {
            let blocks: Vec<BlockId> = nodes.iter().map(|&b| BlockId(b)).collect();
            old.append_path(&mut old_model, core.program(), MethodId(*m as u32), &blocks)?;
            plain += bits_for(run.program.methods.len()) + if inv.aborted { u64::from(width) } else { 0 };
            if (g.method, &g.path) != (MethodId(*m as u32), &blocks) {
                bail!("thread {t}, invocation {n}: decoded differently");
            }
            n += 1;
        }
        if n != got.len() || n != run.decoded.invocations.iter().filter(|i| i.thread_index == t).count() {
            bail!("thread {t}: decoded {} invocations", got.len());
        }
        plain += old.finish().words.len() as u64 * u64::from(width);
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
