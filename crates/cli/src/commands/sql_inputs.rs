//! What `sql` and `export` share: turning input paths into sessions with
//! ids, through the one door.

use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tracekit_sql::{Engine, PathsBuilder, SessionSource, Source};

/// What besides traces `sql` and `export` read: emulator runs and path logs.
#[derive(Debug, Clone, clap::Args)]
pub struct SourceArgs {
    /// Path logs among the inputs were written by this instrumented jar.
    #[arg(long, value_name = "JAR")]
    program: Option<PathBuf>,
    /// Emulator runs: the categorization profile (default: each run's own).
    #[arg(long)]
    profile: Option<String>,
}

/// The absolute form of an input path, as the `source` column shows it.
fn absolute(p: &Path) -> String {
    std::fs::canonicalize(p)
        .or_else(|_| std::fs::canonicalize(tracekit_io::base_of(p)).map(|b| b.with_extension("trace")))
        .unwrap_or_else(|_| p.to_owned())
        .display()
        .to_string()
}

/// Each input's source (absolute path) and session id, unique among them
/// and against `taken` (a dataset's sessions: id → source).
pub fn name_sessions(inputs: &[PathBuf], taken: &BTreeMap<String, String>) -> Vec<(String, String)> {
    let sources: Vec<String> = inputs.iter().map(|p| absolute(p)).collect();
    let ids = tracekit_sql::ids::session_ids(&sources, taken);
    sources.into_iter().zip(ids).collect()
}

/// Opens one input as the session `id`: an emulator run directory through
/// `tracekit-emu`, a path log (with `--program`) through `tracekit-jvm`'s
/// decoder, anything else through `tracekit-io`.
pub fn open_source(path: &Path, source: String, id: String, args: &SourceArgs) -> Result<Source> {
    if path.is_dir() && tracekit_emu::run::load_record(path).is_ok() {
        let _s = crate::progress::step(format!("reading the emulator run {}", path.display()));
        let record = tracekit_emu::run::load_record(path)?;
        let analysis = tracekit_emu::run::analysis_for(path, args.profile.as_deref())?;
        let captures = tracekit_emu::run::load_capture(path)?;
        return Ok(Source::Emulator(tracekit_sql::EmuSource {
            id,
            source,
            program: record.program,
            analysis,
            captures,
        }));
    }
    if let Some(jar) = &args.program {
        if path.is_file() && tracekit_jvm::decode::open_log(path).is_ok() {
            let _s = crate::progress::reading(format!("decoding {}", path.display()), path);
            let stored = tracekit_jvm::Program::from_instrumented_jar(jar)?;
            let core = tracekit_jvm::CoreProgram::new(&stored).with_context(|| jar.display().to_string())?;
            let methods = stored
                .program
                .methods
                .iter()
                .map(|m| (m.class.clone(), m.name.clone(), m.descriptor.clone()))
                .collect();
            let mut rows = PathsBuilder::new(id, source, methods);
            let summary = tracekit_jvm::decode_file(&stored, &core, path, tracekit_jvm::Options::default(), |d| {
                rows.add(d.thread, d.method, d.blocks(), d.aborted_after.is_some(), d.bits);
                Ok(())
            })
            .with_context(|| format!("decoding {}", path.display()))?;
            return Ok(Source::Paths(rows.finish(summary.threads)));
        }
    }
    let loaded = super::input::open_loaded(path)?;
    Ok(Source::Trace(SessionSource {
        id,
        source,
        format: loaded.format.name().to_owned(),
        session: loaded.session,
    }))
}

/// Opens every input, named by [`name_sessions`].
pub fn open_sources(inputs: &[PathBuf], taken: &BTreeMap<String, String>, args: &SourceArgs) -> Result<Vec<Source>> {
    let names = name_sessions(inputs, taken);
    inputs
        .iter()
        .zip(names)
        .map(|(path, (source, id))| open_source(path, source, id, args))
        .collect()
}

/// The engine over the inputs: one dataset, or traces, emulator runs and
/// path logs pooled.
pub fn engine(inputs: &[PathBuf], args: &SourceArgs) -> Result<Engine> {
    super::sql::check_inputs(inputs)?;
    let datasets: Vec<&PathBuf> = inputs.iter().filter(|p| tracekit_sql::dataset::is_dataset(p)).collect();
    if !datasets.is_empty() {
        if inputs.len() > 1 {
            bail!(
                "{} is a Parquet dataset: query it alone (add traces to it with `tracekit export --parquet {} TRACE...`)",
                datasets[0].display(),
                datasets[0].display()
            );
        }
        let _s = crate::progress::step("opening the dataset");
        return Ok(Engine::over_dataset(datasets[0])?);
    }
    let sources = open_sources(inputs, &BTreeMap::new(), args)?;
    let _s = crate::progress::step("building tables");
    Ok(Engine::over(sources)?)
}
