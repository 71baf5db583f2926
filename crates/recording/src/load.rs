//! Loads a recording directory into a [`Session`]: decodes every thread
//! file, converts ticks to the timeline clock, symbolizes addresses, repairs
//! stacks left by `longjmp`, and attaches object, proxy, marker and context
//! events.

use crate::checkpoints::Checkpoints;
use crate::layout::{read_layout, thread_timeline, Layout};
use crate::meta::{TickConverter, CONTEXT_FILE};
use crate::skim::{Skim, Skimmed};
use crate::symbolize::{MapsHistory, Symbolizer};
use crate::thread_file::{stream_thread_file_from, thread_stats, RawEvent, ThreadStats};
use anyhow::Context as _;
use rustc_hash::FxHashMap;
use std::collections::HashMap;
use std::path::Path;
use tracekit_model::*;
use tracekit_rt_format::names::{self, RecordingFile};
use tracekit_rt_format::{ExtEvent, ExtKind, CLOCK_ORDER};

/// Per-thread event and lost-event counts of the recording in `dir`, read
/// without building a session (cheap even for hundreds of millions of events).
pub fn recording_stats(dir: &Path) -> anyhow::Result<Vec<ThreadStats>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).with_context(|| format!("{}: cannot list", dir.display()))? {
        let path = e?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some(RecordingFile::Thread { .. }) = names::parse(name) {
            out.push(thread_stats(&path)?);
        }
    }
    out.sort_by_key(|t| (t.header.pid, t.header.tid));
    Ok(out)
}

/// Receives a recording's balanced calls, thread by thread, as
/// [`stream_recording`] reads them.
pub trait RecordingSink {
    /// Calls of `thread` follow (`events`: how many the thread file holds).
    fn begin_thread(&mut self, thread: ThreadId, events: u64);
    /// One balanced call event of the current thread, in time order.
    fn call(&mut self, e: CallEvent);
    /// The current thread's calls are complete.
    fn end_thread(&mut self, thread: ThreadId);
    /// Whether the calls of `thread` are wanted (all are, by default). A
    /// thread that is not is still read, since its forks, methods and
    /// times belong to the session, but none of its calls is handed over
    /// and neither `begin_thread` nor `end_thread` is called for it.
    fn wants(&mut self, thread: &Thread) -> bool {
        let _ = thread;
        true
    }
    /// The time range `(start, end)` (ns on the session's timeline) whose
    /// calls are wanted (`None`, the default: every call). A reader may
    /// then leave out the calls before `start`, handing over instead, just
    /// before it, an enter for each frame still open there; and it may stop
    /// each thread soon after its first event past `end` (every call up to
    /// it is handed over, but not all the ones after it, nor their effect
    /// on the session's end).
    fn time_range_ns(&self) -> Option<(u64, u64)> {
        None
    }
    /// Whether [`RecordingSink::context`] should be called (not by default).
    fn wants_context(&self) -> bool {
        false
    }
    /// The recording's context samples, before any thread: a session with
    /// only its counters and context tracks (a time-window condition can be
    /// evaluated on it before the calls it selects stream by).
    fn context(&mut self, context: &Session) {
        let _ = context;
    }
}

/// Keeps every thread's calls (what [`load_recording`] does with them), or
/// those of a time range.
#[derive(Default)]
struct Keep {
    current: CallColumns,
    done: Vec<(ThreadId, CallColumns)>,
    range: Option<(u64, u64)>,
}

impl RecordingSink for Keep {
    fn time_range_ns(&self) -> Option<(u64, u64)> {
        self.range
    }
    fn begin_thread(&mut self, _: ThreadId, events: u64) {
        // A range keeps a part whose size is not known ahead.
        let expected = if self.range.is_some() { 0 } else { events as usize };
        self.current = CallColumns::with_capacity(expected, false);
    }
    fn call(&mut self, e: CallEvent) {
        self.current.push(e);
    }
    fn end_thread(&mut self, thread: ThreadId) {
        let mut c = std::mem::take(&mut self.current);
        c.shrink_to_fit();
        self.done.push((thread, c));
    }
}

/// Passes balanced events on to a [`RecordingSink`] (when it wants the
/// thread), noting the last time. Before `start` it only follows the open
/// frames; at the first event from `start` on, it hands over an enter for
/// each of them, 1 ns before `start`.
struct Forward<'a, S: RecordingSink> {
    sink: &'a mut S,
    wanted: bool,
    last_ts: u64,
    /// Calls before this time are not handed over.
    start: u64,
    /// The frames open before `start`, outermost first.
    open: Vec<MethodId>,
}

impl<S: RecordingSink> CallSink for Forward<'_, S> {
    #[inline]
    fn call(&mut self, e: CallEvent) {
        self.last_ts = self.last_ts.max(e.ts_ns);
        if !self.wanted {
            return;
        }
        if self.start > 0 {
            if e.ts_ns < self.start {
                match e.kind {
                    CallKind::Enter => self.open.push(e.method),
                    CallKind::Exit | CallKind::Unwind => {
                        self.open.pop();
                    }
                }
                return;
            }
            let before = self.start - 1;
            for m in std::mem::take(&mut self.open) {
                self.sink.call(CallEvent::enter(m, before, None));
            }
            self.start = 0;
        }
        self.sink.call(e);
    }
}

/// Loads the recording in `dir`.
///
/// A directory written by the runtime alone (no `tracekit record`: the
/// program linked the runtime or ran with `TRACEKIT_DIR` set) has no
/// `recording.json`; the anchor then comes from the earliest thread file and
/// ticks are converted with the clock pairs the runtime saved at exit.
pub fn load_recording(dir: &Path) -> anyhow::Result<Session> {
    load_recording_window(dir, None)
}

/// [`load_recording`] keeping only the calls of a time range `(start, end)`
/// (ns on the session's timeline) when one is given: the frames open at
/// `start` enter just before it, and each thread is read only up to soon
/// after `end` (see [`RecordingSink::time_range_ns`]). Memory is that of
/// the range's calls, whatever the length of the recording.
pub fn load_recording_window(dir: &Path, range: Option<(u64, u64)>) -> anyhow::Result<Session> {
    let mut keep = Keep {
        range,
        ..Keep::default()
    };
    let mut s = stream_recording(dir, &mut keep)?;
    for (t, c) in keep.done {
        s.set_calls(t, c);
    }
    Ok(s)
}

/// Reads the recording in `dir` like [`load_recording`], but hands every
/// thread's calls to `sink` as they are read instead of keeping them: the
/// session returned has processes, threads, methods, markers, objects,
/// context, repairs and lost events, and no calls. Memory is bounded by the
/// functions and the call depth, whatever the number of events.
pub fn stream_recording(dir: &Path, sink: &mut impl RecordingSink) -> anyhow::Result<Session> {
    let Layout { meta, stats, maps, tsc } = read_layout(dir)?;

    let name = meta
        .command
        .first()
        .map(|c| c.rsplit('/').next().unwrap_or(c).to_owned())
        .unwrap_or_default();
    let mut b = Builder {
        s: Session::new(name, Clocks::WALL),
        sym: Symbolizer::new(),
        methods: FxHashMap::default(),
        anchor_mono: meta.anchor_mono_ns,
        fork_stacks: HashMap::new(),
        last_ts: None,
    };
    b.s.anchor_unix_ns = Some(meta.anchor_unix_ns);
    b.s.properties.push(("command".into(), meta.command.join(" ")));
    if let Some(c) = meta.exit_code {
        b.s.properties.push(("exit-code".into(), c.to_string()));
    }
    if let Some(sig) = meta.signal {
        b.s.properties.push(("signal".into(), sig.to_string()));
    }
    let ctx = dir.join(CONTEXT_FILE);
    if sink.wants_context() {
        let mut early = Session::new(String::new(), Clocks::WALL);
        if ctx.exists() {
            crate::context_file::load_samples(&ctx, meta.anchor_mono_ns, &mut early)?;
        }
        sink.context(&early);
    }
    let empty = MapsHistory::default();
    // One thread file in memory at a time; a parent thread comes before the
    // child it forked (its `Fork` event precedes every event of the child).
    for (st, path) in &stats {
        let h = &st.header;
        if h.clock == CLOCK_ORDER {
            b.s.properties
                .push(("clock".into(), "order (timestamps are event numbers)".into()));
        }
        let m = maps.get(&(h.pid, h.image)).unwrap_or(&empty);
        b.add_thread(path, st, m, tsc, sink)?;
    }
    if ctx.exists() {
        crate::context_file::load_samples(&ctx, meta.anchor_mono_ns, &mut b.s)?;
    }
    let last_call = b.last_ts;
    let mut s = b.s;
    s.markers.sort_by_key(|m| m.ts_ns);
    s.objects.sort_by_key(|o| o.ts_ns);
    s.remote_calls.sort_by_key(|r| r.ts_ns);
    let hi = s.time_span().map(|(_, hi)| hi);
    s.duration_ns = match (hi, last_call) {
        (h, None) => h,
        (None, Some(c)) => Some(c),
        (Some(h), Some(c)) => Some(h.max(c)),
    };
    Ok(s)
}

/// Hands what the skimmed blocks left to the full reading: their functions
/// are interned in the order first seen, then their open frames enter the
/// balancer at the last skimmed time (before the window's start).
fn hand_over<S: RecordingSink>(
    b: &mut Builder,
    left: Skimmed,
    bal: &mut Balancer,
    cols: &mut Forward<'_, S>,
    method: &mut dyn FnMut(&mut Builder, u64, u64) -> MethodId,
    ts: &dyn Fn(u64) -> u64,
) {
    for &(a, raw) in &left.first_seen {
        method(b, a, raw);
    }
    if left.last_raw == 0 {
        return;
    }
    let at = ts(left.last_raw);
    cols.last_ts = cols.last_ts.max(at);
    for a in left.stack {
        let m = method(b, a, left.last_raw);
        bal.push(at, Step::Call(CallKind::Enter, m), cols);
    }
    for (env, depth) in left.setjmps {
        bal.note_setjmp(env, depth);
    }
}

struct Builder {
    s: Session,
    sym: Symbolizer,
    /// (pid, image, address) → method, for addresses whose mapping never changed.
    methods: FxHashMap<(u32, u64, u64), MethodId>,
    anchor_mono: u64,
    /// (pid, tid, stamp) of each `Fork` event → the frames open there.
    fork_stacks: HashMap<(u32, u32, u64), Vec<MethodId>>,
    /// Time of the last call event, when there was one.
    last_ts: Option<u64>,
}

impl Builder {
    fn method_at(&mut self, pid: u32, image: u64, maps: &MapsHistory, addr: u64, clock: u64) -> MethodId {
        if let Some(&m) = self.methods.get(&(pid, image, addr)) {
            return m;
        }
        // An address whose mapping changed over the run (a library unloaded
        // and another loaded in its place) is resolved at the event's time.
        let (mapping, stable) = match maps.unique(addr) {
            Some(m) => (Some(m), true),
            None => (maps.at(addr, clock), maps.at(addr, clock).is_none()),
        };
        let info = self.sym.lookup_in(mapping, addr);
        let mut m = Method::new("", info.name, "");
        m.module = info.module;
        m.address = info.module_address.or(Some(addr));
        m.source_file = info.file;
        m.line = info.line;
        let id = self.s.methods.intern(m);
        if stable {
            self.methods.insert((pid, image, addr), id);
        }
        id
    }

    /// Streams one thread file into the session (its events are never all
    /// held: each is symbolized and balanced as it is read).
    fn add_thread(
        &mut self,
        path: &Path,
        st: &ThreadStats,
        maps: &MapsHistory,
        tsc: TickConverter,
        sink: &mut impl RecordingSink,
    ) -> anyhow::Result<()> {
        let h = &st.header;
        if !self.s.processes.iter().any(|p| p.pid == h.pid) {
            let exe = maps
                .program_path()
                .map(|p| p.rsplit('/').next().unwrap_or(p).to_owned());
            self.s.processes.push(Process {
                pid: h.pid,
                name: exe.unwrap_or_else(|| h.name.clone()),
            });
        }
        let tid = self.s.add_thread(Thread {
            tid: h.tid,
            pid: Some(h.pid),
            name: h.name.clone(),
        });
        self.s.lost_events += h.lost;
        if h.lost > 0 {
            self.s.note_repair(
                "buffer-full",
                h.lost,
                "events dropped because a thread's buffer was full (counted exactly)",
            );
        }
        let (conv, anchor) = thread_timeline(h, tsc, self.anchor_mono);
        let ts = |raw: u64| conv.to_mono(raw).saturating_sub(anchor);
        let wanted = sink.wants(self.s.thread(tid));
        let range = sink.time_range_ns();
        let until = range.map(|(_, end)| end);
        if wanted {
            sink.begin_thread(tid, st.events);
        }
        let mut cols = Forward {
            sink,
            wanted,
            last_ts: 0,
            start: range.map_or(0, |(start, _)| start),
            open: Vec::new(),
        };
        let mut bal = Balancer::new();
        // A forked child's first thread starts inside the frames that were
        // open in its parent's forking thread.
        let inherited = if h.forked_from_tid != 0 {
            self.fork_stacks
                .get(&(h.ppid, h.forked_from_tid, h.fork_clock))
                .cloned()
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        if !inherited.is_empty() {
            let at = ts(h.fork_clock);
            for &m in &inherited {
                bal.push(at, Step::Call(CallKind::Enter, m), &mut cols);
            }
            self.s.inherited_frames.push((tid, inherited.len() as u32));
        }
        let (pid, image) = (h.pid, h.image);
        // This thread's addresses whose method never depends on the time.
        let mut local: FxHashMap<u64, MethodId> = FxHashMap::default();
        let mut method = |b: &mut Builder, a: u64, raw: u64| -> MethodId {
            if let Some(&m) = local.get(&a) {
                return m;
            }
            let m = b.method_at(pid, image, maps, a, raw);
            if b.methods.contains_key(&(pid, image, a)) {
                local.insert(a, m);
            }
            m
        };
        let past = |raw: u64| until.is_some_and(|u| ts(raw) > u);
        // Blocks that end before the window's start are skimmed or leapt
        // over (see skim.rs and leap.rs); the frames they leave open enter
        // the balancer before the first event read in full, after the
        // functions they first saw.
        let start = range.map_or(0, |(start, _)| start);
        // A window's read keeps checkpoints of the skim beside the thread
        // file, and starts from the last one before the window (see
        // checkpoints.rs).
        let on = start > 0 && inherited.is_empty();
        let mut skim = Skim::new(maps, &ts, start, on);
        let mut from = if on {
            Checkpoints::load(path)
                .or_else(|| Checkpoints::new_for(path))
                .and_then(|index| skim.resume(index, |at| crate::blocks::block_at(path, at)))
        } else {
            None
        };
        if on {
            from = skim.run(path, from)?;
            hand_over(self, skim.take(), &mut bal, &mut cols, &mut method, &ts);
        }
        stream_thread_file_from(path, from, past, |raw, ev| {
            let at = ts(raw);
            let step = match ev {
                RawEvent::Enter(a) => Step::Call(CallKind::Enter, method(self, a, raw)),
                RawEvent::Exit(a) => Step::Call(CallKind::Exit, method(self, a, raw)),
                RawEvent::Ext(x) => match x.sub {
                    ExtKind::NamedEnter | ExtKind::NamedExit => {
                        let name = x.strings.first().cloned().unwrap_or_default();
                        let m = self.s.methods.intern(Method::new("", name, ""));
                        let kind = if x.sub == ExtKind::NamedEnter {
                            CallKind::Enter
                        } else {
                            CallKind::Exit
                        };
                        Step::Call(kind, m)
                    }
                    ExtKind::Longjmp => Step::Longjmp(x.object_id),
                    ExtKind::Setjmp => Step::Setjmp(x.object_id),
                    ExtKind::Fork => Step::Fork(x.value),
                    _ => {
                        self.add_ext(at, pid, tid, &x);
                        return;
                    }
                },
            };
            bal.push(at, step, &mut cols);
        })?;
        if let Some(index) = skim.grown_index() {
            index.save(path);
        }
        for (code, n, detail) in bal.finish(&mut cols) {
            self.s.note_repair(code, n, detail);
        }
        for (stamp, stack) in std::mem::take(&mut bal.forks) {
            self.fork_stacks.insert((h.pid, h.tid, stamp), stack);
        }
        if cols.last_ts > 0 {
            self.last_ts = Some(self.last_ts.unwrap_or(0).max(cols.last_ts));
        }
        if cols.wanted {
            cols.sink.end_thread(tid);
        }
        Ok(())
    }

    fn add_ext(&mut self, ts_ns: u64, pid: u32, thread: ThreadId, x: &ExtEvent) {
        let st = |i: usize| x.strings.get(i).cloned().unwrap_or_default();
        let obj = |kind| ObjectEvent {
            ts_ns,
            pid,
            thread: Some(thread),
            kind,
            object_id: x.object_id,
            class: st(0),
            interface: x.strings.get(1).cloned(),
            operation: x.strings.get(2).cloned(),
        };
        let remote = |kind| RemoteCall {
            ts_ns,
            pid,
            remote_pid: x.remote_pid,
            thread: Some(thread),
            kind,
            object_id: x.object_id,
            class: st(0),
            interface: st(1),
            operation: st(2),
        };
        match x.sub {
            ExtKind::ObjectCreated => self.s.objects.push(obj(ObjectEventKind::Created)),
            ExtKind::ObjectDestroyed => self.s.objects.push(obj(ObjectEventKind::Destroyed)),
            ExtKind::OperationEntered => self.s.objects.push(obj(ObjectEventKind::OperationEntered)),
            ExtKind::OperationLeft => self.s.objects.push(obj(ObjectEventKind::OperationLeft)),
            ExtKind::ProxySync => self.s.remote_calls.push(remote(RemoteCallKind::ProxySync)),
            ExtKind::ProxyAsync => self.s.remote_calls.push(remote(RemoteCallKind::ProxyAsync)),
            ExtKind::Stub => self.s.remote_calls.push(remote(RemoteCallKind::Stub)),
            ExtKind::Marker => self.s.markers.push(Marker {
                ts_ns,
                thread,
                name: st(0),
            }),
            ExtKind::ContextInt => push_context(&mut self.s, &st(0), ts_ns, ContextValue::Long(x.value as i64)),
            ExtKind::ContextDouble => push_context(
                &mut self.s,
                &st(0),
                ts_ns,
                ContextValue::Double(f64::from_bits(x.value)),
            ),
            ExtKind::ContextText => push_context(&mut self.s, &st(0), ts_ns, ContextValue::Str(st(1))),
            ExtKind::NamedEnter | ExtKind::NamedExit | ExtKind::Longjmp | ExtKind::Setjmp | ExtKind::Fork => {}
        }
    }
}

fn push_context(s: &mut Session, label: &str, ts_ns: u64, v: ContextValue) {
    let i = match s.context.iter().position(|t| t.label == label && t.kind() == v.kind()) {
        Some(i) => i,
        None => {
            s.context.push(ContextTrack::new(label, v.kind()));
            s.context.len() - 1
        }
    };
    s.context[i].push(ts_ns as i64, v);
}

pub use crate::balance::{balance, balance_steps, Balanced, Balancer, CallSink, Step};

#[cfg(test)]
mod tests {
    use super::*;

    fn e(ts: u64, k: CallKind, m: u32) -> (u64, Option<(CallKind, MethodId)>) {
        (ts, Some((k, MethodId(m))))
    }

    #[test]
    fn longjmp_closes_abandoned_frames() {
        use CallKind::*;
        // run(1) { deep(2) { deeper(3) { longjmp } } } after(4) ; exit run
        let ev = vec![
            e(1, Enter, 1),
            e(2, Enter, 2),
            e(3, Enter, 3),
            (4, None),
            e(5, Enter, 4),
            e(6, Exit, 4),
            e(7, Exit, 1),
        ];
        let (c, notes) = balance(&ev);
        let kinds: Vec<_> = c.iter().map(|x| (x.kind, x.method.0, x.ts_ns)).collect();
        assert_eq!(
            kinds,
            vec![
                (Enter, 1, 1),
                (Enter, 2, 2),
                (Enter, 3, 3),
                (Exit, 3, 4),
                (Exit, 2, 4),
                (Enter, 4, 5),
                (Exit, 4, 6),
                (Exit, 1, 7)
            ]
        );
        assert_eq!(notes[0].1, 2);
    }

    #[test]
    fn longjmp_to_a_known_setjmp_returns_to_its_depth() {
        use CallKind::*;
        let c = |k, m| Step::Call(k, MethodId(m));
        // main(1) sets the buffer, then each round enters three frames and
        // jumps back; main never returns (exit()), so no later exit helps.
        let mut ev = vec![(1, c(Enter, 1)), (2, Step::Setjmp(0x10))];
        for r in 0..3u64 {
            let t = 10 * (r + 1);
            ev.extend([
                (t, c(Enter, 2)),
                (t + 1, c(Enter, 3)),
                (t + 2, c(Enter, 4)),
                (t + 3, Step::Longjmp(0x10)),
            ]);
        }
        ev.push((50, c(Enter, 5)));
        ev.push((51, c(Exit, 5)));
        let b = balance_steps(&ev);
        let depth_of_last = {
            let mut d = 0i64;
            let mut last = 0;
            for e in b.calls.iter() {
                if e.kind == Enter {
                    last = d;
                    d += 1;
                } else {
                    d -= 1;
                }
            }
            last
        };
        assert_eq!(depth_of_last, 1, "the call after the jumps nests under main only");
        assert_eq!(
            b.notes[0],
            (
                "longjmp-closed-frames",
                9,
                "frames abandoned by longjmp were closed at the jump"
            )
        );
    }

    #[test]
    fn fork_steps_keep_the_open_frames() {
        use CallKind::*;
        let ev = vec![
            (1, Step::Call(Enter, MethodId(1))),
            (2, Step::Call(Enter, MethodId(2))),
            (3, Step::Fork(77)),
            (4, Step::Call(Exit, MethodId(2))),
        ];
        assert_eq!(balance_steps(&ev).forks, vec![(77, vec![MethodId(1), MethodId(2)])]);
    }

    #[test]
    fn orphan_exit_dropped_and_missing_exit_closed() {
        use CallKind::*;
        let ev = vec![e(1, Exit, 9), e(2, Enter, 1), e(3, Enter, 2), e(4, Exit, 1)];
        let (c, notes) = balance(&ev);
        assert_eq!(c.len(), 4);
        assert_eq!(notes.len(), 2);
    }
}
