//! The listing of a recording too large to hold, in two passes over its
//! calls. An entry's line shows its duration, known only at its exit. The
//! second pass holds the last [`WINDOW`] call events, so an entry whose exit
//! comes within that many events gets its duration there; the first pass
//! keeps the durations of the other entries, those that enclose at least
//! `WINDOW` events. Entries at one depth enclosing that many are disjoint, so
//! there are at most `events / WINDOW` of them per level of nesting: memory
//! is bounded by the window and the call depth, not by the number of events.

use super::{ListedEvent, ListingFilter, ThreadListing};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;
use tracekit_model::{CallEvent, CallKind, Session, ThreadId};

/// Call events the second pass holds per thread (a few MB).
pub const WINDOW: u64 = 1 << 17;

/// First pass: the durations of the entries whose exit comes `window` or
/// more call events after them, keyed by thread and the entry's index among
/// the thread's call events.
#[derive(Debug)]
pub struct LongCalls {
    window: u64,
    long: FxHashMap<(ThreadId, u64), u64>,
    thread: ThreadId,
    index: u64,
    /// Index and time of each open entry.
    stack: Vec<(u64, u64)>,
}

impl Default for LongCalls {
    fn default() -> LongCalls {
        LongCalls::with_window(WINDOW)
    }
}

impl LongCalls {
    /// A first pass for a second one holding `window` events.
    pub fn with_window(window: u64) -> LongCalls {
        LongCalls {
            window: window.max(1),
            long: FxHashMap::default(),
            thread: ThreadId(0),
            index: 0,
            stack: Vec::new(),
        }
    }

    /// Calls of `thread` follow.
    pub fn begin_thread(&mut self, thread: ThreadId) {
        self.thread = thread;
        self.index = 0;
        self.stack.clear();
    }

    /// The next call event of the current thread (balanced, in time order).
    pub fn event(&mut self, e: &CallEvent) {
        if e.kind == CallKind::Enter {
            self.stack.push((self.index, e.ts_ns));
        } else if let Some((i, ts)) = self.stack.pop() {
            if self.index - i >= self.window {
                self.long.insert((self.thread, i), e.ts_ns.saturating_sub(ts));
            }
        }
        self.index += 1;
    }

    /// How many long entries were kept (bounded by events / window × depth).
    pub fn len(&self) -> usize {
        self.long.len()
    }

    /// Whether no entry was long.
    pub fn is_empty(&self) -> bool {
        self.long.is_empty()
    }
}

/// Second pass: hands each line of the listing to `out` as the calls come,
/// thread by thread, holding at most the window's call events. `s` is the
/// session the first pass returned (everything but the calls), `long` what
/// that pass kept. Same lines as [`super::for_each_listed`] on the whole
/// session.
pub struct StreamedListing<'s, F: FnMut(ListedEvent)> {
    s: &'s Session,
    f: &'s ListingFilter,
    long: LongCalls,
    out: F,
    lister: Option<ThreadListing<'s>>,
    /// Held events with their durations (`u64::MAX`: not known yet).
    held: VecDeque<(CallEvent, u64)>,
    /// Index of the first held event.
    base: u64,
    /// Indexes of the open entries.
    stack: Vec<u64>,
    /// The second pass saw threads or functions the first did not.
    changed: bool,
}

impl<'s, F: FnMut(ListedEvent)> StreamedListing<'s, F> {
    /// The second pass over the session `s` whose first pass gave `long`.
    pub fn new(s: &'s Session, f: &'s ListingFilter, long: LongCalls, out: F) -> Self {
        StreamedListing {
            s,
            f,
            long,
            out,
            lister: None,
            held: VecDeque::new(),
            base: 0,
            stack: Vec::new(),
            changed: false,
        }
    }

    /// Whether the calls differed from the first pass's (the recording
    /// changed in between): the lines of the threads concerned stop there.
    pub fn changed(&self) -> bool {
        self.changed
    }

    /// Calls of `thread` follow.
    pub fn begin_thread(&mut self, thread: ThreadId) {
        self.long.thread = thread;
        let Some(t) = self.s.threads.get(thread.0 as usize) else {
            self.changed = true;
            self.lister = None;
            return;
        };
        self.lister = self.f.wants(t.tid).then(|| ThreadListing::new(self.s, self.f, thread));
        self.held.clear();
        self.base = 0;
        self.stack.clear();
    }

    /// The next call event of the current thread.
    pub fn event(&mut self, e: &CallEvent) {
        if self.lister.is_none() {
            return;
        }
        if e.method.0 as usize >= self.s.methods.len() {
            self.changed = true;
            self.lister = None;
            return;
        }
        let index = self.base + self.held.len() as u64;
        if e.kind == CallKind::Enter {
            self.stack.push(index);
        } else if let Some(i) = self.stack.pop() {
            if i >= self.base {
                let entry = &mut self.held[(i - self.base) as usize];
                entry.1 = e.ts_ns.saturating_sub(entry.0.ts_ns);
            }
        }
        self.held.push_back((*e, u64::MAX));
        while self.held.len() as u64 > self.long.window {
            self.emit_first();
        }
    }

    /// The current thread's calls are complete.
    pub fn end_thread(&mut self) {
        while !self.held.is_empty() {
            self.emit_first();
        }
        if let Some(l) = &mut self.lister {
            l.finish(&mut self.out);
        }
        self.lister = None;
    }

    fn emit_first(&mut self) {
        let Some((e, d)) = self.held.pop_front() else {
            return;
        };
        let d = if d != u64::MAX {
            Some(d)
        } else if e.kind == CallKind::Enter {
            self.long.long.get(&(self.long.thread, self.base)).copied()
        } else {
            None
        };
        self.base += 1;
        if let Some(l) = &mut self.lister {
            l.call(&e, d, &mut self.out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{listing, ListingFilter};
    use super::*;
    use proptest::prelude::*;
    use tracekit_model::{Clocks, Marker, Method, Thread};

    /// A session from nesting moves: true enters a new function, false leaves.
    fn session(moves: &[bool], threads: usize) -> Session {
        let mut s = Session::new("t", Clocks::WALL);
        let ms: Vec<_> = (0..5)
            .map(|i| s.methods.intern(Method::new("", format!("f{i}"), "")))
            .collect();
        for th in 0..threads {
            let t = s.add_thread(Thread {
                tid: 10 + th as u32,
                pid: Some(1),
                name: String::new(),
            });
            let mut open = Vec::new();
            let mut ts = 0u64;
            for (i, &m) in moves.iter().enumerate() {
                ts += 1 + (i as u64 * 7) % 5;
                if m || open.is_empty() {
                    let id = ms[(i + th) % ms.len()];
                    open.push(id);
                    s.calls_mut(t).push(CallEvent::enter(id, ts, None));
                } else {
                    s.calls_mut(t).push(CallEvent::exit(open.pop().unwrap(), ts, None));
                }
                if i % 9 == 4 {
                    s.markers.push(Marker {
                        ts_ns: ts,
                        thread: t,
                        name: "m".into(),
                    });
                }
            }
            while let Some(id) = open.pop() {
                ts += 1;
                s.calls_mut(t).push(CallEvent::exit(id, ts, None));
            }
        }
        s
    }

    /// The two passes over `s` with a window of `window` events.
    fn streamed(s: &Session, f: &ListingFilter, window: u64) -> (Vec<ListedEvent>, usize) {
        let mut first = LongCalls::with_window(window);
        for (id, _, calls) in s.thread_calls() {
            first.begin_thread(id);
            for i in 0..calls.len() {
                first.event(&calls.get(i));
            }
        }
        let kept = first.len();
        let mut got = Vec::new();
        let mut second = StreamedListing::new(s, f, first, |e| got.push(e));
        for (id, _, calls) in s.thread_calls() {
            second.begin_thread(id);
            for i in 0..calls.len() {
                second.event(&calls.get(i));
            }
            second.end_thread();
        }
        (got, kept)
    }

    #[test]
    fn long_entries_are_few_and_durations_match() {
        // main() calls f 1000 times, each f calls g: only main encloses 64 events.
        let moves: Vec<bool> = std::iter::once(true)
            .chain((0..1000).flat_map(|_| [true, true, false, false]))
            .collect();
        let s = session(&moves, 1);
        let f = ListingFilter::default();
        let (got, kept) = streamed(&s, &f, 64);
        assert_eq!(kept, 1);
        let want = listing(&s, &f);
        assert_eq!(got, want);
        assert!(got[0].duration_ns.unwrap() > 1000);
    }

    proptest! {
        #[test]
        fn same_lines_as_the_whole_session(
            moves in proptest::collection::vec(any::<bool>(), 0..300),
            window in 1u64..40,
            depth in proptest::option::of(1usize..4),
            only_second in any::<bool>(),
        ) {
            let s = session(&moves, 2);
            let f = ListingFilter {
                tids: if only_second { vec![11] } else { vec![] },
                max_depth: depth,
                functions: vec![],
                time_ns: None,
            };
            let (got, _) = streamed(&s, &f, window);
            let want = listing(&s, &f);
            prop_assert_eq!(got.len(), want.len());
            for (g, w) in got.iter().zip(&want) {
                prop_assert_eq!(g, w);
                prop_assert_eq!(g.duration_ns, w.duration_ns);
            }
        }
    }
}
