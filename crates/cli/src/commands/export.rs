//! `tracekit export --parquet DIR INPUT...`: sessions into a Parquet
//! dataset partitioned by session, which later exports add to and which
//! `tracekit sql DIR`, Spark and DuckDB query.

use super::sql_inputs;
use anyhow::{bail, Result};
use std::path::PathBuf;

/// Arguments of `tracekit export`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The dataset directory (created, or added to).
    #[arg(long, value_name = "DIR", required = true)]
    parquet: PathBuf,
    /// Traces (any format tracekit reads), emulator run directories and path
    /// logs (with --program), one session each.
    #[arg(required = true, value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    #[command(flatten)]
    sources: sql_inputs::SourceArgs,
}

/// Runs `tracekit export`.
pub fn run(a: Args) -> Result<()> {
    let dir = &a.parquet;
    for input in &a.inputs {
        if let (Ok(i), Ok(d)) = (std::fs::canonicalize(input), std::fs::canonicalize(dir)) {
            if i == d || i.starts_with(&d) {
                bail!(
                    "{} is inside the dataset {}: an export never writes over its input",
                    input.display(),
                    dir.display()
                );
            }
        }
    }
    let manifest = tracekit_sql::dataset::read_manifest(dir)?;
    let taken = manifest
        .sessions
        .iter()
        .map(|(k, v)| (k.clone(), v.source.clone()))
        .collect();
    let names = sql_inputs::name_sessions(&a.inputs, &taken);
    let total = a.inputs.len();
    let mut written = tracekit_sql::dataset::Written::default();
    // One session in memory at a time: open, write, drop.
    for (i, (input, (source, id))) in a.inputs.iter().zip(names).enumerate() {
        let session = sql_inputs::open_source(input, source, id, &a.sources)?;
        let _s = crate::progress::step(format!(
            "exporting {}/{total}: {}",
            i + 1,
            super::input::safe(session.id())
        ));
        let w = tracekit_sql::dataset::write(dir, vec![session], |_| {})?;
        written.sessions.extend(w.sessions);
        written.replaced.extend(w.replaced);
        for (t, n) in w.rows {
            *written.rows.entry(t).or_default() += n;
        }
    }
    for id in &written.replaced {
        super::note(format_args!("session {id} replaced (its source was exported before)"));
    }
    let calls = written.rows.get("call").copied().unwrap_or(0);
    println!(
        "{}: {} session{} written ({} calls); query it with: tracekit sql {} -q \"SELECT ...\"",
        dir.display(),
        written.sessions.len(),
        if written.sessions.len() == 1 { "" } else { "s" },
        calls,
        dir.display()
    );
    Ok(())
}
