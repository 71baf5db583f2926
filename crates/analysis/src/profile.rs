//! Traceview's profile: per method inclusive and exclusive time on each
//! clock, call counts, recursive calls, parents and children.
//!
//! Inclusive time counts only the outermost invocation of a recursive
//! method, so a method's inclusive time never exceeds the time it was on the
//! stack. `calls` counts every invocation; `recursive_calls` those made while
//! the method was already on the stack (Traceview shows them as `calls+recursive`).

use crate::intervals::IntervalSet;
use crate::walk::{Closed, Visitor, Walker};
use rustc_hash::FxHashMap;
use serde::Serialize;
use tracekit_model::{Clocks, MethodId, Session, ThreadId};

/// What to profile.
#[derive(Debug, Clone, Default)]
pub struct ProfileOptions {
    /// Only these threads (all when `None`).
    pub threads: Option<Vec<ThreadId>>,
    /// Only time inside these intervals (all time when `None`).
    pub window: Option<IntervalSet>,
}

/// One method's row.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct MethodProfile {
    /// The method.
    #[serde(skip)]
    pub method: MethodId,
    /// Invocations (including recursive ones).
    pub calls: u64,
    /// Invocations made while the method was already on the stack.
    pub recursive_calls: u64,
    /// Inclusive real time (ns), outermost invocations only.
    pub incl_real_ns: u64,
    /// Exclusive real time (ns).
    pub excl_real_ns: u64,
    /// Inclusive thread-CPU time (ns), outermost invocations only.
    pub incl_cpu_ns: u64,
    /// Exclusive thread-CPU time (ns).
    pub excl_cpu_ns: u64,
}

/// Calls from one method (or the top level) to another.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct EdgeProfile {
    /// Caller; `None` for the top level of a thread.
    #[serde(skip)]
    pub parent: Option<MethodId>,
    /// Callee.
    #[serde(skip)]
    pub child: MethodId,
    /// Number of calls.
    pub calls: u64,
    /// Inclusive real time of those calls (ns).
    pub incl_real_ns: u64,
    /// Inclusive CPU time of those calls (ns).
    pub incl_cpu_ns: u64,
}

/// A whole profile.
#[derive(Debug, Clone)]
pub struct Profile {
    /// Clocks the times are on; a missing clock's columns are zero.
    pub clocks: Clocks,
    /// One row per method that was called, by descending inclusive time.
    pub methods: Vec<MethodProfile>,
    /// Caller → callee edges.
    pub edges: Vec<EdgeProfile>,
    /// Total real time covered by calls (sum of exclusive times, ns).
    pub total_real_ns: u64,
    /// Total CPU time covered by calls (ns).
    pub total_cpu_ns: u64,
}

#[derive(Default)]
pub(crate) struct Acc {
    rows: Vec<MethodProfile>,
    edges: FxHashMap<(u32, u32), EdgeProfile>,
}

impl Acc {
    /// Adds `other`'s rows and edges to these: every field is a sum, so
    /// the profile of threads walked apart and merged equals the profile of
    /// the same threads walked into one accumulator.
    pub(crate) fn merge(&mut self, other: &Acc) {
        if self.rows.len() < other.rows.len() {
            self.rows.resize(other.rows.len(), MethodProfile::default());
        }
        for (r, o) in self.rows.iter_mut().zip(&other.rows) {
            r.calls += o.calls;
            r.recursive_calls += o.recursive_calls;
            r.incl_real_ns += o.incl_real_ns;
            r.excl_real_ns += o.excl_real_ns;
            r.incl_cpu_ns += o.incl_cpu_ns;
            r.excl_cpu_ns += o.excl_cpu_ns;
        }
        for (key, o) in &other.edges {
            let e = self.edges.entry(*key).or_insert_with(|| EdgeProfile {
                parent: o.parent,
                child: o.child,
                ..Default::default()
            });
            e.calls += o.calls;
            e.incl_real_ns += o.incl_real_ns;
            e.incl_cpu_ns += o.incl_cpu_ns;
        }
    }
}

impl Visitor for Acc {
    fn enter(&mut self, _: MethodId, _: usize, _: bool) {}

    fn exit(&mut self, c: &Closed) {
        let i = c.method.0 as usize;
        if i >= self.rows.len() {
            self.rows.resize(i + 1, MethodProfile::default());
        }
        let r = &mut self.rows[i];
        if c.counted {
            r.calls += 1;
            if !c.outermost {
                r.recursive_calls += 1;
            }
        }
        if c.outermost {
            r.incl_real_ns += c.real;
            r.incl_cpu_ns += c.cpu;
        }
        r.excl_real_ns += c.real - c.child_real;
        r.excl_cpu_ns += c.cpu - c.child_cpu;
        let key = (c.parent.map_or(u32::MAX, |p| p.0), c.method.0);
        let e = self.edges.entry(key).or_insert_with(|| EdgeProfile {
            parent: c.parent,
            child: c.method,
            ..Default::default()
        });
        if c.counted {
            e.calls += 1;
        }
        e.incl_real_ns += c.real;
        e.incl_cpu_ns += c.cpu;
    }
}

impl Profile {
    /// Profiles a session.
    pub fn of(session: &Session, opts: &ProfileOptions) -> Profile {
        let mut acc = Acc::default();
        let mut walker = Walker::default();
        for (id, _, calls) in session.thread_calls() {
            if opts.threads.as_ref().is_some_and(|t| !t.contains(&id)) {
                continue;
            }
            walker.walk(calls, session.methods.len(), opts.window.as_ref(), &mut acc);
        }
        Profile::from_acc(acc, session.clocks, &session.methods.ranks())
    }

    /// The profile of what the walk accumulated; rows of equal time are
    /// ordered by `ranks` (see [`tracekit_model::MethodTable::ranks`]), so
    /// the order does not depend on the order methods were met in (a
    /// window's read meets them in another order than the whole run's).
    pub(crate) fn from_acc(acc: Acc, clocks: Clocks, ranks: &[u32]) -> Profile {
        let rank = |m: MethodId| ranks.get(m.0 as usize).copied().unwrap_or(m.0);
        let mut methods: Vec<MethodProfile> = acc
            .rows
            .into_iter()
            .enumerate()
            .map(|(i, mut r)| {
                r.method = MethodId(i as u32);
                r
            })
            .filter(|r| r.calls > 0 || r.incl_real_ns > 0 || r.incl_cpu_ns > 0)
            .collect();
        if !clocks.thread_cpu {
            for r in &mut methods {
                r.incl_cpu_ns = 0;
                r.excl_cpu_ns = 0;
            }
        }
        let total_real_ns = methods.iter().map(|r| r.excl_real_ns).sum();
        let total_cpu_ns = methods.iter().map(|r| r.excl_cpu_ns).sum();
        let key = |r: &MethodProfile| {
            if clocks.wall {
                r.incl_real_ns
            } else {
                r.incl_cpu_ns
            }
        };
        methods.sort_by(|a, b| key(b).cmp(&key(a)).then(rank(a.method).cmp(&rank(b.method))));
        let mut edges: Vec<EdgeProfile> = acc.edges.into_values().collect();
        edges.sort_by(|a, b| {
            b.incl_real_ns
                .cmp(&a.incl_real_ns)
                .then(rank(a.child).cmp(&rank(b.child)))
                .then(a.parent.map(rank).cmp(&b.parent.map(rank)))
        });
        Profile {
            clocks,
            methods,
            edges,
            total_real_ns,
            total_cpu_ns,
        }
    }

    /// The row of one method.
    pub fn method(&self, m: MethodId) -> Option<&MethodProfile> {
        self.methods.iter().find(|r| r.method == m)
    }

    /// Callers of `m` with call counts and times.
    pub fn parents(&self, m: MethodId) -> Vec<&EdgeProfile> {
        self.edges.iter().filter(|e| e.child == m).collect()
    }

    /// Callees of `m` with call counts and times.
    pub fn children(&self, m: MethodId) -> Vec<&EdgeProfile> {
        self.edges.iter().filter(|e| e.parent == Some(m)).collect()
    }

    /// `part` as a percentage of the real-time total.
    pub fn real_percent(&self, part: u64) -> f64 {
        percent(part, self.total_real_ns)
    }

    /// `part` as a percentage of the CPU-time total.
    pub fn cpu_percent(&self, part: u64) -> f64 {
        percent(part, self.total_cpu_ns)
    }
}

fn percent(part: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        part as f64 * 100.0 / total as f64
    }
}
