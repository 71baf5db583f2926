//! The compact event blocks of a version-2 thread file (what `tracekit
//! record` writes while it drains the rings).
//!
//! A version-2 thread file is the usual [`crate::HEADER_SIZE`]-byte header
//! (`VERSION` = [`BLOCK_VERSION`]) followed by blocks, each readable on its
//! own:
//!
//! ```text
//! block   = header payload
//! header  = "TKB2" u32:payload_len u32:events u32:flags u64:first_ts u64:last_ts   (32 bytes, LE)
//! payload = event*
//! ```
//!
//! `varint` is unsigned LEB128 and `zigzag` maps signed numbers to
//! unsigned ones; `prev_ts` starts at the block's `first_ts` and
//! `prev_address` (the address of the block's last call event) at 0, so a
//! block decodes without the ones before it. Time stamps are the runtime's
//! raw clock, 60 bits as in version-1 records (`ts << 4 | kind`). Blocks
//! whose flags carry [`FLAG_COMPACT`] (what the recorder writes) code an
//! event as
//!
//! ```text
//! event = varint(dt << 2 | code) body          dt = ts - prev_ts, 0 <= dt < 2^62
//!   code 0 (enter), 1 (exit): body = varint(zigzag(address - prev_address))
//!   code 3 (exit at prev_address, as a call's return with nothing called in
//!           between): no body
//!   code 2 (escape): dt is a sub-kind, then body = varint(zigzag(ts - prev_ts)) and
//!     sub 0 (extended event): varint(len) len bytes (an ExtEvent body)
//!     sub 1 (enter), 2 (exit): as codes 0 and 1 (for a clock that stepped back)
//! ```
//!
//! so the exit of a function that called nothing costs its clock's one or
//! two bytes alone, and a clock delta below 32 ticks takes one byte. Blocks
//! without the flag (written by recorders before it) code every event as
//! `varint(zigzag(dt) << 2 | code) body`, codes 0 and 1 as above, code 2 an
//! extended event (`varint(len)` and its bytes).
//!
//! A block is written with one `write`, after its events were read from the
//! ring; a block cut short by a crash of the recorder (its payload runs past
//! the end of the file) is the end of the data, and every block before it
//! is complete. `first_ts`/`last_ts` let a reader skip the blocks outside a
//! time window without decoding them, and `events` lets it count events
//! from the headers alone.
//!
//! A block of call events only (no extended event) also carries a summary
//! of its call depth in its flags ([`FLAG_DEPTH`], see [`DepthSummary`]):
//!
//! ```text
//! flags = bit 0: FLAG_COMPACT   bit 1: FLAG_DEPTH
//!         bits 2..18: net (i16)  bits 18..32: -lowest (u14)
//! ```
//!
//! so a reader knows the depth at every block boundary from the headers
//! alone, and which block entered each frame open at a window's start: it
//! decodes those few blocks rather than all of them.

/// File format version of thread files made of blocks.
pub const BLOCK_VERSION: u32 = 2;
/// First bytes of every block.
pub const BLOCK_MAGIC: [u8; 4] = *b"TKB2";
/// Bytes of a block header.
pub const BLOCK_HEADER: usize = 32;
/// Events per block at most (a block holds at most this many).
pub const BLOCK_EVENTS: u32 = 8192;

/// Block flag: the events are in the compact coding (see the module doc).
pub const FLAG_COMPACT: u32 = 1;
/// Block flag: the other flag bits hold the block's [`DepthSummary`].
pub const FLAG_DEPTH: u32 = 2;
const NET_SHIFT: u32 = 2;
const LOWEST_SHIFT: u32 = 18;
/// `-lowest` takes the flags' top 14 bits.
const LOWEST_MAX: u32 = (1 << (32 - LOWEST_SHIFT)) - 1;
const _: () = assert!(BLOCK_EVENTS <= LOWEST_MAX && BLOCK_EVENTS <= i16::MAX as u32);

const CODE_ENTER: u64 = 0;
const CODE_EXIT: u64 = 1;
/// An extended event in unflagged blocks, the escape in flagged ones.
const CODE_EXT: u64 = 2;
const CODE_ESCAPE: u64 = 2;
const CODE_SAME_EXIT: u64 = 3;
const ESCAPE_EXT: u64 = 0;
const ESCAPE_ENTER: u64 = 1;
const ESCAPE_EXIT: u64 = 2;
/// Clock deltas at or past this go through the escape.
const DT_LIMIT: u64 = 1 << 62;
// `push_calls` codes an event's kind as its `exit` flag.
const _: () = assert!(CODE_ENTER == false as u64 && CODE_EXIT == true as u64);

/// A block header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockHeader {
    /// Payload bytes after the header.
    pub payload_len: u32,
    /// Events in the block.
    pub events: u32,
    /// [`FLAG_COMPACT`], [`FLAG_DEPTH`] and the depth summary (see
    /// [`BlockHeader::depth`]).
    pub flags: u32,
    /// Raw clock of the first event.
    pub first_ts: u64,
    /// Raw clock of the last event.
    pub last_ts: u64,
}

impl BlockHeader {
    /// Reads a header; `None` when `b` is too short or not a block.
    pub fn read(b: &[u8]) -> Option<BlockHeader> {
        if b.len() < BLOCK_HEADER || b[..4] != BLOCK_MAGIC {
            return None;
        }
        let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let u64_at = |o: usize| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&b[o..o + 8]);
            u64::from_le_bytes(a)
        };
        Some(BlockHeader {
            payload_len: u32_at(4),
            events: u32_at(8),
            flags: u32_at(12),
            first_ts: u64_at(16),
            last_ts: u64_at(24),
        })
    }

    /// The block's call depth summary, when its flags carry one that
    /// holds together with its event count.
    pub fn depth(&self) -> Option<DepthSummary> {
        if self.flags & FLAG_DEPTH == 0 {
            return None;
        }
        let net = i32::from((self.flags >> NET_SHIFT) as u16 as i16);
        let lowest = -((self.flags >> LOWEST_SHIFT) as i32);
        let events = i64::from(self.events);
        let sane = i64::from(net).abs() <= events && -i64::from(lowest) <= events && lowest <= net.min(0);
        sane.then_some(DepthSummary { net, lowest })
    }

    /// The header's bytes.
    fn bytes(&self) -> [u8; BLOCK_HEADER] {
        let mut b = [0u8; BLOCK_HEADER];
        b[..4].copy_from_slice(&BLOCK_MAGIC);
        b[4..8].copy_from_slice(&self.payload_len.to_le_bytes());
        b[8..12].copy_from_slice(&self.events.to_le_bytes());
        b[12..16].copy_from_slice(&self.flags.to_le_bytes());
        b[16..24].copy_from_slice(&self.first_ts.to_le_bytes());
        b[24..32].copy_from_slice(&self.last_ts.to_le_bytes());
        b
    }
}

/// How a block's call events move the call depth (enters +1, exits -1),
/// from the header alone: where the depth ends and its lowest point,
/// both relative to the depth at the block's start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DepthSummary {
    /// Depth at the block's end, minus the depth at its start.
    pub net: i32,
    /// Lowest depth reached within the block (0 or less), counting its start.
    pub lowest: i32,
}

impl DepthSummary {
    /// The flag bits that carry it.
    fn flags(self) -> u32 {
        FLAG_DEPTH | u32::from(self.net as i16 as u16) << NET_SHIFT | ((-self.lowest) as u32) << LOWEST_SHIFT
    }
}

#[inline(always)]
fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

#[inline(always)]
fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Most bytes one call event takes: an escape byte and two LEB128 numbers
/// of 64 bits.
const MAX_CALL_BYTES: usize = 21;

/// Writes `v` as LEB128 at `p`; returns the bytes written (at most 10).
///
/// # Safety
/// `p` must be valid for 10 bytes of writes.
#[inline(always)]
unsafe fn write_varint(p: *mut u8, mut v: u64) -> usize {
    // Call events' numbers are mostly one or two bytes: those first.
    if v < 0x80 {
        *p = v as u8;
        return 1;
    }
    if v < 0x4000 {
        *p = v as u8 | 0x80;
        *p.add(1) = (v >> 7) as u8;
        return 2;
    }
    let mut n = 0;
    while v >= 0x80 {
        *p.add(n) = v as u8 | 0x80;
        v >>= 7;
        n += 1;
    }
    *p.add(n) = v as u8;
    n + 1
}

/// Appends `v` as LEB128, with one capacity check per number rather than
/// one per byte.
#[inline(always)]
fn put_varint(out: &mut Vec<u8>, v: u64) {
    out.reserve(10);
    let len = out.len();
    // SAFETY: `reserve` left room for the at most 10 bytes written, and
    // `write_varint` initialised the ones counted.
    unsafe {
        let n = write_varint(out.as_mut_ptr().add(len), v);
        out.set_len(len + n);
    }
}

/// Writes a call event whose clock delta is out of the plain coding's
/// range (a clock that stepped back) at `p`; returns the bytes written.
///
/// # Safety
/// `p` must be valid for MAX_CALL_BYTES bytes of writes.
#[cold]
#[inline(never)]
unsafe fn write_escaped_call(p: *mut u8, dt: u64, exit: bool, moved: u64) -> usize {
    let sub = if exit { ESCAPE_EXIT } else { ESCAPE_ENTER };
    let mut n = write_varint(p, sub << 2 | CODE_ESCAPE);
    n += write_varint(p.add(n), zigzag(dt as i64));
    n + write_varint(p.add(n), zigzag(moved as i64))
}

/// Builds one block at a time from events in the order written.
#[derive(Debug, Default)]
pub struct BlockEncoder {
    payload: Vec<u8>,
    events: u32,
    first_ts: u64,
    prev_ts: u64,
    prev_addr: u64,
    /// Call depth relative to the block's start, and its lowest point.
    depth: i32,
    lowest: i32,
    /// An extended event was added: the block carries no depth summary.
    has_ext: bool,
}

impl BlockEncoder {
    /// An empty encoder.
    pub fn new() -> BlockEncoder {
        BlockEncoder {
            payload: Vec::with_capacity(64 << 10),
            ..BlockEncoder::default()
        }
    }

    /// Events in the block being built.
    pub fn events(&self) -> u32 {
        self.events
    }

    /// True when the block is full.
    pub fn is_full(&self) -> bool {
        self.events >= BLOCK_EVENTS
    }

    /// Starts a new block's deltas at `ts` when the block is empty.
    #[inline(always)]
    fn start_at(&mut self, ts: u64) {
        if self.events == 0 {
            self.first_ts = ts;
            self.prev_ts = ts;
            self.prev_addr = 0;
            self.depth = 0;
            self.lowest = 0;
            self.has_ext = false;
        }
    }

    /// Adds a function entry (`exit` false) or exit at `addr`.
    pub fn push_call(&mut self, ts: u64, exit: bool, addr: u64) {
        let mut event = Some((ts, exit, addr));
        let added = self.push_calls(|| event.take());
        debug_assert_eq!(added, 1, "a call pushed into a full block");
    }

    /// Adds the call events `next` yields, (raw clock, exit?, address)
    /// each, until it yields `None` or the block is full; returns how many
    /// were added. The same coding as [`push_call`](Self::push_call) one
    /// by one, with the coder's state held in registers for the whole run:
    /// the drainer's hot loop.
    #[inline(always)]
    pub fn push_calls(&mut self, mut next: impl FnMut() -> Option<(u64, bool, u64)>) -> u32 {
        // The block's first event sets its starting clock.
        let mut first = None;
        if self.events == 0 {
            let Some(event) = next() else { return 0 };
            self.start_at(event.0);
            first = Some(event);
        }
        let room = (BLOCK_EVENTS.saturating_sub(self.events)) as usize;
        self.payload.reserve(room * MAX_CALL_BYTES);
        let start = self.payload.len();
        let base = self.payload.as_mut_ptr();
        let (mut len, mut prev_ts, mut prev_addr, mut added) = (start, self.prev_ts, self.prev_addr, 0usize);
        let (mut depth, mut lowest) = (self.depth, self.lowest);
        // One place codes an event, so the compiler inlines it into the
        // loop with the coder's state in registers.
        let mut pending = first;
        while added < room {
            let Some((ts, exit, addr)) = pending.take().or_else(&mut next) else {
                break;
            };
            let dt = ts.wrapping_sub(prev_ts);
            let moved = addr.wrapping_sub(prev_addr);
            // SAFETY: `reserve` left room for `room` events of at most
            // MAX_CALL_BYTES each past `start`.
            unsafe {
                if dt < DT_LIMIT {
                    // No branch on the kind of event: calls and returns
                    // interleave with little pattern. The address is
                    // written always and kept unless it is implied.
                    let same = exit as u64 & (moved == 0) as u64;
                    len += write_varint(base.add(len), dt << 2 | exit as u64 | same << 1);
                    let n = write_varint(base.add(len), zigzag(moved as i64));
                    len += n & (same as usize).wrapping_sub(1);
                } else {
                    len += write_escaped_call(base.add(len), dt, exit, moved);
                }
            }
            prev_ts = ts;
            prev_addr = addr;
            // The depth summary: two register operations, off the coding's path.
            depth += 1 - 2 * exit as i32;
            lowest = lowest.min(depth);
            added += 1;
        }
        // SAFETY: the bytes up to `len` were written above.
        unsafe {
            self.payload.set_len(len);
        }
        self.prev_ts = prev_ts;
        self.prev_addr = prev_addr;
        (self.depth, self.lowest) = (depth, lowest);
        self.events += added as u32;
        added as u32
    }

    /// Adds an extended event with this body.
    pub fn push_ext(&mut self, ts: u64, body: &[u8]) {
        self.start_at(ts);
        let d = ts.wrapping_sub(self.prev_ts) as i64;
        self.prev_ts = ts;
        self.events += 1;
        self.has_ext = true;
        put_varint(&mut self.payload, ESCAPE_EXT << 2 | CODE_ESCAPE);
        put_varint(&mut self.payload, zigzag(d));
        put_varint(&mut self.payload, body.len() as u64);
        self.payload.extend_from_slice(body);
    }

    /// Appends the finished block (header and payload) to `out` and starts
    /// a new one; nothing when the block is empty.
    pub fn finish_into(&mut self, out: &mut Vec<u8>) {
        let _ = self.finish_with(|bytes| {
            out.extend_from_slice(bytes);
            Ok::<(), std::convert::Infallible>(())
        });
    }

    /// Hands the finished block to `write`, header then payload, and
    /// starts a new one; nothing when the block is empty. The block is
    /// started anew even when `write` fails.
    pub fn finish_with<E>(&mut self, mut write: impl FnMut(&[u8]) -> Result<(), E>) -> Result<(), E> {
        if self.events == 0 {
            return Ok(());
        }
        let summary = DepthSummary {
            net: self.depth,
            lowest: self.lowest,
        };
        let depth = if self.has_ext || self.events > BLOCK_EVENTS {
            0
        } else {
            summary.flags()
        };
        let header = BlockHeader {
            payload_len: self.payload.len() as u32,
            events: self.events,
            flags: FLAG_COMPACT | depth,
            first_ts: self.first_ts,
            last_ts: self.prev_ts,
        }
        .bytes();
        let written = write(&header).and_then(|()| write(&self.payload));
        self.payload.clear();
        self.events = 0;
        written
    }
}

/// One decoded event of a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockEvent<'a> {
    /// Function entered at this address.
    Enter(u64),
    /// Function left at this address.
    Exit(u64),
    /// An extended event body.
    Ext(&'a [u8]),
}

/// Iterates over the events of one block's payload.
#[derive(Debug, Clone)]
pub struct BlockDecoder<'a> {
    b: &'a [u8],
    at: usize,
    prev_ts: u64,
    prev_addr: u64,
    /// The block is in the compact coding ([`FLAG_COMPACT`]).
    compact: bool,
}

impl<'a> BlockDecoder<'a> {
    /// A decoder of `payload`, the block's bytes after `header`.
    pub fn new(payload: &'a [u8], header: &BlockHeader) -> BlockDecoder<'a> {
        BlockDecoder {
            b: payload,
            at: 0,
            prev_ts: header.first_ts,
            prev_addr: 0,
            compact: header.flags & FLAG_COMPACT != 0,
        }
    }

    /// Payload offset of the next event.
    pub fn offset(&self) -> usize {
        self.at
    }

    /// The LEB128 number at the decoder's offset. Call events' numbers are
    /// mostly one to three bytes: those are read inline, byte by byte with
    /// one bounds check, the rest by [`varint_long`](Self::varint_long).
    #[inline(always)]
    fn varint(&mut self) -> Result<u64, usize> {
        let (b, at) = (self.b, self.at);
        if let Some(&b0) = b.get(at) {
            if b0 < 0x80 {
                self.at = at + 1;
                return Ok(b0 as u64);
            }
            if let Some(&[b1, b2]) = b.get(at + 1..at + 3) {
                let v = (b0 & 0x7f) as u64 | ((b1 & 0x7f) as u64) << 7;
                if b1 < 0x80 {
                    self.at = at + 2;
                    return Ok(v);
                }
                if b2 < 0x80 {
                    self.at = at + 3;
                    return Ok(v | (b2 as u64) << 14);
                }
            }
        }
        self.varint_long()
    }

    #[cold]
    #[inline(never)]
    fn varint_long(&mut self) -> Result<u64, usize> {
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let Some(&byte) = self.b.get(self.at) else {
                return Err(self.at);
            };
            self.at += 1;
            if shift == 63 && byte > 1 {
                return Err(self.at - 1);
            }
            v |= ((byte & 0x7f) as u64) << shift;
            if byte < 0x80 {
                return Ok(v);
            }
            shift += 7;
        }
    }

    /// The next event and its raw time stamp; `Ok(None)` at the end of the
    /// payload; `Err(offset)` for a malformed payload. Inlined into the
    /// readers' loops: a call per event, returning its result through
    /// memory, cost the skim of a late window a third of its time.
    #[inline(always)]
    pub fn next_event(&mut self) -> Result<Option<(u64, BlockEvent<'a>)>, usize> {
        if self.at >= self.b.len() {
            return Ok(None);
        }
        let start = self.at;
        let token = self.varint()?;
        if !self.compact {
            return self.unflagged(start, token).map(Some);
        }
        let ev = match token & 3 {
            CODE_ESCAPE => return self.escaped(start, token >> 2).map(Some),
            CODE_SAME_EXIT => BlockEvent::Exit(self.prev_addr),
            code => self.call(code == CODE_EXIT)?,
        };
        self.prev_ts = self.prev_ts.wrapping_add(token >> 2);
        Ok(Some((self.prev_ts, ev)))
    }

    /// A call event's address, from its delta.
    #[inline(always)]
    fn call(&mut self, exit: bool) -> Result<BlockEvent<'a>, usize> {
        let addr = self.prev_addr.wrapping_add(unzigzag(self.varint()?) as u64);
        self.prev_addr = addr;
        Ok(if exit {
            BlockEvent::Exit(addr)
        } else {
            BlockEvent::Enter(addr)
        })
    }

    /// An extended event's body.
    fn ext(&mut self) -> Result<BlockEvent<'a>, usize> {
        let len = self.varint()? as usize;
        if len > self.b.len() - self.at {
            return Err(self.at);
        }
        let body = &self.b[self.at..self.at + len];
        self.at += len;
        Ok(BlockEvent::Ext(body))
    }

    /// The event after an escape of this sub-kind.
    #[cold]
    #[inline(never)]
    fn escaped(&mut self, start: usize, sub: u64) -> Result<(u64, BlockEvent<'a>), usize> {
        let ts = self.prev_ts.wrapping_add(unzigzag(self.varint()?) as u64);
        let ev = match sub {
            ESCAPE_EXT => self.ext()?,
            ESCAPE_ENTER => self.call(false)?,
            ESCAPE_EXIT => self.call(true)?,
            _ => return Err(start),
        };
        self.prev_ts = ts;
        Ok((ts, ev))
    }

    /// An event of a block without [`FLAG_COMPACT`].
    #[inline(never)]
    fn unflagged(&mut self, start: usize, token: u64) -> Result<(u64, BlockEvent<'a>), usize> {
        let ts = self.prev_ts.wrapping_add(unzigzag(token >> 2) as u64);
        let ev = match token & 3 {
            CODE_ENTER | CODE_EXIT => self.call(token & 3 == CODE_EXIT)?,
            CODE_EXT => self.ext()?,
            _ => return Err(start),
        };
        self.prev_ts = ts;
        Ok((ts, ev))
    }
}

#[cfg(test)]
mod tests;
