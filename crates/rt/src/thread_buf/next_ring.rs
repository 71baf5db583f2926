//! Moving a busy thread to the larger ring the recorder offers
//! (`tracekit_rt_format::off::NEXT_RING`).

use super::{add_lost, header_u64, make_room, map_file, write_record, ThreadBuf, ACTIVE, BUSY};
use crate::process;
use std::sync::atomic::{compiler_fence, Ordering};
use tracekit_rt_format::{off, ring_lap_flag, HEADER_SIZE, KIND_MOVED, MAGIC, RECORD_SIZE};

/// Moves the thread to the larger ring of `cap` bytes the recorder
/// prepared (see `off::NEXT_RING`): maps it (its pages are already in
/// memory, so this takes a few milliseconds, not the tens a fresh ring's
/// pages would), leaves a `KIND_MOVED` record as the old ring's last, and
/// writes on in the new one. The recorder keeps draining the old ring up to
/// that record, then follows. If the new ring cannot be used, the offer is
/// withdrawn and the thread stays where it is.
pub(super) fn move_to_next_ring(b: &ThreadBuf, cap: u64) {
    let old = b.header.get();
    // Room for the move record itself (waits like any record would).
    if !make_room(b, RECORD_SIZE as u64) {
        return;
    }
    // From here until the new ring is in place, events from signal
    // handlers are counted as lost rather than written anywhere.
    b.state.set(BUSY);
    let limit = b.limit.replace(0);
    compiler_fence(Ordering::SeqCst);
    match map_next_ring(old, cap) {
        Ok(new) => {
            header_u64(new, off::LOST).store(header_u64(old, off::LOST).load(Ordering::Relaxed), Ordering::Relaxed);
            write_record(b, KIND_MOVED, &cap.to_le_bytes(), false, RECORD_SIZE as u64);
            let old_len = HEADER_SIZE + b.cap.get() as usize;
            b.header.set(new);
            b.base.set(new + HEADER_SIZE);
            b.cap.set(cap);
            b.mask.set(cap - 1);
            b.w.set(0);
            b.lap.set(ring_lap_flag(0, cap));
            compiler_fence(Ordering::SeqCst);
            b.limit.set(cap);
            // SAFETY: the old ring's mapping; nothing refers to it any more.
            unsafe { libc::munmap(old as *mut libc::c_void, old_len) };
        }
        Err(e) => {
            header_u64(old, off::NEXT_RING).store(0, Ordering::Release);
            process::warn_once(&format!("cannot move to a larger ring buffer: {e}"));
            b.limit.set(limit);
        }
    }
    b.state.set(ACTIVE);
    add_lost(b, b.pending_lost.replace(0));
}

/// Maps the larger ring the recorder prepared for the thread whose ring's
/// header is at `old`, checking it is what was offered; returns its header's address.
fn map_next_ring(old: usize, cap: u64) -> std::io::Result<usize> {
    let cfg = process::config().ok_or_else(|| std::io::Error::other("tracing not configured"))?;
    let dir = cfg
        .ring_dir
        .as_ref()
        .ok_or_else(|| std::io::Error::other("no ring directory"))?;
    // The names the ring was created with.
    // SAFETY: a header field of our own live ring, written before its magic.
    let tid = unsafe { ((old + off::TID) as *const u32).read() };
    let name = tracekit_rt_format::names::ring_successor_name(process::pid(), tid, process::image());
    let path = dir.join(name);
    let file = std::fs::OpenOptions::new().read(true).write(true).open(&path)?;
    let len = HEADER_SIZE + cap as usize;
    if !cap.is_power_of_two() || file.metadata()?.len() != len as u64 {
        return Err(std::io::Error::other(format!(
            "{}: not a ring of {cap} bytes",
            path.display()
        )));
    }
    // Its pages are already in memory: filling the page tables now saves a
    // fault per page later.
    let h = map_file(&file, len, true)?;
    // SAFETY: the header lies inside the new mapping.
    let ok = unsafe {
        std::slice::from_raw_parts(h as *const u8, 8) == MAGIC
            && ((h + off::CAPACITY) as *const u64).read() == cap
            && ((h + off::READ_POS) as *const u64).read() == 0
    };
    if !ok {
        // SAFETY: our mapping.
        unsafe { libc::munmap(h as *mut libc::c_void, len) };
        return Err(std::io::Error::other(format!(
            "{}: not the ring offered",
            path.display()
        )));
    }
    Ok(h)
}
