//! The trace log written by the in-JVM probes at exit.
//!
//! Text, one line per record:
//! - header `tracekit-paths-log 1 scheme=S width=W inc=I bound=B`;
//! - `thread INDEX JAVA_ID NAME` starts a thread's records;
//! - `i METHOD LEN VALUES…` one finished invocation (`n` instead of `i`: a
//!   recursive invocation, coded with its own copy of the model). `LEN` is
//!   `-1` for a normal return; otherwise the invocation was aborted by an
//!   exception (or by the JVM exiting) after `LEN` nodes, and its trace codes
//!   that prefix completed to EXIT along the fixed route of the runtime tables.
//!   `VALUES` are unsigned PathID words; `@NODE` is a PAP breakpoint node
//!   following the value it ends;
//! - `w WORDS…` after a thread's records, in AdapTracer stream mode: the
//!   thread's one word list, holding its invocations in record order (their
//!   own records then carry no values);
//! - `v NODES…` in context-stream logs (which have no `i` records: the
//!   thread's words hold its invocations), one per invocation in completion
//!   order when the jar was instrumented with verification: every node it
//!   reached after ENTRY (completed to EXIT when aborted);
//! - `r NODES…` after a record, in logs of jars instrumented with
//!   verification: every node the invocation reached after ENTRY (completed
//!   to EXIT when aborted), to check the decoded path from the same run.

use anyhow::{bail, Context, Result};

/// One token of a trace: a word, or a PAP breakpoint node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Token {
    /// A PathID word (or raw node id).
    Value(u64),
    /// A PAP breakpoint: the node where the preceding value ends.
    Breakpoint(u32),
}

/// One invocation's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Index of the thread in [`TraceLog::threads`].
    pub thread: usize,
    /// Method id (index into the program's methods).
    pub method: usize,
    /// `Some(n)`: aborted after `n` nodes past ENTRY.
    pub aborted_after: Option<usize>,
    /// Recursive invocation (own model copy).
    pub nested: bool,
    /// The trace.
    pub tokens: Vec<Token>,
    /// Verification sidecar: nodes after ENTRY, as recorded.
    pub raw: Option<Vec<u32>>,
}

/// A thread seen in the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadInfo {
    /// Java thread id.
    pub java_id: u64,
    /// Thread name.
    pub name: String,
    /// AdapTracer stream mode: the thread's one word list.
    pub words: Option<Vec<u64>>,
    /// Context stream with verification: per invocation, the nodes recorded after ENTRY.
    pub verify: Vec<Vec<u32>>,
}

/// A parsed trace log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceLog {
    /// Scheme name from the header.
    pub scheme: String,
    /// Word width from the header.
    pub width: u32,
    /// Threads in order of first probe.
    pub threads: Vec<ThreadInfo>,
    /// Records, per thread in completion order.
    pub records: Vec<Record>,
}

fn header_field<'a>(fields: &[&'a str], key: &str) -> Option<&'a str> {
    fields
        .iter()
        .find_map(|f| f.strip_prefix(key).and_then(|r| r.strip_prefix('=')))
}

/// Parses a trace log; errors name the line.
pub fn parse_log(text: &str) -> Result<TraceLog> {
    let mut lines = text.lines().enumerate();
    let (_, header) = lines.next().context("line 1: empty trace log")?;
    let h: Vec<&str> = header.split(' ').collect();
    if h.first() != Some(&"tracekit-paths-log") || h.get(1) != Some(&"1") {
        bail!("line 1: not a tracekit path log (version 1)");
    }
    let scheme = header_field(&h, "scheme").context("line 1: no scheme=")?.to_string();
    let width = header_field(&h, "width")
        .and_then(|w| w.parse().ok())
        .context("line 1: no width=")?;
    let mut log = TraceLog {
        scheme,
        width,
        threads: vec![],
        records: vec![],
    };
    for (i, line) in lines {
        let no = i + 1;
        if line.is_empty() {
            continue;
        }
        let mut f = line.split(' ');
        match f.next() {
            Some("thread") => {
                let idx: usize = f
                    .next()
                    .and_then(|x| x.parse().ok())
                    .with_context(|| format!("line {no}: bad thread index"))?;
                if idx != log.threads.len() {
                    bail!("line {no}: thread index {idx} out of order");
                }
                let java_id = f
                    .next()
                    .and_then(|x| x.parse().ok())
                    .with_context(|| format!("line {no}: bad thread id"))?;
                let name = f.collect::<Vec<_>>().join(" ");
                log.threads.push(ThreadInfo {
                    java_id,
                    name,
                    words: None,
                    verify: Vec::new(),
                });
            }
            Some(kind @ ("i" | "n")) => {
                if log.threads.is_empty() {
                    bail!("line {no}: record before any thread line");
                }
                let method = f
                    .next()
                    .and_then(|x| x.parse().ok())
                    .with_context(|| format!("line {no}: bad method id"))?;
                let len: i64 = f
                    .next()
                    .and_then(|x| x.parse().ok())
                    .with_context(|| format!("line {no}: bad length"))?;
                let mut tokens = Vec::new();
                for t in f {
                    tokens.push(match t.strip_prefix('@') {
                        Some(n) => {
                            Token::Breakpoint(n.parse().with_context(|| format!("line {no}: bad breakpoint {t:?}"))?)
                        }
                        None => Token::Value(t.parse().with_context(|| format!("line {no}: bad value {t:?}"))?),
                    });
                }
                log.records.push(Record {
                    thread: log.threads.len() - 1,
                    method,
                    aborted_after: if len < 0 { None } else { Some(len as usize) },
                    nested: kind == "n",
                    tokens,
                    raw: None,
                });
            }
            Some("w") => {
                let t = log
                    .threads
                    .last_mut()
                    .with_context(|| format!("line {no}: words before any thread line"))?;
                t.words = Some(numbers(f, no, "word")?);
            }
            Some("v") => {
                let t = log
                    .threads
                    .last_mut()
                    .with_context(|| format!("line {no}: verification line before any thread line"))?;
                t.verify.push(numbers(f, no, "node")?);
            }
            Some("r") => {
                let last = log
                    .records
                    .last_mut()
                    .with_context(|| format!("line {no}: verification line before any record"))?;
                last.raw = Some(numbers(f, no, "node")?);
            }
            _ => bail!(
                "line {no}: unknown record {:?}",
                line.chars().take(20).collect::<String>()
            ),
        }
    }
    Ok(log)
}

/// The rest of line `no` as numbers; a bad one is reported as a bad `what`.
fn numbers<'a, T>(fields: impl Iterator<Item = &'a str>, no: usize, what: &str) -> Result<Vec<T>>
where
    T: std::str::FromStr,
    T::Err: std::error::Error + Send + Sync + 'static,
{
    fields
        .map(|t| t.parse::<T>().with_context(|| format!("line {no}: bad {what} {t:?}")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_records_and_breakpoints() {
        let log = parse_log(
            "tracekit-paths-log 1 scheme=pap width=3 inc=3 bound=9\nthread 0 1 main\ni 4 -1 7 @2 1\nn 4 3 0\n",
        )
        .unwrap();
        assert_eq!(log.width, 3);
        assert_eq!(
            log.records[0].tokens,
            vec![Token::Value(7), Token::Breakpoint(2), Token::Value(1)]
        );
        assert_eq!(log.records[1].aborted_after, Some(3));
        assert!(log.records[1].nested);
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse_log("tracekit-paths-log 1 scheme=raw width=64\nthread 0 1 main\ni x -1\n").unwrap_err();
        assert!(e.to_string().contains("line 3"), "{e}");
        assert!(parse_log("garbage").unwrap_err().to_string().contains("line 1"));
    }
}
