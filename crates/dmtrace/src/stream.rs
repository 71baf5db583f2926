//! The ART streaming variant: header version `0xF0 | v`, no text prefix,
//! records interleaved with escape packets (thread id 0):
//! op 1 = method line, op 2 = thread name, op 3 = summary (the key section).

use crate::build::Builder;
use crate::error::{Error, Result};
use crate::header::{BinaryHeader, Layout, RawRecord};
use crate::keys::{parse_key_text, parse_method_line, KeySection, MethodLine};
use crate::read::clocks_of;
use crate::repair;
use std::io::Read;
use tracekit_model::{Clocks, Method, Session};

/// Escape op: a `*methods` line follows (u16 length, text).
pub const OP_METHOD: u8 = 1;
/// Escape op: a thread name follows (u16 tid, u16 length, name).
pub const OP_THREAD: u8 = 2;
/// Escape op: the summary follows (u32 length, key-section text).
pub const OP_SUMMARY: u8 = 3;

/// What the packets of a streaming trace said.
#[derive(Default)]
struct Packets {
    records: Vec<RawRecord>,
    methods: Vec<MethodLine>,
    threads: Vec<(u32, String)>,
    summary: Option<KeySection>,
    truncated: bool,
}

/// Reads the packets after the header (`pos` = offset of the first one).
pub(crate) fn read_streaming<R: Read>(input: &mut R, pos: u64, header: BinaryHeader, prefix_keys: Option<KeySection>) -> Result<Session> {
    let mut data = Vec::new();
    input.read_to_end(&mut data)?;
    let times = if header.version >= 3 && header.record_size >= 14 { 2 } else { 1 };
    let layout = Layout::new(&header, times, pos)?;
    let p = parse_packets(&data, pos, layout)?;
    drop(data);
    let missing_summary = p.summary.is_none();
    let keys = p.summary.or(prefix_keys).unwrap_or_default();
    let clocks = match (times, clocks_of(&keys, &header)) {
        (2, _) => Clocks::DUAL,
        (_, c) if c.wall && c.thread_cpu => Clocks::THREAD_CPU,
        (_, c) => c,
    };
    let mut b = Builder::new(&keys, clocks, header.start_unix_us);
    for m in p.methods {
        let mut method = Method::new(m.class, m.name, m.signature);
        method.source_file = m.source_file;
        method.line = m.line;
        method.address = Some(u64::from(m.id));
        b.add_method(m.id, method);
    }
    for (tid, name) in p.threads {
        b.add_thread(tid, name);
    }
    let mut per_tid = vec![0u32; 1 << 16];
    for r in &p.records {
        per_tid[usize::from(r.tid)] = per_tid[usize::from(r.tid)].saturating_add(1);
    }
    b.allocate(per_tid);
    for r in p.records {
        b.record(r);
    }
    if p.truncated {
        b.note(repair::TRUNCATED_RECORD, 1, "the file ends inside a record or packet; the partial data was dropped");
    }
    if missing_summary {
        b.note(repair::MISSING_SUMMARY, 1, "the streaming trace has no summary packet (tracing did not stop cleanly); defaults were used for its keys");
    }
    Ok(b.finish())
}

fn parse_packets(data: &[u8], base: u64, layout: Layout) -> Result<Packets> {
    let mut p = Packets::default();
    let mut at = 0usize;
    let u16_at = |i: usize| u16::from_le_bytes([data[i], data[i + 1]]);
    while at < data.len() {
        let off = base + at as u64;
        if data.len() - at < 2 {
            p.truncated = true;
            break;
        }
        if u16_at(at) != 0 {
            if data.len() - at < layout.record_size {
                p.truncated = true;
                break;
            }
            p.records.push(layout.decode(&data[at..at + layout.record_size]));
            at += layout.record_size;
            continue;
        }
        let Some(&op) = data.get(at + 2) else {
            p.truncated = true;
            break;
        };
        match op {
            OP_METHOD => {
                let Some(text) = sized(data, at + 3, 2) else {
                    p.truncated = true;
                    break;
                };
                let line = String::from_utf8_lossy(text);
                let m = parse_method_line(&line)
                    .ok_or_else(|| Error::binary(off + 5, format!("bad method line `{}`", line.trim_end())))?;
                p.methods.push(m);
                at += 5 + text.len();
            }
            OP_THREAD => {
                if data.len() - at < 5 {
                    p.truncated = true;
                    break;
                }
                let tid = u16_at(at + 3);
                let Some(name) = sized(data, at + 5, 2) else {
                    p.truncated = true;
                    break;
                };
                p.threads.push((u32::from(tid), String::from_utf8_lossy(name).into_owned()));
                at += 7 + name.len();
            }
            OP_SUMMARY => {
                let Some(text) = sized(data, at + 3, 4) else {
                    p.truncated = true;
                    break;
                };
                p.summary = Some(parse_key_text(text, off + 7)?);
                at += 7 + text.len();
            }
            other => return Err(Error::binary(off + 2, format!("unknown streaming packet op {other}"))),
        }
    }
    Ok(p)
}

/// The bytes of a length-prefixed field (`len_bytes` = 2 or 4) at `at`.
fn sized(data: &[u8], at: usize, len_bytes: usize) -> Option<&[u8]> {
    let len_field = data.get(at..at.checked_add(len_bytes)?)?;
    let len = len_field.iter().rev().fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
    let start = at + len_bytes;
    data.get(start..start.checked_add(len)?)
}
