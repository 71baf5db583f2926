//! ART's newer method-trace format, versions 4 (one clock) and 5 (dual),
//! `0xF4`/`0xF5` when streamed; laid out as ART's `trace.cc` writes it.
//!
//! After the 32-byte header (magic, version, u64 monotonic start in ns at
//! offset 6) come packets, typed by their first byte:
//! - 0 thread: u32 tid, u16 length, name;
//! - 1 method: u64 id (the `ArtMethod` pointer), u16 length,
//!   `class\tname\tsignature\tsource file\n`;
//! - 2 entries of one thread: u32 tid, u24 record count, u32 byte size, then
//!   per record SLEB128 of `(method id | action)` minus the previous one,
//!   ULEB128 wall-clock ns minus the previous one (when the wall clock is
//!   on), ULEB128 thread-CPU ns minus the previous one (when the CPU clock is
//!   on); each block starts from zero;
//! - 3 summary: u16 length, the key section (`clock=`, `elapsed-time-nsec=`).
//!
//! Which single clock a version-4 file has is said only by the summary at
//! the end, so a first pass collects threads, methods and the summary and a
//! second decodes the blocks (inputs that cannot be re-read keep the blocks).

use crate::build::Builder;
use crate::error::{Error, Result};
use crate::header::BinaryHeader;
use crate::keys::{parse_key_text, KeySection};
use crate::read::Input;
use crate::repair;
use crate::stream::fill;
use std::collections::HashMap;
use std::io::{BufRead, Read};
use tracekit_model::{CallKind, Clocks, Method, MethodId, Session, ThreadId};

const THREAD: u8 = 0;
const METHOD: u8 = 1;
const ENTRIES: u8 = 2;
const SUMMARY: u8 = 3;

/// What the non-entry packets said, and each thread's record count.
#[derive(Default)]
struct Meta {
    threads: Vec<(u32, String)>,
    methods: Vec<(u64, Method)>,
    summary: Option<KeySection>,
    records: HashMap<u32, u64>,
    truncated: bool,
}

/// One entry block: its thread, record count, bytes and their offset.
struct Block {
    tid: u32,
    count: u32,
    bytes: Vec<u8>,
    at: u64,
}

/// Reads a version 4/5 trace whose packets start at `pos`.
pub(crate) fn read_packets<I: Input>(input: &mut I, pos: u64, header: BinaryHeader) -> Result<Session> {
    let rewindable = input.rewind_to(pos)?;
    let mut held = Vec::new();
    let meta = scan(input, pos, |b| {
        if !rewindable {
            held.push(b);
        }
        Ok(())
    })?;
    let keys = meta.summary.clone().unwrap_or_default();
    let clocks = if header.version == 5 {
        Clocks::DUAL
    } else {
        match keys.property("clock").map(str::trim) {
            Some("wall") => Clocks::WALL,
            _ => Clocks::THREAD_CPU,
        }
    };
    let mut b = Builder::new(&keys, clocks, 0);
    let mut threads: HashMap<u32, ThreadId> = HashMap::new();
    for (tid, name) in &meta.threads {
        let id = *threads.entry(*tid).or_insert_with(|| b.add_thread(*tid, name.clone()));
        b.reserve_thread(id, meta.records.get(tid).copied().unwrap_or(0) as usize);
    }
    let mut methods: HashMap<u64, MethodId> = HashMap::new();
    for (ptr, m) in meta.methods {
        methods.entry(ptr).or_insert_with(|| b.push_method(m));
    }
    let mut unknown = (0u64, 0u64);
    let mut decode = |blk: Block, b: &mut Builder| -> Result<()> {
        let tid = *threads.entry(blk.tid).or_insert_with(|| {
            unknown.0 += 1;
            let id = b.add_thread(blk.tid, format!("[{}]", blk.tid));
            b.reserve_thread(id, meta.records.get(&blk.tid).copied().unwrap_or(0) as usize);
            id
        });
        decode_block(&blk, clocks, |word, wall_ns, cpu_ns| {
            let Some(kind) = CallKind::from_bits(word as u32) else {
                return;
            };
            let ptr = word & !3;
            let method = *methods.entry(ptr).or_insert_with(|| {
                unknown.1 += 1;
                let mut m = Method::new("", format!("({ptr:#x})"), "");
                m.address = Some(ptr);
                b.push_method(m)
            });
            b.record_exact(tid, kind, method, wall_ns, cpu_ns);
        })
    };
    if rewindable {
        input.rewind_to(pos)?;
        scan(input, pos, |blk| decode(blk, &mut b))?;
    } else {
        for blk in held {
            decode(blk, &mut b)?;
        }
    }
    b.note(
        repair::UNKNOWN_THREAD,
        unknown.0,
        "records named thread ids missing from the thread packets; threads named [<tid>] were created",
    );
    b.note(
        repair::UNKNOWN_METHOD,
        unknown.1,
        "records named method ids missing from the method packets; placeholders named (0x<id>) were created",
    );
    if meta.truncated {
        b.note(
            repair::TRUNCATED_RECORD,
            1,
            "the file ends inside a packet; the partial packet was dropped",
        );
    }
    if meta.summary.is_none() {
        b.note(
            repair::MISSING_SUMMARY,
            1,
            "the trace has no summary packet (tracing did not stop cleanly); defaults were used for its keys",
        );
    }
    let mut s = b.finish();
    s.anchor_unix_ns = None;
    s.duration_ns = keys.property("elapsed-time-nsec").and_then(|v| v.trim().parse().ok());
    s.properties
        .push(("start-monotonic-nsec".into(), header.start_monotonic_ns.to_string()));
    Ok(s)
}

/// Reads the packets to the end, collecting metadata and handing each entry
/// block to `on_block`.
fn scan<R: BufRead>(r: &mut R, base: u64, mut on_block: impl FnMut(Block) -> Result<()>) -> Result<Meta> {
    let mut meta = Meta::default();
    let mut off = base;
    let mut head = [0u8; 12];
    loop {
        let n = fill(r, &mut head[..1])?;
        if n == 0 {
            return Ok(meta);
        }
        let fixed = match head[0] {
            THREAD => 7,
            METHOD => 11,
            ENTRIES => 12,
            SUMMARY => 3,
            other => return Err(Error::binary(off, format!("unknown packet type {other}"))),
        };
        if fill(r, &mut head[1..fixed])? < fixed - 1 {
            meta.truncated = true;
            return Ok(meta);
        }
        let le = |from: usize, len: usize| {
            head[from..from + len]
                .iter()
                .rev()
                .fold(0u64, |a, &b| (a << 8) | u64::from(b))
        };
        let len = match head[0] {
            THREAD => le(5, 2),
            METHOD => le(9, 2),
            ENTRIES => le(8, 4),
            _ => le(1, 2),
        };
        let mut body = Vec::new();
        r.by_ref().take(len).read_to_end(&mut body)?;
        if (body.len() as u64) < len {
            meta.truncated = true;
            return Ok(meta);
        }
        let body_at = off + fixed as u64;
        match head[0] {
            THREAD => meta
                .threads
                .push((le(1, 4) as u32, String::from_utf8_lossy(&body).into_owned())),
            METHOD => {
                let text = String::from_utf8_lossy(&body);
                let mut f = text.trim_end_matches(['\n', '\r']).split('\t');
                let mut m = Method::new(f.next().unwrap_or(""), f.next().unwrap_or(""), f.next().unwrap_or(""));
                m.source_file = f.next().filter(|s| !s.is_empty()).map(str::to_owned);
                m.line = f.next().and_then(|l| l.trim().parse().ok());
                m.address = Some(le(1, 8));
                meta.methods.push((le(1, 8), m));
            }
            ENTRIES => {
                let tid = le(1, 4) as u32;
                let count = le(5, 3) as u32;
                // Reserve only what the bytes can hold (a record takes two bytes at least).
                *meta.records.entry(tid).or_default() += u64::from(count).min(body.len() as u64 / 2);
                on_block(Block {
                    tid,
                    count,
                    bytes: body,
                    at: body_at,
                })?;
            }
            _ => {
                meta.summary = Some(parse_key_text(&body, body_at).map_err(|e| match e {
                    Error::Text { offset, message, .. } => Error::binary(offset, message),
                    other => other,
                })?)
            }
        }
        off = body_at + len;
    }
}

/// Decodes one entry block, calling `f(method | action, wall ns, cpu ns)`.
fn decode_block(blk: &Block, clocks: Clocks, mut f: impl FnMut(u64, u64, u64)) -> Result<()> {
    let mut at = 0usize;
    let (mut method, mut wall, mut cpu) = (0u64, 0u64, 0u64);
    let err = |at: usize| Error::binary(blk.at + at as u64, "entry block ends inside a record");
    for _ in 0..blk.count {
        let diff = sleb(&blk.bytes, &mut at).ok_or_else(|| err(at))?;
        method = method.wrapping_add(diff as u64);
        if clocks.wall {
            wall = wall.wrapping_add(uleb(&blk.bytes, &mut at).ok_or_else(|| err(at))?);
        }
        if clocks.thread_cpu {
            cpu = cpu.wrapping_add(uleb(&blk.bytes, &mut at).ok_or_else(|| err(at))?);
        }
        f(method, wall, cpu);
    }
    Ok(())
}

/// Unsigned LEB128 at `*at` (at most 10 bytes), advancing `at`.
fn uleb(b: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..70).step_by(7) {
        let byte = *b.get(*at)?;
        *at += 1;
        v |= u64::from(byte & 0x7f).checked_shl(shift).unwrap_or(0);
        if byte & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// Signed LEB128 at `*at` (at most 10 bytes), advancing `at`.
fn sleb(b: &[u8], at: &mut usize) -> Option<i64> {
    let mut v = 0i64;
    let mut shift = 0u32;
    loop {
        let byte = *b.get(*at)?;
        *at += 1;
        if shift < 64 {
            v |= i64::from(byte & 0x7f) << shift;
        }
        shift += 7;
        if byte & 0x80 == 0 {
            if shift < 64 && byte & 0x40 != 0 {
                v |= -1i64 << shift;
            }
            return Some(v);
        }
        if shift >= 70 {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leb128() {
        let mut at = 0;
        assert_eq!(uleb(&[0xE5, 0x8E, 0x26], &mut at), Some(624_485));
        assert_eq!(at, 3);
        let mut at = 0;
        assert_eq!(sleb(&[0xC0, 0xBB, 0x78], &mut at), Some(-123_456));
        let mut at = 0;
        assert_eq!(sleb(&[0x3f], &mut at), Some(63));
        let mut at = 0;
        assert_eq!(sleb(&[0x40], &mut at), Some(-64));
        let mut at = 0;
        assert_eq!(uleb(&[0x80, 0x80], &mut at), None);
        let mut at = 0;
        assert_eq!(sleb(&[0xff; 12], &mut at), None);
    }
}
