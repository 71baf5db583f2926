//! [`Importer`]: turns ftrace lines, one at a time, into a [`Session`].

use crate::error::{excerpt, Error};
use crate::line::{parse_event_line, parse_u64, trim, trim_start};
use crate::repair;
use std::collections::{BTreeSet, HashMap};
use tracekit_model::{CallEvent, Clocks, MethodId, Process, Session, SourceClock, Thread, ThreadId};

/// CPUs beyond this number make a line an error (keeps per-CPU state bounded).
pub(crate) const MAX_CPUS: u32 = 4096;

/// How every line of an import was accounted for. After a successful
/// import `lines == used + skipped + comments + cut_lines`
/// ([`Outcome::unaccounted`] is 0).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Trace lines read: every line of a text capture (inflated, for a
    /// compressed one), the lines of systrace HTML's trace-data blocks or
    /// `linuxPerfData` string; the HTML around them is not counted.
    pub lines: u64,
    /// Event lines whose content went into the session (including markers
    /// that were repaired, such as an `E` with no open slice).
    pub used: u64,
    /// Event lines of kinds tracekit does not use, counted per kind in
    /// [`Session::skipped`].
    pub skipped: u64,
    /// Comments and headers (`# tracer: nop`, `#P:4`), blank lines, tool
    /// output (`TRACE:`, `capturing trace... done`) and `CPU:N [LOST M EVENTS]`
    /// notices (whose counts go to [`Session::lost_events`]).
    pub comments: u64,
    /// 1 when the input ended inside a line that could not be read (dropped).
    pub cut_lines: u64,
    /// Bytes after the end of a zlib body, ignored.
    pub trailing_bytes: u64,
    /// systrace trace-data blocks that hold something other than ftrace text
    /// (JSON from other agents), skipped whole.
    pub foreign_blocks: u64,
}

impl Outcome {
    /// Lines neither used, skipped by kind, comments nor a cut tail: always
    /// 0 after a successful import (tests assert it on real captures).
    pub fn unaccounted(&self) -> i64 {
        self.lines as i64 - (self.used + self.skipped + self.comments + self.cut_lines) as i64
    }
}

/// What a handler did with an event line.
pub(crate) enum Took {
    Used,
    /// Counted under this kind in `Session::skipped`.
    Skipped(std::borrow::Cow<'static, str>),
    /// Counted under the event's own name.
    SkippedEvent,
}

pub(crate) struct Running {
    pub(crate) thread: ThreadId,
    pub(crate) tid: u32,
    pub(crate) start: u64,
    pub(crate) prio: Option<i32>,
}

pub(crate) struct OpenAsync {
    pub(crate) name: String,
    pub(crate) category: Option<String>,
    pub(crate) pid: u32,
    pub(crate) thread: ThreadId,
    pub(crate) start: u64,
    pub(crate) cookie: i64,
    /// Order of the begin markers, so slices left open are listed deterministically.
    pub(crate) seq: u64,
}

/// Builds a [`Session`] from ftrace lines fed one at a time, so any line
/// source (a file, an inflated body, HTML blocks, a live `trace_pipe`) can
/// drive it. Memory is the model plus a few maps keyed by thread, CPU and
/// counter name.
pub struct Importer {
    pub(crate) file: String,
    pub(crate) inflated: bool,
    pub(crate) s: Session,
    pub(crate) outcome: Outcome,
    pub(crate) threads: HashMap<u32, ThreadId>,
    pub(crate) stacks: Vec<Vec<MethodId>>,
    pub(crate) methods: HashMap<Vec<u8>, MethodId>,
    pub(crate) cpus: Vec<Option<Running>>,
    pub(crate) cpu_counters: HashMap<(u8, u32), usize>,
    pub(crate) named_counters: HashMap<Option<u32>, HashMap<Vec<u8>, usize>>,
    pub(crate) power_counters: HashMap<(u32, u8), usize>,
    pub(crate) open_async: HashMap<(u32, bool, Vec<u8>, i64), OpenAsync>,
    pub(crate) skipped: HashMap<String, u64>,
    pub(crate) pids: BTreeSet<u32>,
    pub(crate) origin: Option<u64>,
    pub(crate) first_ts: Option<u64>,
    pub(crate) max_ts: u64,
    /// Repair counts by code.
    pub(crate) repairs: HashMap<&'static str, u64>,
    /// (trace ns of the marker, CLOCK_MONOTONIC ns).
    pub(crate) parent_ts: Option<(u64, u64)>,
    /// (trace ns of the marker, CLOCK_REALTIME ms).
    pub(crate) realtime: Option<(u64, i64)>,
    /// `name=` sync ids with the trace ns of their marker.
    pub(crate) sync_names: Vec<(String, u64)>,
}

impl Importer {
    /// An importer for the input called `file` (used in errors and as the
    /// session's name).
    pub fn new(file: &str) -> Importer {
        Importer {
            file: file.to_owned(),
            inflated: false,
            s: Session::new(file, Clocks::WALL),
            outcome: Outcome::default(),
            threads: HashMap::new(),
            stacks: Vec::new(),
            methods: HashMap::new(),
            cpus: Vec::new(),
            cpu_counters: HashMap::new(),
            named_counters: HashMap::new(),
            power_counters: HashMap::new(),
            open_async: HashMap::new(),
            skipped: HashMap::new(),
            pids: BTreeSet::new(),
            origin: None,
            first_ts: None,
            max_ts: 0,
            repairs: HashMap::new(),
            parent_ts: None,
            realtime: None,
            sync_names: Vec::new(),
        }
    }

    /// Feeds one line (without its newline; a trailing `\r` is ignored).
    /// `line_no` is used in errors. `complete` is false for a last line the
    /// input cut short: if it does not parse it is dropped and noted as a
    /// repair instead of failing the import.
    pub fn feed(&mut self, line: &[u8], line_no: u64, complete: bool) -> Result<(), Error> {
        self.outcome.lines += 1;
        let line = trim(line);
        if line.is_empty() || line[0] == b'#' {
            self.header(line);
            self.outcome.comments += 1;
            return Ok(());
        }
        if line.starts_with(b"TRACE:") || line.starts_with(b"capturing trace") {
            self.outcome.comments += 1;
            return Ok(());
        }
        if let Some(lost) = lost_events(line) {
            self.s.lost_events = self.s.lost_events.saturating_add(lost);
            self.outcome.comments += 1;
            return Ok(());
        }
        let ev = match parse_event_line(line) {
            Ok(ev) => ev,
            // A cut last line is dropped, unless it is the only line: then
            // the input is simply not ftrace.
            Err(_) if !complete && self.outcome.lines > 1 => {
                self.outcome.cut_lines += 1;
                self.note(repair::CUT_LINE, 1);
                return Ok(());
            }
            Err(why) => return Err(self.line_error(line_no, format!("{why}: `{}`", excerpt(line, 120)))),
        };
        self.first_ts.get_or_insert(ev.ts_ns);
        match self.event(&ev, line_no)? {
            Took::Used => self.outcome.used += 1,
            Took::Skipped(kind) => self.count_skipped(&kind),
            Took::SkippedEvent => self.count_skipped(&String::from_utf8_lossy(ev.event)),
        }
        Ok(())
    }

    fn count_skipped(&mut self, kind: &str) {
        self.outcome.skipped += 1;
        match self.skipped.get_mut(kind) {
            Some(n) => *n += 1,
            None => {
                self.skipped.insert(kind.to_owned(), 1);
            }
        }
    }

    /// Counts a line of tool output that came before the text (a
    /// `capturing trace... done` or `TRACE:` before a zlib body).
    pub(crate) fn prefix_line(&mut self) {
        self.outcome.lines += 1;
        self.outcome.comments += 1;
    }

    pub(crate) fn line_error(&self, line: u64, message: String) -> Error {
        Error::Line {
            file: self.file.clone(),
            line,
            inflated: self.inflated,
            message,
        }
    }

    pub(crate) fn note(&mut self, code: &'static str, n: u64) {
        *self.repairs.entry(code).or_insert(0) += n;
    }

    fn header(&mut self, line: &[u8]) {
        if let Some(t) = line.strip_prefix(b"# tracer:") {
            let t = String::from_utf8_lossy(trim(t)).into_owned();
            self.s.properties.push(("tracer".into(), t));
        }
        if let Some(i) = memchr::memmem::find(line, b"#P:") {
            let n = &line[i + 3..];
            let end = n.iter().position(|c| !c.is_ascii_digit()).unwrap_or(n.len());
            self.s
                .properties
                .push(("cpus".into(), String::from_utf8_lossy(&n[..end]).into_owned()));
        }
        const ENTRIES: &[u8] = b"entries-in-buffer/entries-written:";
        if let Some(i) = memchr::memmem::find(line, ENTRIES) {
            let v = trim_start(&line[i + ENTRIES.len()..]);
            let end = v.iter().position(|c| c.is_ascii_whitespace()).unwrap_or(v.len());
            self.s
                .properties
                .push(("entries".into(), String::from_utf8_lossy(&v[..end]).into_owned()));
        }
    }

    /// The timeline time (ns since the first event that went into the
    /// model) of a trace timestamp; a timestamp earlier than one already
    /// used is moved up to it, so every track stays in time order.
    pub(crate) fn at(&mut self, ts: u64) -> u64 {
        let origin = *self.origin.get_or_insert(ts);
        let ts = if ts < self.max_ts {
            self.note(repair::TIME_BACKWARDS, 1);
            self.max_ts
        } else {
            self.max_ts = ts;
            ts
        };
        ts - origin
    }

    /// The thread with OS id `tid`, created on first sight; a real `comm`
    /// renames it and a known TGID sets its process.
    pub(crate) fn thread(&mut self, tid: u32, comm: Option<&[u8]>, tgid: Option<u32>) -> ThreadId {
        let id = match self.threads.get(&tid) {
            Some(&id) => id,
            None => {
                let id = self.s.add_thread(Thread::new(tid, ""));
                self.stacks.push(Vec::new());
                self.threads.insert(tid, id);
                id
            }
        };
        if let Some(c) = comm {
            self.rename(id, c);
        }
        if let Some(p) = tgid {
            let t = &mut self.s.threads[id.0 as usize];
            if t.pid != Some(p) {
                t.pid = Some(p);
                self.pids.insert(p);
            }
        }
        id
    }

    /// Renames a thread after a real `comm` (placeholders such as `<...>` are ignored).
    pub(crate) fn rename(&mut self, id: ThreadId, comm: &[u8]) {
        if comm.is_empty() || crate::line::is_placeholder(comm) {
            return;
        }
        let t = &mut self.s.threads[id.0 as usize];
        if t.name.as_bytes() != comm {
            t.name = String::from_utf8_lossy(comm).into_owned();
        }
    }

    /// The method id of a slice name.
    pub(crate) fn method(&mut self, name: &[u8]) -> MethodId {
        if let Some(&m) = self.methods.get(name) {
            return m;
        }
        let m = self.s.methods.intern(tracekit_model::Method::new(
            "",
            String::from_utf8_lossy(name).into_owned(),
            "",
        ));
        self.methods.insert(name.to_vec(), m);
        m
    }

    /// Ends the import: closes what is still open at the last timestamp,
    /// notes repairs and skipped kinds, and sets clocks and processes.
    pub fn finish(mut self) -> (Session, Outcome) {
        let end = self.max_ts.saturating_sub(self.origin.unwrap_or(0));
        self.close_open(end);
        let origin = self.origin.or(self.first_ts).unwrap_or(0);
        self.set_clocks(origin);
        for &pid in &self.pids {
            let name = self
                .threads
                .get(&pid)
                .map(|&id| self.s.threads[id.0 as usize].name.clone())
                .unwrap_or_default();
            self.s.processes.push(Process { pid, name });
        }
        let mut skipped: Vec<_> = self.skipped.into_iter().collect();
        skipped.sort();
        for (kind, n) in skipped {
            self.s.note_skipped(&kind, n);
        }
        let mut repairs: Vec<_> = self.repairs.into_iter().collect();
        repairs.sort();
        for (code, n) in repairs {
            self.s.note_repair(code, n, repair::detail(code, n));
        }
        if self.origin.is_some() {
            self.s.duration_ns = Some(end);
        }
        for i in 0..self.s.threads.len() {
            self.s.calls_mut(ThreadId(i as u32)).shrink_to_fit();
        }
        self.s.sched.shrink_to_fit();
        (self.s, self.outcome)
    }

    fn close_open(&mut self, end: u64) {
        let mut open = 0;
        for (i, stack) in self.stacks.iter_mut().enumerate() {
            while let Some(m) = stack.pop() {
                self.s.calls_mut(ThreadId(i as u32)).push(CallEvent::exit(m, end, None));
                open += 1;
            }
        }
        self.note(repair::OPEN_AT_END, open);
        for cpu in 0..self.cpus.len() {
            if let Some(r) = self.cpus[cpu].take() {
                self.s.sched.push(tracekit_model::SchedSlice {
                    cpu: cpu as u32,
                    ts_ns: r.start,
                    dur_ns: end - r.start,
                    thread: r.thread,
                    priority: r.prio,
                    end_state: None,
                });
            }
        }
        let mut still: Vec<OpenAsync> = self.open_async.drain().map(|(_, v)| v).collect();
        still.sort_by_key(|a| a.seq);
        for a in still {
            self.s.async_slices.push(tracekit_model::AsyncSlice {
                name: a.name,
                category: a.category,
                cookie: a.cookie as u64,
                pid: Some(a.pid),
                thread: Some(a.thread),
                ts_ns: a.start,
                dur_ns: 0,
                open: true,
            });
        }
        self.s.async_slices.sort_by_key(|a| a.ts_ns);
    }

    fn set_clocks(&mut self, origin: u64) {
        let props = &mut self.s.properties;
        self.s.source_clock = Some(match self.parent_ts {
            Some((marker, mono)) => {
                let offset = mono as i64 - marker as i64;
                props.push(("clock_sync.monotonic_minus_trace_ns".into(), offset.to_string()));
                SourceClock {
                    name: "monotonic".into(),
                    origin_ns: (origin as i64).saturating_add(offset),
                }
            }
            None => SourceClock {
                name: "trace".into(),
                origin_ns: origin as i64,
            },
        });
        if let Some((marker, ms)) = self.realtime {
            let since_origin = marker as i64 - origin as i64;
            self.s.anchor_unix_ns = ms.checked_mul(1_000_000).and_then(|ns| ns.checked_sub(since_origin));
            props.push(("clock_sync.realtime_ts_ms".into(), ms.to_string()));
            if ms < 100_000_000_000 {
                props.push((
                    "clock_sync.realtime_note".into(),
                    "realtime_ts is before 1973: the device clock was not set (or atrace printed a cut value); \
                     the anchor still lines up files written with the same device clock"
                        .into(),
                ));
            }
        }
        for (name, ts) in &self.sync_names {
            props.push((
                format!("clock_sync.name.{name}"),
                (*ts as i64 - origin as i64).to_string(),
            ));
        }
    }
}

/// The count of a `CPU:N [LOST M EVENTS]` notice.
fn lost_events(line: &[u8]) -> Option<u64> {
    let rest = line.strip_prefix(b"CPU:")?;
    let i = memchr::memmem::find(rest, b"[LOST ")?;
    let n = &rest[i + 6..];
    let end = n.iter().position(|c| !c.is_ascii_digit())?;
    n[end..].starts_with(b" EVENTS]").then(|| parse_u64(&n[..end]))?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lost_event_notices() {
        assert_eq!(lost_events(b"CPU:2 [LOST 1234 EVENTS]"), Some(1234));
        assert_eq!(lost_events(b"CPU:2 [LOST x EVENTS]"), None);
        assert_eq!(lost_events(b"CPUs"), None);
    }
}
