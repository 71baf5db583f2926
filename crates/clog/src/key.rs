//! The text key part: `*version`, `*logs`, `*end`.

use crate::{ContextLog, Error, KeyPart, LogDef};
use std::io::Write;
use tracekit_model::ContextType;

#[derive(PartialEq)]
enum Section {
    Start,
    Version,
    Logs,
}

/// Parses the key part; returns it and the offset of the first data byte.
pub(crate) fn parse(bytes: &[u8]) -> Result<(KeyPart, usize), Error> {
    let mut pos = 0usize;
    let mut line_no = 0usize;
    let mut section = Section::Start;
    let mut version: Option<u32> = None;
    let mut defs: Vec<LogDef> = Vec::new();
    loop {
        if pos >= bytes.len() {
            return Err(Error::Key {
                line: line_no + 1,
                offset: pos as u64,
                message: "file ends before `*end`".into(),
            });
        }
        line_no += 1;
        let start = pos;
        let end = bytes[pos..].iter().position(|&b| b == b'\n').map(|i| pos + i);
        let (raw, next) = match end {
            Some(e) => (&bytes[pos..e], e + 1),
            None => (&bytes[pos..], bytes.len()),
        };
        pos = next;
        let err = |message: String| Error::Key {
            line: line_no,
            offset: start as u64,
            message,
        };
        let text = std::str::from_utf8(raw).map_err(|_| err("key part is not UTF-8 text".into()))?;
        let line = text.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        match line.trim() {
            "*version" => {
                if section != Section::Start {
                    return Err(err("`*version` must come first".into()));
                }
                section = Section::Version;
                continue;
            }
            "*logs" => {
                if version.is_none() {
                    return Err(err("`*logs` before a version number".into()));
                }
                section = Section::Logs;
                continue;
            }
            "*end" => {
                if section != Section::Logs {
                    return Err(err("`*end` before the `*logs` section".into()));
                }
                check_ids(&defs).map_err(err)?;
                let version = version.unwrap_or(1);
                return Ok((KeyPart { version, defs }, pos));
            }
            _ => {}
        }
        match section {
            Section::Start => return Err(err(format!("expected `*version`, found {:?}", clip(line)))),
            Section::Version => {
                if version.is_some() {
                    return Err(err(format!("unexpected line in version section: {:?}", clip(line))));
                }
                let v: u32 = line
                    .trim()
                    .parse()
                    .map_err(|_| err(format!("bad version number {:?}", clip(line))))?;
                if v != 1 {
                    return Err(err(format!("unsupported context log version {v} (only 1 is defined)")));
                }
                version = Some(v);
            }
            Section::Logs => defs.push(parse_def(line).map_err(err)?),
        }
    }
}

fn parse_def(line: &str) -> Result<LogDef, String> {
    let mut parts = line.trim_start().splitn(3, ' ');
    let id = parts.next().unwrap_or("");
    let kind = parts
        .next()
        .ok_or_else(|| format!("log line needs `<id> <type> <label>`: {:?}", clip(line)))?;
    let label = parts.next().unwrap_or("").trim();
    let id: u32 = id.parse().map_err(|_| format!("bad log id {:?}", clip(id)))?;
    let code: u32 = kind.parse().map_err(|_| format!("bad log type {:?}", clip(kind)))?;
    let kind = ContextType::from_code(code)
        .ok_or_else(|| format!("unknown log type {code} (1 int, 2 long, 3 float, 4 double, 5 string)"))?;
    if label.is_empty() {
        return Err(format!("log {id} has no label"));
    }
    Ok(LogDef {
        id,
        kind,
        label: label.to_owned(),
    })
}

fn check_ids(defs: &[LogDef]) -> Result<(), String> {
    let mut seen = vec![false; defs.len()];
    for d in defs {
        let i = d.id as usize;
        if i >= defs.len() {
            return Err(format!(
                "log ids must form the series 0..{}; found {}",
                defs.len(),
                d.id
            ));
        }
        if seen[i] {
            return Err(format!("log id {} declared twice", d.id));
        }
        seen[i] = true;
    }
    Ok(())
}

fn clip(s: &str) -> String {
    s.chars().take(60).collect()
}

/// Writes the key part.
pub(crate) fn write(log: &ContextLog, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "*version\n{}\n*logs", log.version)?;
    for d in &log.defs {
        let label = d.label.replace(['\n', '\r'], " ");
        writeln!(out, "{} {} {}", d.id, d.kind.code(), label)?;
    }
    writeln!(out, "*end")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_example_parses() {
        let text = "*version\n\n1\n*logs\n0 3 CPU\n2 1 Screen orientation\n1 1 Screen state\n4 4 Time since orientation change\n3 5 Wifi connection state\n*end\nDATA";
        let (k, at) = parse(text.as_bytes()).unwrap();
        assert_eq!(k.defs.len(), 5);
        assert_eq!(k.defs[1].label, "Screen orientation");
        assert_eq!(k.kind_of(4), Some(ContextType::Double));
        assert_eq!(&text[at..], "DATA");
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse(b"*version\n1\n*logs\n0 9 CPU\n*end\n").unwrap_err();
        assert_eq!(
            e,
            Error::Key {
                line: 4,
                offset: 17,
                message: "unknown log type 9 (1 int, 2 long, 3 float, 4 double, 5 string)".into()
            }
        );
        let e = parse(b"*version\n1\n*logs\n0 1 A\n2 1 B\n*end\n").unwrap_err();
        assert!(e.to_string().contains("series 0..2"), "{e}");
        assert!(parse(b"*version\n1\n*logs\n0 1 A\n")
            .unwrap_err()
            .to_string()
            .contains("before `*end`"));
        assert!(parse(b"hello").is_err());
    }
}
