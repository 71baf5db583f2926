//! The ART streaming variant: header version `0xF0 | v`, no text prefix,
//! records interleaved with escape packets (thread id 0):
//! op 1 = method line, op 2 = thread name, op 3 = summary (the key section).

use crate::build::Builder;
use crate::error::{Error, Result};
use crate::header::{BinaryHeader, Layout, RawRecord};
use crate::keys::{parse_key_text, parse_method_line, KeySection, MethodLine};
use crate::read::clocks_of;
use crate::read::Input;
use crate::repair;
use std::io::{BufRead, Read};
use tracekit_model::{Clocks, Method, Session};

/// Escape op: a `*methods` line follows (u16 length, text).
pub const OP_METHOD: u8 = 1;
/// Escape op: a thread name follows (u16 tid, u16 length, name).
pub const OP_THREAD: u8 = 2;
/// Escape op: the summary follows (u32 length, key-section text).
pub const OP_SUMMARY: u8 = 3;

/// What the escape packets of a streaming trace said.
#[derive(Default)]
struct Meta {
    methods: Vec<MethodLine>,
    threads: Vec<(u32, String)>,
    summary: Option<KeySection>,
    truncated: bool,
}

/// Reads the packets after the header (`pos` = offset of the first one).
/// When the input can be read twice, a first pass collects the escape
/// packets and counts records and a second builds the session, so memory
/// stays the model's; otherwise the records are held until the summary
/// (which says the clock) has been read.
pub(crate) fn read_streaming<I: Input>(
    input: &mut I,
    pos: u64,
    header: BinaryHeader,
    prefix_keys: Option<KeySection>,
) -> Result<Session> {
    let times = if header.version >= 3 && header.record_size >= 14 {
        2
    } else {
        1
    };
    let layout = Layout::new(&header, times, pos)?;
    let mut per_tid = vec![0u32; 1 << 16];
    let rewindable = input.rewind_to(pos)?;
    let mut held = Vec::new();
    let meta = scan(input, pos, layout, |r| {
        per_tid[usize::from(r.tid)] = per_tid[usize::from(r.tid)].saturating_add(1);
        if !rewindable {
            held.push(r);
        }
    })?;
    let missing_summary = meta.summary.is_none();
    let keys = meta.summary.or(prefix_keys).unwrap_or_default();
    let clocks = match (times, clocks_of(&keys, &header)) {
        (2, _) => Clocks::DUAL,
        (_, c) if c.wall && c.thread_cpu => Clocks::THREAD_CPU,
        (_, c) => c,
    };
    let mut b = Builder::new(&keys, clocks, header.start_unix_us);
    for m in meta.methods {
        let mut method = Method::new(m.class, m.name, m.signature);
        method.source_file = m.source_file;
        method.line = m.line;
        method.address = Some(u64::from(m.id));
        b.add_method(m.id, method);
    }
    for (tid, name) in meta.threads {
        b.add_thread(tid, name);
    }
    b.allocate(per_tid);
    if rewindable {
        input.rewind_to(pos)?;
        scan(input, pos, layout, |r| b.record(r))?;
    } else {
        held.into_iter().for_each(|r| b.record(r));
    }
    if meta.truncated {
        b.note(
            repair::TRUNCATED_RECORD,
            1,
            "the file ends inside a record or packet; the partial data was dropped",
        );
    }
    if missing_summary {
        b.note(
            repair::MISSING_SUMMARY,
            1,
            "the streaming trace has no summary packet (tracing did not stop cleanly); defaults were used for its keys",
        );
    }
    Ok(b.finish())
}

/// Reads packets to the end, handing records to `on_record`.
fn scan<R: BufRead>(r: &mut R, base: u64, layout: Layout, mut on_record: impl FnMut(RawRecord)) -> Result<Meta> {
    let mut meta = Meta::default();
    let mut off = base;
    let mut rec = vec![0u8; layout.record_size.max(7)];
    loop {
        let n = fill(r, &mut rec[..2])?;
        if n < 2 {
            meta.truncated = n > 0;
            return Ok(meta);
        }
        if rec[0] != 0 || rec[1] != 0 {
            let size = layout.record_size;
            if fill(r, &mut rec[2..size])? < size - 2 {
                meta.truncated = true;
                return Ok(meta);
            }
            on_record(layout.decode(&rec[..size]));
            off += size as u64;
            continue;
        }
        if fill(r, &mut rec[2..3])? < 1 {
            meta.truncated = true;
            return Ok(meta);
        }
        let (head, len_at, len_bytes) = match rec[2] {
            OP_METHOD => (5, 3, 2),
            OP_THREAD => (7, 5, 2),
            OP_SUMMARY => (7, 3, 4),
            other => return Err(Error::binary(off + 2, format!("unknown streaming packet op {other}"))),
        };
        if fill(r, &mut rec[3..head])? < head - 3 {
            meta.truncated = true;
            return Ok(meta);
        }
        let len = rec[len_at..len_at + len_bytes]
            .iter()
            .rev()
            .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
        let mut text = Vec::new();
        r.by_ref().take(len).read_to_end(&mut text)?;
        if (text.len() as u64) < len {
            meta.truncated = true;
            return Ok(meta);
        }
        let text_at = off + head as u64;
        match rec[2] {
            OP_METHOD => {
                let line = String::from_utf8_lossy(&text);
                let m = parse_method_line(&line)
                    .ok_or_else(|| Error::binary(text_at, format!("bad method line `{}`", line.trim_end())))?;
                meta.methods.push(m);
            }
            OP_THREAD => {
                let tid = u16::from_le_bytes([rec[3], rec[4]]);
                meta.threads
                    .push((u32::from(tid), String::from_utf8_lossy(&text).into_owned()));
            }
            _ => meta.summary = Some(parse_key_text(&text, text_at)?),
        }
        off = text_at + len;
    }
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
pub(crate) fn fill<R: Read>(r: &mut R, buf: &mut [u8]) -> Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(got)
}
