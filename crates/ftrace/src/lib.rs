//! atrace/ftrace text captures and systrace HTML, read into the tracekit
//! model.
//!
//! # What it reads
//! - ftrace text as `/sys/kernel/tracing/trace` prints it and `atrace`
//!   dumps it: with or without the TGID column (`(-----)` = unknown), with
//!   or without the irq-flags column (old kernels), `<...>`/`<idle>`/`<pid>`
//!   task placeholders, task names with spaces and dashes, `# tracer:`
//!   headers, `CPU:N [LOST M EVENTS]` notices;
//! - atrace's `capturing trace... done` and `TRACE:` prefixes, and `-z`
//!   output (`TRACE:` then a zlib stream; a stream cut short keeps what
//!   inflated; bytes after the stream's end are counted and ignored: atrace
//!   writes only the deflater's output, and the 17 600 such bytes in
//!   catapult's `compressed_atrace_data` are high-entropy (8.0 bits/byte)
//!   and inflate neither as zlib nor as raw deflate from any byte offset —
//!   the middle of some other deflate stream, most likely the tail of a
//!   longer file the capture was written over);
//! - systrace HTML: every `<script class="trace-data">` block holding
//!   ftrace text (see [`html`](crate#systrace-html)), and the 2012-era
//!   `var linuxPerfData = "…\n\` JavaScript string (also as a bare `.txt`).
//!
//! # What becomes what
//! | ftrace | model |
//! |---|---|
//! | `sched_switch` | [`SchedSlice`](tracekit_model::SchedSlice)s: consecutive switches on a CPU pair up; `prev_state` is the end state; the idle task (pid 0) is no slice; a CPU's last slice ends at the capture's end with no state |
//! | `sched_wakeup`, `_new`, `sched_waking` | counted per kind in `Session::skipped` (their `comm` names known threads) |
//! | `cpu_frequency` | counter `cpuN freq`, kHz, `cpu: Some(N)`, level |
//! | `cpu_idle` | counter `cpuN idle`, the C-state, level; leaving idle (`4294967295`, i.e. `(u32)-1`) is stored as **-1** |
//! | `clock_set_rate` / `clock_enable`, `clock_disable` | counters `clock NAME rate` (Hz) / `clock NAME enabled` (0/1) |
//! | `tracing_mark_write` (or `0`, `print`) `B\|pid\|name` / `E` | a call of `Method::new("", name, "")` on the writing thread |
//! | `C\|pid\|name\|value` | counter `name` with `pid: Some(pid)`, level (every name is kept, e.g. a user-space power sampler's) |
//! | `S`/`F\|pid\|name\|cookie`, `G`/`H\|pid\|track\|…` | [`AsyncSlice`](tracekit_model::AsyncSlice)s (category = track for `G`/`H`) |
//! | `I\|pid\|name`, free text | a [`Marker`](tracekit_model::Marker) on the writing thread |
//! | `N\|pid\|track\|name` | a zero-length async slice on the track |
//! | `trace_event_clock_sync:` | clocks, see below |
//! | `write_power_ringbuffer: v:V c:I e:E` (seed 002) and `V: I: E:` | counters [`power::BATTERY_VOLTAGE`](tracekit_model::power::BATTERY_VOLTAGE) (V, sampled), [`BATTERY_CURRENT`](tracekit_model::power::BATTERY_CURRENT) (A, sampled, sign as printed), [`BATTERY_CHARGE`](tracekit_model::power::BATTERY_CHARGE) (µAh, cumulative); one set per sampler thread (`pid` = its TGID) |
//! | anything else | counted per event name in `Session::skipped` |
//!
//! **Units of the seed's power lines.** The kernel patch prints the fuel
//! gauge's `voltage_now` (µV) and `current_now` (µA) and the *extended*
//! charge counter (`charge_counter_ext`, an `int64`, nAh). The seed's text
//! calls `e` µAh, but only nAh fits its own capture: over its 28 samples
//! `e` moves by 470 096 while ∫I dt is 431.8 µAh (470 096 µAh would need
//! about 590 A). So `e` is divided by 1000 into µAh.
//!
//! Every line is accounted for ([`Outcome`]): used, skipped by kind,
//! a comment/header, or a cut last line. Unbalanced markers are repaired
//! (codes in [`repair`]): an `E` with no open slice is dropped, slices open
//! at the end are closed at the last timestamp, and a timestamp earlier
//! than one already used (concatenated captures) is moved up to it, so
//! every thread's calls are balanced and in time order afterwards.
//!
//! # Clocks, and lining up with a method trace
//! The timeline starts (0 ns) at the first event that became part of the
//! model; ftrace timestamps are on the kernel's trace clock (`boot`,
//! `mono`, `local`, … whatever `trace_clock` was).
//! - atrace's `trace_event_clock_sync: parent_ts=S` says CLOCK_MONOTONIC
//!   was S when the marker was stamped T on the trace clock. Then
//!   `source_clock` is `monotonic` with `origin_ns` = the monotonic time at
//!   timeline 0 (`first + (S − T)`); without it, `source_clock` is `trace`
//!   with `origin_ns` = the first event's trace timestamp. atrace prints S
//!   from a 32-bit float: after a day of uptime it is good to ~10 ms only.
//! - `realtime_ts=MS` (CLOCK_REALTIME, ms) sets `anchor_unix_ns` = MS·10⁶ −
//!   (T − first): Unix time of timeline 0, to about a millisecond.
//! - `name=ID` markers (systrace's controller, shared with BattOr and
//!   Chrome agents) are kept as properties `clock_sync.name.ID` = timeline ns.
//!
//! An Android method trace of the same run (`tracekit-dmtrace`) has
//! `anchor_unix_ns` from its header's start time (the device's
//! `gettimeofday`, µs). Both anchors are the same device clock, so a method
//! event at `t_m` (ns on the method trace's timeline) is at
//! `t_m + (anchor_method − anchor_systrace)` on this timeline, within the
//! ~1 ms of `realtime_ts`. A source stamped with CLOCK_MONOTONIC instead
//! (ART's v4/v5 traces, tracekit's Linux sampler) lines up through
//! `source_clock`: `t_s = t_src + (origin_src − origin_ns)`.
//!
//! # systrace HTML
//! The trace text sits in `<script class="trace-data" type="application/text">`
//! blocks; the viewer's own JavaScript contains that tag's text escaped
//! inside a regular expression. The file is scanned as an HTML tokenizer
//! would (a script's text runs to `</script`), so only real tags count.
//! Blocks holding JSON from other agents are counted and skipped. Line
//! numbers in errors are lines of the HTML file.
//!
//! # Memory and errors
//! Input is streamed through a 256 KiB buffer (2 MiB at most, for long
//! lines); lines longer than 1 MiB are an
//! error (no ftrace line is); per-CPU state is bounded (CPU < 4096). Errors
//! name the input and the line, or the byte offset in a compressed body.
//!
//! ```
//! let text = b"# tracer: nop\n\
//!   surfaceflinger-303 ( 303) [000] ...1 457.206951: tracing_mark_write: B|303|hwc_set_primary\n\
//!   surfaceflinger-303 ( 303) [000] ...1 457.207107: tracing_mark_write: E\n";
//! let (s, outcome) = tracekit_ftrace::read_bytes_with_outcome(text, "demo").unwrap();
//! assert_eq!(s.call_event_count(), 2);
//! assert_eq!(outcome.unaccounted(), 0);
//! ```

mod error;
mod events;
mod html;
mod importer;
mod input;
mod line;
mod marker;
mod read;

pub use error::Error;
pub use events::IDLE_EXIT;
pub use importer::{Importer, Outcome};
pub use line::{field, is_placeholder, parse_event_line, parse_timestamp_ns, EventLine};
pub use marker::{parse_marker, parse_power_sample, AtraceMarker, ClockSync, MarkerError, PowerSample};
pub use read::{read_bytes, read_bytes_with_outcome, read_input, read_path, read_path_with_outcome, sniff};

/// Stable codes of the repairs the reader notes with
/// [`Session::note_repair`](tracekit_model::Session::note_repair).
pub mod repair {
    /// Events earlier than an event already used were moved up to its time.
    pub const TIME_BACKWARDS: &str = "time-backwards";
    /// `E` markers with no open slice on their thread, dropped.
    pub const END_WITHOUT_BEGIN: &str = "end-without-begin";
    /// Slices still open at the end, closed at the last timestamp.
    pub const OPEN_AT_END: &str = "open-at-end";
    /// `F`/`H` markers with no open async slice, dropped.
    pub const ASYNC_END_WITHOUT_BEGIN: &str = "async-end-without-begin";
    /// `S`/`G` markers for an async slice already open; the first is kept.
    pub const ASYNC_BEGIN_REPEATED: &str = "async-begin-repeated";
    /// A `sched_switch` named another previous thread than the one the CPU
    /// was running (events were lost); that slice's end state is unknown.
    pub const SCHED_MISMATCH: &str = "sched-switch-mismatch";
    /// The input ended inside a line that could not be read; it was dropped.
    pub const CUT_LINE: &str = "cut-line";
    /// The zlib body ended before its stream did; what inflated was kept.
    pub const COMPRESSED_TRUNCATED: &str = "compressed-body-truncated";
    /// Bytes after the end of the zlib body (count = bytes), ignored.
    pub const BYTES_AFTER_BODY: &str = "bytes-after-compressed-body";

    /// The sentence shown to users for a repair code.
    pub fn detail(code: &str, n: u64) -> String {
        match code {
            TIME_BACKWARDS => {
                format!("{n} events were earlier than an event before them and were moved up to its time")
            }
            END_WITHOUT_BEGIN => format!("{n} `E` markers ended no open slice on their thread and were dropped"),
            OPEN_AT_END => format!("{n} slices still open at the end were closed at the last timestamp"),
            ASYNC_END_WITHOUT_BEGIN => format!("{n} async-slice ends had no matching begin and were dropped"),
            ASYNC_BEGIN_REPEATED => format!("{n} async-slice begins repeated an open one; the first was kept"),
            SCHED_MISMATCH => {
                format!("{n} sched_switch events named another previous thread than the CPU ran (lost events)")
            }
            CUT_LINE => "the input ended inside a line, which was dropped".to_owned(),
            COMPRESSED_TRUNCATED => "the compressed body is cut short; what inflated was kept".to_owned(),
            BYTES_AFTER_BODY => format!(
                "{n} bytes after the end of the zlib stream were ignored (atrace writes none; \
                 they are not part of the trace)"
            ),
            _ => format!("{n} × {code}"),
        }
    }
}
