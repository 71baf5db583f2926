//! One thread's slices turned into a balanced sequence of enter and exit
//! events, written straight into the model's column layout.
//!
//! `B` opens a slice whose end an `E` gives; `X` opens a slice whose end is
//! known (`ts + dur`), so its exit is emitted once the thread's time has
//! passed it. Events of a thread normally come in time order (Chrome and
//! tracekit write them so) and are then placed in one pass, costing nothing
//! but the columns. The first event that goes back in time switches the
//! thread to buffering: what was placed so far becomes complete slices
//! again, later events are held, and at the end everything is sorted (by
//! time; at equal times ends first, then complete slices longest first,
//! then begins; otherwise in file order) and placed anew.
//!
//! Whatever does not nest is repaired and counted ([`Repairs`]): a complete
//! slice that outlasts its complete parent is shortened to the parent's
//! end; one still open when an enclosing `E` arrives is closed there; one
//! that ends while a `B` slice begun inside it is still open is lengthened
//! to that slice's end; an `E` whose name matches no open `B` closes the
//! innermost one, and one that matches a deeper `B` closes the slices above
//! it too; an `E` with no open `B` makes a slice from the thread's first
//! event to the `E`; `B` slices open at the end close at the thread's last
//! event; thread time that goes back is held at its last value.
//!
//! Times are `u64` with the sign bit flipped (`biased`), so they order like
//! the signed ns of the file and can be rebased in place at the end.

/// Low bits of a packed word: enter, exit, exit by exception.
const ENTER: u32 = 0;
const EXIT: u32 = 1;
const UNWIND: u32 = 2;

/// An `i64` ns time as an order-preserving `u64`.
pub(crate) fn biased(t: i64) -> u64 {
    (t as u64) ^ (1 << 63)
}

/// What the reader repaired, counted over all threads.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Repairs {
    pub overlapping: u64,
    pub end_without_begin: u64,
    pub mismatched_end: u64,
    pub open_at_end: u64,
    pub unsorted_threads: u64,
    pub thread_time_backwards: u64,
    /// Set when [`UNNAMED`] was used.
    pub unnamed_used: bool,
}

/// An open slice.
#[derive(Debug, Clone, Copy)]
struct Frame {
    method: u32,
    /// True for a complete (`X`) slice, whose end is known.
    complete: bool,
    end: u64,
    cpu_end: u64,
    /// The earliest end of the complete slices this one is nested in,
    /// up to the nearest `B` slice (which may last as long as it likes).
    bound: u64,
    unwind: bool,
}

/// A held event of a thread that is not in time order.
#[derive(Debug, Clone, Copy)]
struct Held {
    ts: u64,
    end: u64,
    cpu: u64,
    cpu_end: u64,
    method: u32,
    kind: HeldKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HeldKind {
    /// An `E`; `method` is its name's method, or [`NO_NAME`].
    End {
        unwind: bool,
    },
    /// A complete slice.
    Complete {
        unwind: bool,
    },
    Begin,
}

/// `method` of an `E` without a name.
pub(crate) const NO_NAME: u32 = u32::MAX;

/// Method of a slice made for an `E` that has neither a name nor an open
/// `B`; the reader replaces it by a method named `(unnamed)` at the end.
pub(crate) const UNNAMED: u32 = (1 << 30) - 1;

/// Shared state of a call: the repair counts and whether thread time is kept.
pub(crate) struct Ctx<'a> {
    pub repairs: &'a mut Repairs,
    pub cpu: bool,
}

/// One thread's calls being built.
#[derive(Debug, Default)]
pub(crate) struct ThreadCalls {
    words: Vec<u32>,
    ts: Vec<u64>,
    cpu: Vec<u64>,
    frames: Vec<Frame>,
    last_ts: u64,
    last_cpu: u64,
    first: Option<(u64, u64)>,
    /// Methods of slices made for `E`s without a `B`, innermost last.
    wraps: Vec<u32>,
    held: Option<Vec<Held>>,
}

/// The finished columns of a thread: packed words, times, CPU times (empty
/// without thread time), all still biased.
pub(crate) struct Columns {
    pub words: Vec<u32>,
    pub ts: Vec<u64>,
    pub cpu: Vec<u64>,
}

impl ThreadCalls {
    /// Drops thread times (some call event lacks them).
    pub(crate) fn drop_cpu(&mut self) {
        self.cpu = Vec::new();
    }

    /// A `B` (`end` is `None`) or `X` (`end` is the slice's end and thread
    /// time at its end).
    pub(crate) fn begin(&mut self, cx: &mut Ctx, method: u32, t: u64, cpu: u64, end: Option<(u64, u64)>) {
        let kind = if end.is_some() {
            HeldKind::Complete { unwind: false }
        } else {
            HeldKind::Begin
        };
        let (e, ce) = end.unwrap_or((0, 0));
        if self.hold_if_unsorted(cx, t) {
            self.push_held(Held {
                ts: t,
                end: e,
                cpu,
                cpu_end: ce,
                method,
                kind,
            });
            return;
        }
        self.place_begin(cx, method, t, cpu, end, false);
    }

    /// An `E`; `name` is the method its name interned to, or [`NO_NAME`].
    pub(crate) fn end(&mut self, cx: &mut Ctx, name: u32, t: u64, cpu: u64, unwind: bool) {
        if self.hold_if_unsorted(cx, t) {
            self.push_held(Held {
                ts: t,
                end: 0,
                cpu,
                cpu_end: 0,
                method: name,
                kind: HeldKind::End { unwind },
            });
            return;
        }
        self.place_end(cx, name, t, cpu, unwind);
    }

    fn push_held(&mut self, h: Held) {
        if let Some(held) = &mut self.held {
            held.push(h);
        }
    }

    /// True when the thread holds its events (switching to holding when
    /// `t` goes back in time).
    fn hold_if_unsorted(&mut self, cx: &mut Ctx, t: u64) -> bool {
        if self.held.is_some() {
            return true;
        }
        if self.first.is_none() || t >= self.last_ts {
            return false;
        }
        cx.repairs.unsorted_threads += 1;
        self.held = Some(self.placed_as_held());
        true
    }

    /// What was placed so far, as held events: every closed call a complete
    /// slice with its exact times, open slices as they were.
    fn placed_as_held(&mut self) -> Vec<Held> {
        let (first_ts, first_cpu) = self.first.unwrap_or((0, 0));
        let with_cpu = self.cpu.len() == self.ts.len();
        let cpu_at = |cpu: &[u64], i: usize| if with_cpu { cpu[i] } else { 0 };
        let mut out = Vec::with_capacity(self.words.len() / 2 + self.frames.len() + 1);
        let mut open: Vec<(u32, u64, u64)> = Vec::new();
        for i in 0..self.words.len() {
            let w = self.words[i];
            let (t, c) = (self.ts[i], cpu_at(&self.cpu, i));
            if w & 3 == ENTER {
                open.push((w >> 2, t, c));
                continue;
            }
            // An exit without an enter closes a slice made for an `E`
            // without a `B`, which starts at the thread's first event.
            let (method, start, cpu) = open.pop().unwrap_or((w >> 2, first_ts, first_cpu));
            out.push(Held {
                ts: start,
                end: t,
                cpu,
                cpu_end: c,
                method,
                kind: HeldKind::Complete {
                    unwind: w & 3 == UNWIND,
                },
            });
        }
        for ((method, start, cpu), f) in open.into_iter().zip(&self.frames) {
            out.push(Held {
                ts: start,
                end: f.end,
                cpu,
                cpu_end: f.cpu_end,
                method,
                kind: if f.complete {
                    HeldKind::Complete { unwind: f.unwind }
                } else {
                    HeldKind::Begin
                },
            });
        }
        *self = ThreadCalls {
            first: self.first,
            ..ThreadCalls::default()
        };
        out
    }

    fn place_begin(&mut self, cx: &mut Ctx, method: u32, t: u64, cpu: u64, end: Option<(u64, u64)>, unwind: bool) {
        self.drain(cx, t);
        let parent_bound = match self.frames.last() {
            Some(f) if f.complete => f.bound,
            _ => u64::MAX,
        };
        let frame = match end {
            Some((mut e, mut ce)) => {
                if e > parent_bound {
                    cx.repairs.overlapping += 1;
                    e = parent_bound;
                    ce = ce.min(self.frames.last().map_or(ce, |f| f.cpu_end));
                }
                Frame {
                    method,
                    complete: true,
                    end: e,
                    cpu_end: ce,
                    bound: e,
                    unwind,
                }
            }
            None => Frame {
                method,
                complete: false,
                end: 0,
                cpu_end: 0,
                bound: u64::MAX,
                unwind: false,
            },
        };
        self.emit(cx, ENTER, method, t, cpu);
        self.frames.push(frame);
    }

    fn place_end(&mut self, cx: &mut Ctx, name: u32, t: u64, cpu: u64, unwind: bool) {
        self.drain(cx, t);
        let innermost_begin = self.frames.iter().rposition(|f| !f.complete);
        let target = if name == NO_NAME {
            innermost_begin
        } else {
            match self.frames.iter().rposition(|f| !f.complete && f.method == name) {
                Some(i) => Some(i),
                None => {
                    if innermost_begin.is_some() {
                        cx.repairs.mismatched_end += 1;
                    }
                    innermost_begin
                }
            }
        };
        let keep = target.map_or(0, |i| i + 1);
        while self.frames.len() > keep {
            let Some(f) = self.frames.pop() else { break };
            if f.complete {
                self.close_complete_early(cx, f, t, cpu);
            } else {
                cx.repairs.mismatched_end += 1;
                self.emit(cx, EXIT, f.method, t, cpu);
            }
        }
        let kind = if unwind { UNWIND } else { EXIT };
        match target {
            Some(_) => {
                if let Some(f) = self.frames.pop() {
                    self.emit(cx, kind, f.method, t, cpu);
                }
            }
            None => {
                cx.repairs.end_without_begin += 1;
                if self.first.is_none() {
                    self.first = Some((t, cpu));
                }
                let method = if name == NO_NAME {
                    cx.repairs.unnamed_used = true;
                    UNNAMED
                } else {
                    name
                };
                self.wraps.push(method);
                self.emit(cx, kind, method, t, cpu);
            }
        }
    }

    /// Closes a complete slice at `t`, before or after its own end.
    fn close_complete_early(&mut self, cx: &mut Ctx, f: Frame, t: u64, cpu: u64) {
        if f.end > t {
            cx.repairs.overlapping += 1;
            self.emit(cx, exit_kind(f), f.method, t, cpu);
        } else {
            self.close_complete(cx, f);
        }
    }

    /// Closes a complete slice at its end, or at the thread's last time when
    /// a slice begun inside it lasted longer.
    fn close_complete(&mut self, cx: &mut Ctx, f: Frame) {
        let at = if f.end < self.last_ts {
            cx.repairs.overlapping += 1;
            self.last_ts
        } else {
            f.end
        };
        self.emit(cx, exit_kind(f), f.method, at, f.cpu_end);
    }

    /// Emits the exits of complete slices on top of the stack that end by `t`.
    fn drain(&mut self, cx: &mut Ctx, t: u64) {
        while let Some(&f) = self.frames.last() {
            if !f.complete || f.end > t {
                break;
            }
            self.frames.pop();
            self.close_complete(cx, f);
        }
    }

    fn emit(&mut self, cx: &mut Ctx, kind: u32, method: u32, t: u64, cpu: u64) {
        let t = t.max(self.last_ts);
        let cpu = if cx.cpu && self.first.is_some() && cpu < self.last_cpu {
            cx.repairs.thread_time_backwards += 1;
            self.last_cpu
        } else {
            cpu
        };
        self.words.push((method << 2) | kind);
        self.ts.push(t);
        if cx.cpu {
            self.cpu.push(cpu);
        }
        self.last_ts = t;
        self.last_cpu = cpu;
        if self.first.is_none() {
            self.first = Some((t, cpu));
        }
    }

    /// Closes everything and returns the columns.
    pub(crate) fn finish(mut self, cx: &mut Ctx) -> Columns {
        if let Some(mut held) = self.held.take() {
            held.sort_by_key(|h| {
                let (class, end) = match h.kind {
                    HeldKind::End { .. } => (0u8, 0),
                    HeldKind::Complete { .. } => (1, u64::MAX - h.end),
                    HeldKind::Begin => (2, 0),
                };
                (h.ts, class, end)
            });
            let mut fresh = ThreadCalls::default();
            for h in held {
                match h.kind {
                    HeldKind::Begin => fresh.place_begin(cx, h.method, h.ts, h.cpu, None, false),
                    HeldKind::Complete { unwind } => {
                        fresh.place_begin(cx, h.method, h.ts, h.cpu, Some((h.end, h.cpu_end)), unwind)
                    }
                    HeldKind::End { unwind } => fresh.place_end(cx, h.method, h.ts, h.cpu, unwind),
                }
            }
            self = fresh;
        }
        while let Some(f) = self.frames.pop() {
            if f.complete {
                self.close_complete(cx, f);
            } else {
                cx.repairs.open_at_end += 1;
                let (t, c) = (self.last_ts, self.last_cpu);
                self.emit(cx, EXIT, f.method, t, c);
            }
        }
        if !cx.cpu {
            self.cpu = Vec::new();
        }
        if self.wraps.is_empty() {
            return Columns {
                words: self.words,
                ts: self.ts,
                cpu: self.cpu,
            };
        }
        // Enters of the slices made for `E`s without a `B`, at the
        // thread's first event, outermost (made last) first.
        let (t0, c0) = self.first.unwrap_or((0, 0));
        let n = self.wraps.len();
        let mut words = Vec::with_capacity(n + self.words.len());
        words.extend(self.wraps.iter().rev().map(|&m| (m << 2) | ENTER));
        words.extend_from_slice(&self.words);
        let mut ts = vec![t0; n];
        ts.extend_from_slice(&self.ts);
        let cpu = if self.cpu.is_empty() {
            Vec::new()
        } else {
            let mut cpu = vec![c0; n];
            cpu.extend_from_slice(&self.cpu);
            cpu
        };
        Columns { words, ts, cpu }
    }
}

fn exit_kind(f: Frame) -> u32 {
    if f.unwind {
        UNWIND
    } else {
        EXIT
    }
}

#[cfg(test)]
#[path = "calls_tests.rs"]
mod tests;
