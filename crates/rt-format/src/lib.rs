//! On-disk layout of the files the native runtime (`tracekit-rt`) writes,
//! shared by the writer (the runtime) and the reader (`tracekit-recording`) so
//! the two can never disagree.
//!
//! A recording directory holds, per traced thread, one file
//! `thread-<pid>-<tid>-<image>.tkt`: a [`HEADER_SIZE`]-byte header followed by
//! 16-byte records. The file is created at its full (sparse) capacity and
//! mapped shared, so every record written is in the page cache at once and
//! survives a crash of the traced program. The data ends at the first record
//! whose first word is zero (timestamps are never zero).
//!
//! When `tracekit record` runs the program, each thread writes instead into
//! a small ring buffer file `ring-<pid>-<tid>-<image>.tkr` (same header,
//! plus the recorder's read position) that stays warm in memory; the
//! recorder copies records from it into the thread file as they appear (a
//! slot is written payload first, first word last) and drains whatever is
//! left after the program ends or crashes. The recorder never writes to a
//! slot: a record's first word carries [`LAP_FLAG`] flipped on every lap
//! around the ring, so a fresh record and one left from the lap before
//! differ without the slots being zeroed (which would bounce every cache
//! line between the two cores once more per lap). For that to hold, every
//! slot's first word is written on every lap: in a ring an extended
//! record's body goes 8 bytes per slot, behind a [`KIND_CONT`] first word
//! ([`ring_ext_size`]), and padding is one [`KIND_PAD`] record per slot.
//! (A body laid across whole slots would leave there, for the next lap,
//! body bytes or the header of the lap before, whose flag is this lap's:
//! a recorder that caught up with the writer there read them as records.)
//!
//! A record is two little-endian `u64` words: `ts << 4 | kind` and a payload.
//! [`KIND_ENTER`]/[`KIND_EXIT`] carry a function address; [`KIND_EXT`] says
//! that `payload` bytes of an extended event body follow (padded to 16).
//!
//! ```
//! use tracekit_rt_format::*;
//! let ev = ExtEvent { sub: ExtKind::ObjectCreated, remote_pid: 0, object_id: 0x10,
//!                     value: 0, strings: vec!["Foo".into()] };
//! let mut buf = vec![0u8; 64];
//! let n = ev.encode(&mut buf).unwrap();
//! assert_eq!(ExtEvent::decode(&buf[..n]).unwrap(), ev);
//! ```

pub mod block;
pub mod demangle;

/// Magic bytes at offset 0 of a thread file.
pub const MAGIC: [u8; 8] = *b"TKTRACE1";
/// Format version.
pub const VERSION: u32 = 1;
/// Bytes before the first record.
pub const HEADER_SIZE: usize = 4096;
/// Bytes of one record.
pub const RECORD_SIZE: usize = 16;

/// Function entered; payload = function address.
pub const KIND_ENTER: u64 = 1;
/// Function left; payload = function address.
pub const KIND_EXIT: u64 = 2;
/// Extended event; payload = body length in bytes, body follows padded to 16.
pub const KIND_EXT: u64 = 3;
/// Padding; payload = bytes that follow and must be skipped (written where a
/// record would not fit before a ring buffer wraps). In a ring, each padded
/// slot is a record of its own with payload 0.
pub const KIND_PAD: u64 = 4;
/// In a ring only: a slot after an extended record's first, carrying the
/// next 8 bytes of its body in its payload word (see [`ring_ext_size`]).
pub const KIND_CONT: u64 = 5;
/// In a ring only: the writer moved on to the larger ring the recorder
/// offered in [`off::NEXT_RING`]; payload = that ring's capacity. It is the
/// ring's last record: the thread's next record is the new ring's first.
pub const KIND_MOVED: u64 = 6;

/// Bytes an extended record with a body of `len` bytes takes in a ring: its
/// first slot (first word and body length) and one [`KIND_CONT`] slot per
/// 8 bytes of body, the last one zero-padded.
pub fn ring_ext_size(len: usize) -> usize {
    RECORD_SIZE * (1 + len.div_ceil(8))
}

/// In a ring file, the bit of a record's first word that tells its lap: the
/// writer XORs the first word with [`ring_lap_flag`] of the record's byte
/// position, so the bit is set on even laps (0, 2, …) and clear on odd ones,
/// and an all-zero slot (never written) never looks complete. Kinds stay
/// below it. Thread files written without a ring never carry it.
pub const LAP_FLAG: u64 = 8;

/// The value a ring writer XORs into the first word of the record that
/// starts at absolute byte position `pos` (bytes written since the ring was
/// created) of a ring of `capacity` bytes (a power of two).
#[inline(always)]
pub fn ring_lap_flag(pos: u64, capacity: u64) -> u64 {
    if pos & capacity == 0 {
        LAP_FLAG
    } else {
        0
    }
}

/// Value of the header's `RING` field for a ring written with lap flags,
/// every slot's first word written on every lap. (2 was the same ring with
/// extended bodies laid across whole slots; a recorder refuses it.)
pub const RING_WITH_LAPS: u32 = 3;

/// Timestamps are CPU time-stamp-counter ticks (x86 `rdtsc`).
pub const CLOCK_TSC: u32 = 1;
/// Timestamps are `CLOCK_MONOTONIC` nanoseconds.
pub const CLOCK_MONOTONIC_NS: u32 = 2;
/// No time: each thread numbers its events 1, 2, 3… (order only; cheapest).
pub const CLOCK_ORDER: u32 = 3;

/// Byte offsets of header fields (all little-endian).
pub mod off {
    /// `[u8; 8]` magic.
    pub const MAGIC: usize = 0;
    /// `u32` version.
    pub const VERSION: usize = 8;
    /// `u32` header size.
    pub const HEADER_SIZE: usize = 12;
    /// `u32` process id.
    pub const PID: usize = 16;
    /// `u32` thread id.
    pub const TID: usize = 20;
    /// `u32` parent process id.
    pub const PPID: usize = 24;
    /// `u32` clock kind ([`super::CLOCK_TSC`] or [`super::CLOCK_MONOTONIC_NS`]).
    pub const CLOCK: usize = 28;
    /// `u64` image token: distinguishes the program images one pid runs across `exec`.
    pub const IMAGE: usize = 32;
    /// `u64` capacity of the data area in bytes.
    pub const CAPACITY: usize = 40;
    /// `u64` events dropped because the buffer was full (exact).
    pub const LOST: usize = 48;
    /// `u64` raw clock value when the file was created.
    pub const CLOCK_AT_CREATE: usize = 56;
    /// `u64` `CLOCK_MONOTONIC` ns when the file was created.
    pub const MONO_AT_CREATE: usize = 64;
    /// `u64` `CLOCK_REALTIME` ns when the file was created.
    pub const REAL_AT_CREATE: usize = 72;
    /// `u32` thread of the parent process that called `fork`, when this
    /// thread is the one a `fork` created (0 otherwise).
    pub const FORKED_FROM_TID: usize = 80;
    /// `u64` raw clock stamp of that `fork`: the value of the parent
    /// thread's `Fork` extended event (before version 1.1 of the runtime,
    /// the child's clock when it created the file, which matches no event).
    pub const FORK_CLOCK: usize = 88;
    /// `[u8; 16]` thread name, NUL padded.
    pub const NAME: usize = 128;
    /// `u64` bytes of records the recorder has copied out of a ring file;
    /// the writer may fill the ring up to `READ_POS + CAPACITY`.
    pub const READ_POS: usize = 320;
    /// `u32` [`crate::RING_WITH_LAPS`] when the data area is a ring drained by
    /// the recorder (0 for a thread file written in place).
    pub const RING: usize = 384;
    /// `u64` in a ring: the capacity of the larger ring the recorder has
    /// prepared for this thread at [`super::names::ring_successor_name`]
    /// (0 while none is offered). The writer moves to it at the start of a
    /// lap, leaving a [`super::KIND_MOVED`] record as the old ring's last.
    pub const NEXT_RING: usize = 448;
}

/// Sub-kinds of an extended event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum ExtKind {
    /// Object created: strings = [class].
    ObjectCreated = 1,
    /// Object destroyed: strings = [class].
    ObjectDestroyed = 2,
    /// Operation body entered: strings = [class, interface, operation].
    OperationEntered = 3,
    /// Operation body left: strings = [class, interface, operation].
    OperationLeft = 4,
    /// Synchronous client-side proxy entered: remote pid = receiver.
    ProxySync = 5,
    /// Asynchronous client-side proxy entered: remote pid = receiver.
    ProxyAsync = 6,
    /// Server-side stub entered: remote pid = sender (0 when unknown).
    Stub = 7,
    /// Instant marker (big red button): strings = [name].
    Marker = 8,
    /// Integer context sample: strings = [label], value = i64.
    ContextInt = 9,
    /// Floating-point context sample: strings = [label], value = f64 bits.
    ContextDouble = 10,
    /// Text context sample: strings = [label, text].
    ContextText = 11,
    /// Named function entered (Rust attribute macro): strings = [name].
    NamedEnter = 12,
    /// Named function left: strings = [name].
    NamedExit = 13,
    /// `longjmp` called: the frames it abandons end here; object id = the
    /// `jmp_buf` address (0 from runtimes before setjmp was recorded).
    Longjmp = 14,
    /// `fork` is about to run in this thread: value = the raw clock stamp
    /// that the child's thread file carries in `FORK_CLOCK`, so the reader
    /// finds the frames the child inherits (those open here).
    Fork = 15,
    /// `setjmp`/`sigsetjmp` called: object id = the `jmp_buf` address. A
    /// later `Longjmp` to the same buffer returns to the frames open here.
    Setjmp = 16,
}

impl ExtKind {
    /// The sub-kind with this code.
    pub fn from_code(c: u32) -> Option<ExtKind> {
        use ExtKind::*;
        Some(match c {
            1 => ObjectCreated,
            2 => ObjectDestroyed,
            3 => OperationEntered,
            4 => OperationLeft,
            5 => ProxySync,
            6 => ProxyAsync,
            7 => Stub,
            8 => Marker,
            9 => ContextInt,
            10 => ContextDouble,
            11 => ContextText,
            12 => NamedEnter,
            13 => NamedExit,
            14 => Longjmp,
            15 => Fork,
            16 => Setjmp,
            _ => return None,
        })
    }
}

/// Body of an extended event: `u32 sub, u32 remote_pid, u64 object_id,
/// u64 value, u16 string count`, then each string as `u16 len` + UTF-8 bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtEvent {
    /// What happened.
    pub sub: ExtKind,
    /// The other process of a proxy or stub call.
    pub remote_pid: u32,
    /// Object id (instance address).
    pub object_id: u64,
    /// Numeric value of a context sample (i64, or f64 bits).
    pub value: u64,
    /// Names: class, interface, operation, label, text — by sub-kind.
    pub strings: Vec<String>,
}

/// Why an extended event body could not be decoded or encoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExtError {
    /// The body ends before the field at this byte offset.
    Truncated(usize),
    /// Unknown sub-kind code.
    UnknownKind(u32),
    /// A string at this offset is not UTF-8.
    BadText(usize),
    /// The destination buffer is too small.
    NoRoom,
}

impl std::fmt::Display for ExtError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExtError::Truncated(o) => write!(f, "extended event truncated at body offset {o}"),
            ExtError::UnknownKind(k) => write!(f, "unknown extended event kind {k}"),
            ExtError::BadText(o) => write!(f, "string at body offset {o} is not UTF-8"),
            ExtError::NoRoom => write!(f, "buffer too small for extended event"),
        }
    }
}

impl std::error::Error for ExtError {}

/// Fixed part of an extended body.
pub const EXT_FIXED: usize = 26;

/// Bytes an extended body with these strings needs.
pub fn ext_body_len(strings: &[&[u8]]) -> usize {
    EXT_FIXED
        + strings
            .iter()
            .map(|s| 2 + s.len().min(u16::MAX as usize))
            .sum::<usize>()
}

/// Writes an extended body into `out` from raw parts (no allocation; the
/// runtime calls this on its hot path). Returns the bytes written.
pub fn encode_ext_raw(
    out: &mut [u8],
    sub: ExtKind,
    remote_pid: u32,
    object_id: u64,
    value: u64,
    strings: &[&[u8]],
) -> Result<usize, ExtError> {
    let need = ext_body_len(strings);
    if out.len() < need {
        return Err(ExtError::NoRoom);
    }
    out[0..4].copy_from_slice(&(sub as u32).to_le_bytes());
    out[4..8].copy_from_slice(&remote_pid.to_le_bytes());
    out[8..16].copy_from_slice(&object_id.to_le_bytes());
    out[16..24].copy_from_slice(&value.to_le_bytes());
    out[24..26].copy_from_slice(&(strings.len() as u16).to_le_bytes());
    let mut p = EXT_FIXED;
    for s in strings {
        let s = &s[..s.len().min(u16::MAX as usize)];
        out[p..p + 2].copy_from_slice(&(s.len() as u16).to_le_bytes());
        out[p + 2..p + 2 + s.len()].copy_from_slice(s);
        p += 2 + s.len();
    }
    Ok(p)
}

impl ExtEvent {
    /// Encodes the body into `out`; returns the bytes written.
    pub fn encode(&self, out: &mut [u8]) -> Result<usize, ExtError> {
        let strs: Vec<&[u8]> = self.strings.iter().map(|s| s.as_bytes()).collect();
        encode_ext_raw(out, self.sub, self.remote_pid, self.object_id, self.value, &strs)
    }

    /// Decodes a body.
    pub fn decode(b: &[u8]) -> Result<ExtEvent, ExtError> {
        if b.len() < EXT_FIXED {
            return Err(ExtError::Truncated(b.len()));
        }
        let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap_or([0; 4]));
        let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap_or([0; 8]));
        let code = u32_at(0);
        let sub = ExtKind::from_code(code).ok_or(ExtError::UnknownKind(code))?;
        let n = u16::from_le_bytes([b[24], b[25]]) as usize;
        let mut p = EXT_FIXED;
        let mut strings = Vec::with_capacity(n.min(8));
        for _ in 0..n {
            if p + 2 > b.len() {
                return Err(ExtError::Truncated(p));
            }
            let len = u16::from_le_bytes([b[p], b[p + 1]]) as usize;
            if p + 2 + len > b.len() {
                return Err(ExtError::Truncated(p + 2));
            }
            let s = std::str::from_utf8(&b[p + 2..p + 2 + len]).map_err(|_| ExtError::BadText(p + 2))?;
            strings.push(s.to_owned());
            p += 2 + len;
        }
        Ok(ExtEvent {
            sub,
            remote_pid: u32_at(4),
            object_id: u64_at(8),
            value: u64_at(16),
            strings,
        })
    }
}

/// Rounds a body length up to whole records.
pub fn padded(len: usize) -> usize {
    len.div_ceil(RECORD_SIZE) * RECORD_SIZE
}

pub use names::{maps_file_name, ring_file_name, thread_file_name};

/// Every file name of a recording directory, made and parsed in this one
/// place: the runtime and the recorder write them, the loader reads them.
pub mod names {
    /// `tracekit record`'s metadata: command, clock anchor, exit status.
    pub const META_FILE: &str = "recording.json";
    /// The context sampler's output.
    pub const CONTEXT_FILE: &str = "context.jsonl";

    /// What a file of a recording directory is.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum RecordingFile {
        /// A thread's trace file (`thread-<pid>-<tid>-<image>.tkt`).
        Thread {
            /// Process id.
            pid: u32,
            /// Thread id.
            tid: u32,
            /// Process image token (changes at `exec`).
            image: u64,
        },
        /// A thread's ring buffer while recording (`ring-<pid>-<tid>-<image>.tkr`).
        Ring {
            /// Process id.
            pid: u32,
            /// Thread id.
            tid: u32,
            /// Process image token.
            image: u64,
        },
        /// A process image's copy of `/proc/<pid>/maps` (`maps-<pid>-<image>.txt`).
        Maps {
            /// Process id.
            pid: u32,
            /// Process image token.
            image: u64,
        },
        /// Clock pairs a process saved at exit (`clock-<pid>-<image>.txt`).
        Clock {
            /// Process id.
            pid: u32,
            /// Process image token.
            image: u64,
        },
        /// A reader's checkpoints of a thread file's open frames
        /// (`thread-<pid>-<tid>-<image>.tkt.frames`): a cache `tracekit-recording`
        /// writes beside the thread file, never needed to read it.
        Checkpoints {
            /// Process id.
            pid: u32,
            /// Thread id.
            tid: u32,
            /// Process image token.
            image: u64,
        },
        /// [`META_FILE`].
        Meta,
        /// [`CONTEXT_FILE`].
        Context,
    }

    /// File name of a thread's trace file.
    pub fn thread_file_name(pid: u32, tid: u32, image: u64) -> String {
        format!("thread-{pid}-{tid}-{image}.tkt")
    }

    /// File name of the checkpoints a reader keeps of a thread file.
    pub fn checkpoints_file_name(pid: u32, tid: u32, image: u64) -> String {
        format!("{}.frames", thread_file_name(pid, tid, image))
    }

    /// File name of a thread's ring buffer (drained by the recorder into its thread file).
    pub fn ring_file_name(pid: u32, tid: u32, image: u64) -> String {
        format!("ring-{pid}-{tid}-{image}.tkr")
    }

    /// File name of the larger ring the recorder prepares for a thread
    /// that laps its ring often (see [`super::off::NEXT_RING`]); not a
    /// `.tkr` file, so nothing takes it for a new thread's ring.
    pub fn ring_successor_name(pid: u32, tid: u32, image: u64) -> String {
        format!("{}.next", ring_file_name(pid, tid, image))
    }

    /// First line of each snapshot in a maps file, followed by the raw
    /// clock value when it was taken: a process image's maps file is a
    /// sequence of `/proc/<pid>/maps` snapshots (at start, after `dlopen`,
    /// around `dlclose`, after `fork`, at exit), so a library unloaded
    /// before the end still names its functions. A file without such a
    /// line (older runtimes) is one snapshot.
    pub const MAPS_SNAPSHOT_LINE: &str = "# tracekit maps clock ";

    /// File name of a process image's `/proc/<pid>/maps` snapshots.
    pub fn maps_file_name(pid: u32, image: u64) -> String {
        format!("maps-{pid}-{image}.txt")
    }

    /// File name of the clock pairs a process image saves at exit.
    pub fn clock_file_name(pid: u32, image: u64) -> String {
        format!("clock-{pid}-{image}.txt")
    }

    /// The thread file a ring buffer is drained into.
    pub fn thread_file_for_ring(pid: u32, tid: u32, image: u64) -> String {
        thread_file_name(pid, tid, image)
    }

    fn numbers<const N: usize>(rest: &str) -> Option<[u64; N]> {
        let mut out = [0u64; N];
        let mut parts = rest.split('-');
        for slot in &mut out {
            *slot = parts.next()?.parse().ok()?;
        }
        parts.next().is_none().then_some(out)
    }

    /// What the file called `name` is, or `None` when it is not part of a
    /// recording.
    pub fn parse(name: &str) -> Option<RecordingFile> {
        if name == META_FILE {
            return Some(RecordingFile::Meta);
        }
        if name == CONTEXT_FILE {
            return Some(RecordingFile::Context);
        }
        let pid_of = |v: u64| u32::try_from(v).ok();
        if let Some(r) = name.strip_prefix("thread-") {
            // A thread file, or a reader's checkpoints of one.
            let (r, frames) = match r.strip_suffix(".tkt.frames") {
                Some(r) => (r, true),
                None => (r.strip_suffix(".tkt")?, false),
            };
            let [p, t, i] = numbers::<3>(r)?;
            let (pid, tid, image) = (pid_of(p)?, pid_of(t)?, i);
            return Some(if frames {
                RecordingFile::Checkpoints { pid, tid, image }
            } else {
                RecordingFile::Thread { pid, tid, image }
            });
        }
        if let Some(r) = name.strip_prefix("ring-").and_then(|r| r.strip_suffix(".tkr")) {
            let [p, t, i] = numbers::<3>(r)?;
            return Some(RecordingFile::Ring {
                pid: pid_of(p)?,
                tid: pid_of(t)?,
                image: i,
            });
        }
        if let Some(r) = name.strip_prefix("maps-").and_then(|r| r.strip_suffix(".txt")) {
            let [p, i] = numbers::<2>(r)?;
            return Some(RecordingFile::Maps {
                pid: pid_of(p)?,
                image: i,
            });
        }
        if let Some(r) = name.strip_prefix("clock-").and_then(|r| r.strip_suffix(".txt")) {
            let [p, i] = numbers::<2>(r)?;
            return Some(RecordingFile::Clock {
                pid: pid_of(p)?,
                image: i,
            });
        }
        None
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn names_round_trip() {
            assert_eq!(
                parse(&thread_file_name(7, 9, 3)),
                Some(RecordingFile::Thread {
                    pid: 7,
                    tid: 9,
                    image: 3
                })
            );
            assert_eq!(
                parse(&ring_file_name(7, 9, 3)),
                Some(RecordingFile::Ring {
                    pid: 7,
                    tid: 9,
                    image: 3
                })
            );
            assert_eq!(
                parse(&maps_file_name(7, 3)),
                Some(RecordingFile::Maps { pid: 7, image: 3 })
            );
            assert_eq!(
                parse(&clock_file_name(7, 3)),
                Some(RecordingFile::Clock { pid: 7, image: 3 })
            );
            assert_eq!(parse(META_FILE), Some(RecordingFile::Meta));
            assert_eq!(parse(CONTEXT_FILE), Some(RecordingFile::Context));
            assert_eq!(parse("thread-1-2.tkt"), None);
            assert_eq!(parse("thread-1-2-x.tkt"), None);
            assert_eq!(parse("maps-1-2-3.txt"), None);
            assert_eq!(parse("notes.txt"), None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_lap_flag_flips_every_lap_and_a_blank_slot_is_never_this_laps() {
        let cap = 1 << 16;
        for pos in [0, 16, cap - 16, cap, cap + 16, 2 * cap - 16, 2 * cap, 7 * cap + 32] {
            let flag = ring_lap_flag(pos, cap);
            // The record one lap earlier at the same slot carries the other flag.
            if pos >= cap {
                assert_ne!(flag, ring_lap_flag(pos - cap, cap), "{pos}");
            }
            // Within a lap, every slot has the same flag.
            assert_eq!(flag, ring_lap_flag(pos - pos % cap, cap), "{pos}");
        }
        // Lap 0 expects the flag set, so zeroed memory reads as not written.
        assert_eq!(ring_lap_flag(0, cap), LAP_FLAG);
        // Every kind stays below the flag.
        assert!([KIND_ENTER, KIND_EXIT, KIND_EXT, KIND_PAD, KIND_CONT]
            .iter()
            .all(|&k| k < LAP_FLAG));
    }

    #[test]
    fn kinds_round_trip() {
        for c in 1..=16 {
            assert_eq!(ExtKind::from_code(c).unwrap() as u32, c);
        }
        assert_eq!(ExtKind::from_code(17), None);
        assert_eq!(padded(26), 32);
    }

    proptest! {
        #[test]
        fn ext_round_trip(code in 1u32..=16, rp: u32, id: u64, v: u64, s in proptest::collection::vec(".{0,20}", 0..4)) {
            let ev = ExtEvent { sub: ExtKind::from_code(code).unwrap(), remote_pid: rp, object_id: id, value: v, strings: s };
            let mut buf = vec![0u8; 512];
            let n = ev.encode(&mut buf).unwrap();
            prop_assert_eq!(ExtEvent::decode(&buf[..n]).unwrap(), ev);
        }

        #[test]
        fn decode_never_panics(b in proptest::collection::vec(any::<u8>(), 0..80)) {
            let _ = ExtEvent::decode(&b);
        }
    }
}
