//! The recorder's drainer: reads records from the runtime's per-thread ring
//! buffers while the program runs, codes them into compact blocks
//! (`tracekit_rt_format::block`: delta-coded time stamps and addresses,
//! a return from a function that called nothing without its address:
//! 1.5–2.8 bytes per call event) and appends the blocks to the recording's
//! thread files with plain `write`s; then everything left once the program
//! has ended (normally or not).
//!
//! Memory stays bounded whatever the length of the run: each live ring is
//! mapped (its capacity), each has one block being built (at most
//! `BLOCK_EVENTS` events) and one output buffer of at most [`OUT_FLUSH`]
//! bytes; a ring whose thread has ended is drained one last time, unmapped
//! and deleted. Nothing that grows with the recording is ever mapped.

use crate::direct_out::DirectOut;
use ring_map::{clear_ring_words, growth_due, map_shared, prepare_ring, Growth, RingMap};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tracekit_rt_format::block::{BlockEncoder, BLOCK_VERSION};
use tracekit_rt_format::names::{self, RecordingFile};
use tracekit_rt_format::{
    off, ring_ext_size, ring_lap_flag, HEADER_SIZE, KIND_CONT, KIND_ENTER, KIND_EXIT, KIND_EXT, KIND_MOVED, LAP_FLAG,
    MAGIC, RECORD_SIZE, RING_WITH_LAPS,
};

/// Output bytes gathered before a `write` (see [`DirectOut`]).
const OUT_FLUSH: usize = 256 << 10;
/// How often ended threads are looked for.
const SWEEP_EVERY: Duration = Duration::from_millis(100);

/// A ring file being drained and the thread file it fills.
struct Ring {
    map: RingMap,
    read: u64,
    pid: u32,
    tid: u32,
    out: DirectOut,
    encoder: BlockEncoder,
    /// The body of the extended record being coded.
    body: Vec<u8>,
    /// Events coded from this ring so far.
    events: u64,
    /// Capacity of the larger ring to offer a busy thread (0: never).
    grow_to: u64,
    /// Where that ring goes (`names::ring_successor_name`).
    next_path: PathBuf,
    growth: Growth,
}

impl Ring {
    fn open(path: &Path, out_dir: &Path, grow_to: u64) -> std::io::Result<Option<Ring>> {
        let f = std::fs::OpenOptions::new().read(true).write(true).open(path)?;
        let len = f.metadata()?.len() as usize;
        if len <= HEADER_SIZE {
            return Ok(None);
        }
        let mut map = RingMap {
            path: path.to_path_buf(),
            ptr: map_shared(&f, len, false)?,
            len,
            cap: 0,
        };
        if map.header()[..8] != MAGIC {
            return Ok(None);
        }
        let header = map.header();
        let cap = u64::from_le_bytes(header[off::CAPACITY..off::CAPACITY + 8].try_into().unwrap_or([0; 8]));
        let kind = u32::from_le_bytes(header[off::RING..off::RING + 4].try_into().unwrap_or([0; 4]));
        if kind != RING_WITH_LAPS || !cap.is_power_of_two() || cap as usize > len - HEADER_SIZE {
            return Err(std::io::Error::other(format!(
                "{}: not a ring this recorder can read (ring kind {kind}, capacity {cap}); \
                 is TRACEKIT_RT a runtime from another tracekit version?",
                path.display()
            )));
        }
        let mut h = header.to_vec();
        clear_ring_words(&mut h);
        h[off::RING..off::RING + 4].fill(0);
        h[off::VERSION..off::VERSION + 4].copy_from_slice(&BLOCK_VERSION.to_le_bytes());
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let Some(RecordingFile::Ring { pid, tid, image }) = names::parse(name) else {
            return Ok(None);
        };
        let out = DirectOut::create(
            &out_dir.join(names::thread_file_for_ring(pid, tid, image)),
            &h,
            OUT_FLUSH,
        )?;
        map.cap = cap;
        Ok(Some(Ring {
            map,
            read: 0,
            pid,
            tid,
            out,
            encoder: BlockEncoder::new(),
            body: Vec::new(),
            events: 0,
            grow_to,
            next_path: path.with_file_name(names::ring_successor_name(pid, tid, image)),
            growth: if grow_to > cap { Growth::Allowed } else { Growth::Over },
        }))
    }

    /// Codes the complete records written since the last call (at most one
    /// ring's worth, so one busy thread cannot starve the others) and
    /// publishes the read position; returns the bytes taken. Slots are
    /// only read: the lap flag tells the next lap's records from these.
    fn drain(&mut self) -> std::io::Result<u64> {
        let mut taken = 0;
        while taken < self.map.cap {
            let cap = self.map.cap;
            let start = self.read % cap;
            let lap = ring_lap_flag(self.read, cap);
            let end = cap.min(start + (1 << 20));
            let mut at = start;
            let mut moved = false;
            // A contiguous run of complete records, at most up to the ring's end.
            while at < end {
                // Calls, the common case, in one run with the coder's state
                // in registers; it stops at anything else.
                let ptr = self.map.ptr;
                let added = self.encoder.push_calls(|| {
                    if at >= end {
                        return None;
                    }
                    let w0 = word0(ptr, at, lap);
                    let kind = w0 & 0xf;
                    // Not written on this lap, or not a call.
                    if w0 & LAP_FLAG != 0 || (kind != KIND_ENTER && kind != KIND_EXIT) {
                        return None;
                    }
                    let addr = payload(ptr, at);
                    at += RECORD_SIZE as u64;
                    Some((w0 >> 4, kind == KIND_EXIT, addr))
                });
                self.events += added as u64;
                if self.encoder.is_full() {
                    self.finish_block()?;
                    continue;
                }
                if at >= end {
                    break;
                }
                let w0 = word0(self.map.ptr, at, lap);
                // Not yet written on this lap (or never written at all).
                if w0 & LAP_FLAG != 0 || w0 & 0xf == 0 {
                    break;
                }
                let len = match w0 & 0xf {
                    // Completed since `push_calls` looked: code it there.
                    KIND_ENTER | KIND_EXIT => continue,
                    KIND_EXT => {
                        let body_len = payload(self.map.ptr, at) as usize;
                        let len = ring_ext_size(body_len) as u64;
                        if at + len > cap || !self.gather_body(at, len, lap, body_len) {
                            break; // not a record the runtime could write: wait
                        }
                        self.encoder.push_ext(w0 >> 4, &self.body);
                        self.events += 1;
                        len
                    }
                    KIND_MOVED => {
                        // The ring's last record: the writer went on in the
                        // larger ring (see `follow_move`).
                        moved = true;
                        at += RECORD_SIZE as u64;
                        break;
                    }
                    // Padding (one record per slot in a ring), or a kind
                    // this drainer does not know: one slot.
                    _ => RECORD_SIZE as u64,
                };
                // A block this filled is finished at the top of the loop.
                at += len;
            }
            let n = at - start;
            if n == 0 {
                break;
            }
            self.read += n;
            taken += n;
            self.map.word(off::READ_POS).store(self.read, Ordering::Release);
            if moved {
                self.follow_move()?;
            }
        }
        Ok(taken)
    }

    /// Goes on in the larger ring the writer moved to, from its start; the
    /// old ring is deleted.
    fn follow_move(&mut self) -> std::io::Result<()> {
        match std::mem::replace(&mut self.growth, Growth::Over) {
            Growth::Offered(next) => {
                let old = std::mem::replace(&mut self.map, next);
                let _ = std::fs::remove_file(&old.path);
                self.read = 0;
                Ok(())
            }
            _ => Err(std::io::Error::other(format!(
                "{}: the thread moved to a larger ring that was never offered",
                self.map.path.display()
            ))),
        }
    }

    /// Bytes of ring this thread holds: its ring's, and the larger one's
    /// once that is being prepared.
    fn ring_bytes(&self) -> u64 {
        match self.growth {
            Growth::Preparing(_) | Growth::Offered(_) => self.map.cap + self.grow_to,
            Growth::Allowed | Growth::Over => self.map.cap,
        }
    }

    /// Moves a busy thread's ring on: once the ring has lapped
    /// [`ring_map::GROW_AFTER_LAPS`] times, and if the rings of all threads take
    /// `all_rings` ≤ [`ring_map::GROW_WITHIN`] bytes, a
    /// helper thread prepares a larger one (creating it and faulting its
    /// pages in takes tens of milliseconds, which the drainer cannot spend
    /// while the thread writes); once it is ready, it is offered to the
    /// writer (`off::NEXT_RING`).
    fn tend_growth(&mut self, all_rings: &mut u64) {
        match &self.growth {
            Growth::Allowed if growth_due(self.read, self.map.cap, *all_rings) => {
                *all_rings += self.grow_to;
                let path = self.next_path.clone();
                let header = self.map.header().to_vec();
                let cap = self.grow_to;
                self.growth = Growth::Preparing(std::thread::spawn(move || prepare_ring(&path, &header, cap)));
            }
            Growth::Preparing(h) if h.is_finished() => {
                let Growth::Preparing(h) = std::mem::replace(&mut self.growth, Growth::Over) else {
                    return;
                };
                match h.join() {
                    Ok(Ok(next)) => {
                        self.map.word(off::NEXT_RING).store(next.cap, Ordering::Release);
                        self.growth = Growth::Offered(next);
                    }
                    Ok(Err(e)) => eprintln!(
                        "tracekit record: warning: thread {} keeps its ring buffer's size: {e}",
                        self.tid
                    ),
                    Err(_) => {}
                }
            }
            _ => {}
        }
    }

    /// Deletes the ring file and any larger ring prepared for it.
    fn remove_files(mut self) {
        let _ = std::fs::remove_file(&self.map.path);
        if let Growth::Preparing(h) = std::mem::replace(&mut self.growth, Growth::Over) {
            if let Ok(Ok(next)) = h.join() {
                self.growth = Growth::Offered(next);
            }
        }
        if let Growth::Offered(next) = &self.growth {
            let _ = std::fs::remove_file(&next.path);
        }
    }

    /// Copies into `body` the `body_len` bytes of the extended record of
    /// `len` bytes at `at`, 8 from each slot after its first; false when a
    /// slot is not a continuation written on this lap (the runtime writes
    /// them all before the record's first word).
    fn gather_body(&mut self, at: u64, len: u64, lap: u64, body_len: usize) -> bool {
        self.body.clear();
        for slot in (at + RECORD_SIZE as u64..at + len).step_by(RECORD_SIZE) {
            if word0(self.map.ptr, slot, lap) != KIND_CONT {
                return false;
            }
            self.body.extend_from_slice(&payload(self.map.ptr, slot).to_le_bytes());
        }
        self.body.truncate(body_len);
        true
    }

    /// Hands the block being built to the thread file's buffer.
    fn finish_block(&mut self) -> std::io::Result<()> {
        self.encoder.finish_with(|bytes| self.out.append(bytes))
    }

    /// Ends the block being built and writes everything gathered.
    fn flush(&mut self) -> std::io::Result<()> {
        self.finish_block()?;
        self.out.flush()
    }

    /// Copies the ring's lost-event count into the thread file's header and
    /// adds this ring's events and losses to `totals`.
    fn write_lost(&mut self, totals: &mut DrainTotals) -> std::io::Result<()> {
        let lost = self.map.word(off::LOST).load(Ordering::Acquire);
        self.out.write_header_at(&lost.to_le_bytes(), off::LOST as u64)?;
        totals.events += self.events;
        totals.lost += lost;
        // The ring mapped is the larger one once the thread has moved.
        totals.moved += u64::from(self.map.path == self.next_path);
        Ok(())
    }

    /// Whether the ring's thread has ended (its task is gone or a zombie).
    fn thread_ended(&self) -> bool {
        match std::fs::read_to_string(format!("/proc/{}/task/{}/stat", self.pid, self.tid)) {
            Ok(stat) => stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().next())
                .is_some_and(|state| state == "Z" || state == "X"),
            Err(_) => true,
        }
    }
}

/// The first word of the record at data offset `at` of the ring mapped at
/// `ptr`, with this lap's flag taken off (`lap` = [`ring_lap_flag`] of the
/// read position).
#[inline(always)]
fn word0(ptr: *mut u8, at: u64, lap: u64) -> u64 {
    // SAFETY: 16-aligned slot inside the data area of a live mapping; the
    // writer stores the first word last, so a word of this lap means the
    // record is complete.
    unsafe { (*(ptr.add(HEADER_SIZE + at as usize) as *const AtomicU64)).load(Ordering::Acquire) ^ lap }
}

/// The payload word of the complete record at data offset `at`.
#[inline(always)]
fn payload(ptr: *mut u8, at: u64) -> u64 {
    // SAFETY: the payload word of a complete record's slot in a live mapping.
    unsafe { (ptr.add(HEADER_SIZE + at as usize + 8) as *const u64).read_volatile() }
}

/// What a drainer took from the rings, over the whole run: the counts that
/// `tracekit record` reports at the end without reading the recording back.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DrainTotals {
    /// Events coded into the thread files.
    pub events: u64,
    /// Events the runtime dropped because a ring was full (`--overflow drop`).
    pub lost: u64,
    /// Threads that moved to a larger ring.
    pub moved: u64,
}

/// Copies ring buffers into thread files on a background thread.
pub struct Drainer {
    stop: Arc<AtomicBool>,
    handle: Option<std::thread::JoinHandle<std::io::Result<DrainTotals>>>,
}

/// What one [`poll`] took: the bytes, and the largest share of one ring's
/// capacity taken from that ring (0 to 1).
#[derive(Debug, Clone, Copy, Default)]
struct Taken {
    bytes: u64,
    fullest: f64,
}

fn poll(ring_dir: &Path, out_dir: &Path, grow_to: u64, rings: &mut HashMap<PathBuf, Ring>) -> std::io::Result<Taken> {
    if let Ok(entries) = std::fs::read_dir(ring_dir) {
        for e in entries.flatten() {
            let p = e.path();
            let is_ring = p.extension().is_some_and(|x| x == "tkr");
            if is_ring && !rings.contains_key(&p) {
                if let Some(r) = Ring::open(&p, out_dir, grow_to)? {
                    rings.insert(p, r);
                }
            }
        }
    }
    let mut taken = Taken::default();
    let mut all_rings = rings.values().map(Ring::ring_bytes).sum();
    for r in rings.values_mut() {
        let n = r.drain()?;
        if n == 0 {
            // Idle: what was coded so far goes to the file.
            r.flush()?;
        }
        r.tend_growth(&mut all_rings);
        taken.bytes += n;
        taken.fullest = taken.fullest.max(n as f64 / r.map.cap as f64);
    }
    Ok(taken)
}

/// How long the drainer rests between polls while threads are writing.
///
/// A drainer that polls again at once follows the writer a few records
/// behind: it pays each poll's fixed costs (listing the ring directory,
/// flushing) over and over, and keeps the second core busy, which the
/// program may need or share (on this project's VMs a busy neighbour core
/// slows a traced loop by 5–8%). Resting lets records gather: after each
/// poll the drainer sleeps for the time the fullest ring takes, at the rate
/// just seen, to fill an eighth of its capacity, at most [`MAX_REST`], and
/// not at all after a poll that found a ring more than half full. A pause
/// shorter than [`MIN_REST`] is not taken: the kernel would oversleep it,
/// and a small ring written fast could fill.
#[derive(Debug)]
struct Rest {
    last_poll: Instant,
}

/// The longest pause between polls.
const MAX_REST: Duration = Duration::from_millis(1);
/// The shortest pause worth a sleep.
const MIN_REST: Duration = Duration::from_micros(100);

impl Rest {
    fn new() -> Rest {
        Rest {
            last_poll: Instant::now(),
        }
    }

    /// The pause after a poll that took `t` (nothing taken: the longest).
    fn after(&mut self, t: Taken) -> Duration {
        let since = self.last_poll.elapsed();
        self.last_poll = Instant::now();
        rest_for(t, since)
    }
}

/// [`Rest::after`] for a poll that took `t` of what the rings gathered in `since`.
fn rest_for(t: Taken, since: Duration) -> Duration {
    if t.bytes == 0 || t.fullest <= 0.0 {
        return MAX_REST;
    }
    if t.fullest > 0.5 {
        // The ring may have filled and its writer waited: the rate seen is
        // only a lower bound.
        return Duration::ZERO;
    }
    let to_an_eighth = since.mul_f64((0.125 / t.fullest).min(1e6));
    if to_an_eighth < MIN_REST {
        Duration::ZERO
    } else {
        to_an_eighth.min(MAX_REST)
    }
}

/// Drains, closes and deletes the rings whose threads have ended.
fn sweep(rings: &mut HashMap<PathBuf, Ring>, totals: &mut DrainTotals) -> std::io::Result<()> {
    let ended: Vec<PathBuf> = rings
        .iter()
        .filter(|(_, r)| r.thread_ended())
        .map(|(p, _)| p.clone())
        .collect();
    for p in ended {
        if let Some(mut r) = rings.remove(&p) {
            r.drain()?;
            r.flush()?;
            r.write_lost(totals)?;
            r.remove_files();
        }
    }
    Ok(())
}

impl Drainer {
    /// Starts draining rings that appear in `ring_dir` into `out_dir`,
    /// moving a thread that laps its ring 128 (`ring_map::GROW_AFTER_LAPS`) times to a
    /// ring of `grow_to` bytes (a power of two; no move when the ring is
    /// that large already, or when `grow_to` is 0).
    pub fn start(ring_dir: PathBuf, out_dir: PathBuf, grow_to: u64) -> Drainer {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let handle = std::thread::spawn(move || {
            let mut rings = HashMap::new();
            let mut totals = DrainTotals::default();
            let mut last_sweep = Instant::now();
            let mut rest = Rest::new();
            loop {
                let stopping = flag.load(Ordering::Acquire);
                let n = poll(&ring_dir, &out_dir, grow_to, &mut rings)?;
                if stopping {
                    break;
                }
                if last_sweep.elapsed() >= SWEEP_EVERY {
                    sweep(&mut rings, &mut totals)?;
                    last_sweep = Instant::now();
                }
                let pause = rest.after(n);
                if !pause.is_zero() {
                    std::thread::sleep(pause);
                }
            }
            for (_, mut r) in rings.drain() {
                r.drain()?;
                r.flush()?;
                r.write_lost(&mut totals)?;
                r.remove_files();
            }
            let _ = std::fs::remove_dir_all(&ring_dir);
            Ok(totals)
        });
        Drainer {
            stop,
            handle: Some(handle),
        }
    }

    /// Drains what is left (the program has ended) and stops; returns what
    /// was taken over the whole run.
    pub fn finish(mut self) -> std::io::Result<DrainTotals> {
        self.stop.store(true, Ordering::Release);
        match self.handle.take().map(|h| h.join()) {
            Some(Ok(r)) => r,
            _ => Err(std::io::Error::other("drainer thread panicked")),
        }
    }
}

mod ring_map;
#[cfg(test)]
mod tests;
