//! Threads and processes: one model thread per tid, named by the best
//! source seen (a track or process-tree descriptor, else the scheduler's
//! `comm`), and each thread's call stack while its slices are read.

use super::Importer;
use rustc_hash::FxHashMap;
use tracekit_model::{CallEvent, MethodId, Process, Session, Thread, ThreadId};

/// Method id of an exit whose method is not known yet (its thread's events
/// came out of order; `finish` pairs it with the innermost open slice).
pub(crate) const UNKNOWN_METHOD: MethodId = MethodId((1 << 30) - 1);

/// One thread's state while its calls are read.
#[derive(Debug, Default)]
pub(crate) struct Build {
    /// Methods of the slices open now (in file order).
    pub stack: Vec<MethodId>,
    /// Timestamp of the last call event pushed.
    pub last_ts: u64,
    /// Events came out of time order, or an end came with nothing open:
    /// `finish` sorts and pairs this thread's events again.
    pub rebuild: bool,
    /// Events that carried a thread-CPU reading, and events that did not.
    pub with_cpu: u64,
    pub without_cpu: u64,
}

/// What is known of a tid before or besides its model thread.
#[derive(Debug, Default)]
struct Info {
    pid: Option<u32>,
    name: Option<String>,
    comm: Option<String>,
}

/// Threads by tid, and what descriptors said about threads and processes.
#[derive(Debug, Default)]
pub(crate) struct Threads {
    by_tid: FxHashMap<u32, ThreadId>,
    pub build: Vec<Build>,
    info: FxHashMap<u32, Info>,
    process_names: FxHashMap<u32, String>,
    process_order: Vec<u32>,
}

impl Threads {
    /// The model thread of `tid`, added on first use.
    #[inline]
    pub(crate) fn id(&mut self, s: &mut Session, tid: u32) -> ThreadId {
        if let Some(&t) = self.by_tid.get(&tid) {
            return t;
        }
        let t = s.add_thread(Thread::new(tid, ""));
        self.by_tid.insert(tid, t);
        self.build.push(Build::default());
        t
    }

    /// A descriptor's facts about a thread (names from descriptors win over
    /// scheduler names).
    pub(crate) fn describe(&mut self, tid: u32, pid: Option<u32>, name: Option<String>) {
        let info = self.info.entry(tid).or_default();
        if pid.is_some() {
            info.pid = pid;
        }
        if let Some(n) = name.filter(|n| !n.is_empty()) {
            info.name = Some(n);
        }
        if let Some(p) = pid {
            self.note_process(p);
        }
    }

    /// The process a thread belongs to, unless a descriptor already said.
    pub(crate) fn set_pid_if_unknown(&mut self, tid: u32, pid: u32) {
        let info = self.info.entry(tid).or_default();
        if info.pid.is_none() {
            info.pid = Some(pid);
            self.note_process(pid);
        }
    }

    /// The scheduler's name for a thread (used when nothing better is known).
    pub(crate) fn comm(&mut self, tid: u32, comm: &[u8]) {
        let info = self.info.entry(tid).or_default();
        if info.comm.as_deref().map(str::as_bytes) != Some(comm) {
            info.comm = Some(String::from_utf8_lossy(comm).into_owned());
        }
    }

    /// A process's name.
    pub(crate) fn name_process(&mut self, pid: u32, name: String) {
        self.note_process(pid);
        let slot = self.process_names.entry(pid).or_default();
        if !name.is_empty() {
            *slot = name;
        }
    }

    fn note_process(&mut self, pid: u32) {
        if pid != 0 && !self.process_names.contains_key(&pid) {
            self.process_names.insert(pid, String::new());
            self.process_order.push(pid);
        }
    }

    /// Fills in names and processes: every thread gets its best name and
    /// its pid; every process named by a descriptor or owning a thread is
    /// listed (named after its main thread when nothing else named it).
    pub(crate) fn apply(&mut self, s: &mut Session) {
        for t in &mut s.threads {
            if let Some(info) = self.info.get(&t.tid) {
                t.pid = t.pid.or(info.pid);
                if let Some(n) = info.name.as_ref().or(info.comm.as_ref()) {
                    t.name = n.clone();
                }
            }
        }
        for t in &s.threads {
            if let Some(p) = t.pid {
                self.note_process(p);
            }
        }
        for &pid in &self.process_order {
            let mut name = self.process_names.get(&pid).cloned().unwrap_or_default();
            if name.is_empty() {
                if let Some(info) = self.info.get(&pid) {
                    name = info.name.clone().or_else(|| info.comm.clone()).unwrap_or_default();
                }
            }
            s.processes.push(Process { pid, name });
        }
    }
}

impl Importer {
    /// Pushes the entry of `m` on thread `t` at `ts` (trace clock).
    #[inline]
    pub(crate) fn push_enter(&mut self, t: ThreadId, m: MethodId, ts: u64, cpu: Option<u64>) {
        self.note_call(t, ts, cpu);
        let b = &mut self.threads.build[t.0 as usize];
        b.stack.push(m);
        self.s.calls_mut(t).push(CallEvent::enter(m, ts, cpu));
    }

    /// Pushes the end of the innermost open slice of thread `t`.
    #[inline]
    pub(crate) fn push_exit(&mut self, t: ThreadId, unwind: bool, ts: u64, cpu: Option<u64>) {
        self.note_call(t, ts, cpu);
        let b = &mut self.threads.build[t.0 as usize];
        let m = match b.stack.pop() {
            Some(m) => m,
            None => {
                // Nothing open in file order; in time order something may be.
                b.rebuild = true;
                UNKNOWN_METHOD
            }
        };
        let e = if unwind {
            CallEvent::unwind(m, ts, cpu)
        } else {
            CallEvent::exit(m, ts, cpu)
        };
        self.s.calls_mut(t).push(e);
    }

    #[inline]
    fn note_call(&mut self, t: ThreadId, ts: u64, cpu: Option<u64>) {
        self.saw(ts);
        let b = &mut self.threads.build[t.0 as usize];
        if ts < b.last_ts {
            b.rebuild = true;
        }
        b.last_ts = ts;
        match cpu {
            Some(_) => b.with_cpu += 1,
            None => b.without_cpu += 1,
        }
    }
}
