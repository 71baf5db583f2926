//! `tracekit paths instrument`: jar in, instrumented jar out.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::program::{Program, StoredProgram, PROGRAM_ENTRY};
use crate::schemes::SchemeTables;
use crate::tables::{write_tables, Config};
use crate::tools::java_tools;

/// Result of instrumenting a jar.
#[derive(Debug)]
pub struct Instrumented {
    /// Number of methods with probes.
    pub methods: usize,
    /// Methods left out and why.
    pub skipped: Vec<String>,
    /// Messages of the Java instrumenter.
    pub log: String,
}

/// Instruments `input` into `output` under `config`, with the AdapTracer
/// model `model` (initial counters) when given. `classpath` lists jars the
/// program needs besides its own (used to compute stack-map frames).
pub fn instrument_jar(
    input: &Path,
    output: &Path,
    config: &Config,
    model: Option<&Path>,
    classpath: &[PathBuf],
) -> Result<Instrumented> {
    if tracekit_safeio::same_file(input, output) {
        bail!(
            "{}: would overwrite the input jar {}; choose another output",
            output.display(),
            input.display()
        );
    }
    let program = Program::from_jar(input)?;
    let schemes = SchemeTables::new(&program, config, model)?;
    let mut failure = None;
    let (tables, fingerprint) = write_tables(&program, config, |id, cfg, out| {
        if let Err(e) = schemes.rows(id, cfg, out) {
            failure.get_or_insert(e.context(format!("method {}", program.methods[id].display_name())));
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    let plan_text = program.instrumentation_plan(
        &format!("{}\t{}", config.scheme.name(), u8::from(config.verify)),
        |id, out| {
            schemes
                .edge_work(id, &program.methods[id].cfg, out)
                .with_context(|| format!("method {}", program.methods[id].display_name()))
        },
    )?;
    let work = tempdir()?;
    let plan = work.join("plan.txt");
    std::fs::write(&plan, plan_text)?;
    let res = work.join("res");
    std::fs::create_dir_all(res.join("tracekit"))?;
    std::fs::create_dir_all(res.join("META-INF/tracekit"))?;
    std::fs::write(res.join("tracekit/tables.txt"), tables)?;
    let stored = StoredProgram {
        config: config.clone(),
        model: schemes.model_text(),
        program,
        fingerprint,
    };
    std::fs::write(res.join(PROGRAM_ENTRY), serde_json::to_vec(&stored)?)?;
    let tools = java_tools()?;
    // The jar is written beside the output and renamed over it only when
    // complete, so a failure leaves no half-written jar (and no old one lost).
    let partial = partial_path(output);
    let log = tools.instrument(&plan, input, &partial, &res, classpath);
    let _ = std::fs::remove_dir_all(&work);
    let log = log.and_then(|l| {
        std::fs::rename(&partial, output).with_context(|| format!("cannot write {}", output.display()))?;
        Ok(l)
    });
    if log.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    Ok(Instrumented {
        methods: stored.program.methods.len(),
        skipped: stored.program.skipped,
        log: log?,
    })
}

/// `DIR/.NAME.partial`: where a jar is written before it replaces `out`.
fn partial_path(out: &Path) -> PathBuf {
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    out.with_file_name(format!(".{name}.partial"))
}

/// A fresh private directory under the system temp dir.
pub(crate) fn tempdir() -> Result<PathBuf> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "tracekit-jvm-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).with_context(|| format!("cannot create {}", d.display()))?;
    Ok(d)
}
