//! Context-stream logs (`instrument --stream --context predict`): each
//! thread's one word list holds all its invocations — method ids, how they
//! ended, choices — coded by the core's [`ContextEncoder`] rules; there are
//! no per-invocation records. Decoding rebuilds the invocations from the
//! words alone, checks them against the verification sidecar (`v` lines)
//! when present, and [`replay_context`] re-encodes them with the core
//! encoder to check the in-JVM words bit for bit.

use anyhow::{anyhow, bail, Result};
use tracekit_paths::{BlockId, ContextDecoder, ContextEncoder, ContextLayout, ContextTrace, MethodId};

use crate::decode::{Decoded, Invocation};
use crate::log::TraceLog;
use crate::program::StoredProgram;
use crate::schemes::{CoreProgram, Replay};

/// The layout of the probes' counters for `core` (shipped model).
pub fn layout(core: &CoreProgram) -> Result<ContextLayout> {
    ContextLayout::new(core.program(), core.initial_model()).map_err(|e| anyhow!("{e}"))
}

/// Decodes every thread's context stream of `log`.
pub fn decode_context_log(stored: &StoredProgram, core: &CoreProgram, log: &TraceLog) -> Result<Decoded> {
    let program = &stored.program;
    let width = stored.config.width;
    let layout = layout(core)?;
    if !log.records.is_empty() {
        bail!(
            "a context-stream log has no per-invocation records, but this one has {}",
            log.records.len()
        );
    }
    let mut out = Decoded {
        bits: 0,
        packed_bits: 0,
        method_ref_bits: 0,
        verified: 0,
        invocations: Vec::new(),
    };
    for (t, info) in log.threads.iter().enumerate() {
        let Some(words) = &info.words else {
            if !info.verify.is_empty() {
                bail!("thread {t}: verification lines but no words");
            }
            continue;
        };
        out.bits += words.len() as u64 * u64::from(width);
        let decoder =
            ContextDecoder::new(core.program(), &layout, words, width).map_err(|e| anyhow!("thread {t}: {e}"))?;
        let invs = decoder.decode_all().map_err(|e| anyhow!("thread {t}: {e}"))?;
        if !info.verify.is_empty() && info.verify.len() != invs.len() {
            bail!(
                "thread {t}: {} invocations decoded, but the run recorded {}",
                invs.len(),
                info.verify.len()
            );
        }
        for (k, inv) in invs.into_iter().enumerate() {
            let m = inv.method.index();
            let cfg = &program.methods[m].cfg;
            let full: Vec<u32> = inv.path.iter().map(|b| b.0).collect();
            if let Some(raw) = info.verify.get(k) {
                if full[1..] != raw[..] {
                    bail!(
                        "thread {t}, invocation {} ({}): decoded path differs from the nodes recorded in the same run",
                        k + 1,
                        program.methods[m].display_name()
                    );
                }
                out.verified += 1;
            }
            let mut path = full.clone();
            if let Some(n) = inv.aborted_after {
                let n = n as usize;
                if n + 1 > path.len() {
                    bail!(
                        "thread {t}, invocation {}: aborted after {n} nodes, but the path has only {}",
                        k + 1,
                        path.len()
                    );
                }
                path.truncate(n + 1);
            }
            let exit = cfg.exit();
            out.invocations.push(Invocation {
                method: program.methods[m].display_name(),
                thread: info.name.clone(),
                path: path.iter().filter(|&&v| v != 0 && v != exit).map(|&v| v - 1).collect(),
                aborted: inv.aborted_after.is_some(),
                method_id: m,
                // The words are one stream: each invocation is charged what its decisions cost.
                bits: inv.ideal_bits.round() as u64,
                completed: inv.aborted_after.map(|_| full),
                nested: false,
                thread_index: t,
                packed_bits: 0,
            });
        }
    }
    out.packed_bits = out.bits;
    Ok(out)
}

/// Codes thread `t`'s invocations of `decoded` (completed `paths`, as
/// [`Decoded::completed_paths`] gives them) into one context stream, as the
/// probes do.
pub fn encode_thread(
    core: &CoreProgram,
    layout: &ContextLayout,
    width: u32,
    decoded: &Decoded,
    paths: &[(usize, Vec<u32>)],
    t: usize,
) -> Result<ContextTrace> {
    let mut enc = ContextEncoder::new(core.program(), layout, width).map_err(|e| anyhow!("{e}"))?;
    for (inv, (m, nodes)) in decoded
        .invocations
        .iter()
        .zip(paths)
        .filter(|(i, _)| i.thread_index == t)
    {
        let blocks: Vec<BlockId> = nodes.iter().map(|&b| BlockId(b)).collect();
        let aborted = inv.aborted.then_some(inv.path.len() as u32);
        enc.append(MethodId(*m as u32), &blocks, aborted)
            .map_err(|e| anyhow!("{e}"))?;
    }
    Ok(enc.finish())
}

/// Re-encodes the decoded invocations of a context-stream run with the core
/// encoder, thread by thread: the ideal code length, and whether every
/// thread's words equal the probes'.
pub fn replay_context(stored: &StoredProgram, core: &CoreProgram, log: &TraceLog, decoded: &Decoded) -> Result<Replay> {
    let layout = layout(core)?;
    let paths = decoded.completed_paths(&stored.program);
    let mut out = Replay {
        ideal_bits: 0.0,
        choices: 0,
        words_equal: true,
    };
    for (t, info) in log.threads.iter().enumerate() {
        let Some(words) = &info.words else { continue };
        let trace = encode_thread(core, &layout, stored.config.width, decoded, &paths, t)?;
        out.ideal_bits += trace.ideal_bits;
        out.choices += trace.choices;
        out.words_equal &= *words == trace.words;
    }
    Ok(out)
}
