//! Sessions, processes, threads and repair notes.

use crate::calls::CallColumns;
use crate::context::{ContextTrack, CounterTrack};
use crate::events::{Marker, ObjectEvent, RemoteCall};
use crate::method::MethodTable;
use crate::system::{AsyncSlice, SchedSlice, SourceClock};
use crate::time::Clocks;
use serde::{Deserialize, Serialize};

/// Index of a thread in [`Session::threads`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ThreadId(pub u32);

/// An operating-system process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Process {
    /// Process id.
    pub pid: u32,
    /// Process name or command.
    pub name: String,
}

/// A thread of execution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Thread {
    /// Thread id as the operating system or VM numbered it.
    pub tid: u32,
    /// Owning process, when known.
    pub pid: Option<u32>,
    /// Thread name (may be empty).
    pub name: String,
}

impl Thread {
    /// A thread with an id and a name, process unknown.
    pub fn new(tid: u32, name: impl Into<String>) -> Thread {
        Thread {
            tid,
            pid: None,
            name: name.into(),
        }
    }

    /// The name, or `thread <tid>` when the name is empty.
    pub fn label(&self) -> String {
        if self.name.is_empty() {
            format!("thread {}", self.tid)
        } else {
            self.name.clone()
        }
    }
}

/// Something an importer had to fix in its input, and how often.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Repair {
    /// Stable short code, such as `exit-without-entry` or `clock-wrap`.
    pub code: String,
    /// How many times it happened.
    pub count: u64,
    /// One sentence for the user.
    pub detail: String,
}

/// One recorded session: everything tracekit knows about one run.
#[derive(Debug, Clone)]
pub struct Session {
    /// Name (usually the input's base name).
    pub name: String,
    /// Clock domains the call events carry.
    pub clocks: Clocks,
    /// Wall-clock time of timestamp 0, in ns since the Unix epoch, when known.
    pub anchor_unix_ns: Option<i64>,
    /// Wall-clock duration of the recording in ns, when the source states it.
    pub duration_ns: Option<u64>,
    /// Free-form `key=value` properties from the source, kept in order.
    pub properties: Vec<(String, String)>,
    /// Processes.
    pub processes: Vec<Process>,
    /// Threads; a [`ThreadId`] indexes this vector.
    pub threads: Vec<Thread>,
    /// Methods and functions.
    pub methods: MethodTable,
    calls: Vec<CallColumns>,
    /// Instant markers, in time order.
    pub markers: Vec<Marker>,
    /// Object lifetimes and operation bodies, in time order.
    pub objects: Vec<ObjectEvent>,
    /// Cross-process calls, in time order.
    pub remote_calls: Vec<RemoteCall>,
    /// Context tracks (seed 000's context items).
    pub context: Vec<ContextTrack>,
    /// Numeric counter tracks.
    pub counters: Vec<CounterTrack>,
    /// Which thread each CPU ran, in time order per CPU.
    pub sched: Vec<SchedSlice>,
    /// Named spans that are not calls on a thread's stack, in start order.
    pub async_slices: Vec<AsyncSlice>,
    /// The clock the source stamped events with, when it says.
    pub source_clock: Option<SourceClock>,
    /// Events the importer read but tracekit has no use for, counted per
    /// kind (ftrace event name, Perfetto packet field, Chrome phase), so
    /// nothing is dropped in silence.
    pub skipped: Vec<(String, u64)>,
    /// What the importers repaired.
    pub repairs: Vec<Repair>,
    /// Events the recorder knows it lost (overflow), counted exactly.
    pub lost_events: u64,
    /// Threads whose first enter events are frames they inherited rather
    /// than entered: a process created by `fork` returns from it inside the
    /// calls that were open in its parent, so its calls nest under copies of
    /// those frames (entered at the fork's time). `(thread, how many)`.
    pub inherited_frames: Vec<(ThreadId, u32)>,
}

impl Session {
    /// An empty session.
    pub fn new(name: impl Into<String>, clocks: Clocks) -> Session {
        Session {
            name: name.into(),
            clocks,
            anchor_unix_ns: None,
            duration_ns: None,
            properties: Vec::new(),
            processes: Vec::new(),
            threads: Vec::new(),
            methods: MethodTable::new(),
            calls: Vec::new(),
            markers: Vec::new(),
            objects: Vec::new(),
            remote_calls: Vec::new(),
            context: Vec::new(),
            counters: Vec::new(),
            sched: Vec::new(),
            async_slices: Vec::new(),
            source_clock: None,
            skipped: Vec::new(),
            repairs: Vec::new(),
            lost_events: 0,
            inherited_frames: Vec::new(),
        }
    }

    /// How many of the thread's first enter events are inherited frames
    /// (see [`Session::inherited_frames`]).
    pub fn inherited_frames_of(&self, id: ThreadId) -> u32 {
        self.inherited_frames
            .iter()
            .find(|(t, _)| *t == id)
            .map_or(0, |(_, n)| *n)
    }

    /// Adds a thread and returns its id.
    pub fn add_thread(&mut self, t: Thread) -> ThreadId {
        self.threads.push(t);
        self.calls.push(CallColumns::new());
        ThreadId(self.threads.len() as u32 - 1)
    }

    /// The id of the thread with OS id `tid` (and `pid`, if given), adding an
    /// unnamed thread when there is none.
    pub fn thread_by_tid(&mut self, tid: u32, pid: Option<u32>) -> ThreadId {
        if let Some(i) = self
            .threads
            .iter()
            .position(|t| t.tid == tid && (pid.is_none() || t.pid == pid))
        {
            return ThreadId(i as u32);
        }
        self.add_thread(Thread {
            tid,
            pid,
            name: String::new(),
        })
    }

    /// The thread with this id.
    pub fn thread(&self, id: ThreadId) -> &Thread {
        &self.threads[id.0 as usize]
    }

    /// The call events of a thread.
    pub fn calls(&self, id: ThreadId) -> &CallColumns {
        &self.calls[id.0 as usize]
    }

    /// Mutable call events of a thread.
    pub fn calls_mut(&mut self, id: ThreadId) -> &mut CallColumns {
        &mut self.calls[id.0 as usize]
    }

    /// Replaces a thread's call events.
    pub fn set_calls(&mut self, id: ThreadId, calls: CallColumns) {
        self.calls[id.0 as usize] = calls;
    }

    /// Iterates over `(thread id, thread, calls)`.
    pub fn thread_calls(&self) -> impl Iterator<Item = (ThreadId, &Thread, &CallColumns)> {
        self.threads
            .iter()
            .zip(&self.calls)
            .enumerate()
            .map(|(i, (t, c))| (ThreadId(i as u32), t, c))
    }

    /// Total number of call events over all threads.
    pub fn call_event_count(&self) -> usize {
        self.calls.iter().map(CallColumns::len).sum()
    }

    /// Records that an importer repaired something `count` times (merging
    /// with an earlier note of the same code).
    pub fn note_repair(&mut self, code: &str, count: u64, detail: impl Into<String>) {
        if count == 0 {
            return;
        }
        if let Some(r) = self.repairs.iter_mut().find(|r| r.code == code) {
            r.count += count;
        } else {
            self.repairs.push(Repair {
                code: code.to_owned(),
                count,
                detail: detail.into(),
            });
        }
    }

    /// Counts `n` more events of a kind the importer read but did not use.
    pub fn note_skipped(&mut self, kind: &str, n: u64) {
        if n == 0 {
            return;
        }
        match self.skipped.iter_mut().find(|(k, _)| k == kind) {
            Some((_, c)) => *c += n,
            None => self.skipped.push((kind.to_owned(), n)),
        }
    }

    /// Every item conditions and hints can name: the context tracks, then
    /// each counter track whose name no context track already uses, seen as
    /// a context item ([`CounterTrack::to_context`]).
    pub fn context_items(&self) -> Vec<std::borrow::Cow<'_, ContextTrack>> {
        let mut out: Vec<std::borrow::Cow<'_, ContextTrack>> =
            self.context.iter().map(std::borrow::Cow::Borrowed).collect();
        for c in &self.counters {
            if !c.is_empty() && !self.context.iter().any(|t| t.label == c.name) {
                out.push(std::borrow::Cow::Owned(c.to_context()));
            }
        }
        out
    }

    /// The context track with this label.
    pub fn context_track(&self, label: &str) -> Option<&ContextTrack> {
        self.context.iter().find(|t| t.label == label)
    }

    /// First and last timeline timestamp over calls, markers, scheduling and
    /// async slices (ns), if any.
    pub fn time_span(&self) -> Option<(u64, u64)> {
        let mut lo = u64::MAX;
        let mut hi = 0u64;
        for c in &self.calls {
            if let (Some(&a), Some(&b)) = (c.times().first(), c.times().last()) {
                lo = lo.min(a);
                hi = hi.max(b);
            }
        }
        for m in &self.markers {
            lo = lo.min(m.ts_ns);
            hi = hi.max(m.ts_ns);
        }
        for s in &self.sched {
            lo = lo.min(s.ts_ns);
            hi = hi.max(s.ts_ns + s.dur_ns);
        }
        for a in &self.async_slices {
            lo = lo.min(a.ts_ns);
            hi = hi.max(a.ts_ns + a.dur_ns);
        }
        (lo <= hi).then_some((lo, hi))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CallEvent, Method};

    #[test]
    fn threads_and_calls() {
        let mut s = Session::new("t", Clocks::WALL);
        let a = s.add_thread(Thread::new(5, "main"));
        assert_eq!(s.thread_by_tid(5, None), a);
        let b = s.thread_by_tid(9, Some(1));
        assert_eq!(s.thread(b).label(), "thread 9");
        let m = s.methods.intern(Method::new("A", "f", "()V"));
        s.calls_mut(b).push(CallEvent::enter(m, 3, None));
        s.calls_mut(b).push(CallEvent::exit(m, 7, None));
        assert_eq!(s.call_event_count(), 2);
        assert_eq!(s.time_span(), Some((3, 7)));
        s.note_repair("x", 2, "two");
        s.note_repair("x", 1, "two");
        s.note_repair("y", 0, "none");
        assert_eq!(s.repairs.len(), 1);
        assert_eq!(s.repairs[0].count, 3);
    }
}
