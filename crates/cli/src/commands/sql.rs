//! `tracekit sql INPUT... [-q QUERY | -f FILE]`: SQL over traces, opened
//! through the one door, or over a Parquet dataset; an interactive prompt
//! when no query is given on a terminal.

use super::sql_inputs;
use anyhow::{bail, Context, Result};
use std::io::{BufRead, IsTerminal, Read, Write};
use std::path::PathBuf;
use tracekit_sql::{Engine, OutputFormat};

/// Arguments of `tracekit sql`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Tables: tracekit sql INPUT -q \"SHOW TABLES\"; columns, types and units: the \
guide's SQL tables pages. Session ids (the `session` column) come from the inputs' paths."
)]
pub struct Args {
    /// Traces (any format tracekit reads), emulator run directories and path
    /// logs (with --program) pooled into one set of tables, or one Parquet
    /// dataset written by `tracekit export --parquet`.
    #[arg(required = true, value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    /// The query (several statements separated by `;`: the last one's rows are printed).
    #[arg(short = 'q', long, value_name = "SQL", conflicts_with = "file")]
    query: Option<String>,
    /// Read the query from this file.
    #[arg(short = 'f', long, value_name = "FILE")]
    file: Option<PathBuf>,
    /// Print CSV with a header line.
    #[arg(long, conflicts_with = "json")]
    csv: bool,
    /// Print a JSON array of row objects.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    sources: sql_inputs::SourceArgs,
}

/// Runs `tracekit sql`.
pub fn run(a: Args) -> Result<()> {
    let format = if a.csv {
        OutputFormat::Csv
    } else if a.json {
        OutputFormat::Json
    } else {
        OutputFormat::Table
    };
    let query = match (&a.query, &a.file) {
        (Some(q), _) => Some(q.clone()),
        (None, Some(f)) => {
            Some(tracekit_safeio::read_text(f).with_context(|| format!("cannot read the query file {}", f.display()))?)
        }
        (None, None) if !std::io::stdin().is_terminal() => {
            let mut q = String::new();
            std::io::stdin()
                .read_to_string(&mut q)
                .context("cannot read the query from standard input")?;
            Some(q)
        }
        (None, None) => None,
    };
    let engine = sql_inputs::engine(&a.inputs, &a.sources)?;
    match query {
        Some(q) => {
            let result = {
                let _s = crate::progress::step("querying");
                engine.run(&q)?
            };
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            tracekit_sql::output::write(&result, format, &mut out)?;
            out.flush()?;
            Ok(())
        }
        None => prompt(&engine, format),
    }
}

/// The interactive prompt: statements end with `;`; `.tables`, `.schema
/// TABLE`, `.help` and `.quit` are the prompt's own commands.
fn prompt(engine: &Engine, format: OutputFormat) -> Result<()> {
    let stdin = std::io::stdin();
    let mut lines = stdin.lock();
    let mut stdout = std::io::stdout();
    writeln!(
        stdout,
        "tracekit SQL — end statements with ';'. .tables lists the tables, .schema TABLE its columns, .quit leaves."
    )?;
    let mut buffer = String::new();
    loop {
        write!(
            stdout,
            "{}",
            if buffer.is_empty() { "tracekit> " } else { "     ...> " }
        )?;
        stdout.flush()?;
        let mut line = String::new();
        if lines.read_line(&mut line)? == 0 {
            writeln!(stdout)?;
            return Ok(());
        }
        let trimmed = line.trim();
        if buffer.is_empty() && trimmed.starts_with('.') {
            let mut words = trimmed.split_whitespace();
            match words.next() {
                Some(".quit") | Some(".exit") => return Ok(()),
                Some(".tables") => writeln!(stdout, "{}", engine.table_names().join("  "))?,
                Some(".schema") => match words.next() {
                    Some(t) => show(engine, &format!("DESCRIBE {t}"), format),
                    None => writeln!(stdout, "usage: .schema TABLE")?,
                },
                Some(".help") => writeln!(
                    stdout,
                    "SQL statements end with ';'. .tables, .schema TABLE, .quit. The guide's SQL pages document every table."
                )?,
                Some(other) => writeln!(stdout, "unknown command {other} (try .help)")?,
                None => {}
            }
            continue;
        }
        buffer.push_str(&line);
        if trimmed.ends_with(';') {
            let q = std::mem::take(&mut buffer);
            show(engine, &q, format);
        }
    }
}

/// Runs one query at the prompt, printing its rows or its error.
fn show(engine: &Engine, q: &str, format: OutputFormat) {
    match engine.run(q) {
        Ok(r) => {
            let mut out = std::io::stdout().lock();
            if let Err(e) = tracekit_sql::output::write(&r, format, &mut out) {
                eprintln!("tracekit: error: {e}");
            }
        }
        Err(e) => eprintln!("tracekit: error: {}", tracekit_safeio::terminal_lines(&e.to_string())),
    }
}

/// Refuses a query over nothing.
pub fn check_inputs(inputs: &[PathBuf]) -> Result<()> {
    if inputs.is_empty() {
        bail!("no input: give traces or a dataset");
    }
    Ok(())
}
