//! Chrome JSON trace events — the Trace Event Format that chrome://tracing,
//! Chrome DevTools, Catapult and Perfetto's JSON import read — into and out
//! of the tracekit model.
//!
//! # Reading
//!
//! Both forms are read: an array of events (which the format lets end
//! without its closing `]`), and an object with `traceEvents` beside
//! `metadata`, `displayTimeUnit`, `stackFrames`, `samples` and others.
//! The input streams through a window of about 1 MiB (larger only for a
//! single larger event), each event is parsed from it into a borrowed
//! struct (no JSON tree; unused fields and `args` skipped unparsed), and
//! calls go straight into each thread's columns, so peak memory is the
//! model plus the window. A file cut off anywhere keeps every complete
//! event before the cut (repair [`repair::TRUNCATED`], except for the
//! array form missing only its `]`, which is allowed).
//!
//! Mapping to the model:
//! - `B`/`E` and `X` (with `dur`) become calls on their thread
//!   (`pid`, `tid`): a method named as the event (`Method::new("", name,
//!   "")`), its category (`cat`) kept as the method's `module`. Methods are
//!   one per name: a name used in two categories keeps the first. Slices
//!   that do not nest are repaired and counted (see `calls.rs` and
//!   [`repair`]); afterwards every thread's calls are balanced and their
//!   times never decrease. An `E` with `args.unwind == true` (tracekit's
//!   export of an exit by exception) is an unwind.
//! - Thread time (`tts`, `tdur`) becomes the thread-CPU clock — a dual-clock
//!   session — only when *every* call event has it (`tdur` too for `X`);
//!   otherwise the session has the wall clock alone, because the model
//!   keeps the CPU clock for all calls or none.
//! - `i`/`I` become markers on the thread that emitted them, whatever their
//!   scope (thread, process or global): the model's markers belong to a
//!   thread.
//! - `C` counters: each numeric argument is a series, a counter track
//!   (level) named as the event when it has one series, `name.arg` when it
//!   has several, `name[id]` when it has an `id`, with ` (pid N)` added when
//!   several processes use the same name; the track keeps the pid.
//! - `M` names processes and threads and orders them (`process_sort_index`,
//!   `thread_sort_index`; otherwise first appearance).
//! - Async `b`/`e`/`n` (paired by category, scope, `id` or `id2` — `local`
//!   ids per process — and name) and legacy `S`/`F` become async slices;
//!   an `n` is one of no duration.
//! - Flow events (`s`/`t`/`f`), samples (`P`), marks (`R`), object events
//!   (`O`/`N`/`D`), async steps (`T`/`p`), context events, other `M` names,
//!   `samples` and `stackFrames` entries are counted per kind with
//!   [`Session::note_skipped`](tracekit_model::Session::note_skipped).
//! - Timeline 0 is the earliest imported event (calls, markers, counters,
//!   async slices); [`SourceClock`](tracekit_model::SourceClock) names the
//!   clock from `metadata["clock-domain"]` (`LINUX_CLOCK_MONOTONIC` →
//!   `monotonic`), else `trace`, with that earliest `ts` in ns as origin.
//!   `ts` in µs is converted to ns exactly from its decimal text.
//! - `metadata` scalars become session properties; tracekit's own
//!   `metadata.tracekit` carries the wall-clock anchor.
//!
//! # Writing
//!
//! [`write`] writes the object form; see `write.rs` for the mapping.
//!
//! ```
//! use tracekit_model::*;
//! let mut s = Session::new("demo", Clocks::WALL);
//! let main = s.add_thread(Thread::new(1, "main"));
//! let run = s.methods.intern(Method::new("com/example/App", "run", "()V"));
//! s.calls_mut(main).push(CallEvent::enter(run, 1_000, None));
//! s.calls_mut(main).push(CallEvent::exit(run, 2_500, None));
//! let mut json = Vec::new();
//! tracekit_chrome::write(&s, &mut json).unwrap();
//! assert!(tracekit_chrome::sniff(&json));
//! let back = tracekit_chrome::read_bytes(&json, "demo.json").unwrap();
//! let calls = back.calls(ThreadId(0));
//! assert_eq!(calls.get(1).ts_ns - calls.get(0).ts_ns, 1_500);
//! assert_eq!(back.methods.get(calls.get(0).method).name, "com.example.App.run ()V");
//! ```

mod build;
mod calls;
mod error;
mod event;
mod finish;
mod input;
mod read;
mod scan;
mod tracks;
mod write;

pub use error::Error;
pub use write::{write, DEFAULT_PID};

use std::path::Path;
use tracekit_model::Session;

/// Stable codes of the repairs the reader notes with
/// [`Session::note_repair`](tracekit_model::Session::note_repair).
pub mod repair {
    /// The input is cut off; complete events before the cut were kept.
    pub const TRUNCATED: &str = "truncated";
    /// A thread's events were not in time order; they were sorted.
    pub const UNSORTED: &str = "unsorted-thread";
    /// Slices that did not nest were shortened or lengthened to nest.
    pub const OVERLAPPING: &str = "overlapping-slice";
    /// An `E` whose name matched no open `B`, or closed slices above its own.
    pub const MISMATCHED_END: &str = "mismatched-end";
    /// An `E` with no open `B`: a slice from the thread's first event.
    pub const END_WITHOUT_BEGIN: &str = "end-without-begin";
    /// A `B` never ended: closed at its thread's last event.
    pub const OPEN_AT_END: &str = "open-at-end";
    /// Thread time went backwards on a thread; held at its last value.
    pub const THREAD_TIME_BACKWARDS: &str = "thread-time-backwards";
    /// An `X` without `dur`: read as lasting 0.
    pub const MISSING_DURATION: &str = "missing-duration";
    /// A negative `dur` or `tdur`: read as 0.
    pub const NEGATIVE_DURATION: &str = "negative-duration";
    /// An async end with no open begin: ignored.
    pub const ASYNC_END_WITHOUT_BEGIN: &str = "async-end-without-begin";
    /// An async begin never ended: kept as an open slice.
    pub const ASYNC_OPEN_AT_END: &str = "async-open-at-end";
}

/// True when `head` (the first up to 64 KiB of a file, maybe fewer) looks
/// like Chrome JSON trace events: an object with a `"traceEvents"` key in
/// it, or an array whose first element is an object with a `"ph"` key.
/// (An object whose `metadata` comes first and fills the 64 KiB is not
/// recognized.)
pub fn sniff(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let rest = trim_start(head);
    match rest.first() {
        Some(b'{') => memchr::memmem::find(rest, b"\"traceEvents\"").is_some(),
        Some(b'[') => {
            let after = trim_start(&rest[1..]);
            after.first() == Some(&b'{') && memchr::memmem::find(after, b"\"ph\"").is_some()
        }
        _ => false,
    }
}

fn trim_start(b: &[u8]) -> &[u8] {
    let n = b
        .iter()
        .take_while(|c| matches!(c, b' ' | b'\n' | b'\r' | b'\t'))
        .count();
    &b[n..]
}

/// Reads a file. Refuses non-regular files (FIFO, /dev/zero) with a clear
/// error. The session is named after the file's stem.
pub fn read_path(path: &Path) -> Result<Session, Error> {
    let file = path.display().to_string();
    let io = |source| Error::Io {
        file: file.clone(),
        source,
    };
    let refuse = |what: &str| Error::Unreadable {
        file: file.clone(),
        message: format!("{what}, not a regular file; a Chrome JSON trace is read from a file"),
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(refuse(kind_of(&meta)));
    }
    let f = std::fs::File::open(path).map_err(io)?;
    // Checked again on the open file, in case the path changed in between.
    let meta = f.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(refuse(kind_of(&meta)));
    }
    read::read_trace(f, &file, &stem(&file))
}

/// Reads from memory; `name` is used in error messages (and its stem names
/// the session).
pub fn read_bytes(bytes: &[u8], name: &str) -> Result<Session, Error> {
    read::read_trace(bytes, name, &stem(name))
}

/// Reads from any reader, in the same single pass as [`read_path`] (which
/// also checks that the path is a regular file); `name` is used in error
/// messages and its stem names the session.
pub fn read(reader: impl std::io::Read, name: &str) -> Result<Session, Error> {
    read::read_trace(reader, name, &stem(name))
}

fn stem(name: &str) -> String {
    Path::new(name)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_both_forms() {
        assert!(sniff(b"{\"traceEvents\": []}"));
        assert!(sniff(b"\xEF\xBB\xBF  [\n {\"ph\":\"X\""));
        assert!(sniff(b"[{\"name\":\"a\",\"ph\":\"B\""));
        assert!(!sniff(b"[1, 2]"));
        assert!(!sniff(
            b"{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\"}"
        ));
        assert!(!sniff(b"*version\n3\n"));
        assert!(!sniff(b""));
    }
}
