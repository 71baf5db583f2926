//! Walking the blocks of a version-2 thread file (`tracekit_rt_format::block`)
//! one at a time: a block's header alone (event counts, time range) or its
//! payload too. A block cut short at the end of the file (the recorder was
//! killed while writing it) ends the data; everything before it is read.

use crate::thread_file::{parse_header, read_up_to, ThreadFileError, ThreadHeader, ThreadStats};
use std::path::Path;
use tracekit_rt_format::block::{BlockHeader, BLOCK_HEADER, BLOCK_VERSION};
use tracekit_rt_format::HEADER_SIZE;

/// Why walking blocks stopped.
pub(crate) enum BlockError {
    /// Reading failed.
    Io(std::io::Error),
    /// Malformed content at this file offset.
    Bad(usize, String),
}

impl BlockError {
    /// The error as one of the file at `path`.
    pub(crate) fn of(self, path: &Path) -> ThreadFileError {
        let path = path.display().to_string();
        match self {
            BlockError::Io(error) => ThreadFileError::Io { path, error },
            BlockError::Bad(offset, what) => ThreadFileError::Bad { path, offset, what },
        }
    }
}

/// Calls `f(file offset, header, payload)` for every complete block from
/// `start`, until `f` returns `false`; with `payload` false, payloads are
/// skipped (and `f` gets an empty slice). Returns whether the last block
/// read was cut short.
pub(crate) fn for_each_block(
    file: &std::fs::File,
    start: u64,
    payload: bool,
    mut f: impl FnMut(u64, &BlockHeader, &[u8]) -> Result<bool, (usize, String)>,
) -> Result<bool, BlockError> {
    let len = file.metadata().map_err(BlockError::Io)?.len();
    let mut at = start;
    let mut head = [0u8; BLOCK_HEADER];
    let mut buf = Vec::new();
    // Positioned reads: one system call per block header, none to seek
    // past a payload that is not wanted.
    loop {
        if at == len {
            return Ok(false);
        }
        let n = read_at_up_to(file, &mut head, at).map_err(BlockError::Io)?;
        if n < BLOCK_HEADER {
            return Ok(true);
        }
        let h = BlockHeader::read(&head).ok_or_else(|| BlockError::Bad(at as usize, "not a block header".into()))?;
        let end = at + BLOCK_HEADER as u64 + h.payload_len as u64;
        if end > len {
            return Ok(true);
        }
        if payload {
            buf.resize(h.payload_len as usize, 0);
            let n = read_at_up_to(file, &mut buf, at + BLOCK_HEADER as u64).map_err(BlockError::Io)?;
            if n < buf.len() {
                return Ok(true);
            }
        }
        let go_on = f(at, &h, if payload { &buf } else { &[] }).map_err(|(o, w)| BlockError::Bad(o, w))?;
        if !go_on {
            return Ok(false);
        }
        at = end;
    }
}

/// Reads from file offset `pos` until `buf` is full or the file ends;
/// returns the bytes read.
fn read_at_up_to(file: &std::fs::File, buf: &mut [u8], pos: u64) -> std::io::Result<usize> {
    use std::os::unix::fs::FileExt;
    let mut n = 0;
    while n < buf.len() {
        match file.read_at(&mut buf[n..], pos + n as u64) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Whether a block header lies at file offset `at` of the file at `path`.
pub(crate) fn block_at(path: &Path, at: u64) -> bool {
    let Ok(file) = tracekit_safeio::open_regular(path) else {
        return false;
    };
    let mut head = [0u8; BLOCK_HEADER];
    read_at_up_to(&file, &mut head, at).is_ok_and(|n| n == BLOCK_HEADER) && BlockHeader::read(&head).is_some()
}

/// Counts of a file of blocks from its block headers alone; `None` when
/// the file is not made of blocks.
pub(crate) fn block_stats(path: &Path) -> Result<Option<ThreadStats>, ThreadFileError> {
    block_stats_noting(path, |_| {})
}

/// Each block's last raw time stamp and event count.
pub(crate) type BlockEnds = Vec<(u64, u32)>;

/// [`block_stats`], and the file's [`BlockEnds`].
pub(crate) fn block_stats_and_ends(path: &Path) -> Result<Option<(ThreadStats, BlockEnds)>, ThreadFileError> {
    let mut ends = Vec::new();
    let stats = block_stats_noting(path, |h| ends.push((h.last_ts, h.events)))?;
    Ok(stats.map(|st| (st, ends)))
}

/// [`block_stats`], handing each block header to `note` too.
fn block_stats_noting(path: &Path, mut note: impl FnMut(&BlockHeader)) -> Result<Option<ThreadStats>, ThreadFileError> {
    let (mut events, mut first) = (0u64, None);
    let scanned = scan_block_headers(path, |h| {
        events += h.events as u64;
        first.get_or_insert(h.first_ts);
        note(h);
    })?;
    Ok(scanned.map(|(header, end)| ThreadStats {
        header,
        events,
        first_clock: first,
        data_end: end,
    }))
}

/// Hands every complete block header of the file to `f`; returns the
/// file's header and where its complete blocks end, or `None` when the
/// file is not made of blocks.
fn scan_block_headers(
    path: &Path,
    mut f: impl FnMut(&BlockHeader),
) -> Result<Option<(ThreadHeader, u64)>, ThreadFileError> {
    let (file, header, first) = open_thread_file(path)?;
    if header.version != BLOCK_VERSION {
        return Ok(None);
    }
    let mut end = first;
    for_each_block(&file, first, false, |at, h, _| {
        f(h);
        end = at + BLOCK_HEADER as u64 + h.payload_len as u64;
        Ok(true)
    })
    .map_err(|e| e.of(path))?;
    Ok(Some((header, end)))
}

/// Opens the thread file at `path` and reads its header: the file (at no
/// particular offset), the header, and where the data after it starts.
pub(crate) fn open_thread_file(path: &Path) -> Result<(std::fs::File, ThreadHeader, u64), ThreadFileError> {
    let mut file = tracekit_safeio::open_regular(path).map_err(|e| ThreadFileError::Io {
        path: path.display().to_string(),
        error: std::io::Error::new(e.kind, e.message),
    })?;
    let mut head = vec![0u8; HEADER_SIZE];
    let n = read_up_to(&mut file, &mut head).map_err(|e| BlockError::Io(e).of(path))?;
    head.truncate(n);
    let (header, hsize) = parse_header(&head).map_err(|(o, w)| BlockError::Bad(o, w).of(path))?;
    Ok((file, header, hsize as u64))
}

/// The payload of the block at file offset `at`; `None` when there is no
/// complete block there.
pub(crate) fn read_payload(file: &std::fs::File, at: u64) -> Option<Vec<u8>> {
    let mut payload = None;
    for_each_block(file, at, true, |_, _, p| {
        payload = Some(p.to_vec());
        Ok(false)
    })
    .ok()?;
    payload
}

#[cfg(test)]
pub(crate) mod tests {
    use crate::thread_file::{read_thread_file, stream_thread_file_until, thread_stats, RawEvent};
    use tracekit_rt_format::block::{BlockEncoder, BLOCK_VERSION};
    use tracekit_rt_format::{off, ExtEvent, ExtKind, HEADER_SIZE, MAGIC};

    /// The header of a version-2 thread file (no blocks yet).
    pub(crate) fn v2_header() -> Vec<u8> {
        let mut b = vec![0u8; HEADER_SIZE];
        b[..8].copy_from_slice(&MAGIC);
        b[off::VERSION..off::VERSION + 4].copy_from_slice(&BLOCK_VERSION.to_le_bytes());
        b[off::HEADER_SIZE..off::HEADER_SIZE + 4].copy_from_slice(&(HEADER_SIZE as u32).to_le_bytes());
        b[off::PID..off::PID + 4].copy_from_slice(&7u32.to_le_bytes());
        b
    }

    /// A version-2 file of `blocks` blocks of 3 events each.
    fn file_of_blocks(blocks: u64) -> Vec<u8> {
        let mut b = v2_header();
        let marker = ExtEvent {
            sub: ExtKind::Marker,
            remote_pid: 0,
            object_id: 0,
            value: 0,
            strings: vec!["brb".into()],
        };
        let mut body = vec![0u8; 64];
        let n = marker.encode(&mut body).unwrap();
        let mut enc = BlockEncoder::new();
        for i in 0..blocks {
            enc.push_call(100 + 10 * i, false, 0x1000 + i);
            enc.push_ext(101 + 10 * i, &body[..n]);
            enc.push_call(102 + 10 * i, true, 0x1000 + i);
            enc.finish_into(&mut b);
        }
        b
    }

    #[test]
    fn blocks_stream_count_from_headers_and_survive_a_cut() {
        let dir = std::env::temp_dir().join(format!("tracekit-blocks-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("t.tkt");
        let whole = file_of_blocks(3);
        std::fs::write(&p, &whole).unwrap();
        let t = read_thread_file(&p).unwrap();
        assert_eq!(t.events.len(), 9);
        assert_eq!(t.events[3], (110, RawEvent::Enter(0x1001)));
        assert!(matches!(&t.events[4].1, RawEvent::Ext(x) if x.strings == ["brb"]));
        let st = thread_stats(&p).unwrap();
        assert_eq!(
            (st.events, st.first_clock, st.data_end),
            (9, Some(100), whole.len() as u64)
        );
        // Cut inside the last block: the first two stay whole.
        std::fs::write(&p, &whole[..whole.len() - 5]).unwrap();
        assert_eq!(read_thread_file(&p).unwrap().events.len(), 6);
        assert_eq!(thread_stats(&p).unwrap().events, 6);
        // A block header that is not one: an error naming the offset.
        let mut bad = whole.clone();
        bad[HEADER_SIZE] = b'X';
        std::fs::write(&p, &bad).unwrap();
        let err = read_thread_file(&p).unwrap_err().to_string();
        assert!(err.contains(&format!("byte offset {HEADER_SIZE}")), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_reader_with_an_end_time_stops_after_the_first_block_past_it() {
        let dir = tempfile::Builder::new()
            .prefix("tracekit-blocks-until-")
            .tempdir()
            .unwrap();
        let p = dir.path().join("t.tkt");
        // Blocks start at 100, 110, 120, … 190.
        std::fs::write(&p, file_of_blocks(10)).unwrap();
        let read_until = |end: u64| {
            let mut seen = Vec::new();
            stream_thread_file_until(&p, |t| t > end, |t, _| seen.push(t)).unwrap();
            seen
        };
        // Past 125: the block at 130 is the first past it; it is read, the
        // six after it are not.
        let seen = read_until(125);
        assert_eq!(seen.len(), 4 * 3, "{seen:?}");
        assert_eq!(*seen.last().unwrap(), 132);
        // An end inside a block's events: the next block is read too, so
        // the events handed over end past the end time.
        assert_eq!(*read_until(131).last().unwrap(), 142);
        // Past the last event: everything, and the same as no end at all.
        assert_eq!(read_until(1000).len(), 30);
        assert_eq!(
            read_until(1000),
            read_thread_file(&p)
                .unwrap()
                .events
                .iter()
                .map(|e| e.0)
                .collect::<Vec<_>>()
        );
        // Before the first event: the first block only.
        assert_eq!(read_until(0).len(), 3);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        #[test]
        fn mutated_block_files_never_panic(pos in 0usize..200, val: u8, cut in 0usize..300) {
            let mut b = file_of_blocks(3);
            let p = HEADER_SIZE + pos.min(b.len() - HEADER_SIZE - 1);
            b[p] = val;
            b.truncate((HEADER_SIZE + cut).min(b.len()));
            let dir = tempfile::Builder::new().prefix("tracekit-blocks-fuzz-").tempdir().unwrap();
            let f = dir.path().join("t.tkt");
            std::fs::write(&f, &b).unwrap();
            let _ = read_thread_file(&f);
            let _ = thread_stats(&f);
        }
    }
}
