//! One pass over a thread's call events that rebuilds the call stack and
//! reports every call as it closes. Profiles and call trees are both built
//! on this walk, so their notions of time always agree.
//!
//! Times can be restricted to a window (an [`IntervalSet`] on the session
//! timeline): a call then contributes only the part of its duration that
//! falls inside, CPU time is apportioned to the wall time inside, and a call
//! is *counted* only when it starts inside.

use crate::intervals::IntervalSet;
use tracekit_model::{CallColumns, CallEvent, CallKind, MethodId};

/// A call that has just closed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Closed {
    /// The method.
    pub method: MethodId,
    /// The calling method (`None` at the top of the stack).
    pub parent: Option<MethodId>,
    /// Inclusive real (timeline) time, restricted to the window.
    pub real: u64,
    /// Inclusive thread-CPU time, restricted to the window.
    pub cpu: u64,
    /// Real time spent in callees.
    pub child_real: u64,
    /// CPU time spent in callees.
    pub child_cpu: u64,
    /// The method was not already on the stack when this call started.
    pub outermost: bool,
    /// The call started inside the window (always true without one).
    pub counted: bool,
    /// Real time when the call started (the event's timestamp without a window).
    pub start_real: u64,
    /// Thread-CPU time when the call started (0 without that clock).
    pub start_cpu: u64,
}

/// Receives the walk's events.
pub(crate) trait Visitor {
    /// A call to `method` started at stack depth `depth` (0 = top level).
    fn enter(&mut self, method: MethodId, depth: usize, counted: bool);
    /// The innermost open call closed.
    fn exit(&mut self, closed: &Closed);
}

struct Frame {
    method: MethodId,
    real0: u64,
    cpu0: u64,
    child_real: u64,
    child_cpu: u64,
    outermost: bool,
    counted: bool,
}

/// Scratch memory reused across threads.
#[derive(Default)]
pub(crate) struct Walker {
    on_stack: Vec<u32>,
    stack: Vec<Frame>,
    // Mapped clocks: cumulative time inside the window.
    real: u64,
    cpu: u64,
    prev_ts: Option<u64>,
    prev_cpu: u64,
}

impl Walker {
    /// Walks one thread's events.
    pub(crate) fn walk(
        &mut self,
        calls: &CallColumns,
        n_methods: usize,
        window: Option<&IntervalSet>,
        v: &mut impl Visitor,
    ) {
        self.begin(n_methods);
        let (words, times, cpus) = calls.columns();
        for (i, (&word, &ts)) in words.iter().zip(times).enumerate() {
            let c = cpus.map_or(0, |v| v[i]);
            self.step(word, ts, c, cpus.is_some(), window, v);
        }
        self.end(v);
    }

    /// Starts a thread (the walk can then be fed one event at a time).
    pub(crate) fn begin(&mut self, n_methods: usize) {
        self.on_stack.clear();
        self.on_stack.resize(n_methods, 0);
        self.stack.clear();
        self.real = 0;
        self.cpu = 0;
        self.prev_ts = None;
        self.prev_cpu = 0;
    }

    /// One event: `word` is the packed `method << 2 | kind` of [`CallColumns`].
    #[inline]
    pub(crate) fn step(
        &mut self,
        word: u32,
        ts: u64,
        c: u64,
        has_cpu: bool,
        window: Option<&IntervalSet>,
        v: &mut impl Visitor,
    ) {
        match (window, self.prev_ts) {
            (None, _) => {
                self.real = ts;
                self.cpu = c;
            }
            (Some(w), Some(p)) => {
                let dw = ts.saturating_sub(p);
                let ov = w.overlap(p as i64, ts as i64) as u64;
                self.real += ov;
                if has_cpu {
                    let dc = c.saturating_sub(self.prev_cpu);
                    self.cpu += if dw == 0 {
                        if w.contains(ts as i64) {
                            dc
                        } else {
                            0
                        }
                    } else {
                        ((dc as u128 * ov as u128) / dw as u128) as u64
                    };
                }
            }
            (Some(_), None) => {}
        }
        self.prev_ts = Some(ts);
        self.prev_cpu = c;
        let e = CallEvent {
            kind: CallKind::from_bits(word).unwrap_or(CallKind::Exit),
            method: MethodId(word >> 2),
            ts_ns: ts,
            cpu_ns: None,
        };
        let m = e.method.0 as usize;
        if m >= self.on_stack.len() {
            self.on_stack.resize(m + 1, 0);
        }
        let (real, cpu) = (self.real, self.cpu);
        match e.kind {
            CallKind::Enter => {
                let counted = window.is_none_or(|w| w.contains(e.ts_ns as i64));
                v.enter(e.method, self.stack.len(), counted);
                self.stack.push(Frame {
                    method: e.method,
                    real0: real,
                    cpu0: cpu,
                    child_real: 0,
                    child_cpu: 0,
                    outermost: self.on_stack[m] == 0,
                    counted,
                });
                self.on_stack[m] += 1;
            }
            CallKind::Exit | CallKind::Unwind => {
                if self.on_stack[m] == 0 {
                    return; // an exit without an entry: nothing to close
                }
                while let Some(top) = self.stack.last() {
                    let done = top.method == e.method;
                    self.close(real, cpu, v);
                    if done {
                        break;
                    }
                }
            }
        }
    }

    /// Ends a thread: closes what is still open at its last time.
    pub(crate) fn end(&mut self, v: &mut impl Visitor) {
        let (real, cpu) = (self.real, self.cpu);
        while !self.stack.is_empty() {
            self.close(real, cpu, v);
        }
    }

    fn close(&mut self, real: u64, cpu: u64, v: &mut impl Visitor) {
        let Some(f) = self.stack.pop() else { return };
        self.on_stack[f.method.0 as usize] -= 1;
        let d_real = real.saturating_sub(f.real0);
        let d_cpu = cpu.saturating_sub(f.cpu0);
        let parent = self.stack.last_mut().map(|p| {
            p.child_real += d_real;
            p.child_cpu += d_cpu;
            p.method
        });
        v.exit(&Closed {
            method: f.method,
            parent,
            real: d_real,
            cpu: d_cpu,
            child_real: f.child_real.min(d_real),
            child_cpu: f.child_cpu.min(d_cpu),
            outermost: f.outermost,
            counted: f.counted,
            start_real: f.real0,
            start_cpu: f.cpu0,
        });
    }
}
