//! tracekit's text variant of the data part (seed 000's `TextFileDataTarget`
//! wrote plain text too, but left its layout unspecified).
//!
//! After the same key part as the binary form:
//!
//! ```text
//! *data
//! start-usec=1700000000000000
//! 1500	2	1
//! 1520	9	CONNECTED
//! ```
//!
//! Each data line is `<delta µs> TAB <log id> TAB <value>`. Numbers are
//! decimal (floats in Rust's shortest round-trip form, `NaN`, `inf`,
//! `-inf`). String values escape `\` `\t` `\n` `\r` as `\\` `\t` `\n` `\r`.
//! Blank lines are ignored. A file cut off in its last line keeps every
//! complete line before it.
#![allow(clippy::tabs_in_doc_comments)] // the example shows the format's real tab separators

use crate::{ContextLog, DataForm, Error, KeyPart, ReadOutcome, Record};
use std::io::Write;
use tracekit_model::{ContextType, ContextValue};

/// Reads the text data part starting at `at`.
pub(crate) fn read_data(key: KeyPart, bytes: &[u8], at: usize) -> Result<ReadOutcome, Error> {
    let first_line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
    let mut start: Option<i64> = None;
    let mut saw_data = false;
    let mut records = Vec::new();
    let mut truncated_at = None;
    let mut pos = at;
    let mut line_no = first_line - 1;
    while pos < bytes.len() {
        line_no += 1;
        let line_start = pos;
        let nl = bytes[pos..].iter().position(|&b| b == b'\n');
        let (raw, complete) = match nl {
            Some(i) => (&bytes[pos..pos + i], true),
            None => (&bytes[pos..], false),
        };
        pos += raw.len() + 1;
        let err = |message: String| Error::TextData {
            line: line_no,
            offset: line_start as u64,
            message,
        };
        let Ok(text) = std::str::from_utf8(raw) else {
            if !complete {
                truncated_at = Some(line_start as u64);
                break;
            }
            if !saw_data {
                return Err(Error::Data {
                    offset: line_start as u64,
                    message: "data part is neither binary (magic 0x574F4C53) nor text".into(),
                });
            }
            return Err(err("line is not UTF-8".into()));
        };
        let line = text.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        if !saw_data {
            if line.trim() != "*data" {
                return Err(err(
                    "data part is neither binary (magic 0x574F4C53) nor text (`*data`)".into()
                ));
            }
            saw_data = true;
            continue;
        }
        if start.is_none() {
            let v = line
                .strip_prefix("start-usec=")
                .ok_or_else(|| err("expected `start-usec=<µs since the epoch>`".into()))?;
            start = Some(v.trim().parse().map_err(|_| err(format!("bad start time {v:?}")))?);
            continue;
        }
        match parse_record(line, &key) {
            Ok(r) => records.push(r),
            Err(_) if !complete => {
                truncated_at = Some(line_start as u64);
                break;
            }
            Err(m) => return Err(err(m)),
        }
    }
    let Some(start) = start else {
        return Err(Error::Data {
            offset: bytes.len() as u64,
            message: "text data part has no `start-usec=` line".into(),
        });
    };
    Ok(ReadOutcome {
        log: ContextLog {
            version: key.version,
            start_unix_us: start,
            defs: key.defs,
            records,
        },
        form: DataForm::Text,
        truncated_at,
    })
}

fn parse_record(line: &str, key: &KeyPart) -> Result<Record, String> {
    let mut f = line.splitn(3, '\t');
    let delta = f.next().unwrap_or("");
    let id = f.next().ok_or("expected `<delta µs>\\t<log id>\\t<value>`")?;
    let value = f.next().ok_or("expected `<delta µs>\\t<log id>\\t<value>`")?;
    let delta_us: i64 = delta.trim().parse().map_err(|_| format!("bad delta {delta:?}"))?;
    let log_id: u32 = id.trim().parse().map_err(|_| format!("bad log id {id:?}"))?;
    let kind = key
        .kind_of(log_id)
        .ok_or_else(|| format!("log id {log_id} is not declared in the key part"))?;
    let bad = |_| format!("bad {} value {value:?}", kind.name());
    let value = match kind {
        ContextType::Int => ContextValue::Int(value.trim().parse().map_err(bad)?),
        ContextType::Long => ContextValue::Long(value.trim().parse().map_err(bad)?),
        ContextType::Float => {
            ContextValue::Float(value.trim().parse().map_err(|_| format!("bad float value {value:?}"))?)
        }
        ContextType::Double => ContextValue::Double(
            value
                .trim()
                .parse()
                .map_err(|_| format!("bad double value {value:?}"))?,
        ),
        ContextType::String => ContextValue::Str(unescape(value)?),
    };
    Ok(Record {
        log_id,
        delta_us,
        value,
    })
}

fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => o.push_str("\\\\"),
            '\t' => o.push_str("\\t"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            c => o.push(c),
        }
    }
    o
}

fn unescape(s: &str) -> Result<String, String> {
    let mut o = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            o.push(c);
            continue;
        }
        match it.next() {
            Some('\\') => o.push('\\'),
            Some('t') => o.push('\t'),
            Some('n') => o.push('\n'),
            Some('r') => o.push('\r'),
            other => {
                return Err(format!(
                    "bad escape `\\{}` in string value",
                    other.map(String::from).unwrap_or_default()
                ))
            }
        }
    }
    Ok(o)
}

/// Writes the text data part.
pub(crate) fn write_data(log: &ContextLog, out: &mut impl Write) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::new(out);
    writeln!(w, "*data\nstart-usec={}", log.start_unix_us)?;
    for r in &log.records {
        let v = match &r.value {
            ContextValue::Str(s) => escape(s),
            v => v.to_string(),
        };
        writeln!(w, "{}\t{}\t{}", r.delta_us, r.log_id, v)?;
    }
    w.flush()
}
