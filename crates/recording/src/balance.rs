//! Balancing one thread's function events into well-nested calls, one
//! event at a time (memory: the call stack, plus the events after a
//! `longjmp` whose `setjmp` is unknown until its target is found).
//!
//! The nesting rule: a `longjmp` returns to the frames that were open when
//! `setjmp` was called on the same buffer in this thread, and closes every
//! frame above them at the jump's time (exactly, however many frames it
//! leaves and however often it jumps). Without a matching `setjmp` (older
//! recordings, a buffer set in another thread) the target is the open frame
//! whose exit is the first later exit that matches no later entry. An exit
//! below the top of the stack closes the frames above it; an exit of a
//! function not on the stack is dropped. Frames a forked child inherits are
//! the parent's frames open at its `Fork` step.

use std::collections::HashMap;
use tracekit_model::{CallColumns, CallEvent, CallKind, MethodId};

/// (code, count, detail) of a repair.
pub type RepairNote = (&'static str, u64, &'static str);

/// One step of a thread's function events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// A function entered or left.
    Call(CallKind, MethodId),
    /// `setjmp` on the buffer at this address.
    Setjmp(u64),
    /// `longjmp` to the buffer at this address (0: unknown buffer).
    Longjmp(u64),
    /// `fork` with this stamp.
    Fork(u64),
}

/// Receives balanced call events in order.
pub trait CallSink {
    /// One balanced event.
    fn call(&mut self, e: CallEvent);
}

impl CallSink for CallColumns {
    fn call(&mut self, e: CallEvent) {
        self.push(e);
    }
}

/// What [`balance_steps`] makes of a thread's steps.
#[derive(Debug, Default)]
pub struct Balanced {
    /// Balanced call columns.
    pub calls: CallColumns,
    /// Repairs made.
    pub notes: Vec<RepairNote>,
    /// For each `Fork` step, its stamp and the frames open there.
    pub forks: Vec<(u64, Vec<MethodId>)>,
}

/// The streaming balancer (see the module docs).
#[derive(Debug, Default)]
pub struct Balancer {
    stack: Vec<MethodId>,
    buffers: HashMap<u64, usize>,
    /// For each `Fork` step, its stamp and the frames open there.
    pub forks: Vec<(u64, Vec<MethodId>)>,
    unbalanced: u64,
    orphan: u64,
    jumps: u64,
    held: Vec<(u64, Step)>,
    scan_depth: usize,
}

impl Balancer {
    /// A balancer at an empty stack.
    pub fn new() -> Balancer {
        Balancer::default()
    }

    /// Notes a `setjmp` on buffer `env` at `depth` open frames, as its
    /// step would at that depth (for frames followed outside the balancer).
    pub(crate) fn note_setjmp(&mut self, env: u64, depth: usize) {
        self.buffers.insert(env, depth);
    }

    /// Current depth of the open frames.
    pub fn depth(&self) -> usize {
        self.stack.len()
    }

    /// Takes one step; balanced events go to `out`.
    pub fn push(&mut self, ts: u64, step: Step, out: &mut impl CallSink) {
        if !self.held.is_empty() {
            self.held.push((ts, step));
            match step {
                Step::Call(CallKind::Enter, _) => self.scan_depth += 1,
                Step::Call(_, m) if self.scan_depth == 0 => self.resolve(Some(m), out),
                Step::Call(..) => self.scan_depth -= 1,
                _ => {}
            }
            return;
        }
        match step {
            Step::Call(CallKind::Enter, m) => {
                self.stack.push(m);
                out.call(CallEvent::enter(m, ts, None));
            }
            Step::Call(_, m) => match self.stack.iter().rposition(|&s| s == m) {
                Some(pos) => {
                    while self.stack.len() > pos + 1 {
                        let top = self.stack.pop().unwrap_or(m);
                        out.call(CallEvent::exit(top, ts, None));
                        self.unbalanced += 1;
                    }
                    self.stack.pop();
                    out.call(CallEvent::exit(m, ts, None));
                }
                None => self.orphan += 1,
            },
            Step::Setjmp(env) => {
                self.buffers.insert(env, self.stack.len());
            }
            Step::Fork(stamp) => self.forks.push((stamp, self.stack.clone())),
            Step::Longjmp(env) => match self.buffers.get(&env) {
                Some(&depth) if env != 0 => self.unwind_to(ts, depth, out),
                _ => {
                    // Unknown buffer: hold what follows until the target shows.
                    self.held.push((ts, step));
                    self.scan_depth = 0;
                }
            },
        }
    }

    fn unwind_to(&mut self, ts: u64, depth: usize, out: &mut impl CallSink) {
        while self.stack.len() > depth {
            let top = self.stack.pop().unwrap_or(MethodId(0));
            out.call(CallEvent::exit(top, ts, None));
            self.jumps += 1;
        }
    }

    /// The held `longjmp`'s target is the frame of `target` (or unknown):
    /// close the frames above it, then replay what was held.
    fn resolve(&mut self, target: Option<MethodId>, out: &mut impl CallSink) {
        let held = std::mem::take(&mut self.held);
        let Some(&(ts, _)) = held.first() else { return };
        if let Some(pos) = target.and_then(|t| self.stack.iter().rposition(|&s| s == t)) {
            self.unwind_to(ts, pos + 1, out);
        }
        for &(t, s) in &held[1..] {
            self.push(t, s, out);
        }
    }

    /// Ends the thread: replays anything still held; returns the repairs.
    pub fn finish(&mut self, out: &mut impl CallSink) -> Vec<RepairNote> {
        while !self.held.is_empty() {
            self.resolve(None, out);
        }
        let mut notes = Vec::new();
        if self.jumps > 0 {
            notes.push((
                "longjmp-closed-frames",
                self.jumps,
                "frames abandoned by longjmp were closed at the jump",
            ));
        }
        if self.unbalanced > 0 {
            notes.push((
                "missing-exit",
                self.unbalanced,
                "frames whose exit was not recorded were closed by their caller's exit",
            ));
        }
        if self.orphan > 0 {
            notes.push((
                "exit-without-entry",
                self.orphan,
                "exits of functions not on the stack were dropped",
            ));
        }
        notes
    }
}

/// Balances a whole thread's steps (see the module docs).
pub fn balance_steps(events: &[(u64, Step)]) -> Balanced {
    let mut cols = CallColumns::with_capacity(events.len(), false);
    let mut b = Balancer::new();
    for &(ts, s) in events {
        b.push(ts, s, &mut cols);
    }
    let notes = b.finish(&mut cols);
    Balanced {
        calls: cols,
        notes,
        forks: b.forks,
    }
}

/// Balances function events where `None` marks a `longjmp` of unknown buffer.
pub fn balance(events: &[(u64, Option<(CallKind, MethodId)>)]) -> (CallColumns, Vec<RepairNote>) {
    let steps: Vec<(u64, Step)> = events
        .iter()
        .map(|&(t, e)| (t, e.map_or(Step::Longjmp(0), |(k, m)| Step::Call(k, m))))
        .collect();
    let b = balance_steps(&steps);
    (b.calls, b.notes)
}
