//! A query's result as people and programs read it: an aligned table,
//! CSV or JSON (an array of row objects).

use crate::engine::QueryResult;
use crate::error::Error;
use datafusion::arrow::csv::WriterBuilder;
use datafusion::arrow::json::writer::JsonArray;
use datafusion::arrow::json::WriterBuilder as JsonWriterBuilder;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::arrow::util::pretty::pretty_format_batches;
use std::io::Write;

/// How a result is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// An aligned table, for people (text from inputs escaped).
    Table,
    /// CSV with a header line.
    Csv,
    /// A JSON array of objects, one per row.
    Json,
}

fn write_error(e: impl std::fmt::Display) -> Error {
    Error::Engine(format!("cannot write the result: {e}"))
}

/// Writes `result` to `out`.
pub fn write(result: &QueryResult, format: OutputFormat, out: &mut impl Write) -> Result<(), Error> {
    let batches: Vec<&RecordBatch> = result.batches.iter().filter(|b| b.num_rows() > 0).collect();
    match format {
        OutputFormat::Table => {
            if batches.is_empty() {
                let header: Vec<&str> = result.schema.fields().iter().map(|f| f.name().as_str()).collect();
                if !header.is_empty() {
                    writeln!(out, "{}", header.join(" | ")).map_err(write_error)?;
                }
                writeln!(out, "(0 rows)").map_err(write_error)?;
                return Ok(());
            }
            let owned: Vec<RecordBatch> = batches.iter().map(|b| (*b).clone()).collect();
            let text = pretty_format_batches(&owned).map_err(write_error)?.to_string();
            writeln!(out, "{}", tracekit_safeio::terminal_lines(&text)).map_err(write_error)?;
            let n = result.rows();
            writeln!(out, "({n} row{})", if n == 1 { "" } else { "s" }).map_err(write_error)?;
        }
        OutputFormat::Csv => {
            let mut w = WriterBuilder::new().with_header(true).build(&mut *out);
            if batches.is_empty() {
                let header: Vec<&str> = result.schema.fields().iter().map(|f| f.name().as_str()).collect();
                drop(w);
                writeln!(out, "{}", header.join(",")).map_err(write_error)?;
                return Ok(());
            }
            for b in batches {
                w.write(b).map_err(write_error)?;
            }
        }
        OutputFormat::Json => {
            let mut w = JsonWriterBuilder::new()
                .with_explicit_nulls(true)
                .build::<_, JsonArray>(&mut *out);
            for b in &batches {
                w.write(b).map_err(write_error)?;
            }
            w.finish().map_err(write_error)?;
            drop(w);
            writeln!(out).map_err(write_error)?;
        }
    }
    Ok(())
}
