//! Errors, and where in a query they are.

use datafusion::error::DataFusionError;
use std::path::PathBuf;

/// What can go wrong.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The query is wrong: a syntax error, an unknown table or column, a
    /// type mismatch. `line` and `column` count from 1 when known.
    #[error("{}", query_message(.message, .line, .column, .excerpt))]
    Query {
        /// What is wrong.
        message: String,
        /// Line in the query text.
        line: Option<u64>,
        /// Column in that line.
        column: Option<u64>,
        /// The line, and a caret under the column.
        excerpt: Option<String>,
    },
    /// A file of a dataset is missing, unreadable or corrupt.
    #[error("{}: {message}", .path.display())]
    Dataset {
        /// The file (or directory).
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// Anything else the engine reports while running.
    #[error("{0}")]
    Engine(String),
}

fn query_message(message: &str, line: &Option<u64>, column: &Option<u64>, excerpt: &Option<String>) -> String {
    let mut out = match (line, column) {
        (Some(l), Some(c)) => format!("query, line {l}, column {c}: {message}"),
        (Some(l), None) => format!("query, line {l}: {message}"),
        _ => format!("query: {message}"),
    };
    if let Some(x) = excerpt {
        out.push('\n');
        out.push_str(x);
    }
    out
}

/// Turns an engine error about `sql` into an [`Error`], finding the line
/// and column from the parser's message or the planner's diagnostic.
pub(crate) fn from_datafusion(e: DataFusionError, sql: &str) -> Error {
    let diagnostic = e.diagnostic().cloned();
    let root = strip(&e);
    let is_query = matches!(
        root,
        DataFusionError::SQL(..)
            | DataFusionError::Plan(..)
            | DataFusionError::SchemaError(..)
            | DataFusionError::NotImplemented(..)
    ) || diagnostic.is_some();
    if let DataFusionError::ObjectStore(_) | DataFusionError::ParquetError(_) | DataFusionError::IoError(_) = root {
        return Error::Engine(clean(&root.to_string()));
    }
    if !is_query {
        return Error::Engine(clean(&e.to_string()));
    }
    let mut message = clean(&root.to_string());
    let mut at = None;
    if let Some(d) = &diagnostic {
        if let Some(span) = d.span {
            if span.start.line > 0 {
                at = Some((span.start.line, span.start.column));
            }
        }
        if !d.message.is_empty() {
            message = clean(&d.message);
        }
    }
    if at.is_none() {
        if let Some((msg, l, c)) = parser_position(&message) {
            message = msg;
            at = Some((l, c));
        }
    }
    let excerpt = at.and_then(|(l, c)| excerpt(sql, l, c));
    Error::Query {
        message,
        line: at.map(|a| a.0),
        column: at.map(|a| a.1),
        excerpt,
    }
}

/// The innermost DataFusion error (context and diagnostics removed).
fn strip(e: &DataFusionError) -> &DataFusionError {
    match e {
        DataFusionError::Context(_, inner) | DataFusionError::Diagnostic(_, inner) => strip(inner),
        other => other,
    }
}

/// Drops DataFusion's error-kind prefixes (`Error during planning: `) and
/// its backtrace hint.
fn clean(s: &str) -> String {
    let mut s = s.trim();
    for prefix in [
        "SQL error: ",
        "Error during planning: ",
        "Schema error: ",
        "This feature is not implemented: ",
        "ParserError(\"",
        "TokenizerError(\"",
        "Arrow error: ",
        "External error: ",
        "Execution error: ",
    ] {
        if let Some(rest) = s.strip_prefix(prefix) {
            s = rest;
        }
    }
    let s = s.strip_suffix("\")").unwrap_or(s);
    s.to_owned()
}

/// `… at Line: 3, Column: 7` → (`…`, 3, 7).
fn parser_position(message: &str) -> Option<(String, u64, u64)> {
    let i = message.rfind(" at Line: ")?;
    let rest = &message[i + " at Line: ".len()..];
    let (l, rest) = rest.split_once(", Column: ")?;
    let c: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let tail = &rest[c.len()..];
    Some((
        format!("{}{}", &message[..i], tail),
        l.trim().parse().ok()?,
        c.parse().ok()?,
    ))
}

/// The query's line `line` with a caret under `column`.
fn excerpt(sql: &str, line: u64, column: u64) -> Option<String> {
    let text = sql.lines().nth(line.checked_sub(1)? as usize)?;
    let text = tracekit_safeio::terminal(text);
    let pad: String = text
        .chars()
        .take(column.saturating_sub(1) as usize)
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    Some(format!("  {text}\n  {pad}^"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parser_positions_are_read_from_the_message() {
        let (m, l, c) = parser_position("Expected: an expression, found: FROM at Line: 2, Column: 8").unwrap();
        assert_eq!((m.as_str(), l, c), ("Expected: an expression, found: FROM", 2, 8));
        assert_eq!(
            excerpt("SELECT 1,\nSELECT FROM", 2, 8).unwrap(),
            "  SELECT FROM\n         ^"
        );
    }
}
