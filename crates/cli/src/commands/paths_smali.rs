//! `tracekit paths instrument-apk`: an APK, an apktool directory or a
//! directory of baksmali output in, the same with path probes out (crate
//! `tracekit-smali`). The log the app writes decodes with
//! `tracekit paths decode-log … --program traced.apk`.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args as ClapArgs;
use tracekit_jvm::{Config, Scheme};
use tracekit_smali::apk;

use super::choices::{JvmScheme, StreamContext};
use super::paths_jvm::{adaptracer_mode, config, SchemeArgs};

/// `tracekit paths instrument-apk`.
#[derive(Debug, ClapArgs)]
pub struct InstrumentApkArgs {
    /// Input APK, apktool output directory, or directory of smali files.
    pub input: PathBuf,
    /// Output APK (from an APK or apktool directory) or directory (from plain smali).
    #[arg(short = 'o', long = "output", alias = "out", value_name = "PATH")]
    pub output: PathBuf,
    /// Path numbering scheme the probes record.
    #[arg(long, value_enum, default_value = "adaptracer")]
    pub scheme: JvmScheme,
    /// AdapTracer edge-probability model to start from (from `decode-log --update-model`).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Also record every block beside the trace (checked by decode-log).
    #[arg(long)]
    pub verify: bool,
    /// AdapTracer: one word list per thread (see `instrument --stream`).
    #[arg(long)]
    pub stream: bool,
    /// AdapTracer: the context stream or not (see `instrument --context`).
    #[arg(long, value_enum)]
    pub context: Option<StreamContext>,
    /// Keep the decoded and instrumented smali in this directory.
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
    #[command(flatten)]
    pub scheme_args: SchemeArgs,
}

/// Runs `paths instrument-apk`.
pub fn run(a: InstrumentApkArgs) -> Result<()> {
    let scheme = Scheme::from(a.scheme);
    let (stream, context) = if scheme == Scheme::Adaptracer {
        adaptracer_mode(a.context, a.stream)
    } else if a.stream || a.context.is_some() {
        bail!("--stream and --context are AdapTracer modes (--scheme adaptracer)");
    } else {
        (false, false)
    };
    let cfg = Config {
        verify: a.verify,
        stream,
        context,
        ..config(scheme, &a.scheme_args)
    };
    if tracekit_safeio::same_file(&a.input, &a.output) {
        bail!(
            "{}: would overwrite the input; choose another output",
            a.output.display()
        );
    }
    let plain_smali = a.input.is_dir() && !a.input.join("apktool.yml").is_file();
    if plain_smali {
        let r = tracekit_smali::instrument_dir(&a.input, &a.output, &cfg, a.model.as_deref())?;
        summary(&r, &cfg, &a.output);
        return Ok(());
    }
    let work = match &a.keep {
        Some(d) => {
            std::fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
            d.clone()
        }
        None => scratch()?,
    };
    let result = apk::instrument_apk(&a.input, &a.output, &work, &cfg, a.model.as_deref());
    if a.keep.is_none() {
        let _ = std::fs::remove_dir_all(&work);
    }
    let r = result?;
    let checked = apk::dexdump_apk(&a.output)?;
    summary(&r, &cfg, &a.output);
    super::note(format_args!(
        "dexdump accepts every dex file ({} methods with code); the probe runtime tracekit.rt is not in the APK yet (see crates/smali docs)",
        checked
    ));
    Ok(())
}

fn summary(r: &tracekit_smali::Instrumented, cfg: &Config, out: &Path) {
    for s in r.skipped.iter().take(20) {
        super::note(format_args!("left uninstrumented: {}", tracekit_safeio::terminal(s)));
    }
    if r.skipped.len() > 20 {
        super::note(format_args!("… and {} more left uninstrumented", r.skipped.len() - 20));
        let mut reasons: std::collections::BTreeMap<&str, usize> = Default::default();
        for s in &r.skipped {
            let why = s
                .split_once("): ")
                .or_else(|| s.split_once(": "))
                .map_or(s.as_str(), |x| x.1);
            *reasons.entry(why.split(" (").next().unwrap_or(why)).or_default() += 1;
        }
        for (why, n) in reasons {
            super::note(format_args!("{n} methods: {}", tracekit_safeio::terminal(why)));
        }
    }
    super::note(format_args!(
        "{} methods instrumented ({} skipped) in {} smali files, {} -> {}",
        r.methods,
        r.skipped.len(),
        r.files,
        tracekit_jvm::compare::variant_name(cfg),
        out.display()
    ));
}

fn scratch() -> Result<PathBuf> {
    let d = std::env::temp_dir().join(format!("tracekit-apk-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).with_context(|| format!("cannot create {}", d.display()))?;
    Ok(d)
}
