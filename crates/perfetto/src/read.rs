//! Reading: the trace's top-level framing (`Trace.packet`, field 1, one
//! length-delimited packet after another), from memory or streamed from a
//! file in chunks, and the rules for what a bad packet costs.
//!
//! - The file ends inside a packet: everything before it is kept, and a
//!   `truncated` repair names the offset.
//! - The last packet is framed whole but cannot be decoded: the same, as
//!   `corrupt-last-packet`.
//! - Anything else malformed (a bad varint or tag between packets, a packet
//!   that does not decode followed by more packets, no packet at all) is an
//!   [`Error::Format`] naming the file and the packet's offset.

use crate::error::Error;
use crate::import::Importer;
use crate::repair;
use crate::wire::{varint, Fields};
use std::fs::File;
use std::io::Read;
use std::path::Path;
use tracekit_model::Session;

/// Largest packet believed: Perfetto's own packets stay far below this, and
/// a corrupt length past it must not make the reader allocate gigabytes.
const MAX_PACKET: u64 = 256 << 20;

/// Bytes read from a file at a time.
const CHUNK: usize = 256 << 10;

/// One step of the top-level walk.
enum Step<'a> {
    /// A packet: offset of its key and of its body, the body's bytes,
    /// whether it is the last.
    Packet {
        offset: u64,
        body_at: u64,
        body: &'a [u8],
        last: bool,
    },
    /// A top-level field other than `packet`, skipped.
    Other { number: u32 },
    /// The input ended cleanly.
    End,
    /// The input ends inside the field at `offset`.
    Truncated { offset: u64 },
    /// The bytes at `offset` are not a field.
    Corrupt { offset: u64, message: &'static str },
}

/// A parsed field key and length.
struct Header {
    number: u32,
    /// Bytes of the key and length (or of the whole field when it has no body).
    header_len: usize,
    /// Bytes of the body after the header.
    body_len: u64,
}

enum HeaderError {
    NeedMore,
    Corrupt(&'static str),
}

/// Parses a top-level field header from the bytes at hand.
fn header(avail: &[u8]) -> Result<Header, HeaderError> {
    let mut pos = 0;
    let key = varint(avail, &mut pos).map_err(|e| {
        if e.message == "varint runs past the end" {
            HeaderError::NeedMore
        } else {
            HeaderError::Corrupt("a packet key varint is longer than ten bytes")
        }
    })?;
    let number = key >> 3;
    if number == 0 || number > u64::from(u32::MAX >> 3) {
        return Err(HeaderError::Corrupt("not a packet: invalid field number"));
    }
    let body_len = match key & 7 {
        2 => varint(avail, &mut pos).map_err(|e| {
            if e.message == "varint runs past the end" {
                HeaderError::NeedMore
            } else {
                HeaderError::Corrupt("a packet length varint is longer than ten bytes")
            }
        })?,
        0 => {
            varint(avail, &mut pos).map_err(|_| HeaderError::NeedMore)?;
            0
        }
        1 => 8,
        5 => 4,
        _ => return Err(HeaderError::Corrupt("not a packet: invalid wire type")),
    };
    if number == 1 && key & 7 != 2 {
        return Err(HeaderError::Corrupt("not a packet: field 1 is not length-delimited"));
    }
    Ok(Header {
        number: number as u32,
        header_len: pos,
        body_len,
    })
}

/// Where packets come from.
trait Source {
    fn next_step(&mut self) -> Result<Step<'_>, Error>;
}

/// An input held in memory.
struct Slice<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl Source for Slice<'_> {
    fn next_step(&mut self) -> Result<Step<'_>, Error> {
        let offset = self.pos as u64;
        let avail = &self.buf[self.pos..];
        if avail.is_empty() {
            return Ok(Step::End);
        }
        let h = match header(avail) {
            Ok(h) => h,
            Err(HeaderError::NeedMore) => return Ok(Step::Truncated { offset }),
            Err(HeaderError::Corrupt(message)) => return Ok(Step::Corrupt { offset, message }),
        };
        if h.body_len > MAX_PACKET {
            return Ok(Step::Corrupt {
                offset,
                message: "a packet longer than 256 MiB: the length is corrupt",
            });
        }
        let rest = (avail.len() - h.header_len) as u64;
        if h.body_len > rest {
            return Ok(Step::Truncated { offset });
        }
        let body_start = self.pos + h.header_len;
        self.pos = body_start + h.body_len as usize;
        if h.number != 1 {
            return Ok(Step::Other { number: h.number });
        }
        Ok(Step::Packet {
            offset,
            body_at: body_start as u64,
            body: &self.buf[body_start..self.pos],
            last: self.pos == self.buf.len(),
        })
    }
}

/// A file read in chunks; a packet's bytes are lent from the chunk buffer.
struct Stream {
    file: File,
    name: String,
    buf: Vec<u8>,
    /// Valid bytes are `buf[start..end]`; `buf[0]` is at file offset `base`.
    start: usize,
    end: usize,
    base: u64,
    /// The file's length when it was opened.
    len: u64,
}

impl Stream {
    /// Makes at least `n` bytes available from `start`, or all that remain.
    #[inline]
    fn fill(&mut self, n: usize) -> Result<(), Error> {
        if self.end - self.start >= n {
            return Ok(());
        }
        self.refill(n)
    }

    #[inline(never)]
    fn refill(&mut self, n: usize) -> Result<(), Error> {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.base += self.start as u64;
            self.end -= self.start;
            self.start = 0;
        }
        if self.buf.len() < n {
            self.buf.resize(n.max(CHUNK), 0);
        }
        while self.end < n {
            let got = self.file.read(&mut self.buf[self.end..]).map_err(|source| Error::Io {
                file: self.name.clone(),
                source,
            })?;
            if got == 0 {
                break;
            }
            self.end += got;
        }
        Ok(())
    }
}

impl Source for Stream {
    fn next_step(&mut self) -> Result<Step<'_>, Error> {
        self.fill(20)?;
        let offset = self.base + self.start as u64;
        if self.start == self.end {
            return Ok(Step::End);
        }
        let h = match header(&self.buf[self.start..self.end]) {
            Ok(h) => h,
            Err(HeaderError::NeedMore) => return Ok(Step::Truncated { offset }),
            Err(HeaderError::Corrupt(message)) => return Ok(Step::Corrupt { offset, message }),
        };
        if h.body_len > MAX_PACKET {
            return Ok(Step::Corrupt {
                offset,
                message: "a packet longer than 256 MiB: the length is corrupt",
            });
        }
        let total = h.header_len as u64 + h.body_len;
        if offset + total > self.len {
            return Ok(Step::Truncated { offset });
        }
        self.fill(total as usize)?;
        if ((self.end - self.start) as u64) < total {
            return Ok(Step::Truncated { offset });
        }
        let body_start = self.start + h.header_len;
        self.start += total as usize;
        if h.number != 1 {
            return Ok(Step::Other { number: h.number });
        }
        Ok(Step::Packet {
            offset,
            body_at: offset + h.header_len as u64,
            body: &self.buf[body_start..self.start],
            last: offset + total == self.len,
        })
    }
}

/// Reads a Perfetto trace file. Refuses paths that are not regular files
/// (FIFOs, devices such as `/dev/zero`, directories), which could block or
/// never end. The session is named after the file's stem.
pub fn read_path(path: &Path) -> Result<Session, Error> {
    let name = path.display().to_string();
    let io = |source| Error::Io {
        file: name.clone(),
        source,
    };
    // Checked before opening: opening a FIFO blocks until a writer comes.
    let meta = std::fs::metadata(path).map_err(io)?;
    if let Some(kind) = not_regular(&meta) {
        return Err(Error::NotRegular { file: name, kind });
    }
    let file = File::open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if let Some(kind) = not_regular(&meta) {
        return Err(Error::NotRegular { file: name, kind });
    }
    let mut src = Stream {
        file,
        name: name.clone(),
        buf: Vec::new(),
        start: 0,
        end: 0,
        base: 0,
        len: meta.len(),
    };
    run(&mut src, &name, &stem(&name))
}

/// Reads a Perfetto trace held in memory; `name` names it in errors (and,
/// by its stem, the session).
pub fn read_bytes(bytes: &[u8], name: &str) -> Result<Session, Error> {
    run(&mut Slice { buf: bytes, pos: 0 }, name, &stem(name))
}

fn stem(name: &str) -> String {
    Path::new(name)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| name.to_owned())
}

fn not_regular(meta: &std::fs::Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO");
        }
        if t.is_char_device() {
            return Some("a character device");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    Some("not a file")
}

fn run(src: &mut dyn Source, file: &str, session_name: &str) -> Result<Session, Error> {
    let mut imp = Importer::new(session_name);
    let mut packets = 0u64;
    let mut cut: Option<(&'static str, String)> = None;
    let format = |offset: u64, message: String| Error::Format {
        file: file.to_owned(),
        offset,
        message,
    };
    loop {
        match src.next_step()? {
            Step::End => break,
            Step::Other { number } => imp.tally.skip(&format!("trace field {number}")),
            Step::Corrupt { offset, message } => return Err(format(offset, message.to_owned())),
            Step::Truncated { offset } => {
                if packets == 0 {
                    return Err(format(offset, "the file ends inside the first packet".into()));
                }
                let detail = format!(
                    "the file ends inside the packet at byte {offset}; the {packets} packets before it were read"
                );
                cut = Some((repair::TRUNCATED, detail));
                break;
            }
            Step::Packet {
                offset,
                body_at,
                body,
                last,
            } => match imp.packet(body) {
                Ok(()) => packets += 1,
                Err(e) if last && packets > 0 => {
                    let detail = format!(
                        "the last packet (byte {offset}) does not decode ({}); the {packets} packets before it were read",
                        e.message
                    );
                    cut = Some((repair::CORRUPT_LAST_PACKET, detail));
                    break;
                }
                Err(e) => {
                    let at = body_at + e.offset as u64;
                    return Err(format(
                        offset,
                        format!("the packet does not decode: {} (at byte {at})", e.message),
                    ));
                }
            },
        }
    }
    if packets == 0 {
        return Err(format(0, "no trace packets: not a Perfetto trace".into()));
    }
    let mut s = imp.finish();
    if let Some((code, detail)) = cut {
        s.note_repair(code, 1, detail);
    }
    Ok(s)
}

/// True when `head` (the first bytes of a file, up to 64 KiB) looks like a
/// Perfetto trace: it starts with a `packet` field whose body, as far as
/// `head` holds it, is made of well-formed fields of `TracePacket` numbers,
/// and the next top-level field (if `head` holds it) is a packet too.
pub fn sniff(head: &[u8]) -> bool {
    let mut pos = 0;
    let mut packets = 0;
    while pos < head.len() && packets < 4 {
        if head[pos] != 0x0A {
            return false;
        }
        pos += 1;
        let Ok(len) = varint(head, &mut pos) else {
            return packets > 0;
        };
        if len == 0 || len > (256 << 20) {
            return false;
        }
        let end = pos.saturating_add(len as usize);
        let complete = end <= head.len();
        let body = &head[pos..end.min(head.len())];
        let mut fields = Fields::new(body);
        let mut seen = 0;
        loop {
            match fields.next_field() {
                Ok(Some(f)) if f.number < 2000 => seen += 1,
                Ok(Some(_)) => return false,
                Ok(None) => break,
                // The head cuts this field: its key was well-formed.
                Err(e) if !complete && e.message == "field runs past the end of its message" => {
                    seen += 1;
                    break;
                }
                Err(e) if !complete && e.message == "varint runs past the end" => break,
                Err(_) => return false,
            }
        }
        if seen == 0 {
            return false;
        }
        packets += 1;
        if !complete {
            break;
        }
        pos = end;
    }
    packets > 0
}
