//! Every call of a thread as one row — start, duration, depth, parent —
//! produced by the same stack walk as the profile and the call tree, so a
//! table of calls (SQL's `call`) sums to exactly what `tracekit profile`
//! prints.
//!
//! [`CallCursor`] hands the rows out in batches and can stop after any
//! number of them and go on later, so a consumer holds one batch, never the
//! thread's calls. Rows come in the order calls *close* (a callee before its
//! caller); ids number calls in the order they *start*, from 0 in each
//! thread, and a row's parent is the id of the call it was made from.
//!
//! ```
//! use tracekit_model::*;
//! use tracekit_analysis::call_rows::CallCursor;
//! let mut s = Session::new("demo", Clocks::WALL);
//! let t = s.add_thread(Thread::new(1, "main"));
//! let run = s.methods.intern(Method::new("App", "run", "()V"));
//! let work = s.methods.intern(Method::new("App", "work", "()V"));
//! for e in [CallEvent::enter(run, 0, None), CallEvent::enter(work, 10, None),
//!           CallEvent::exit(work, 40, None), CallEvent::exit(run, 50, None)] {
//!     s.calls_mut(t).push(e);
//! }
//! let mut rows = Vec::new();
//! let mut cursor = CallCursor::new(s.methods.len());
//! while cursor.advance(s.calls(t), 1, &mut |r| rows.push(*r)) {}
//! assert_eq!((rows[0].id, rows[0].parent, rows[0].depth, rows[0].dur), (1, Some(0), 1, 30));
//! assert_eq!((rows[1].id, rows[1].parent, rows[1].self_dur), (0, None, 20));
//! ```

use crate::walk::{Closed, Visitor, Walker};
use tracekit_model::{CallColumns, MethodId};

/// One call, closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallRow {
    /// Number of the call in its thread, in order of start (from 0).
    pub id: u64,
    /// The call it was made from (`None` at the top of the stack).
    pub parent: Option<u64>,
    /// Stack depth when it started (0 = top level).
    pub depth: u32,
    /// The method.
    pub method: MethodId,
    /// Start on the session timeline (ns).
    pub ts: u64,
    /// Inclusive duration (ns).
    pub dur: u64,
    /// Time not spent in callees (ns).
    pub self_dur: u64,
    /// Thread-CPU time at the start (ns), when the session has that clock.
    pub thread_ts: Option<u64>,
    /// Inclusive thread-CPU time (ns), when the session has that clock.
    pub thread_dur: Option<u64>,
    /// Thread-CPU time not spent in callees (ns), with that clock.
    pub thread_self_dur: Option<u64>,
    /// The method was not already on the stack (Traceview counts only
    /// these calls in inclusive time).
    pub outermost: bool,
}

/// Walks one thread's calls a batch at a time (see the module docs).
pub struct CallCursor {
    walker: Walker,
    ids: Vec<u64>,
    next_id: u64,
    pos: usize,
    started: bool,
    done: bool,
    n_methods: usize,
}

struct Emit<'a, F: FnMut(&CallRow)> {
    ids: &'a mut Vec<u64>,
    next_id: &'a mut u64,
    has_cpu: bool,
    rows: usize,
    out: &'a mut F,
}

impl<F: FnMut(&CallRow)> Visitor for Emit<'_, F> {
    fn enter(&mut self, _: MethodId, _: usize, _: bool) {
        self.ids.push(*self.next_id);
        *self.next_id += 1;
    }

    fn exit(&mut self, c: &Closed) {
        let id = self.ids.pop().unwrap_or(0);
        let cpu = |v: u64| self.has_cpu.then_some(v);
        let row = CallRow {
            id,
            parent: self.ids.last().copied(),
            depth: self.ids.len() as u32,
            method: c.method,
            ts: c.start_real,
            dur: c.real,
            self_dur: c.real - c.child_real,
            thread_ts: cpu(c.start_cpu),
            thread_dur: cpu(c.cpu),
            thread_self_dur: cpu(c.cpu - c.child_cpu),
            outermost: c.outermost,
        };
        self.rows += 1;
        (self.out)(&row);
    }
}

impl CallCursor {
    /// A cursor at the start of a thread of a session with `n_methods` methods.
    pub fn new(n_methods: usize) -> CallCursor {
        CallCursor {
            walker: Walker::default(),
            ids: Vec::new(),
            next_id: 0,
            pos: 0,
            started: false,
            done: false,
            n_methods,
        }
    }

    /// Feeds `calls`' events (always the same thread's) until at least
    /// `min_rows` calls have closed or the thread ends (calls still open at
    /// its end close at its last time, as in the profile); returns whether
    /// rows may remain.
    pub fn advance(&mut self, calls: &CallColumns, min_rows: usize, out: &mut impl FnMut(&CallRow)) -> bool {
        if self.done {
            return false;
        }
        if !self.started {
            self.walker.begin(self.n_methods);
            self.started = true;
        }
        let (words, times, cpus) = calls.columns();
        let mut emit = Emit {
            ids: &mut self.ids,
            next_id: &mut self.next_id,
            has_cpu: cpus.is_some(),
            rows: 0,
            out,
        };
        while self.pos < words.len() && emit.rows < min_rows {
            let i = self.pos;
            let c = cpus.map_or(0, |v| v[i]);
            self.walker.step(words[i], times[i], c, cpus.is_some(), None, &mut emit);
            self.pos += 1;
        }
        if self.pos == words.len() {
            self.walker.end(&mut emit);
            self.done = true;
        }
        !self.done
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Profile, ProfileOptions};
    use tracekit_model::{CallEvent, Clocks, Method, Session, Thread};

    fn rows(s: &Session, batch: usize) -> Vec<CallRow> {
        let mut out = Vec::new();
        for (id, _, _) in s.thread_calls() {
            let mut c = CallCursor::new(s.methods.len());
            while c.advance(s.calls(id), batch, &mut |r| out.push(*r)) {}
        }
        out
    }

    fn recursive_session() -> Session {
        let mut s = Session::new("t", Clocks::DUAL);
        let t = s.add_thread(Thread::new(1, "main"));
        let a = s.methods.intern(Method::new("A", "a", "()V"));
        let b = s.methods.intern(Method::new("A", "b", "()V"));
        for e in [
            CallEvent::enter(a, 0, Some(0)),
            CallEvent::enter(b, 5, Some(4)),
            CallEvent::enter(a, 6, Some(5)),
            CallEvent::exit(a, 9, Some(7)),
            CallEvent::exit(b, 20, Some(15)),
            CallEvent::enter(b, 25, Some(18)),
        ] {
            s.calls_mut(t).push(e);
        }
        s
    }

    #[test]
    fn rows_sum_to_the_profile_whatever_the_batch_size() {
        let s = recursive_session();
        let p = Profile::of(&s, &ProfileOptions::default());
        for batch in [1, 2, 3, 100] {
            let rows = rows(&s, batch);
            assert_eq!(rows.len(), 4);
            for m in &p.methods {
                let mine: Vec<_> = rows.iter().filter(|r| r.method == m.method).collect();
                assert_eq!(mine.len() as u64, m.calls);
                let incl: u64 = mine.iter().filter(|r| r.outermost).map(|r| r.dur).sum();
                let excl: u64 = mine.iter().map(|r| r.self_dur).sum();
                let incl_cpu: u64 = mine.iter().filter(|r| r.outermost).map(|r| r.thread_dur.unwrap()).sum();
                let excl_cpu: u64 = mine.iter().map(|r| r.thread_self_dur.unwrap()).sum();
                assert_eq!((incl, excl), (m.incl_real_ns, m.excl_real_ns));
                assert_eq!((incl_cpu, excl_cpu), (m.incl_cpu_ns, m.excl_cpu_ns));
            }
        }
    }

    #[test]
    fn ids_parents_and_depths_follow_the_stack() {
        let s = recursive_session();
        let mut r = rows(&s, 1);
        r.sort_by_key(|r| r.id);
        let shape: Vec<_> = r.iter().map(|r| (r.id, r.parent, r.depth, r.ts, r.outermost)).collect();
        assert_eq!(
            shape,
            [
                (0, None, 0, 0, true),
                (1, Some(0), 1, 5, true),
                (2, Some(1), 2, 6, false),
                (3, Some(0), 1, 25, true)
            ]
        );
        // The call still open at the end closes at the thread's last time.
        assert_eq!(r[3].dur, 0);
        assert_eq!(r[0].dur, 25);
        assert_eq!(r[2].thread_ts, Some(5));
    }
}
