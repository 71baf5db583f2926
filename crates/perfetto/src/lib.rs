//! Perfetto traces (protobuf `Trace` files, `.perfetto-trace`/`.pftrace`),
//! read into and written from the tracekit model.
//!
//! The messages are hand-written `prost` structs holding only the fields
//! tracekit uses (`proto`); no `protoc` runs at build time. Packets are read
//! one at a time, streamed from the file in chunks, so memory is the model
//! itself plus a few MiB.
//!
//! # What goes where
//!
//! | Perfetto | model |
//! |---|---|
//! | track_event slices on a thread track | calls on that thread: `Method::new("", name, "")`, its `module` the slice's first category |
//! | slices on process, async or global tracks | [`AsyncSlice`](tracekit_model::AsyncSlice)s (category: the track's name) |
//! | instants on a thread track / other tracks | [`Marker`](tracekit_model::Marker)s / zero-length async slices (on a track described as [`TEXT_CONTEXT_TRACK`]: a text context item) |
//! | counter tracks (`TYPE_COUNTER`, extra counter values) | [`CounterTrack`](tracekit_model::CounterTrack)s with the descriptor's unit |
//! | a `COUNTER_THREAD_TIME_NS` child of a thread track, `thread_time_absolute_us` | the calls' thread-CPU time |
//! | ftrace `sched_switch`, `compact_sched` | [`SchedSlice`](tracekit_model::SchedSlice)s (end state as the kernel prints it) |
//! | ftrace `cpu_frequency` / `cpu_idle` | `cpuN freq` (kHz) / `cpuN idle` (state index, −1 when the CPU left idle), level counters per CPU |
//! | ftrace `print` (atrace `B`/`E`, `C`, `S`/`F`, `G`/`H`, `I`, `N`) | calls, per-process counters, async slices, markers |
//! | battery counters | `battery charge` (µAh), `battery capacity` (%), `battery current` (A), `battery voltage` (V), `battery energy` (J) ([`tracekit_model::power`]) |
//! | power rails | `rail NAME energy`, cumulative, J |
//! | process/thread descriptors, process_tree, sched comms | processes and threads (tid, pid, names) |
//! | clock snapshots | timestamps of other clocks converted to BOOTTIME; `anchor_unix_ns` from REALTIME |
//! | system_info | `properties`: `kernel`, `android.build`, `android.sdk`, `perfetto.version`, … |
//! | `compressed_packets` (zlib) | inflated (at most 64 MiB each) and read like the others |
//!
//! Everything else is counted in `Session::skipped` by kind (`packet
//! android_log`, `ftrace sched_wakeup`, …), never dropped in silence.
//!
//! Times stay on the trace clock (BOOTTIME): the timeline's 0 is the earliest
//! event, or the first clock snapshot (the start of tracing) when that came
//! first, and `source_clock` is `boot` with that origin. Thread-CPU times
//! are kept as the trace gives them (the thread's CPU time since it
//! started). The session has the thread-CPU clock only when every thread
//! with calls has it. Counter samples and text context records may come
//! before timeline 0 (negative times), as a context log may start first.
//!
//! Slices are paired as Perfetto pairs them: an end closes the innermost
//! open slice of its track. A thread's events are sorted by time first when
//! they came out of order (atrace markers are flushed per CPU). Ends with
//! nothing open are dropped and slices open at the end are closed at the
//! thread's last time, each noted as a repair (codes in [`repair`]); so
//! after import every thread's calls are balanced and time-ordered.
//!
//! # Writing
//!
//! [`write`] emits one trusted packet sequence: a clock snapshot (BOOTTIME
//! at the timeline's origin, REALTIME at the anchor when known), a
//! `TrackDescriptor` per process and per thread, a counter track per
//! numeric context item and counter, then every call as `TYPE_SLICE_BEGIN`
//! / `TYPE_SLICE_END` with interned names (`interned_data.event_names`),
//! markers as instants, async slices on their own tracks, and scheduling
//! slices as ftrace `sched_switch` events per CPU, per-CPU `cpuN freq` /
//! `cpuN idle` counters as ftrace `cpu_frequency` / `cpu_idle` events (so
//! Perfetto draws its own CPU tracks). A counter's kind, when not a level,
//! rides in its track's description. With the thread-CPU clock,
//! each thread gets a `COUNTER_THREAD_TIME_NS` track and every slice event
//! carries its reading as an extra counter value, which is how Perfetto
//! shows a slice's thread time.
//!
//! What does not survive a round trip: a thread's missing pid (written as
//! the session's only process, else the tid), async slices' cookies and
//! threads (their process and category are kept), and threads that only
//! the scheduler or the process tree named (they come back when they have
//! events or a track).
//!
//! ```
//! use tracekit_model::*;
//! let mut s = Session::new("demo", Clocks::WALL);
//! let t = s.add_thread(Thread::new(7, "main"));
//! let m = s.methods.intern(Method::new("", "draw", ""));
//! s.calls_mut(t).push(CallEvent::enter(m, 0, None));
//! s.calls_mut(t).push(CallEvent::exit(m, 1_500, None));
//! let mut bytes = Vec::new();
//! tracekit_perfetto::write(&s, &mut bytes).unwrap();
//! assert!(tracekit_perfetto::sniff(&bytes));
//! let back = tracekit_perfetto::read_bytes(&bytes, "demo.pftrace").unwrap();
//! let t = back.threads.iter().position(|t| t.tid == 7).unwrap();
//! assert_eq!(back.calls(ThreadId(t as u32)).get(1).ts_ns, 1_500);
//! ```

mod error;
mod import;
mod names;
pub mod proto;
mod read;
mod wire;
pub(crate) mod write;

pub use error::Error;
pub use read::{read_bytes, read_path, sniff};
pub use write::write;

/// Name of the debug annotation (a bool, true) that marks a slice end as an
/// exit by exception ([`CallKind::Unwind`](tracekit_model::CallKind)): the
/// writer adds it, the reader turns it back into an unwind.
pub const UNWIND_ANNOTATION: &str = "tracekit.unwind";

/// Description of a track that holds a text context item, one instant per
/// record named by the value: the writer sets it, the reader turns such a
/// track back into a text [`ContextTrack`](tracekit_model::ContextTrack).
pub const TEXT_CONTEXT_TRACK: &str = "tracekit text context item";

/// Stable codes of the repairs the reader notes with
/// [`Session::note_repair`](tracekit_model::Session::note_repair).
pub mod repair {
    /// The file ends inside a packet; the packets before it were read.
    pub const TRUNCATED: &str = "truncated";
    /// The last packet does not decode; the packets before it were read.
    pub const CORRUPT_LAST_PACKET: &str = "corrupt-last-packet";
    /// A slice end with no slice open on its track (or thread); dropped.
    pub const END_WITHOUT_BEGIN: &str = "end-without-begin";
    /// Slices still open at the end; closed at their thread's last time
    /// (async slices are kept as open).
    pub const OPEN_AT_END: &str = "open-at-end";
    /// Events on tracks no descriptor described; kept on a track of their own.
    pub const UNKNOWN_TRACK: &str = "unknown-track";
    /// Interned names referred to but never defined.
    pub const UNKNOWN_IID: &str = "unknown-interned-name";
    /// Events without a timestamp; skipped.
    pub const NO_TIMESTAMP: &str = "no-timestamp";
    /// ftrace bundles that say the kernel lost events before them.
    pub const FTRACE_DATA_LOSS: &str = "ftrace-data-loss";
    /// compact_sched columns of different lengths; the bundle's switches skipped.
    pub const BAD_COMPACT_SCHED: &str = "bad-compact-sched";
    /// An atrace async slice began again before it ended; the first start is lost.
    pub const ASYNC_REOPENED: &str = "async-reopened";
    /// Timestamps on a clock no snapshot defined; taken as BOOTTIME.
    pub const UNKNOWN_CLOCK: &str = "unknown-clock";

    /// One sentence for the user about a repair code.
    pub fn describe(code: &str) -> &'static str {
        match code {
            TRUNCATED => "the file ends inside a packet; the packets before it were read",
            CORRUPT_LAST_PACKET => "the last packet does not decode; the packets before it were read",
            END_WITHOUT_BEGIN => "slice ends with no slice open on their track were dropped",
            OPEN_AT_END => "slices still open at the end of the trace were closed at their thread's last event",
            UNKNOWN_TRACK => "events on tracks that no descriptor described were kept on tracks of their own",
            UNKNOWN_IID => "events referred to interned names the trace never defined",
            NO_TIMESTAMP => "events without a timestamp were skipped",
            FTRACE_DATA_LOSS => "the kernel lost ftrace events before some bundles",
            BAD_COMPACT_SCHED => "compact scheduling bundles with columns of different lengths were skipped",
            ASYNC_REOPENED => "atrace async slices began again before they ended; the earlier start was lost",
            UNKNOWN_CLOCK => "timestamps on clocks no clock snapshot defined were taken as BOOTTIME",
            _ => "repaired",
        }
    }
}
