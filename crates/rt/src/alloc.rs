//! The runtime's own memory: a small allocator on `mmap`, installed as the
//! crate's global allocator (feature `own-allocator`, on by default).
//!
//! The traced program may define `malloc`, `free` and `realloc` itself and
//! compile them with `-finstrument-functions`. Rust's default allocator
//! calls whatever `malloc` the process binds, so every allocation the
//! runtime made (path names, the process map copy, symbol tables for
//! filters) would run the program's allocator, record its calls as the
//! program's, and re-enter the runtime while it creates a thread's buffer.
//! Here the runtime never calls the program's allocator: small blocks come
//! from power-of-two size classes carved out of 1 MiB chunks mapped with
//! `mmap`, large ones are mappings of their own.
//!
//! One spin lock guards the free lists. `fork` takes it in the prepare
//! handler and releases it in both processes ([`lock_for_fork`],
//! [`unlock_after_fork`]), so a child never inherits it held.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, Ordering};

/// Smallest block (bytes).
const MIN_CLASS: usize = 16;
/// Number of size classes: 16 B .. 32 KiB.
const CLASSES: usize = 12;
/// Largest small block; bigger requests get a mapping of their own.
const MAX_SMALL: usize = MIN_CLASS << (CLASSES - 1);
/// Bytes mapped at a time for small blocks.
const CHUNK: usize = 1 << 20;
const PAGE: usize = 4096;

struct Heap {
    free: [usize; CLASSES],
    chunk_at: usize,
    chunk_end: usize,
}

/// The runtime's allocator (see the module docs).
pub struct RuntimeAlloc {
    lock: AtomicBool,
    heap: UnsafeCell<Heap>,
}

// SAFETY: `heap` is only touched while `lock` is held.
unsafe impl Sync for RuntimeAlloc {}

impl RuntimeAlloc {
    /// An empty allocator (maps nothing until the first request).
    pub const fn new() -> RuntimeAlloc {
        RuntimeAlloc {
            lock: AtomicBool::new(false),
            heap: UnsafeCell::new(Heap {
                free: [0; CLASSES],
                chunk_at: 0,
                chunk_end: 0,
            }),
        }
    }

    fn acquire(&self) {
        while self
            .lock
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            std::hint::spin_loop();
            // SAFETY: sched_yield has no preconditions.
            unsafe { libc::sched_yield() };
        }
    }

    fn release(&self) {
        self.lock.store(false, Ordering::Release);
    }
}

impl Default for RuntimeAlloc {
    fn default() -> Self {
        RuntimeAlloc::new()
    }
}

fn class_of(layout: &Layout) -> Option<usize> {
    let size = layout.size().max(layout.align()).max(MIN_CLASS);
    if size > MAX_SMALL {
        return None;
    }
    let c = size.next_power_of_two().trailing_zeros() as usize - MIN_CLASS.trailing_zeros() as usize;
    Some(c)
}

fn map(len: usize) -> *mut u8 {
    // SAFETY: an anonymous private mapping; failure is MAP_FAILED.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        std::ptr::null_mut()
    } else {
        p as *mut u8
    }
}

fn large_len(layout: &Layout) -> usize {
    layout.size().max(1).div_ceil(PAGE) * PAGE
}

unsafe impl GlobalAlloc for RuntimeAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let Some(c) = class_of(&layout) else {
            if layout.align() > PAGE {
                return std::ptr::null_mut();
            }
            return map(large_len(&layout));
        };
        let size = MIN_CLASS << c;
        self.acquire();
        let h = &mut *self.heap.get();
        let p = if h.free[c] != 0 {
            let p = h.free[c];
            h.free[c] = *(p as *const usize);
            p as *mut u8
        } else {
            // Blocks are carved at multiples of their own size inside a
            // page-aligned chunk, so each is aligned to its size (≤ 32 KiB).
            let at = h.chunk_at.div_ceil(size) * size;
            if at + size <= h.chunk_end {
                h.chunk_at = at + size;
                at as *mut u8
            } else {
                let chunk = map(CHUNK);
                if chunk.is_null() {
                    std::ptr::null_mut()
                } else {
                    h.chunk_at = chunk as usize + size;
                    h.chunk_end = chunk as usize + CHUNK;
                    chunk
                }
            }
        };
        self.release();
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        match class_of(&layout) {
            None => {
                libc::munmap(ptr as *mut libc::c_void, large_len(&layout));
            }
            Some(c) => {
                self.acquire();
                let h = &mut *self.heap.get();
                *(ptr as *mut usize) = h.free[c];
                h.free[c] = ptr as usize;
                self.release();
            }
        }
    }
}

#[cfg(feature = "own-allocator")]
#[global_allocator]
static GLOBAL: RuntimeAlloc = RuntimeAlloc::new();

/// Takes the allocator's lock before `fork` (prepare handler), so that no
/// other thread holds it at the moment the child is created.
pub fn lock_for_fork() {
    #[cfg(feature = "own-allocator")]
    GLOBAL.acquire();
}

/// Releases the lock taken by [`lock_for_fork`] (in parent and child).
pub fn unlock_after_fork() {
    #[cfg(feature = "own-allocator")]
    GLOBAL.release();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_aligned_reused_and_large_ones_mapped() {
        let a = RuntimeAlloc::new();
        unsafe {
            let l = Layout::from_size_align(24, 8).unwrap();
            let p = a.alloc(l);
            assert_eq!(p as usize % 32, 0);
            p.write_bytes(7, 24);
            a.dealloc(p, l);
            assert_eq!(a.alloc(l), p, "a freed block is reused");
            let big = Layout::from_size_align(100_000, 16).unwrap();
            let q = a.alloc(big);
            assert_eq!(q as usize % PAGE, 0);
            q.write_bytes(1, 100_000);
            a.dealloc(q, big);
            let odd = Layout::from_size_align(3, 64).unwrap();
            assert_eq!(a.alloc(odd) as usize % 64, 0);
        }
    }
}
