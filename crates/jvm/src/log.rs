//! The binary trace log the probe runtime (`tracekit.rt`) writes, and a
//! streaming reader for it. Another frontend (e.g. smali) that reuses the
//! runtime writes the same file.
//!
//! # Format (version 3)
//!
//! Integers marked *varint* are unsigned LEB128. Bit fields are packed most
//! significant bit first; a section is padded with zero bits to a byte.
//!
//! ```text
//! file    := "tkpaths3" header chunk* [END]
//! header  := scheme mode width inc bound methods fingerprint run  (varints)
//!            scheme: 0 raw, 1 BLPP, 2 PAP, 3 AdapTracer
//!            mode:   0 records, 1 stream (AdapTracer), 2 context stream
//!            fingerprint: of the runtime tables (StoredProgram::fingerprint)
//!            run: a number identifying the run (repeated in its sidecar)
//! chunk   := 0x01 THREAD: index javaId nameLength (varints) name (UTF-8)
//!          | 0x02 BLOCK:  thread count (varints), then by mode:
//!              records: recordBits (varint), the records' bits
//!              stream:  refBits (varint), the heads' bits, words (varint), the words
//!              context: words (varint), the words
//!          | 0x00 END (written when the log is complete)
//! ```
//!
//! A thread's blocks come in its completion order; a thread's THREAD chunk
//! precedes its first block. Words are `width` bits each. In the stream and
//! context modes each block's words are one coder's complete output (the
//! coder restarts per block, the adaptive model carries over), so a block
//! decodes on its own. The writer starts a new block once one holds about
//! 2^19 bits, so a reader holds one block per thread at a time. A log
//! without END was cut short (the JVM was killed): every block before the
//! cut is complete and decodes.
//!
//! **Records** (mode 0 and the heads of mode 1), `M` = number of methods,
//! `hb = ceil(log2(M + 1))`, `nb(m) = ceil(log2 #nodes of m)`:
//! - head: the method id in `hb` bits; or the value `M` (an *aborted*
//!   invocation, ended by an exception), the method id in `hb` bits and the
//!   block the exception left in `nb(m)` bits. An aborted invocation is coded
//!   as its prefix completed to EXIT along the runtime tables' fixed route
//!   (which never returns to that block), so it ends at the last visit of
//!   the block named;
//! - raw: every node after ENTRY up to EXIT, `nb(m)` bits each;
//! - BLPP: the path ids, `width` bits each, as many as the path takes to
//!   reach EXIT (the decoder knows when);
//! - PAP: Elias-gamma of (breakpoints + 1) (`⌊log2 x⌋` zeros, then `x` in
//!   `⌊log2 x⌋ + 1` bits), then per breakpoint the value (`width` bits) and
//!   its node (`nb(m)` bits), then the final value (`width` bits);
//! - AdapTracer: Elias-gamma of (words + 1), then the invocation's words.
//!   In stream mode the record is the head alone; its choices are in the
//!   block's words.
//!
//! The size accounting of the reports counts exactly these bits: the
//! records' bits plus `width` per word. The file adds the fixed header,
//! THREAD chunks, a few bytes per block and the byte padding of sections.
//!
//! # Verification sidecar (`LOG.verify`, optional)
//! `"tkpverf2" run chunk* [END]` (`run` as in the log's header), with BLOCK chunks `0x02 thread count bytes`
//! (varints) followed by `count` records `n node₁ … nodeₙ` (varints): the
//! blocks each invocation reached, recorded by separate probes at block
//! starts, one sidecar block per log block in the same order.

use std::io::Read;

use anyhow::{bail, Context, Result};

use crate::tables::Scheme;

/// First bytes of a log.
pub const MAGIC: &[u8; 8] = b"tkpaths3";
/// First bytes of a verification sidecar.
pub const SIDECAR_MAGIC: &[u8; 8] = b"tkpverf2";
/// Sections larger than this are refused as corrupt.
const MAX_SECTION: u64 = 1 << 31;

/// How the records of a log are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// One self-delimiting record per invocation.
    Records,
    /// AdapTracer stream mode: heads in records, choices in the block's words.
    Stream,
    /// Context stream: words only.
    Context,
}

/// The fixed header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// Scheme.
    pub scheme: Scheme,
    /// Layout.
    pub mode: Mode,
    /// Word width.
    pub width: u32,
    /// AdapTracer increment.
    pub inc: u32,
    /// AdapTracer bound.
    pub bound: u32,
    /// Number of methods.
    pub methods: usize,
    /// Fingerprint of the runtime tables.
    pub fingerprint: u64,
    /// Identity of the run (its sidecar repeats it).
    pub run: u64,
}

/// One block of one thread.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Block {
    /// Thread index.
    pub thread: usize,
    /// Invocations (records) in the block.
    pub count: usize,
    /// Records (or stream-mode heads), bit packed.
    pub records: Vec<u8>,
    /// Bits used in `records`.
    pub record_bits: u64,
    /// Stream and context modes: the block's words.
    pub words: Vec<u64>,
}

/// A chunk of the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Chunk {
    /// A thread's first appearance.
    Thread {
        /// Index (dense, from 0).
        index: usize,
        /// Java thread id.
        java_id: u64,
        /// Thread name.
        name: String,
    },
    /// A block of records.
    Block(Block),
}

/// Reads a log chunk by chunk from any byte stream.
pub struct LogReader<R: Read> {
    input: R,
    offset: u64,
    header: Header,
    /// True once the END chunk was read.
    pub complete: bool,
    /// True when the input ended inside a chunk (everything before it was read).
    pub truncated: bool,
}

fn byte<R: Read>(r: &mut R, offset: &mut u64) -> Result<Option<u8>> {
    let mut b = [0u8];
    match r.read(&mut b)? {
        0 => Ok(None),
        _ => {
            *offset += 1;
            Ok(Some(b[0]))
        }
    }
}

/// Reads an unsigned LEB128 integer (`None` at the end of the input).
fn varint<R: Read>(r: &mut R, offset: &mut u64) -> Result<Option<u64>> {
    let at = *offset;
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let Some(b) = byte(r, offset)? else { return Ok(None) };
        v |= u64::from(b & 0x7F) << shift;
        if b & 0x80 == 0 {
            return Ok(Some(v));
        }
    }
    bail!("byte {at}: integer longer than 64 bits")
}

/// Reads exactly `n` bytes (`None` when the input ends first).
fn bytes<R: Read>(r: &mut R, offset: &mut u64, n: u64) -> Result<Option<Vec<u8>>> {
    if n > MAX_SECTION {
        bail!("byte {offset}: a section of {n} bytes is beyond any log");
    }
    let mut out = Vec::new();
    r.take(n).read_to_end(&mut out)?;
    *offset += out.len() as u64;
    Ok((out.len() as u64 == n).then_some(out))
}

impl<R: Read> LogReader<R> {
    /// Reads the header.
    pub fn new(mut input: R) -> Result<Self> {
        let mut offset = 0;
        let magic = bytes(&mut input, &mut offset, 8)?;
        if magic.as_deref() != Some(&MAGIC[..]) {
            bail!("byte 0: not a tracekit path log (version 3; logs of older jars cannot be read)");
        }
        let mut fields = [0u64; 8];
        for f in &mut fields {
            *f = varint(&mut input, &mut offset)?.with_context(|| format!("byte {offset}: the header is cut short"))?;
        }
        let scheme = match fields[0] {
            0 => Scheme::Raw,
            1 => Scheme::Blpp,
            2 => Scheme::Pap,
            3 => Scheme::Adaptracer,
            s => bail!("byte 8: unknown scheme {s}"),
        };
        let mode = match fields[1] {
            0 => Mode::Records,
            1 => Mode::Stream,
            2 => Mode::Context,
            m => bail!("byte 9: unknown mode {m}"),
        };
        if !(3..=64).contains(&fields[2]) {
            bail!("byte 10: word width {} is not between 3 and 64", fields[2]);
        }
        let header = Header {
            scheme,
            mode,
            width: fields[2] as u32,
            inc: fields[3] as u32,
            bound: fields[4] as u32,
            methods: usize::try_from(fields[5]).unwrap_or(usize::MAX),
            fingerprint: fields[6],
            run: fields[7],
        };
        Ok(LogReader {
            input,
            offset,
            header,
            complete: false,
            truncated: false,
        })
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Bytes read so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The next chunk; `None` at the END chunk or where the input ends.
    pub fn next_chunk(&mut self) -> Result<Option<Chunk>> {
        if self.complete || self.truncated {
            return Ok(None);
        }
        let at = self.offset;
        let Some(kind) = byte(&mut self.input, &mut self.offset)? else {
            self.truncated = true;
            return Ok(None);
        };
        let chunk = match kind {
            0 => {
                self.complete = true;
                return Ok(None);
            }
            1 => self.thread()?,
            2 => self.block()?,
            k => bail!("byte {at}: unknown chunk kind {k}"),
        };
        if chunk.is_none() {
            self.truncated = true;
        }
        Ok(chunk)
    }

    fn num(&mut self) -> Result<Option<u64>> {
        varint(&mut self.input, &mut self.offset)
    }

    fn thread(&mut self) -> Result<Option<Chunk>> {
        let (Some(index), Some(java_id), Some(len)) = (self.num()?, self.num()?, self.num()?) else {
            return Ok(None);
        };
        let Some(name) = bytes(&mut self.input, &mut self.offset, len)? else {
            return Ok(None);
        };
        Ok(Some(Chunk::Thread {
            index: index as usize,
            java_id,
            name: String::from_utf8_lossy(&name).into_owned(),
        }))
    }

    fn block(&mut self) -> Result<Option<Chunk>> {
        let (Some(thread), Some(count)) = (self.num()?, self.num()?) else {
            return Ok(None);
        };
        let mut b = Block {
            thread: thread as usize,
            count: count as usize,
            ..Block::default()
        };
        if self.header.mode != Mode::Context {
            let Some(bits) = self.num()? else { return Ok(None) };
            let Some(rec) = bytes(&mut self.input, &mut self.offset, bits.div_ceil(8))? else {
                return Ok(None);
            };
            b.records = rec;
            b.record_bits = bits;
        }
        if self.header.mode != Mode::Records {
            let width = u64::from(self.header.width);
            let Some(n) = self.num()? else { return Ok(None) };
            let at = self.offset;
            let Some(raw) = bytes(&mut self.input, &mut self.offset, n.saturating_mul(width).div_ceil(8))? else {
                return Ok(None);
            };
            let mut r = BitReader::new(&raw, raw.len() as u64 * 8);
            b.words = (0..n)
                .map(|_| {
                    r.get(self.header.width)
                        .with_context(|| format!("byte {at}: words cut short"))
                })
                .collect::<Result<_>>()?;
        }
        Ok(Some(Chunk::Block(b)))
    }
}

/// Bits read most significant first from bytes.
pub struct BitReader<'a> {
    data: &'a [u8],
    bits: u64,
    pos: u64,
}

impl<'a> BitReader<'a> {
    /// Reads the first `bits` bits of `data`.
    pub fn new(data: &'a [u8], bits: u64) -> Self {
        BitReader {
            data,
            bits: bits.min(data.len() as u64 * 8),
            pos: 0,
        }
    }

    /// Bits read so far.
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// Bits left.
    pub fn remaining(&self) -> u64 {
        self.bits - self.pos
    }

    /// The next `n` bits (0..=64) as a number, or `None` past the end.
    pub fn get(&mut self, n: u32) -> Option<u64> {
        if u64::from(n) > self.remaining() {
            return None;
        }
        let mut v = 0u64;
        let mut left = n;
        while left > 0 {
            let byte = self.data[(self.pos / 8) as usize];
            let used = (self.pos % 8) as u32;
            let take = left.min(8 - used);
            let part = (u64::from(byte) >> (8 - used - take)) & ((1u64 << take) - 1);
            v = if take == 64 { part } else { (v << take) | part };
            left -= take;
            self.pos += u64::from(take);
        }
        Some(v)
    }

    /// An Elias-gamma code (`None` past the end or when longer than 63 bits).
    pub fn gamma(&mut self) -> Option<u64> {
        let mut zeros = 0;
        while self.get(1)? == 0 {
            zeros += 1;
            if zeros > 63 {
                return None;
            }
        }
        let rest = self.get(zeros)?;
        Some((1u64 << zeros) | rest)
    }
}

/// Reads a verification sidecar block by block, in step with the log.
pub struct SidecarReader<R: Read> {
    input: R,
    offset: u64,
    /// The run it belongs to ([`Header::run`]).
    pub run: u64,
}

impl<R: Read> SidecarReader<R> {
    /// Checks the magic.
    pub fn new(mut input: R) -> Result<Self> {
        let mut offset = 0;
        if bytes(&mut input, &mut offset, 8)?.as_deref() != Some(&SIDECAR_MAGIC[..]) {
            bail!("byte 0: not a tracekit verification sidecar");
        }
        let run = varint(&mut input, &mut offset)?.context("byte 8: the sidecar header is cut short")?;
        Ok(SidecarReader { input, offset, run })
    }

    /// The next block: thread, and per invocation the nodes it reached.
    pub fn next_block(&mut self) -> Result<Option<(usize, Vec<Vec<u32>>)>> {
        let at = self.offset;
        match byte(&mut self.input, &mut self.offset)? {
            None | Some(0) => return Ok(None),
            Some(2) => {}
            Some(k) => bail!("byte {at}: unknown sidecar chunk {k}"),
        }
        let cut = || format!("byte {at}: sidecar block cut short");
        let thread = varint(&mut self.input, &mut self.offset)?.with_context(cut)?;
        let count = varint(&mut self.input, &mut self.offset)?.with_context(cut)?;
        let len = varint(&mut self.input, &mut self.offset)?.with_context(cut)?;
        let data = bytes(&mut self.input, &mut self.offset, len)?.with_context(cut)?;
        let mut r = &data[..];
        let mut off = 0;
        let mut out = Vec::new();
        for _ in 0..count {
            let n = varint(&mut r, &mut off)?.with_context(cut)?;
            let nodes = (0..n)
                .map(|_| varint(&mut r, &mut off)?.map(|v| v as u32).with_context(cut))
                .collect::<Result<Vec<u32>>>()?;
            out.push(nodes);
        }
        Ok(Some((thread as usize, out)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_and_gamma_read_back() {
        // 101 | 00101 (gamma 5) | 0xFF in 8 bits | 1 (gamma 1)
        let data = [0b1010_0101, 0b1111_1111, 0b1000_0000];
        let mut r = BitReader::new(&data, 17);
        assert_eq!(r.get(3), Some(5));
        assert_eq!(r.gamma(), Some(5));
        assert_eq!(r.get(8), Some(255));
        assert_eq!(r.gamma(), Some(1));
        assert_eq!(r.get(1), None);
    }

    #[test]
    fn header_errors_name_the_byte() {
        let e = LogReader::new(&b"garbage!"[..]).err().unwrap().to_string();
        assert!(e.contains("byte 0"), "{e}");
        let mut log = MAGIC.to_vec();
        log.extend([3, 9, 32, 3, 100, 5, 0, 0]);
        let e = LogReader::new(&log[..]).err().unwrap().to_string();
        assert!(e.contains("mode"), "{e}");
    }
}
