//! Per-thread trace buffers: a sparse file mapped shared, written with plain
//! stores. Nothing on the fast path locks or calls the kernel; the slow path
//! runs once per thread (to create the file) and once per populated chunk.

use crate::clock;
use crate::process;
use std::cell::Cell;
use std::sync::atomic::{compiler_fence, AtomicU64, Ordering};
use tracekit_rt_format::{off, HEADER_SIZE, MAGIC, RECORD_SIZE, VERSION};

/// Bytes populated ahead of the writer at a time.
const CHUNK: usize = 1 << 20;

const UNINIT: u8 = 0;
const ACTIVE: u8 = 1;
const BUSY: u8 = 2;
const FAILED: u8 = 3;

/// The calling thread's buffer. `pos..end` is the populated, free part.
pub struct ThreadBuf {
    pos: Cell<usize>,
    end: Cell<usize>,
    limit: Cell<usize>,
    header: Cell<usize>,
    state: Cell<u8>,
    pending_lost: Cell<u64>,
}

thread_local! {
    static BUF: ThreadBuf = const {
        ThreadBuf {
            pos: Cell::new(0),
            end: Cell::new(0),
            limit: Cell::new(0),
            header: Cell::new(0),
            state: Cell::new(UNINIT),
            pending_lost: Cell::new(0),
        }
    };
}

/// Appends one 16-byte record (the fast path of every call event).
#[inline(always)]
pub fn append(word0: u64, payload: u64) {
    let _ = BUF.try_with(|b| {
        let p = b.pos.get();
        if p + RECORD_SIZE <= b.end.get() {
            // Reserve first: a signal handler that traces between here and
            // the stores below writes after this slot, never over it.
            b.pos.set(p + RECORD_SIZE);
            compiler_fence(Ordering::SeqCst);
            // SAFETY: p..p+16 lies in the populated part of our mapping.
            unsafe {
                ((p + 8) as *mut u64).write(payload);
                compiler_fence(Ordering::SeqCst);
                (p as *mut u64).write(word0);
            }
        } else {
            append_slow(b, word0, &payload.to_le_bytes(), false);
        }
    });
}

/// Appends an extended event: a header record then `body` padded to 16 bytes.
pub fn append_ext(word0: u64, body: &[u8]) {
    let _ = BUF.try_with(|b| append_slow(b, word0, body, true));
}

#[cold]
fn append_slow(b: &ThreadBuf, word0: u64, payload: &[u8], ext: bool) {
    match b.state.get() {
        UNINIT => {
            b.state.set(BUSY);
            match create(b) {
                Ok(()) => b.state.set(ACTIVE),
                Err(e) => {
                    b.state.set(FAILED);
                    process::warn_once(&format!("cannot create thread trace file: {e}"));
                }
            }
            if b.state.get() != ACTIVE {
                return;
            }
        }
        ACTIVE => {}
        BUSY => {
            b.pending_lost.set(b.pending_lost.get() + 1);
            return;
        }
        _ => return,
    }
    let need = if ext { RECORD_SIZE + tracekit_rt_format::padded(payload.len()) } else { RECORD_SIZE };
    let p = b.pos.get();
    if p + need > b.end.get() && !grow(b, p + need) {
        add_lost(b, 1);
        return;
    }
    b.pos.set(p + need);
    compiler_fence(Ordering::SeqCst);
    // SAFETY: p..p+need is populated and ours.
    unsafe {
        if ext {
            ((p + 8) as *mut u64).write(payload.len() as u64);
            std::ptr::copy_nonoverlapping(payload.as_ptr(), (p + RECORD_SIZE) as *mut u8, payload.len());
        } else {
            ((p + 8) as *mut u64).write(u64::from_le_bytes(payload.try_into().unwrap_or([0; 8])));
        }
        compiler_fence(Ordering::SeqCst);
        (p as *mut u64).write(word0);
    }
}

/// Populates the next chunk(s) so that `want` bytes fit; false when the
/// buffer's capacity is exhausted.
fn grow(b: &ThreadBuf, want: usize) -> bool {
    if want > b.limit.get() {
        return false;
    }
    let start = b.end.get();
    let new_end = (want.max(start + CHUNK)).min(b.limit.get());
    populate(start, new_end - start);
    b.end.set(new_end);
    true
}

fn populate(addr: usize, len: usize) {
    const MADV_POPULATE_WRITE: libc::c_int = 23;
    // SAFETY: the range lies inside our own mapping.
    let r = unsafe { libc::madvise(addr as *mut libc::c_void, len, MADV_POPULATE_WRITE) };
    if r != 0 {
        // Older kernels: fault the pages in by hand.
        let mut a = addr;
        while a < addr + len {
            // SAFETY: inside our mapping; the page is still all zeros.
            unsafe { (a as *mut u8).write_volatile(0) };
            a += 4096;
        }
    }
}

fn add_lost(b: &ThreadBuf, n: u64) {
    let h = b.header.get();
    if h != 0 {
        // SAFETY: the header is mapped for the life of the process.
        let lost = unsafe { &*((h + off::LOST) as *const AtomicU64) };
        lost.fetch_add(n, Ordering::Relaxed);
    }
}

fn create(b: &ThreadBuf) -> std::io::Result<()> {
    let cfg = process::config().ok_or_else(|| std::io::Error::other("tracing not configured"))?;
    // SAFETY: gettid has no preconditions.
    let tid = unsafe { libc::syscall(libc::SYS_gettid) } as u32;
    let pid = process::pid();
    let path = cfg.dir.join(tracekit_rt_format::thread_file_name(pid, tid, process::image()));
    let total = HEADER_SIZE + cfg.buffer_bytes;
    let file = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&path)?;
    file.set_len(total as u64)?;
    use std::os::fd::AsRawFd;
    // SAFETY: mapping a file we just sized; MAP_SHARED keeps stores in the page cache.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            total,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            file.as_raw_fd(),
            0,
        )
    };
    if base == libc::MAP_FAILED {
        return Err(std::io::Error::last_os_error());
    }
    let h = base as usize;
    // SAFETY: writing the header inside the fresh mapping.
    unsafe {
        let put32 = |o: usize, v: u32| ((h + o) as *mut u32).write_unaligned(v);
        let put64 = |o: usize, v: u64| ((h + o) as *mut u64).write_unaligned(v);
        std::ptr::copy_nonoverlapping(MAGIC.as_ptr(), (h + off::MAGIC) as *mut u8, 8);
        put32(off::VERSION, VERSION);
        put32(off::HEADER_SIZE, HEADER_SIZE as u32);
        put32(off::PID, pid);
        put32(off::TID, tid);
        put32(off::PPID, libc::getppid() as u32);
        put32(off::CLOCK, clock::KIND);
        put64(off::IMAGE, process::image());
        put64(off::CAPACITY, cfg.buffer_bytes as u64);
        put64(off::CLOCK_AT_CREATE, clock::now());
        put64(off::MONO_AT_CREATE, clock::monotonic_ns());
        put64(off::REAL_AT_CREATE, clock::realtime_ns());
        let parent = process::take_forked_from();
        if parent != 0 {
            put32(off::FORKED_FROM_TID, parent);
            put64(off::FORK_CLOCK, clock::now());
        }
        let name = thread_name(tid);
        let n = name.len().min(15);
        std::ptr::copy_nonoverlapping(name.as_ptr(), (h + off::NAME) as *mut u8, n);
    }
    b.header.set(h);
    b.pos.set(h + HEADER_SIZE);
    b.end.set(h + HEADER_SIZE);
    b.limit.set(h + total);
    add_lost(b, b.pending_lost.replace(0));
    Ok(())
}

fn thread_name(tid: u32) -> Vec<u8> {
    std::fs::read(format!("/proc/self/task/{tid}/comm"))
        .map(|mut v| {
            while v.last() == Some(&b'\n') {
                v.pop();
            }
            v
        })
        .unwrap_or_default()
}

/// Forgets the calling thread's buffer (after `fork`, in the child, so the
/// child writes its own file instead of its parent's).
pub fn reset_after_fork() {
    let _ = BUF.try_with(|b| {
        b.pos.set(0);
        b.end.set(0);
        b.limit.set(0);
        b.header.set(0);
        b.pending_lost.set(0);
        b.state.set(UNINIT);
    });
}
