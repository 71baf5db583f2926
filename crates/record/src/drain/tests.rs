//! The drainer's tests: its rest, and a ring written and drained at once.

use super::*;

/// What the test writer put in the ring, in order.
#[derive(Debug, PartialEq)]
enum Written {
    Call(u64, bool, u64),
    Ext(u64, Vec<u8>),
}

/// A ring written the way the runtime writes one: payload words first,
/// then the first word with the lap flag; waiting while the ring is full;
/// at the start of a lap, moving to a larger ring the drainer offers.
struct TestWriter {
    dir: PathBuf,
    tid: u32,
    ptr: *mut u8,
    len: usize,
    cap: u64,
    w: u64,
    moved: bool,
}

impl TestWriter {
    /// A new ring of `cap` bytes in `dir`, named after the calling thread.
    fn new(dir: &Path, cap: u64) -> TestWriter {
        use tracekit_rt_format::{ring_file_name, CLOCK_TSC, VERSION};
        // SAFETY: gettid has no preconditions.
        let tid = unsafe { libc::gettid() } as u32;
        let path = dir.join(ring_file_name(std::process::id(), tid, 7));
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .unwrap();
        let len = HEADER_SIZE + cap as usize;
        f.set_len(len as u64).unwrap();
        // Unmapped in Drop.
        let ptr = map_shared(&f, len, false).unwrap();
        // SAFETY: offsets inside the mapped header.
        unsafe {
            (ptr.add(off::TID) as *mut u32).write(tid);
            (ptr.add(off::VERSION) as *mut u32).write(VERSION);
            (ptr.add(off::CLOCK) as *mut u32).write(CLOCK_TSC);
            (ptr.add(off::CAPACITY) as *mut u64).write(cap);
            (ptr.add(off::RING) as *mut u32).write(RING_WITH_LAPS);
            std::ptr::copy_nonoverlapping(MAGIC.as_ptr(), ptr, 8);
        }
        TestWriter {
            dir: dir.to_path_buf(),
            tid,
            ptr,
            len,
            cap,
            w: 0,
            moved: false,
        }
    }

    fn word(&self, o: usize) -> &AtomicU64 {
        // SAFETY: 8-aligned offset inside the mapping.
        unsafe { &*(self.ptr.add(o) as *const AtomicU64) }
    }

    /// Writes a record of slots (first word, payload word), the first
    /// slot's first word last; returns the bytes written so far.
    fn record(&mut self, slots: &[(u64, u64)]) -> u64 {
        let need = (slots.len() * RECORD_SIZE) as u64;
        self.wait_for(need);
        if self.w % self.cap == 0 && self.w > 0 {
            let next = self.word(off::NEXT_RING).load(Ordering::Acquire);
            if next != 0 {
                self.move_to(next);
                self.wait_for(need);
            }
        }
        self.put(slots);
        self.w
    }

    fn wait_for(&self, need: u64) {
        while self.w + need > self.word(off::READ_POS).load(Ordering::Acquire) + self.cap {
            std::hint::spin_loop();
        }
    }

    fn put(&mut self, slots: &[(u64, u64)]) {
        let lap = ring_lap_flag(self.w, self.cap);
        let at = HEADER_SIZE + (self.w % self.cap) as usize;
        for (k, &(w0, payload)) in slots.iter().enumerate().rev() {
            let slot = at + k * RECORD_SIZE;
            // SAFETY: a slot inside the data area, free for this lap.
            unsafe { (self.ptr.add(slot + 8) as *mut u64).write_volatile(payload) };
            self.word(slot).store(w0 ^ lap, Ordering::Release);
        }
        self.w += (slots.len() * RECORD_SIZE) as u64;
    }

    /// Leaves the move record and goes on in the offered ring of `cap` bytes.
    fn move_to(&mut self, cap: u64) {
        let name = tracekit_rt_format::names::ring_successor_name(std::process::id(), self.tid, 7);
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(self.dir.join(name))
            .unwrap();
        let len = HEADER_SIZE + cap as usize;
        assert_eq!(f.metadata().unwrap().len(), len as u64);
        let ptr = map_shared(&f, len, true).unwrap();
        self.put(&[(KIND_MOVED, cap)]);
        // SAFETY: our old mapping.
        unsafe { libc::munmap(self.ptr as *mut libc::c_void, self.len) };
        (self.ptr, self.len, self.cap, self.w, self.moved) = (ptr, len, cap, 0, true);
        assert_eq!(self.word(off::CAPACITY).load(Ordering::Relaxed), cap);
        assert_eq!(&self.word(off::MAGIC).load(Ordering::Relaxed).to_le_bytes(), &MAGIC);
    }
}

impl Drop for TestWriter {
    fn drop(&mut self) {
        // SAFETY: our mapping.
        unsafe { libc::munmap(self.ptr as *mut libc::c_void, self.len) };
    }
}

/// Writes `n` events into a new ring of `cap` bytes in `ring_dir` the way
/// the runtime does (an extended record's body 8 bytes per slot; a pad
/// record per slot where an extended one would straddle the end), from a
/// thread of its own, so the ring file names that thread; returns what it
/// wrote and whether it moved to a larger ring.
fn write_ring(ring_dir: &Path, cap: u64, n: u64) -> (Vec<Written>, bool) {
    use tracekit_rt_format::KIND_PAD;
    let mut ring = TestWriter::new(ring_dir, cap);
    let mut written = Vec::new();
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut at = 0;
    for i in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let ts = 1000 + 40 * i + x % 40;
        if i % 101 == 0 {
            let body: Vec<u8> = (0..(x % 40) as u8).collect();
            let size = ring_ext_size(body.len()) as u64;
            if at % ring.cap + size > ring.cap {
                for _ in 0..(ring.cap - at % ring.cap) / RECORD_SIZE as u64 {
                    ring.record(&[(KIND_PAD, 0)]);
                }
            }
            let mut slots = vec![(ts << 4 | KIND_EXT, body.len() as u64)];
            for piece in body.chunks(8) {
                let mut b = [0u8; 8];
                b[..piece.len()].copy_from_slice(piece);
                slots.push((KIND_CONT, u64::from_le_bytes(b)));
            }
            at = ring.record(&slots);
            written.push(Written::Ext(ts, body));
        } else {
            let exit = x & 1 == 1;
            let addr = 0x40_1000 + x % 300 * 48;
            at = ring.record(&[(ts << 4 | if exit { KIND_EXIT } else { KIND_ENTER }, addr)]);
            written.push(Written::Call(ts, exit, addr));
        }
    }
    (written, ring.moved)
}

/// Every event of a thread file the drainer wrote, in order.
fn read_thread_file(path: &Path) -> Vec<Written> {
    use tracekit_rt_format::block::{BlockDecoder, BlockEvent, BlockHeader, BLOCK_HEADER};
    let bytes = std::fs::read(path).unwrap();
    let (mut at, mut out) = (HEADER_SIZE, Vec::new());
    while at < bytes.len() {
        let h = BlockHeader::read(&bytes[at..]).unwrap();
        let payload = &bytes[at + BLOCK_HEADER..at + BLOCK_HEADER + h.payload_len as usize];
        let mut d = BlockDecoder::new(payload, &h);
        while let Some((ts, e)) = d.next_event().unwrap() {
            out.push(match e {
                BlockEvent::Enter(a) => Written::Call(ts, false, a),
                BlockEvent::Exit(a) => Written::Call(ts, true, a),
                BlockEvent::Ext(b) => Written::Ext(ts, b.to_vec()),
            });
        }
        at += BLOCK_HEADER + h.payload_len as usize;
    }
    out
}

/// Drains a ring of `cap` bytes, offering a ring of `grow_to` bytes (0:
/// none), while a thread writes `n` events into it; checks they all arrive
/// in order; returns whether the writer moved.
fn drain_while_writing(cap: u64, grow_to: u64, n: u64) -> bool {
    let dir = tempfile::tempdir().unwrap();
    let (ring_dir, out_dir) = (dir.path().join("rings"), dir.path().join("out"));
    std::fs::create_dir_all(&ring_dir).unwrap();
    std::fs::create_dir_all(&out_dir).unwrap();
    let drainer = Drainer::start(ring_dir.clone(), out_dir.clone(), grow_to);
    let rings = ring_dir.clone();
    let (written, moved) = std::thread::spawn(move || write_ring(&rings, cap, n)).join().unwrap();
    let totals = drainer.finish().unwrap();
    assert_eq!(
        totals,
        DrainTotals {
            events: n,
            lost: 0,
            moved: u64::from(moved)
        }
    );
    let files: Vec<PathBuf> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let read = read_thread_file(&files[0]);
    assert_eq!(read.len(), written.len());
    if let Some(i) = (0..read.len()).find(|&i| read[i] != written[i]) {
        panic!("event {i}: wrote {:?}, read {:?}", written[i], read[i]);
    }
    // Both rings are gone.
    assert!(!ring_dir.exists());
    moved
}

#[test]
fn a_ring_drained_while_it_is_written_arrives_whole_and_in_order() {
    // A small ring: the writer laps it hundreds of times and often
    // waits for the drainer, which often finds a record half written.
    assert!(!drain_while_writing(16 << 10, 0, 400_000));
}

#[test]
fn a_thread_that_laps_its_ring_often_moves_to_a_larger_one_and_nothing_is_lost() {
    // 400 000 events are 6.4 MB: 390 laps of 16 KiB. After 128 the drainer
    // offers a 64 KiB ring, and the writer moves at the next lap's start.
    assert!(drain_while_writing(16 << 10, 64 << 10, 400_000));
    // Offered nothing larger than the ring it has, a thread stays.
    assert!(!drain_while_writing(16 << 10, 16 << 10, 400_000));
}

#[test]
fn rings_grow_after_128_laps_while_all_rings_take_at_most_16_mib() {
    const MIB: u64 = 1 << 20;
    // One thread: after 128 laps of 8 MiB, not before.
    assert!(!growth_due(127 * 8 * MIB, 8 * MIB, 8 * MIB));
    assert!(growth_due(128 * 8 * MIB, 8 * MIB, 8 * MIB));
    // Two threads: the first to lap 128 times moves to 32 MiB, the other
    // then stays (8 + 8 + 32 MiB in all, or 8 + 32 once the first moved).
    assert!(growth_due(128 * 8 * MIB, 8 * MIB, 16 * MIB));
    assert!(!growth_due(128 * 8 * MIB, 8 * MIB, 48 * MIB));
    assert!(!growth_due(128 * 8 * MIB, 8 * MIB, 40 * MIB));
    // Three threads: no ring grows.
    assert!(!growth_due(1000 * 8 * MIB, 8 * MIB, 24 * MIB));
}

fn taken(fullest: f64) -> Taken {
    Taken { bytes: 1, fullest }
}

#[test]
fn the_drainer_rests_until_the_fullest_ring_is_an_eighth_full() {
    // Idle rings: the longest rest.
    assert_eq!(rest_for(Taken::default(), Duration::from_micros(50)), MAX_REST);
    // A sixteenth gathered in 400 µs: an eighth takes 800 µs.
    assert_eq!(
        rest_for(taken(1.0 / 16.0), Duration::from_micros(400)),
        Duration::from_micros(800)
    );
    // Slow writers: never more than the longest rest.
    assert_eq!(rest_for(taken(0.001), Duration::from_millis(1)), MAX_REST);
    // A small ring written fast: resting would let it fill, so no rest.
    assert_eq!(rest_for(taken(0.5), Duration::from_micros(100)), Duration::ZERO);
    assert_eq!(rest_for(taken(1.0), Duration::from_millis(5)), Duration::ZERO);
}
