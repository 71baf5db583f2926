//! Writing traces: record by record ([`TraceWriter`]) or a whole
//! [`Session`] ([`write`]).

use crate::error::{Error, Result};
use crate::header::{BinaryHeader, HEADER_LEN};
use crate::keys::{sanitize, write_method_line, MethodLine};
use crate::repair;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::Path;
use tracekit_model::{CallKind, Clocks, Session};

/// Digits reserved for the counts a [`TraceWriter`] learns only at the end.
const PAD_DIGITS: usize = 20;

/// Keys the writer produces itself; session properties with these names
/// are not copied.
const OWN_KEYS: [&str; 4] = ["data-file-overflow", "clock", "elapsed-time-usec", "num-method-calls"];

/// What the key section of a written trace says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceInfo {
    /// Format version: 3 (default), or 1/2 for single-clock legacy files.
    pub version: u16,
    /// Clocks of the records (`dual` needs version 3).
    pub clocks: Clocks,
    /// Trace start, µs since the Unix epoch.
    pub start_unix_us: u64,
    /// Whether to mark the trace as overflowed.
    pub data_file_overflow: bool,
    /// Further `key=value` lines (e.g. `vm=art`, `pid=1234`), in order.
    pub properties: Vec<(String, String)>,
    /// Threads: id and name.
    pub threads: Vec<(u16, String)>,
    /// Methods; each id must have its low two bits zero.
    pub methods: Vec<MethodLine>,
}

impl TraceInfo {
    /// A version-3 trace with these clocks, starting at the epoch, with no
    /// threads, methods or extra properties.
    pub fn new(clocks: Clocks) -> TraceInfo {
        TraceInfo {
            version: 3,
            clocks,
            start_unix_us: 0,
            data_file_overflow: false,
            properties: Vec::new(),
            threads: Vec::new(),
            methods: Vec::new(),
        }
    }

    fn record_layout(&self) -> Result<(usize, usize)> {
        if !(1..=3).contains(&self.version) {
            return Err(Error::Unwritable(format!(
                "version {} (only 1, 2 and 3 are written)",
                self.version
            )));
        }
        if !self.clocks.wall && !self.clocks.thread_cpu {
            return Err(Error::Unwritable("a trace needs at least one clock".into()));
        }
        let dual = self.clocks.wall && self.clocks.thread_cpu;
        if dual && self.version < 3 {
            return Err(Error::Unwritable("clock=dual needs version 3".into()));
        }
        let tid_bytes = if self.version == 1 { 1 } else { 2 };
        Ok((tid_bytes, tid_bytes + 4 + if dual { 8 } else { 4 }))
    }
}

/// Writes the key section; `counts` = (elapsed µs, records) or `None` to
/// reserve zero-padded fields. Returns the offsets of the two numbers.
fn write_keys<W: Write>(w: &mut W, info: &TraceInfo, counts: Option<(u64, u64)>) -> Result<(u64, u64)> {
    let mut text = Vec::new();
    let num = |v: Option<u64>| match v {
        Some(v) => v.to_string(),
        None => "0".repeat(PAD_DIGITS),
    };
    write!(
        text,
        "*version\n{}\ndata-file-overflow={}\nclock={}\n",
        info.version,
        info.data_file_overflow,
        info.clocks.name()
    )?;
    text.extend_from_slice(b"elapsed-time-usec=");
    let elapsed_at = text.len() as u64;
    writeln!(text, "{}", num(counts.map(|c| c.0)))?;
    text.extend_from_slice(b"num-method-calls=");
    let count_at = text.len() as u64;
    writeln!(text, "{}", num(counts.map(|c| c.1)))?;
    for (k, v) in &info.properties {
        if !OWN_KEYS.contains(&k.as_str()) {
            writeln!(text, "{}={}", sanitize(k).replace('=', "-"), sanitize(v))?;
        }
    }
    text.extend_from_slice(b"*threads\n");
    for (tid, name) in &info.threads {
        writeln!(text, "{tid}\t{}", sanitize(name))?;
    }
    text.extend_from_slice(b"*methods\n");
    for m in &info.methods {
        if m.id & 3 != 0 {
            return Err(Error::Unwritable(format!(
                "method id {:#x} has its low two bits set",
                m.id
            )));
        }
        let clean = MethodLine {
            class: sanitize(&m.class),
            name: sanitize(&m.name),
            signature: sanitize(&m.signature),
            source_file: m.source_file.as_deref().map(sanitize),
            ..m.clone()
        };
        write_method_line(&mut text, &clean)?;
    }
    text.extend_from_slice(b"*end\n");
    w.write_all(&text)?;
    Ok((elapsed_at, count_at))
}

/// Writes a trace record by record, without holding the records.
///
/// The key section comes first in the file but its record count and
/// elapsed time are known only at the end, so they are written as
/// zero-padded placeholders and filled in by [`TraceWriter::finish`]
/// (hence `W: Seek`).
///
/// ```
/// use tracekit_dmtrace::{MethodLine, TraceInfo, TraceWriter};
/// use tracekit_model::{CallKind, Clocks};
/// let mut info = TraceInfo::new(Clocks::DUAL);
/// info.threads.push((1, "main".into()));
/// info.methods.push(MethodLine { id: 4, class: "a/B".into(), name: "run".into(),
///     signature: "()V".into(), source_file: None, line: None });
/// let mut w = TraceWriter::new(std::io::Cursor::new(Vec::new()), &info).unwrap();
/// w.write_record(1, 4, CallKind::Enter, 0, 10).unwrap();
/// w.write_record(1, 4, CallKind::Exit, 5, 20).unwrap();
/// let bytes = w.finish().unwrap().into_inner();
/// let s = tracekit_dmtrace::read_bytes(&bytes).unwrap();
/// assert_eq!(s.call_event_count(), 2);
/// ```
pub struct TraceWriter<W: Write + Seek> {
    out: BufWriter<W>,
    start: u64,
    elapsed_at: u64,
    count_at: u64,
    enc: RecordEncoder,
    records: u64,
    max_time_us: u64,
}

impl TraceWriter<File> {
    /// Creates (truncates) the file at `path` and writes its key section.
    pub fn create(path: impl AsRef<Path>, info: &TraceInfo) -> Result<TraceWriter<File>> {
        TraceWriter::new(File::create(path)?, info)
    }
}

impl<W: Write + Seek> TraceWriter<W> {
    /// Writes the key section (with placeholders) and the binary header.
    pub fn new(out: W, info: &TraceInfo) -> Result<TraceWriter<W>> {
        let (tid_bytes, record_size) = info.record_layout()?;
        let mut out = BufWriter::with_capacity(1 << 16, out);
        let start = out.stream_position()?;
        let (elapsed_at, count_at) = write_keys(&mut out, info, None)?;
        out.write_all(&header(info, record_size).to_bytes())?;
        Ok(TraceWriter {
            out,
            start,
            elapsed_at,
            count_at,
            enc: RecordEncoder {
                tid_bytes,
                clocks: info.clocks,
            },
            records: 0,
            max_time_us: 0,
        })
    }

    /// Appends one record. `method_id` is the file's id (low two bits
    /// zero); `cpu_us` is the thread's CPU time since its first reading and
    /// `wall_us` the time since the trace start (the clock the file lacks is
    /// ignored). Values are stored as the format's wrapping 32-bit µs.
    pub fn write_record(
        &mut self,
        tid: u16,
        method_id: u32,
        action: CallKind,
        cpu_us: u64,
        wall_us: u64,
    ) -> Result<()> {
        if method_id & 3 != 0 {
            return Err(Error::Unwritable(format!(
                "method id {method_id:#x} has its low two bits set"
            )));
        }
        if self.enc.tid_bytes == 1 && tid > 255 {
            return Err(Error::Unwritable(format!("thread id {tid} does not fit version 1")));
        }
        self.enc
            .write(&mut self.out, tid, method_id | action as u32, cpu_us, wall_us)?;
        self.records += 1;
        self.max_time_us = self
            .max_time_us
            .max(if self.enc.clocks.wall { wall_us } else { cpu_us });
        Ok(())
    }

    /// Records written so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Fills in the record count and elapsed time, flushes, and returns the
    /// underlying writer (positioned at the end).
    pub fn finish(self) -> Result<W> {
        let mut out = self.out.into_inner().map_err(|e| Error::Io(e.into_error()))?;
        let end = out.stream_position()?;
        out.seek(SeekFrom::Start(self.start + self.elapsed_at))?;
        write!(out, "{:0width$}", self.max_time_us, width = PAD_DIGITS)?;
        out.seek(SeekFrom::Start(self.start + self.count_at))?;
        write!(out, "{:0width$}", self.records, width = PAD_DIGITS)?;
        out.seek(SeekFrom::Start(end))?;
        out.flush()?;
        Ok(out)
    }
}

/// Encodes records of one layout.
#[derive(Clone, Copy)]
struct RecordEncoder {
    tid_bytes: usize,
    clocks: Clocks,
}

impl RecordEncoder {
    /// Writes one record; times are stored as the format's wrapping u32 µs
    /// (dual: thread-CPU then wall; single: the one clock).
    #[inline]
    fn write<W: Write>(&self, out: &mut W, tid: u16, word: u32, cpu_us: u64, wall_us: u64) -> std::io::Result<()> {
        let mut rec = [0u8; 14];
        let mut n = self.tid_bytes;
        rec[..n].copy_from_slice(&tid.to_le_bytes()[..n]);
        rec[n..n + 4].copy_from_slice(&word.to_le_bytes());
        n += 4;
        let dual = self.clocks.wall && self.clocks.thread_cpu;
        let first = if self.clocks.wall && !dual { wall_us } else { cpu_us };
        rec[n..n + 4].copy_from_slice(&(first as u32).to_le_bytes());
        n += 4;
        if dual {
            rec[n..n + 4].copy_from_slice(&(wall_us as u32).to_le_bytes());
            n += 4;
        }
        out.write_all(&rec[..n])
    }
}

fn header(info: &TraceInfo, record_size: usize) -> BinaryHeader {
    BinaryHeader {
        version: info.version,
        streaming: false,
        data_offset: HEADER_LEN,
        start_unix_us: info.start_unix_us,
        record_size: if info.version >= 3 { record_size as u16 } else { 0 },
        start_monotonic_ns: 0,
    }
}

/// Writes `session` as a version-3 trace to the file at `path`.
pub fn write_path(session: &Session, path: impl AsRef<Path>) -> Result<()> {
    let mut f = BufWriter::new(File::create(path)?);
    write(session, &mut f)?;
    f.flush()?;
    Ok(())
}

/// Writes `session` as a version-3 trace with the session's clocks.
///
/// Method ids in the file are the methods' `address` when every method has
/// a distinct one that fits (low two bits zero), otherwise `(index+1) << 2`.
/// Thread ids must fit 16 bits. Times are truncated to µs; records of all
/// threads are merged in timeline order.
pub fn write<W: Write>(session: &Session, out: W) -> Result<()> {
    let mut info = TraceInfo::new(session.clocks);
    info.start_unix_us = session.anchor_unix_ns.map_or(0, |ns| (ns.max(0) / 1000) as u64);
    info.data_file_overflow = session.repairs.iter().any(|r| r.code == repair::DATA_FILE_OVERFLOW);
    info.properties = session.properties.clone();
    if let Some(p) = session.processes.first() {
        if !info.properties.iter().any(|(k, _)| k == "pid") {
            info.properties.push(("pid".into(), p.pid.to_string()));
        }
    }
    for t in &session.threads {
        let tid =
            u16::try_from(t.tid).map_err(|_| Error::Unwritable(format!("thread id {} does not fit 16 bits", t.tid)))?;
        let name = if t.name.is_empty() { t.label() } else { t.name.clone() };
        info.threads.push((tid, name));
    }
    let ids = file_method_ids(session);
    for (_, t, calls) in session.thread_calls() {
        if let Some(&w) = calls.columns().0.iter().max_by_key(|&&w| w >> 2) {
            if (w >> 2) as usize >= ids.len() {
                return Err(Error::Unwritable(format!(
                    "thread {} calls method {} but the session has {} methods",
                    t.tid,
                    w >> 2,
                    ids.len()
                )));
            }
        }
    }
    for ((_, m), &id) in session.methods.iter().zip(&ids) {
        info.methods.push(MethodLine {
            id,
            class: m.class.clone(),
            name: m.name.clone(),
            signature: m.signature.clone(),
            source_file: m.source_file.clone(),
            line: m.line,
        });
    }
    let (_, record_size) = info.record_layout()?;
    let records = session.call_event_count() as u64;
    let elapsed_us = session
        .duration_ns
        .map(|d| d / 1000)
        .unwrap_or_else(|| session.time_span().map_or(0, |(_, hi)| hi / 1000));
    let mut out = BufWriter::with_capacity(1 << 16, out);
    write_keys(&mut out, &info, Some((elapsed_us, records)))?;
    out.write_all(&header(&info, record_size).to_bytes())?;
    let enc = RecordEncoder {
        tid_bytes: 2,
        clocks: session.clocks,
    };
    for_each_in_time_order(session, |thread, e| {
        let cpu_us = e.cpu_ns.unwrap_or(e.ts_ns) / 1000;
        enc.write(
            &mut out,
            info.threads[thread].0,
            ids[e.method.0 as usize] | e.kind as u32,
            cpu_us,
            e.ts_ns / 1000,
        )
    })?;
    out.flush()?;
    Ok(())
}

/// The id each method gets in the file.
fn file_method_ids(session: &Session) -> Vec<u32> {
    let addresses: Vec<Option<u32>> = session
        .methods
        .iter()
        .map(|(_, m)| m.address.and_then(|a| u32::try_from(a).ok()).filter(|a| a & 3 == 0))
        .collect();
    let mut seen = std::collections::HashSet::new();
    if addresses.iter().all(|a| a.is_some_and(|a| seen.insert(a))) {
        addresses.into_iter().map(|a| a.unwrap_or(0)).collect()
    } else {
        (0..session.methods.len() as u32).map(|i| (i + 1) << 2).collect()
    }
}

/// Calls `f(thread index, event)` for every call event, merged over
/// threads by timeline time (ties: lower thread first).
fn for_each_in_time_order(
    session: &Session,
    mut f: impl FnMut(usize, tracekit_model::CallEvent) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let threads: Vec<_> = session.thread_calls().map(|(_, _, c)| c).collect();
    let mut heap = BinaryHeap::new();
    for (t, c) in threads.iter().enumerate() {
        if !c.is_empty() {
            heap.push(Reverse((c.times()[0], t, 0usize)));
        }
    }
    while let Some(Reverse((_, t, i))) = heap.pop() {
        f(t, threads[t].get(i))?;
        if i + 1 < threads[t].len() {
            heap.push(Reverse((threads[t].times()[i + 1], t, i + 1)));
        }
    }
    Ok(())
}
