//! The ring files the drainer maps, and the larger ring a busy thread
//! moves to (`tracekit_rt_format::off::NEXT_RING`): when to offer one, and
//! preparing it.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use tracekit_rt_format::{off, HEADER_SIZE, MAGIC};

/// A ring file mapped shared, for reading and writing; unmapped on drop.
pub(super) struct RingMap {
    pub(super) path: PathBuf,
    pub(super) ptr: *mut u8,
    pub(super) len: usize,
    pub(super) cap: u64,
}

// SAFETY: a mapping is used by one thread at a time (the drainer's, or the
// helper that prepares a larger ring and hands it over).
unsafe impl Send for RingMap {}

impl Drop for RingMap {
    fn drop(&mut self) {
        // SAFETY: our mapping.
        unsafe { libc::munmap(self.ptr as *mut libc::c_void, self.len) };
    }
}

impl RingMap {
    /// The header bytes.
    pub(super) fn header(&self) -> &[u8] {
        // SAFETY: the header lies inside the mapping.
        unsafe { std::slice::from_raw_parts(self.ptr, HEADER_SIZE) }
    }

    pub(super) fn word(&self, o: usize) -> &AtomicU64 {
        // SAFETY: 8-aligned offset inside the mapped header.
        unsafe { &*(self.ptr.add(o) as *const AtomicU64) }
    }
}

/// Where a ring stands on moving to a larger one (see `off::NEXT_RING`).
pub(super) enum Growth {
    /// It may move once it has lapped [`GROW_AFTER_LAPS`] times.
    Allowed,
    /// A helper thread is preparing the larger ring.
    Preparing(std::thread::JoinHandle<std::io::Result<RingMap>>),
    /// The larger ring is offered; the writer has not moved yet.
    Offered(RingMap),
    /// It keeps its size: moved already, not allowed, or preparing failed.
    Over,
}

/// Laps of its ring after which a thread is offered a larger one: a thread
/// this busy keeps writing, and with a larger ring it and the drainer touch
/// each line far less often (on a 10⁹-call run, 1.03× the untraced run's
/// time instead of 1.19×). Fewer laps would move short runs too, which pay
/// the move (a few milliseconds) and gain nothing.
pub(super) const GROW_AFTER_LAPS: u64 = 128;

/// A ring grows only while the rings of all threads take at most this many
/// bytes: the recorder maps every ring, so with the default sizes its
/// memory stays below 64 MB (one busy thread moved to 32 MiB, a second one
/// kept at 8 MiB; with three threads or more, no ring grows).
pub(super) const GROW_WITHIN: u64 = 16 << 20;

/// Whether a ring of `cap` bytes that has been read up to `read` should be
/// offered a larger one, while the rings of all threads take `all_rings` bytes.
pub(super) fn growth_due(read: u64, cap: u64, all_rings: u64) -> bool {
    read >= GROW_AFTER_LAPS * cap && all_rings <= GROW_WITHIN
}

/// Creates the ring file of `cap` bytes at `path` that a thread whose ring
/// has the header `header` moves to, with its pages in memory (so the
/// writer's mapping of it costs little), and maps it.
pub(super) fn prepare_ring(path: &Path, header: &[u8], cap: u64) -> std::io::Result<RingMap> {
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(path)?;
    let len = HEADER_SIZE + cap as usize;
    f.set_len(len as u64)?;
    let map = RingMap {
        path: path.to_path_buf(),
        ptr: map_shared(&f, len, true)?,
        len,
        cap,
    };
    let mut h = header.to_vec();
    clear_ring_words(&mut h);
    h[off::CAPACITY..off::CAPACITY + 8].copy_from_slice(&cap.to_le_bytes());
    // SAFETY: the header lies inside the new mapping; the magic goes last.
    unsafe {
        std::ptr::copy_nonoverlapping(h[8..].as_ptr(), map.ptr.add(8), HEADER_SIZE - 8);
        std::ptr::copy_nonoverlapping(MAGIC.as_ptr(), map.ptr, 8);
    }
    Ok(map)
}

/// Zeroes the words of a ring header that the writer and the drainer
/// exchange (read position, lost events, the larger ring offered), for a
/// header copied into a thread file or a new ring.
pub(super) fn clear_ring_words(header: &mut [u8]) {
    for o in [off::READ_POS, off::LOST, off::NEXT_RING] {
        header[o..o + 8].fill(0);
    }
}

/// Maps `len` bytes of `f` shared, for reading and writing (`populate`:
/// with every page faulted in now).
pub(super) fn map_shared(f: &std::fs::File, len: usize, populate: bool) -> std::io::Result<*mut u8> {
    use std::os::fd::AsRawFd;
    // SAFETY: a new mapping of an open file; the caller unmaps it.
    let ptr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | if populate { libc::MAP_POPULATE } else { 0 },
            f.as_raw_fd(),
            0,
        )
    };
    if ptr == libc::MAP_FAILED {
        return Err(std::io::Error::last_os_error());
    }
    Ok(ptr as *mut u8)
}
