//! Per-thread trace buffers, written with plain stores: nothing on the fast
//! path locks or calls the kernel.
//!
//! Two layouts share one fast path (`w` counts bytes written; a record goes
//! to `base + (w & mask)` while `w + 16 <= limit`):
//! - **ring** (under `tracekit record`, `TRACEKIT_RING_DIR` set): a small
//!   shared ring that stays warm in memory. The writer stores the payload,
//!   then the non-zero first word; the recorder copies records up to the
//!   first zero word, zeroes what it copied and publishes its read position.
//!   When the ring is full the event is dropped and counted, or with
//!   `TRACEKIT_OVERFLOW=wait` the writer waits for the recorder (giving up,
//!   and counting, after one second without progress).
//! - **direct** (no recorder): the thread file itself, sized at its full
//!   capacity (sparse) and populated a chunk ahead of the writer; events past
//!   the capacity are dropped and counted.

use crate::clock;
use crate::process;
use crate::thread_slot;
use next_ring::move_to_next_ring;

mod next_ring;
use std::cell::Cell;
use std::sync::atomic::{compiler_fence, AtomicU64, Ordering};
use tracekit_rt_format::{
    off, ring_ext_size, ring_lap_flag, CLOCK_ORDER, HEADER_SIZE, KIND_CONT, KIND_PAD, MAGIC, RECORD_SIZE,
    RING_WITH_LAPS, VERSION,
};

/// Bytes populated ahead of the writer at a time (direct layout).
const CHUNK: usize = 1 << 20;

const UNINIT: u8 = 0;
const ACTIVE: u8 = 1;
const BUSY: u8 = 2;
const FAILED: u8 = 3;

/// The calling thread's buffer. All-zero bytes are its initial state
/// ([`ThreadBuf::zero`]; `thread_slot` relies on it).
#[repr(C)]
pub struct ThreadBuf {
    /// Bytes written so far.
    w: Cell<u64>,
    /// Writing may go on while `w + len <= limit`.
    limit: Cell<u64>,
    /// Address of the data area.
    base: Cell<usize>,
    /// Ring: capacity − 1; direct: all ones.
    mask: Cell<u64>,
    /// Capacity of the data area in bytes.
    cap: Cell<u64>,
    /// Direct layout: bytes populated so far.
    populated: Cell<u64>,
    /// Ring: the lap flag of the records the fast path may write (the fast
    /// path's `limit` never passes the end of the current lap); direct: 0.
    lap: Cell<u64>,
    header: Cell<usize>,
    pending_lost: Cell<u64>,
    ring: Cell<bool>,
    state: Cell<u8>,
}

impl ThreadBuf {
    /// A thread's buffer before its first event: every field zero.
    #[allow(dead_code)] // only the thread_local! fallback off x86-64 Linux calls it
    pub const fn zero() -> ThreadBuf {
        ThreadBuf {
            w: Cell::new(0),
            limit: Cell::new(0),
            base: Cell::new(0),
            mask: Cell::new(0),
            cap: Cell::new(0),
            populated: Cell::new(0),
            lap: Cell::new(0),
            header: Cell::new(0),
            pending_lost: Cell::new(0),
            ring: Cell::new(false),
            state: Cell::new(UNINIT),
        }
    }

    /// True while every field still holds its initial zero.
    #[cfg(test)]
    pub fn is_zero(&self) -> bool {
        [
            self.w.get(),
            self.limit.get(),
            self.mask.get(),
            self.cap.get(),
            self.populated.get(),
            self.lap.get(),
        ] == [0; 6]
            && self.base.get() == 0
            && self.header.get() == 0
            && self.pending_lost.get() == 0
            && !self.ring.get()
            && self.state.get() == UNINIT
    }
}

fn header_u64(h: usize, o: usize) -> &'static AtomicU64 {
    // SAFETY: the header is mapped for the life of the process and 8-aligned.
    unsafe { &*((h + o) as *const AtomicU64) }
}

/// Appends one 16-byte record (the fast path of every call event).
#[inline(always)]
pub fn append(word0: u64, payload: u64) {
    let _ = thread_slot::with(|b| {
        let w = b.w.get();
        if w + RECORD_SIZE as u64 <= b.limit.get() {
            // Read with `w`, before the reservation: a signal handler that
            // traces past the lap's end moves `lap` on, not this record's.
            let lap = b.lap.get();
            // Reserve first: a signal handler that traces between here and
            // the stores below writes after this slot, never over it.
            b.w.set(w + RECORD_SIZE as u64);
            compiler_fence(Ordering::SeqCst);
            let mask = b.mask.get();
            let p = b.base.get() + (w & mask) as usize;
            // SAFETY: p..p+16 lies inside our data area (records are 16-aligned
            // and the ring capacity is a multiple of 16).
            unsafe {
                prefetch_for_write(b.base.get() + ((w + PREFETCH_AHEAD) & mask) as usize);
                ((p + 8) as *mut u64).write(payload);
                compiler_fence(Ordering::SeqCst);
                (p as *mut u64).write(word0 ^ lap);
            }
        } else {
            append_full(word0, payload);
        }
    });
}

/// How far ahead of the record being written the fast path asks for a
/// cache line: the recorder read the ring's lines a lap ago, so without this
/// each new line's first store waits for the line to come back.
pub(crate) const PREFETCH_AHEAD: u64 = 16 << 10;

/// Offsets of the fields the assembly hooks (`hooks.rs`) use.
pub(crate) const OFFSET_W: usize = std::mem::offset_of!(ThreadBuf, w);
/// See [`OFFSET_W`].
pub(crate) const OFFSET_LIMIT: usize = std::mem::offset_of!(ThreadBuf, limit);
/// See [`OFFSET_W`].
pub(crate) const OFFSET_BASE: usize = std::mem::offset_of!(ThreadBuf, base);
/// See [`OFFSET_W`].
pub(crate) const OFFSET_MASK: usize = std::mem::offset_of!(ThreadBuf, mask);
/// See [`OFFSET_W`].
pub(crate) const OFFSET_LAP: usize = std::mem::offset_of!(ThreadBuf, lap);

/// Asks for the cache line at `addr` in a writable state, without waiting
/// for it. Never faults, so `addr` may lie past a direct file's mapping.
#[inline(always)]
fn prefetch_for_write(addr: usize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing architecturally and cannot fault;
    // CPUs without PREFETCHW run it as a no-op.
    unsafe {
        core::arch::asm!("prefetchw [{0}]", in(reg) addr, options(nostack, preserves_flags, readonly));
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = addr;
}

/// [`append`] when the fast path has no room: out of line, so the fast
/// path needs no stack frame.
#[cold]
#[inline(never)]
fn append_full(word0: u64, payload: u64) {
    let _ = thread_slot::with(|b| append_slow(b, word0, &payload.to_le_bytes(), false));
}

/// Appends an extended event: a header record then `body`, padded to 16
/// bytes in a thread file, 8 bytes per slot in a ring.
pub fn append_ext(word0: u64, body: &[u8]) {
    let _ = thread_slot::with(|b| append_slow(b, word0, body, true));
}

#[cold]
fn append_slow(b: &ThreadBuf, mut word0: u64, payload: &[u8], ext: bool) {
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
            // Setting the buffer up (creating and mapping the file, faulting
            // a ring's pages in: milliseconds) is time of no function's: the
            // thread's first event is stamped after it.
            if clock::kind() != CLOCK_ORDER {
                word0 = clock::now() << 4 | (word0 & 0xf);
            }
        }
        ACTIVE => {
            // The start of a lap: the one place a ring may be swapped for
            // the larger one the recorder offers.
            if b.ring.get() && b.w.get() & b.mask.get() == 0 && b.w.get() != 0 {
                let next = header_u64(b.header.get(), off::NEXT_RING).load(Ordering::Acquire);
                if next != 0 {
                    move_to_next_ring(b, next);
                }
            }
        }
        BUSY => {
            b.pending_lost.set(b.pending_lost.get() + 1);
            return;
        }
        _ => return,
    }
    let need = if !ext {
        RECORD_SIZE
    } else if b.ring.get() {
        ring_ext_size(payload.len())
    } else {
        RECORD_SIZE + tracekit_rt_format::padded(payload.len())
    } as u64;
    if need > b.cap.get() / 2 {
        add_lost(b, 1);
        return;
    }
    // A ring record may not straddle the end: pad up to it first.
    if b.ring.get() {
        let at = b.w.get() & b.mask.get();
        if at + need > b.cap.get() {
            let pad = b.cap.get() - at;
            if !make_room(b, pad + need) {
                add_lost(b, 1);
                return;
            }
            // One pad record per slot: every slot's first word is written
            // on every lap (see `tracekit_rt_format`).
            for _ in 0..pad / RECORD_SIZE as u64 {
                write_record(b, KIND_PAD, &0u64.to_le_bytes(), false, RECORD_SIZE as u64);
            }
        }
    }
    if !make_room(b, need) {
        add_lost(b, 1);
        return;
    }
    write_record(b, word0, payload, ext, need);
}

fn write_record(b: &ThreadBuf, word0: u64, payload: &[u8], ext: bool, len: u64) {
    let w = b.w.get();
    let lap = if b.ring.get() { ring_lap_flag(w, b.cap.get()) } else { 0 };
    b.w.set(w + len);
    compiler_fence(Ordering::SeqCst);
    let p = b.base.get() + (w & b.mask.get()) as usize;
    // SAFETY: p..p+len is inside the data area and reserved for us.
    unsafe {
        if ext && b.ring.get() {
            // The body 8 bytes per slot, each slot's first word flagged for
            // this lap like the record's own, all before that first word.
            for (k, piece) in payload.chunks(8).enumerate() {
                let q = p + RECORD_SIZE * (k + 1);
                let mut word = [0u8; 8];
                word[..piece.len()].copy_from_slice(piece);
                ((q + 8) as *mut u64).write(u64::from_le_bytes(word));
                (q as *mut u64).write(KIND_CONT ^ lap);
            }
            ((p + 8) as *mut u64).write(payload.len() as u64);
        } else if ext {
            ((p + 8) as *mut u64).write(payload.len() as u64);
            std::ptr::copy_nonoverlapping(payload.as_ptr(), (p + RECORD_SIZE) as *mut u8, payload.len());
        } else {
            ((p + 8) as *mut u64).write(u64::from_le_bytes(payload.try_into().unwrap_or([0; 8])));
        }
        compiler_fence(Ordering::SeqCst);
        (p as *mut u64).write(word0 ^ lap);
    }
}

/// Makes `need` bytes writable after `w`; false when they cannot be. In a
/// ring, the fast path's limit also stops at the end of the current lap, so
/// the first record of each lap comes here and moves `lap` on.
fn make_room(b: &ThreadBuf, need: u64) -> bool {
    let want = b.w.get() + need;
    if want <= b.limit.get() {
        return true;
    }
    if b.ring.get() {
        let read = header_u64(b.header.get(), off::READ_POS);
        let mut limit = read.load(Ordering::Acquire) + b.cap.get();
        if want > limit && process::wait_on_overflow() {
            let mut last = read.load(Ordering::Acquire);
            let mut idle_ms = 0;
            let timeout_ms = process::DRAIN_TIMEOUT.as_millis() as u32;
            while want > limit && idle_ms < timeout_ms {
                std::thread::sleep(std::time::Duration::from_micros(200));
                let now = read.load(Ordering::Acquire);
                if now == last {
                    idle_ms += 1; // ~1 ms per idle round (200 µs sleep, rounded up by the scheduler)
                } else {
                    idle_ms = 0;
                    last = now;
                }
                limit = now + b.cap.get();
            }
            if want > limit {
                process::drain_stalled();
            }
        }
        let w = b.w.get();
        let cap = b.cap.get();
        b.limit.set(limit.min((w | (cap - 1)) + 1));
        b.lap.set(ring_lap_flag(w, cap));
        want <= limit
    } else {
        if want > b.cap.get() {
            return false;
        }
        let start = b.populated.get();
        let end = (want.max(start + CHUNK as u64)).min(b.cap.get());
        populate(b.base.get() + start as usize, (end - start) as usize);
        b.populated.set(end);
        b.limit.set(end);
        true
    }
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
        header_u64(h, off::LOST).fetch_add(n, Ordering::Relaxed);
    }
}

fn create(b: &ThreadBuf) -> std::io::Result<()> {
    let cfg = process::config().ok_or_else(|| std::io::Error::other("tracing not configured"))?;
    // SAFETY: gettid has no preconditions.
    let tid = unsafe { libc::syscall(libc::SYS_gettid) } as u32;
    let pid = process::pid();
    let (path, cap, ring) = match (&cfg.ring_dir, cfg.ring_bytes) {
        (Some(dir), cap) => (
            dir.join(tracekit_rt_format::ring_file_name(pid, tid, process::image())),
            cap,
            true,
        ),
        (None, _) => (
            cfg.dir
                .join(tracekit_rt_format::thread_file_name(pid, tid, process::image())),
            cfg.buffer_bytes,
            false,
        ),
    };
    let total = HEADER_SIZE + cap;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&path)?;
    file.set_len(total as u64)?;
    let h = map_file(&file, total, false)?;
    // SAFETY: writing the header inside the fresh mapping.
    unsafe {
        let put32 = |o: usize, v: u32| ((h + o) as *mut u32).write_unaligned(v);
        let put64 = |o: usize, v: u64| ((h + o) as *mut u64).write_unaligned(v);
        put32(off::VERSION, VERSION);
        put32(off::HEADER_SIZE, HEADER_SIZE as u32);
        put32(off::PID, pid);
        put32(off::TID, tid);
        put32(off::PPID, libc::getppid() as u32);
        put32(off::CLOCK, clock::kind());
        put64(off::IMAGE, process::image());
        put64(off::CAPACITY, cap as u64);
        put64(off::CLOCK_AT_CREATE, clock::now());
        put64(off::MONO_AT_CREATE, clock::monotonic_ns());
        put64(off::REAL_AT_CREATE, clock::realtime_ns());
        put32(off::RING, if ring { RING_WITH_LAPS } else { 0 });
        let (parent_pid, parent, stamp) = process::take_forked_from();
        if parent != 0 {
            put32(off::PPID, parent_pid);
            put32(off::FORKED_FROM_TID, parent);
            put64(off::FORK_CLOCK, stamp);
        }
        let name = thread_name(tid);
        let n = name.len().min(15);
        std::ptr::copy_nonoverlapping(name.as_ptr(), (h + off::NAME) as *mut u8, n);
        // The magic goes last: a reader never sees a half-written header.
        compiler_fence(Ordering::SeqCst);
        std::ptr::copy_nonoverlapping(MAGIC.as_ptr(), (h + off::MAGIC) as *mut u8, 8);
    }
    b.header.set(h);
    b.base.set(h + HEADER_SIZE);
    b.cap.set(cap as u64);
    b.w.set(0);
    b.populated.set(0);
    b.ring.set(ring);
    if ring {
        b.mask.set(cap as u64 - 1);
        b.limit.set(cap as u64);
        b.lap.set(ring_lap_flag(0, cap as u64));
        populate(h + HEADER_SIZE, cap);
    } else {
        b.mask.set(u64::MAX);
        b.limit.set(0);
        b.lap.set(0);
    }
    add_lost(b, b.pending_lost.replace(0));
    Ok(())
}

/// Maps the first `len` bytes of `file` shared, for reading and writing
/// (stores go to the page cache, where the recorder and a crash's
/// aftermath both see them); with `populate`, the page tables are filled
/// now. Returns the mapping's address; it is never unmapped but by a move
/// to a larger ring.
fn map_file(file: &std::fs::File, len: usize, populate: bool) -> std::io::Result<usize> {
    use std::os::fd::AsRawFd;
    let flags = libc::MAP_SHARED | if populate { libc::MAP_POPULATE } else { 0 };
    // SAFETY: a new mapping of an open file, which the caller sized.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            flags,
            file.as_raw_fd(),
            0,
        )
    };
    if base == libc::MAP_FAILED {
        return Err(std::io::Error::last_os_error());
    }
    Ok(base as usize)
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
    let _ = thread_slot::with(|b| {
        b.w.set(0);
        b.limit.set(0);
        b.header.set(0);
        b.pending_lost.set(0);
        b.state.set(UNINIT);
    });
}
