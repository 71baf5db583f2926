//! Turns decoded records into a balanced [`Session`], repairing what real
//! files contain.
//!
//! Repair codes (stable; see [`crate::repair`]): each is noted on the session
//! with how often it happened.

use crate::header::RawRecord;
use crate::ids::IdMap;
use crate::keys::KeySection;
use crate::repair;
use tracekit_model::{CallColumns, CallEvent, CallKind, Clocks, Method, MethodId, Process, Session, Thread, ThreadId};

/// Spare room per thread beyond the counted records, for synthesized exits.
const SLACK: usize = 64;
/// `thread_of_tid` holds thread index + 1; 0 (calloc-cheap) means none.
const NO_THREAD: u32 = 0;

/// How far back a raw clock reading may be and still be read as earlier
/// than the previous one (2^26 µs, about 67 s). Records of one trace only
/// ever go back by a little (threads interleaving their wall readings, a
/// late record from before a wrap); any reading further back than this is a
/// forward step across a 32-bit wrap. With this bound a forward gap of up to
/// 2^32 − 2^26 µs (about 70.5 min: a thread idle for 40 minutes, say) is read
/// as the gap it is, where a signed 32-bit difference took every gap over
/// 2^31 µs (35.8 min) for time going backwards.
const MAX_BACK_US: u32 = 1 << 26;

/// Undoes the 32-bit wrap of µs deltas: each raw value is taken as a step
/// forward from the previous one (modulo 2^32), unless it lies at most
/// [`MAX_BACK_US`] behind it.
#[derive(Debug, Default, Clone, Copy)]
struct Unwrap {
    started: bool,
    last_raw: u32,
    value: i64,
    epoch: i64,
}

impl Unwrap {
    #[inline(always)]
    fn next(&mut self, raw: u32, wraps: &mut u64) -> u64 {
        if self.started {
            // The step modulo 2^32; its top MAX_BACK_US values are the small
            // backward steps (as `as i32` made the top 2^31 before).
            const BACK_FROM: u32 = u32::MAX - MAX_BACK_US + 1;
            let d = raw.wrapping_sub(self.last_raw);
            self.value += i64::from(d) - if d >= BACK_FROM { 1 << 32 } else { 0 };
        } else {
            self.started = true;
            self.value = i64::from(raw);
        }
        self.last_raw = raw;
        let epoch = self.value >> 32;
        if epoch > self.epoch {
            *wraps += (epoch - self.epoch) as u64;
            self.epoch = epoch;
        }
        self.value.max(0) as u64
    }
}

/// Per-thread reading state.
#[derive(Default)]
struct ThreadState {
    stack: Vec<MethodId>,
    /// Methods exited without an entry, innermost first; their enters are
    /// synthesized at the thread's first timestamp.
    prefix: Vec<MethodId>,
    last_ts: u64,
    last_cpu: u64,
    cpu: Unwrap,
}

/// How often each repair happened.
#[derive(Default)]
struct Counts {
    wraps_wall: u64,
    wraps_cpu: u64,
    exit_without_entry: u64,
    mismatched_exit: u64,
    open_at_end: u64,
    unknown_method: u64,
    unknown_thread: u64,
    invalid_action: u64,
    time_backwards: u64,
}

/// Builds a session record by record.
pub(crate) struct Builder {
    session: Session,
    has_cpu: bool,
    has_wall: bool,
    pid: Option<u32>,
    thread_of_tid: Box<[u32; 1 << 16]>,
    threads: Vec<ThreadState>,
    methods: IdMap,
    wall: Unwrap,
    counts: Counts,
    /// Records per thread id, from [`Builder::allocate`].
    tid_records: Vec<u32>,
}

impl Builder {
    /// A builder for a file with these keys, clocks and start time.
    pub(crate) fn new(keys: &KeySection, clocks: Clocks, start_unix_us: u64) -> Builder {
        let mut session = Session::new("", clocks);
        session.anchor_unix_ns = i64::try_from(u128::from(start_unix_us) * 1000).ok();
        session.duration_ns = keys
            .property("elapsed-time-usec")
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(|us| us.saturating_mul(1000));
        session.properties = keys.properties.clone();
        let pid = keys.property("pid").and_then(|v| v.trim().parse::<u32>().ok());
        if let Some(pid) = pid {
            session.processes.push(Process {
                pid,
                name: String::new(),
            });
        }
        if let Some(clock) = keys.property("clock") {
            if !matches!(clock.trim(), "dual" | "wall" | "global" | "thread-cpu") {
                session.note_repair(
                    repair::UNKNOWN_CLOCK,
                    1,
                    format!(
                        "clock={:?} is none of thread-cpu, wall, dual: read as {} from the record layout",
                        clock.trim(),
                        clocks.name()
                    ),
                );
            }
        }
        if keys.property("data-file-overflow").map(str::trim) == Some("true") {
            session.note_repair(repair::DATA_FILE_OVERFLOW, 1, "the recorder's buffer overflowed (data-file-overflow=true): records stop early and open calls were closed at the end");
        }
        let max_id = keys.methods.iter().map(|m| m.id).max().unwrap_or(0);
        let mut b = Builder {
            session,
            has_cpu: clocks.thread_cpu,
            has_wall: clocks.wall,
            pid,
            thread_of_tid: vec![NO_THREAD; 1 << 16]
                .into_boxed_slice()
                .try_into()
                .expect("65536 slots"),
            threads: Vec::new(),
            methods: IdMap::with_max_id(max_id),
            wall: Unwrap::default(),
            counts: Counts::default(),
            tid_records: Vec::new(),
        };
        for m in &keys.methods {
            b.add_method(
                m.id,
                Method {
                    class: m.class.clone(),
                    name: m.name.clone(),
                    signature: m.signature.clone(),
                    source_file: m.source_file.clone(),
                    line: m.line,
                    module: None,
                    address: Some(u64::from(m.id)),
                },
            );
        }
        for (tid, name) in &keys.threads {
            b.add_thread(*tid, name.clone());
        }
        b
    }

    /// Adds a method definition (ignored when the id is already known).
    pub(crate) fn add_method(&mut self, id: u32, m: Method) {
        let next = self.session.methods.len() as u32;
        if next >= (1 << 30) {
            return;
        }
        if self.methods.insert(id & !3, next) {
            self.session.methods.push(m);
        }
    }

    /// Adds a named thread (a second name for a known id renames it when the
    /// first was empty).
    pub(crate) fn add_thread(&mut self, tid: u32, name: String) -> ThreadId {
        if let Some(slot) = self.thread_of_tid.get(tid as usize) {
            if *slot != NO_THREAD {
                let id = ThreadId(*slot - 1);
                if self.session.threads[id.0 as usize].name.is_empty() {
                    self.session.threads[id.0 as usize].name = name;
                }
                return id;
            }
        }
        let id = self.session.add_thread(Thread {
            tid,
            pid: self.pid,
            name,
        });
        if let Some(slot) = self.thread_of_tid.get_mut(tid as usize) {
            *slot = id.0 + 1;
        }
        self.threads.push(ThreadState::default());
        self.reserve(id);
        id
    }

    #[inline(always)]
    fn thread(&mut self, tid: u16) -> ThreadId {
        let slot = self.thread_of_tid[usize::from(tid)];
        if slot != NO_THREAD {
            return ThreadId(slot - 1);
        }
        self.counts.unknown_thread += 1;
        self.add_thread(u32::from(tid), format!("[{tid}]"))
    }

    #[inline(always)]
    fn method(&mut self, id: u32) -> MethodId {
        match self.methods.get(id) {
            Some(m) => MethodId(m),
            None => self.unknown_method(id),
        }
    }

    #[cold]
    fn unknown_method(&mut self, id: u32) -> MethodId {
        self.counts.unknown_method += 1;
        let mut m = Method::new("", format!("({id:#x})"), "");
        m.address = Some(u64::from(id));
        let next = self.session.methods.len() as u32;
        if next >= (1 << 30) {
            return MethodId(0);
        }
        self.methods.insert(id, next);
        self.session.methods.push(m)
    }

    /// Consumes one record (clocks decided at run time).
    #[inline]
    pub(crate) fn record(&mut self, r: RawRecord) {
        match (self.has_wall, self.has_cpu) {
            (true, true) => self.record_as::<true, true>(r),
            (true, false) => self.record_as::<true, false>(r),
            _ => self.record_as::<false, true>(r),
        }
    }

    /// Takes the number of records of each thread id (counted by a first
    /// pass) and gives every thread, now and when it appears, columns with
    /// exactly that much room (plus a little for synthesized exits).
    pub(crate) fn allocate(&mut self, tid_records: Vec<u32>) {
        self.tid_records = tid_records;
        for i in 0..self.session.threads.len() {
            self.reserve(ThreadId(i as u32));
        }
    }

    fn reserve(&mut self, id: ThreadId) {
        let tid = self.session.thread(id).tid as usize;
        let n = self.tid_records.get(tid).copied().unwrap_or(0) as usize;
        if n > 0 && self.session.calls(id).is_empty() {
            self.session
                .set_calls(id, CallColumns::with_capacity(n + SLACK, self.has_cpu));
        }
    }

    /// Consumes one record of a file whose clocks are `WALL` and `CPU`.
    #[inline(always)]
    pub(crate) fn record_as<const WALL: bool, const CPU: bool>(&mut self, r: RawRecord) {
        let Some(kind) = CallKind::from_bits(r.word) else {
            self.counts.invalid_action += 1;
            return;
        };
        let tid = self.thread(r.tid);
        let method = self.method(r.word & !3);
        let (cpu_raw, wall_raw) = raw_times::<WALL, CPU>(r);
        let wall_us = if WALL {
            self.wall.next(wall_raw, &mut self.counts.wraps_wall)
        } else {
            0
        };
        let st = &mut self.threads[tid.0 as usize];
        apply::<WALL, CPU>(
            st,
            self.session.calls_mut(tid),
            &mut self.counts,
            kind,
            method,
            wall_us,
            cpu_raw,
        );
    }

    /// Adds a method without a file id of 32 bits (the newer format names
    /// methods by 64-bit pointers; the caller maps them).
    pub(crate) fn push_method(&mut self, m: Method) -> MethodId {
        self.session.methods.push(m)
    }

    /// Gives thread `id` room for `n` events (before its first event).
    pub(crate) fn reserve_thread(&mut self, id: ThreadId, n: usize) {
        if n > 0 && self.session.calls(id).is_empty() {
            self.session
                .set_calls(id, CallColumns::with_capacity(n + SLACK, self.has_cpu));
        }
    }

    /// Consumes one event whose times are exact ns (no 32-bit wrap): wall
    /// time since the trace start, thread-CPU time since the thread's first
    /// reading.
    pub(crate) fn record_exact(&mut self, tid: ThreadId, kind: CallKind, method: MethodId, wall_ns: u64, cpu_ns: u64) {
        let st = &mut self.threads[tid.0 as usize];
        let calls = self.session.calls_mut(tid);
        match (self.has_wall, self.has_cpu) {
            (true, true) => place::<true, true>(st, calls, &mut self.counts, kind, method, wall_ns, cpu_ns),
            (true, false) => place::<true, false>(st, calls, &mut self.counts, kind, method, wall_ns, cpu_ns),
            _ => place::<false, true>(st, calls, &mut self.counts, kind, method, wall_ns, cpu_ns),
        }
    }

    /// Closes what is still open, prepends synthesized enters, notes the
    /// repairs and returns the session.
    pub(crate) fn finish(mut self) -> Session {
        for (i, st) in self.threads.iter_mut().enumerate() {
            let id = ThreadId(i as u32);
            let cpu = self.has_cpu.then_some(st.last_cpu);
            while let Some(open) = st.stack.pop() {
                self.session.calls_mut(id).push(CallEvent::exit(open, st.last_ts, cpu));
                self.counts.open_at_end += 1;
            }
            if !st.prefix.is_empty() {
                let old = std::mem::take(self.session.calls_mut(id));
                let first = old.get(0);
                let (ts, cpu) = (first.ts_ns, first.cpu_ns);
                let mut fixed = CallColumns::with_capacity(old.len() + st.prefix.len(), self.has_cpu);
                for &m in st.prefix.iter().rev() {
                    fixed.push(CallEvent::enter(m, ts, cpu));
                }
                for e in old.iter() {
                    fixed.push(e);
                }
                self.session.set_calls(id, fixed);
            }
            let calls = self.session.calls_mut(id);
            if calls.heap_bytes() > 2 * calls.len() * 20 + 4096 {
                calls.shrink_to_fit();
            }
        }
        let c = &self.counts;
        let s = &mut self.session;
        s.note_repair(
            repair::CLOCK_WRAP,
            c.wraps_wall + c.wraps_cpu,
            "32-bit µs clock deltas wrapped (every ~71.6 min) and were unwrapped",
        );
        s.note_repair(
            repair::EXIT_WITHOUT_ENTRY,
            c.exit_without_entry,
            "methods exited without an entry in the trace; an enter was synthesized at the thread's first timestamp",
        );
        s.note_repair(
            repair::MISMATCHED_EXIT,
            c.mismatched_exit,
            "exits did not match the innermost open method; the methods above the match were closed",
        );
        s.note_repair(
            repair::OPEN_AT_END,
            c.open_at_end,
            "methods were still running when tracing stopped; exits were synthesized at the thread's last timestamp",
        );
        s.note_repair(
            repair::UNKNOWN_METHOD,
            c.unknown_method,
            "records named method ids missing from *methods; placeholders named (0x<id>) were created",
        );
        s.note_repair(
            repair::UNKNOWN_THREAD,
            c.unknown_thread,
            "records named thread ids missing from *threads; threads named [<tid>] were created",
        );
        s.note_repair(
            repair::INVALID_ACTION,
            c.invalid_action,
            "records with the unused action value 3 were skipped",
        );
        s.note_repair(
            repair::TIME_BACKWARDS,
            c.time_backwards,
            "a thread's timestamps went backwards and were held at the previous value",
        );
        self.session
    }

    /// Notes a repair the reader (not the builder) made.
    pub(crate) fn note(&mut self, code: &str, count: u64, detail: &str) {
        self.session.note_repair(code, count, detail);
    }
}

/// The (thread-CPU, wall) raw times of a record: dual files store CPU then
/// wall; single-clock files their one clock in `t1`.
#[inline(always)]
fn raw_times<const WALL: bool, const CPU: bool>(r: RawRecord) -> (u32, u32) {
    if WALL && CPU {
        (r.t1, r.t2)
    } else {
        (r.t1, r.t1)
    }
}

/// Applies one record to its thread: CPU unwrap, per-thread clamping of
/// both clocks, and the stack discipline that keeps calls balanced.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn apply<const WALL: bool, const CPU: bool>(
    st: &mut ThreadState,
    calls: &mut CallColumns,
    counts: &mut Counts,
    kind: CallKind,
    method: MethodId,
    wall_us: u64,
    cpu_raw: u32,
) {
    let cpu_ns = if CPU {
        st.cpu.next(cpu_raw, &mut counts.wraps_cpu).saturating_mul(1000)
    } else {
        0
    };
    place::<WALL, CPU>(st, calls, counts, kind, method, wall_us.saturating_mul(1000), cpu_ns);
}

/// Places one event with exact times: holds each clock at its previous
/// value if it went back, then keeps the thread's calls balanced.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn place<const WALL: bool, const CPU: bool>(
    st: &mut ThreadState,
    calls: &mut CallColumns,
    counts: &mut Counts,
    kind: CallKind,
    method: MethodId,
    wall_ns: u64,
    mut cpu_ns: u64,
) {
    if CPU {
        if cpu_ns < st.last_cpu {
            counts.time_backwards += 1;
            cpu_ns = st.last_cpu;
        }
        st.last_cpu = cpu_ns;
    }
    let mut ts = if WALL { wall_ns } else { cpu_ns };
    if ts < st.last_ts {
        counts.time_backwards += 1;
        ts = st.last_ts;
    }
    st.last_ts = ts;
    let cpu = if CPU { Some(cpu_ns) } else { None };
    if kind == CallKind::Enter {
        st.stack.push(method);
        calls.push(CallEvent::enter(method, ts, cpu));
    } else if st.stack.last() == Some(&method) {
        st.stack.pop();
        calls.push(CallEvent {
            kind,
            method,
            ts_ns: ts,
            cpu_ns: cpu,
        });
    } else {
        unmatched_exit(
            st,
            calls,
            counts,
            CallEvent {
                kind,
                method,
                ts_ns: ts,
                cpu_ns: cpu,
            },
        );
    }
}

/// An exit that is not the innermost open method: close the methods above
/// its match, or (no match) close everything and remember the method for
/// an enter synthesized at the thread's start.
#[cold]
#[inline(never)]
fn unmatched_exit(st: &mut ThreadState, calls: &mut CallColumns, counts: &mut Counts, e: CallEvent) {
    let keep = match st.stack.iter().rposition(|&m| m == e.method) {
        Some(pos) => pos + 1,
        None => {
            st.prefix.push(e.method);
            counts.exit_without_entry += 1;
            0
        }
    };
    while st.stack.len() > keep {
        let open = st.stack.pop().expect("len > keep");
        calls.push(CallEvent::exit(open, e.ts_ns, e.cpu_ns));
        counts.mismatched_exit += 1;
    }
    st.stack.truncate(keep.saturating_sub(1));
    calls.push(e);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unwrap_handles_wraps_both_ways() {
        let mut u = Unwrap::default();
        let mut wraps = 0;
        assert_eq!(u.next(u32::MAX - 5, &mut wraps), u64::from(u32::MAX - 5));
        assert_eq!(u.next(3, &mut wraps), (1u64 << 32) + 3);
        assert_eq!(wraps, 1);
        // A slightly late record from before the wrap stays before it.
        assert_eq!(u.next(u32::MAX - 1, &mut wraps), u64::from(u32::MAX - 1));
        assert_eq!(u.next(10, &mut wraps), (1u64 << 32) + 10);
        assert_eq!(wraps, 1);
    }

    #[test]
    fn long_forward_gaps_are_not_time_going_back() {
        let mut u = Unwrap::default();
        let mut wraps = 0;
        let forty_min = 40 * 60 * 1_000_000u64;
        assert_eq!(u.next(1000, &mut wraps), 1000);
        // 40 minutes is more than 2^31 µs: still a step forward.
        assert_eq!(u.next((1000 + forty_min) as u32, &mut wraps), 1000 + forty_min);
        let t = 1000 + 2 * forty_min + 5;
        assert_eq!(u.next(t as u32, &mut wraps), t, "crosses 2^32 µs");
        assert_eq!(wraps, 1);
        // A little back is back; at the bound too.
        assert_eq!(u.next((t - 30) as u32, &mut wraps), t - 30);
        let back = t - 30 - u64::from(MAX_BACK_US);
        assert_eq!(u.next(back as u32, &mut wraps), back);
        // One more µs back than the bound is a forward step instead.
        let fwd = back + (1 << 32) - u64::from(MAX_BACK_US) - 1;
        assert_eq!(u.next(fwd as u32, &mut wraps), fwd);
    }
}
