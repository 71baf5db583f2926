//! Execution counters kept in a memory-mapped file.
//!
//! Each counter ("slot") is a little-endian `u64` at offset `8 × slot` of
//! `pid-<pid>.counts`. QEMU's inline adds write straight into the mapping, so
//! the counts are in the file whatever way the process ends — normal exit,
//! death by a guest signal, `execve`, even `SIGKILL` — with no flush step.
//! The file is created sparse at full capacity; only touched pages cost disk.
//!
//! After `fork` the child must not keep adding into its parent's file, so
//! [`CounterStore::reopen_for_child`] maps a fresh zeroed file for the child
//! at the *same address*: the translated code that already points at the old
//! counters now increments the child's.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;

/// Number of slots a counts file can hold (64 MiB of address space, sparse).
pub const DEFAULT_CAPACITY: u64 = 8 << 20;

/// A file-backed array of `u64` counters at a fixed address.
pub struct CounterStore {
    base: *mut u64,
    capacity: u64,
    used: u64,
    file: File,
}

// SAFETY: the mapping is owned by the store; concurrent increments by QEMU's
// generated code are plain memory writes the store never relies on.
unsafe impl Send for CounterStore {}

impl CounterStore {
    /// Creates `path` (truncating any old file) and maps `capacity` slots.
    pub fn create(path: &Path, capacity: u64) -> io::Result<Self> {
        let file = create_sized(path, capacity)?;
        // SAFETY: fresh shared mapping of a file we own, checked below.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                (capacity * 8) as usize,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        no_readahead(base.cast(), (capacity * 8) as usize);
        Ok(Self {
            base: base.cast(),
            capacity,
            used: 0,
            file,
        })
    }

    /// Reserves `n` consecutive slots; `None` when the file is full.
    pub fn alloc(&mut self, n: u64) -> Option<u64> {
        if self.used + n > self.capacity {
            return None;
        }
        let first = self.used;
        self.used += n;
        Some(first)
    }

    /// Slots handed out so far.
    pub fn used(&self) -> u64 {
        self.used
    }

    /// Address of a slot, for QEMU's inline add or a callback's user data.
    pub fn slot_ptr(&self, slot: u64) -> *mut u64 {
        assert!(slot < self.capacity, "slot {slot} out of range");
        // SAFETY: in bounds of the mapping.
        unsafe { self.base.add(slot as usize) }
    }

    /// Reads a slot (used by tests and by the at-exit summary).
    pub fn get(&self, slot: u64) -> u64 {
        // SAFETY: in bounds; volatile because generated code writes behind
        // the compiler's back.
        unsafe { self.slot_ptr(slot).read_volatile() }
    }

    /// In a freshly forked child: maps a new zeroed file at `path` over the
    /// same addresses, so every existing pointer now counts for the child.
    pub fn reopen_for_child(&mut self, path: &Path) -> io::Result<()> {
        let file = create_sized(path, self.capacity)?;
        // SAFETY: MAP_FIXED replaces exactly our own earlier mapping.
        let base = unsafe {
            libc::mmap(
                self.base.cast(),
                (self.capacity * 8) as usize,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_FIXED,
                file.as_raw_fd(),
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        no_readahead(base.cast(), (self.capacity * 8) as usize);
        self.file = file;
        Ok(())
    }

    /// Shrinks the file to the slots actually used (at normal exit). The
    /// mapping stays valid for the pages still inside the file.
    pub fn trim(&self) -> io::Result<()> {
        let bytes = (self.used * 8).max(8);
        self.file.set_len(bytes)
    }
}

/// Instructions per counter slot, in a mapped file beside the counters
/// (`pid-<pid>.sizes`, see `tracekit_emu_format::sizes_file`): entry 0 is
/// the number of slots handed out, entry `s` the instructions counted by
/// slot `s`. With it a run's totals are Σ count × size, without reading
/// the block log. Written through the mapping, so it is complete whatever
/// way the process ends.
pub struct SizeTable {
    base: *mut u32,
    capacity: u64,
    file: File,
}

// SAFETY: the mapping is owned by the table and only written through `&mut`.
unsafe impl Send for SizeTable {}

impl SizeTable {
    /// Creates `path` (truncating any old file) with room for `capacity` slots.
    pub fn create(path: &Path, capacity: u64) -> io::Result<Self> {
        let file = create_bytes(path, capacity * 4)?;
        let base = map_shared(&file, (capacity * 4) as usize)?;
        Ok(Self {
            base: base.cast(),
            capacity,
            file,
        })
    }

    /// Records that slot `slot` counts a block of `insns` instructions and
    /// that `used` slots are handed out (the entry is written first, so a
    /// reader never sees a used slot without its size).
    pub fn set(&mut self, slot: u64, insns: u32, used: u64) {
        assert!(slot > 0 && slot < self.capacity && used <= self.capacity);
        // SAFETY: both entries lie inside the mapping.
        unsafe {
            self.base.add(slot as usize).write_volatile(insns);
            self.base.write_volatile(used as u32);
        }
    }

    /// Records the number of slots handed out.
    pub fn set_used(&mut self, used: u64) {
        // SAFETY: entry 0 lies inside the mapping.
        unsafe { self.base.write_volatile(used.min(self.capacity) as u32) };
    }

    /// In a freshly forked child: a new file at `path` starting with a copy
    /// of the first `used` entries (the slots the child inherits).
    pub fn reopen_for_child(&mut self, path: &Path, used: u64) -> io::Result<()> {
        use std::os::unix::fs::FileExt;
        let file = create_bytes(path, self.capacity * 4)?;
        let used = used.min(self.capacity) as usize;
        // SAFETY: the first `used` entries lie inside our mapping.
        let inherited = unsafe { std::slice::from_raw_parts(self.base.cast::<u8>(), used * 4) };
        file.write_all_at(inherited, 0)?;
        // SAFETY: MAP_FIXED replaces exactly our own earlier mapping.
        let base = unsafe {
            libc::mmap(
                self.base.cast(),
                (self.capacity * 4) as usize,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_FIXED,
                file.as_raw_fd(),
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        no_readahead(base.cast(), (self.capacity * 4) as usize);
        self.file = file;
        Ok(())
    }

    /// Shrinks the file to the `used` entries (at normal exit).
    pub fn trim(&self, used: u64) -> io::Result<()> {
        self.file.set_len(used.max(1) * 4)
    }
}

impl Drop for SizeTable {
    fn drop(&mut self) {
        // SAFETY: our own mapping, not used after this.
        unsafe { libc::munmap(self.base.cast(), (self.capacity * 4) as usize) };
    }
}

/// An append-only text file written through a shared memory mapping.
///
/// Appending is a `memcpy` into the page cache: no system call per record,
/// yet every byte appended is in the file the moment it is copied, so a
/// process killed by any signal keeps its log up to the last record. The
/// file is grown (and the mapping moved) in [`LOG_CHUNK`] steps, so until
/// [`MappedLog::finish`] trims it the file ends in zero bytes: readers stop
/// at the first NUL.
pub struct MappedLog {
    file: File,
    base: *mut u8,
    mapped: usize,
    len: usize,
}

// SAFETY: the mapping is owned by the log and only written through `&mut`.
unsafe impl Send for MappedLog {}

/// Growth step of a [`MappedLog`] (sparse: only written pages cost disk).
pub const LOG_CHUNK: usize = 4 << 20;

impl MappedLog {
    /// Creates `path` (truncating any old file) and maps its first chunk.
    pub fn create(path: &Path) -> io::Result<Self> {
        let file = create_sized(path, (LOG_CHUNK / 8) as u64)?;
        let base = map_shared(&file, LOG_CHUNK)?;
        Ok(Self {
            file,
            base,
            mapped: LOG_CHUNK,
            len: 0,
        })
    }

    /// Appends `bytes`, growing the file when needed.
    pub fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.append_with(bytes.len(), |room| {
            room.copy_from_slice(bytes);
            bytes.len()
        })
    }

    /// Appends what `write` stores at the start of `room` bytes made at the
    /// end of the log, `write` returning how many it stored: a record is
    /// formatted in place, with no copy. `write` must store nothing past
    /// that count, so the file past the log's end stays zeros, as a reader
    /// expects (a kill in the middle of a record leaves that record cut
    /// short, which the reader drops, as it did when records were copied in).
    pub fn append_with(&mut self, room: usize, write: impl FnOnce(&mut [u8]) -> usize) -> io::Result<()> {
        let end = self.len + room;
        if end > self.mapped {
            let grown = (end.max(self.mapped * 2)).div_ceil(LOG_CHUNK) * LOG_CHUNK;
            self.file.set_len(grown as u64)?;
            // SAFETY: remapping our own mapping; the old address is never used again.
            let moved = unsafe { libc::mremap(self.base.cast(), self.mapped, grown, libc::MREMAP_MAYMOVE) };
            if moved == libc::MAP_FAILED {
                return Err(io::Error::last_os_error());
            }
            no_readahead(moved.cast(), grown);
            self.base = moved.cast();
            self.mapped = grown;
        }
        // SAFETY: `len..end` lies inside our mapping, and nothing else
        // refers to it while `self` is borrowed mutably.
        let room = unsafe { std::slice::from_raw_parts_mut(self.base.add(self.len), room) };
        let written = write(room);
        assert!(written <= room.len(), "a record overran the room made for it");
        self.len += written;
        Ok(())
    }

    /// Bytes appended so far.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when nothing was appended.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Trims the file to what was appended (at normal exit).
    pub fn finish(&self) -> io::Result<()> {
        self.file.set_len(self.len as u64)
    }
}

impl Drop for MappedLog {
    fn drop(&mut self) {
        // SAFETY: our own mapping, not used after this.
        unsafe { libc::munmap(self.base.cast(), self.mapped) };
    }
}

/// Turns off read-ahead on a mapping of our sparse files: a fault would
/// otherwise read (zero-fill) a whole read-ahead window of holes, which
/// made every forked child's first counter writes cost milliseconds.
fn no_readahead(base: *mut u8, bytes: usize) {
    // SAFETY: advice on our own mapping; failure only loses the hint.
    unsafe { libc::madvise(base.cast(), bytes, libc::MADV_RANDOM) };
}

fn map_shared(file: &File, bytes: usize) -> io::Result<*mut u8> {
    // SAFETY: fresh shared mapping of a file we own, checked below.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            bytes,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            file.as_raw_fd(),
            0,
        )
    };
    if base == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    no_readahead(base.cast(), bytes);
    Ok(base.cast())
}

fn create_sized(path: &Path, capacity: u64) -> io::Result<File> {
    create_bytes(path, capacity * 8)
}

fn create_bytes(path: &Path, bytes: u64) -> io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)?;
    file.set_len(bytes)?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_land_in_the_file_without_flushing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c");
        let mut store = CounterStore::create(&path, 1024).unwrap();
        let a = store.alloc(1).unwrap();
        let b = store.alloc(3).unwrap();
        assert_eq!((a, b), (0, 1));
        unsafe {
            *store.slot_ptr(a) += 5;
            *store.slot_ptr(b + 2) += 7;
        }
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(u64::from_le_bytes(bytes[0..8].try_into().unwrap()), 5);
        assert_eq!(u64::from_le_bytes(bytes[24..32].try_into().unwrap()), 7);
        store.trim().unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 32);
    }

    #[test]
    fn child_reopen_keeps_addresses_and_starts_from_zero() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = CounterStore::create(&dir.path().join("p"), 64).unwrap();
        let s = store.alloc(1).unwrap();
        let p = store.slot_ptr(s);
        unsafe { *p += 3 };
        store.reopen_for_child(&dir.path().join("c")).unwrap();
        assert_eq!(store.slot_ptr(s), p);
        assert_eq!(store.get(s), 0);
        unsafe { *p += 2 };
        let parent = std::fs::read(dir.path().join("p")).unwrap();
        let child = std::fs::read(dir.path().join("c")).unwrap();
        assert_eq!(parent[0], 3);
        assert_eq!(child[0], 2);
    }

    #[test]
    fn the_mapped_log_is_in_the_file_at_once_and_grows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let mut log = MappedLog::create(&path).unwrap();
        log.append(b"hello\n").unwrap();
        let before = std::fs::read(&path).unwrap();
        assert_eq!(&before[..6], b"hello\n");
        assert_eq!(before[6], 0, "unwritten tail is zeros");
        let big = vec![b'x'; LOG_CHUNK + 10];
        log.append(&big).unwrap();
        log.append(b"end").unwrap();
        log.finish().unwrap();
        let after = std::fs::read(&path).unwrap();
        assert_eq!(after.len(), 6 + LOG_CHUNK + 10 + 3);
        assert!(after.ends_with(b"xend"));
    }

    #[test]
    fn a_record_written_in_place_keeps_only_what_it_stored() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let mut log = MappedLog::create(&path).unwrap();
        log.append(b"a\n").unwrap();
        // More room than the record needs, then room past the first chunk.
        log.append_with(100, |room| {
            assert!(room.iter().all(|&b| b == 0), "fresh room is zeros");
            room[..3].copy_from_slice(b"bc\n");
            3
        })
        .unwrap();
        assert_eq!(log.len(), 5);
        let cut = std::fs::read(&path).unwrap();
        assert_eq!(&cut[..6], b"a\nbc\n\0", "a log cut now ends in zeros");
        log.append_with(LOG_CHUNK, |room| {
            room[..2].copy_from_slice(b"d\n");
            2
        })
        .unwrap();
        log.finish().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"a\nbc\nd\n");
    }

    #[test]
    fn sizes_are_in_the_file_and_a_child_starts_with_the_inherited_ones() {
        let dir = tempfile::tempdir().unwrap();
        let mut t = SizeTable::create(&dir.path().join("p"), 16).unwrap();
        t.set(1, 5, 2);
        t.set(2, 7, 3);
        let entry = |path: &str, i: usize| {
            let b = std::fs::read(dir.path().join(path)).unwrap();
            u32::from_le_bytes(b[i * 4..i * 4 + 4].try_into().unwrap())
        };
        assert_eq!((entry("p", 0), entry("p", 1), entry("p", 2)), (3, 5, 7));
        t.reopen_for_child(&dir.path().join("c"), 2).unwrap();
        t.set(2, 9, 3);
        assert_eq!((entry("c", 0), entry("c", 1), entry("c", 2)), (3, 5, 9));
        assert_eq!(entry("p", 2), 7, "the parent's file is untouched");
        t.trim(3).unwrap();
        assert_eq!(std::fs::metadata(dir.path().join("c")).unwrap().len(), 12);
    }

    #[test]
    fn alloc_refuses_past_capacity() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = CounterStore::create(&dir.path().join("c"), 4).unwrap();
        assert_eq!(store.alloc(4), Some(0));
        assert_eq!(store.alloc(1), None);
    }
}
