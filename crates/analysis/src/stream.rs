//! Profiles and call trees of call events fed one at a time, so that a
//! reader can stream a recording of any length through them: memory is the
//! methods, the call stack and (for the call tree) the distinct call paths,
//! never the events. The results equal [`Profile::of`] and
//! [`CallTree::of`] on a session holding the same events
//! (`tests/consistency.rs`).
//!
//! ```
//! use tracekit_analysis::StreamAnalysis;
//! use tracekit_model::{CallEvent, Clocks, MethodId, MethodTable};
//! let mut a = StreamAnalysis::new(true, true);
//! a.begin_thread();
//! a.event(&CallEvent::enter(MethodId(0), 10, None));
//! a.event(&CallEvent::exit(MethodId(0), 30, None));
//! a.end_thread();
//! let (profile, tree) = a.finish(Clocks::WALL, &MethodTable::new());
//! assert_eq!(profile.unwrap().methods[0].incl_real_ns, 20);
//! assert_eq!(tree.unwrap().root().incl_real_ns, 20);
//! ```

use crate::calltree::Builder;
use crate::intervals::IntervalSet;
use crate::profile::Acc;
use crate::walk::{Closed, Visitor, Walker};
use crate::{CallTree, Profile};
use tracekit_model::{CallEvent, Clocks, MethodId, MethodTable};

struct Both {
    profile: Option<Acc>,
    tree: Option<Builder>,
}

impl Visitor for Both {
    fn enter(&mut self, method: MethodId, depth: usize, counted: bool) {
        if let Some(t) = &mut self.tree {
            t.enter(method, depth, counted);
        }
    }

    fn exit(&mut self, closed: &Closed) {
        if let Some(p) = &mut self.profile {
            p.exit(closed);
        }
        if let Some(t) = &mut self.tree {
            t.exit(closed);
        }
    }
}

/// A profile and/or call tree built from events fed in order, thread by
/// thread (each thread's events balanced and in time order, as every
/// reader of the model delivers them).
pub struct StreamAnalysis {
    walker: Walker,
    out: Both,
    has_cpu: bool,
    window: Option<IntervalSet>,
    /// Each ended thread's own rows, when kept apart (`out.profile` then
    /// holds only the current thread's, and `total` the ended ones').
    threads: Option<Vec<Acc>>,
    total: Acc,
}

impl StreamAnalysis {
    /// Builds the profile, the call tree, or both.
    pub fn new(profile: bool, tree: bool) -> StreamAnalysis {
        StreamAnalysis {
            walker: Walker::default(),
            out: Both {
                profile: profile.then(Acc::default),
                tree: tree.then(Builder::new),
            },
            has_cpu: false,
            window: None,
            threads: None,
            total: Acc::default(),
        }
    }

    /// Also keeps each thread's own profile, for
    /// [`StreamAnalysis::finish_with_threads`]: one walk gives both, each
    /// thread's rows added to the whole profile's when the thread ends. Set
    /// before the first thread, on an analysis that builds the profile.
    pub fn keep_thread_profiles(&mut self) {
        debug_assert!(self.out.profile.is_some(), "thread profiles need the profile");
        self.threads = Some(Vec::new());
    }

    /// Counts only the time inside `window` (`--when`), as
    /// [`crate::ProfileOptions::window`] does; set before the first event.
    pub fn set_window(&mut self, window: IntervalSet) {
        self.window = Some(window);
    }

    /// Starts a thread.
    pub fn begin_thread(&mut self) {
        self.walker.begin(0);
        if let Some(t) = &mut self.out.tree {
            t.restart();
        }
    }

    /// One event of the current thread.
    #[inline]
    pub fn event(&mut self, e: &CallEvent) {
        let word = e.method.0 << 2 | e.kind as u32;
        self.has_cpu |= e.cpu_ns.is_some();
        self.walker.step(
            word,
            e.ts_ns,
            e.cpu_ns.unwrap_or(0),
            e.cpu_ns.is_some(),
            self.window.as_ref(),
            &mut self.out,
        );
    }

    /// Ends the current thread (closing what is still open at its last time).
    pub fn end_thread(&mut self) {
        self.walker.end(&mut self.out);
        if let (Some(threads), Some(acc)) = (&mut self.threads, &mut self.out.profile) {
            let own = std::mem::take(acc);
            self.total.merge(&own);
            threads.push(own);
        }
    }

    /// The results, on the session's clocks; `methods` (the session's)
    /// orders rows of equal time (see [`MethodTable::ranks`]).
    pub fn finish(self, clocks: Clocks, methods: &MethodTable) -> (Option<Profile>, Option<CallTree>) {
        let (profile, tree, _) = self.finish_with_threads(clocks, methods);
        (profile, tree)
    }

    /// The results and, when kept ([`StreamAnalysis::keep_thread_profiles`]),
    /// each thread's own profile in the order the threads were fed.
    pub fn finish_with_threads(
        mut self,
        clocks: Clocks,
        methods: &MethodTable,
    ) -> (Option<Profile>, Option<CallTree>, Vec<Profile>) {
        // Ranking sorts the method table: only for profiles.
        let ranks = if self.out.profile.is_some() {
            methods.ranks()
        } else {
            Vec::new()
        };
        let mut own = Vec::new();
        if let Some(threads) = self.threads.take() {
            if let Some(acc) = &mut self.out.profile {
                // A thread that was begun and never ended counts as well.
                self.total.merge(acc);
                *acc = std::mem::take(&mut self.total);
            }
            own = threads
                .into_iter()
                .map(|a| Profile::from_acc(a, clocks, &ranks))
                .collect();
        }
        (
            self.out.profile.map(|a| Profile::from_acc(a, clocks, &ranks)),
            self.out.tree.map(CallTree::from_builder),
            own,
        )
    }
}
