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
        let end = self.len + bytes.len();
        if end > self.mapped {
            let grown = (end.max(self.mapped * 2)).div_ceil(LOG_CHUNK) * LOG_CHUNK;
            self.file.set_len(grown as u64)?;
            // SAFETY: remapping our own mapping; the old address is never used again.
            let moved = unsafe { libc::mremap(self.base.cast(), self.mapped, grown, libc::MREMAP_MAYMOVE) };
            if moved == libc::MAP_FAILED {
                return Err(io::Error::last_os_error());
            }
            self.base = moved.cast();
            self.mapped = grown;
        }
        // SAFETY: `len..end` lies inside the mapping.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.base.add(self.len), bytes.len()) };
        self.len = end;
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
    Ok(base.cast())
}

fn create_sized(path: &Path, capacity: u64) -> io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)?;
    file.set_len(capacity * 8)?;
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
    fn alloc_refuses_past_capacity() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = CounterStore::create(&dir.path().join("c"), 4).unwrap();
        assert_eq!(store.alloc(4), Some(0));
        assert_eq!(store.alloc(1), None);
    }
}
