//! Parquet datasets: many sessions, one directory, any engine.
//!
//! Layout (Hive-style partitions, which DataFusion, Spark and DuckDB all
//! read):
//!
//! ```text
//! DIR/tracekit-dataset.json                  the manifest: version, sessions and their sources
//! DIR/<table>/session=<id>/part-0.parquet    one file per table and session (empty tables too)
//! ```
//!
//! A file holds every column but `session`, which the directory names. A
//! later export adds sessions (a session exported again from the same
//! source replaces its files). Files are written under a temporary name
//! and renamed, and the manifest is rewritten last, so an interrupted
//! export leaves the dataset as it was plus, at worst, unlisted files that
//! the next export of that session overwrites.

use crate::calls::call_batches;
use crate::error::Error;
use crate::schema::{Table, TABLES};
use crate::tables::{batch, Source};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::catalog::TableProvider;
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::listing::{ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl};
use datafusion::datasource::MemTable;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The manifest's file name.
pub const MANIFEST: &str = "tracekit-dataset.json";

/// The dataset format's version.
pub const VERSION: u32 = 1;

/// What the manifest says of one session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionEntry {
    /// The input it was read from (absolute path).
    pub source: String,
    /// The input's format.
    pub format: String,
}

/// The manifest.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always `tracekit-parquet`.
    pub format: String,
    /// [`VERSION`].
    pub version: u32,
    /// Sessions by id.
    pub sessions: BTreeMap<String, SessionEntry>,
}

/// True when `dir` is a dataset (holds a manifest).
pub fn is_dataset(dir: &Path) -> bool {
    dir.join(MANIFEST).is_file()
}

/// Reads `dir`'s manifest; an empty one when `dir` does not exist or is an
/// empty directory (a new dataset).
pub fn read_manifest(dir: &Path) -> Result<Manifest, Error> {
    let path = dir.join(MANIFEST);
    if !path.exists() {
        let empty = !dir.exists() || dir.read_dir().map(|mut d| d.next().is_none()).unwrap_or(false);
        if empty {
            return Ok(Manifest {
                format: "tracekit-parquet".into(),
                version: VERSION,
                sessions: BTreeMap::new(),
            });
        }
        return Err(Error::Dataset {
            path: dir.to_owned(),
            message: format!("not a tracekit dataset (no {MANIFEST}) and not empty: refusing to write into it"),
        });
    }
    let text = tracekit_safeio::read_text(&path).map_err(|e| Error::Dataset {
        path: path.clone(),
        message: e.to_string(),
    })?;
    let m: Manifest = serde_json::from_str(&text).map_err(|e| Error::Dataset {
        path: path.clone(),
        message: format!("line {}, column {}: {e}", e.line(), e.column()),
    })?;
    if m.format != "tracekit-parquet" || m.version > VERSION {
        return Err(Error::Dataset {
            path,
            message: format!(
                "a dataset of format {:?} version {}; this tracekit reads tracekit-parquet up to version {VERSION}",
                m.format, m.version
            ),
        });
    }
    Ok(m)
}

/// The file holding `table` for session `id`.
pub fn file_of(dir: &Path, table: &str, id: &str) -> PathBuf {
    dir.join(table).join(format!("session={id}")).join("part-0.parquet")
}

fn io_error(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Dataset {
        path: path.to_owned(),
        message: e.to_string(),
    }
}

fn properties() -> WriterProperties {
    WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(3).expect("a valid level")))
        .set_max_row_group_row_count(Some(1 << 20))
        .build()
}

/// Writes one table of one session to its file (temporary name, then rename).
fn write_table(dir: &Path, t: &Table, s: &Arc<Source>) -> Result<u64, Error> {
    let path = file_of(dir, t.name, s.id());
    let parent = path.parent().expect("a file in a directory");
    std::fs::create_dir_all(parent).map_err(|e| io_error(parent, e))?;
    let tmp = path.with_extension("parquet.tmp");
    let file = std::fs::File::create(&tmp).map_err(|e| io_error(&tmp, e))?;
    let mut w = ArrowWriter::try_new(file, t.file_schema(), Some(properties())).map_err(|e| io_error(&tmp, e))?;
    let mut rows = 0u64;
    let mut put = |b: RecordBatch| -> Result<(), Error> {
        rows += b.num_rows() as u64;
        w.write(&b).map_err(|e| io_error(&tmp, e))
    };
    if t.name == "call" {
        for b in call_batches(s.clone(), false, 64 * 1024) {
            put(b.map_err(|e| io_error(&tmp, e))?)?;
        }
    } else if let Some(b) = batch(t.name, s, false) {
        put(b)?;
    }
    w.close().map_err(|e| io_error(&tmp, e))?;
    std::fs::rename(&tmp, &path).map_err(|e| io_error(&path, e))?;
    Ok(rows)
}

/// What an export wrote.
#[derive(Debug, Clone, Default)]
pub struct Written {
    /// Sessions written, by id.
    pub sessions: Vec<String>,
    /// Sessions that replaced an earlier export of the same source.
    pub replaced: Vec<String>,
    /// Rows written per table.
    pub rows: BTreeMap<&'static str, u64>,
}

/// Adds sessions to the dataset in `dir` (created when missing). Their ids
/// must have come from [`crate::ids::session_ids`] against this dataset's
/// manifest. `progress` is told each session as it starts.
pub fn write(dir: &Path, sessions: Vec<Source>, mut progress: impl FnMut(&str)) -> Result<Written, Error> {
    let mut manifest = read_manifest(dir)?;
    std::fs::create_dir_all(dir).map_err(|e| io_error(dir, e))?;
    let mut out = Written::default();
    for s in sessions {
        progress(s.id());
        let s = Arc::new(s);
        for t in TABLES {
            let n = write_table(dir, t, &s)?;
            *out.rows.entry(t.name).or_default() += n;
        }
        let entry = SessionEntry {
            source: s.source().to_owned(),
            format: s.format().to_owned(),
        };
        if manifest.sessions.insert(s.id().to_owned(), entry).is_some() {
            out.replaced.push(s.id().to_owned());
        }
        out.sessions.push(s.id().to_owned());
        write_manifest(dir, &manifest)?;
    }
    Ok(out)
}

fn write_manifest(dir: &Path, m: &Manifest) -> Result<(), Error> {
    let path = dir.join(MANIFEST);
    let tmp = dir.join(format!("{MANIFEST}.tmp"));
    let text = serde_json::to_string_pretty(m).expect("a manifest serializes");
    std::fs::write(&tmp, text + "\n").map_err(|e| io_error(&tmp, e))?;
    std::fs::rename(&tmp, &path).map_err(|e| io_error(&path, e))
}

/// Checks that every file the manifest implies is there, and returns the
/// manifest.
pub fn check(dir: &Path) -> Result<Manifest, Error> {
    if !is_dataset(dir) {
        return Err(Error::Dataset {
            path: dir.to_owned(),
            message: format!("not a tracekit dataset (no {MANIFEST}; write one with `tracekit export --parquet`)"),
        });
    }
    let m = read_manifest(dir)?;
    for id in m.sessions.keys() {
        for t in TABLES {
            let f = file_of(dir, t.name, id);
            if !f.is_file() {
                return Err(Error::Dataset {
                    path: f,
                    message: format!(
                        "missing: the manifest lists session {id}, but its {} table has no file",
                        t.name
                    ),
                });
            }
        }
    }
    Ok(m)
}

/// Reads every file's footer and returns the first that is not a readable
/// Parquet file of its table's schema (to name it after a query failed).
pub fn find_corrupt(dir: &Path) -> Option<Error> {
    let m = read_manifest(dir).ok()?;
    for id in m.sessions.keys() {
        for t in TABLES {
            let f = file_of(dir, t.name, id);
            let bad = |message: String| {
                Some(Error::Dataset {
                    path: f.clone(),
                    message,
                })
            };
            let file = match std::fs::File::open(&f) {
                Ok(file) => file,
                Err(e) => return bad(e.to_string()),
            };
            match parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file) {
                Ok(r) => {
                    let want = t.file_schema();
                    let names: Vec<_> = r.schema().fields().iter().map(|f| f.name().clone()).collect();
                    let expected: Vec<_> = want.fields().iter().map(|f| f.name().clone()).collect();
                    if names != expected {
                        return bad(format!("columns {names:?}, expected {expected:?}"));
                    }
                    for b in match r.build() {
                        Ok(b) => b,
                        Err(e) => return bad(format!("corrupt Parquet file: {e}")),
                    } {
                        if let Err(e) = b {
                            return bad(format!("corrupt Parquet file: {e}"));
                        }
                    }
                }
                Err(e) => return bad(format!("corrupt Parquet file: {e}")),
            }
        }
    }
    None
}

/// A table's name and its DataFusion provider.
pub(crate) type NamedTable = (&'static str, Arc<dyn TableProvider>);

/// One DataFusion table per schema table, over the dataset's files.
pub(crate) fn listing_tables(dir: &Path) -> Result<Vec<NamedTable>, Error> {
    let m = check(dir)?;
    let abs = std::fs::canonicalize(dir).map_err(|e| io_error(dir, e))?;
    let mut out: Vec<NamedTable> = Vec::new();
    for t in TABLES {
        if m.sessions.is_empty() {
            let mem = MemTable::try_new(t.schema(), vec![Vec::new()]).map_err(|e| Error::Engine(e.to_string()))?;
            out.push((t.name, Arc::new(mem)));
            continue;
        }
        let url = format!("{}/{}/", abs.display(), t.name);
        let url = ListingTableUrl::parse(&url).map_err(|e| io_error(&abs.join(t.name), e))?;
        let options = ListingOptions::new(Arc::new(ParquetFormat::default()))
            .with_file_extension(".parquet")
            .with_table_partition_cols(vec![(
                "session".to_owned(),
                datafusion::arrow::datatypes::DataType::Utf8,
            )]);
        let config = ListingTableConfig::new(url)
            .with_listing_options(options)
            .with_schema(t.file_schema());
        let table = ListingTable::try_new(config).map_err(|e| Error::Engine(e.to_string()))?;
        out.push((t.name, Arc::new(table)));
    }
    Ok(out)
}
