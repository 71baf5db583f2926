//! The adaptive loop (the seed's TraceParser cycle): run, decode with the
//! model the run used, write the updated model, instrument again with it.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;

use crate::compare::{run_scheme, JavaCommand};
use crate::decode::{decode_file, Options};
use crate::instrument::tempdir;
use crate::schemes::{CoreProgram, ModelUpdate};
use crate::tables::{Config, Scheme};

/// Sizes of one run of the loop.
#[derive(Debug, Clone, Serialize)]
pub struct AdaptRun {
    /// 1-based run number.
    pub run: usize,
    /// Trace size (W-bit words and method references).
    pub bits: u64,
    /// Bytes of the log file.
    pub log_bytes: u64,
    /// Ideal code length under the run's adaptive model.
    pub ideal_bits: f64,
    /// Branch choices coded.
    pub choices: u64,
}

/// Runs `argv` `runs` times under AdapTracer, feeding each run's updated
/// model to the next. `model` is the first run's model (none: all counters
/// 1); the last updated model is written to `save` when given.
pub fn adapt(
    argv: &[String],
    jar: Option<&Path>,
    base: &Config,
    model: Option<&Path>,
    runs: usize,
    save: Option<&Path>,
) -> Result<Vec<AdaptRun>> {
    let cmd = JavaCommand::parse(argv, jar)?;
    let dir = tempdir()?;
    let config = Config {
        scheme: Scheme::Adaptracer,
        ..base.clone()
    };
    let mut current: Option<PathBuf> = model.map(Path::to_path_buf);
    let mut out = Vec::new();
    for run in 1..=runs {
        let r =
            run_scheme(&cmd, &config, current.as_deref(), &dir, |_, _| Ok(())).with_context(|| format!("run {run}"))?;
        let replay = r.summary.replay.expect("AdapTracer runs are replayed");
        out.push(AdaptRun {
            run,
            bits: r.summary.bits,
            log_bytes: r.summary.log_bytes,
            ideal_bits: replay.ideal_bits,
            choices: replay.choices,
        });
        let stored = crate::program::Program::from_instrumented_jar(&r.jar)?;
        let core = CoreProgram::new(&stored)?;
        let mut update = ModelUpdate::new(&core);
        decode_file(&stored, &core, &r.log, Options::default(), |d| {
            update.observe(d.method, d.nodes)
        })?;
        let next = update.finish();
        let path = dir.join(format!("model-{run}.tsv"));
        next.save(&path).map_err(|e| anyhow::anyhow!("{e}"))?;
        current = Some(path);
    }
    if let (Some(s), Some(c)) = (save, &current) {
        std::fs::copy(c, s).with_context(|| format!("cannot write {}", s.display()))?;
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(out)
}
