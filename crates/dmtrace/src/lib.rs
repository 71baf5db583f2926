//! Android method traces (`.trace`, "dmtrace"), read into and written from
//! the tracekit model.
//!
//! Reads what `android.os.Debug.startMethodTracing()` writes on Dalvik and
//! ART: versions 1, 2 and 3 with `clock=thread-cpu`, `wall` or `dual`, and
//! ART's streaming variant (header version `0xF0 | v`), and ART's newer
//! packet format, versions 4 and 5 (`0xF4`/`0xF5` streamed; times in ns, the
//! start on the monotonic clock, so `anchor_unix_ns` is `None`). Writes version 3
//! (dual, wall or thread-CPU clock; versions 1 and 2 for single clocks too),
//! either from a whole [`Session`](tracekit_model::Session) ([`write`]) or
//! record by record ([`TraceWriter`]) for generators that produce millions
//! of records.
//!
//! The reader repairs what real files contain and notes each repair on the
//! session (codes in [`repair`]). Afterwards every thread's call sequence is
//! balanced: each exit matches the innermost open enter.
//!
//! Reading a file makes two passes over its records (the first counts each
//! thread's records so the model's columns are allocated exactly), so peak
//! memory is the model itself, about 20 bytes per dual-clock event.
//!
//! Mapping to the model: threads are named from `*threads`; methods carry
//! class, name, signature, source file, line, and `address` = the file's
//! method id; `anchor_unix_ns` is the header's start time; `duration_ns`
//! comes from `elapsed-time-usec`; every `key=value` line is kept in
//! `properties`. `ts_ns` is wall time when the file has it, else thread-CPU
//! time; `cpu_ns` is present exactly when the file has thread-CPU time.
//!
//! ```
//! use tracekit_model::*;
//! let mut s = Session::new("demo", Clocks::DUAL);
//! let main = s.add_thread(Thread::new(1, "main"));
//! let run = s.methods.intern(Method::new("com/example/App", "run", "()V"));
//! s.calls_mut(main).push(CallEvent::enter(run, 1_000, Some(0)));
//! // Left open: the reader closes it at the thread's last timestamp.
//!
//! let mut bytes = Vec::new();
//! tracekit_dmtrace::write(&s, &mut bytes).unwrap();
//! let back = tracekit_dmtrace::read_bytes(&bytes).unwrap();
//! assert_eq!(back.calls(ThreadId(0)).len(), 2);
//! assert_eq!(back.repairs[0].code, tracekit_dmtrace::repair::OPEN_AT_END);
//! ```

mod build;
mod error;
mod header;
mod ids;
mod keys;
mod packets;
mod read;
mod stream;
mod write;

pub use error::{Error, Result};
pub use header::{BinaryHeader, RawRecord, HEADER_LEN, MAGIC};
pub use keys::{KeySection, MethodLine};
pub use read::{read, read_bytes, read_path};

/// True when `head` (the first bytes of a file) looks like an Android method
/// trace: a `*version` key part that goes on to `key=value` lines,
/// `*threads` or `*methods` (a context log's goes on to `*logs`), or the
/// binary `SLOW` magic that streaming and version 4/5 traces start with.
pub fn sniff(head: &[u8]) -> bool {
    if head.starts_with(b"SLOW") {
        return true;
    }
    let mut lines = head.split(|&b| b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l));
    if lines.next() != Some(&b"*version"[..]) {
        return false;
    }
    match lines.find(|l| l.starts_with(b"*") || l.contains(&b'=')) {
        Some(l) => l.contains(&b'=') || l == b"*threads" || l == b"*methods",
        // Only the version line fits in the head: not a context log either way.
        None => true,
    }
}
pub use stream::{OP_METHOD, OP_SUMMARY, OP_THREAD};
pub use write::{write, write_path, TraceInfo, TraceWriter};

/// Stable codes of the repairs the reader notes with
/// [`Session::note_repair`](tracekit_model::Session::note_repair).
pub mod repair {
    /// 32-bit µs deltas wrapped (wall clock globally, CPU clock per thread).
    pub const CLOCK_WRAP: &str = "clock-wrap";
    /// Exits without an entry; an enter was synthesized at the thread's first timestamp.
    pub const EXIT_WITHOUT_ENTRY: &str = "exit-without-entry";
    /// Methods closed because an exit matched a method further down the stack.
    pub const MISMATCHED_EXIT: &str = "mismatched-exit";
    /// Methods still open at the end; exits synthesized at the thread's last timestamp.
    pub const OPEN_AT_END: &str = "open-at-end";
    /// `data-file-overflow=true`: the recorder stopped writing early.
    pub const DATA_FILE_OVERFLOW: &str = "data-file-overflow";
    /// The file ends inside a record (or streaming packet).
    pub const TRUNCATED_RECORD: &str = "truncated-record";
    /// Method ids missing from `*methods`; placeholders `(0x<id>)` created.
    pub const UNKNOWN_METHOD: &str = "unknown-method";
    /// Thread ids missing from `*threads`; threads `[<tid>]` created.
    pub const UNKNOWN_THREAD: &str = "unknown-thread";
    /// Records with the unused action 3, skipped.
    pub const INVALID_ACTION: &str = "invalid-action";
    /// A thread's clock went backwards; held at the previous value.
    pub const TIME_BACKWARDS: &str = "time-backwards";
    /// A streaming trace without its summary packet.
    pub const MISSING_SUMMARY: &str = "missing-summary";
    /// `clock=` named no clock this reader knows; the clocks were taken
    /// from the record layout (dual for 14-byte v3 records, else thread-CPU).
    pub const UNKNOWN_CLOCK: &str = "unknown-clock";
}

#[cfg(test)]
mod sniff_tests {
    use super::sniff;

    #[test]
    fn tells_traces_from_context_logs() {
        assert!(sniff(b"*version\n3\ndata-file-overflow=false\nclock=dual\n*threads\n"));
        assert!(sniff(b"*version\r\n1\r\n*threads\r\n"));
        assert!(sniff(b"SLOW\x03\x00"));
        assert!(!sniff(b"*version\n1\n*logs\n0\t1\tScreen orientation\n*end\n"));
        assert!(!sniff(b"C 10 0x1f 5 Alarm\n"));
    }
}
