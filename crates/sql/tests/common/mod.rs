//! What the SQL tests share: sessions from the example generator and the
//! real captures, and reading single values out of results.

#![allow(dead_code)]

use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::datatypes::{DataType, Int64Type};
use std::path::PathBuf;
use tracekit_sql::{Engine, QueryResult, SessionSource, Source};

/// `../shared/realdata` beside the workspace (or `TRACEKIT_REALDATA`);
/// `None`, said on stderr, when absent.
pub fn realdata() -> Option<PathBuf> {
    let dir = std::env::var_os("TRACEKIT_REALDATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/realdata"));
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipped: realdata folder absent ({})", dir.display());
        None
    }
}

/// Every regular file under the realdata folder's subfolders.
pub fn realdata_files() -> Vec<PathBuf> {
    let Some(dir) = realdata() else { return Vec::new() };
    let mut out = Vec::new();
    for sub in std::fs::read_dir(&dir).unwrap() {
        let sub = sub.unwrap().path();
        if !sub.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&sub).unwrap() {
            let f = f.unwrap().path();
            if f.is_file() {
                out.push(f);
            }
        }
    }
    out.sort();
    out
}

/// The bundled example's session (seed `seed`), as `tracekit example` makes it.
pub fn example(seed: u64, id: &str) -> SessionSource {
    let opts = tracekit_example::Options {
        seed,
        ..Default::default()
    };
    SessionSource {
        id: id.into(),
        source: format!("example-{seed}"),
        format: "example".into(),
        session: tracekit_example::browser_session(&opts),
    }
}

/// [`example`] as a [`Source`].
pub fn trace(seed: u64, id: &str) -> Source {
    Source::Trace(example(seed, id))
}

/// The single integer a query returns.
pub fn int(engine: &Engine, sql: &str) -> i64 {
    let r = engine.run(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    single_int(&r)
}

/// The single integer of a one-row, one-column result (0 for NULL).
pub fn single_int(r: &QueryResult) -> i64 {
    let b = r.batches.iter().find(|b| b.num_rows() > 0).expect("a row");
    let col = b.column(0);
    if col.is_null(0) {
        return 0;
    }
    let col = datafusion::arrow::compute::cast(col, &DataType::Int64).unwrap();
    col.as_primitive::<Int64Type>().value(0)
}
