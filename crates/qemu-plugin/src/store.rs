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
    fn alloc_refuses_past_capacity() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = CounterStore::create(&dir.path().join("c"), 4).unwrap();
        assert_eq!(store.alloc(4), Some(0));
        assert_eq!(store.alloc(1), None);
    }
}
