//! Reading: key section, binary header, then records in chunks.

use crate::build::Builder;
use crate::error::{Error, Result};
use crate::header::{BinaryHeader, Layout, RawRecord};
use crate::keys::{read_key_section, KeySection};
use crate::packets;
use crate::repair;
use crate::stream;
use std::fs::File;
use std::io::{BufRead, BufReader, Cursor, Read, Seek, SeekFrom};
use std::path::Path;
use tracekit_model::{Clocks, Session};

/// Bytes decoded per chunk: big enough to amortise `read`, small enough to
/// stay out of the memory budget.
const CHUNK: usize = 1 << 20;

/// An input that can maybe be read a second time from a given offset.
pub(crate) trait Input: BufRead {
    /// Repositions to `pos`; false when the input cannot go back.
    fn rewind_to(&mut self, pos: u64) -> std::io::Result<bool>;

    /// The input from `pos` on, when it is already in memory.
    fn in_memory(&self, _pos: u64) -> Option<&[u8]> {
        None
    }
}

impl Input for BufReader<File> {
    fn rewind_to(&mut self, pos: u64) -> std::io::Result<bool> {
        self.seek(SeekFrom::Start(pos))?;
        Ok(true)
    }
}

impl Input for Cursor<&[u8]> {
    fn rewind_to(&mut self, pos: u64) -> std::io::Result<bool> {
        self.set_position(pos);
        Ok(true)
    }

    fn in_memory(&self, pos: u64) -> Option<&[u8]> {
        Some(self.get_ref().get(usize::try_from(pos).ok()?..).unwrap_or(&[]))
    }
}

/// A one-pass input.
pub(crate) struct OnePass<R>(pub(crate) BufReader<R>);

impl<R: Read> Read for OnePass<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.read(buf)
    }
}

impl<R: Read> BufRead for OnePass<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.0.fill_buf()
    }
    fn consume(&mut self, amt: usize) {
        self.0.consume(amt)
    }
}

impl<R: Read> Input for OnePass<R> {
    fn rewind_to(&mut self, _pos: u64) -> std::io::Result<bool> {
        Ok(false)
    }
}

/// Reads the trace file at `path`. The session is named after the file stem.
pub fn read_path(path: impl AsRef<Path>) -> Result<Session> {
    let path = path.as_ref();
    let mut input = BufReader::with_capacity(64 * 1024, File::open(path)?);
    let mut s = read_input(&mut input)?;
    s.name = path
        .file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(s)
}

/// Reads a trace held in memory.
pub fn read_bytes(bytes: &[u8]) -> Result<Session> {
    read_input(&mut Cursor::new(bytes))
}

/// Reads a trace from any reader, in one pass (thread columns grow as
/// needed; prefer [`read_path`] for big files).
pub fn read<R: Read>(reader: R) -> Result<Session> {
    read_input(&mut OnePass(BufReader::with_capacity(64 * 1024, reader)))
}

pub(crate) fn read_input<I: Input>(input: &mut I) -> Result<Session> {
    let mut pos = 0u64;
    let starts_binary = input.fill_buf()?.starts_with(b"SLOW");
    let keys = if starts_binary {
        None
    } else {
        Some(read_key_section(input, &mut pos)?)
    };
    let header_at = pos;
    let header = BinaryHeader::read(input, header_at)?;
    pos += u64::from(header.data_offset);
    if header.version >= 4 {
        return packets::read_packets(input, pos, header);
    }
    if header.streaming {
        return stream::read_streaming(input, pos, header, keys);
    }
    let keys = keys.unwrap_or_default();
    let clocks = clocks_of(&keys, &header);
    let layout = Layout::new(&header, if clocks.wall && clocks.thread_cpu { 2 } else { 1 }, header_at)?;
    let mut builder = Builder::new(&keys, clocks, header.start_unix_us);
    let trailing = match (clocks.wall, clocks.thread_cpu) {
        (true, true) => second_pass::<I, true, true>(input, &mut builder, pos, layout)?,
        (true, false) => second_pass::<I, true, false>(input, &mut builder, pos, layout)?,
        _ => second_pass::<I, false, true>(input, &mut builder, pos, layout)?,
    };
    if trailing > 0 {
        builder.note(
            repair::TRUNCATED_RECORD,
            1,
            "the file ends inside a record; the partial record was dropped",
        );
    }
    Ok(builder.finish())
}

/// Reads the records at `pos`: when the input can be read again, a first
/// pass counts each thread's records, then the second fills exactly sized columns;
/// otherwise one pass with growing columns.
fn second_pass<I: Input, const WALL: bool, const CPU: bool>(
    input: &mut I,
    b: &mut Builder,
    pos: u64,
    layout: Layout,
) -> Result<usize> {
    if !input.rewind_to(pos)? {
        return decode_records(input, layout, |r| b.record_as::<WALL, CPU>(r));
    }
    let mut per_tid = vec![0u32; 1 << 16];
    let mut count = |r: RawRecord| {
        let c = &mut per_tid[usize::from(r.tid)];
        *c = c.saturating_add(1);
    };
    if let Some(data) = input.in_memory(pos) {
        decode_slice(data, layout, &mut count);
        b.allocate(per_tid);
        return Ok(decode_slice(data, layout, &mut |r| b.record_as::<WALL, CPU>(r)));
    }
    decode_records(input, layout, count)?;
    b.allocate(per_tid);
    input.rewind_to(pos)?;
    decode_records(input, layout, |r| b.record_as::<WALL, CPU>(r))
}

/// The clocks a file has: `clock=` when given (`global` means wall), else
/// a dual-sized v3 record means dual, else thread-CPU (Traceview's default).
pub(crate) fn clocks_of(keys: &KeySection, header: &BinaryHeader) -> Clocks {
    match keys.property("clock").map(str::trim) {
        Some("dual") => Clocks::DUAL,
        Some("wall") | Some("global") => Clocks::WALL,
        Some("thread-cpu") => Clocks::THREAD_CPU,
        _ if header.version >= 3 && header.record_size >= 14 => Clocks::DUAL,
        _ => Clocks::THREAD_CPU,
    }
}

/// Decodes fixed-size records until the end of input, calling `f` for
/// each. Returns the number of bytes left over (a truncated last record).
pub(crate) fn decode_records<R: Read>(r: &mut R, layout: Layout, mut f: impl FnMut(RawRecord)) -> Result<usize> {
    let size = layout.record_size;
    let mut buf = vec![0u8; (CHUNK / size).max(1) * size];
    let mut filled = 0;
    loop {
        let n = match r.read(&mut buf[filled..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::Io(e)),
        };
        filled += n;
        if filled == buf.len() || n == 0 {
            let whole = filled - decode_slice(&buf[..filled], layout, &mut f);
            buf.copy_within(whole..filled, 0);
            filled -= whole;
            if n == 0 {
                return Ok(filled);
            }
        }
    }
}

/// Decodes the whole records in `bytes`; returns the bytes left over.
#[inline]
pub(crate) fn decode_slice(bytes: &[u8], layout: Layout, f: &mut impl FnMut(RawRecord)) -> usize {
    let size = layout.record_size;
    let whole = bytes.len() / size * size;
    match (layout.tid_bytes, layout.times) {
        (2, 2) => decode_chunk::<2, 2>(&bytes[..whole], size, f),
        (2, 1) => decode_chunk::<2, 1>(&bytes[..whole], size, f),
        (1, 1) => decode_chunk::<1, 1>(&bytes[..whole], size, f),
        _ => bytes[..whole].chunks_exact(size).for_each(|c| f(layout.decode(c))),
    }
    bytes.len() - whole
}

/// Decodes whole records with the field layout fixed at compile time.
#[inline(always)]
fn decode_chunk<const TID: usize, const TIMES: usize>(chunk: &[u8], size: usize, f: &mut impl FnMut(RawRecord)) {
    for c in chunk.chunks_exact(size) {
        let tid = if TID == 1 {
            u16::from(c[0])
        } else {
            u16::from_le_bytes([c[0], c[1]])
        };
        let word = u32::from_le_bytes([c[TID], c[TID + 1], c[TID + 2], c[TID + 3]]);
        let t1 = u32::from_le_bytes([c[TID + 4], c[TID + 5], c[TID + 6], c[TID + 7]]);
        let t2 = if TIMES == 2 {
            u32::from_le_bytes([c[TID + 8], c[TID + 9], c[TID + 10], c[TID + 11]])
        } else {
            0
        };
        f(RawRecord { tid, word, t1, t2 });
    }
}
