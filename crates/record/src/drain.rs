//! The recorder's drainer: copies records from the runtime's per-thread ring
//! buffers into the recording's thread files while the program runs, and
//! everything left in them once it has ended (normally or not).

use std::collections::HashMap;
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use tracekit_rt_format::names::{self, RecordingFile};
use tracekit_rt_format::{off, HEADER_SIZE, KIND_EXT, KIND_PAD, MAGIC, RECORD_SIZE};

/// A shared read-write mapping of a ring file.
struct Ring {
    ptr: *mut u8,
    len: usize,
    cap: u64,
    read: u64,
    out: File,
}

// SAFETY: the mapping is only used from the drainer thread that owns it.
unsafe impl Send for Ring {}

impl Ring {
    fn open(path: &Path, out_dir: &Path) -> std::io::Result<Option<Ring>> {
        use std::os::fd::AsRawFd;
        let f = std::fs::OpenOptions::new().read(true).write(true).open(path)?;
        let len = f.metadata()?.len() as usize;
        if len <= HEADER_SIZE {
            return Ok(None);
        }
        // SAFETY: shared mapping of the ring file, unmapped in Drop.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                f.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        let ptr = ptr as *mut u8;
        // SAFETY: header bytes lie inside the mapping.
        let header = unsafe { std::slice::from_raw_parts(ptr, HEADER_SIZE) };
        if header[..8] != MAGIC {
            // SAFETY: our mapping.
            unsafe { libc::munmap(ptr as *mut libc::c_void, len) };
            return Ok(None);
        }
        let cap = u64::from_le_bytes(header[off::CAPACITY..off::CAPACITY + 8].try_into().unwrap_or([0; 8]));
        let mut h = header.to_vec();
        for o in [off::READ_POS, off::LOST] {
            h[o..o + 8].fill(0);
        }
        h[off::RING..off::RING + 4].fill(0);
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let out_name = match names::parse(name) {
            Some(RecordingFile::Ring { pid, tid, image }) => names::thread_file_for_ring(pid, tid, image),
            _ => return Ok(None),
        };
        let mut out = File::create(out_dir.join(out_name))?;
        out.write_all(&h)?;
        Ok(Some(Ring {
            ptr,
            len,
            cap,
            read: 0,
            out,
        }))
    }

    fn word(&self, o: usize) -> &AtomicU64 {
        // SAFETY: 8-aligned offset inside the mapped header.
        unsafe { &*(self.ptr.add(o) as *const AtomicU64) }
    }

    /// The first word of the record at data offset `at`.
    fn word0(&self, at: u64) -> u64 {
        // SAFETY: 16-aligned slot inside the data area; the writer stores
        // the first word last, so non-zero means the record is complete.
        unsafe { (*(self.ptr.add(HEADER_SIZE + at as usize) as *const AtomicU64)).load(Ordering::Acquire) }
    }

    /// Length of the complete record at data offset `at`, or `None` when the
    /// slot is not written yet (or makes no sense: the drainer then waits).
    fn record_len(&self, at: u64) -> Option<u64> {
        let w0 = self.word0(at);
        if w0 == 0 {
            return None;
        }
        // SAFETY: the payload word of the same slot.
        let payload = unsafe { (self.ptr.add(HEADER_SIZE + at as usize + 8) as *const u64).read_volatile() };
        let len = match w0 & 0xf {
            KIND_EXT => RECORD_SIZE as u64 + tracekit_rt_format::padded(payload as usize) as u64,
            KIND_PAD => RECORD_SIZE as u64 + payload,
            _ => RECORD_SIZE as u64,
        };
        (at + len <= self.cap).then_some(len)
    }

    /// Copies the complete records written since the last call (at most one
    /// ring's worth, so one busy thread cannot starve the others), zeroes
    /// their slots and publishes the read position; returns the bytes copied.
    fn drain(&mut self) -> std::io::Result<u64> {
        let mut copied = 0;
        while copied < self.cap {
            let start = self.read % self.cap;
            let mut at = start;
            // A contiguous run of complete records, at most up to the ring's end.
            while at < self.cap && at - start < (1 << 20) {
                match self.record_len(at) {
                    Some(len) => at += len,
                    None => break,
                }
            }
            let n = (at - start) as usize;
            if n == 0 {
                break;
            }
            // SAFETY: start..at lies inside the data area.
            let bytes = unsafe { std::slice::from_raw_parts_mut(self.ptr.add(HEADER_SIZE + start as usize), n) };
            self.out.write_all(bytes)?;
            bytes.fill(0);
            self.read += n as u64;
            copied += n as u64;
            self.word(off::READ_POS).store(self.read, Ordering::Release);
        }
        Ok(copied)
    }

    /// Writes the ring's lost-event count into the thread file's header.
    fn finish(&mut self) -> std::io::Result<()> {
        let lost = self.word(off::LOST).load(Ordering::Acquire);
        self.out.seek(SeekFrom::Start(off::LOST as u64))?;
        self.out.write_all(&lost.to_le_bytes())?;
        self.out.flush()
    }
}

impl Drop for Ring {
    fn drop(&mut self) {
        // SAFETY: our mapping.
        unsafe { libc::munmap(self.ptr as *mut libc::c_void, self.len) };
    }
}

/// Copies ring buffers into thread files on a background thread.
pub struct Drainer {
    stop: Arc<AtomicBool>,
    handle: Option<std::thread::JoinHandle<std::io::Result<u64>>>,
}

fn poll(ring_dir: &Path, out_dir: &Path, rings: &mut HashMap<PathBuf, Ring>) -> std::io::Result<u64> {
    if let Ok(entries) = std::fs::read_dir(ring_dir) {
        for e in entries.flatten() {
            let p = e.path();
            let is_ring = p.extension().is_some_and(|x| x == "tkr");
            if is_ring && !rings.contains_key(&p) {
                if let Some(r) = Ring::open(&p, out_dir)? {
                    rings.insert(p, r);
                }
            }
        }
    }
    let mut copied = 0;
    for r in rings.values_mut() {
        copied += r.drain()?;
    }
    Ok(copied)
}

impl Drainer {
    /// Starts draining rings that appear in `ring_dir` into `out_dir`.
    pub fn start(ring_dir: PathBuf, out_dir: PathBuf) -> Drainer {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let handle = std::thread::spawn(move || {
            let mut rings = HashMap::new();
            let mut total = 0;
            loop {
                let stopping = flag.load(Ordering::Acquire);
                let n = poll(&ring_dir, &out_dir, &mut rings)?;
                total += n;
                if stopping {
                    break;
                }
                if n == 0 {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
            }
            for r in rings.values_mut() {
                r.finish()?;
            }
            drop(rings);
            let _ = std::fs::remove_dir_all(&ring_dir);
            Ok(total)
        });
        Drainer {
            stop,
            handle: Some(handle),
        }
    }

    /// Drains what is left (the program has ended) and stops; returns the bytes copied.
    pub fn finish(mut self) -> std::io::Result<u64> {
        self.stop.store(true, Ordering::Release);
        match self.handle.take().map(|h| h.join()) {
            Some(Ok(r)) => r,
            _ => Err(std::io::Error::other("drainer thread panicked")),
        }
    }
}
