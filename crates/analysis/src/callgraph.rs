//! dmtracedump's call graph, extended as seed 000 §5.7 proposes: given a
//! condition on context values, the part of each method and of each call
//! that ran while the condition held.
//!
//! Nodes are methods with their inclusive time (outermost invocations only,
//! as in the profile) and calls; edges go from caller to callee with the
//! calls made along them and their inclusive time. Calls from the top of a
//! thread's stack have no edge. With a window (the intervals where a
//! condition holds) every node and edge also carries its share inside it,
//! computed by the same walk as the context-conditioned profile and call
//! tree ([`crate::Profile::of`] with a window), so the highlighted times are
//! theirs: a call counts where it starts, its time where it runs.

use crate::intervals::IntervalSet;
use crate::profile::{Profile, ProfileOptions};
use rustc_hash::FxHashMap;
use tracekit_model::{MethodId, Session, ThreadId};

/// The part of a node or edge that ran while the condition held.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GraphShare {
    /// Calls that started inside the window.
    pub calls: u64,
    /// Inclusive real time inside the window (ns).
    pub incl_real_ns: u64,
    /// Inclusive thread-CPU time inside the window (ns).
    pub incl_cpu_ns: u64,
}

/// A method of the call graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphNode {
    /// The method.
    pub method: MethodId,
    /// Its calls.
    pub calls: u64,
    /// Inclusive real time (ns), outermost invocations only.
    pub incl_real_ns: u64,
    /// Exclusive real time (ns).
    pub excl_real_ns: u64,
    /// Inclusive thread-CPU time (ns).
    pub incl_cpu_ns: u64,
    /// The share inside the window, when there is one.
    pub when: Option<GraphShare>,
}

/// Calls from one method to another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphEdge {
    /// The caller.
    pub caller: MethodId,
    /// The callee.
    pub callee: MethodId,
    /// Calls made along the edge.
    pub calls: u64,
    /// Inclusive real time of those calls (ns).
    pub incl_real_ns: u64,
    /// Inclusive thread-CPU time of those calls (ns).
    pub incl_cpu_ns: u64,
    /// The share inside the window, when there is one.
    pub when: Option<GraphShare>,
}

/// What [`CallGraph::prune`] left out.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Pruned {
    /// The threshold, percent of the total time.
    pub min_percent: f64,
    /// Methods left out.
    pub nodes: usize,
    /// Edges left out (those of left-out methods included).
    pub edges: usize,
    /// Methods before pruning.
    pub nodes_before: usize,
    /// Edges before pruning.
    pub edges_before: usize,
}

/// A call graph.
#[derive(Debug, Clone, PartialEq)]
pub struct CallGraph {
    /// Methods that were called, by descending inclusive time.
    pub nodes: Vec<GraphNode>,
    /// Caller → callee edges, by descending inclusive time.
    pub edges: Vec<GraphEdge>,
    /// Whether times are real (wall) time; thread-CPU time otherwise.
    pub real_time: bool,
    /// Total time covered by calls (sum of exclusive times, ns) on that clock.
    pub total_ns: u64,
    /// Total time inside the window (ns), when there is one.
    pub when_total_ns: Option<u64>,
    /// What pruning left out, once pruned.
    pub pruned: Option<Pruned>,
}

fn share(calls: u64, incl_real_ns: u64, incl_cpu_ns: u64) -> GraphShare {
    GraphShare {
        calls,
        incl_real_ns,
        incl_cpu_ns,
    }
}

impl CallGraph {
    /// The call graph of the chosen threads (all when `None`), with each
    /// node's and edge's share inside `window` when given.
    pub fn of(session: &Session, threads: Option<&[ThreadId]>, window: Option<&IntervalSet>) -> CallGraph {
        let opts = ProfileOptions {
            threads: threads.map(<[ThreadId]>::to_vec),
            window: None,
        };
        let whole = Profile::of(session, &opts);
        let inside = window.map(|w| {
            Profile::of(
                session,
                &ProfileOptions {
                    window: Some(w.clone()),
                    ..opts.clone()
                },
            )
        });
        let real_time = session.clocks.wall || !session.clocks.thread_cpu;
        let node_in: FxHashMap<MethodId, GraphShare> = inside
            .iter()
            .flat_map(|p| &p.methods)
            .map(|r| (r.method, share(r.calls, r.incl_real_ns, r.incl_cpu_ns)))
            .collect();
        let edge_in: FxHashMap<(MethodId, MethodId), GraphShare> = inside
            .iter()
            .flat_map(|p| &p.edges)
            .filter_map(|e| Some(((e.parent?, e.child), share(e.calls, e.incl_real_ns, e.incl_cpu_ns))))
            .collect();
        let conditioned = inside.is_some();
        let nodes = whole
            .methods
            .iter()
            .map(|r| GraphNode {
                method: r.method,
                calls: r.calls,
                incl_real_ns: r.incl_real_ns,
                excl_real_ns: r.excl_real_ns,
                incl_cpu_ns: r.incl_cpu_ns,
                when: conditioned.then(|| node_in.get(&r.method).copied().unwrap_or_default()),
            })
            .collect();
        let edges = whole
            .edges
            .iter()
            .filter_map(|e| {
                let caller = e.parent?;
                Some(GraphEdge {
                    caller,
                    callee: e.child,
                    calls: e.calls,
                    incl_real_ns: e.incl_real_ns,
                    incl_cpu_ns: e.incl_cpu_ns,
                    when: conditioned.then(|| edge_in.get(&(caller, e.child)).copied().unwrap_or_default()),
                })
            })
            .collect();
        let pick = |p: &Profile| if real_time { p.total_real_ns } else { p.total_cpu_ns };
        CallGraph {
            nodes,
            edges,
            real_time,
            total_ns: pick(&whole),
            when_total_ns: inside.as_ref().map(pick),
            pruned: None,
        }
    }

    /// A node's inclusive time on the graph's clock.
    pub fn node_time(&self, n: &GraphNode) -> u64 {
        if self.real_time {
            n.incl_real_ns
        } else {
            n.incl_cpu_ns
        }
    }

    /// An edge's inclusive time on the graph's clock.
    pub fn edge_time(&self, e: &GraphEdge) -> u64 {
        if self.real_time {
            e.incl_real_ns
        } else {
            e.incl_cpu_ns
        }
    }

    /// A share's inclusive time on the graph's clock.
    pub fn share_time(&self, s: &GraphShare) -> u64 {
        if self.real_time {
            s.incl_real_ns
        } else {
            s.incl_cpu_ns
        }
    }

    /// `part` as a percentage of the total time.
    pub fn percent(&self, part: u64) -> f64 {
        if self.total_ns == 0 {
            0.0
        } else {
            part as f64 * 100.0 / self.total_ns as f64
        }
    }

    /// Leaves out methods and edges whose inclusive time is below
    /// `min_percent` of the total (and every edge of a left-out method),
    /// and records what was left out.
    pub fn prune(&mut self, min_percent: f64) -> Pruned {
        let before = (self.nodes.len(), self.edges.len());
        let keep_node: Vec<bool> = self
            .nodes
            .iter()
            .map(|n| self.percent(self.node_time(n)) >= min_percent)
            .collect();
        let kept: rustc_hash::FxHashSet<MethodId> = self
            .nodes
            .iter()
            .zip(&keep_node)
            .filter(|(_, &k)| k)
            .map(|(n, _)| n.method)
            .collect();
        let keep_edge: Vec<bool> = self
            .edges
            .iter()
            .map(|e| {
                kept.contains(&e.caller) && kept.contains(&e.callee) && self.percent(self.edge_time(e)) >= min_percent
            })
            .collect();
        let mut k = keep_node.iter();
        self.nodes.retain(|_| *k.next().unwrap());
        let mut k = keep_edge.iter();
        self.edges.retain(|_| *k.next().unwrap());
        let p = Pruned {
            min_percent,
            nodes: before.0 - self.nodes.len(),
            edges: before.1 - self.edges.len(),
            nodes_before: before.0,
            edges_before: before.1,
        };
        self.pruned = Some(p);
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracekit_model::{CallEvent, Clocks, Method, Thread};

    #[test]
    fn nodes_edges_and_the_share_inside_a_window() {
        let mut s = Session::new("g", Clocks::WALL);
        let t = s.add_thread(Thread::new(1, "main"));
        let a = s.methods.intern(Method::new("A", "a", "()V"));
        let b = s.methods.intern(Method::new("A", "b", "()V"));
        // a [0, 100) calls b twice: [10, 30) and [60, 90).
        for e in [
            CallEvent::enter(a, 0, None),
            CallEvent::enter(b, 10, None),
            CallEvent::exit(b, 30, None),
            CallEvent::enter(b, 60, None),
            CallEvent::exit(b, 90, None),
            CallEvent::exit(a, 100, None),
        ] {
            s.calls_mut(t).push(e);
        }
        let g = CallGraph::of(&s, None, Some(&IntervalSet::single(50, 100)));
        assert_eq!(g.nodes.len(), 2);
        assert_eq!(g.edges.len(), 1, "no edge from the top of the stack");
        let e = &g.edges[0];
        assert_eq!((e.caller, e.callee, e.calls, e.incl_real_ns), (a, b, 2, 50));
        assert_eq!(e.when, Some(share(1, 30, 0)));
        let na = g.nodes.iter().find(|n| n.method == a).unwrap();
        assert_eq!(na.when.unwrap().incl_real_ns, 50);
        assert_eq!(na.when.unwrap().calls, 0, "a call counts where it starts");
        assert_eq!((g.total_ns, g.when_total_ns), (100, Some(50)));
        let mut p = g.clone();
        let pr = p.prune(60.0);
        assert_eq!((pr.nodes, pr.edges), (1, 1));
        assert_eq!(p.nodes[0].method, a);
        assert!(CallGraph::of(&s, None, None).nodes.iter().all(|n| n.when.is_none()));
    }
}
