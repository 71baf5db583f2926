//! The drainer's tests: its rest, and a ring written and drained at once.

use super::*;

/// What the test writer put in the ring, in order.
#[derive(Debug, PartialEq)]
enum Written {
    Call(u64, bool, u64),
    Ext(u64, Vec<u8>),
}

/// Writes `n` events into a new ring of `cap` bytes in `ring_dir` the
/// way the runtime does (payload words first, then the first word with
/// the lap flag; an extended record's body 8 bytes per slot; a pad
/// record per slot where an extended one would straddle the end;
/// waiting while the ring is full), from a thread of its own, so the
/// ring file names that thread; returns what it wrote.
fn write_ring(ring_dir: &Path, cap: u64, n: u64) -> Vec<Written> {
    use tracekit_rt_format::{ring_file_name, CLOCK_TSC, KIND_PAD, VERSION};
    // SAFETY: gettid has no preconditions.
    let tid = unsafe { libc::gettid() } as u32;
    let path = ring_dir.join(ring_file_name(std::process::id(), tid, 7));
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)
        .unwrap();
    f.set_len(HEADER_SIZE as u64 + cap).unwrap();
    let len = HEADER_SIZE + cap as usize;
    // Unmapped below.
    let ptr = map_shared(&f, len).unwrap();
    // SAFETY (here and below): 8-aligned offsets inside the mapping.
    let word = |o: usize| unsafe { &*(ptr.add(o) as *const AtomicU64) };
    unsafe {
        std::ptr::copy_nonoverlapping(MAGIC.as_ptr(), ptr, 8);
        (ptr.add(off::VERSION) as *mut u32).write(VERSION);
        (ptr.add(off::CLOCK) as *mut u32).write(CLOCK_TSC);
        (ptr.add(off::CAPACITY) as *mut u64).write(cap);
        (ptr.add(off::RING) as *mut u32).write(RING_WITH_LAPS);
    }
    let mut w = 0u64;
    // A record of slots (first word, payload word), the first one's
    // first word stored last.
    let mut record = |slots: &[(u64, u64)]| {
        let need = (slots.len() * RECORD_SIZE) as u64;
        while w + need > word(off::READ_POS).load(Ordering::Acquire) + cap {
            std::hint::spin_loop();
        }
        let lap = ring_lap_flag(w, cap);
        let at = HEADER_SIZE + (w % cap) as usize;
        for (k, &(w0, payload)) in slots.iter().enumerate().rev() {
            let slot = at + k * RECORD_SIZE;
            unsafe { (ptr.add(slot + 8) as *mut u64).write_volatile(payload) };
            word(slot).store(w0 ^ lap, Ordering::Release);
        }
        w += need;
        w
    };
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
            if at % cap + size > cap {
                for _ in 0..(cap - at % cap) / RECORD_SIZE as u64 {
                    record(&[(KIND_PAD, 0)]);
                }
            }
            let mut slots = vec![(ts << 4 | KIND_EXT, body.len() as u64)];
            for piece in body.chunks(8) {
                let mut b = [0u8; 8];
                b[..piece.len()].copy_from_slice(piece);
                slots.push((KIND_CONT, u64::from_le_bytes(b)));
            }
            at = record(&slots);
            written.push(Written::Ext(ts, body));
        } else {
            let exit = x & 1 == 1;
            let addr = 0x40_1000 + x % 300 * 48;
            at = record(&[(ts << 4 | if exit { KIND_EXIT } else { KIND_ENTER }, addr)]);
            written.push(Written::Call(ts, exit, addr));
        }
    }
    // SAFETY: our mapping.
    unsafe { libc::munmap(ptr as *mut libc::c_void, len) };
    written
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

#[test]
fn a_ring_drained_while_it_is_written_arrives_whole_and_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let (ring_dir, out_dir) = (dir.path().join("rings"), dir.path().join("out"));
    std::fs::create_dir_all(&ring_dir).unwrap();
    std::fs::create_dir_all(&out_dir).unwrap();
    let drainer = Drainer::start(ring_dir.clone(), out_dir.clone());
    // A small ring: the writer laps it hundreds of times and often
    // waits for the drainer, which often finds a record half written.
    let n = 400_000;
    let written = std::thread::spawn(move || write_ring(&ring_dir, 16 << 10, n))
        .join()
        .unwrap();
    let totals = drainer.finish().unwrap();
    assert_eq!(totals, DrainTotals { events: n, lost: 0 });
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
