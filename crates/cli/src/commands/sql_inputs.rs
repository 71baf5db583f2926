//! What `sql` and `export` share: turning input paths into sessions with
//! ids, through the one door.

use anyhow::{bail, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tracekit_sql::{Engine, SessionSource};

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

/// Opens one input through `tracekit-io` as the session `id`.
pub fn open_session(path: &Path, source: String, id: String) -> Result<SessionSource> {
    let loaded = super::input::open_loaded(path)?;
    Ok(SessionSource {
        id,
        source,
        format: loaded.format.name().to_owned(),
        session: loaded.session,
    })
}

/// Opens every input, named by [`name_sessions`].
pub fn open_sessions(inputs: &[PathBuf], taken: &BTreeMap<String, String>) -> Result<Vec<SessionSource>> {
    let names = name_sessions(inputs, taken);
    inputs
        .iter()
        .zip(names)
        .map(|(path, (source, id))| open_session(path, source, id))
        .collect()
}

/// The engine over the inputs: one dataset, or traces pooled.
pub fn engine(inputs: &[PathBuf]) -> Result<Engine> {
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
    let sessions = open_sessions(inputs, &BTreeMap::new())?;
    let _s = crate::progress::step("building tables");
    Ok(Engine::over_sessions(sessions)?)
}
