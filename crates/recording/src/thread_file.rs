//! Reads one per-thread trace file written by the runtime.

use std::path::Path;
use tracekit_rt_format::block::{BlockDecoder, BlockEvent, BLOCK_HEADER, BLOCK_VERSION};
use tracekit_rt_format::{off, ExtEvent, HEADER_SIZE, KIND_ENTER, KIND_EXIT, KIND_EXT, KIND_PAD, MAGIC, RECORD_SIZE};

/// Header fields of a thread file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadHeader {
    /// Process id.
    pub pid: u32,
    /// Thread id.
    pub tid: u32,
    /// Parent process id.
    pub ppid: u32,
    /// Clock kind (`CLOCK_TSC` or `CLOCK_MONOTONIC_NS`).
    pub clock: u32,
    /// Program image token.
    pub image: u64,
    /// Events dropped because the buffer was full.
    pub lost: u64,
    /// (raw clock, monotonic ns) when the file was created.
    pub created: (u64, u64),
    /// Wall-clock ns since the Unix epoch when the file was created.
    pub created_unix_ns: u64,
    /// Parent thread that forked this process, for the forking thread's copy.
    pub forked_from_tid: u32,
    /// Raw clock just after that fork.
    pub fork_clock: u64,
    /// Thread name.
    pub name: String,
    /// File format version (1: 16-byte records; 2: blocks).
    pub version: u32,
}

/// One raw event of a thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawEvent {
    /// Function entered at this address.
    Enter(u64),
    /// Function left at this address.
    Exit(u64),
    /// An extended event (boxed: they are rare, calls are not).
    Ext(Box<ExtEvent>),
}

/// A decoded thread file: header plus `(raw clock, event)` pairs.
#[derive(Debug, Clone)]
pub struct ThreadTrace {
    /// The header.
    pub header: ThreadHeader,
    /// Events in the order written.
    pub events: Vec<(u64, RawEvent)>,
}

/// Why a thread file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ThreadFileError {
    /// I/O failure.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: String,
        /// The cause (shown in the message, so not chained as a source:
        /// it would be printed twice).
        error: std::io::Error,
    },
    /// Malformed content.
    #[error("{path}: byte offset {offset}: {what}")]
    Bad {
        /// The file.
        path: String,
        /// Byte offset of the problem.
        offset: usize,
        /// What is wrong.
        what: String,
    },
}

fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes(b[o..o + 4].try_into().unwrap_or([0; 4]))
}

fn u64_at(b: &[u8], o: usize) -> u64 {
    u64::from_le_bytes(b[o..o + 8].try_into().unwrap_or([0; 8]))
}

/// Reads a thread file from disk (every event in memory: for small files
/// and tests; [`stream_thread_file`] holds none).
pub fn read_thread_file(path: &Path) -> Result<ThreadTrace, ThreadFileError> {
    let mut events = Vec::new();
    let header = stream_thread_file(path, |ts, e| events.push((ts, e)))?;
    Ok(ThreadTrace { header, events })
}

/// A read-only memory map of a whole file: only the pages touched are read,
/// so the untouched sparse tail of a thread file costs nothing.
struct Mapped {
    ptr: *mut libc::c_void,
    len: usize,
}

impl Mapped {
    fn open(path: &Path) -> std::io::Result<Mapped> {
        use std::os::fd::AsRawFd;
        let f = tracekit_safeio::open_regular(path).map_err(|e| std::io::Error::new(e.kind, e.message))?;
        let len = f.metadata()?.len() as usize;
        if len == 0 {
            return Ok(Mapped {
                ptr: std::ptr::null_mut(),
                len: 0,
            });
        }
        // SAFETY: read-only private mapping of a file we opened.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_PRIVATE,
                f.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Mapped { ptr, len })
    }

    fn bytes(&self) -> &[u8] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: the mapping lives as long as self.
        unsafe { std::slice::from_raw_parts(self.ptr as *const u8, self.len) }
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        if self.len > 0 {
            // SAFETY: unmapping our own mapping.
            unsafe { libc::munmap(self.ptr, self.len) };
        }
    }
}

/// Per-thread counts of a recording, read without decoding events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadStats {
    /// The header.
    pub header: ThreadHeader,
    /// Records written (extended events count once).
    pub events: u64,
    /// Raw clock of the first event, if any.
    pub first_clock: Option<u64>,
    /// Byte offset just past the last record.
    pub data_end: u64,
}

/// Reads a thread file's header and counts its records (for a file of
/// blocks, from the block headers alone).
pub fn thread_stats(path: &Path) -> Result<ThreadStats, ThreadFileError> {
    if let Some(st) = crate::blocks::block_stats(path)? {
        return Ok(st);
    }
    let t = read_thread_file_with(path, false)?;
    Ok(ThreadStats {
        header: t.0.header,
        events: t.1,
        first_clock: t.2,
        data_end: t.3,
    })
}

/// Cuts a version-1 thread file's unused (sparse) tail after its last
/// record (a file of blocks is left as it is).
pub fn trim_thread_file(path: &Path) -> Result<(), ThreadFileError> {
    let st = thread_stats(path)?;
    if st.header.version == BLOCK_VERSION {
        return Ok(());
    }
    let io = |error| ThreadFileError::Io {
        path: path.display().to_string(),
        error,
    };
    let f = std::fs::OpenOptions::new().write(true).open(path).map_err(io)?;
    f.set_len(st.data_end).map_err(io)
}

type Parsed = (ThreadTrace, u64, Option<u64>, u64);

fn read_thread_file_with(path: &Path, keep: bool) -> Result<Parsed, ThreadFileError> {
    let data = Mapped::open(path).map_err(|error| ThreadFileError::Io {
        path: path.display().to_string(),
        error,
    })?;
    parse_thread_bytes(data.bytes(), keep).map_err(|(offset, what)| ThreadFileError::Bad {
        path: path.display().to_string(),
        offset,
        what,
    })
}

/// Decodes a thread file's bytes; errors carry the byte offset.
pub fn parse_thread_file(b: &[u8]) -> Result<ThreadTrace, (usize, String)> {
    parse_thread_bytes(b, true).map(|t| t.0)
}

/// Decodes a thread file; with `keep` false only counts the records.
fn parse_thread_bytes(b: &[u8], keep: bool) -> Result<Parsed, (usize, String)> {
    let (header, hsize) = parse_header(b)?;
    let mut events = Vec::new();
    let (count, first, end) = records_v1(b, hsize, |ts, ev| {
        if keep {
            events.push((ts, ev));
        }
    })?;
    Ok((ThreadTrace { header, events }, count, first, end))
}

/// Reads the header fields; returns them and the header's size.
pub(crate) fn parse_header(b: &[u8]) -> Result<(ThreadHeader, usize), (usize, String)> {
    if b.len() < HEADER_SIZE {
        return Err((b.len(), format!("file shorter than its {HEADER_SIZE}-byte header")));
    }
    if b[0..8] != MAGIC {
        return Err((0, "not a tracekit thread file (bad magic)".into()));
    }
    let hsize = u32_at(b, off::HEADER_SIZE) as usize;
    if hsize < HEADER_SIZE || hsize > b.len().max(HEADER_SIZE) {
        return Err((off::HEADER_SIZE, format!("bad header size {hsize}")));
    }
    let name_raw = &b[off::NAME..off::NAME + 16];
    let name_len = name_raw.iter().position(|&c| c == 0).unwrap_or(16);
    let header = ThreadHeader {
        pid: u32_at(b, off::PID),
        tid: u32_at(b, off::TID),
        ppid: u32_at(b, off::PPID),
        clock: u32_at(b, off::CLOCK),
        image: u64_at(b, off::IMAGE),
        lost: u64_at(b, off::LOST),
        created: (u64_at(b, off::CLOCK_AT_CREATE), u64_at(b, off::MONO_AT_CREATE)),
        created_unix_ns: u64_at(b, off::REAL_AT_CREATE),
        forked_from_tid: u32_at(b, off::FORKED_FROM_TID),
        fork_clock: u64_at(b, off::FORK_CLOCK),
        name: String::from_utf8_lossy(&name_raw[..name_len]).into_owned(),
        version: u32_at(b, off::VERSION),
    };
    Ok((header, hsize))
}

/// Walks the 16-byte records of a version-1 thread file from `p`; returns
/// (records, first clock, byte offset past the last record).
fn records_v1(
    b: &[u8],
    mut p: usize,
    mut f: impl FnMut(u64, RawEvent),
) -> Result<(u64, Option<u64>, u64), (usize, String)> {
    let (mut count, mut first) = (0u64, None);
    while p + RECORD_SIZE <= b.len() {
        let w0 = u64_at(b, p);
        if w0 == 0 {
            break;
        }
        let payload = u64_at(b, p + 8);
        let ts = w0 >> 4;
        let ev = match w0 & 0xf {
            KIND_ENTER => RawEvent::Enter(payload),
            KIND_EXIT => RawEvent::Exit(payload),
            KIND_EXT => {
                let len = payload as usize;
                let body_at = p + RECORD_SIZE;
                if len > b.len().saturating_sub(body_at) {
                    return Err((p + 8, format!("extended event of {len} bytes runs past the end")));
                }
                let ev = ExtEvent::decode(&b[body_at..body_at + len]).map_err(|e| (body_at, e.to_string()))?;
                p += tracekit_rt_format::padded(len);
                RawEvent::Ext(Box::new(ev))
            }
            KIND_PAD => {
                let skip = payload as usize;
                if skip > b.len().saturating_sub(p + RECORD_SIZE) || skip % RECORD_SIZE != 0 {
                    return Err((p + 8, format!("padding of {skip} bytes runs past the end")));
                }
                p += RECORD_SIZE + skip;
                continue;
            }
            k => return Err((p, format!("unknown record kind {k}"))),
        };
        count += 1;
        first.get_or_insert(ts);
        f(ts, ev);
        p += RECORD_SIZE;
    }
    Ok((count, first, p as u64))
}

/// Calls `f` with every event of a thread file, in the order written,
/// without holding them: version-1 files are mapped, version-2 files
/// (blocks) are read one block at a time. Returns the header.
pub fn stream_thread_file(path: &Path, f: impl FnMut(u64, RawEvent)) -> Result<ThreadHeader, ThreadFileError> {
    stream_thread_file_until(path, |_| false, f)
}

/// [`stream_thread_file`] for a reader that needs nothing past some time:
/// `past(raw clock)` says whether that time is past it. A file of blocks
/// is read up to and including the first block whose first event is past
/// (so the events handed over end past that time, when the thread went on
/// that long) and no further: the blocks after it are never read. A
/// version-1 file is read whole.
pub fn stream_thread_file_until(
    path: &Path,
    past: impl Fn(u64) -> bool,
    f: impl FnMut(u64, RawEvent),
) -> Result<ThreadHeader, ThreadFileError> {
    stream_thread_file_from(path, None, past, f)
}

/// [`stream_thread_file_until`] from file offset `from` (a block's, where
/// a skim before a time window ended) instead of after the header; a
/// version-1 file is handed over whole.
pub(crate) fn stream_thread_file_from(
    path: &Path,
    from: Option<u64>,
    past: impl Fn(u64) -> bool,
    mut f: impl FnMut(u64, RawEvent),
) -> Result<ThreadHeader, ThreadFileError> {
    let (file, header, first) = crate::blocks::open_thread_file(path)?;
    if header.version != BLOCK_VERSION {
        drop(file);
        let data = Mapped::open(path).map_err(|error| ThreadFileError::Io {
            path: path.display().to_string(),
            error,
        })?;
        records_v1(data.bytes(), first as usize, f).map_err(|(o, w)| crate::blocks::BlockError::Bad(o, w).of(path))?;
        return Ok(header);
    }
    let start = from.unwrap_or(first).max(first);
    crate::blocks::for_each_block(&file, start, true, |at, h, payload| {
        let mut d = BlockDecoder::new(payload, h);
        loop {
            let body_at = at + BLOCK_HEADER as u64 + d.offset() as u64;
            match d.next_event() {
                Ok(None) => return Ok(!past(h.first_ts)),
                Ok(Some((ts, ev))) => {
                    let ev = match ev {
                        BlockEvent::Enter(a) => RawEvent::Enter(a),
                        BlockEvent::Exit(a) => RawEvent::Exit(a),
                        BlockEvent::Ext(body) => RawEvent::Ext(Box::new(
                            ExtEvent::decode(body).map_err(|e| (body_at as usize, e.to_string()))?,
                        )),
                    };
                    f(ts, ev);
                }
                Err(o) => {
                    return Err((
                        (at + BLOCK_HEADER as u64) as usize + o,
                        "malformed event in block".to_string(),
                    ))
                }
            }
        }
    })
    .map_err(|e| e.of(path))?;
    Ok(header)
}

/// Reads until `buf` is full or the file ends; returns the bytes read.
pub(crate) fn read_up_to(f: &mut impl std::io::Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use tracekit_rt_format::ExtKind;

    /// Builds a thread file image the way the runtime lays it out.
    pub(crate) fn build(events: &[(u64, RawEvent)]) -> Vec<u8> {
        let mut b = vec![0u8; HEADER_SIZE];
        b[..8].copy_from_slice(&MAGIC);
        b[off::HEADER_SIZE..off::HEADER_SIZE + 4].copy_from_slice(&(HEADER_SIZE as u32).to_le_bytes());
        b[off::PID..off::PID + 4].copy_from_slice(&7u32.to_le_bytes());
        b[off::TID..off::TID + 4].copy_from_slice(&8u32.to_le_bytes());
        b[off::LOST..off::LOST + 8].copy_from_slice(&3u64.to_le_bytes());
        b[off::NAME..off::NAME + 4].copy_from_slice(b"main");
        for (ts, e) in events {
            let (kind, payload, body) = match e {
                RawEvent::Enter(a) => (KIND_ENTER, *a, vec![]),
                RawEvent::Exit(a) => (KIND_EXIT, *a, vec![]),
                RawEvent::Ext(x) => {
                    let mut body = vec![0u8; 1024];
                    let n = x.encode(&mut body).unwrap();
                    body.truncate(n);
                    (KIND_EXT, n as u64, body)
                }
            };
            b.extend_from_slice(&(ts << 4 | kind).to_le_bytes());
            b.extend_from_slice(&payload.to_le_bytes());
            let padded = tracekit_rt_format::padded(body.len());
            let mut body = body;
            body.resize(padded, 0);
            b.extend_from_slice(&body);
        }
        b.extend_from_slice(&[0u8; 64]);
        b
    }

    fn sample() -> Vec<(u64, RawEvent)> {
        vec![
            (10, RawEvent::Enter(0x1000)),
            (
                11,
                RawEvent::Ext(Box::new(ExtEvent {
                    sub: ExtKind::Marker,
                    remote_pid: 0,
                    object_id: 0,
                    value: 0,
                    strings: vec!["brb".into()],
                })),
            ),
            (12, RawEvent::Exit(0x1000)),
        ]
    }

    #[test]
    fn round_trip() {
        let t = parse_thread_file(&build(&sample())).unwrap();
        assert_eq!(t.header.pid, 7);
        assert_eq!(t.header.name, "main");
        assert_eq!(t.header.lost, 3);
        assert_eq!(t.events, sample());
    }

    #[test]
    fn rejects_garbage_with_offset() {
        assert_eq!(parse_thread_file(b"xx").unwrap_err().0, 2);
        let mut b = build(&sample());
        b[0] = b'X';
        assert_eq!(parse_thread_file(&b).unwrap_err().0, 0);
    }

    proptest! {
        #[test]
        fn mutated_files_never_panic(pos in 0usize..4300, val: u8, cut in 0usize..4400) {
            let mut b = build(&sample());
            let p = pos.min(b.len() - 1);
            b[p] = val;
            b.truncate(cut.max(1).min(b.len()));
            let _ = parse_thread_file(&b);
        }
    }
}
