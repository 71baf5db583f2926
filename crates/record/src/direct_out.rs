//! Appending a thread file past the page cache.
//!
//! At 10⁹ calls a recording is 6 GB, and copying it into the page cache
//! cost the drainer about as much CPU as coding it (15 s of system time on
//! this project's VM, where the traced loop ran 28 s): the drainer fell
//! behind and the program waited on its ring. Past the first gigabyte
//! ([`DIRECT_FROM`]) and where the file system allows it (`O_DIRECT`),
//! whole 4 KiB-aligned pieces go straight to the disk from an aligned
//! buffer; only the header, the lost-event count and the
//! unaligned tail of a flush go through the page cache, and the tail is
//! kept and written again, aligned, once more bytes follow. So the file is
//! at every moment a prefix of its final content, as with plain writes.
//! Elsewhere (tmpfs, or a write the kernel refuses) every write is a plain
//! one.

use std::fs::File;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;

/// Alignment of direct writes: offsets, lengths and the buffer's address.
const ALIGN: usize = 4096;

/// The file offset from which writes go past the page cache. Below it the
/// page cache is the cheaper way (a write returns at once), and on this
/// project's VM copying into it stays cheap for the first gigabytes (2 GB
/// in 0.6 s) but not beyond (6 GB took 15.5 s of system time): direct
/// writes wait for the disk, and for the 60 MB of a 10⁷-call run they cost
/// more than they saved (1.30× the TSC-only run against 1.14×).
const DIRECT_FROM: u64 = 1 << 30;

/// A thread file being appended to.
pub(crate) struct DirectOut {
    /// Plain handle: the header, the lost count, unaligned tails, fallback.
    plain: File,
    /// `O_DIRECT` handle, when the file system takes one.
    direct: Option<File>,
    /// File offset up to which every byte is written (a multiple of ALIGN).
    aligned_end: u64,
    /// Bytes from `aligned_end` on: `raw[start..start + len]`, where
    /// `raw[start..]` is ALIGN-aligned.
    raw: Vec<u8>,
    start: usize,
    len: usize,
    /// The gathered bytes are all in the file (the last flush wrote them
    /// and nothing was appended since).
    written: bool,
    /// See [`DIRECT_FROM`].
    direct_from: u64,
}

impl DirectOut {
    /// Creates `path` holding `header` (ALIGN bytes long) and room to gather
    /// `capacity` bytes between writes.
    pub fn create(path: &Path, header: &[u8], capacity: usize) -> std::io::Result<DirectOut> {
        DirectOut::create_from(path, header, capacity, DIRECT_FROM)
    }

    /// [`DirectOut::create`] writing past the page cache from `direct_from` on.
    fn create_from(path: &Path, header: &[u8], capacity: usize, direct_from: u64) -> std::io::Result<DirectOut> {
        let plain = File::create(path)?;
        plain.write_all_at(header, 0)?;
        let direct = if header.len() % ALIGN == 0 {
            std::fs::OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_DIRECT)
                .open(path)
                .ok()
        } else {
            None
        };
        let capacity = capacity.next_multiple_of(ALIGN) + ALIGN;
        let raw = vec![0u8; capacity + ALIGN];
        let start = raw.as_ptr().align_offset(ALIGN);
        Ok(DirectOut {
            plain,
            direct,
            aligned_end: header.len() as u64,
            raw,
            start,
            len: 0,
            written: true,
            direct_from,
        })
    }

    /// Room left before [`DirectOut::append`] must write.
    fn room(&self) -> usize {
        self.raw.len() - ALIGN - self.len
    }

    /// Appends `bytes`, writing the whole aligned pieces gathered once the
    /// buffer fills.
    pub fn append(&mut self, mut bytes: &[u8]) -> std::io::Result<()> {
        self.written &= bytes.is_empty();
        while !bytes.is_empty() {
            let n = bytes.len().min(self.room());
            let at = self.start + self.len;
            self.raw[at..at + n].copy_from_slice(&bytes[..n]);
            self.len += n;
            bytes = &bytes[n..];
            if self.room() == 0 {
                self.write_aligned()?;
            }
        }
        Ok(())
    }

    /// Writes the whole aligned pieces gathered and keeps the rest.
    fn write_aligned(&mut self) -> std::io::Result<()> {
        let n = self.len / ALIGN * ALIGN;
        if n == 0 {
            return Ok(());
        }
        let piece = &self.raw[self.start..self.start + n];
        let direct_ok = match &self.direct {
            Some(_) if self.aligned_end < self.direct_from => false,
            Some(d) => match d.write_all_at(piece, self.aligned_end) {
                Ok(()) => true,
                // The file system took O_DIRECT at open but not this write.
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) => false,
                Err(e) => return Err(e),
            },
            None => false,
        };
        if !direct_ok {
            if self.aligned_end >= self.direct_from {
                self.direct = None;
            }
            self.plain.write_all_at(piece, self.aligned_end)?;
        }
        self.aligned_end += n as u64;
        self.raw.copy_within(self.start + n..self.start + self.len, self.start);
        self.len -= n;
        Ok(())
    }

    /// Writes everything gathered: the aligned pieces, then the tail
    /// through the page cache (kept, to be written again aligned).
    /// Nothing is written when nothing was appended since the last flush.
    pub fn flush(&mut self) -> std::io::Result<()> {
        if self.written {
            return Ok(());
        }
        self.write_aligned()?;
        if self.len > 0 {
            self.plain
                .write_all_at(&self.raw[self.start..self.start + self.len], self.aligned_end)?;
        }
        self.written = true;
        Ok(())
    }

    /// Writes `bytes` at `offset` inside the header.
    pub fn write_header_at(&self, bytes: &[u8], offset: u64) -> std::io::Result<()> {
        self.plain.write_all_at(bytes, offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_is_always_a_prefix_of_what_was_appended() {
        let dir = std::env::temp_dir().join(format!("tracekit-direct-out-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t");
        let header = vec![7u8; ALIGN];
        // Plain writes for the first pieces, then direct ones.
        let mut out = DirectOut::create_from(&path, &header, 10_000, 20 * ALIGN as u64).unwrap();
        let mut want = header.clone();
        let mut seed = 1u32;
        for round in 0..200 {
            let n = (seed % 5000) as usize;
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let bytes: Vec<u8> = (0..n).map(|i| (i as u8).wrapping_add(round as u8)).collect();
            out.append(&bytes).unwrap();
            want.extend_from_slice(&bytes);
            if round % 7 == 0 {
                out.flush().unwrap();
                assert_eq!(std::fs::read(&path).unwrap(), want, "after the flush of round {round}");
            } else {
                let got = std::fs::read(&path).unwrap();
                assert_eq!(got[..], want[..got.len()], "round {round}");
            }
        }
        out.write_header_at(&[1, 2], 8).unwrap();
        out.flush().unwrap();
        want[8..10].copy_from_slice(&[1, 2]);
        assert_eq!(std::fs::read(&path).unwrap(), want);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
